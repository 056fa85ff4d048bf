//! The jury's own programs (validators, generators, reference solutions): how a failed run reads,
//! and the validator's rule — which exits reject an input and which are a crash of the validator.
//!
//! A validator reads one input on stdin and
//! - **accepts** it by exiting 0 (or 42, Kattis's code);
//! - **rejects** it by exiting with any other status (1, testlib's 3, Kattis's 43, …), the reason
//!   on stderr, or by failing an assertion (Python `assert`, Rust `assert!`/`assert_eq!`,
//!   C/C++ `assert`): the idiomatic way to state a constraint;
//! - **crashes** (a judge error: the input's validity is unknown) when it dies of any other
//!   uncaught exception or panic (a Python traceback, a Rust panic, a C++ `terminate`), is killed
//!   by a signal, or exceeds its limits.

use crate::checker::crash::{exception, tail};
#[cfg(test)]
use crate::engine::read_tail;
use crate::engine::{Engine, Keep};
use crate::package::Protocol;
use judge_sandbox::termination_text;
use judge_sandbox::{Limits, RunOutcome, Termination};
use std::path::Path;
use std::time::Duration;

/// Bytes of a jury program's stderr read from its end (where tracebacks and panics are).
pub const STDERR_TAIL: u64 = 8 * 1024;

/// How a jury program's run went wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// After the program's name: "exceeded its time limit (5 s)", "crashed (exit code 1): …".
    pub what: String,
    /// The last lines of its stderr (context: where it crashed).
    pub tail: Vec<String>,
    /// Stopped by its CPU or wall-clock limit.
    pub timed_out: bool,
}

impl Failure {
    /// "`who` what", then the tail indented.
    pub fn render(&self, who: &str) -> String {
        let mut s = format!("{who} {}", self.what);
        for line in &self.tail {
            s.push_str("\n    ");
            s.push_str(line);
        }
        s
    }
}

fn secs(d: Duration) -> String {
    format!("{} s", (d.as_secs_f64() * 1000.0).round() / 1000.0)
}

/// Why a run of a jury program failed, or `None` when it exited 0 within its limits. `stderr`
/// is the end of its stderr (see [`crate::engine::read_tail`]).
pub fn failure(run: &RunOutcome, limits: &Limits, stderr: &str) -> Option<Failure> {
    let lines: Vec<&str> = stderr.lines().collect();
    let timed_out = run.cpu_limit_exceeded || run.wall_limit_exceeded;
    let what = if run.cpu_limit_exceeded {
        format!("exceeded its time limit ({})", secs(limits.cpu))
    } else if run.wall_limit_exceeded {
        format!(
            "exceeded its wall-clock limit ({}; it used {} of CPU: sleeping or blocked?)",
            secs(limits.wall),
            secs(run.cpu_time)
        )
    } else if run.memory_limit_exceeded {
        format!(
            "exceeded its memory limit ({})",
            judge_model::units::mib(limits.memory)
        )
    } else if run.output_limit_exceeded {
        format!(
            "printed more than its output limit ({})",
            judge_model::units::mib(limits.output)
        )
    } else {
        match (run.termination, exception(&lines)) {
            (Termination::Exited(0), _) => return None,
            (t, Some(e)) => format!("crashed ({}): {}", termination_text(t), e.line),
            (t @ Termination::Signaled(_), None) => format!("crashed ({})", termination_text(t)),
            (t, None) => format!("failed ({})", termination_text(t)),
        }
    };
    Some(Failure {
        what,
        tail: tail(&lines),
        timed_out,
    })
}

/// Why a validator does not accept an input.
#[derive(Debug, Clone, PartialEq)]
pub enum NotValid {
    /// The validator rejects the input; the reason it gives.
    Rejected(String),
    /// The validator failed (a judge error); render it with [`Failure::render`].
    Crashed(Failure),
}

/// The validator's rule (see the module documentation) applied to one of its runs.
pub fn validator_verdict(run: &RunOutcome, limits: &Limits, stderr: &str) -> Result<(), NotValid> {
    let lines: Vec<&str> = stderr.lines().collect();
    let limited = run.cpu_limit_exceeded
        || run.wall_limit_exceeded
        || run.memory_limit_exceeded
        || run.output_limit_exceeded;
    if !limited {
        if let Termination::Exited(0 | 42) = run.termination {
            return Ok(());
        }
        match exception(&lines) {
            Some(e) if e.assertion => return Err(NotValid::Rejected(e.line)),
            None if matches!(run.termination, Termination::Exited(_)) => {
                let reason = lines
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("validator {}", termination_text(run.termination)));
                return Err(NotValid::Rejected(reason));
            }
            _ => {}
        }
    }
    let mut crash = failure(run, limits, stderr).unwrap_or_else(|| Failure {
        what: format!("crashed ({})", termination_text(run.termination)),
        tail: Vec::new(),
        timed_out: false,
    });
    // The last line is already in `what` when it is the exception; keep the lines above it.
    if let Some(e) = exception(&lines) {
        crash.tail = tail(&lines[..e.at.min(lines.len())]);
    }
    Err(NotValid::Crashed(crash))
}

