//! Interactive tests judged through the engine over the fake executor's pairs: the precedence
//! of who ended first, a hung interactor, the transcript, the testlib protocol's checker and
//! multi-pass exchanges. Nothing runs and no root is needed; each test takes milliseconds.

use crate::engine::{Engine, JudgeOptions};
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use crate::package::Problem;
use judge_model::result::SubmissionReport;
use judge_model::transcript::From;
use judge_model::Verdict;
use std::path::Path;

/// A native interactive package with tests `1`..`n` (input `i`, answer `2i`), a time limit of
/// 1 s (a wall limit of 4 s), and the fake program `interactor` speaking `protocol`.
struct Case {
    pkg: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Case {
    fn new(tests: usize, protocol: &str) -> Case {
        let pkg = tempfile::tempdir().unwrap();
        let rows: Vec<(String, String, String)> = (1..=tests)
            .map(|i| (i.to_string(), format!("{i}\n"), format!("{}\n", 2 * i)))
            .collect();
        let refs: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        let extra =
            format!("[interactor]\nsource = \"interactor.cpp\"\nprotocol = \"{protocol}\"\n");
        fake::native(pkg.path(), 1.0, 64, &extra, &refs);
        fake::source(pkg.path(), "interactor.cpp", "interactor");
        Case {
            pkg,
            work: tempfile::tempdir().unwrap(),
        }
    }

    fn judge(&self, fake: &FakeExecutor, record: bool) -> SubmissionReport {
        let mut engine = fake.engine(self.work.path());
        engine.partner.record = record;
        judge_in(&mut engine, self.pkg.path(), self.work.path())
    }
}

/// Judges the fake program `sol` on the package in `pkg`, every test.
fn judge_in(engine: &mut Engine, pkg: &Path, work: &Path) -> SubmissionReport {
    let options = JudgeOptions {
        all: true,
        ..JudgeOptions::default()
    };
    crate::judging::judge_fake(engine, pkg, work, options)
}

/// A Kattis interactor that accepts when the solution wrote twice the test's input.
fn kattis_referee(run: &Run) -> Act {
    let n: u64 = run.arg_file(0).trim().parse().unwrap();
    if run.input_text().trim() == (2 * n).to_string() {
        Act::exits(42).wall_ms(20)
    } else {
        Act::exits(43)
            .wall_ms(20)
            .file("judgemessage.txt", "not twice the number\n")
    }
}

#[test]
fn a_pair_that_agrees_is_accepted_with_the_solutions_measures() {
    let case = Case::new(2, "kattis");
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::prints("").cpu_ms(300).memory_mib(7))
        .program("interactor", kattis_referee);
    // The fake interactor reads what the solution wrote: a solution writing nothing fails.
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::WA, "{report:?}");
    assert_eq!(report.tests[0].message, "interactor: not twice the number");

    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().cpu_ms(300).memory_mib(7))
        .program("interactor", |run| {
            // The solution's output is empty here; accept by the input alone.
            assert_eq!(run.args.len(), 3, "input, answer, feedback folder");
            Act::exits(42)
        });
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::AC, "{report:?}");
    assert_eq!(
        report.tests[0].time.as_millis(),
        300,
        "the solution's CPU time"
    );
    assert_eq!(report.tests[0].memory, 7 << 20, "the solution's memory");
    assert_eq!(fake.runs_of("interactor").len(), 2);
}

#[test]
fn an_interactor_rejecting_first_beats_the_solutions_later_time_limit() {
    let case = Case::new(1, "kattis");
    // The interactor rejects at 50 ms; the solution would sleep to its wall limit but is killed
    // for its partner (the interactor did not accept).
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().wall_ms(10_000))
        .program("interactor", |_| {
            Act::exits(43)
                .wall_ms(50)
                .file("judgemessage.txt", "wrong guess\n")
        });
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::WA, "{report:?}");
    assert_eq!(report.tests[0].message, "interactor: wrong guess");
    assert_eq!(
        report.tests[0].wall.as_millis(),
        50,
        "killed when the interactor ended"
    );
}

