//! Snapshot tests of every reporter: a fixed stream of events for `run`, for `verify` and for the
//! setter's `gen` and `stress` goes through each format, and the output (times and the judge's own
//! memory redacted) must equal its insta snapshot under `src/snapshots/`. A changed rendering
//! fails and leaves `<name>.snap.new` beside the snapshot: review it with `cargo insta review`
//! (or rerun with `INSTA_UPDATE=always` and read the diff) before committing it. Under CI
//! (`CI=true`) insta writes nothing and fails, so a new rendering is never accepted silently.

use super::human::{Out, RunTable};
use super::json::{RunJson, VerifyJson};
use super::jsonl::Jsonl;
use super::junit::Junit;
use super::verify::VerifyTable;
use judge_model::event::{Event, PackageInfo, Reporter, RunId, TestId};
use judge_model::finding::Finding;
use judge_model::finding::TimeAdvice;
use judge_model::result::CompileReport;
use judge_model::result::{Captured, SubmissionReport, TestResult};
use judge_model::IsolationLevel;
use judge_model::Verdict;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A writer into a buffer the test keeps.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn out(&self) -> Out {
        Box::new(self.clone())
    }
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn test(name: &str, verdict: Verdict, time: u64, message: &str) -> TestResult {
    TestResult {
        name: name.into(),
        verdict,
        time: ms(time),
        wall: ms(time + 1),
        memory: 3 << 20,
        message: message.into(),
        mismatch: None,
        checker_score: None,
        passes: None,
        transcript: None,
        stdout: None,
        stderr: None,
    }
}

/// `t` with what the program printed; `cut`: its stdout was longer.
fn printed(mut t: TestResult, stdout: &str, stderr: &str, cut: bool) -> TestResult {
    t.stdout = Some(Captured {
        text: stdout.into(),
        truncated: cut,
    });
    t.stderr = Some(Captured {
        text: stderr.into(),
        truncated: false,
    });
    t
}

fn compile(message: &str) -> CompileReport {
    CompileReport {
        language: "C++".into(),
        ok: true,
        time: ms(612),
        message: message.into(),
        cached: false,
    }
}

fn started(command: &str) -> Event {
    Event::Started {
        command: command.into(),
        isolation: IsolationLevel::Full,
    }
}

fn problem_started() -> Event {
    Event::ProblemStarted {
        problem: "sum".into(),
        dir: "problems/sum".into(),
        name: "Sum <of> \"n\" & more".into(),
        tests: vec!["sample-1".into(), "2".into(), "10".into()],
        time_limit_ms: ms(1000),
        memory_limit_kib: 65536,
    }
}

/// The events of one solution judged on the three tests of `problem_started`.
fn solution(
    run: u64,
    solution: &str,
    expected: Option<Verdict>,
    tests: Vec<TestResult>,
    message: &str,
) -> Vec<Event> {
    let (p, s, run) = ("sum".to_string(), solution.to_string(), RunId(run));
    let mut events = vec![
        Event::CompileStarted {
            problem: p.clone(),
            solution: s.clone(),
            run,
        },
        Event::CompileFinished {
            problem: p.clone(),
            solution: s.clone(),
            run,
            compile: compile(message),
        },
    ];
    for (i, t) in tests.iter().enumerate() {
        let id = TestId {
            index: i + 1,
            name: t.name.clone(),
        };
        events.push(Event::TestStarted {
            problem: p.clone(),
            solution: s.clone(),
            run,
            test: id.clone(),
            of: 3,
        });
        events.push(Event::TestFinished {
            problem: p.clone(),
            solution: s.clone(),
            run,
            test: id,
            result: t.clone(),
        });
    }
    let verdict = tests
        .iter()
        .map(|t| t.verdict)
        .find(|&v| v != Verdict::AC)
        .unwrap_or(Verdict::AC);
    events.push(Event::SolutionFinished {
        problem: p,
        solution: s,
        run,
        expected,
        allowed: Vec::new(),
        expected_score: None,
        rule_failures: Vec::new(),
        matches: expected.map(|e| e == verdict),
        verdict,
        error: None,
        report: Some(SubmissionReport {
            verdict,
            compile: compile(message),
            tests,
            score: None,
            max_score: None,
            groups: Vec::new(),
            skipped: Vec::new(),
        }),
    });
    events
}

