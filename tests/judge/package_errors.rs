//! Broken packages and bad usage: a clear error naming the file, exit status 2.

use crate::harness::{judge, program};

fn package(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    std::fs::write(dir.path().join("tests/1.in"), "1\n5\n").unwrap();
    std::fs::write(dir.path().join("tests/1.ans"), "5\n").unwrap();
    std::fs::write(dir.path().join("problem.toml"), toml).unwrap();
    dir
}

#[test]
fn a_misspelled_key_is_named_with_line_and_column() {
    let p = package("name = \"X\"\n[limits]\ntime_limit = 1\nmemroy = 64\n");
    let f = judge()
        .arg("run")
        .arg(p.path())
        .arg(program("ac.c"))
        .output();
    f.expect_code(2);
    f.expect_stderr_contains("problem.toml:4:1: unknown field `memroy`");
}

#[test]
fn nonsense_limits_are_refused() {
    let p = package("name = \"X\"\n[limits]\ntime_limit = -1\nmemory = 64\n");
    let f = judge()
        .arg("run")
        .arg(p.path())
        .arg(program("ac.c"))
        .output();
    f.expect_code(2).expect_stderr_contains(
        "problem.toml:3:14: `time_limit` = -1 is not a sensible number of seconds",
    );
}

#[test]
fn a_missing_answer_is_named() {
    let p = package("name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n");
    std::fs::write(p.path().join("tests/2.in"), "1\n1\n").unwrap();
    let f = judge()
        .arg("run")
        .arg(p.path())
        .arg(program("ac.c"))
        .output();
    f.expect_code(2)
        .expect_stderr_contains("tests/2.in: input without an answer");
}

#[test]
fn an_unknown_problem_and_a_missing_source_are_usage_errors() {
    judge()
        .args(["run", "no-such-problem", "x.cpp"])
        .output()
        .expect_code(2)
        .expect_stderr_contains("no problem package `no-such-problem` found");
    let p = package("name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n");
    judge()
        .arg("run")
        .arg(p.path())
        .arg("missing.cpp")
        .output()
        .expect_code(2)
        .expect_stderr_contains("missing.cpp: no such file");
    judge()
        .arg("run")
        .arg(p.path())
        .arg(p.path().join("problem.toml"))
        .output()
        .expect_code(2)
        .expect_stderr_contains("unsupported file type");
}

#[test]
fn a_missing_custom_checker_is_named() {
    let p = package("name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n[checker]\nkind = \"custom\"\nsource = \"check.rs\"\n");
    judge()
        .arg("run")
        .arg(p.path())
        .arg(program("ac.c"))
        .output()
        .expect_code(2)
        .expect_stderr_contains("checker source");
}
