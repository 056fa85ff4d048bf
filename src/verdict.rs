//! Verdicts, and the one place that decides a test's verdict from a run's evidence.

use crate::sandbox::{RunOutcome, Termination};
use serde::Serialize;
use std::fmt;

/// The verdict of one test or of a whole submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub enum Verdict {
    /// Accepted.
    AC,
    /// Wrong answer.
    WA,
    /// Presentation error.
    PE,
    /// Time limit exceeded (CPU or wall clock).
    TLE,
    /// Memory limit exceeded.
    MLE,
    /// Output limit exceeded.
    OLE,
    /// Runtime error: non-zero exit or a signal.
    RE,
    /// Compilation error.
    CE,
    /// Judge error: the checker failed or a file was missing; never the contestant's fault.
    JE,
}

impl Verdict {
    pub const ALL: [Verdict; 9] = [
        Verdict::AC,
        Verdict::WA,
        Verdict::PE,
        Verdict::TLE,
        Verdict::MLE,
        Verdict::OLE,
        Verdict::RE,
        Verdict::CE,
        Verdict::JE,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Verdict::AC => "AC",
            Verdict::WA => "WA",
            Verdict::PE => "PE",
            Verdict::TLE => "TLE",
            Verdict::MLE => "MLE",
            Verdict::OLE => "OLE",
            Verdict::RE => "RE",
            Verdict::CE => "CE",
            Verdict::JE => "JE",
        }
    }

    pub fn long_name(self) -> &'static str {
        match self {
            Verdict::AC => "accepted",
            Verdict::WA => "wrong answer",
            Verdict::PE => "presentation error",
            Verdict::TLE => "time limit exceeded",
            Verdict::MLE => "memory limit exceeded",
            Verdict::OLE => "output limit exceeded",
            Verdict::RE => "runtime error",
            Verdict::CE => "compilation error",
            Verdict::JE => "judge error",
        }
    }

    /// The `solutions/<slug>/<folder>/` name that expects this verdict (none for JE).
    pub fn folder(self) -> Option<&'static str> {
        Some(match self {
            Verdict::AC => "accepted",
            Verdict::WA => "wrong_answer",
            Verdict::PE => "presentation_error",
            Verdict::TLE => "time_limit_exceeded",
            Verdict::MLE => "memory_limit_exceeded",
            Verdict::OLE => "output_limit_exceeded",
            Verdict::RE => "runtime_error",
            Verdict::CE => "compile_error",
            Verdict::JE => return None,
        })
    }

    pub fn from_folder(folder: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.folder() == Some(folder))
    }

    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.code() == code)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

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
                crate::report::mib(memory_limit),
                crate::report::mib(run.peak_memory)
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

/// `SIGSEGV` for 11, and so on.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGCHLD => "SIGCHLD",
        libc::SIGCONT => "SIGCONT",
        libc::SIGSTOP => "SIGSTOP",
        libc::SIGTSTP => "SIGTSTP",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGVTALRM => "SIGVTALRM",
        libc::SIGPROF => "SIGPROF",
        libc::SIGSYS => "SIGSYS",
        _ => "unknown signal",
    }
}

/// A short description of how a process ended, for messages.
pub fn termination_text(t: Termination) -> String {
    match t {
        Termination::Exited(code) => format!("exit code {code}"),
        Termination::Signaled(sig) => format!("killed by signal {sig} ({})", signal_name(sig)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(termination: Termination) -> RunOutcome {
        RunOutcome::ended(termination)
    }

    #[test]
    fn clean_exit_goes_to_the_checker() {
        assert_eq!(classify_run(&run(Termination::Exited(0)), 1 << 30), None);
    }

    #[test]
    fn crashes_are_runtime_errors_with_signal_names() {
        let (v, m) = classify_run(&run(Termination::Signaled(11)), 1 << 30).unwrap();
        assert_eq!(
            (v, m.as_str()),
            (Verdict::RE, "killed by signal 11 (SIGSEGV)")
        );
        let (v, m) = classify_run(&run(Termination::Exited(101)), 1 << 30).unwrap();
        assert_eq!((v, m.as_str()), (Verdict::RE, "exit code 101"));
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

    #[test]
    fn folders_round_trip() {
        for v in Verdict::ALL {
            if let Some(f) = v.folder() {
                assert_eq!(Verdict::from_folder(f), Some(v));
            }
            assert_eq!(Verdict::from_code(v.code()), Some(v));
        }
        assert_eq!(Verdict::from_folder("judge_error"), None);
    }
}
