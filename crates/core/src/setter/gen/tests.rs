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
    // The first failing test in order is the error, with several jobs too; the tests before it
    // are written, nothing after.
    let dir = package("12");
    let err3 = gen(&programs(), dir.path(), 3).unwrap_err().to_string();
    assert_eq!(err3, err);
    assert_eq!(read(dir.path(), "g1.in"), "4\n");
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