#[test]
fn a_solution_crashing_first_gets_its_runtime_error_not_the_interactors_complaint() {
    let case = Case::new(1, "kattis");
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().signal(libc::SIGSEGV).wall_ms(30))
        .program("interactor", |_| {
            Act::exits(43)
                .wall_ms(80)
                .file("judgemessage.txt", "no answer\n")
        });
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::RE, "{report:?}");
    assert!(
        report.tests[0].message.contains("SIGSEGV"),
        "{}",
        report.tests[0].message
    );
}

#[test]
fn an_interactive_test_keeps_the_solutions_stderr_not_its_output() {
    let case = Case::new(1, "kattis");
    let fake = FakeExecutor::new()
        .program("sol", |_| {
            Act::prints("2\n").stderr("thinking about 1\n").wall_ms(10)
        })
        .program("interactor", kattis_referee);
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::AC, "{report:?}");
    let test = &report.tests[0];
    assert_eq!(test.stderr.as_ref().unwrap().text, "thinking about 1\n");
    assert_eq!(test.stdout, None, "its output is the exchange");
}

#[test]
fn a_solution_over_its_cpu_limit_first_is_tle() {
    let case = Case::new(1, "kattis");
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().cpu_ms(1500))
        .program("interactor", |_| Act::exits(42).wall_ms(3000));
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::TLE, "{report:?}");
}

#[test]
fn an_interactor_that_fails_is_a_judge_error_never_accepted() {
    let case = Case::new(1, "kattis");
    for act in [
        Act::exits(1),
        Act::ok().signal(libc::SIGABRT),
        Act::exits(42).cpu_ms(100_000),
    ] {
        let fake = FakeExecutor::new()
            .program("sol", |_| Act::ok().wall_ms(5))
            .always("interactor", act.wall_ms(10));
        let report = case.judge(&fake, false);
        assert_eq!(report.verdict, Verdict::JE, "{report:?}");
    }
}

#[test]
fn a_solution_waiting_on_a_computing_interactor_is_the_interactors_fault() {
    let case = Case::new(1, "kattis");
    // The solution waits to its wall limit (4 s) using no CPU; the interactor computes all along.
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().cpu_ms(1).wall_ms(60_000))
        .program("interactor", |_| {
            Act::exits(42).cpu_ms(3_900).wall_ms(60_000)
        });
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::JE, "{report:?}");
    assert!(
        report.tests[0]
            .message
            .starts_with("the interactor computed for"),
        "{}",
        report.tests[0].message
    );
    // A waiting interactor (no CPU) leaves the solution its TLE, with the hint.
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok().cpu_ms(1).wall_ms(60_000))
        .program("interactor", |_| Act::exits(42).cpu_ms(2).wall_ms(60_000));
    let report = case.judge(&fake, false);
    assert_eq!(report.verdict, Verdict::TLE, "{report:?}");
    assert!(
        report.tests[0]
            .message
            .contains("both waiting for each other"),
        "{}",
        report.tests[0].message
    );
}

#[test]
fn the_transcript_holds_both_sides_only_when_asked() {
    let case = Case::new(1, "kattis");
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::prints("guess 2\n").wall_ms(5))
        .program("interactor", |_| {
            Act::exits(43).stdout("lower\n").wall_ms(10)
        });
    let report = case.judge(&fake, true);
    let transcript = report.tests[0].transcript.as_ref().expect("recorded");
    assert_eq!(
        transcript.parts,
        [
            (From::Solution, "guess 2\n".to_string()),
            (From::Judge, "lower\n".to_string())
        ]
    );
    let report = case.judge(&fake, false);
    assert!(report.tests[0].transcript.is_none(), "not asked for");
}

#[test]
fn a_testlib_interactor_accepting_leaves_the_verdict_to_the_checker_on_tout() {
    let case = Case::new(1, "testlib");
    let interactor = |tout: &'static str| {
        move |run: &Run| {
            // testlib: interactor input tout answer.
            assert_eq!(run.args.len(), 3, "{:?}", run.args);
            Act::exits(0).file(&run.args[1], tout)
        }
    };
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok())
        .program("interactor", interactor("2\n"));
    assert_eq!(case.judge(&fake, false).verdict, Verdict::AC);
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok())
        .program("interactor", interactor("3\n"));
    assert_eq!(case.judge(&fake, false).verdict, Verdict::WA);
    // Exit 1 is the interactor's WA; 3 is its failure: a judge error.
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok())
        .always("interactor", Act::exits(1).stderr("wrong\n"));
    assert_eq!(case.judge(&fake, false).verdict, Verdict::WA);
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok())
        .always("interactor", Act::exits(3).stderr("broken\n"));
    assert_eq!(case.judge(&fake, false).verdict, Verdict::JE);
}

