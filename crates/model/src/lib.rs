//! The judge's data: what every other layer speaks. Verdicts, test and submission results,
//! findings, scores, units and their serde forms, ids, and the [`Event`] stream with its
//! [`Reporter`]. Data and its plain text forms only: no processes, no files, no problem loading.

pub mod diff;
pub mod event;
pub mod finding;
pub mod paint;
pub mod result;
pub mod score;
pub mod transcript;
pub mod units;
pub mod verdict;

pub use event::{Event, IsolationLevel, Reporter, RunId, TestId};
pub use finding::{
    Counterexample, Finding, GenSummary, Severity, SolutionCheck, TimeAdvice, TimeRule,
};
pub use result::{Captured, CompileReport, Mismatch, SkippedTest, SubmissionReport, TestResult};
pub use verdict::{JudgementType, Verdict};
