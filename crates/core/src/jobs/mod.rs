//! Parallel judging (`--jobs N`): several engines, each with its own sandbox worker and uid lease,
//! take work from a shared counter; the timing rule that keeps verdicts honest; and the order in
//! which the jobs' events reach the one reporter.
//!
//! Honest timings: every run of a job holds the [`Gate`] shared, and notes whether another run
//! started or was running while it ran. A solution's run beside other jobs may use 1.5 × the
//! time limit of CPU (`crate::engine::beside_cap`): over the limit it is a TLE either way, and
//! one killed at the cap is a clear TLE. A test whose verdict is within a factor 1.5 of the time
//! limit (CPU time in [TL/1.5, TL×1.5]: a TLE under the cap too) and that ran beside another job
//! is run again with the gate held exclusively — no other job runs — at the limit, and that
//! result is the one reported (`rejudged` event). With one job the engine never shares the CPU
//! with another run, so `--jobs 1` is the exclusive mode.

mod judge;
mod ordered;

pub use crate::engine::near_limit;
pub use crate::executor::Gate;
pub use judge::{
    judge_solutions, judge_solutions_with, with_limit, Outcome, Prejudged, Submission,
};
pub use ordered::{Ordered, Slot};

use crate::engine::Engine;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The default `--jobs`: the number of CPUs this process may use.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Makes `first` one of `jobs` engines (at least one): the others get an executor of the same
/// kind ([`crate::executor::Executor::another`]) and a work folder `job-<k>` inside `work`, and
/// all of them share one [`Gate`]. A failure names the job and hints at fewer jobs.
pub fn helpers(
    first: &mut Engine,
    jobs: usize,
    work: &std::path::Path,
) -> Result<Vec<Engine>, String> {
    let mut helpers = Vec::new();
    if jobs <= 1 {
        return Ok(helpers);
    }
    // Made from this thread: a sandbox worker ends with the thread that started it
    // (PR_SET_PDEATHSIG follows the thread), and the job threads are short-lived.
    for k in 2..=jobs {
        let dir = work.join(format!("job-{k}"));
        std::fs::create_dir(&dir)
            .map_err(|e| format!("job {k} of {jobs}: cannot create {}: {e}", dir.display()))?;
        let executor = first
            .sandbox
            .another()
            .map_err(|e| format!("job {k} of {jobs}: {e}\n  hint: try fewer --jobs"))?;
        helpers.push(Engine::new(executor, first.languages.clone(), dir));
    }
    let gate = std::sync::Arc::new(Gate::default());
    first.join(gate.clone());
    for engine in &mut helpers {
        engine.join(gate.clone());
    }
    Ok(helpers)
}

/// Runs `work(engine, i)` for i in 0..count, spread over the engines (one thread each), taking
/// work in order from a shared counter; returns the results in order. `stop(i)` tells a job not
/// to start item i (it is then `None`). A job whose sandbox failed (its worker may be gone)
/// takes no more work while another job can; the last job left takes everything, so every item
/// not stopped gets a result (an error, if its sandbox is broken).
pub fn spread<T: Send>(
    engines: &mut [&mut Engine],
    count: usize,
    stop: &(dyn Fn(usize) -> bool + Sync),
    work: &(dyn Fn(&mut Engine, usize) -> T + Sync),
) -> Vec<Option<T>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    let jobs = engines.len().min(count).max(1);
    // Jobs still taking work.
    let healthy = AtomicUsize::new(jobs);
    // A job unwound (a closed stdout unwinds through the reporter): the others stop, and the
    // unwinding goes on in the calling thread with the same payload, so `cli::main` sees it.
    let unwound = AtomicBool::new(false);
    let payload = std::thread::scope(|scope| {
        let handles: Vec<_> = engines
            .iter_mut()
            .take(jobs)
            .map(|engine| {
                let (next, results, healthy, unwound) = (&next, &results, &healthy, &unwound);
                scope.spawn(move || {
                    let job = std::panic::AssertUnwindSafe(|| {
                        let mut retired = false;
                        while !unwound.load(Ordering::SeqCst) {
                            if !retired && engine.sandbox_failed() {
                                retired = true;
                                if healthy.fetch_sub(1, Ordering::SeqCst) > 1 {
                                    break;
                                }
                                // The last job: it goes on, so that nothing is left undone.
                            }
                            let i = next.fetch_add(1, Ordering::SeqCst);
                            if i >= count || stop(i) {
                                break;
                            }
                            let r = work(engine, i);
                            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                        }
                    });
                    std::panic::catch_unwind(job).inspect_err(|_| {
                        unwound.store(true, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        // Joined here, so the scope itself does not panic with a payload of its own.
        let mut first = None;
        for handle in handles {
            if let Ok(Err(p)) | Err(p) = handle.join() {
                first.get_or_insert(p);
            }
        }
        first
    });
    if let Some(payload) = payload {
        std::panic::resume_unwind(payload);
    }
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge_model::result::TestResult;
    use judge_model::Verdict;
    use std::time::Duration;

    fn result(verdict: Verdict, ms: u64) -> TestResult {
        TestResult {
            name: "t".into(),
            verdict,
            time: Duration::from_millis(ms),
            wall: Duration::from_millis(ms),
            memory: 0,
            message: String::new(),
            mismatch: None,
            checker_score: None,
            passes: None,
            transcript: None,
            stdout: None,
            stderr: None,
        }
    }

    #[test]
    fn near_the_limit_is_within_a_factor_1_5_or_a_tle_under_the_cap_not_blocked() {
        let tl = Duration::from_millis(900);
        assert!(!near_limit(&result(Verdict::AC, 599), tl));
        assert!(near_limit(&result(Verdict::AC, 600), tl));
        assert!(near_limit(&result(Verdict::AC, 899), tl));
        assert!(near_limit(&result(Verdict::WA, 1350), tl));
        assert!(!near_limit(&result(Verdict::RE, 1351), tl));
        assert!(!near_limit(&result(Verdict::WA, 10), tl));
        // A TLE is near unless it ran to the cap of a run beside other jobs (1.5 × the limit).
        assert!(near_limit(&result(Verdict::TLE, 900), tl));
        assert!(near_limit(&result(Verdict::TLE, 1349), tl));
        assert!(!near_limit(&result(Verdict::TLE, 1350), tl));
        assert!(!near_limit(&result(Verdict::TLE, 5000), tl));
        // A TLE of the wall clock by a program that was blocked is not, unless its CPU time
        // came near the limit or it was on a CPU a quarter of the time or more.
        let wall = |ms: u64, wall: u64| TestResult {
            wall: Duration::from_millis(wall),
            ..result(Verdict::TLE, ms)
        };
        assert!(!near_limit(&wall(30, 8000), tl));
        assert!(!near_limit(&wall(599, 2401), tl));
        assert!(near_limit(&wall(599, 2396), tl));
        assert!(near_limit(&wall(600, 8000), tl));
        assert!(near_limit(&wall(899, 8000), tl));
    }

    #[test]
    fn a_run_is_alone_only_if_no_other_ran_beside_it() {
        let gate = Gate::default();
        let a = gate.enter(false);
        assert!(a.alone());
        let b = gate.enter(false);
        assert!(!a.alone() && !b.alone());
        drop(a);
        drop(b);
        let c = gate.enter(false);
        assert!(c.alone());
        drop(c);
        let guard = gate.alone();
        let d = gate.enter(true);
        assert!(d.alone());
        drop(d);
        drop(guard);
    }
}
