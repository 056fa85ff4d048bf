//! The command line's contract: exit statuses of every subcommand, a closed stdout, and the
//! setter's messages.

use crate::harness::{fixture_problem, judge, program};
use std::path::Path;

/// `sum` with 40 more tests (`a1` … `a40`), so that judging goes on well after the first line.
fn many_tests() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("sum");
    crate::harness::copy_dir(&fixture_problem("sum"), &pkg);
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

/// A repository in a temp folder: `problems/<name>` copied from a fixture, and solutions.
fn repo(fixture: &str, solutions: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(
        &fixture_problem(fixture),
        &dir.path().join("problems").join(fixture),
    );
    for (folder, prog) in solutions {
        let to = dir.path().join("solutions").join(fixture).join(folder);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(program(prog), to.join(prog)).unwrap();
    }
    dir
}

pub(crate) fn write(path: impl AsRef<Path>, text: &str) {
    let path = path.as_ref();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_checker_that_does_not_compile_is_a_judge_error_in_run_and_verify() {
    let r = repo("sum-custom", &[("accepted", "ac.c")]);
    write(
        r.path().join("problems/sum-custom/checker.rs"),
        "fn main() { nonsense }\n",
    );
    judge()
        .arg("run")
        .arg(r.path().join("problems/sum-custom"))
        .arg(program("ac.c"))
        .output()
        .expect_code(2)
        .expect_stderr_contains("does not compile");
    judge()
        .args(["verify", "sum-custom"])
        .current_dir(r.path())
        .output()
        .expect_code(2)
        .expect_stdout_contains("checker.rs does not compile");
}

#[test]
fn a_crashing_checker_is_a_judge_error_in_run_and_verify() {
    let r = repo("broken-checker", &[("accepted", "ac.c")]);
    judge()
        .arg("run")
        .arg(r.path().join("problems/broken-checker"))
        .arg(program("ac.c"))
        .output()
        .expect_code(2);
    judge()
        .args(["verify", "broken-checker"])
        .current_dir(r.path())
        .output()
        .expect_code(2)
        .expect_stdout_contains("checker failure");
}

#[test]
fn a_crashing_validator_is_named_as_a_crash_and_is_a_judge_error() {
    let r = repo("sum", &[("accepted", "ac.c")]);
    write(
        r.path().join("problems/sum/validator.py"),
        "import sys\nn = int(sys.stdin.readline())\nprint(1 // (n - 4), file=sys.stderr)\n",
    );
    let f = judge()
        .args(["verify", "sum"])
        .current_dir(r.path())
        .output();
    f.expect_code(2).expect_stdout_contains(
        "tests/10.in: validator.py crashed (exit code 1): ZeroDivisionError: integer division or modulo by zero",
    );
    // The traceback's last lines show where.
    f.expect_stdout_contains("line 3");
    assert!(!f.stdout().contains("invalid test"), "{}", f.describe());
    assert!(!f.stdout().contains("tests/2.in"), "{}", f.describe());
}

#[test]
fn a_failed_assertion_in_a_validator_rejects_the_test() {
    let r = repo("sum", &[("accepted", "ac.c")]);
    write(
        r.path().join("problems/sum/validator.py"),
        "import sys\nn = int(sys.stdin.readline())\nassert n <= 3, f'n = {n} is too big'\n",
    );
    let f = judge()
        .args(["verify", "sum"])
        .current_dir(r.path())
        .output();
    f.expect_code(1).expect_stdout_contains(
        "tests/10.in: invalid test (rejected by validator.py): AssertionError: n = 4 is too big",
    );
}

#[test]
fn misnamed_solution_folders_are_each_named_once_and_the_rest_is_judged() {
    let r = repo(
        "sum",
        &[
            ("accepted", "ac.c"),
            ("wrong", "wa.c"),
            ("time_limit", "tle-loop.c"),
        ],
    );
    let f = judge()
        .args(["verify", "sum"])
        .current_dir(r.path())
        .output();
    f.expect_code(2);
    let out = f.stdout();
    for folder in ["wrong", "time_limit"] {
        let named = format!("solutions/sum/{folder}: not an expected-verdict folder");
        assert_eq!(out.matches(&named).count(), 2, "{named}: {}", f.describe());
    }
    assert!(out.contains("accepted, wrong_answer"), "{}", f.describe());
    assert!(out.contains("accepted/ac.c"), "{}", f.describe());
    assert!(!out.contains("no reference solution"), "{}", f.describe());
}

#[test]
fn a_solution_file_outside_an_expected_verdict_folder_is_named() {
    let r = repo("sum", &[("accepted", "ac.c")]);
    std::fs::copy(program("wa.c"), r.path().join("solutions/sum/wa.c")).unwrap();
    judge()
        .args(["verify", "sum"])
        .current_dir(r.path())
        .output()
        .expect_code(2)
        .expect_stdout_contains("solutions/sum/wa.c: not in an expected-verdict folder");
}

pub(crate) fn new_package(slug: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    judge()
        .args(["new", slug])
        .current_dir(root.path())
        .output()
        .expect_code(0);
    root
}

#[test]
fn gen_sees_a_changed_validator() {
    let root = new_package("c");
    let pkg = root.path().join("problems/c");
    let validator = std::fs::read_to_string(pkg.join("validator.py")).unwrap();
    write(
        pkg.join("validator.py"),
        &validator.replace("1 <= n <= 100", "1 <= n <= 2"),
    );
    let f = judge().args(["gen", "c"]).current_dir(root.path()).output();
    f.expect_code(2)
        .expect_stderr_contains("is out of range [1, 100]");
    assert!(!f.stdout().contains("cached"), "{}", f.describe());
}

#[test]
fn gen_cache_is_used_when_nothing_changed() {
    let root = new_package("u");
    judge()
        .args(["gen", "u"])
        .current_dir(root.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("0 input(s) and 0 answer(s) written, 0 unchanged, 7 up to date");
}

#[test]
fn stress_names_a_missing_generator_file() {
    let root = new_package("m");
    judge()
        .args([
            "stress",
            "m",
            "solutions/m/accepted/reference.py",
            "--gen",
            "nosuch.py {seed}",
            "--seconds",
            "2",
        ])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("nosuch.py")
        .expect_stderr_contains("does not exist");
}

#[test]
fn stress_exits_2_when_the_generator_crashes() {
    let root = new_package("g");
    write(
        root.path().join("problems/g/crash.py"),
        "import sys\nsys.exit(3)\n",
    );
    judge()
        .args([
            "stress",
            "g",
            "solutions/g/accepted/reference.py",
            "--gen",
            "crash.py {seed}",
            "--seconds",
            "2",
        ])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("crash.py");
}

/// A TMPDIR under /dev (a tmpfs such as /dev/shm, chosen for speed) is refused with the way
/// out: every run gets a /dev of its own, where the work folder would not be (before, every run
/// ended as a judge error naming a read-only mount point).
#[test]
fn a_temporary_folder_under_dev_is_refused_naming_the_fix() {
    for dir in ["/dev/shm", "/dev/shm/judge-tmp"] {
        judge()
            .env("TMPDIR", dir)
            .arg("run")
            .arg(fixture_problem("sum"))
            .arg(program("ac.c"))
            .output()
            .expect_code(2)
            .expect_stderr_contains(&format!(
                "the temporary folder {dir} (TMPDIR) is under /dev"
            ))
            .expect_stderr_contains("hint: set TMPDIR to a folder outside /dev, /proc and /sys");
    }
}

#[test]
fn doctor_and_usage_errors() {
    judge().arg("doctor").output().expect_code(0);
    judge().args(["doctor", "--bogus"]).output().expect_code(2);
    judge().arg("--help").output().expect_code(0);
    judge().args(["run"]).output().expect_code(2);
    // A lease so short its heartbeat would never rest. (The database cannot be opened: were the
    // lease taken, the command would fail at once for another reason, never serve.)
    let db = ["--db", "sqlite:/nonexistent/judge.sqlite"];
    for args in [
        &["serve", "--listen", "127.0.0.1:0", "--lease", "0"][..],
        &["worker", "--lease", "0"][..],
    ] {
        judge()
            .args(args)
            .args(db)
            .output()
            .expect_code(2)
            .expect_stderr_contains("`0` is too short a lease: at least 0.1 seconds");
    }
}
