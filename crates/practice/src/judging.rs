//! A judging engine's work: a submission judged on every test of its problem with the engine
//! of `judge run` (all tests, not stopping at the first failure, so the page shows each), its
//! events sent to the page and its results to the history as they come; and stress runs
//! (`setter::stress`: a generator, a brute force, the shrinking). Each engine of the pool
//! (`--jobs`) runs this on a thread of its own; the engines share one gate, so a test near its
//! time limit that ran beside another job is judged again alone (`judge_core::jobs`), and the
//! test's result says so (`rejudged`: the verdict and time beside the others).

use super::{Job, Practice};
use judge_core::engine::{Engine, JudgeOptions};
use judge_core::judging::{self, Prepared};
use judge_core::setter::stress::{stress, StressOptions};
use judge_model::event::{Event, Reporter};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A stress run asked for by the page.
pub struct StressJob {
    pub id: usize,
    pub problem: String,
    pub folder: PathBuf,
    pub solution: PathBuf,
    pub generator: PathBuf,
    pub brute: PathBuf,
    pub args: String,
    pub seconds: f64,
}

pub fn run(practice: &Practice, engine: &mut Engine, job: Job) {
    match job {
        Job::Judge(id) => judge(practice, engine, id),
        Job::Task(task) => task(practice, engine),
        Job::Unwind(payload) => std::panic::resume_unwind(payload),
        // Handled by the pool (`serve`): never given to an engine.
        Job::Stop => {}
        Job::Stress(job) => {
            let outcome = stress_run(practice, engine, &job);
            let _ = std::fs::remove_dir_all(&job.folder);
            let mut all = practice.stress.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(entry) = all.get_mut(job.id) {
                match outcome {
                    Ok(found) => {
                        entry["state"] = json!("done");
                        entry["found"] = found;
                    }
                    Err(e) => {
                        entry["state"] = json!("failed");
                        entry["error"] = json!(e);
                    }
                }
                practice.hub.publish(&json!({
                    "event": "stress_done",
                    "stress": job.id,
                    "problem": job.problem,
                    "state": entry["state"],
                }));
            }
        }
    }
}

/// Sends the engine's events to the page (with the submission's id) and keeps the tests'
/// results in the history as they come.
struct Forward<'a> {
    practice: &'a Practice,
    submission: i64,
    /// The judged copy's path and the name the user knows the file by.
    copy: String,
    shown: String,
    tests: Vec<Value>,
    /// The next test's result as judged beside other jobs, before it was judged again alone.
    beside: Option<Value>,
}

impl Forward<'_> {
    fn rename(&self, mut v: Value) -> Value {
        rename_paths(&mut v, &self.copy, &self.shown);
        v
    }
}

/// Replaces the judged copy's path by the user's name for the file, in every string.
fn rename_paths(v: &mut Value, copy: &str, shown: &str) {
    match v {
        Value::String(s) if s.contains(copy) => *s = s.replace(copy, shown),
        Value::Array(a) => a.iter_mut().for_each(|x| rename_paths(x, copy, shown)),
        Value::Object(o) => o.values_mut().for_each(|x| rename_paths(x, copy, shown)),
        _ => {}
    }
}

impl Reporter for Forward<'_> {
    fn event(&mut self, event: &Event) {
        let mut v = self.rename(serde_json::to_value(event).unwrap_or(Value::Null));
        if let Event::Rejudged { beside, .. } = event {
            self.beside = Some(json!({
                "verdict": beside.verdict.to_string(),
                "time_ms": (beside.time.as_secs_f64() * 1000.0).round() as i64,
            }));
        }
        if let Event::TestFinished { result, test, .. } = event {
            let mut result = self.rename(serde_json::to_value(result).unwrap_or(Value::Null));
            result["index"] = json!(test.index);
            if let Some(beside) = self.beside.take() {
                result["rejudged"] = beside;
            }
            self.tests.push(result);
            let _ = self
                .practice
                .db
                .progress(self.submission, &Value::Array(self.tests.clone()));
        }
        if let Value::Object(o) = &mut v {
            o.insert("submission".into(), json!(self.submission));
        }
        self.practice.hub.publish(&v);
    }
}

