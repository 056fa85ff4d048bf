//! Scores as data: what a checker reports for a test, a group's and a submission's score, and
//! the score a package expects.

use crate::Verdict;
use serde::Serialize;

/// Scores are compared with this tolerance.
pub const EPSILON: f64 = 1e-6;

/// A checker's own score for a test (Kattis `score.txt` / `score_multiplier.txt`, testlib
/// `points`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reported {
    /// The test's score.
    Score(f64),
    /// A fraction of the test's maximum.
    Multiplier(f64),
}

/// A group's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupScore {
    pub name: String,
    pub score: f64,
    pub max_score: Option<f64>,
    pub verdict: Verdict,
    /// Why it scored nothing although its tests may pass (a dependency failed), or why it is a
    /// judge error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A submission's score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub score: f64,
    pub max_score: Option<f64>,
    /// The root's aggregated verdict.
    pub verdict: Verdict,
    /// Every named group in order (nested ones after their parent).
    pub groups: Vec<GroupScore>,
}

/// The score a package expects of a solution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// In this inclusive range (Kattis `submissions.yaml` `score`: a number or two).
    Between(f64, f64),
    /// Less than the maximum (Kattis legacy `partially_accepted/`: accepted by the graders,
    /// "score must not be the max of the range"; 0 is allowed).
    Partial,
}

impl Expected {
    /// Whether `score` (of at most `max`) is what is expected.
    pub fn holds(self, score: f64, max: Option<f64>) -> bool {
        match self {
            Expected::Between(lo, hi) => score >= lo - EPSILON && score <= hi + EPSILON,
            Expected::Partial => max.is_none_or(|m| score < m - EPSILON),
        }
    }

    /// "score 40", "score in [20, 60]", "a partial score".
    pub fn describe(self) -> String {
        match self {
            Expected::Between(lo, hi) if lo == hi => format!("score {}", show(lo)),
            Expected::Between(lo, hi) => format!("score in [{}, {}]", show(lo), show(hi)),
            Expected::Partial => "a partial score (below the maximum)".into(),
        }
    }
}

/// Scores shown and compared with six decimals at most (sums of shares like 100/3).
pub fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A score for people: `33.333333` → `33.33`, `40` → `40`.
pub fn show(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        let s = format!("{r:.2}");
        s.trim_end_matches('0').to_string()
    }
}
