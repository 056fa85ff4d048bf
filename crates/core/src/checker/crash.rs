//! How a jury program's crash reads: the signatures an uncaught exception, a panic or an abort
//! leaves on stderr (a Python traceback, a Java `Exception in thread`, a Rust panic, C++'s
//! `terminate called`, glibc's failed `assert`), and the report of a crashed checker or
//! interactor. A custom program that crashes says nothing about the solution: whatever its exit
//! code would mean under its protocol (testlib's 1 is WA), a crash is a judge error.

use judge_sandbox::{termination_text, Termination};

/// Lines of stderr shown under a crash.
pub const TAIL_LINES: usize = 4;

/// An uncaught exception, panic or failed assertion reported on stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Exception {
    /// "ZeroDivisionError: division by zero", "panic: assertion failed: n <= 3".
    pub line: String,
    /// A failed assertion (a validator's way to reject an input).
    pub assertion: bool,
    /// Index of the report's first line in the stderr lines (the tail is taken above it).
    pub at: usize,
}

/// Finds the report of an uncaught exception, a panic or a failed assertion. Each signature
/// starts a line, as the runtime writes it: a message a program quotes inside its own line
/// (a checker quoting the contestant's output) is none.
pub fn exception(lines: &[&str]) -> Option<Exception> {
    // Python: "Traceback (most recent call last):", frames, then "Type: message" unindented.
    if let Some(start) = lines
        .iter()
        .rposition(|l| l.starts_with("Traceback (most recent call last):"))
    {
        let (at, last) = lines
            .iter()
            .enumerate()
            .skip(start + 1)
            .rfind(|(_, l)| !l.trim().is_empty() && !l.starts_with(char::is_whitespace))?;
        let mut line = last.trim().to_string();
        let assertion = line.starts_with("AssertionError");
        if line == "AssertionError" {
            // A bare `assert`: the statement itself says what failed.
            let code = lines[start + 1..at]
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| {
                    !l.is_empty()
                        && !l.starts_with("File ")
                        && !l.chars().all(|c| "^~ ".contains(c))
                });
            if let Some(code) = code {
                line = format!("AssertionError: {code}");
            }
        }
        return Some(Exception {
            line,
            assertion,
            at,
        });
    }
    // Rust: "thread 'main' panicked at src/main.rs:3:5:", then the message (before Rust 1.73:
    // "thread 'main' panicked at 'message', src/main.rs:3:5"; since 1.89 the thread's id
    // follows its name: "thread 'main' (2) panicked at …").
    if let Some(at) = lines.iter().position(|l| rust_panic(l)) {
        let line = lines
            .get(at + 1)
            .filter(|l| !l.starts_with("note: "))
            .map(|l| l.trim().to_string())
            .unwrap_or_else(|| lines[at].trim().to_string());
        let assertion = line.starts_with("assertion failed") || line.starts_with("assertion `");
        return Some(Exception {
            line: format!("panic: {line}"),
            assertion,
            at,
        });
    }
    // Java: "Exception in thread "main" java.lang.X: message", then the frames (an `assert`,
    // enabled with -ea, throws java.lang.AssertionError).
    if let Some(at) = lines
        .iter()
        .position(|l| l.starts_with("Exception in thread "))
    {
        let line = lines[at].trim().to_string();
        let assertion = line.contains("java.lang.AssertionError");
        return Some(Exception {
            line,
            assertion,
            at,
        });
    }
    // C and C++: glibc's assert, and std::terminate's report of an uncaught exception.
    if let Some(at) = lines
        .iter()
        .position(|l| l.contains("Assertion `") && l.trim_end().ends_with("' failed."))
    {
        let l = lines[at];
        let line = l[l.find("Assertion `").unwrap_or(0)..].trim().to_string();
        return Some(Exception {
            line,
            assertion: true,
            at,
        });
    }
    if let Some(at) = lines
        .iter()
        .position(|l| l.starts_with("terminate called "))
    {
        let mut line = lines[at].trim().to_string();
        if let Some(what) = lines
            .get(at + 1)
            .and_then(|l| l.trim().strip_prefix("what():"))
        {
            line = format!("{line}: {}", what.trim());
        }
        return Some(Exception {
            line,
            assertion: false,
            at,
        });
    }
    None
}

