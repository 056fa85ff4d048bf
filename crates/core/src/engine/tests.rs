//! The engine's decisions over the fake executor (`crate::executor::fake`): verdict precedence,
//! stopping at the first failure, the limits' boundaries, the checkers' protocols and the
//! re-judge rule. Nothing runs; each test takes a few milliseconds.

use super::*;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use crate::jobs::Gate;
use judge_model::event::Collect;

/// A package with tests `1`..`n` (input `i`, answer `2i`), a time limit of 1 s and 64 MiB.
struct Case {
    pkg: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Case {
    fn new(tests: usize, extra: &str) -> Case {
        let pkg = tempfile::tempdir().unwrap();
        let inputs: Vec<(String, String, String)> = (1..=tests)
            .map(|i| (i.to_string(), format!("{i}\n"), format!("{}\n", 2 * i)))
            .collect();
        let refs: Vec<(&str, &str, &str)> = inputs
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
            .collect();
        fake::native(pkg.path(), 1.0, 64, extra, &refs);
        Case {
            pkg,
            work: tempfile::tempdir().unwrap(),
        }
    }

    /// Adds a line to `[limits]` of problem.toml.
    fn limit(&self, line: &str) {
        let path = self.pkg.path().join("problem.toml");
        let toml = std::fs::read_to_string(&path).unwrap();
        std::fs::write(path, format!("{toml}{line}\n")).unwrap();
    }

    fn problem(&self) -> Problem {
        Problem::load(self.pkg.path()).unwrap()
    }

    /// Judges the program `name` (registered in `fake`) with `options`.
    fn judge(
        &self,
        fake: &FakeExecutor,
        name: &str,
        options: JudgeOptions,
    ) -> (SubmissionReport, Vec<Event>) {
        let mut engine = fake.engine(self.work.path());
        self.judge_with(&mut engine, name, options)
    }

    fn judge_with(
        &self,
        engine: &mut Engine,
        name: &str,
        options: JudgeOptions,
    ) -> (SubmissionReport, Vec<Event>) {
        let problem = self.problem();
        let source = fake::source(self.work.path(), &format!("src/{name}.cpp"), name);
        let prepared = crate::judging::Prepared::new(engine, problem).unwrap();
        let mut events = Collect::default();
        let report =
            crate::judging::judge_one(&mut [engine], &prepared, &source, options, &mut events)
                .unwrap();
        (report, events.0)
    }
}

/// Doubles its input: the right answer of every test of [`Case`].
fn doubles(run: &Run) -> Act {
    let n: u64 = run.input_text().trim().parse().unwrap();
    Act::prints(format!("{}\n", 2 * n))
}

fn verdicts(report: &SubmissionReport) -> Vec<Verdict> {
    report.tests.iter().map(|t| t.verdict).collect()
}

fn all() -> JudgeOptions {
    JudgeOptions {
        all: true,
        ..JudgeOptions::default()
    }
}

#[test]
fn a_right_answer_on_every_test_is_accepted_with_its_measures() {
    let case = Case::new(3, "");
    let fake = FakeExecutor::new().program("sol", |run| doubles(run).cpu_ms(250).memory_mib(5));
    let (report, events) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::AC);
    assert_eq!(verdicts(&report), [Verdict::AC; 3]);
    assert_eq!(report.tests[0].time, Duration::from_millis(250));
    assert_eq!(report.tests[0].memory, 5 << 20);
    assert!(report.compile.ok);
    // One build, then one run per test, in order.
    let tests: Vec<String> = fake.runs_of("sol").into_iter().map(|c| c.test).collect();
    assert_eq!(tests, ["1", "2", "3"]);
    let finished = events
        .iter()
        .filter(|e| matches!(e, Event::TestFinished { .. }))
        .count();
    assert_eq!(finished, 3);
    assert!(matches!(
        events.last(),
        Some(Event::SolutionFinished {
            verdict: Verdict::AC,
            ..
        })
    ));
}

