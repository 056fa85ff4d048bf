//! `--format json` (`--json`): one object on stdout. Schema version 1; fields are only ever
//! added.

use judge_model::event::{Event, Reporter};
use judge_model::result::SubmissionReport;
use judge_model::IsolationLevel;
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

/// `--format json` of `judge verify`: one object, the contract of issue #11 (schema 1; fields
/// are only ever added):
/// `{"schema", "ok", "problems": [{"problem", "path", "format", "ok", "time_limit_ms",
/// "time_limit_source", "solutions": [{"file", "language", "expected", "verdict", "ok",
/// "max_time_ms", "tests"} | {"file", "skipped"}], …}], …}`. Beside those, each problem keeps
/// its `name`, `findings`, `advice`, `judge_errors` and `failures`, each solution an `error`
/// when it could not be judged and its `first_failure` (`{"test", "verdict", "message"}`) when
/// a test was not accepted, and the document the exit status (`exit`).
pub struct VerifyJson {
    out: super::human::Out,
    problems: Vec<VerifyProblem>,
    current: Option<VerifyProblem>,
}

/// One problem of the document.
#[derive(Serialize)]
struct VerifyProblem {
    problem: String,
    /// The package folder as given or found.
    path: String,
    /// `native`, `kattis-legacy`, `kattis-2025-09`, `polygon`; null when no package was found.
    format: Option<String>,
    ok: bool,
    #[serde(serialize_with = "judge_model::units::ser_opt_ms")]
    time_limit_ms: Option<std::time::Duration>,
    time_limit_source: Option<String>,
    solutions: Vec<VerifySolution>,
    name: String,
    findings: Vec<judge_model::finding::Finding>,
    advice: Option<judge_model::finding::TimeAdvice>,
    judge_errors: usize,
    failures: usize,
}

/// A solution of the document: judged (or not judgeable: `verdict` JE with an `error`), or
/// skipped (no toolchain here).
#[derive(Serialize)]
#[serde(untagged)]
enum VerifySolution {
    Judged {
        file: String,
        /// The language table's name for it (null when it was not built).
        language: Option<String>,
        /// Every final verdict the package allows.
        expected: Vec<judge_model::Verdict>,
        verdict: judge_model::Verdict,
        ok: bool,
        /// The slowest test's CPU time (null when no test ran).
        max_time_ms: Option<f64>,
        /// Tests judged (a rejected solution stops at its first failing test).
        tests: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// A scored problem's total, its maximum, and the score the package expects.
        #[serde(skip_serializing_if = "Option::is_none")]
        score: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_score: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_score: Option<judge_model::score::Expected>,
        /// What the package's requirements on some of its tests find wrong.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        rule_failures: Vec<String>,
        /// The first test not accepted: its name, verdict and message.
        #[serde(skip_serializing_if = "Option::is_none")]
        first_failure: Option<FirstFailure>,
    },
    Skipped {
        file: String,
        skipped: String,
        expected: Vec<judge_model::Verdict>,
    },
}

/// A solution's first test not accepted, in `verify --json`.
#[derive(Serialize)]
struct FirstFailure {
    test: String,
    verdict: judge_model::Verdict,
    message: String,
}

#[derive(Serialize)]
struct VerifyDocument<'a> {
    schema: u32,
    ok: bool,
    problems: &'a [VerifyProblem],
    exit: i32,
}

impl VerifyJson {
    pub fn new(out: super::human::Out) -> VerifyJson {
        VerifyJson {
            out,
            problems: Vec::new(),
            current: None,
        }
    }

    /// A solution's path relative to the package root when it lies inside the package (Kattis
    /// and Polygon), else as found (a native package's `solutions/<slug>/…`).
    fn file(&self, solution: &str) -> String {
        let Some(p) = &self.current else {
            return solution.to_string();
        };
        std::path::Path::new(solution)
            .strip_prefix(&p.path)
            .ok()
            .filter(|r| !r.as_os_str().is_empty())
            .map(|r| r.display().to_string())
            .unwrap_or_else(|| solution.to_string())
    }
}

/// The verdicts a solution may end with: `allowed` when the package gives several, else the one
/// `expected`.
fn expected_set(
    expected: Option<judge_model::Verdict>,
    allowed: &[judge_model::Verdict],
) -> Vec<judge_model::Verdict> {
    if allowed.is_empty() {
        expected.into_iter().collect()
    } else {
        allowed.to_vec()
    }
}

