//! Built-in checkers of the world's formats, end to end: the Kattis default validator with its
//! flags, and testlib's standard checkers named in problem.toml. Also every built-in checker on
//! 16 MB of output in constant memory (through `judge_core::checker`: too slow for the unit suite
//! in a debug build).

use crate::harness::judge;
use judge_core::checker::{self, kattis, testlib, Builtin, Judgement};
use std::path::Path;

/// The message of the first test that was not accepted.
fn first_failure(doc: &serde_json::Value) -> String {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["verdict"] != "AC")
        .map(|t| t["message"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn kattis_default_validator_ignores_case_unless_case_sensitive() {
    for prog in ["parity-ac.py", "parity-lowercase.py", "parity-spaced.py"] {
        judge()
            .run_fixture("parity-kattis", prog)
            .expect_verdict("AC");
    }
    judge()
        .run_fixture("parity-kattis-case", "parity-ac.py")
        .expect_verdict("AC");
    let doc = judge()
        .run_fixture("parity-kattis-case", "parity-lowercase.py")
        .expect_verdict("WA");
    assert_eq!(
        first_failure(&doc),
        "line 1, column 1: expected `EVEN`, found `even` (letter case counts: case_sensitive)",
        "{doc}"
    );
    assert_eq!(doc["tests"][0]["mismatch"]["expected"], "EVEN", "{doc}");
}

#[test]
fn testlib_wcmp_is_case_sensitive() {
    judge()
        .run_fixture("parity-wcmp", "parity-ac.py")
        .expect_verdict("AC");
    judge()
        .run_fixture("parity-wcmp", "parity-spaced.py")
        .expect_verdict("AC");
    let doc = judge()
        .run_fixture("parity-wcmp", "parity-lowercase.py")
        .expect_verdict("WA");
    assert_eq!(
        first_failure(&doc),
        "line 1, column 1: the 1st word differs: expected `EVEN`, found `even`",
        "{doc}"
    );
}

#[test]
fn testlib_rcmp9_by_name() {
    judge()
        .run_fixture("divide-rcmp9", "divide-ac.py")
        .expect_verdict("AC");
    // 4e-7 off: accepted by the `float` fixture's 1e-6, rejected by rcmp9's 1e-9.
    let doc = judge()
        .run_fixture("divide-rcmp9", "divide-close.py")
        .expect_verdict("WA");
    let message = first_failure(&doc);
    assert!(
        message.starts_with("line 1, column 1: the 1st number differs: expected `0.333333333333`, found `0.333333733`"),
        "{doc}"
    );
}

#[test]
fn an_answer_the_testlib_checker_cannot_read_is_a_judge_error() {
    let doc = judge()
        .run_fixture("parity-ncmp-broken", "parity-ac.py")
        .expect_verdict("JE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "sample-1.ans:1:1 is not what the checker reads: expected an integer, found `EVEN`"
        ) && message.contains("testlib's ncmp would FAIL"),
        "{doc}"
    );
}

/// A Python checker that raises exits 1, testlib's WA: the traceback makes it a judge error that
/// names the checker (not the build folder's copy) and shows its last lines.
#[test]
fn a_python_checker_that_raises_is_a_judge_error_naming_it() {
    let doc = judge()
        .run_fixture("raising-checker", "ac.c")
        .expect_verdict("JE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "checker failure: the checker `checker.py` crashed (exit code 1): RuntimeError: x\n"
        ),
        "{doc}"
    );
    assert!(
        message.contains("File \"checker.py\", line 6, in judge"),
        "{doc}"
    );
    assert!(message.contains("raise RuntimeError(\"x\")"), "{doc}");
    assert!(!message.contains("main.py"), "{doc}");
}

/// Set in the child process that measures one constant-memory test.
const MEMORY_CHILD: &str = "JUDGE_CONSTANT_MEMORY_CHILD";

/// How much this process's peak memory (VmHWM) grew while `check` compared 16 MB of output (8-byte
/// tokens, 1000 a line) with the same bytes as the answer. Other tests allocate in parallel
/// threads of this process and VmHWM is the whole process's, so the measurement runs in a child
/// of its own (this test binary again, `test` alone), which prints it: `None` there, the growth
/// in the parent. The files are written a line at a time: a 16 MB body built in memory first
/// would raise the peak itself and hide as much growth of the checker's.
fn peak_growth_kib(test: &str, check: impl Fn(&Path, &Path)) -> Option<u64> {
    if std::env::var_os(MEMORY_CHILD).is_some() {
        let dir = tempfile::tempdir().unwrap();
        let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
        let line = "1234567 ".repeat(1000) + "\n";
        for path in [&o, &a] {
            let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
            for _ in 0..2000 {
                std::io::Write::write_all(&mut file, line.as_bytes()).unwrap();
            }
        }
        let before = vm_hwm_kib();
        check(&o, &a);
        let grew = vm_hwm_kib().saturating_sub(before);
        std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("peak-growth-kib={grew}\n").as_bytes(),
        )
        .unwrap();
        return None;
    }
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            &format!("checkers::{test}"),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(MEMORY_CHILD, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "{text}");
    let grew = text
        .lines()
        .find_map(|l| l.strip_prefix("peak-growth-kib="))
        .unwrap_or_else(|| panic!("no measurement from the child: {text}"))
        .parse()
        .unwrap();
    Some(grew)
}

fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn big_outputs_are_checked_in_constant_memory() {
    let Some(grew) = peak_growth_kib("big_outputs_are_checked_in_constant_memory", |o, a| {
        for kind in [Builtin::Tokens, Builtin::Exact, Builtin::Lines] {
            assert_eq!(
                checker::check(&kind, o, a).unwrap().judgement,
                Judgement::Accepted
            );
        }
    }) else {
        return;
    };
    assert!(
        grew < 4 * 1024,
        "peak memory grew by {grew} KiB while checking 16 MB"
    );
}

#[test]
fn the_kattis_validator_checks_big_outputs_in_constant_memory() {
    let Some(grew) = peak_growth_kib(
        "the_kattis_validator_checks_big_outputs_in_constant_memory",
        |o, a| {
            let flags = kattis::Flags {
                space_change_sensitive: true,
                float_absolute_tolerance: Some(1e-9),
                ..kattis::Flags::default()
            };
            assert_eq!(
                kattis::check(&flags, o, a).unwrap().judgement,
                Judgement::Accepted
            );
        },
    ) else {
        return;
    };
    assert!(grew < 16 * 1024, "peak memory grew by {grew} KiB");
}

#[test]
fn testlib_checkers_check_big_outputs_in_constant_memory() {
    // 16 MB of numbers; reading them must not hold them.
    let Some(grew) = peak_growth_kib(
        "testlib_checkers_check_big_outputs_in_constant_memory",
        |o, a| {
            for which in [
                testlib::Standard::Wcmp,
                testlib::Standard::Ncmp,
                testlib::Standard::Lcmp,
                testlib::Standard::Fcmp,
                testlib::Standard::Rcmp6,
            ] {
                assert_eq!(
                    testlib::check(which, o, a).unwrap().judgement,
                    Judgement::Accepted,
                    "{which:?}"
                );
            }
        },
    ) else {
        return;
    };
    assert!(grew < 16 * 1024, "peak memory grew by {grew} KiB");
}