#[test]
fn judging_stops_at_the_first_failure() {
    let case = Case::new(4, "");
    let fake = FakeExecutor::new().program("sol", |run| match run.test.as_str() {
        "2" => Act::prints("5\n"),
        _ => doubles(run),
    });
    let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::WA);
    assert_eq!(verdicts(&report), [Verdict::AC, Verdict::WA]);
    assert_eq!(fake.runs_of("sol").len(), 2, "tests 3 and 4 are not run");
    let failure = report.first_failure().unwrap();
    assert_eq!(failure.name, "2");
    let mismatch = failure.mismatch.as_ref().expect("the difference");
    assert_eq!(
        (mismatch.expected.as_str(), mismatch.found.as_str()),
        ("4", "5")
    );
}

#[test]
fn with_all_every_test_runs_and_the_first_failure_is_the_verdict() {
    let case = Case::new(4, "");
    let fake = FakeExecutor::new().program("sol", |run| match run.test.as_str() {
        "2" => Act::prints("5\n"),
        "3" => Act::ok().cpu_ms(3000),
        _ => doubles(run),
    });
    let (report, _) = case.judge(&fake, "sol", all());
    assert_eq!(report.verdict, Verdict::WA);
    assert_eq!(
        verdicts(&report),
        [Verdict::AC, Verdict::WA, Verdict::TLE, Verdict::AC]
    );
}

#[test]
fn a_run_over_several_limits_gets_tle_then_mle_then_ole_then_re() {
    let case = Case::new(1, "");
    case.limit("output = 1");
    let over = |act: Act| {
        let fake = FakeExecutor::new().always("sol", act);
        case.judge(&fake, "sol", JudgeOptions::default()).0.verdict
    };
    let crash = Act::exits(1).stdout(vec![b'x'; (1 << 20) + 1]);
    assert_eq!(over(crash.clone()), Verdict::OLE);
    assert_eq!(over(crash.clone().memory_mib(65)), Verdict::MLE);
    assert_eq!(
        over(crash.clone().memory_mib(65).cpu_ms(1001)),
        Verdict::TLE
    );
    assert_eq!(over(crash.memory_mib(65).wall_ms(60_000)), Verdict::TLE);
    assert_eq!(over(Act::exits(1).stdout("2\n")), Verdict::RE);
}

#[test]
fn a_runtime_error_says_how_the_program_ended_and_its_last_words() {
    let case = Case::new(1, "");
    let fake = FakeExecutor::new()
        .always("exit3", Act::exits(3).stderr("reading\nboom: bad index\n\n"))
        .always("segv", Act::ok().signal(libc::SIGSEGV))
        .always(
            "panic",
            Act::exits(101).stderr(
                "thread 'main' panicked at main.rs:1:1:\nindex out of bounds\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
            ),
        );
    let message = |name: &str| {
        let (report, _) = case.judge(&fake, name, JudgeOptions::default());
        assert_eq!(report.verdict, Verdict::RE, "{name}");
        report.tests[0].message.clone()
    };
    assert_eq!(message("exit3"), "exit code 3; stderr: boom: bad index");
    assert_eq!(message("segv"), "killed by signal 11 (SIGSEGV)");
    assert_eq!(
        message("panic"),
        "exit code 101; stderr: index out of bounds"
    );
}