impl Reporter for VerifyJson {
    fn event(&mut self, e: &Event) {
        if super::side_note(e) {
            return;
        }
        match e {
            Event::ProblemStarted {
                problem, dir, name, ..
            } => {
                self.current = Some(VerifyProblem {
                    problem: problem.clone(),
                    path: dir.clone(),
                    format: None,
                    ok: false,
                    time_limit_ms: None,
                    time_limit_source: None,
                    solutions: Vec::new(),
                    name: name.clone(),
                    findings: Vec::new(),
                    advice: None,
                    judge_errors: 0,
                    failures: 0,
                });
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
                rule_failures,
                ..
            } => {
                let s = VerifySolution::Judged {
                    file: self.file(solution),
                    language: report.as_ref().map(|r| r.compile.language.clone()),
                    expected: expected_set(*expected, allowed),
                    verdict: *verdict,
                    ok: matches.unwrap_or(false),
                    max_time_ms: report
                        .as_ref()
                        .filter(|r| !r.tests.is_empty())
                        .map(|r| (r.max_time().as_secs_f64() * 1e4).round() / 10.0),
                    tests: report.as_ref().map_or(0, |r| r.tests.len()),
                    error: error.clone(),
                    score: report.as_ref().and_then(|r| r.score),
                    max_score: report.as_ref().and_then(|r| r.max_score),
                    expected_score: *expected_score,
                    rule_failures: rule_failures.clone(),
                    first_failure: report.as_ref().and_then(|r| r.first_failure()).map(|t| {
                        FirstFailure {
                            test: t.name.clone(),
                            verdict: t.verdict,
                            message: t.message.clone(),
                        }
                    }),
                };
                if let Some(p) = &mut self.current {
                    p.solutions.push(s);
                }
            }
            Event::SolutionSkipped {
                solution,
                expected,
                allowed,
                reason,
                ..
            } => {
                let s = VerifySolution::Skipped {
                    file: self.file(solution),
                    skipped: reason.clone(),
                    expected: expected_set(*expected, allowed),
                };
                if let Some(p) = &mut self.current {
                    p.solutions.push(s);
                }
            }
            Event::ProblemFinished {
                findings,
                advice,
                judge_errors,
                failures,
                package,
                ..
            } => {
                if let Some(mut p) = self.current.take() {
                    p.ok = *judge_errors == 0 && *failures == 0;
                    p.findings = findings.clone();
                    p.advice = advice.clone();
                    p.judge_errors = *judge_errors;
                    p.failures = *failures;
                    if let Some(info) = package {
                        p.format = info.format.clone();
                        p.time_limit_ms = info.time_limit_ms;
                        p.time_limit_source = info.time_limit_source.clone();
                    }
                    self.problems.push(p);
                }
            }
            Event::Finished { exit } => {
                let doc = VerifyDocument {
                    schema: SCHEMA,
                    ok: *exit == 0 && self.problems.iter().all(|p| p.ok),
                    problems: &self.problems,
                    exit: *exit,
                };
                let text = serde_json::to_string_pretty(&doc).expect("reports always serialize");
                let _ = writeln!(self.out, "{text}");
                let _ = self.out.flush();
            }
            _ => {}
        }
    }
}

/// `--format json` of `judge gen` and `judge stress`: one object at the end, the subcommand's
/// final event (`generated` or `stress_finished`, with the fields `jsonl` gives it, `"event"`
/// included) beside `"schema": 1`, `"command"` and the exit status (`exit`).
pub struct SetterJson {
    out: super::human::Out,
    command: &'static str,
    result: Option<Event>,
}

#[derive(Serialize)]
struct SetterDocument<'a> {
    schema: u32,
    command: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    result: Option<&'a Event>,
    exit: i32,
}

impl SetterJson {
    pub fn new(out: super::human::Out, command: &'static str) -> SetterJson {
        SetterJson {
            out,
            command,
            result: None,
        }
    }
}

impl Reporter for SetterJson {
    fn event(&mut self, e: &Event) {
        if super::side_note(e) {
            return;
        }
        match e {
            Event::Generated { .. } | Event::StressFinished { .. } => self.result = Some(e.clone()),
            Event::Finished { exit } => {
                let doc = SetterDocument {
                    schema: SCHEMA,
                    command: self.command,
                    result: self.result.as_ref(),
                    exit: *exit,
                };
                let text = serde_json::to_string_pretty(&doc).expect("reports always serialize");
                let _ = writeln!(self.out, "{text}");
                let _ = self.out.flush();
            }
            _ => {}
        }
    }
}
