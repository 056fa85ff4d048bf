//! `--json`: one object on stdout. Schema version 1; fields are only ever added.

use crate::judge::SubmissionReport;
use crate::sandbox::IsolationLevel;
use serde::Serialize;

pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct Run<'a> {
    schema: u32,
    problem: &'a str,
    solution: &'a str,
    isolation: IsolationLevel,
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
        report,
    })
    .expect("reports always serialize")
}