#[test]
fn each_test_keeps_what_the_program_printed_capped() {
    let case = Case::new(3, "");
    let fake = FakeExecutor::new().program("sol", |run| match run.test.as_str() {
        "1" => doubles(run).stderr("debug: n=1\n"),
        "2" => Act::prints("5\n").stderr("debug: n=2\n"),
        _ => Act::exits(1),
    });
    let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(verdicts(&report), [Verdict::AC, Verdict::WA]);
    let kept = |i: usize| {
        let t = &report.tests[i];
        (t.stdout.clone().unwrap(), t.stderr.clone().unwrap())
    };
    let text = |s: &str| Captured {
        text: s.into(),
        truncated: false,
    };
    assert_eq!(kept(0), (text("2\n"), text("debug: n=1\n")));
    assert_eq!(kept(1), (text("5\n"), text("debug: n=2\n")));

    // Over the cap: stdout keeps its start, stderr its end (from a line's start).
    let long_out = "o".repeat(Captured::CAP + 10);
    let mut long_err = String::new();
    for i in 0..1000 {
        long_err.push_str(&format!("line {i}\n"));
    }
    long_err.push_str("Error: the end\n");
    let fake =
        FakeExecutor::new().always("crash", Act::exits(1).stdout(&long_out).stderr(&long_err));
    let (report, _) = case.judge(&fake, "crash", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::RE);
    let (out, err) = (
        report.tests[0].stdout.clone().unwrap(),
        report.tests[0].stderr.clone().unwrap(),
    );
    assert!(out.truncated && err.truncated);
    assert_eq!(out.text, long_out[..Captured::CAP]);
    assert!(err.text.len() <= Captured::CAP, "{}", err.text.len());
    assert!(err.text.starts_with("line "), "{}", &err.text[..20]);
    assert_eq!(err.last_lines(2), ["line 999", "Error: the end"]);
}

#[test]
fn a_cut_in_the_middle_of_a_character_leaves_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out");
    std::fs::write(&path, "aé").unwrap();
    let kept = capture_head(&path, 2);
    assert_eq!((kept.text.as_str(), kept.truncated), ("a", true));
    let kept = capture_head(&path, 3);
    assert_eq!((kept.text.as_str(), kept.truncated), ("aé", false));
    let missing = capture_head(&dir.path().join("none"), 2);
    assert_eq!(missing, Captured::default());
}

#[test]
fn the_cpu_limit_is_met_exactly_at_the_limit_and_missed_just_above() {
    let case = Case::new(1, "");
    let verdict = |ms: u64| {
        let fake = FakeExecutor::new().program("sol", move |run| doubles(run).cpu_ms(ms));
        let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
        (report.verdict, report.tests[0].message.clone())
    };
    assert_eq!(verdict(999).0, Verdict::AC);
    assert_eq!(verdict(1000).0, Verdict::AC);
    let (v, message) = verdict(1001);
    assert_eq!(v, Verdict::TLE);
    assert_eq!(message, "CPU time 1.001 s is over the limit");
}

#[test]
fn wall_time_counts_against_its_own_limit_not_the_cpu_limit() {
    // The native default wall limit is 3 x time_limit + 1 s: 4 s here.
    let case = Case::new(1, "");
    let verdict = |cpu: u64, wall: u64| {
        let fake =
            FakeExecutor::new().program("sol", move |run| doubles(run).cpu_ms(cpu).wall_ms(wall));
        let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
        (report.verdict, report.tests[0].message.clone())
    };
    // Waiting 3.9 s on a busy machine with 0.5 s of CPU is within the limits.
    assert_eq!(verdict(500, 3900).0, Verdict::AC);
    let (v, message) = verdict(20, 10_000);
    assert_eq!(v, Verdict::TLE);
    assert!(
        message.starts_with("killed after 4.0 s of wall-clock time (used 0.020 s of CPU"),
        "{message}"
    );
    // A wall limit of its own in problem.toml.
    let case = Case::new(1, "");
    case.limit("wall_time_limit = 1.5");
    let fake = FakeExecutor::new().program("sol", |run| doubles(run).cpu_ms(500).wall_ms(1600));
    assert_eq!(
        case.judge(&fake, "sol", JudgeOptions::default()).0.verdict,
        Verdict::TLE
    );
}

#[test]
fn memory_up_to_the_limit_is_accepted_and_above_is_mle() {
    let case = Case::new(1, "");
    let verdict = |mib: u64| {
        let fake = FakeExecutor::new().program("sol", move |run| doubles(run).memory_mib(mib));
        case.judge(&fake, "sol", JudgeOptions::default()).0
    };
    assert_eq!(verdict(64).verdict, Verdict::AC);
    let over = verdict(65);
    assert_eq!(over.verdict, Verdict::MLE);
    assert_eq!(
        over.tests[0].message,
        "hit the memory limit of 64.0 MiB (peak 64.0 MiB)"
    );
}

