//! What judging produced: a test's result, a compile report, a submission's report.

use crate::diff::Window;
use crate::score::{GroupScore, Reported};
use crate::transcript::Transcript;
use crate::Verdict;
use serde::{Serialize, Serializer};
use std::time::Duration;

/// The result of one test.
#[derive(Debug, Clone, Serialize)]
pub struct TestResult {
    pub name: String,
    pub verdict: Verdict,
    /// CPU time.
    #[serde(rename = "time_ms", serialize_with = "crate::units::ser_ms")]
    pub time: Duration,
    #[serde(rename = "wall_ms", serialize_with = "crate::units::ser_ms")]
    pub wall: Duration,
    /// Peak memory in bytes.
    #[serde(rename = "memory_kib", serialize_with = "crate::units::ser_kib")]
    pub memory: u64,
    pub message: String,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_mismatch"
    )]
    pub mismatch: Option<Mismatch>,
    /// The checker's own score for the test (testlib `points`, Kattis `score.txt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checker_score: Option<Reported>,
    /// How many times the solution ran on the test (multi-pass problems).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passes: Option<u32>,
    /// An interactive test's exchange, when it was recorded (`judge run --transcript`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Box<Transcript>>,
    /// What the solution printed (its output file, for a problem with one): the first
    /// [`Captured::CAP`] bytes. None when it did not run, and on an interactive test, where its
    /// output is the exchange (`transcript`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<Captured>,
    /// What the solution wrote to stderr: the last [`Captured::CAP`] bytes (a crash's reason
    /// ends it). None when it did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<Captured>,
}

/// Part of what a program wrote to one stream, as text (invalid UTF-8 replaced).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Captured {
    pub text: String,
    /// The stream was longer than `text`: it was cut (at its end for stdout, at its start for
    /// stderr).
    pub truncated: bool,
}

impl Captured {
    /// How many bytes of each stream a test keeps (unless its engine's `capture` was raised:
    /// the service's Judge0 runs).
    pub const CAP: usize = 4096;

    /// The last `n` non-blank lines of the text.
    pub fn last_lines(&self, n: usize) -> Vec<&str> {
        let lines: Vec<&str> = self.text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].to_vec()
    }
}

/// The result of judging one solution.
#[derive(Debug, Clone, Serialize)]
pub struct SubmissionReport {
    pub verdict: Verdict,
    pub compile: CompileReport,
    pub tests: Vec<TestResult>,
    /// A scored problem's total (the core's `Scored::score_with`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_score: Option<f64>,
    /// A scored problem's groups with their scores.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupScore>,
    /// A scored problem's tests not judged because they could not change the score, the
    /// groups' results or the verdict (the core's `Scoring::skip`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedTest>,
}

/// A test not judged, and why.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedTest {
    pub name: String,
    pub why: String,
    /// Its index among the problem's tests, and what stands in for it in the evaluation.
    #[serde(skip)]
    pub index: usize,
    #[serde(skip)]
    pub stand_in: Verdict,
}

impl SubmissionReport {
    /// The first test that did not pass.
    pub fn first_failure(&self) -> Option<&TestResult> {
        self.tests.iter().find(|t| t.verdict != Verdict::AC)
    }

    /// Adds a test's result (the first failure decides the verdict); false when judging stops
    /// here (a failure, without `all`).
    pub fn record(&mut self, result: TestResult, all: bool) -> bool {
        let failed = result.verdict != Verdict::AC;
        if failed && self.verdict == Verdict::AC {
            self.verdict = result.verdict;
        }
        self.tests.push(result);
        all || !failed
    }

    /// A report with no test judged yet.
    pub fn new(verdict: Verdict, compile: CompileReport) -> SubmissionReport {
        SubmissionReport {
            verdict,
            compile,
            tests: Vec::new(),
            score: None,
            max_score: None,
            groups: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// The slowest CPU time over the tests.
    pub fn max_time(&self) -> Duration {
        self.tests.iter().map(|t| t.time).max().unwrap_or_default()
    }
}

/// Whether a judged solution got the score `expected` of it (no expectation: it did).
pub fn score_matches(expected: Option<crate::score::Expected>, report: &SubmissionReport) -> bool {
    match expected {
        None => true,
        Some(e) => report.score.is_some_and(|s| e.holds(s, report.max_score)),
    }
}

/// How compilation went.
#[derive(Debug, Clone, Serialize)]
pub struct CompileReport {
    pub language: String,
    pub ok: bool,
    /// Taken from the build cache: no compiler ran (the time is then zero).
    pub cached: bool,
    #[serde(rename = "time_ms")]
    #[serde(serialize_with = "crate::units::ser_ms")]
    pub time: Duration,
    /// The compiler's messages (capped), or why the compiler was stopped.
    pub message: String,
}

/// Where the output first differs from the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// 1-based line and column (in bytes) in the contestant's output.
    pub line: u64,
    pub column: u64,
    /// What the answer has there, and what the output has (each short, capped).
    pub expected: String,
    pub found: String,
    /// The lines around the mismatch, expected and found aligned by line number (rendered by
    /// `report::diff`; the JSON's `diff` is its plain rendering).
    pub window: Window,
}

pub fn ser_mismatch<S: Serializer>(m: &Option<Mismatch>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    match m {
        None => s.serialize_none(),
        Some(m) => {
            let mut st = s.serialize_struct("Mismatch", 5)?;
            st.serialize_field("line", &m.line)?;
            st.serialize_field("column", &m.column)?;
            st.serialize_field("expected", &m.expected)?;
            st.serialize_field("found", &m.found)?;
            let plain = crate::paint::Paint { on: false };
            st.serialize_field("diff", &crate::diff::render(&m.window, &plain, ""))?;
            st.end()
        }
    }
}