fn run_events() -> Vec<Event> {
    let mut events = vec![
        started("run"),
        Event::Warning {
            problem: None,
            message: "isolation is Partial (missing: seccomp)".into(),
        },
        problem_started(),
    ];
    events.extend(solution(
        1,
        "my.cpp",
        None,
        vec![
            printed(test("sample-1", Verdict::AC, 3, ""), "3\n", "", false),
            printed(
                test(
                    "2",
                    Verdict::WA,
                    4,
                    "line 1, column 1: expected `-5`, found `6`",
                ),
                "6\n",
                "debug: a=2 b=4\n",
                true,
            ),
        ],
        "my.cpp:3:5: warning: unused variable 'x'",
    ));
    events.push(Event::ProblemFinished {
        problem: "sum".into(),
        findings: Vec::new(),
        advice: None,
        judge_errors: 0,
        failures: 1,
        package: None,
    });
    events.push(Event::Finished { exit: 1 });
    events
}

fn verify_events() -> Vec<Event> {
    let mut events = vec![started("verify"), problem_started()];
    events.push(Event::Step {
        problem: "sum".into(),
        verb: "Validating".into(),
        what: "sample-1 (1/3)".into(),
    });
    let all_ac = || {
        vec![
            test("sample-1", Verdict::AC, 3, ""),
            test("2", Verdict::AC, 5, ""),
            test("10", Verdict::AC, 4, ""),
        ]
    };
    events.extend(solution(
        1,
        "solutions/sum/accepted/ac.cpp",
        Some(Verdict::AC),
        all_ac(),
        "",
    ));
    events.extend(solution(
        2,
        "solutions/sum/wrong_answer/wa.cpp",
        Some(Verdict::WA),
        vec![
            test("sample-1", Verdict::AC, 3, ""),
            test(
                "2",
                Verdict::WA,
                4,
                "line 1, column 1: expected `-5`, found `6`",
            ),
        ],
        "",
    ));
    events.extend(solution(
        3,
        "solutions/sum/time_limit_exceeded/fast.cpp",
        Some(Verdict::TLE),
        all_ac(),
        "",
    ));
    events.push(Event::SolutionSkipped {
        problem: "sum".into(),
        solution: "problems/sum/solutions/accepted/sum.hs".into(),
        expected: Some(Verdict::AC),
        allowed: Vec::new(),
        reason: "no toolchain for .hs files in the language table".into(),
    });
    events.push(Event::ProblemFinished {
        problem: "sum".into(),
        findings: vec![Finding::failed(
            "problems/sum/tests/2.in: invalid test (rejected by validator.py): n < 1",
        )],
        advice: Some(TimeAdvice {
            limit: ms(1000),
            slowest_accepted: Some((ms(5), PathBuf::from("solutions/sum/accepted/ac.cpp"))),
            fastest_tle: None,
            kattis_limit: Some(ms(100)),
            rule: Some(judge_model::finding::TimeRule::usual()),
            warnings: Vec::new(),
        }),
        judge_errors: 0,
        failures: 2,
        package: Some(PackageInfo {
            format: Some("native".into()),
            time_limit_ms: Some(ms(1000)),
            time_limit_source: Some("problem.toml [limits] time_limit".into()),
        }),
    });
    events.push(Event::Finished { exit: 1 });
    events
}

