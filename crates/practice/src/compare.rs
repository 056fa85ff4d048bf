//! Several solutions on one problem's tests (a brute force and a fast one, say): a solutions ×
//! tests matrix of verdicts and times, and for each test where their outputs differ, the first
//! line where they do, as each solution wrote it. Judged on one engine of the pool, one
//! solution after the other, every test each (`POST /api/compare`).

use super::{Practice, Source};
use judge_core::engine::{Engine, JudgeOptions};
use judge_core::judging::{self, Prepared};
use serde_json::{json, Value};

/// Solutions in one comparison.
pub const MAX_SOLUTIONS: usize = 6;
/// Bytes of each test's output kept for the comparison.
const KEPT_OUTPUT: usize = 64 * 1024;
/// A differing line is shown up to this many characters.
const SHOWN: usize = 200;

/// The comparison of `sources` (with the names the page knows them by) on `problem_id`.
pub fn compare(
    practice: &Practice,
    engine: &mut Engine,
    problem_id: &str,
    sources: &[(String, Source)],
) -> Result<Value, String> {
    let problem = practice.store.load(problem_id)?;
    if problem.tests.is_empty() {
        return Err(super::no_tests(problem_id));
    }
    if practice.store.meta(problem_id).interactive && problem.interactor.is_none() {
        return Err(no_interactor(problem_id));
    }
    let tests: Vec<String> = problem.tests.iter().map(|t| t.name.clone()).collect();
    let prepared = Prepared::new(engine, problem).map_err(|e| e.to_string())?;
    let capture = engine.capture;
    engine.capture = KEPT_OUTPUT;
    let mut solutions = Vec::new();
    // Per solution, per test: its output when it ran to the end (`None`: no output to compare).
    let mut outputs: Vec<Vec<Option<(String, bool)>>> = Vec::new();
    for (name, source) in sources {
        let folder = practice.store.dir.join("submissions").join(format!(
            "compare-{}-{}",
            std::process::id(),
            unique()
        ));
        let copy = folder.join(&source.file_name);
        let written = std::fs::create_dir_all(&folder)
            .and_then(|_| std::fs::write(&copy, &source.text))
            .map_err(|e| format!("cannot write the source: {e}"));
        let report = written.and_then(|_| {
            judging::judge_one(
                &mut [&mut *engine],
                &prepared,
                &copy,
                JudgeOptions {
                    all: true,
                    ..Default::default()
                },
                &mut judge_model::event::Silent,
            )
            .map_err(|e| e.to_string())
        });
        let _ = std::fs::remove_dir_all(&folder);
        let rename = |text: &str| text.replace(&copy.display().to_string(), name);
        match report {
            Ok(report) => {
                let results: Vec<Value> = tests
                    .iter()
                    .map(|t| match report.tests.iter().find(|r| &r.name == t) {
                        Some(r) => json!({
                            "verdict": r.verdict.to_string(),
                            "time_ms": (r.time.as_secs_f64() * 1000.0).round() as i64,
                        }),
                        None => json!({"verdict": null}),
                    })
                    .collect();
                outputs.push(
                    tests
                        .iter()
                        .map(|t| {
                            let r = report.tests.iter().find(|r| &r.name == t)?;
                            let ran = !matches!(
                                r.verdict,
                                judge_model::Verdict::JE | judge_model::Verdict::CE
                            );
                            let out = r.stdout.as_ref().filter(|_| ran)?;
                            Some((out.text.clone(), out.truncated))
                        })
                        .collect(),
                );
                let compile = (!report.compile.ok).then(|| rename(&report.compile.message));
                solutions.push(json!({
                    "name": name,
                    "verdict": report.verdict.to_string(),
                    "compile_error": compile,
                    "tests": results,
                }));
            }
            Err(e) => {
                outputs.push(tests.iter().map(|_| None).collect());
                solutions.push(json!({
                    "name": name,
                    "verdict": "JE",
                    "error": rename(&e),
                    "tests": tests.iter().map(|_| json!({"verdict": null})).collect::<Vec<_>>(),
                }));
            }
        }
    }
    engine.capture = capture;
    let differences: Vec<Value> = tests
        .iter()
        .enumerate()
        .filter_map(|(i, test)| {
            let column: Vec<Option<&(String, bool)>> =
                outputs.iter().map(|o| o[i].as_ref()).collect();
            first_difference(&column)
                .map(|(line, shown)| json!({"test": test, "line": line, "outputs": shown}))
        })
        .collect();
    Ok(json!({
        "problem": problem_id,
        "tests": tests,
        "solutions": solutions,
        "differences": differences,
    }))
}

/// Why solutions are not compared on an interactive problem without its interactor.
pub fn no_interactor(problem_id: &str) -> String {
    format!(
        "problem `{problem_id}` is interactive and has no interactor: attach one to compare solutions on it"
    )
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The first line (from 1) where the outputs that exist differ (trailing spaces and a missing
/// last end of line aside), and each solution's line there (`null`: it has no output, or no
/// such line). `None` when they agree (within what was kept of each).
fn first_difference(outputs: &[Option<&(String, bool)>]) -> Option<(usize, Vec<Value>)> {
    let present: Vec<Vec<&str>> = outputs
        .iter()
        .flatten()
        .map(|(text, _)| text.lines().map(str::trim_end).collect())
        .collect();
    if present.len() < 2 {
        return None;
    }
    let cut = outputs.iter().flatten().any(|(_, truncated)| *truncated);
    let longest = present.iter().map(Vec::len).max().unwrap_or(0);
    for n in 0..longest {
        let at: Vec<Option<&str>> = present.iter().map(|l| l.get(n).copied()).collect();
        if at.iter().all(|l| *l == at[0]) {
            continue;
        }
        // A cut output's end is not its end: a line missing there proves nothing.
        if cut && at.iter().any(Option::is_none) {
            return None;
        }
        let shown = outputs
            .iter()
            .map(|o| match o {
                None => Value::Null,
                Some((text, _)) => match text.lines().nth(n) {
                    Some(l) => json!(l.trim_end().chars().take(SHOWN).collect::<String>()),
                    None => json!(null),
                },
            })
            .collect();
        return Some((n + 1, shown));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_of_each_output() {
        let a = ("1\n2\n3\n".to_string(), false);
        let b = ("1\n2 \n4\n".to_string(), false);
        let c = ("1\n2".to_string(), false);
        assert_eq!(first_difference(&[Some(&a), Some(&a)]), None);
        assert_eq!(
            first_difference(&[Some(&a), None, Some(&b)]),
            Some((3, vec![json!("3"), Value::Null, json!("4")]))
        );
        assert_eq!(
            first_difference(&[Some(&a), Some(&c)]),
            Some((3, vec![json!("3"), Value::Null]))
        );
        // One output alone has nothing to differ from.
        assert_eq!(first_difference(&[Some(&a), None]), None);
        // A cut output that agrees as far as it goes.
        let cut = ("1\n2\n".to_string(), true);
        assert_eq!(first_difference(&[Some(&a), Some(&cut)]), None);
    }
}
