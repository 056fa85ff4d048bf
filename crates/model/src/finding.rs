//! What the setter tools find and advise: findings about a package, time-limit advice, what
//! `gen` wrote and what `stress` found.

use crate::result::SubmissionReport;
use crate::Verdict;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The package or a jury program is broken (a judge error): nothing built on it can be
    /// trusted.
    Broken,
    /// An expectation does not hold (an invalid or stale test, a checker test that disagrees).
    Failed,
}

/// Something wrong with a package, naming its file and what to do.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub message: String,
}

impl Finding {
    pub fn broken(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Broken,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Failed,
            message: message.into(),
        }
    }
}

/// Time-limit advice from the measured times.
#[derive(Debug, Clone, Serialize)]
pub struct TimeAdvice {
    #[serde(rename = "limit_ms", serialize_with = "crate::units::ser_ms")]
    pub limit: Duration,
    #[serde(serialize_with = "ser_timed")]
    pub slowest_accepted: Option<(Duration, PathBuf)>,
    /// Fastest test that a time_limit_exceeded solution was killed on (at least the limit).
    #[serde(serialize_with = "ser_timed")]
    pub fastest_tle: Option<(Duration, PathBuf)>,
    /// The limit the package's rule gives from the slowest accepted time (`rule`).
    #[serde(
        rename = "kattis_limit_ms",
        serialize_with = "crate::units::ser_opt_ms"
    )]
    pub kattis_limit: Option<Duration>,
    /// The rule that gave `kattis_limit`: the package's own, or the usual one.
    #[serde(skip)]
    pub rule: Option<TimeRule>,
    /// Solutions whose verdict would change within a factor 1.5 of the limit, with the evidence.
    pub warnings: Vec<String>,
}

/// `{"time_ms": …, "solution": "…"}` or null.
fn ser_timed<S: serde::Serializer>(
    v: &Option<(Duration, PathBuf)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Timed<'a> {
        #[serde(serialize_with = "crate::units::ser_ms")]
        time_ms: &'a Duration,
        solution: &'a Path,
    }
    v.as_ref()
        .map(|(time_ms, solution)| Timed { time_ms, solution })
        .serialize(s)
}

/// The Kattis rule for a time limit from the accepted solutions: the slowest one's CPU time times
/// `multiplier`, rounded up to a multiple of `resolution` seconds, at least one such step.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeRule {
    pub multiplier: f64,
    /// The key the multiplier came from (or its default), for messages.
    pub multiplier_key: String,
    /// Seconds.
    pub resolution: f64,
}

impl TimeRule {
    /// For packages that state no rule of their own: twice the slowest accepted time, rounded
    /// up to a tenth of a second.
    pub fn usual() -> TimeRule {
        TimeRule {
            multiplier: 2.0,
            multiplier_key: "the usual rule".into(),
            resolution: 0.1,
        }
    }

    /// The limit for the slowest accepted time.
    pub fn limit(&self, slowest: Duration) -> Duration {
        let steps = (slowest.as_secs_f64() * self.multiplier / self.resolution).ceil();
        Duration::from_secs_f64(steps.max(1.0) * self.resolution)
    }
}

/// What `gen` did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct GenSummary {
    pub inputs_written: Vec<String>,
    pub answers_written: Vec<String>,
    /// Work skipped because nothing it depends on changed.
    pub cached: usize,
    /// Regenerated, and identical to what was there.
    pub unchanged: usize,
    /// Other files written, relative to the package (a Polygon package's tests and answers,
    /// where its path patterns put them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_written: Option<Vec<String>>,
}

/// A failing input and what each side made of it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Counterexample {
    #[serde(serialize_with = "lossy")]
    pub input: Vec<u8>,
    #[serde(serialize_with = "lossy")]
    pub answer: Vec<u8>,
    #[serde(serialize_with = "lossy")]
    pub output: Vec<u8>,
    pub verdict: Verdict,
    pub message: String,
    /// Inputs tried before the first failure, and shrinking steps that made it smaller.
    pub tries: u64,
    pub shrink_steps: u64,
}

/// Bytes as text (not UTF-8: replacement characters) in JSON.
fn lossy<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(bytes))
}

/// One solution file and what happened to it.
#[derive(Debug, Clone)]
pub struct SolutionCheck {
    pub path: PathBuf,
    /// The first of `allowed` (the folder's verdict for a native package).
    pub expected: Verdict,
    /// Every final verdict the package allows (Kattis and Polygon packages may allow several).
    pub allowed: Vec<Verdict>,
    /// The score the package expects of it (a scored problem).
    pub score: Option<crate::score::Expected>,
    /// What the package's requirements on some of its tests find wrong (empty: nothing).
    pub rule_failures: Vec<String>,
    /// Why it was not judged although nothing is wrong (no toolchain for its language here).
    pub skipped: Option<String>,
    /// `None` when the solution could not be judged at all (see `error`).
    pub report: Option<SubmissionReport>,
    pub error: Option<String>,
}

impl SolutionCheck {
    /// The judge could not judge it (an error, or a JE verdict: the checker failed).
    pub fn judge_error(&self) -> bool {
        self.error.is_some()
            || self
                .report
                .as_ref()
                .is_some_and(|r| r.verdict == Verdict::JE)
    }

    /// The expectation holds: accepted means AC everywhere; otherwise the first failing verdict
    /// is one the package allows. A skipped solution holds nothing against the package.
    pub fn holds(&self) -> bool {
        self.skipped.is_some()
            || self.report.as_ref().is_some_and(|r| {
                self.allowed.contains(&r.verdict)
                    && crate::result::score_matches(self.score, r)
                    && self.rule_failures.is_empty()
            })
    }
}