pub use crate::build::name_source;

/// The validator's protocol, in one sentence for hints (the rule is in `setter::jury`).
pub const VALIDATOR_RULE: &str = "a validator accepts with exit 0 and rejects with another exit status (or a failed assertion), the reason on stderr; an uncaught exception, a panic or a signal is a crash";

/// Runs a validator built from `source` on one input (the rule is [`VALIDATOR_RULE`]).
pub fn validate_input(
    engine: &mut Engine,
    validator: &crate::build::Artifact,
    source: &Path,
    input: &Path,
) -> Result<(), NotValid> {
    validate_input_with(engine, validator, source, input, &[], Protocol::Testlib)
}

/// [`validate_input`] with arguments (Kattis `input_validator_args`) and the validator's
/// protocol: a Kattis validator must exit 42 for a valid input (its exit 0 is a crash).
pub fn validate_input_with(
    engine: &mut Engine,
    validator: &crate::build::Artifact,
    source: &Path,
    input: &Path,
    args: &[String],
    protocol: Protocol,
) -> Result<(), NotValid> {
    let limits = crate::engine::checker_limits();
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let run = engine
        .run_jury(
            validator,
            &args,
            Some(input),
            &[],
            limits.clone(),
            Keep::stderr(STDERR_TAIL),
        )
        .map_err(|e| {
            NotValid::Crashed(Failure {
                what: format!("could not be run: {e}"),
                tail: Vec::new(),
                timed_out: false,
            })
        })?;
    let stderr = name_source(&run.stderr, validator, source);
    let outcome = &run.outcome;
    let limited = outcome.cpu_limit_exceeded
        || outcome.wall_limit_exceeded
        || outcome.memory_limit_exceeded
        || outcome.output_limit_exceeded;
    if protocol == Protocol::Kattis && !limited && outcome.termination == Termination::Exited(0) {
        return Err(NotValid::Crashed(Failure {
            what: "exited with 0, which is no answer: a Kattis input validator exits 42 for a valid input and 43 for an invalid one".into(),
            tail: Vec::new(),
            timed_out: false,
        }));
    }
    validator_verdict(outcome, &limits, &stderr)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(termination: Termination) -> RunOutcome {
        RunOutcome::ended(termination)
    }

    fn limits() -> Limits {
        crate::engine::checker_limits()
    }

    const TRACEBACK: &str = "Traceback (most recent call last):\n  File \"/tmp/b/main.py\", line 3, in <module>\n    print(1 // (n - 4))\n          ~~^^~~~~~~~\nZeroDivisionError: integer division or modulo by zero\n";

    #[test]
    fn a_python_traceback_is_a_crash_with_its_exception_and_frames() {
        let Err(NotValid::Crashed(f)) =
            validator_verdict(&run(Termination::Exited(1)), &limits(), TRACEBACK)
        else {
            panic!("not a crash");
        };
        assert_eq!(
            f.what,
            "crashed (exit code 1): ZeroDivisionError: integer division or modulo by zero"
        );
        assert_eq!(f.tail[0], "Traceback (most recent call last):");
        assert!(f.tail.iter().any(|l| l.contains("line 3")), "{:?}", f.tail);
        assert!(!f.tail.iter().any(|l| l.contains("ZeroDivisionError")));
    }

    /// A Java validator's uncaught exception is a crash naming it; its AssertionError rejects.
    #[test]
    fn a_java_exception_is_a_crash_and_its_assertion_error_rejects() {
        let trace = "Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"x\"\n\tat java.base/java.lang.Integer.parseInt(Integer.java:652)\n\tat Validate.main(Validate.java:5)\n";
        let Err(NotValid::Crashed(f)) =
            validator_verdict(&run(Termination::Exited(1)), &limits(), trace)
        else {
            panic!("not a crash");
        };
        assert_eq!(
            f.what,
            "crashed (exit code 1): Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"x\""
        );
        let assertion = "Exception in thread \"main\" java.lang.AssertionError: n <= 3\n\tat Validate.main(Validate.java:7)\n";
        assert_eq!(
            validator_verdict(&run(Termination::Exited(1)), &limits(), assertion),
            Err(NotValid::Rejected(
                "Exception in thread \"main\" java.lang.AssertionError: n <= 3".into()
            ))
        );
    }

    #[test]
    fn failed_assertions_reject() {
        let py = "Traceback (most recent call last):\n  File \"/tmp/b/main.py\", line 3, in <module>\n    assert n <= 3\n           ^^^^^^\nAssertionError\n";
        assert_eq!(
            validator_verdict(&run(Termination::Exited(1)), &limits(), py),
            Err(NotValid::Rejected("AssertionError: assert n <= 3".into()))
        );
        let rust = "\nthread 'main' panicked at main.rs:4:5:\nassertion failed: n <= 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            validator_verdict(&run(Termination::Exited(101)), &limits(), rust),
            Err(NotValid::Rejected("panic: assertion failed: n <= 3".into()))
        );
        let c = "prog: main.c:5: main: Assertion `n <= 3' failed.\n";
        assert_eq!(
            validator_verdict(&run(Termination::Signaled(libc::SIGABRT)), &limits(), c),
            Err(NotValid::Rejected("Assertion `n <= 3' failed.".into()))
        );
    }

    #[test]
    fn any_other_exit_rejects_with_the_first_line_of_stderr() {
        assert_eq!(
            validator_verdict(&run(Termination::Exited(0)), &limits(), "chatter"),
            Ok(())
        );
        assert_eq!(
            validator_verdict(&run(Termination::Exited(42)), &limits(), ""),
            Ok(())
        );
        assert_eq!(
            validator_verdict(
                &run(Termination::Exited(3)),
                &limits(),
                "\nFAIL Integer 5 violates the range [1, 3]\nmore\n"
            ),
            Err(NotValid::Rejected(
                "FAIL Integer 5 violates the range [1, 3]".into()
            ))
        );
        assert_eq!(
            validator_verdict(&run(Termination::Exited(43)), &limits(), ""),
            Err(NotValid::Rejected("validator exit code 43".into()))
        );
    }

    #[test]
    fn signals_panics_and_limits_are_crashes() {
        let crash = |r: RunOutcome, stderr: &str| match validator_verdict(&r, &limits(), stderr) {
            Err(NotValid::Crashed(f)) => f,
            other => panic!("not a crash: {other:?}"),
        };
        let f = crash(run(Termination::Signaled(libc::SIGSEGV)), "");
        assert_eq!(f.what, "crashed (killed by signal 11 (SIGSEGV))");
        let f = crash(
            run(Termination::Exited(101)),
            "thread 'main' panicked at main.rs:2:30:\ncalled `Option::unwrap()` on a `None` value\n",
        );
        assert_eq!(
            f.what,
            "crashed (exit code 101): panic: called `Option::unwrap()` on a `None` value"
        );
        let f = crash(
            run(Termination::Signaled(libc::SIGABRT)),
            "terminate called after throwing an instance of 'std::out_of_range'\n  what():  vector\n",
        );
        assert!(
            f.what.ends_with("'std::out_of_range': vector"),
            "{}",
            f.what
        );
        let mut slow = run(Termination::Signaled(libc::SIGKILL));
        slow.cpu_limit_exceeded = true;
        let f = crash(slow, "");
        assert_eq!(f.what, "exceeded its time limit (30 s)");
        assert!(f.timed_out);
    }

    #[test]
    fn generator_failures_read_plainly() {
        let f = failure(&run(Termination::Exited(3)), &limits(), "bad size\n").unwrap();
        assert_eq!(f.what, "failed (exit code 3)");
        assert_eq!(f.tail, ["bad size"]);
        assert_eq!(
            f.render("gen.py"),
            "gen.py failed (exit code 3)\n    bad size"
        );
        assert!(failure(&run(Termination::Exited(0)), &limits(), "x").is_none());
        let f = failure(&run(Termination::Exited(1)), &limits(), TRACEBACK).unwrap();
        assert_eq!(
            f.what,
            "crashed (exit code 1): ZeroDivisionError: integer division or modulo by zero"
        );
    }

    #[test]
    fn the_tail_of_a_long_stderr_starts_at_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("err");
        let mut text = "x".repeat(100);
        text.push_str("\nlast line\n");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read_tail(&path, 20), "last line\n");
        assert_eq!(read_tail(&path, 1000), text);
    }
}
