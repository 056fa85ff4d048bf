//! Multi-pass tests (Kattis `multi-pass`) over the fake executor: a pass per `nextpass.in`, the
//! slowest pass's measures, a failing pass naming itself, and a validator asking for too many.

use crate::engine::JudgeOptions;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use judge_model::result::SubmissionReport;
use judge_model::Verdict;

/// A Kattis 2025-09 multi-pass package with one test (input `1`) and at most `passes` passes;
/// its output validator is the fake program `validator`.
fn judge(passes: u32, fake: &FakeExecutor) -> SubmissionReport {
    let pkg = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    fake::file(
        pkg.path(),
        "problem.yaml",
        &format!(
            "problem_format_version: 2025-09\ntype: multi-pass\nname: Passes\nlimits:\n  time_limit: 1\n  validation_passes: {passes}\n"
        ),
    );
    fake::file(pkg.path(), "data/secret/1.in", "1\n");
    fake::file(pkg.path(), "data/secret/1.ans", "3\n");
    fake::source(pkg.path(), "output_validator/validator.cpp", "validator");
    let mut engine = fake.engine(work.path());
    let options = JudgeOptions::default();
    crate::judging::judge_fake(&mut engine, pkg.path(), work.path(), options)
}

/// Prints its input plus one, taking 100 ms of CPU per unit of its input.
fn counts(run: &Run) -> Act {
    let n: u64 = run.input_text().trim().parse().unwrap();
    Act::prints(format!("{}\n", n + 1)).cpu_ms(100 * n)
}

/// Kattis: `validator input answer feedback < output`. Accepts an output one more than the
/// input; asks for another pass (the output as its input) until the output reaches the answer.
fn validator(run: &Run) -> Act {
    let input: u64 = run.arg_file(0).trim().parse().unwrap();
    let answer: u64 = run.arg_file(1).trim().parse().unwrap();
    let output: u64 = run.input_text().trim().parse().unwrap_or(0);
    if output != input + 1 {
        return Act::exits(43).file("judgemessage.txt", format!("{output} after {input}\n"));
    }
    let act = Act::exits(42);
    if output < answer {
        act.file("nextpass.in", format!("{output}\n"))
    } else {
        act
    }
}

#[test]
fn each_nextpass_in_is_a_pass_and_the_slowest_pass_is_the_tests_time() {
    let fake = FakeExecutor::new()
        .program("sol", counts)
        .program("validator", validator);
    let report = judge(5, &fake);
    assert_eq!(report.verdict, Verdict::AC, "{report:?}");
    // Inputs 1 and 2: the outputs 2 and 3, then the answer is reached.
    assert_eq!(report.tests[0].passes, Some(2));
    assert_eq!(report.tests[0].time.as_millis(), 200, "the slowest pass");
    let inputs: Vec<String> = fake.runs_of("sol").iter().map(|c| c.test.clone()).collect();
    assert_eq!(inputs, ["1", "pass-2"], "the second pass reads nextpass.in");
}

#[test]
fn a_multi_pass_test_keeps_what_its_last_pass_printed() {
    let fake = FakeExecutor::new()
        .program("sol", |run: &Run| {
            counts(run).stderr(format!("pass on {}", run.test))
        })
        .program("validator", validator);
    let report = judge(5, &fake);
    assert_eq!(report.verdict, Verdict::AC, "{report:?}");
    let test = &report.tests[0];
    assert_eq!(test.stdout.as_ref().unwrap().text, "3\n");
    assert_eq!(test.stderr.as_ref().unwrap().text, "pass on pass-2");
}

#[test]
fn a_pass_that_fails_decides_the_test_and_names_itself() {
    let fake = FakeExecutor::new()
        .program("sol", |run: &Run| {
            let n: u64 = run.input_text().trim().parse().unwrap();
            Act::prints(if n == 1 { "2\n" } else { "7\n" })
        })
        .program("validator", validator);
    let report = judge(5, &fake);
    assert_eq!(report.verdict, Verdict::WA, "{report:?}");
    assert_eq!(report.tests[0].message, "pass 2: 7 after 2");
    // A crash in a pass is that pass's runtime error.
    let fake = FakeExecutor::new()
        .program("sol", |run: &Run| {
            if run.input_text().trim() == "1" {
                counts(run)
            } else {
                Act::exits(3)
            }
        })
        .program("validator", validator);
    let report = judge(5, &fake);
    assert_eq!(report.verdict, Verdict::RE, "{report:?}");
    assert!(
        report.tests[0].message.starts_with("pass 2: "),
        "{}",
        report.tests[0].message
    );
}

#[test]
fn a_validator_asking_for_more_passes_than_allowed_is_a_judge_error() {
    let always_asks = |run: &Run| Act::exits(42).file("nextpass.in", run.input_text());
    let fake = FakeExecutor::new()
        .program("sol", counts)
        .program("validator", always_asks);
    let report = judge(2, &fake);
    assert_eq!(report.verdict, Verdict::JE, "{report:?}");
    assert!(
        report.tests[0]
            .message
            .contains("asks for pass 3 but the problem allows 2"),
        "{}",
        report.tests[0].message
    );
}