#[test]
fn a_compilation_error_runs_no_test() {
    let case = Case::new(2, "");
    let fake = FakeExecutor::new().compile_error("sol", "expected `;` before `}`");
    let (report, events) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::CE);
    assert!(report.tests.is_empty());
    assert!(
        report.compile.message.contains("expected `;` before `}`"),
        "{}",
        report.compile.message
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::TestStarted { .. })));
}

#[test]
fn a_failing_executor_is_a_judge_error_never_a_verdict_against_the_solution() {
    let case = Case::new(2, "");
    let fake = FakeExecutor::new().program("sol", |run| match run.test.as_str() {
        "1" => Act::executor_fails("worker gone"),
        _ => doubles(run),
    });
    let mut engine = fake.engine(case.work.path());
    let (report, _) = case.judge_with(&mut engine, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::JE);
    assert_eq!(
        report.tests[0].message,
        "could not run the solution: worker gone"
    );
    // As one of several jobs, this engine takes no more work (`jobs::spread`).
    assert!(engine.sandbox_failed());
}

#[test]
fn a_missing_test_file_is_a_judge_error() {
    let case = Case::new(2, "");
    let problem = case.problem();
    std::fs::remove_file(&problem.tests[1].answer).unwrap();
    let fake = FakeExecutor::new().program("sol", doubles);
    let mut engine = fake.engine(case.work.path());
    let checker = engine.prepare_checker(&problem).unwrap();
    let source = fake::source(case.work.path(), "sol.cpp", "sol");
    let report = engine
        .judge(&problem, &checker, &source, all(), &mut Collect::default())
        .unwrap();
    assert_eq!(verdicts(&report), [Verdict::AC, Verdict::JE]);
    assert!(
        report.tests[1].message.starts_with("missing test file "),
        "{}",
        report.tests[1].message
    );
    assert_eq!(fake.runs_of("sol").len(), 1);
}

#[test]
fn built_in_checkers_judge_in_process() {
    let float = "[checker]\nkind = \"float\"\nfloat_absolute_tolerance = 0.01\n";
    let case = Case::new(1, float);
    let fake = FakeExecutor::new()
        .always("close", Act::prints("2.005\n"))
        .always("far", Act::prints("2.1\n"));
    assert_eq!(
        case.judge(&fake, "close", JudgeOptions::default())
            .0
            .verdict,
        Verdict::AC
    );
    assert_eq!(
        case.judge(&fake, "far", JudgeOptions::default()).0.verdict,
        Verdict::WA
    );
    // Only the solutions ran: the checker is the judge's own code.
    assert!(fake.calls().iter().all(|c| c.program != "checker"));
}

/// A package whose custom checker (protocol `protocol`) is the fake program `checker`.
fn custom(protocol: &str) -> Case {
    let case = Case::new(
        1,
        &format!(
            "[checker]\nkind = \"custom\"\nsource = \"checker.cpp\"\nprotocol = \"{protocol}\"\n"
        ),
    );
    fake::source(case.pkg.path(), "checker.cpp", "checker");
    case
}

/// The verdict and message of a correct solution under a checker that does `act`.
fn checked(case: &Case, act: impl Fn(&Run) -> Act + Send + Sync + 'static) -> (Verdict, String) {
    let fake = FakeExecutor::new()
        .program("sol", doubles)
        .program("checker", act);
    let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
    (report.verdict, report.tests[0].message.clone())
}

#[test]
fn a_testlib_checker_gets_input_output_answer_and_its_exit_code_is_the_verdict() {
    let case = custom("testlib");
    let (v, _) = checked(&case, |run| {
        // testlib's order: input, the contestant's output, the answer.
        let files = (run.arg_file(0), run.arg_file(1), run.arg_file(2));
        assert_eq!(files, ("1\n".into(), "2\n".into(), "2\n".into()));
        assert_eq!(run.args.len(), 3);
        Act::ok().stderr("ok 1 number\n")
    });
    assert_eq!(v, Verdict::AC);
    let (v, message) = checked(&case, |_| {
        Act::exits(1).stderr("\nwrong answer expected 3, found 2\n")
    });
    assert_eq!(
        (v, message.as_str()),
        (Verdict::WA, "wrong answer expected 3, found 2")
    );
    assert_eq!(checked(&case, |_| Act::exits(2)).0, Verdict::PE);
}

