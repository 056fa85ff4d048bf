//! The command line's contract: exit statuses of every subcommand, a closed stdout, and the
//! setter's messages.

use crate::harness::{fixture_problem, judge, program};
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `sum` with 40 more tests (`a1` … `a40`), so that judging goes on well after the first line.
fn many_tests() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("sum");
    copy_dir(&fixture_problem("sum"), &pkg);
    for i in 1..=40 {
        std::fs::write(pkg.join(format!("tests/a{i}.in")), format!("1\n{i}\n")).unwrap();
        std::fs::write(pkg.join(format!("tests/a{i}.ans")), format!("{i}\n")).unwrap();
    }
    dir
}

fn assert_quiet_close(f: &crate::harness::Finished) {
    f.expect_code(141);
    for text in ["panicked", "Broken pipe", "error"] {
        assert!(
            !f.stderr().contains(text),
            "{text:?} on stderr: {}",
            f.describe()
        );
    }
}

#[test]
fn run_piped_into_head_ends_quietly_and_leaves_nothing() {
    // `judge run P wrong.c --all | head -1`: the header is read, then the pipe closes while
    // tests are still being judged. (The harness fails the test on any cgroup, folder or
    // process left behind.)
    let dir = many_tests();
    let f = judge()
        .args(["run", "--all"])
        .arg(dir.path().join("sum"))
        .arg(program("wa.c"))
        .close_stdout_after(1)
        .output();
    assert_quiet_close(&f);
    assert_eq!(f.stdout().lines().count(), 1, "{}", f.describe());
    assert!(f.stdout().starts_with("test"), "{}", f.describe());
}

#[test]
fn a_stdout_closed_before_the_first_line_ends_every_subcommand_quietly() {
    let dir = many_tests();
    let pkg = dir.path().join("sum");
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["run".into(), pkg.clone().into(), program("ac.c").into()],
        vec![
            "run".into(),
            "--json".into(),
            pkg.clone().into(),
            program("ac.c").into(),
        ],
        vec!["verify".into(), pkg.clone().into()],
        vec!["doctor".into()],
    ];
    for args in runs {
        let f = judge().args(args).close_stdout_after(0).output();
        assert_quiet_close(&f);
    }
}

#[test]
fn a_closed_stderr_ends_the_judge_quietly_too() {
    // `judge run … 2>&1 | head -1`: the first status line is read, then both streams close.
    let dir = many_tests();
    let f = judge()
        .args(["run", "--all"])
        .arg(dir.path().join("sum"))
        .arg(program("wa.c"))
        .stderr_to_stdout()
        .close_stdout_after(1)
        .output();
    f.expect_code(141);
    assert!(f.stdout().contains("Compiling"), "{}", f.describe());
    assert!(!f.stdout().contains("panicked"), "{}", f.describe());
}
