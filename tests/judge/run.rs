//! `judge run`: the right verdict and exit status for every verdict, in every language.

use crate::harness::{fixture_problem, judge, program};

fn expect(prog: &str, verdict: &str) -> serde_json::Value {
    judge().run_fixture("sum", prog).expect_verdict(verdict)
}

#[test]
fn accepted_in_every_language() {
    for prog in ["ac.cpp", "ac.c", "ac.rs", "ac.py"] {
        let doc = expect(prog, "AC");
        assert_eq!(doc["schema"], 1);
        assert_eq!(doc["compile"]["ok"], true);
        let tests = doc["tests"].as_array().unwrap();
        let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["sample-1", "2", "10"],
            "samples first, then natural order"
        );
        for t in tests {
            assert_eq!(t["verdict"], "AC");
            assert!(t["time_ms"].as_f64().unwrap() >= 0.0);
            assert!(t["wall_ms"].as_f64().unwrap() > 0.0);
            assert!(t["memory_kib"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn wrong_answers_say_where() {
    for prog in ["wa.cpp", "wa.c", "wa.rs", "wa.py"] {
        expect(prog, "WA");
    }
    let doc = expect("wa.rs", "WA");
    let t = &doc["tests"][0];
    assert_eq!(t["name"], "sample-1");
    assert_eq!(t["mismatch"]["line"], 1);
    assert_eq!(t["mismatch"]["expected"], "6");
    assert_eq!(t["mismatch"]["found"], "42");
    assert_eq!(
        doc["tests"].as_array().unwrap().len(),
        1,
        "stops at the first failure"
    );
}

#[test]
fn all_runs_every_test() {
    let doc = judge()
        .args(["run", "--all", "--json"])
        .arg(fixture_problem("sum"))
        .arg(program("wa.c"))
        .output()
        .expect_verdict("WA");
    let verdicts: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        ["AC", "AC", "WA"],
        "int overflow only on the last test"
    );
}

#[test]
fn busy_loops_are_time_limit_exceeded() {
    for prog in ["tle-loop.cpp", "tle-loop.c", "tle-loop.rs", "tle-loop.py"] {
        let doc = expect(prog, "TLE");
        let time = doc["tests"][0]["time_ms"].as_f64().unwrap();
        let wall = doc["tests"][0]["wall_ms"].as_f64().unwrap();
        // Never killed early: at the CPU limit (0.25 s), or, on a machine so loaded that the loop
        // got a seventh of a CPU, at the wall-clock limit (3 x 0.25 s + 1 s).
        assert!(
            time >= 250.0 || wall >= 1750.0,
            "{prog}: killed after only {time} ms of CPU and {wall} ms of wall time"
        );
        assert!(
            time < 3500.0,
            "{prog}: the CPU limit was enforced late ({time} ms)"
        );
    }
}

/// The four judges run at once: each waits on the wall clock, not on a CPU.
#[test]
fn sleepers_are_killed_by_the_wall_clock_in_seconds() {
    std::thread::scope(|s| {
        for prog in [
            "tle-sleep.cpp",
            "tle-sleep.c",
            "tle-sleep.rs",
            "tle-sleep.py",
        ] {
            s.spawn(move || {
                let start = std::time::Instant::now();
                let doc = expect(prog, "TLE");
                let wall = doc["tests"][0]["wall_ms"].as_f64().unwrap();
                assert!((1750.0..20_000.0).contains(&wall), "{prog}: wall {wall} ms");
                assert!(
                    start.elapsed().as_secs() < 50,
                    "{prog}: sleep(60) was not cut short"
                );
            });
        }
    });
}

#[test]
fn memory_hogs_are_memory_limit_exceeded() {
    for prog in ["mle.cpp", "mle.c", "mle.rs", "mle.py"] {
        expect(prog, "MLE");
    }
}

#[test]
fn floods_are_output_limit_exceeded() {
    for prog in ["ole.cpp", "ole.c", "ole.rs", "ole.py"] {
        expect(prog, "OLE");
    }
}

#[test]
fn crashes_are_runtime_errors_named() {
    let doc = expect("re-segv.cpp", "RE");
    assert_eq!(doc["tests"][0]["message"], "killed by signal 11 (SIGSEGV)");
    expect("re-segv.c", "RE");
    let doc = expect("re-exit.cpp", "RE");
    assert_eq!(doc["tests"][0]["message"], "exit code 3");
    let doc = expect("re-exit.c", "RE");
    assert_eq!(doc["tests"][0]["message"], "exit code 7");
    let doc = expect("re-panic.rs", "RE");
    assert!(
        doc["tests"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("exit code 101"),
        "{doc}"
    );
    let doc = expect("re-exception.py", "RE");
    let msg = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("exit code 1") && msg.contains("ValueError: boom"),
        "{msg}"
    );
}

#[test]
fn compile_errors_carry_the_compiler_message() {
    for (prog, needle) in [
        ("ce.cpp", "undeclared"),
        ("ce.c", "undeclared"),
        ("ce.rs", "mismatched types"),
        ("ce.py", "SyntaxError"),
    ] {
        let doc = expect(prog, "CE");
        assert_eq!(doc["compile"]["ok"], false);
        let msg = doc["compile"]["message"].as_str().unwrap();
        assert!(msg.contains(needle), "{prog}: {msg}");
        assert!(doc["tests"].as_array().unwrap().is_empty());
    }
}

#[test]
fn human_output_has_a_table_and_the_difference() {
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("wa.cpp"))
        .output();
    f.expect_code(1);
    let out = f.stdout();
    assert!(
        out.contains("test") && out.contains("verdict") && out.contains("memory"),
        "{out}"
    );
    assert!(out.contains("WA (wrong answer) on test sample-1"), "{out}");
    assert!(out.contains("expected `6`, found `7`"), "{out}");
}

#[test]
fn float_checker_accepts_within_tolerance() {
    judge()
        .run_fixture("divide", "divide-ac.py")
        .expect_verdict("AC");
    judge()
        .run_fixture("divide", "divide-close.py")
        .expect_verdict("AC");
    judge()
        .run_fixture("divide", "divide-far.py")
        .expect_verdict("WA");
}

#[test]
fn custom_checker_verdicts_and_a_crashing_checker_is_a_judge_error() {
    judge()
        .run_fixture("sum-custom", "ac.cpp")
        .expect_verdict("AC");
    // The custom checker accepts any token order of "sum" alone, and rejects a wrong sum.
    judge()
        .run_fixture("sum-custom", "wa.c")
        .expect_verdict("WA");
    let doc = judge()
        .run_fixture("broken-checker", "ac.c")
        .expect_verdict("JE");
    assert!(
        doc["tests"][0]["message"]
            .as_str()
            .unwrap()
            .contains("checker"),
        "{doc}"
    );
}

#[test]
fn measurements_are_this_runs_own() {
    let doc = judge()
        .run_fixture("measure", "tiny.c")
        .expect_verdict("AC");
    let kib = doc["tests"][0]["memory_kib"].as_u64().unwrap();
    assert!(kib < 5 * 1024, "a tiny C program reported {kib} KiB");
}

#[test]
fn cpu_time_and_memory_are_measured_exactly() {
    let doc = judge()
        .run_fixture("measure", "burn-half-second.c")
        .expect_verdict("AC");
    let ms = doc["tests"][0]["time_ms"].as_f64().unwrap();
    assert!(
        (450.0..=550.0).contains(&ms),
        "0.5 s of CPU reported as {ms} ms"
    );
    let doc = judge()
        .run_fixture("measure", "touch-100mib.c")
        .expect_verdict("AC");
    let mib = doc["tests"][0]["memory_kib"].as_u64().unwrap() as f64 / 1024.0;
    assert!(
        (90.0..=110.0).contains(&mib),
        "100 MiB touched reported as {mib:.1} MiB"
    );
}

/// The judge checks a 9 MB output without holding it: its peak stays within 6 MiB of what it
/// takes for a tiny one (about 18 MiB, measured 2026-11-27), under the 9 MB it would add.
#[test]
fn a_9_mb_output_is_checked_in_small_memory() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("big");
    std::fs::create_dir_all(pkg.join("tests")).unwrap();
    std::fs::write(
        pkg.join("problem.toml"),
        "name = \"Big\"\n[limits]\ntime_limit = 10\nmemory = 256\noutput = 64\n",
    )
    .unwrap();
    std::fs::write(pkg.join("tests/1.in"), "1250000\n").unwrap();
    // 0 to 1249999, a line each (coreutils' seq: formatting them in a debug build of this test
    // takes a while).
    let answer = std::fs::File::create(pkg.join("tests/1.ans")).unwrap();
    let seq = std::process::Command::new("seq")
        .args(["0", "1249999"])
        .stdout(answer)
        .status()
        .unwrap();
    assert!(seq.success());
    let len = std::fs::metadata(pkg.join("tests/1.ans")).unwrap().len();
    assert!(len > 8_800_000, "{len}");
    let doc = judge()
        .arg("run")
        .arg(&pkg)
        .arg(program("count.c"))
        .arg("--json")
        .output()
        .expect_verdict("AC");
    let kib = doc["judge_memory_kib"].as_u64().unwrap();
    assert!(
        kib > 0 && kib < 24 * 1024,
        "the judge peaked at {kib} KiB while checking 9 MB"
    );
}

/// A Python program in a folder of the user's own, dividing by zero in a function.
const DIVIDES_BY_ZERO: &str = "import sys\n\
def mean(values):\n    return sum(values) // (len(values) - len(values))\n\
v = list(map(int, sys.stdin.read().split()))\n\
print('debug: read', v, file=sys.stderr)\n\
print(mean(v[1:]))\n";

#[test]
fn a_python_runtime_error_shows_the_users_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("average.py");
    std::fs::write(&source, DIVIDES_BY_ZERO).unwrap();
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .output();
    f.expect_code(1);
    let out = f.stdout();
    // The traceback's last lines, naming the user's file and the line that divided.
    assert!(out.contains("RE (runtime error) on test sample-1"), "{out}");
    assert!(out.contains("stderr:"), "{out}");
    assert!(
        out.contains("File \"average.py\", line 3, in mean"),
        "{out}"
    );
    assert!(out.contains("ZeroDivisionError"), "{out}");
    assert!(
        !out.contains("build-"),
        "no path of the judge's copy: {out}"
    );

    // The JSON carries both streams.
    let doc = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .arg("--json")
        .output()
        .expect_verdict("RE");
    let test = &doc["tests"][0];
    assert_eq!(test["stdout"]["text"], "", "{doc}");
    let stderr = test["stderr"]["text"].as_str().unwrap();
    assert!(stderr.starts_with("debug: read [3, 1, 2, 3]\n"), "{stderr}");
    assert!(stderr.contains("File \"average.py\", line 6"), "{stderr}");
    assert_eq!(test["stderr"]["truncated"], false);
}

