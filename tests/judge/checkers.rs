//! Built-in checkers of the world's formats, end to end: the Kattis default validator with its
//! flags, and testlib's standard checkers named in problem.toml. Also every built-in checker on
//! 3 MB of output in constant memory (through `judge_core::checker`: too slow for the unit suite
//! in a debug build). And jury programs that crash in each language (a Java exception, a C++
//! abort, assertion or uncaught exception, a Rust panic, a code no protocol has): judge errors.

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

/// How much this process's peak memory (VmHWM) grew while `check` compared 3 MB of output (8-byte
/// tokens, 1000 a line) with the same bytes as the answer. (The growth of a checker that holds
/// nothing is about 1.8 MiB whatever the size, measured 2026-11-27 at 16, 8 and 4 MB: each check
/// of this debug build takes about 0.5 s a MB of CPU, so 3 MB, where holding the output, or
/// 40 % of it for the built-in checkers, still fails the bound.) Other tests allocate in parallel
/// threads of this process and VmHWM is the whole process's, so the measurement runs in a child
/// of its own (this test binary again, `test` alone), which prints it: `None` there, the growth
/// in the parent. The files are written a line at a time: a 3 MB body built in memory first
/// would raise the peak itself and hide as much growth of the checker's.
fn peak_growth_kib(test: &str, check: impl Fn(&Path, &Path)) -> Option<u64> {
    if std::env::var_os(MEMORY_CHILD).is_some() {
        let dir = tempfile::tempdir().unwrap();
        let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
        let line = "1234567 ".repeat(1000) + "\n";
        for path in [&o, &a] {
            let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
            for _ in 0..375 {
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
        grew < 3 * 1024,
        "peak memory grew by {grew} KiB while checking 3 MB"
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
    assert!(
        grew < 4 * 1024,
        "peak memory grew by {grew} KiB while checking 3 MB"
    );
}

#[test]
fn testlib_checkers_check_big_outputs_in_constant_memory() {
    // 3 MB of numbers; reading them must not hold them.
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
    assert!(
        grew < 4 * 1024,
        "peak memory grew by {grew} KiB while checking 3 MB"
    );
}

/// A copy of the fixture problem `fixture` in a temporary folder, with `files` (name, text)
/// written into it.
fn problem_with(fixture: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&crate::harness::fixture_problem(fixture), dir.path());
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn have_java() -> bool {
    Path::new("/usr/bin/javac").exists()
}

const JAVA_THROWS: &str = "public class Check {\n    public static void main(String[] args) {\n        throw new IllegalStateException(\"cannot read \" + args.length);\n    }\n}\n";
const CPP_ABORTS: &str = "#include <cstdlib>\nint main() { std::abort(); }\n";
const CPP_ASSERTS: &str =
    "#include <cassert>\nint main(int argc, char **) { assert(argc == 99); }\n";
const CPP_THROWS: &str =
    "#include <stdexcept>\nint main() { throw std::runtime_error(\"no answer\"); }\n";
const RUST_PANICS: &str = "fn main() {\n    let v: Vec<u32> = Vec::new();\n    println!(\"{}\", v[std::hint::black_box(3)]);\n}\n";

/// A custom checker that crashes in any language — a Java exception, a C++ abort, a failed
/// assertion or an uncaught exception, a Rust panic — or exits with a code its protocol does
/// not have is a judge error naming it (and the crash), never a verdict against the solution.
#[test]
fn a_crashing_checker_is_a_judge_error_in_every_language() {
    let mut cases: Vec<(&str, &str, &str)> = vec![
        (
            "check.cpp",
            CPP_ABORTS,
            "checker failure: the checker `check.cpp` crashed (killed by signal 6 (SIGABRT))",
        ),
        (
            "check.cpp",
            CPP_ASSERTS,
            "checker failure: the checker `check.cpp` crashed (killed by signal 6 (SIGABRT)): Assertion `argc == 99' failed.",
        ),
        (
            "check.cpp",
            CPP_THROWS,
            "checker failure: the checker `check.cpp` crashed (killed by signal 6 (SIGABRT)): terminate called after throwing an instance of 'std::runtime_error': no answer",
        ),
        (
            "check.rs",
            RUST_PANICS,
            "checker failure: the checker `check.rs` crashed (exit code 101): panic: index out of bounds: the len is 0 but the index is 3",
        ),
        // testlib's codes are 0, 1, 2, 3 and 7: 5 is none of them.
        (
            "check.c",
            "int main(void) { return 5; }\n",
            "checker failure (exit code 5)",
        ),
    ];
    if have_java() {
        cases.push((
            "Check.java",
            JAVA_THROWS,
            "checker failure: the checker `Check.java` crashed (exit code 1): Exception in thread \"main\" java.lang.IllegalStateException: cannot read 3",
        ));
    }
    for (file, source, said) in cases {
        let toml = format!("name = \"Sum\"\n[limits]\ntime_limit = 1.0\nmemory = 256\n[checker]\nkind = \"custom\"\nsource = \"{file}\"\n");
        let dir = problem_with("sum", &[("problem.toml", &toml), (file, source)]);
        let doc = judge()
            .arg("run")
            .arg(dir.path())
            .arg(crate::harness::program("ac.c"))
            .arg("--json")
            .output()
            .expect_verdict("JE");
        let message = first_failure(&doc);
        assert!(message.starts_with(said), "{file}: {message}");
    }
}

/// A validator, a generator or an interactor that crashes in C++, Java or Rust is a judge error
/// (or `gen`'s and `stress`'s error) naming it, never an invalid test or a verdict.
#[test]
fn a_crashing_validator_generator_or_interactor_is_named_in_every_language() {
    // Validators (a failed assertion is a validator's way to reject: an abort is a crash).
    let mut validators = vec![
        (
            "validator.cpp",
            CPP_ABORTS,
            "validator.cpp crashed (killed by signal 6 (SIGABRT))",
        ),
        (
            "validator.rs",
            RUST_PANICS,
            "validator.rs crashed (exit code 101): panic: index out of bounds",
        ),
    ];
    if have_java() {
        validators.push((
            "validator.java",
            JAVA_THROWS,
            "validator.java crashed (exit code 1): Exception in thread \"main\" java.lang.IllegalStateException: cannot read 0",
        ));
    }
    for (file, source, said) in validators {
        let dir = problem_with("sum", &[(file, source)]);
        let f = judge().arg("verify").arg(dir.path()).output();
        f.expect_code(2).expect_stdout_contains(said);
        assert!(!f.stdout().contains("invalid test"), "{}", f.describe());
    }
    // A generator, as `stress` runs it: the error names it and its crash.
    let mut generators = vec![
        ("gen.cpp", CPP_THROWS, "gen.cpp"),
        ("gen.rs", RUST_PANICS, "gen.rs"),
    ];
    if have_java() {
        generators.push(("Gen.java", JAVA_THROWS, "Gen.java"));
    }
    for (file, source, name) in generators {
        // problems/sum with the generator, solutions/sum/accepted/ holding the reference.
        let root = tempfile::tempdir().unwrap();
        let problem = root.path().join("problems/sum");
        crate::harness::copy_dir(&crate::harness::fixture_problem("sum"), &problem);
        std::fs::write(problem.join(file), source).unwrap();
        let accepted = root.path().join("solutions/sum/accepted");
        std::fs::create_dir_all(&accepted).unwrap();
        std::fs::copy(crate::harness::program("ac.c"), accepted.join("ac.c")).unwrap();
        let f = judge()
            .arg("stress")
            .arg("sum")
            .arg(crate::harness::program("ac.c"))
            .args(["--gen", &format!("{file} {{seed}}"), "--seconds", "5"])
            .current_dir(root.path())
            .output();
        f.expect_code(2).expect_stderr_contains(name);
        f.expect_stderr_contains("crashed");
    }
    // An interactor (the Kattis protocol) that aborts, or exits with a code that is no verdict.
    for (file, source, said) in [
        (
            "interactor.cpp",
            CPP_ABORTS,
            "the interactor `interactor.cpp` crashed (killed by signal 6 (SIGABRT))",
        ),
        (
            "interactor.rs",
            RUST_PANICS,
            "the interactor `interactor.rs` crashed (exit code 101): panic: index out of bounds",
        ),
    ] {
        let toml = format!("name = \"Guess\"\n[limits]\ntime_limit = 1.0\nmemory = 64\n[interactor]\nsource = \"{file}\"\nprotocol = \"kattis\"\n");
        let dir = problem_with("guess", &[("problem.toml", &toml), (file, source)]);
        let doc = judge()
            .arg("run")
            .arg(dir.path())
            .arg(crate::harness::program("ac.c"))
            .arg("--json")
            .output()
            .expect_verdict("JE");
        let message = first_failure(&doc);
        assert!(message.contains(said), "{file}: {message}");
    }
}