#[test]
fn a_testlib_checker_that_fails_is_a_judge_error_never_accepted() {
    let case = custom("testlib");
    let (v, message) = checked(&case, |_| {
        Act::exits(3).stderr("FAIL answer file is empty\n")
    });
    assert_eq!(v, Verdict::JE);
    assert_eq!(
        message,
        "checker failure (exit code 3): the checker reports a failure: FAIL answer file is empty"
    );
    let (v, message) = checked(&case, |_| Act::exits(4));
    assert_eq!(v, Verdict::JE);
    assert!(
        message.contains("exited with code 4 (testlib codes are 0-3)"),
        "{message}"
    );
    let (v, message) = checked(&case, |_| Act::ok().signal(libc::SIGABRT));
    assert_eq!(v, Verdict::JE);
    assert!(
        message.contains("killed by signal 6 (SIGABRT)"),
        "{message}"
    );
    // Over its own limits (30 s of CPU): a judge error too, whatever it would have said.
    let (v, message) = checked(&case, |_| Act::ok().cpu_ms(31_000));
    assert_eq!(
        (v, message.as_str()),
        (Verdict::JE, "the checker exceeded its limits")
    );
}

/// A crash in each language's words, with the exit code its runtime gives it.
const CRASHES: [(&str, i32, &str, &str); 4] = [
    (
        "Python",
        1,
        "Traceback (most recent call last):\n  File \"checker.py\", line 4, in <module>\n    raise RuntimeError(\"x\")\nRuntimeError: x\n",
        "RuntimeError: x",
    ),
    (
        "Java",
        1,
        "Exception in thread \"main\" java.lang.IllegalStateException: x\n\tat Check.main(Check.java:9)\n",
        "Exception in thread \"main\" java.lang.IllegalStateException: x",
    ),
    (
        "Rust",
        101,
        "thread 'main' panicked at checker.rs:3:5:\nx\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        "panic: x",
    ),
    (
        "C++",
        1,
        "terminate called after throwing an instance of 'std::runtime_error'\n  what():  x\n",
        "terminate called after throwing an instance of 'std::runtime_error': x",
    ),
];

#[test]
fn a_testlib_checker_that_crashes_is_a_judge_error_naming_it_whatever_its_exit_code() {
    let case = custom("testlib");
    for (language, code, stderr, exception) in CRASHES {
        // Exit 1 is testlib's WA, but a traceback says the checker never judged the output.
        let (v, message) = checked(&case, move |_| Act::exits(code).stderr(stderr));
        assert_eq!(v, Verdict::JE, "{language}: {message}");
        let head = format!(
            "checker failure: the checker `checker.cpp` crashed (exit code {code}): {exception}"
        );
        assert!(message.starts_with(&head), "{language}: {message}");
        // Its last lines of stderr follow, without Rust's hint.
        let last = stderr.lines().rfind(|l| !l.starts_with("note: ")).unwrap();
        assert!(message.ends_with(last.trim_end()), "{language}: {message}");
        assert!(!message.contains("RUST_BACKTRACE"), "{message}");
    }
    // A C++ abort: the signal and the report of the exception.
    let (v, message) = checked(&case, |_| {
        Act::ok().signal(libc::SIGABRT).stderr(CRASHES[3].2)
    });
    assert_eq!(v, Verdict::JE);
    assert!(
        message.starts_with("checker failure: the checker `checker.cpp` crashed (killed by signal 6 (SIGABRT)): terminate called"),
        "{message}"
    );
    // A WA that quotes such words inside its message stays a WA.
    let (v, _) = checked(&case, |_| {
        Act::exits(1).stderr("wrong answer found `Traceback (most recent call last):`\n")
    });
    assert_eq!(v, Verdict::WA);
}

