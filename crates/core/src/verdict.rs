//! The one place that decides a test's verdict from a run's evidence.

use judge_model::units::mib;
use judge_model::Verdict;
use judge_sandbox::{termination_text, RunOutcome, Termination};

/// What a finished run proves before its output is looked at: `Some(verdict, message)` when a limit
/// or a crash decides the test, `None` when the output goes to the checker.
/// Order: TLE, MLE (evidence of the memory limit beats a crash), OLE, RE.
pub fn classify_run(run: &RunOutcome, memory_limit: u64) -> Option<(Verdict, String)> {
    if run.cpu_limit_exceeded {
        return Some((
            Verdict::TLE,
            format!(
                "CPU time {:.3} s is over the limit",
                run.cpu_time.as_secs_f64()
            ),
        ));
    }
    if run.wall_limit_exceeded {
        return Some((
            Verdict::TLE,
            format!(
                "killed after {:.1} s of wall-clock time (used {:.3} s of CPU: sleeping or blocked?)",
                run.wall_time.as_secs_f64(),
                run.cpu_time.as_secs_f64()
            ),
        ));
    }
    if run.memory_limit_exceeded {
        return Some((
            Verdict::MLE,
            format!(
                "hit the memory limit of {} (peak {})",
                mib(memory_limit),
                mib(run.peak_memory)
            ),
        ));
    }
    if run.output_limit_exceeded {
        return Some((Verdict::OLE, "wrote more than the output limit".to_string()));
    }
    match run.termination {
        Termination::Exited(0) => None,
        other => Some((Verdict::RE, termination_text(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn run(termination: Termination) -> RunOutcome {
        RunOutcome::ended(termination)
    }

    #[test_case(Termination::Exited(0) => None ; "a clean exit goes to the checker")]
    #[test_case(Termination::Signaled(11) => Some((Verdict::RE, "killed by signal 11 (SIGSEGV)".into()))
        ; "a crash is a runtime error named by its signal")]
    #[test_case(Termination::Exited(101) => Some((Verdict::RE, "exit code 101".into()))
        ; "a failing exit code is a runtime error")]
    fn a_run_within_its_limits(termination: Termination) -> Option<(Verdict, String)> {
        classify_run(&run(termination), 1 << 30)
    }

    #[test]
    fn memory_evidence_beats_a_crash_and_time_beats_memory() {
        let mut r = run(Termination::Signaled(9));
        r.memory_limit_exceeded = true;
        assert_eq!(classify_run(&r, 1 << 20).unwrap().0, Verdict::MLE);
        r.output_limit_exceeded = true;
        assert_eq!(classify_run(&r, 1 << 20).unwrap().0, Verdict::MLE);
        r.wall_limit_exceeded = true;
        assert_eq!(classify_run(&r, 1 << 20).unwrap().0, Verdict::TLE);
    }

    #[test]
    fn output_limit_beats_a_crash() {
        let mut r = run(Termination::Signaled(libc::SIGPIPE));
        r.output_limit_exceeded = true;
        assert_eq!(classify_run(&r, 1 << 20).unwrap().0, Verdict::OLE);
    }
}
