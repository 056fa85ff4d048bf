//! Setter workflow: `judge new`, `judge gen`, stale tests in `verify`, `judge stress`.

use crate::harness::judge;
use std::path::Path;

pub fn new_package(slug: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    judge()
        .args(["new", slug])
        .current_dir(root.path())
        .output()
        .expect_code(0);
    root
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_new_package_verifies_at_once() {
    let root = new_package("sum-demo");
    let pkg = root.path().join("problems/sum-demo");
    for f in [
        "problem.toml",
        "statement.md",
        "validator.py",
        "generator.py",
        "tests.toml",
        "tests/random-2.in",
        "tests/random-2.ans",
    ] {
        assert!(pkg.join(f).is_file(), "missing {f}");
    }
    judge()
        .args(["verify", "sum-demo"])
        .current_dir(root.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("every expectation holds");
    judge()
        .args(["new", "sum-demo"])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("already exists");
}

#[test]
fn gen_is_deterministic_and_idempotent() {
    let root = new_package("g");
    let tests = root.path().join("problems/g/tests");
    let before = read(&tests.join("random-2.in"));
    let answer = read(&tests.join("random-2.ans"));
    let f = judge().args(["gen", "g"]).current_dir(root.path()).output();
    f.expect_code(0)
        .expect_stdout_contains("0 input(s) and 0 answer(s) written");
    // Rebuilt from scratch (no cache, no files): the same bytes.
    std::fs::remove_file(root.path().join("problems/g/.judge-cache.json")).unwrap();
    std::fs::remove_file(tests.join("random-2.in")).unwrap();
    std::fs::remove_file(tests.join("random-2.ans")).unwrap();
    judge()
        .args(["gen", "g"])
        .current_dir(root.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("1 input(s) and 1 answer(s) written");
    assert_eq!(read(&tests.join("random-2.in")), before);
    assert_eq!(read(&tests.join("random-2.ans")), answer);
}

#[test]
fn verify_fails_on_a_stale_generated_test() {
    let root = new_package("s");
    std::fs::write(root.path().join("problems/s/tests/random-1.in"), "1\n5\n").unwrap();
    std::fs::write(root.path().join("problems/s/tests/random-1.ans"), "5\n").unwrap();
    let f = judge()
        .args(["verify", "s"])
        .current_dir(root.path())
        .output();
    f.expect_code(1)
        .expect_stdout_contains("tests/random-1.in: stale");
}

#[test]
fn gen_rejects_an_input_the_validator_refuses() {
    let root = new_package("v");
    let recipe = root.path().join("problems/v/tests.toml");
    let mut text = std::fs::read_to_string(&recipe).unwrap();
    text.push_str(
        "\n[[test]]\nname = \"too-big\"\ngenerator = \"generator.py\"\nargs = [\"1\", \"x\"]\n",
    );
    std::fs::write(&recipe, text).unwrap();
    judge()
        .args(["gen", "v"])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("test `too-big`");
}

#[test]
fn gen_names_an_invalid_hand_made_test_before_answering_it() {
    let root = new_package("hm");
    let tests = root.path().join("problems/hm/tests");
    std::fs::write(tests.join("broken.in"), "not a number\n").unwrap();
    std::fs::write(tests.join("broken.ans"), "").unwrap();
    judge()
        .args(["gen", "hm"])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("hand-made test `broken`")
        .expect_stderr_contains("hint: fix the file");
}

/// Every file under `dir` with its bytes, by path.
fn tree(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), read(&path)));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_generator_that_prints_nothing_leaves_the_package_byte_identical() {
    let root = new_package("silent");
    let pkg = root.path().join("problems/silent");
    // A new input for random-1 (written first, were gen not atomic), then a generator that
    // prints nothing on the last test.
    std::fs::write(pkg.join("silent.py"), "import sys\n").unwrap();
    let recipe = pkg.join("tests.toml");
    let text = std::fs::read_to_string(&recipe).unwrap().replacen(
        "args = [\"1\", \"10\"]",
        "args = [\"1\", \"11\"]",
        1,
    );
    let text =
        text + "\n[[test]]\nname = \"silent-1\"\ngenerator = \"silent.py\"\nargs = [\"3\"]\n";
    std::fs::write(&recipe, text).unwrap();
    let before = tree(&pkg);
    judge()
        .args(["gen", "silent"])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains(
            "test `silent-1`: silent.py 3: the generator printed nothing\n  hint: a generator prints the test's input on stdout",
        );
    assert!(tree(&pkg) == before, "gen changed the package");
}

pub const WRONG_ABOVE_FIVE: &str = "import sys\nd = sys.stdin.read().split()\nn = int(d[0])\ns = sum(map(int, d[1:1 + n]))\nprint(s + 1 if n > 5 else s)\n";

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn stress_finds_and_shrinks_a_counterexample() {
    let root = new_package("st");
    let wrong = root.path().join("wrong.py");
    std::fs::write(&wrong, WRONG_ABOVE_FIVE).unwrap();
    let out = root.path().join("counter.in");
    let f = judge()
        .args(["stress", "st"])
        .arg(&wrong)
        .args(["--gen", "{seed} {size}", "--seconds", "60", "--out"])
        .arg(&out)
        .current_dir(root.path())
        .output();
    f.expect_code(1).expect_stdout_contains("WA (wrong answer)");
    let saved = String::from_utf8(read(&out)).unwrap();
    let n: usize = saved.lines().next().unwrap().parse().unwrap();
    assert!((6..=8).contains(&n), "shrunk to n = {n}:\n{saved}");
    assert_eq!(saved.lines().nth(1).unwrap().split(' ').count(), n);
    assert!(root.path().join("counter.ans").is_file());
}

#[test]
fn stress_runs_clean_on_a_correct_solution() {
    let root = new_package("ok");
    judge()
        .args([
            "stress",
            "ok",
            "solutions/ok/accepted/reference.py",
            "--gen",
            "{seed} {size}",
            // A second of both CPUs: a few hundred inputs, all agreeing.
            "--seconds",
            "1",
        ])
        .current_dir(root.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("no failing input found");
}

/// A CPU-time limit (0.5 s, against a wall clock of 2 s): no need for the CPUs to be free.
#[test]
fn a_looping_generator_is_stopped_by_its_time_limit_with_progress_shown() {
    let root = new_package("l");
    let pkg = root.path().join("problems/l");
    crate::cli::write(pkg.join("loop.py"), "while True:\n    pass\n");
    let mut recipe = std::fs::read_to_string(pkg.join("tests.toml")).unwrap();
    recipe.insert_str(0, "generator_time_limit = 0.5\n");
    recipe.push_str("\n[[test]]\nname = \"looping\"\ngenerator = \"loop.py\"\nargs = [\"1\"]\n");
    crate::cli::write(pkg.join("tests.toml"), &recipe);
    let started = std::time::Instant::now();
    let f = judge().args(["gen", "l"]).current_dir(root.path()).output();
    f.expect_code(2)
        .expect_stderr_contains(
            "test `looping`: loop.py 1: the generator exceeded its time limit (0.5 s)",
        )
        .expect_stderr_contains(
            "is `generator_time_limit` in tests.toml or --generator-time-limit",
        );
    let f = judge()
        .args(["verify", "l"])
        .current_dir(root.path())
        .output();
    f.expect_code(2)
        .expect_stdout_contains("the generator exceeded its time limit (0.5 s)")
        .expect_stderr_contains("Generating")
        .expect_stderr_contains("looping (4/4)");
    // The CLI flag overrides the recipe.
    judge()
        .args(["gen", "l", "--generator-time-limit", "0.2"])
        .current_dir(root.path())
        .output()
        .expect_code(2)
        .expect_stderr_contains("exceeded its time limit (0.2 s)");
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
}
