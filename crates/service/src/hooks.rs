//! A crash at a chosen step, for the chaos tests; below every other module of the crate.

use std::sync::atomic::Ordering;

/// Tests only: with `JUDGE_TEST_KILL_AT=POINT[:N]` in its environment, the worker kills
/// itself with SIGKILL the Nth time (N = 1 when left out) any slot reaches POINT — a crash at
/// a chosen step, for the chaos tests. The points: `claimed` (the claim committed),
/// `fetched` (package and source read), `heartbeat` (a renewal committed), `judged` (before
/// the finish), `finishing` (inside the finish's transaction, its writes made, before the
/// commit), `finished` (the finish committed), `reaping` (inside the reaper's transaction,
/// before the commit).
pub(crate) fn kill_point(point: &str) {
    use std::sync::atomic::AtomicUsize;
    use std::sync::OnceLock;
    static AT: OnceLock<Option<(String, usize)>> = OnceLock::new();
    static REACHED: AtomicUsize = AtomicUsize::new(0);
    let at = AT.get_or_init(|| {
        let spec = std::env::var("JUDGE_TEST_KILL_AT").ok()?;
        let (name, n) = match spec.split_once(':') {
            Some((name, n)) => (name.to_string(), n.parse().ok()?),
            None => (spec, 1),
        };
        Some((name, n))
    });
    if let Some((name, n)) = at {
        if name == point && REACHED.fetch_add(1, Ordering::SeqCst) + 1 == *n {
            // SAFETY: kill and getpid have no memory preconditions.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    }
}
