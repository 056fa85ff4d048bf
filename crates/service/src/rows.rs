//! What every layer of the service names: the notification channels (sent on commit only) and
//! a test's stored row. The bottom of the crate: it imports nothing of it.

/// Channel: a job was queued or requeued.
pub const QUEUED: &str = "judge_queued";
/// Channel: a job was claimed; the payload is `job:attempt:worker`.
pub const CLAIMED: &str = "judge_claimed";
/// Channel: a submission reached its final verdict; the payload is its id.
pub const DONE: &str = "judge_done";
/// Channel: a worker told an event of its judging; the payload is the `events` row's id.
pub const EVENT: &str = "judge_event";

/// One test's result.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRow {
    pub name: String,
    pub verdict: String,
    pub time_ms: i64,
    pub memory_kib: i64,
    pub message: String,
}