fn judge(practice: &Practice, engine: &mut Engine, id: i64) {
    let finish = |verdict: &str,
                  error: Option<&str>,
                  compile: Option<&Value>,
                  tests: &Value,
                  time: Option<i64>,
                  memory: Option<i64>| {
        let _ = practice.db.finish(
            id,
            verdict,
            error,
            compile,
            tests,
            time,
            memory,
            practice.now(),
        );
        practice.hub.publish(&json!({
            "event": "submission_finished",
            "submission": id,
            "verdict": verdict,
            "error": error,
        }));
    };
    let Ok(Some((problem_id, file_name, source))) = practice.db.source(id) else {
        return;
    };
    let _ = practice.db.start(id, practice.now());
    practice.hub.publish(&json!({
        "event": "submission_started",
        "submission": id,
        "problem": problem_id,
    }));
    let problem = match practice.store.load(&problem_id) {
        Ok(p) => p,
        Err(e) => return finish("JE", Some(&e), None, &json!([]), None, None),
    };
    if practice.store.meta(&problem_id).interactive && problem.interactor.is_none() {
        let message = "an interactive problem is judged once an interactor is attached (on its page, or [interactor] in its problem.toml): its samples hold only one side of the conversation; play it by hand in its console meanwhile";
        return finish("JE", Some(message), None, &json!([]), None, None);
    }
    if problem.tests.is_empty() {
        // Its last test was removed while this waited.
        let message = super::no_tests(&problem_id);
        return finish("JE", Some(&message), None, &json!([]), None, None);
    }
    if problem
        .tests
        .iter()
        .any(|t| t.answer_missing || t.generate.is_some())
    {
        let message = "the package lacks some tests or answers: run `judge gen` on it first";
        return finish("JE", Some(message), None, &json!([]), None, None);
    }
    let folder = practice.store.dir.join("submissions").join(id.to_string());
    let copy = folder.join(&file_name);
    let written = std::fs::create_dir_all(&folder).and_then(|_| std::fs::write(&copy, &source));
    if let Err(e) = written {
        let message = format!("{}: cannot write the source: {e}", copy.display());
        return finish("JE", Some(&message), None, &json!([]), None, None);
    }
    let shown = practice
        .db
        .get(id, false)
        .ok()
        .flatten()
        .and_then(|s| s["path"].as_str().map(str::to_string))
        .unwrap_or_else(|| file_name.clone());
    let mut forward = Forward {
        practice,
        submission: id,
        copy: copy.display().to_string(),
        shown,
        tests: Vec::new(),
        beside: None,
    };
    let result = Prepared::new(engine, problem).and_then(|prepared| {
        let options = JudgeOptions {
            all: true,
            ..Default::default()
        };
        judging::judge_one(&mut [engine], &prepared, &copy, options, &mut forward)
    });
    let _ = std::fs::remove_dir_all(&folder);
    match result {
        Ok(report) => {
            let compile =
                forward.rename(serde_json::to_value(&report.compile).unwrap_or(Value::Null));
            let mut tests =
                forward.rename(serde_json::to_value(&report.tests).unwrap_or(Value::Null));
            if let Value::Array(all) = &mut tests {
                for (i, t) in all.iter_mut().enumerate() {
                    t["index"] = json!(i + 1);
                    let seen = forward.tests.iter().find(|f| f["index"] == json!(i + 1));
                    if let Some(beside) = seen.and_then(|f| f.get("rejudged")) {
                        t["rejudged"] = beside.clone();
                    }
                }
            }
            let time = slowest_ms(&report.tests);
            let memory = report.tests.iter().map(|t| (t.memory / 1024) as i64).max();
            finish(
                &report.verdict.to_string(),
                None,
                Some(&compile),
                &tests,
                time,
                memory,
            );
        }
        Err(e) => {
            let message = e.to_string().replace(&forward.copy, &forward.shown);
            let tests = Value::Array(forward.tests.clone());
            finish("JE", Some(&message), None, &tests, None, None);
        }
    }
}

fn stress_run(practice: &Practice, engine: &mut Engine, job: &StressJob) -> Result<Value, String> {
    {
        let mut all = practice.stress.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = all.get_mut(job.id) {
            entry["state"] = json!("running");
        }
    }
    let problem = practice.store.load(&job.problem)?;
    let options = StressOptions {
        gen: format!("{} {}", job.generator.display(), job.args),
        time_budget: Duration::from_secs_f64(job.seconds),
        against: Some(job.brute.clone()),
        generator_time_limit: None,
    };
    let id = job.id;
    let found = stress(
        &mut [engine],
        &problem,
        &job.solution,
        &options,
        &mut |line| {
            practice.hub.publish(&json!({
                "event": "stress_progress",
                "stress": id,
                "message": line.replace(&job.folder.display().to_string(), "…"),
            }))
        },
    )
    .map_err(|e| {
        e.to_string()
            .replace(&job.folder.display().to_string(), "…")
    })?;
    let mut value = serde_json::to_value(&found).unwrap_or(Value::Null);
    rename_paths(&mut value, &job.folder.display().to_string(), "…");
    Ok(value)
}

/// A submission's time: its slowest test's, in milliseconds rounded as the tests' own are
/// shown (0.9 ms is 1 ms, not 0).
fn slowest_ms(tests: &[judge_model::TestResult]) -> Option<i64> {
    tests
        .iter()
        .map(|t| (t.time.as_secs_f64() * 1000.0).round() as i64)
        .max()
}

/// The path of a stress run's file in its folder.
pub fn stress_file(folder: &Path, name: &str) -> PathBuf {
    folder.join(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_model::{TestResult, Verdict};

    fn took(micros: u64) -> TestResult {
        TestResult {
            name: "t".into(),
            verdict: Verdict::AC,
            time: Duration::from_micros(micros),
            wall: Duration::from_micros(micros),
            memory: 0,
            message: String::new(),
            mismatch: None,
            checker_score: None,
            passes: None,
            transcript: None,
            stdout: None,
            stderr: None,
        }
    }

    #[test]
    fn a_submissions_time_is_its_slowest_test_rounded() {
        assert_eq!(slowest_ms(&[took(900), took(300)]), Some(1));
        assert_eq!(slowest_ms(&[took(1499)]), Some(1));
        assert_eq!(slowest_ms(&[took(1500), took(12)]), Some(2));
        assert_eq!(slowest_ms(&[took(400)]), Some(0));
        assert_eq!(slowest_ms(&[]), None);
    }
}