#[test]
fn a_kattis_validator_that_crashes_is_a_judge_error_naming_it() {
    let case = custom("kattis");
    for (language, code, stderr, exception) in CRASHES {
        // Even an exit of 43 (a handler that caught the exception and rejected) is a crash.
        for code in [code, 43] {
            let (v, message) = checked(&case, move |_| Act::exits(code).stderr(stderr));
            assert_eq!(v, Verdict::JE, "{language}: {message}");
            let head = format!(
                "output validator failure: the output validator `checker.cpp` crashed (exit code {code}): {exception}"
            );
            assert!(message.starts_with(&head), "{language}: {message}");
        }
    }
}

#[test]
fn a_kattis_validator_reads_the_output_on_stdin_and_answers_42_or_43() {
    let case = custom("kattis");
    let (v, _) = checked(&case, |run| {
        // Kattis' order: input, answer, the feedback folder; the output on stdin.
        assert_eq!(
            (run.arg_file(0), run.arg_file(1)),
            ("1\n".into(), "2\n".into())
        );
        assert!(run.args[2].ends_with('/'), "{:?}", run.args);
        assert_eq!(run.input_text(), "2\n");
        Act::exits(42)
    });
    assert_eq!(v, Verdict::AC);
    // The message comes from judgemessage.txt in the feedback folder, else from stderr.
    let (v, message) = checked(&case, |_| {
        Act::exits(43)
            .stderr("stderr says\n")
            .file("judgemessage.txt", "\nthe sum is wrong\nmore\n")
    });
    assert_eq!((v, message.as_str()), (Verdict::WA, "the sum is wrong"));
    let (v, message) = checked(&case, |_| Act::exits(43).stderr("only stderr\n"));
    assert_eq!((v, message.as_str()), (Verdict::WA, "only stderr"));
    // On stderr progress comes first and the reason last; some validators use stdout only.
    let (_, message) = checked(&case, |_| {
        Act::exits(43).stderr("placing at 2,3\n1:1: expected EOF\n\n")
    });
    assert_eq!(message, "1:1: expected EOF");
    let (_, message) = checked(&case, |_| {
        Act::exits(43).stdout("read 3 numbers\ntoo big\n")
    });
    assert_eq!(message, "too big");
}

#[test]
fn a_kattis_validator_exiting_other_than_42_or_43_is_a_judge_error() {
    let case = custom("kattis");
    for code in [0, 1, 2, 3] {
        let (v, message) = checked(&case, move |_| Act::exits(code));
        assert_eq!(v, Verdict::JE, "exit {code}");
        assert!(message.contains("(42 accepts, 43 rejects)"), "{message}");
    }
    let (v, message) = checked(&case, |_| Act::ok().signal(libc::SIGKILL));
    assert_eq!(v, Verdict::JE);
    assert!(
        message.contains("the output validator was killed"),
        "{message}"
    );
    // Over its own limits, even with 42: never accepted.
    let (v, message) = checked(&case, |_| Act::exits(42).memory_mib(4096));
    assert_eq!(
        (v, message.as_str()),
        (Verdict::JE, "the output validator exceeded its limits")
    );
}

#[test]
fn the_checker_does_not_run_after_a_failed_run() {
    let case = custom("testlib");
    let fake = FakeExecutor::new()
        .always("sol", Act::exits(1))
        .always("checker", Act::ok());
    let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::RE);
    assert!(fake.runs_of("checker").is_empty());
}

#[test]
fn a_checker_that_does_not_compile_is_an_error_naming_it() {
    let case = custom("testlib");
    let fake = FakeExecutor::new().compile_error("checker", "no main");
    let mut engine = fake.engine(case.work.path());
    let err = match engine.prepare_checker(&case.problem()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a checker that does not compile was prepared"),
    };
    assert!(err.starts_with("the custom checker "), "{err}");
    assert!(err.contains("checker.cpp does not compile"), "{err}");
    assert!(err.contains("no main"), "{err}");
}

/// 1.2 s of CPU beside another job, 0.8 s alone: TLE or AC for a 1 s limit depending on the load.
fn load_sensitive(run: &Run) -> Act {
    doubles(run).cpu_ms(if run.alone { 800 } else { 1200 })
}