#[test]
fn an_interactor_that_crashes_is_a_judge_error_naming_it_whatever_its_exit_code() {
    let traceback = "Traceback (most recent call last):\n  File \"interactor.py\", line 2, in <module>\n    raise RuntimeError(\"x\")\nRuntimeError: x\n";
    let panic = "thread 'main' panicked at interactor.rs:2:5:\nx\n";
    // Exit 1 is a testlib interactor's WA; 43 a Kattis one's.
    for (protocol, code, stderr) in [
        ("testlib", 1, traceback),
        ("kattis", 43, traceback),
        ("testlib", 101, panic),
    ] {
        let case = Case::new(1, protocol);
        let fake = FakeExecutor::new()
            .program("sol", |_| Act::ok().wall_ms(5))
            .always("interactor", Act::exits(code).stderr(stderr).wall_ms(10));
        let report = case.judge(&fake, false);
        assert_eq!(report.verdict, Verdict::JE, "{protocol}: {report:?}");
        let message = &report.tests[0].message;
        assert!(
            message.starts_with(&format!(
                "interactor failure: the interactor `interactor.cpp` crashed (exit code {code}): "
            )),
            "{message}"
        );
        assert!(message.ends_with("x"), "{message}");
    }
}

/// A Kattis 2025-09 interactive multi-pass package with one test and at most `passes` passes;
/// its interactor is the fake program `interactor`.
fn multipass(passes: u32) -> (tempfile::TempDir, tempfile::TempDir) {
    let pkg = tempfile::tempdir().unwrap();
    fake::file(
        pkg.path(),
        "problem.yaml",
        &format!(
            "problem_format_version: 2025-09\ntype: [interactive, multi-pass]\nname: Passes\nlimits:\n  time_limit: 1\n  validation_passes: {passes}\n"
        ),
    );
    fake::file(pkg.path(), "data/secret/1.in", "1\n");
    fake::file(pkg.path(), "data/secret/1.ans", "2\n");
    fake::source(pkg.path(), "output_validator/interactor.cpp", "interactor");
    (pkg, tempfile::tempdir().unwrap())
}

/// An interactor that asks for pass n+1 (writing `nextpass.in` holding n+1) while its input is
/// below `last`, and accepts.
fn asks_until(last: u32) -> impl Fn(&Run) -> Act + Send + Sync {
    move |run| {
        let n: u32 = run.arg_file(0).trim().parse().unwrap();
        let act = Act::exits(42).wall_ms(5);
        if n < last {
            act.file("nextpass.in", format!("{}\n", n + 1))
        } else {
            act
        }
    }
}

#[test]
fn multi_pass_runs_a_pass_for_each_nextpass_in_and_keeps_the_slowest() {
    let (pkg, work) = multipass(3);
    // The passes take 100, 300 and 200 ms of CPU: the test's time is the slowest pass's.
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let fake = FakeExecutor::new()
        .program("sol", move |_| {
            let ms = [100, 300, 200][calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 3];
            Act::ok().cpu_ms(ms)
        })
        .program("interactor", asks_until(3));
    let mut engine = fake.engine(work.path());
    let report = judge_in(&mut engine, pkg.path(), work.path());
    assert_eq!(report.verdict, Verdict::AC, "{report:?}");
    assert_eq!(report.tests[0].passes, Some(3));
    assert_eq!(report.tests[0].time.as_millis(), 300, "the slowest pass");
    assert_eq!(
        fake.runs_of("sol").len(),
        3,
        "the solution starts afresh each pass"
    );
    // Each pass's input is the previous pass's nextpass.in (the interactor counts 1, 2, 3; a
    // pass that got the same input again would ask for a fourth pass: a judge error).
    assert_eq!(fake.runs_of("interactor").len(), 3);
}

