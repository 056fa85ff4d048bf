//! `gen`'s decisions over the fake executor (`crate::executor::fake`): what is written, what the
//! cache spares, and how a generator, the validator or the reference failing reads.

use super::*;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use std::sync::Arc;

fn number(run: &Run) -> u64 {
    run.input_text().trim().parse().unwrap_or(u64::MAX)
}

fn programs() -> FakeExecutor {
    FakeExecutor::new()
        .program("gen", |run| Act::prints(format!("{}\n", run.args[0])))
        .program("ref", |run| Act::prints(format!("{}\n", 2 * number(run))))
        .program("validator", |run| match number(run) {
            n if n <= 9 => Act::ok(),
            n => Act::exits(1).stderr(format!("n = {n} is over 9\n")),
        })
}

/// A native package with a hand-made test `1` (no answer yet) and generated `g1`, `g2` from
/// `gen.py 4` and `gen.py <second>`.
fn package(second: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fake::native(dir.path(), 1.0, 64, "", &[]);
    fake::file(dir.path(), "tests/1.in", "3\n");
    fake::source(dir.path(), "solutions/accepted/ref.py", "ref");
    fake::source(dir.path(), "gen.py", "gen");
    fake::source(dir.path(), "validator.py", "validator");
    fake::file(
        dir.path(),
        "tests.toml",
        &format!("[[test]]\nname = \"g1\"\ngenerator = \"gen.py\"\nargs = [\"4\"]\n\n[[test]]\nname = \"g2\"\ngenerator = \"gen.py\"\nargs = [\"{second}\"]\n"),
    );
    dir
}

fn gen(fake: &FakeExecutor, dir: &Path, jobs: usize) -> Result<GenSummary, SetterError> {
    let work = tempfile::tempdir().unwrap();
    let gate = Arc::new(crate::jobs::Gate::default());
    let mut engines: Vec<Engine> = (0..jobs)
        .map(|_| {
            let mut engine = fake.engine(work.path());
            if jobs > 1 {
                engine.join(gate.clone());
            }
            engine
        })
        .collect();
    let mut refs: Vec<&mut Engine> = engines.iter_mut().collect();
    generate(&mut refs, dir, &GenOptions::default(), &|_, _| {})
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("tests").join(name)).unwrap()
}

#[test]
fn inputs_come_from_the_generators_and_answers_from_the_reference() {
    let dir = package("7");
    let fake = programs();
    let summary = gen(&fake, dir.path(), 1).unwrap();
    assert_eq!(summary.inputs_written, ["g1", "g2"]);
    assert_eq!(summary.answers_written, ["1", "g1", "g2"]);
    assert_eq!(
        (read(dir.path(), "g2.in"), read(dir.path(), "g2.ans")),
        ("7\n".into(), "14\n".into())
    );
    assert_eq!(read(dir.path(), "1.ans"), "6\n");
    // Each input was validated once: the generated ones after generating, the hand-made one
    // before the reference answers it.
    assert_eq!(fake.runs_of("validator").len(), 3);
}

#[test]
fn nothing_is_run_again_when_nothing_changed() {
    let dir = package("7");
    gen(&programs(), dir.path(), 1).unwrap();
    let fake = programs();
    let summary = gen(&fake, dir.path(), 1).unwrap();
    assert_eq!(summary.cached, 5);
    assert!(summary.inputs_written.is_empty() && summary.answers_written.is_empty());
    assert!(fake.runs_of("gen").is_empty() && fake.runs_of("ref").is_empty());
    // A changed generator source makes its inputs again; the bytes are the same, so the
    // answers stay cached.
    fake::file(dir.path(), "gen.py", "gen\n# faster\n");
    let fake = programs();
    let summary = gen(&fake, dir.path(), 1).unwrap();
    assert_eq!(fake.runs_of("gen").len(), 2);
    assert_eq!(summary.unchanged, 2);
    assert!(fake.runs_of("ref").is_empty());
}

#[test]
fn a_generated_input_the_validator_rejects_names_the_test() {
    let dir = package("12");
    let err = gen(&programs(), dir.path(), 1).unwrap_err().to_string();
    assert!(
        err.starts_with("test `g2` (gen.py 12): invalid (rejected by validator.py): n = 12 is over 9\n  hint: fix the generator or its arguments in tests.toml"),
        "{err}"
    );
    // The first failing test in order is the error, with several jobs too; `gen` is atomic:
    // nothing is written, not even the tests before it.
    let dir = package("12");
    let err3 = gen(&programs(), dir.path(), 3).unwrap_err().to_string();
    assert_eq!(err3, err);
    assert!(!dir.path().join("tests/g1.in").exists());
    assert!(!dir.path().join("tests/g2.in").exists());
    assert!(!dir.path().join("tests/1.ans").exists());
}