/// An engine that is one of several jobs, whose every run shares the CPUs unless it holds the
/// gate.
fn crowded_engine(case: &Case, fake: FakeExecutor) -> (Engine, FakeExecutor) {
    let gate = Arc::new(Gate::default());
    let fake = fake.crowded(gate.clone());
    let mut engine = fake.engine(case.work.path());
    engine.join(gate);
    (engine, fake)
}

#[test]
fn a_verdict_near_the_limit_beside_other_jobs_is_judged_again_alone() {
    let case = Case::new(2, "");
    let (mut engine, fake) =
        crowded_engine(&case, FakeExecutor::new().program("sol", load_sensitive));
    let (report, events) = case.judge_with(&mut engine, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::AC);
    assert_eq!(report.tests[0].time, Duration::from_millis(800));
    let rejudged: Vec<(Verdict, Verdict)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Rejudged { beside, alone, .. } => Some((beside.verdict, alone.verdict)),
            _ => None,
        })
        .collect();
    assert_eq!(rejudged, [(Verdict::TLE, Verdict::AC); 2]);
    // Each test: once beside the others, once alone.
    let runs: Vec<(String, bool)> = fake
        .runs_of("sol")
        .into_iter()
        .map(|c| (c.test, c.alone))
        .collect();
    let want = [("1", false), ("1", true), ("2", false), ("2", true)];
    assert_eq!(runs, want.map(|(t, a)| (t.to_string(), a)));
    // `rejudged` comes right before the test's `test_finished`, which carries the result alone.
    let i = events
        .iter()
        .position(|e| matches!(e, Event::Rejudged { .. }))
        .unwrap();
    assert!(matches!(
        &events[i + 1],
        Event::TestFinished { result, .. } if result.verdict == Verdict::AC
    ));
}

#[test]
fn a_verdict_far_from_the_limit_is_not_judged_again() {
    let case = Case::new(2, "");
    let fast_wrong = |_: &Run| Act::prints("0\n").cpu_ms(100);
    let (mut engine, fake) = crowded_engine(&case, FakeExecutor::new().program("sol", fast_wrong));
    let (report, events) = case.judge_with(&mut engine, "sol", all());
    assert_eq!(verdicts(&report), [Verdict::WA, Verdict::WA]);
    assert!(!events.iter().any(|e| matches!(e, Event::Rejudged { .. })));
    assert_eq!(fake.runs_of("sol").len(), 2);
    // Near the limit (0.7 s of 1 s) but accepted beside others: judged again too.
    let case = Case::new(1, "");
    let near = |run: &Run| doubles(run).cpu_ms(700);
    let (mut engine, fake) = crowded_engine(&case, FakeExecutor::new().program("sol", near));
    let (_, events) = case.judge_with(&mut engine, "sol", JudgeOptions::default());
    assert!(events.iter().any(|e| matches!(e, Event::Rejudged { .. })));
    assert_eq!(fake.runs_of("sol").len(), 2);
}

#[test]
fn alone_from_the_start_a_tle_is_judged_once() {
    let case = Case::new(2, "");
    let (mut engine, fake) = crowded_engine(
        &case,
        FakeExecutor::new().always("sol", Act::ok().cpu_ms(5000)),
    );
    let options = JudgeOptions {
        alone: true,
        ..JudgeOptions::default()
    };
    let (report, events) = case.judge_with(&mut engine, "sol", options);
    assert_eq!(report.verdict, Verdict::TLE);
    assert!(!events.iter().any(|e| matches!(e, Event::Rejudged { .. })));
    let runs = fake.runs_of("sol");
    assert_eq!(runs.len(), 1);
    assert!(runs[0].alone);
}

#[test]
fn one_job_alone_never_judges_again() {
    // Without a gate there is no other job: every run had the CPUs to itself.
    let case = Case::new(1, "");
    let fake = FakeExecutor::new().program("sol", load_sensitive);
    let (report, events) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::AC);
    assert!(!events.iter().any(|e| matches!(e, Event::Rejudged { .. })));
    assert_eq!(fake.runs_of("sol").len(), 1);
}