#[test]
fn an_interactor_asking_for_more_passes_than_allowed_is_a_judge_error() {
    let (pkg, work) = multipass(2);
    let fake = FakeExecutor::new()
        .program("sol", |_| Act::ok())
        .program("interactor", asks_until(5));
    let mut engine = fake.engine(work.path());
    let report = judge_in(&mut engine, pkg.path(), work.path());
    assert_eq!(report.verdict, Verdict::JE, "{report:?}");
    assert!(
        report.tests[0]
            .message
            .contains("asks for pass 3 but the problem allows 2"),
        "{}",
        report.tests[0].message
    );
}

#[test]
fn a_pass_that_fails_decides_the_test_and_names_its_pass() {
    let (pkg, work) = multipass(3);
    let fake =
        FakeExecutor::new()
            .program("sol", |_| Act::ok())
            .program("interactor", |run: &Run| {
                let n: u32 = run.arg_file(0).trim().parse().unwrap();
                if n == 1 {
                    Act::exits(42).file("nextpass.in", "2\n")
                } else {
                    Act::exits(43).file("judgemessage.txt", "forgot the word\n")
                }
            });
    let mut engine = fake.engine(work.path());
    let report = judge_in(&mut engine, pkg.path(), work.path());
    assert_eq!(report.verdict, Verdict::WA, "{report:?}");
    assert_eq!(report.tests[0].passes, Some(2));
    assert_eq!(
        report.tests[0].message,
        "pass 2: interactor: forgot the word"
    );
}

/// A Kattis 2025-09 interactive package whose sample has the exchange `interaction`.
fn with_sample(interaction: &str) -> (tempfile::TempDir, tempfile::TempDir) {
    let pkg = tempfile::tempdir().unwrap();
    fake::file(
        pkg.path(),
        "problem.yaml",
        "problem_format_version: 2025-09\ntype: interactive\nname: Sample\n",
    );
    fake::file(pkg.path(), "data/sample/1.in", "5\n");
    fake::file(pkg.path(), "data/sample/1.ans", "5\n");
    fake::file(pkg.path(), "data/sample/1.interaction", interaction);
    fake::source(pkg.path(), "output_validator/interactor.cpp", "interactor");
    (pkg, tempfile::tempdir().unwrap())
}

/// Answers each guess it hears against the secret in its input, and accepts a right guess.
fn guessing(run: &Run) -> Act {
    let secret: i64 = run.arg_file(0).trim().parse().unwrap();
    let mut said = String::new();
    for guess in run.input_text().lines() {
        let g: i64 = guess.trim().parse().unwrap_or(i64::MIN);
        said.push_str(match g.cmp(&secret) {
            std::cmp::Ordering::Less => "higher\n",
            std::cmp::Ordering::Greater => "lower\n",
            std::cmp::Ordering::Equal => return Act::exits(42).stdout(said + "correct\n"),
        });
    }
    Act::exits(43).stdout(said)
}

#[test]
fn verify_plays_a_sample_exchange_to_the_interactor_and_names_the_line_that_differs() {
    let check = |interaction: &str| {
        let (pkg, work) = with_sample(interaction);
        let fake = FakeExecutor::new().program("interactor", guessing);
        let mut engine = fake.engine(work.path());
        let problem = Problem::load(pkg.path()).unwrap();
        let checker = engine.prepare_checker(&problem).unwrap();
        let found = super::check_samples(&mut engine, &problem, &checker);
        (found, fake.runs_of("interactor").len())
    };
    let (found, runs) = check(">3\n<higher\n>5\n<correct\n");
    assert_eq!((found.as_slice(), runs), (&[][..], 1), "{found:?}");
    let (found, _) = check(">3\n<lower\n>5\n<correct\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains(":2: the interactor said `higher` where the sample says `lower`"),
        "{found:?}"
    );
    // An exchange the interactor does not accept.
    let (found, _) = check(">3\n<higher\n");
    assert!(
        found[0].contains("the interactor does not accept the sample exchange"),
        "{found:?}"
    );
}
