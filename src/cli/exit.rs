//! Exit statuses: the one place that decides them, for every subcommand.
//!
//! - [`OK`] (0): accepted; every expectation met; nothing found to complain about.
//! - [`REJECTED`] (1): the solution under test is rejected (WA PE TLE MLE OLE RE CE), an
//!   expectation of `verify` failed (a solution got another verdict, a stale or invalid test, a
//!   checker test that disagrees), or `stress` found a failing input.
//! - [`ERROR`] (2): the judge could not give a trustworthy answer: a usage error, a broken package,
//!   or a jury program (checker, validator, generator, reference solution, interactor) that does
//!   not build, crashes or exceeds its limits — never the solution's fault.
//! - [`CLOSED`] (141 = 128 + SIGPIPE): the reader of stdout or stderr went away (`| head`); the
//!   judge cleaned up and stopped without a word, as a program killed by SIGPIPE would.
//! - 128 + signal: interrupted (see `crate::interrupt`).
//!
//! An error beats a rejection: when `verify` finds both, it exits [`ERROR`].

use judge_model::Verdict;

/// Accepted; every expectation met.
pub const OK: i32 = 0;
/// Rejected (WA PE TLE MLE OLE RE CE) or an expectation failed.
pub const REJECTED: i32 = 1;
/// Judge error (a jury program failed), broken package or usage error.
pub const ERROR: i32 = 2;
/// stdout or stderr was closed by its reader.
pub const CLOSED: i32 = 128 + libc::SIGPIPE;

/// The status of one judged solution.
pub fn for_verdict(verdict: Verdict) -> i32 {
    match verdict {
        Verdict::AC => OK,
        Verdict::JE => ERROR,
        Verdict::WA
        | Verdict::PE
        | Verdict::TLE
        | Verdict::MLE
        | Verdict::OLE
        | Verdict::RE
        | Verdict::CE => REJECTED,
    }
}

/// The status of a check that found `errors` judge errors and `failures` failed expectations.
pub fn for_findings(errors: usize, failures: usize) -> i32 {
    if errors > 0 {
        ERROR
    } else if failures > 0 {
        REJECTED
    } else {
        OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_errors_beat_rejections() {
        assert_eq!(for_findings(0, 0), OK);
        assert_eq!(for_findings(0, 3), REJECTED);
        assert_eq!(for_findings(1, 3), ERROR);
        assert_eq!(for_verdict(Verdict::JE), ERROR);
        assert_eq!(for_verdict(Verdict::CE), REJECTED);
        assert_eq!(for_verdict(Verdict::AC), OK);
        assert_eq!(CLOSED, 141);
    }
}