#[test]
fn a_polygon_solution_with_files_reads_and_writes_them_in_its_own_folder() {
    let pkg = tempfile::tempdir().unwrap();
    fake::file(pkg.path(), "tests/01", "3\n");
    fake::file(pkg.path(), "tests/01.a", "6\n");
    fake::file(
        pkg.path(),
        "problem.xml",
        r#"<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="double-files">
  <names><name language="english" value="Double"/></names>
  <judging input-file="double.in" output-file="double.out">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>67108864</memory-limit>
      <test-count>1</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual"/></tests>
    </testset>
  </judging>
  <assets><checker name="std::wcmp.cpp" type="testlib"/></assets>
</problem>
"#,
    );
    let case = Case {
        pkg,
        work: tempfile::tempdir().unwrap(),
    };
    let fake = FakeExecutor::new()
        .program("files", |run| {
            // No stdin: the input is a file in the working folder.
            assert!(run.input().is_empty());
            let n: u64 = run.workdir_file("double.in").trim().parse().unwrap();
            Act::ok().file("double.out", format!("{}\n", 2 * n))
        })
        .always("stdout", Act::prints("6\n"));
    let (report, _) = case.judge(&fake, "files", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::AC);
    // The answer on stdout is no output file.
    let (report, _) = case.judge(&fake, "stdout", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::WA);
    assert_eq!(report.tests[0].message, "no output file `double.out`");
}

/// The folders left in the work folders under `root`, by kind (`run`, `io`, `build`, …).
fn left_in(root: &Path) -> Vec<String> {
    let mut kinds: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("engine-"))
        .flat_map(|engine| std::fs::read_dir(engine.path()).unwrap().flatten())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.rsplit_once('-')
                .map_or(name.clone(), |(kind, _)| kind.to_string())
        })
        .collect();
    kinds.sort();
    kinds
}

#[test]
fn runs_reuse_one_scratch_folder_and_one_pair_of_output_files() {
    // With private scratch folders (the sandbox) one host folder name serves every run; without
    // (plain processes) each run gets its own, removed after it.
    let case = Case::new(3, "");
    let fake = FakeExecutor::new().program("sol", |run| doubles(run).file("junk", "x"));
    case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(left_in(case.work.path()), ["build", "io", "run"]);
    let case = Case::new(3, "");
    let fake = FakeExecutor::new()
        .program("sol", |run| doubles(run).file("junk", "x"))
        .plain();
    let (report, _) = case.judge(&fake, "sol", JudgeOptions::default());
    assert_eq!(report.verdict, Verdict::AC);
    assert_eq!(left_in(case.work.path()), ["build", "io"]);
}

#[test]
fn the_crash_line_is_the_exception() {
    let java = "Exception in thread \"main\" java.lang.ArithmeticException: / by zero\n\tat Main.f(Main.java:3)\n\tat Main.main(Main.java:5)\n";
    assert_eq!(
        crash_line(java),
        Some("Exception in thread \"main\" java.lang.ArithmeticException: / by zero")
    );
    let wrapped = "Exception in thread \"main\" java.lang.RuntimeException: boom\n\tat A.main(A.java:1)\nCaused by: java.io.IOException: disk\n\tat A.f(A.java:2)\n\t... 1 more\n";
    assert_eq!(
        crash_line(wrapped),
        Some("Caused by: java.io.IOException: disk")
    );
    let python = "Traceback (most recent call last):\n  File \"main.py\", line 1, in <module>\nZeroDivisionError: division by zero\n";
    assert_eq!(
        crash_line(python),
        Some("ZeroDivisionError: division by zero")
    );
    let rust = "thread 'main' panicked at main.rs:1:5:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
    assert_eq!(crash_line(rust), Some("boom"));
    // A head cut short: the marker is not the message.
    assert_eq!(
        crash_line("Traceback (most recent call last):\n  File \"x\"\n[… cut]"),
        Some("  File \"x\"")
    );
    assert_eq!(crash_line(""), None);
}
