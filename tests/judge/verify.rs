//! `judge verify`: expectations from the solution folders, validators, checker tests.

use crate::harness::{fixture_problem, judge, program, root};

/// A repository in a temp folder: `problems/sum` and the given solutions.
pub fn repo(solutions: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&fixture_problem("sum"), &dir.path().join("problems/sum"));
    for (folder, prog) in solutions {
        let to = dir.path().join("solutions/sum").join(folder);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(program(prog), to.join(prog)).unwrap();
    }
    dir
}

#[test]
fn every_expectation_met_exits_zero() {
    let r = repo(&[
        ("accepted", "ac.c"),
        ("accepted", "ac.py"),
        ("wrong_answer", "wa.c"),
        ("time_limit_exceeded", "tle-loop.c"),
        ("runtime_error", "re-segv.c"),
        ("compile_error", "ce.c"),
    ]);
    let f = judge().arg("verify").current_dir(r.path()).output();
    f.expect_code(0)
        .expect_stdout_contains("every expectation holds");
    let out = f.stdout();
    for name in [
        "accepted/ac.c",
        "wrong_answer/wa.c",
        "time_limit_exceeded/tle-loop.c",
        "compile_error/ce.c",
    ] {
        assert!(out.contains(name), "matrix lacks {name}: {out}");
    }
    assert!(out.contains("x slowest accepted, rounded up to"), "{out}");
}

#[test]
fn a_wrong_solution_under_accepted_fails_and_is_named() {
    let r = repo(&[("accepted", "ac.c"), ("accepted", "wa.rs")]);
    let f = judge()
        .arg("verify")
        .arg("sum")
        .current_dir(r.path())
        .output();
    f.expect_code(1);
    f.expect_stdout_contains("accepted/wa.rs: expected AC but got WA on test sample-1");
}

#[test]
fn a_solution_failing_with_another_verdict_fails() {
    let r = repo(&[("accepted", "ac.c"), ("wrong_answer", "tle-loop.c")]);
    let f = judge().arg("verify").current_dir(r.path()).output();
    f.expect_code(1)
        .expect_stdout_contains("wrong_answer/tle-loop.c: expected WA but got TLE");
}

#[test]
fn an_invalid_test_is_named_with_the_validators_reason() {
    let r = repo(&[("accepted", "ac.c")]);
    let pkg = r.path().join("problems/sum");
    std::fs::write(
        pkg.join("validator.py"),
        "import sys\nlines = sys.stdin.read().split('\\n')\nn = int(lines[0])\nif not 1 <= n <= 3:\n    sys.exit(f'n = {n} is out of range [1, 3]')\n",
    )
    .unwrap();
    let f = judge().arg("verify").current_dir(r.path()).output();
    f.expect_code(1);
    f.expect_stdout_contains(
        "tests/10.in: invalid test (rejected by validator.py): n = 4 is out of range [1, 3]",
    );
    assert!(
        !f.stdout().contains("tests/2.in: invalid"),
        "{}",
        f.stdout()
    );
}

#[test]
fn checker_tests_run_and_report_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(
        &fixture_problem("sum-custom"),
        &dir.path().join("problems/sum-custom"),
    );
    let acc = dir.path().join("solutions/sum-custom/accepted");
    std::fs::create_dir_all(&acc).unwrap();
    std::fs::copy(program("ac.c"), acc.join("ac.c")).unwrap();
    std::fs::write(
        dir.path().join("problems/sum-custom/checker_tests.toml"),
        "[[case]]\nname = \"right\"\ntest = \"sample-1\"\noutput = \"6\\n\"\nexpect = \"AC\"\n\n\
         [[case]]\nname = \"two tokens\"\ntest = \"sample-1\"\noutput = \"6 6\\n\"\nexpect = \"PE\"\n\n\
         [[case]]\nname = \"claims wrong is fine\"\ntest = \"sample-1\"\noutput = \"7\\n\"\nexpect = \"AC\"\n",
    )
    .unwrap();
    let f = judge().arg("verify").current_dir(dir.path()).output();
    f.expect_code(1);
    f.expect_stdout_contains(
        "checker test `claims wrong is fine` expects AC but the checker said WA",
    );
    assert!(!f.stdout().contains("`right`"), "{}", f.stdout());
    assert!(!f.stdout().contains("`two tokens`"), "{}", f.stdout());
}

#[test]
fn verify_needs_a_reference_solution() {
    let r = repo(&[("wrong_answer", "wa.c")]);
    judge()
        .arg("verify")
        .current_dir(r.path())
        .output()
        .expect_code(1)
        .expect_stdout_contains("no reference solution");
}

#[test]
fn the_shipped_problems_are_found_from_the_repository_root() {
    // Only checks discovery and loading (the full verify is the README's main command).
    let problems = judge_core::package::discover(&root().join("problems")).unwrap();
    for dir in problems {
        judge_core::package::Problem::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    }
}