/// Times (`0.003 s`, `"time_ms": 4.0`, JUnit's `time="0.010"`) and the judge's own memory vary
/// between machines: each is replaced by `<t>` or `<n>`, and nothing else is. (By hand, not by
/// insta's regex filters: the regex crates cost a fresh build more than this.)
fn redact(text: &str) -> String {
    const NUMBERS_AFTER: [&str; 4] = [
        "\"time_ms\":",
        "\"wall_ms\":",
        "\"judge_memory_kib\":",
        "time=\"",
    ];
    let number = |c: char| c.is_ascii_digit() || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(c) = rest.chars().next() {
        for key in NUMBERS_AFTER {
            if let Some(after) = rest.strip_prefix(key) {
                // JSON's keys may be followed by spaces; the attribute's quote by the number.
                let spaces = if key.ends_with(':') {
                    after.len() - after.trim_start().len()
                } else {
                    0
                };
                let digits =
                    after[spaces..].len() - after[spaces..].trim_start_matches(number).len();
                out.push_str(key);
                out.push_str(&after[..spaces]);
                out.push_str("<n>");
                rest = &after[spaces + digits..];
                continue 'scan;
            }
        }
        // `<digits>.<digits> s`: a time in the human reports.
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let tail = &rest[digits..];
            if let Some(fraction) = tail.strip_prefix('.') {
                let more = fraction.len()
                    - fraction
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .len();
                if more > 0 && fraction[more..].starts_with(" s") {
                    out.push_str("<t> s");
                    rest = &fraction[more + 2..];
                    continue;
                }
            }
            out.push_str(&rest[..digits]);
            rest = tail;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The settings of every snapshot here: stored as `src/snapshots/<name>.snap` (the text is
/// redacted before, by [`redact`]).
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    // Absolute, so the snapshots are found even where `cargo metadata` cannot run (the unit
    // suite run as `nobody` in CI).
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/src/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// Checks a report that ends with one newline, as all but the terminal's progress do.
fn check(name: &str, got: &str) {
    check_ending(name, got, "\n");
}

/// Checks `got` against the snapshot `name`. insta compares text without its trailing white
/// space and reads CR LF as LF, so the ending is asserted here and CR LF must not occur (no
/// report writes one): together they pin every byte.
fn check_ending(name: &str, got: &str, ending: &str) {
    assert_eq!(&got[got.trim_end().len()..], ending, "how {name} ends");
    assert!(!got.contains("\r\n"), "{name} has a CR LF: {got:?}");
    settings().bind(|| insta::assert_snapshot!(name, redact(got)));
}

/// Feeds `events` to a reporter built over stdout and stderr buffers; returns (stdout, stderr).
fn render(events: &[Event], make: impl FnOnce(Out, Out) -> Box<dyn Reporter>) -> (String, String) {
    let (out, err) = (Buffer::default(), Buffer::default());
    let mut reporter = make(out.out(), err.out());
    for e in events {
        reporter.event(e);
    }
    (out.text(), err.text())
}

#[test]
fn run_human() {
    let (out, err) = render(&run_events(), |o, e| {
        Box::new(RunTable::new(o, e, false, false, false))
    });
    check("run-human.stdout", &out);
    check("run-human.stderr", &err);
}

#[test]
fn run_human_on_a_terminal_draws_and_wipes_a_progress_line() {
    let (out, err) = render(&run_events(), |o, e| {
        Box::new(RunTable::new(o, e, true, true, true))
    });
    check("run-human-terminal.stdout", &out);
    // The last progress line is wiped: blanked and the cursor back at its start.
    let wipe = format!("\r{}\r", " ".repeat(40));
    check_ending("run-human-terminal.stderr", &err, &wipe);
}

#[test]
fn progress_without_colour_writes_no_escape_codes() {
    let (out, err) = render(&run_events(), |o, e| {
        Box::new(RunTable::new(o, e, false, false, true))
    });
    assert!(
        err.contains("\r     Running my.cpp  test 2/3 (2)"),
        "{err:?}"
    );
    assert!(!out.contains('\x1b') && !err.contains('\x1b'), "{err:?}");
}

#[test]
fn run_json() {
    let (out, err) = render(&run_events(), |o, _| Box::new(RunJson::new(o)));
    check("run.json", &out);
    assert_eq!(err, "");
}

#[test]
fn run_jsonl() {
    let (out, _) = render(&run_events(), |o, _| Box::new(Jsonl::new(o)));
    check("run.jsonl", &out);
}

#[test]
fn run_junit() {
    let (out, _) = render(&run_events(), |o, _| Box::new(Junit::new(o, false)));
    check("run.junit.xml", &out);
}

#[test]
fn verify_human() {
    let (out, err) = render(&verify_events(), |o, e| {
        Box::new(VerifyTable::new(o, e, false, false, false))
    });
    check("verify-human.stdout", &out);
    check("verify-human.stderr", &err);
}

#[test]
fn verify_json() {
    let (out, _) = render(&verify_events(), |o, _| Box::new(VerifyJson::new(o)));
    check("verify.json", &out);
}

#[test]
fn verify_jsonl() {
    let (out, _) = render(&verify_events(), |o, _| Box::new(Jsonl::new(o)));
    check("verify.jsonl", &out);
}

#[test]
fn verify_junit() {
    let (out, _) = render(&verify_events(), |o, _| Box::new(Junit::new(o, true)));
    check("verify.junit.xml", &out);
}

fn setter_events() -> Vec<Event> {
    use judge_model::finding::Counterexample;
    use judge_model::finding::GenSummary;
    let step = |verb: &str, what: &str| Event::Step {
        problem: "sum".into(),
        verb: verb.into(),
        what: what.into(),
    };
    vec![
        started("gen"),
        step("Generating", "random-1 (1/2)"),
        step("Answering", "random-1 (1/2)"),
        Event::Generated {
            problem: "sum".into(),
            dir: "problems/sum".into(),
            summary: GenSummary {
                inputs_written: vec!["random-1".into()],
                answers_written: vec!["random-1".into()],
                cached: 1,
                unchanged: 0,
                files_written: None,
            },
        },
        step("Stress", "tried 10 input(s), size 2"),
        Event::StressFinished {
            problem: "sum".into(),
            solution: "wa.cpp".into(),
            seconds: 30.0,
            found: Some(Counterexample {
                input: b"2\n1 2\n".to_vec(),
                answer: b"3\n".to_vec(),
                output: b"4\n".to_vec(),
                verdict: Verdict::WA,
                message: "line 1, column 1: expected `3`, found `4`".into(),
                tries: 12,
                shrink_steps: 3,
            }),
            saved: vec!["counter.in".into(), "counter.ans".into()],
        },
        Event::Finished { exit: 1 },
    ]
}

#[test]
fn gen_and_stress_human() {
    let (out, err) = render(&setter_events(), |o, e| {
        Box::new(super::setter::SetterLines::new(o, e, false))
    });
    check("setter-human.stdout", &out);
    check("setter-human.stderr", &err);
}

#[test]
fn gen_and_stress_jsonl() {
    let (out, _) = render(&setter_events(), |o, _| Box::new(Jsonl::new(o)));
    check("setter.jsonl", &out);
}

#[test]
fn gen_and_stress_json() {
    let events = setter_events();
    // gen's events, then stress's: each subcommand's document holds its own final event.
    let (gen, _) = render(&[&events[..4], &events[6..]].concat(), |o, _| {
        Box::new(super::json::SetterJson::new(o, "gen"))
    });
    check("gen.json", &gen);
    let (stress, _) = render(&[&events[..1], &events[4..]].concat(), |o, _| {
        Box::new(super::json::SetterJson::new(o, "stress"))
    });
    check("stress.json", &stress);
}

#[test]
fn gen_and_stress_junit() {
    let (out, _) = render(&setter_events(), |o, _| Box::new(Junit::new(o, false)));
    check("setter.junit.xml", &out);
}

/// A problem whose one solution does not compile, and the events around it.
fn verify_events_with(solutions: Vec<Vec<Event>>, failures: usize) -> Vec<Event> {
    let mut events = vec![started("verify"), problem_started()];
    events.extend(solutions.into_iter().flatten());
    events.push(Event::ProblemFinished {
        problem: "sum".into(),
        findings: Vec::new(),
        advice: None,
        judge_errors: 0,
        failures,
        package: None,
    });
    events.push(Event::Finished {
        exit: (failures > 0) as i32,
    });
    events
}

/// `solution`'s events for a source that does not compile, with the compiler's `message`.
fn not_compiling(run: u64, path: &str, expected: Verdict, message: &str) -> Vec<Event> {
    let mut events = solution(run, path, Some(expected), Vec::new(), message);
    if let Some(Event::SolutionFinished {
        verdict,
        matches,
        report: Some(report),
        ..
    }) = events.last_mut()
    {
        *verdict = Verdict::CE;
        *matches = Some(expected == Verdict::CE);
        report.verdict = Verdict::CE;
        report.compile.ok = false;
    }
    events
}

#[test]
fn verify_shows_a_compilation_errors_first_error_line() {
    let message = "wa.cpp: In function 'int main()':\nwa.cpp:3:5: error: 'x' was not declared in this scope\n    3 |     x = 1;\n";
    let events = verify_events_with(
        vec![not_compiling(
            1,
            "solutions/sum/wrong_answer/wa.cpp",
            Verdict::WA,
            message,
        )],
        1,
    );
    let (out, _) = render(&events, |o, e| {
        Box::new(VerifyTable::new(o, e, false, false, false))
    });
    assert!(
        out.contains(
            "  compilation error: wa.cpp:3:5: error: 'x' was not declared in this scope\n"
        ),
        "{out}"
    );
    assert!(!out.contains("all 0 tests passed"), "{out}");
}

#[test]
fn verify_does_not_say_every_expectation_holds_when_a_solution_was_skipped() {
    let all_ac = vec![
        test("sample-1", Verdict::AC, 3, ""),
        test("2", Verdict::AC, 5, ""),
        test("10", Verdict::AC, 4, ""),
    ];
    let skipped = Event::SolutionSkipped {
        problem: "sum".into(),
        solution: "solutions/sum/accepted/sum.hs".into(),
        expected: Some(Verdict::AC),
        allowed: Vec::new(),
        reason: "no toolchain for .hs files in the language table".into(),
    };
    let judged = solution(
        1,
        "solutions/sum/accepted/ac.cpp",
        Some(Verdict::AC),
        all_ac,
        "",
    );
    let render_verify = |events: &[Event]| {
        render(events, |o, e| {
            Box::new(VerifyTable::new(o, e, false, false, false))
        })
        .0
    };
    let out = render_verify(&verify_events_with(vec![judged.clone(), vec![skipped]], 0));
    assert!(
        out.ends_with("verified 1 problem(s): the expectations of the judged solutions hold; 1 solution(s) skipped, not checked\n"),
        "{out}"
    );
    let out = render_verify(&verify_events_with(vec![judged], 0));
    assert!(
        out.ends_with("verified 1 problem(s): every expectation holds\n"),
        "{out}"
    );
}

#[test]
fn redaction_hides_times_and_nothing_else() {
    settings().bind(|| {
        insta::assert_snapshot!(
            redact("sample-1  AC  0.003 s  3.0 MiB {\"time_ms\":4.5,\"x\":1} time=\"0.010\""),
            @r#"sample-1  AC  <t> s  3.0 MiB {"time_ms":<n>,"x":1} time="<n>""#
        )
    });
}

#[test]
fn junit_escapes_markup_and_control_characters() {
    assert_eq!(
        super::junit::escape("a<b>&\"'\n\u{1b}é"),
        "a&lt;b&gt;&amp;&quot;&apos;&#10;\\u{1b}é"
    );
}
