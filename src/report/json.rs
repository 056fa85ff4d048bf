//! `--format json` (`--json`): one object on stdout. Schema version 1; fields are only ever
//! added.

use crate::engine::SubmissionReport;
use crate::event::{Event, Reporter};
use crate::sandbox::IsolationLevel;
use serde::Serialize;
use std::io::Write;

pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct Run<'a> {
    schema: u32,
    problem: &'a str,
    solution: &'a str,
    isolation: IsolationLevel,
    /// The judge process's own peak memory, for checking that checkers stream.
    judge_memory_kib: u64,
    #[serde(flatten)]
    report: &'a SubmissionReport,
}

/// The JSON document of `judge run --json`.
pub fn run_document(
    problem: &str,
    solution: &str,
    isolation: IsolationLevel,
    report: &SubmissionReport,
) -> String {
    serde_json::to_string_pretty(&Run {
        schema: SCHEMA,
        problem,
        solution,
        isolation,
        judge_memory_kib: own_peak_kib(),
        report,
    })
    .expect("reports always serialize")
}

/// Peak resident memory of the judge process itself (not of its children).
fn own_peak_kib() -> u64 {
    // SAFETY: rusage is plain data filled by getrusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer for the duration of the call.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    usage.ru_maxrss.max(0) as u64
}

/// `--format json` of `judge run`: the document above, printed when the solution is done.
pub struct RunJson {
    out: super::human::Out,
    isolation: IsolationLevel,
    problem: String,
}

impl RunJson {
    pub fn new(out: super::human::Out) -> RunJson {
        RunJson {
            out,
            isolation: IsolationLevel::None,
            problem: String::new(),
        }
    }
}

impl Reporter for RunJson {
    fn event(&mut self, e: &Event) {
        if super::side_note(e) {
            return;
        }
        match e {
            Event::Started { isolation, .. } => self.isolation = *isolation,
            Event::ProblemStarted { problem, .. } => self.problem = problem.clone(),
            Event::SolutionFinished {
                solution,
                report: Some(report),
                ..
            } => {
                let doc = run_document(&self.problem, solution, self.isolation, report);
                let _ = writeln!(self.out, "{doc}");
                let _ = self.out.flush();
            }
            _ => {}
        }
    }
}

/// `--format json` of `judge verify` (a later issue specifies it in full): one object with the
/// findings, the verdict of every solution and the advice of every problem.
pub struct VerifyJson {
    out: super::human::Out,
    problems: Vec<serde_json::Value>,
    current: Option<serde_json::Map<String, serde_json::Value>>,
    solutions: Vec<serde_json::Value>,
}

impl VerifyJson {
    pub fn new(out: super::human::Out) -> VerifyJson {
        VerifyJson {
            out,
            problems: Vec::new(),
            current: None,
            solutions: Vec::new(),
        }
    }
}

impl Reporter for VerifyJson {
    fn event(&mut self, e: &Event) {
        if super::side_note(e) {
            return;
        }
        use serde_json::{json, Value};
        match e {
            Event::ProblemStarted {
                problem, dir, name, ..
            } => {
                let mut m = serde_json::Map::new();
                m.insert("problem".into(), json!(problem));
                m.insert("dir".into(), json!(dir));
                m.insert("name".into(), json!(name));
                self.current = Some(m);
                self.solutions.clear();
            }
            Event::SolutionFinished {
                solution,
                expected,
                allowed,
                matches,
                verdict,
                error,
                report,
                expected_score,
                ..
            } => {
                let mut v = json!({
                    "solution": solution,
                    "expected": expected,
                    "verdict": verdict,
                    "matches": matches,
                    "error": error,
                    "max_time_ms": report.as_ref().map(|r| (r.max_time().as_secs_f64() * 1e4).round() / 10.0),
                });
                // A scored problem's total, and the score the package expects.
                if let Some(score) = report.as_ref().and_then(|r| r.score) {
                    v["score"] = json!(score);
                    v["max_score"] = json!(report.as_ref().and_then(|r| r.max_score));
                }
                if let Some(e) = expected_score {
                    v["expected_score"] = json!(e);
                }
                if !allowed.is_empty() {
                    v["allowed"] = json!(allowed);
                }
                self.solutions.push(v);
            }
            Event::SolutionSkipped {
                solution,
                expected,
                allowed,
                reason,
                ..
            } => {
                let mut v = json!({
                    "solution": solution,
                    "expected": expected,
                    "skipped": reason,
                });
                if !allowed.is_empty() {
                    v["allowed"] = json!(allowed);
                }
                self.solutions.push(v);
            }
            Event::ProblemFinished {
                findings,
                advice,
                judge_errors,
                failures,
                ..
            } => {
                let mut m = self.current.take().unwrap_or_default();
                m.insert("findings".into(), json!(findings));
                m.insert(
                    "solutions".into(),
                    Value::from(std::mem::take(&mut self.solutions)),
                );
                m.insert("advice".into(), json!(advice));
                m.insert("judge_errors".into(), json!(judge_errors));
                m.insert("failures".into(), json!(failures));
                self.problems.push(Value::Object(m));
            }
            Event::Finished { exit } => {
                let doc = json!({
                    "schema": SCHEMA,
                    "problems": self.problems,
                    "exit": exit,
                });
                let text = serde_json::to_string_pretty(&doc).expect("values always serialize");
                let _ = writeln!(self.out, "{text}");
                let _ = self.out.flush();
            }
            _ => {}
        }
    }
}
