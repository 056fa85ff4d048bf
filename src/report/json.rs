//! `--json`: one object on stdout. Schema version 1; fields are only ever added.

use crate::engine::SubmissionReport;
use crate::sandbox::IsolationLevel;
use serde::Serialize;

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
