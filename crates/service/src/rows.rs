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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestRow {
    pub name: String,
    pub verdict: String,
    pub time_ms: i64,
    pub memory_kib: i64,
    pub message: String,
    /// The time limit it was judged under.
    pub limit_ms: Option<i64>,
    /// Its time when first judged beside other jobs, when that was near the limit and it was
    /// judged again alone (`time_ms` is then the alone run's).
    pub beside_ms: Option<i64>,
}

/// Whether a time is within a tenth of the limit, either side: a verdict a slower or faster
/// machine could have turned (shown as near the limit, with both times when it was judged
/// again alone).
pub fn near_limit(time_ms: i64, limit_ms: i64) -> bool {
    limit_ms > 0 && (time_ms - limit_ms).abs() * 10 <= limit_ms
}

#[cfg(test)]
mod tests {
    #[test]
    fn near_the_limit_is_within_a_tenth_either_side() {
        assert!(!super::near_limit(899, 1000));
        assert!(super::near_limit(900, 1000));
        assert!(super::near_limit(1100, 1000));
        assert!(!super::near_limit(1101, 1000));
        assert!(!super::near_limit(0, 0));
    }
}