/// Whether `line` is the head of a Rust panic: "thread 'NAME' panicked at …", or with the
/// thread's id, "thread 'NAME' (ID) panicked at …".
fn rust_panic(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("thread '") else {
        return false;
    };
    let Some((_, after)) = rest.split_once('\'') else {
        return false;
    };
    let after = match after.strip_prefix(" (") {
        Some(id) => match id.split_once(')') {
            Some((n, tail)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => tail,
            _ => return false,
        },
        None => after,
    };
    after.starts_with(" panicked at ")
}

/// The last few non-empty lines of stderr, without Rust's backtrace hint.
pub fn tail(lines: &[&str]) -> Vec<String> {
    let useful: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            // Blank lines, Rust's backtrace hint and Python's ^~~ markers say nothing.
            !l.trim().is_empty()
                && !l.starts_with("note: run with `RUST_BACKTRACE")
                && !l.trim().chars().all(|c| "^~".contains(c))
        })
        .collect();
    useful[useful.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// The report of a custom checker's or interactor's crash, or `None` when it did not crash:
/// killed by a signal, or any exit with a crash signature on its stderr ([`exception`]).
/// `who` names the program ("the checker `check.py`"): "`who` crashed (exit code 1):
/// RuntimeError: x", then its last lines of stderr, indented.
pub fn report(who: &str, termination: Termination, stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let how = termination_text(termination);
    let mut text = match (exception(&lines), termination) {
        (Some(e), _) => format!("{who} crashed ({how}): {}", e.line),
        (None, Termination::Signaled(_)) => format!("{who} crashed ({how})"),
        (None, Termination::Exited(_)) => return None,
    };
    for line in tail(&lines) {
        text.push_str("\n    ");
        text.push_str(&line);
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYTHON: &str = "Traceback (most recent call last):\n  File \"check.py\", line 4, in <module>\n    raise RuntimeError(\"x\")\nRuntimeError: x\n";
    const JAVA: &str = "Exception in thread \"main\" java.lang.NullPointerException: boom\n\tat Check.main(Check.java:9)\n";
    const RUST: &str = "\nthread 'main' panicked at check.rs:3:5:\nindex out of bounds: the len is 0 but the index is 0\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
    /// Rust 1.89 and later name the thread's id.
    const RUST_ID: &str = "thread 'main' (2) panicked at check.rs:3:21:\nindex out of bounds: the len is 0 but the index is 3\n";
    const CPP: &str = "terminate called after throwing an instance of 'std::runtime_error'\n  what():  bad file\n";

    #[test]
    fn each_languages_crash_is_reported_with_its_exception_and_last_lines() {
        let r = report("the checker `check.py`", Termination::Exited(1), PYTHON).unwrap();
        assert_eq!(
            r,
            "the checker `check.py` crashed (exit code 1): RuntimeError: x\n    Traceback (most recent call last):\n      File \"check.py\", line 4, in <module>\n        raise RuntimeError(\"x\")\n    RuntimeError: x"
        );
        let r = report("the checker `Check.java`", Termination::Exited(1), JAVA).unwrap();
        assert!(
            r.starts_with("the checker `Check.java` crashed (exit code 1): Exception in thread \"main\" java.lang.NullPointerException: boom\n"),
            "{r}"
        );
        assert!(r.ends_with("at Check.main(Check.java:9)"), "{r}");
        let r = report("the checker `check.rs`", Termination::Exited(101), RUST).unwrap();
        assert_eq!(
            r,
            "the checker `check.rs` crashed (exit code 101): panic: index out of bounds: the len is 0 but the index is 0\n    thread 'main' panicked at check.rs:3:5:\n    index out of bounds: the len is 0 but the index is 0"
        );
        let r = report("the checker `check.rs`", Termination::Exited(101), RUST_ID).unwrap();
        assert!(
            r.starts_with("the checker `check.rs` crashed (exit code 101): panic: index out of bounds: the len is 0 but the index is 3\n"),
            "{r}"
        );
        let abort = Termination::Signaled(libc::SIGABRT);
        let r = report("the checker `check.cpp`", abort, CPP).unwrap();
        assert!(
            r.starts_with("the checker `check.cpp` crashed (killed by signal 6 (SIGABRT)): terminate called after throwing an instance of 'std::runtime_error': bad file\n"),
            "{r}"
        );
        // A C++ `terminate` that exited (a handler calling exit) is a crash all the same.
        assert!(report("x", Termination::Exited(1), CPP).is_some());
        let r = report("the checker `check.cpp`", Termination::Signaled(11), "").unwrap();
        assert_eq!(
            r,
            "the checker `check.cpp` crashed (killed by signal 11 (SIGSEGV))"
        );
    }

    #[test]
    fn a_protocol_exit_without_a_crash_signature_is_no_crash() {
        for (code, stderr) in [
            (1, "wrong answer expected 3, found 2\n"),
            (0, "ok 1 number\n"),
            // A signature quoted inside a line (the contestant's output in a message) is none.
            (
                1,
                "wrong answer line 1: `Traceback (most recent call last):`\n",
            ),
            (1, "wrong answer found `thread 'main' panicked at x`\n"),
            (1, "thread 'main' (x) panicked at nothing: a quote\n"),
            (3, "FAIL answer file is empty\n"),
        ] {
            assert_eq!(
                report("x", Termination::Exited(code), stderr),
                None,
                "{stderr}"
            );
        }
    }
}