#[test]
fn show_output_shows_a_wrong_answers_output_and_debug_prints() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("off.py");
    std::fs::write(
        &source,
        "import sys\nv = list(map(int, sys.stdin.read().split()))\nprint('n =', v[0], file=sys.stderr)\nprint(sum(v[1:]) + 1)\n",
    )
    .unwrap();
    let run = |show: bool| {
        let mut j = judge().arg("run").arg(fixture_problem("sum")).arg(&source);
        if show {
            j = j.arg("--show-output");
        }
        let f = j.output();
        f.expect_code(1);
        f.stdout()
    };
    let out = run(true);
    assert!(
        out.contains("\n  output:\n    7\n\n  stderr:\n    n = 3\n"),
        "{out}"
    );
    let plain = run(false);
    assert!(!plain.contains("n = 3"), "only when asked: {plain}");
}

/// A program whose initialised static array makes a 300 MiB executable: built when the memory
/// limit allows that much (a build's files follow it over the usual 256 MiB), and a compile
/// error saying which cap it reached when not.
#[test]
fn a_builds_files_may_be_as_large_as_the_memory_limit() {
    let source = tempfile::tempdir().unwrap();
    let big = source.path().join("big.c");
    std::fs::write(
        &big,
        "#include <stdio.h>\nchar big[300 << 20] = {1};\nint main(void) {\n    int n; long long s = 0, x;\n    if (scanf(\"%d\", &n) != 1) return 1;\n    for (int i = 0; i < n; i++) { if (scanf(\"%lld\", &x) == 1) s += x; }\n    printf(\"%lld\\n\", s + big[12345]);\n    return 0;\n}\n",
    )
    .unwrap();
    for (memory, verdict) in [(512, "AC"), (64, "CE")] {
        let dir = tempfile::tempdir().unwrap();
        crate::harness::copy_dir(&fixture_problem("sum"), dir.path());
        std::fs::write(
            dir.path().join("problem.toml"),
            format!("name = \"Sum\"\n[limits]\ntime_limit = 2.0\nmemory = {memory}\n"),
        )
        .unwrap();
        let doc = judge()
            .arg("--no-cache")
            .arg("run")
            .arg(dir.path())
            .arg(&big)
            .arg("--json")
            .output()
            .expect_verdict(verdict);
        if verdict == "CE" {
            let message = doc["compile"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("a file the compiler wrote reached the 256.0 MiB cap on a build's files (the problem's memory limit, at least 256.0 MiB)"),
                "{message}"
            );
        }
    }
}