#[test]
fn a_reference_that_fails_is_named_with_the_test() {
    let dir = package("7");
    let fake = programs().program("ref", |run| match number(run) {
        4 => Act::ok().cpu_ms(1500),
        n => Act::prints(format!("{}\n", 2 * n)),
    });
    let err = gen(&fake, dir.path(), 1).unwrap_err().to_string();
    assert!(
        err.contains("ref.py: on test g1: the reference solution exceeded its time limit (1 s)"),
        "{err}"
    );
    assert!(
        err.contains("hint: the reference solution must pass every test"),
        "{err}"
    );
}

#[test]
fn a_generator_out_of_time_is_an_error_with_the_limit_to_raise() {
    let dir = package("7");
    let fake = programs().always("gen", Act::ok().cpu_ms(5001));
    let err = gen(&fake, dir.path(), 1).unwrap_err().to_string();
    assert!(
        err.starts_with("test `g1`: gen.py 4: the generator exceeded its time limit (5 s)"),
        "{err}"
    );
    // Exactly at the limit is within it.
    let fake = programs().program("gen", |run| {
        Act::prints(format!("{}\n", run.args[0])).cpu_ms(5000)
    });
    assert!(gen(&fake, dir.path(), 1).is_ok());
}

/// Every file of `dir`'s `tests/` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("tests"))
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// No scratch folder is left in the package.
fn no_scratch(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".judge-gen-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_failure_anywhere_leaves_the_tests_as_they_were() {
    let dir = package("7");
    gen(&programs(), dir.path(), 1).unwrap();
    let before = snapshot(dir.path());
    assert_eq!(before.len(), 6, "{before:?}");
    // A new argument for g1 (a new input), then a failure at each step after it: a generator,
    // the validator, the reference on a later test. Nothing changes, with one job or three.
    let changed = |dir: &Path| {
        let toml = std::fs::read_to_string(dir.join("tests.toml")).unwrap();
        std::fs::write(
            dir.join("tests.toml"),
            toml.replacen("[\"4\"]", "[\"5\"]", 1),
        )
        .unwrap();
    };
    changed(dir.path());
    let failing: [(&str, FakeExecutor); 3] = [
        (
            "the generator",
            programs().program("gen", |run| match run.args[0].as_str() {
                "7" => Act::exits(1).stderr("boom\n"),
                a => Act::prints(format!("{a}\n")),
            }),
        ),
        (
            "the validator",
            programs().program("validator", |run| match number(run) {
                7 => Act::exits(1).stderr("no sevens\n"),
                _ => Act::ok(),
            }),
        ),
        (
            "the reference",
            programs().program("ref", |run| match number(run) {
                7 => Act::exits(1),
                n => Act::prints(format!("{}\n", 2 * n)),
            }),
        ),
    ];
    for (what, fake) in failing {
        for jobs in [1, 3] {
            // Without the cache every test runs again.
            let _ = std::fs::remove_file(dir.path().join(CACHE_FILE));
            assert!(gen(&fake, dir.path(), jobs).is_err(), "{what}");
            assert_eq!(snapshot(dir.path()), before, "{what}, {jobs} jobs");
            no_scratch(dir.path());
        }
    }
    // Then all succeed: the new input and its answer are in place, the rest as it was.
    let summary = gen(&programs(), dir.path(), 1).unwrap();
    assert_eq!(summary.inputs_written, ["g1"]);
    assert_eq!(summary.answers_written, ["g1"]);
    assert_eq!(
        (read(dir.path(), "g1.in"), read(dir.path(), "g1.ans")),
        ("5\n".into(), "10\n".into())
    );
    assert_eq!(read(dir.path(), "g2.ans"), "14\n");
    no_scratch(dir.path());
}

#[test]
fn a_generator_that_prints_nothing_is_an_error_naming_it_and_its_arguments() {
    let dir = package("7");
    gen(&programs(), dir.path(), 1).unwrap();
    let before = snapshot(dir.path());
    let fake = programs().program("gen", |run| match run.args[0].as_str() {
        "7" => Act::ok(),
        a => Act::prints(format!("{a}\n")),
    });
    // Its cache entry would spare it: make it run.
    std::fs::remove_file(dir.path().join(CACHE_FILE)).unwrap();
    let err = gen(&fake, dir.path(), 1).unwrap_err().to_string();
    assert_eq!(
        err,
        "test `g2`: gen.py 7: the generator printed nothing\n  hint: a generator prints the test's input on stdout; run it by hand with these arguments"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_scratch_folder_a_killed_gen_left_is_removed() {
    let dir = package("7");
    fake::file(dir.path(), ".judge-gen-old/tests/g1.in", "junk\n");
    gen(&programs(), dir.path(), 1).unwrap();
    no_scratch(dir.path());
    assert_eq!(read(dir.path(), "g1.in"), "4\n");
}
