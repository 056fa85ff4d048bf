//! `verify`'s decisions over the fake executor (`crate::executor::fake`): which verdicts meet a
//! solution's expectation in each format, the reference solution, the validator's rule, stale
//! generated tests, checker tests. Packages are written to a temporary folder; nothing runs.
//! Its length is one short test per rule of `verify` in each format, over one shared builder.

use super::*;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use judge_model::event::Collect;
use judge_model::finding::Severity;

fn number(run: &Run) -> u64 {
    run.input_text().trim().parse().unwrap_or(u64::MAX)
}

/// The programs of every package here: the answer to n is 2n.
fn programs() -> FakeExecutor {
    FakeExecutor::new()
        .program("ref", |run| Act::prints(format!("{}\n", 2 * number(run))))
        .program("wa", |_| Act::prints("0\n"))
        .program("slow", |_| Act::ok().cpu_ms(5000))
        .program("crash", |_| Act::exits(1).stderr("Segmentation fault\n"))
        // Accepts n <= 3, the reason on stderr.
        .program("validator", |run| match number(run) {
            n if n <= 3 => Act::ok(),
            n => Act::exits(1).stderr(format!("n = {n} is over 3\n")),
        })
        // Prints its first argument.
        .program("gen", |run| Act::prints(format!("{}\n", run.args[0])))
}

/// A native package `p` with tests 1..=3 and a 1 s limit, its solutions in `solutions/`.
fn native(solutions: &[(&str, &str)]) -> tempfile::TempDir {
    native_with("", solutions)
}

/// problem.toml's lines for the custom checker `check.cpp`, the fake program `checker`.
const CUSTOM: &str = "[checker]\nkind = \"custom\"\nsource = \"check.cpp\"\n";

/// [`native`] with `extra` lines in problem.toml (before `[limits]`).
fn native_with(extra: &str, solutions: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fake::native(
        dir.path(),
        1.0,
        64,
        extra,
        &[
            ("1", "1\n", "2\n"),
            ("2", "2\n", "4\n"),
            ("3", "3\n", "6\n"),
        ],
    );
    for (path, name) in solutions {
        fake::source(dir.path(), &format!("solutions/{path}"), name);
    }
    if extra == CUSTOM {
        fake::source(dir.path(), "check.cpp", "checker");
    }
    dir
}

fn verify(fake: &FakeExecutor, dir: &Path) -> (ProblemCheck, Vec<Event>) {
    verify_jobs(fake, dir, 1)
}

/// [`verify`] with `jobs` engines; with several, every run not holding the gate exclusively
/// has another job's run beside it (`FakeExecutor::crowded`).
fn verify_jobs(fake: &FakeExecutor, dir: &Path, jobs: usize) -> (ProblemCheck, Vec<Event>) {
    let work = tempfile::tempdir().unwrap();
    let gate = std::sync::Arc::new(crate::jobs::Gate::default());
    let mut engines: Vec<Engine> = (0..jobs)
        .map(|_| {
            if jobs == 1 {
                return fake.engine(work.path());
            }
            let mut engine = fake.clone().crowded(gate.clone()).engine(work.path());
            engine.join(gate.clone());
            engine
        })
        .collect();
    let mut refs: Vec<&mut Engine> = engines.iter_mut().collect();
    let mut events = Collect::default();
    let check = verify_problem(&mut refs, dir, &VerifyOptions::default(), &mut events);
    (check, events.0)
}

/// Each solution by file name: its verdict and whether its expectation holds.
fn outcomes(check: &ProblemCheck) -> Vec<(String, Option<Verdict>, bool)> {
    check
        .solutions
        .iter()
        .map(|s| {
            (
                s.path.file_name().unwrap().to_string_lossy().into_owned(),
                s.report.as_ref().map(|r| r.verdict),
                s.holds(),
            )
        })
        .collect()
}

/// The one finding of `severity` (asserting there is just one).
fn only(check: &ProblemCheck, severity: Severity) -> String {
    let found = messages(check, severity);
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

fn messages(check: &ProblemCheck, severity: Severity) -> Vec<String> {
    check
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn every_solution_meeting_its_folder_is_a_sound_package() {
    let dir = native(&[
        ("accepted/ref.py", "ref"),
        ("wrong_answer/wa.py", "wa"),
        ("time_limit_exceeded/slow.py", "slow"),
        ("runtime_error/crash.py", "crash"),
    ]);
    let (check, events) = verify(&programs(), dir.path());
    assert!(check.findings.is_empty(), "{:?}", check.findings);
    assert!(check.ok());
    assert_eq!((check.failures(), check.judge_errors()), (0, 0));
    let got: Vec<(String, Option<Verdict>, bool)> = outcomes(&check);
    assert_eq!(
        got,
        [
            ("ref.py".into(), Some(Verdict::AC), true),
            ("crash.py".into(), Some(Verdict::RE), true),
            ("slow.py".into(), Some(Verdict::TLE), true),
            ("wa.py".into(), Some(Verdict::WA), true),
        ]
    );
    let matches: Vec<Option<bool>> = events
        .iter()
        .filter_map(|e| match e {
            Event::SolutionFinished { matches, .. } => Some(*matches),
            _ => None,
        })
        .collect();
    assert_eq!(matches, [Some(true); 4]);
}

#[test]
fn a_wrong_answer_solution_that_is_accepted_fails_the_package() {
    let dir = native(&[
        ("accepted/ref.py", "ref"),
        ("wrong_answer/lucky.py", "ref"),
        ("time_limit_exceeded/quick.py", "wa"),
    ]);
    let (check, events) = verify(&programs(), dir.path());
    assert!(!check.ok());
    assert_eq!((check.failures(), check.judge_errors()), (2, 0));
    let got = outcomes(&check);
    assert_eq!(got[1], ("quick.py".into(), Some(Verdict::WA), false));
    assert_eq!(got[2], ("lucky.py".into(), Some(Verdict::AC), false));
    let finished = events.iter().find_map(|e| match e {
        Event::ProblemFinished {
            failures,
            judge_errors,
            ..
        } => Some((*failures, *judge_errors)),
        _ => None,
    });
    assert_eq!(finished, Some((2, 0)));
}

#[test]
fn a_solution_expected_to_run_out_of_time_stops_at_its_tle() {
    let dir = native(&[
        ("accepted/ref.py", "ref"),
        ("time_limit_exceeded/slow.py", "slow"),
    ]);
    let fake = programs();
    let (check, _) = verify(&fake, dir.path());
    assert!(check.ok());
    // The first TLE decides: the other tests do not cost the limit again.
    assert_eq!(fake.runs_of("slow").len(), 1);
}

#[test]
fn a_package_without_an_accepted_solution_has_no_reference() {
    let dir = native(&[("wrong_answer/wa.py", "wa")]);
    let (check, _) = verify(&programs(), dir.path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.ends_with("no reference solution\n  hint: put at least one solution in accepted/"),
        "{}",
        failed
    );
    assert!(!check.ok());
}

#[test]
fn a_checker_failure_on_a_solution_is_a_judge_error_not_a_failure() {
    let dir = native_with(CUSTOM, &[("accepted/ref.py", "ref")]);
    let fake = programs().always("checker", Act::exits(3).stderr("FAIL bad answer file\n"));
    let (check, _) = verify(&fake, dir.path());
    assert_eq!((check.failures(), check.judge_errors()), (0, 1));
    assert!(check.solutions[0].judge_error());
}

#[test]
fn a_solution_in_a_language_not_here_is_skipped_not_failed() {
    let dir = native(&[("accepted/ref.py", "ref"), ("wrong_answer/wa.kt", "wa")]);
    let (check, events) = verify(&programs(), dir.path());
    assert!(check.ok(), "{:?}", check.findings);
    let skipped = &check.solutions[1];
    assert!(skipped.skipped.is_some() && skipped.report.is_none());
    assert!(events.iter().any(
        |e| matches!(e, Event::SolutionSkipped { solution, .. } if solution.ends_with("wa.kt"))
    ));
}

#[test]
fn a_test_the_validator_rejects_is_an_invalid_test() {
    let dir = native(&[("accepted/ref.py", "ref")]);
    fake::file(dir.path(), "tests/4.in", "7\n");
    fake::file(dir.path(), "tests/4.ans", "14\n");
    fake::source(dir.path(), "validator.py", "validator");
    let fake = programs();
    let (check, _) = verify(&fake, dir.path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.ends_with("tests/4.in: invalid test (rejected by validator.py): n = 7 is over 3"),
        "{}",
        failed
    );
    assert_eq!(check.failures(), 1);
    assert_eq!(fake.runs_of("validator").len(), 4);
}

#[test]
fn a_validator_that_crashes_or_runs_out_of_time_is_a_judge_error() {
    let dir = native(&[("accepted/ref.py", "ref")]);
    fake::source(dir.path(), "validator.py", "validator");
    let crashing = programs().program("validator", |run| match run.test.as_str() {
        "2" => Act::ok().signal(libc::SIGSEGV),
        _ => Act::ok(),
    });
    let (check, _) = verify(&crashing, dir.path());
    let broken = only(&check, Severity::Broken);
    assert!(
        broken.contains("tests/2.in: validator.py crashed (killed by signal 11 (SIGSEGV))"),
        "{}",
        broken
    );
    assert_eq!(check.judge_errors(), 1);
    // Out of time on the first test: not run on the others (each would cost its limit).
    let slow = programs().always("validator", Act::ok().cpu_ms(40_000));
    let (check, _) = verify(&slow, dir.path());
    let broken = messages(&check, Severity::Broken);
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken[0].contains("exceeded its time limit (30 s)"),
        "{}",
        broken[0]
    );
    assert!(
        broken[1].ends_with("not run on the other 2 test(s) after it exceeded its time limit"),
        "{}",
        broken[1]
    );
    assert_eq!(slow.runs_of("validator").len(), 1);
}

/// A native package whose test `g1` comes from `gen.py 4` (input 4, answer 8).
fn generated(input: Option<&str>, answer: &str) -> tempfile::TempDir {
    let dir = native(&[("accepted/ref.py", "ref")]);
    fake::source(dir.path(), "gen.py", "gen");
    fake::file(
        dir.path(),
        "tests.toml",
        "[[test]]\nname = \"g1\"\ngenerator = \"gen.py\"\nargs = [\"4\"]\n",
    );
    if let Some(input) = input {
        fake::file(dir.path(), "tests/g1.in", input);
        fake::file(dir.path(), "tests/g1.ans", answer);
    }
    dir
}

#[test]
fn generated_tests_must_be_what_the_generator_and_the_reference_make_now() {
    let (check, _) = verify(&programs(), generated(Some("4\n"), "8\n").path());
    assert!(check.ok(), "{:?}", check.findings);

    let (check, _) = verify(&programs(), generated(Some("5\n"), "10\n").path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.contains(
            "tests/g1.in: stale: the generator now prints different bytes\n  hint: run `judge gen "
        ),
        "{}",
        failed
    );

    let (check, _) = verify(&programs(), generated(Some("4\n"), "9\n").path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.contains("tests/g1.ans: stale: the reference solution ")
            && failed.contains("ref.py now answers differently"),
        "{}",
        failed
    );

    let (check, _) = verify(&programs(), generated(None, "").path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.contains("tests/g1.in: missing generated test"),
        "{}",
        failed
    );
}

#[test]
fn a_generator_that_fails_is_a_judge_error_naming_the_test_and_command() {
    let dir = generated(Some("4\n"), "8\n");
    let fake = programs().always("gen", Act::exits(2).stderr("usage: gen N\n"));
    let (check, _) = verify(&fake, dir.path());
    let broken = only(&check, Severity::Broken);
    assert!(
        broken.starts_with("test `g1`: gen.py 4: the generator failed (exit code 2)"),
        "{}",
        broken
    );
    assert!(broken.contains("usage: gen N"), "{}", broken);
}

#[test]
fn checker_tests_hold_the_checker_to_its_expected_judgements() {
    let dir = native_with(CUSTOM, &[("accepted/ref.py", "ref")]);
    fake::file(
        dir.path(),
        "checker_tests.toml",
        "[[case]]\nname = \"right\"\ntest = \"1\"\noutput = \"2\\n\"\nexpect = \"AC\"\n\n[[case]]\nname = \"off by one\"\ntest = \"1\"\noutput = \"3\\n\"\nexpect = \"WA\"\n",
    );
    // A checker that accepts everything: the second case catches it.
    let lenient = programs().always("checker", Act::ok());
    let (check, _) = verify(&lenient, dir.path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.ends_with(
            "checker_tests.toml: checker test `off by one` expects WA but the checker said AC"
        ),
        "{}",
        failed
    );
    let strict = programs().program("checker", |run| {
        if run.arg_file(1) == run.arg_file(2) {
            Act::ok()
        } else {
            Act::exits(1)
        }
    });
    let (check, _) = verify(&strict, dir.path());
    assert!(check.ok(), "{:?}", check.findings);
}

#[test]
fn an_accepted_solution_near_the_limit_gets_a_warning_and_kattis_advice() {
    let dir = native(&[("accepted/ref.py", "ref"), ("accepted/heavy.py", "heavy")]);
    let fake = programs().program("heavy", |run| {
        Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(720)
    });
    let (check, _) = verify(&fake, dir.path());
    assert!(check.ok());
    let advice = check.advice.unwrap();
    assert_eq!(
        advice.slowest_accepted.unwrap().0,
        Duration::from_millis(720)
    );
    assert_eq!(advice.kattis_limit, Some(Duration::from_millis(1500)));
    assert_eq!(advice.warnings.len(), 1, "{:?}", advice.warnings);
    assert!(advice.warnings[0].contains("heavy.py is accepted but needs 0.720 s"));
}

/// A Kattis 2025-09 package: samples and secret tests (n → 2n), an input validator, and
/// submissions at these paths.
fn kattis(submissions: &[(&str, &str)], yaml: &str) -> tempfile::TempDir {
    kattis_limits("  time_limit: 1.0\n", submissions, yaml)
}

/// [`kattis`] with these lines under `limits:` in problem.yaml (besides the memory).
fn kattis_limits(limits: &str, submissions: &[(&str, &str)], yaml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fake::file(
        dir.path(),
        "problem.yaml",
        &format!("problem_format_version: 2025-09\ntype: pass-fail\nname:\n  en: Double\nlimits:\n{limits}  memory: 64\n"),
    );
    fake::file(dir.path(), "data/sample/1.in", "1\n");
    fake::file(dir.path(), "data/sample/1.ans", "2\n");
    fake::file(dir.path(), "data/secret/2.in", "2\n");
    fake::file(dir.path(), "data/secret/2.ans", "4\n");
    fake::source(dir.path(), "input_validators/check.py", "kattis-validator");
    for (path, name) in submissions {
        fake::source(dir.path(), &format!("submissions/{path}"), name);
    }
    if !yaml.is_empty() {
        fake::file(dir.path(), "submissions/submissions.yaml", yaml);
    }
    dir
}

/// Kattis' input validator protocol: 42 valid, 43 invalid.
fn kattis_programs() -> FakeExecutor {
    programs().program("kattis-validator", |run| match number(run) {
        n if n <= 3 => Act::exits(42),
        _ => Act::exits(43).stderr("too big\n"),
    })
}

#[test]
fn kattis_folders_allow_the_verdicts_of_the_specification() {
    let dir = kattis(
        &[
            ("accepted/ref.py", "ref"),
            ("wrong_answer/wa.py", "wa"),
            ("wrong_answer/lucky.py", "ref"),
            ("time_limit_exceeded/slow.py", "slow"),
            ("time_limit_exceeded/wrong.py", "wa"),
            ("run_time_error/crash.py", "crash"),
            ("rejected/crash.py", "crash"),
            ("rejected/fine.py", "ref"),
        ],
        "",
    );
    let (check, _) = verify(&kattis_programs(), dir.path());
    assert!(check.findings.is_empty(), "{:?}", check.findings);
    let mut got: Vec<(String, bool)> = check
        .solutions
        .iter()
        .map(|s| {
            let path = s.path.strip_prefix(dir.path()).unwrap();
            (path.display().to_string(), s.holds())
        })
        .collect();
    got.sort();
    let want = [
        ("submissions/accepted/ref.py", true),
        ("submissions/rejected/crash.py", true),
        // A rejected submission must be rejected.
        ("submissions/rejected/fine.py", false),
        ("submissions/run_time_error/crash.py", true),
        ("submissions/time_limit_exceeded/slow.py", true),
        ("submissions/time_limit_exceeded/wrong.py", false),
        // A wrong answer somewhere is required.
        ("submissions/wrong_answer/lucky.py", false),
        ("submissions/wrong_answer/wa.py", true),
    ];
    assert_eq!(got, want.map(|(p, h)| (p.to_string(), h)));
    assert_eq!(check.failures(), 3);
}

#[test]
fn kattis_submissions_yaml_replaces_a_folders_rule_and_adds_to_a_files() {
    // The folder's own key replaces its default (TLE required): WA or TLE will do.
    let yaml = "time_limit_exceeded:\n  permitted: [AC, WA, TLE]\n  required: [WA, TLE]\n";
    let dir = kattis(
        &[
            ("accepted/ref.py", "ref"),
            ("time_limit_exceeded/wrong.py", "wa"),
        ],
        yaml,
    );
    let (check, _) = verify(&kattis_programs(), dir.path());
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    // A file's key comes on top of its folder's rule: both must hold.
    let yaml = "time_limit_exceeded/wrong.py:\n  permitted: [AC, WA, TLE]\n";
    let dir = kattis(
        &[
            ("accepted/ref.py", "ref"),
            ("time_limit_exceeded/wrong.py", "wa"),
        ],
        yaml,
    );
    let (check, _) = verify(&kattis_programs(), dir.path());
    let got = outcomes(&check);
    assert_eq!(got[1], ("wrong.py".into(), Some(Verdict::WA), false));
}

#[test]
fn a_kattis_input_validator_must_answer_42_or_43() {
    let dir = kattis(&[("accepted/ref.py", "ref")], "");
    fake::file(dir.path(), "data/secret/3.in", "9\n");
    fake::file(dir.path(), "data/secret/3.ans", "18\n");
    let (check, _) = verify(&kattis_programs(), dir.path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.ends_with("data/secret/3.in: invalid test (rejected by check.py): too big"),
        "{}",
        failed
    );
    // Exit 0 is no answer in Kattis' protocol: a crash of the validator.
    let zero = programs().always("kattis-validator", Act::ok());
    let (check, _) = verify(&zero, dir.path());
    let broken = messages(&check, Severity::Broken);
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(
        broken[0].contains("exited with 0, which is no answer"),
        "{}",
        broken[0]
    );
}

/// A Polygon package: tests 01..03 (n → 2n), the standard wcmp, and solutions with these tags.
fn polygon(solutions: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 1..=3 {
        fake::file(dir.path(), &format!("tests/{i:02}"), &format!("{i}\n"));
        fake::file(
            dir.path(),
            &format!("tests/{i:02}.a"),
            &format!("{}\n", 2 * i),
        );
    }
    let mut list = String::new();
    for (file, name, tag) in solutions {
        fake::source(dir.path(), &format!("solutions/{file}"), name);
        // Polygon's type: Python 2 for a `py2-*.py`, Python 3 for another `.py`, else C++.
        let kind = match file.rsplit_once('.') {
            Some((stem, "py")) if stem.starts_with("py2") => "python.2",
            Some((_, "py")) => "python.3",
            _ => "cpp.g++17",
        };
        list.push_str(&format!(
            "<solution tag=\"{tag}\"><source path=\"solutions/{file}\" type=\"{kind}\"/></solution>"
        ));
    }
    fake::file(
        dir.path(),
        "problem.xml",
        &format!(
            r#"<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="double">
  <names><name language="english" value="Double"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>67108864</memory-limit>
      <test-count>3</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests><test method="manual" sample="true"/><test method="manual"/><test method="manual"/></tests>
    </testset>
  </judging>
  <assets>
    <checker name="std::wcmp.cpp" type="testlib"><source path="files/check.cpp" type="cpp.g++17"/></checker>
    <solutions>{list}</solutions>
  </assets>
</problem>
"#
        ),
    );
    dir
}

#[test]
fn polygon_tags_allow_their_verdicts() {
    let dir = polygon(&[
        ("main.cpp", "ref", "main"),
        ("wa.cpp", "wa", "wrong-answer"),
        ("ok.cpp", "ref", "time-limit-exceeded-or-accepted"),
        ("slow.cpp", "slow", "time-limit-exceeded-or-accepted"),
        ("crash.cpp", "crash", "rejected"),
        ("fast.cpp", "ref", "time-limit-exceeded"),
        ("crash-not-wa.cpp", "crash", "wrong-answer"),
    ]);
    let (check, _) = verify(&programs(), dir.path());
    assert!(check.findings.is_empty(), "{:?}", check.findings);
    let got: Vec<(String, Option<Verdict>, bool)> = outcomes(&check);
    let want = [
        ("main.cpp", Verdict::AC, true),
        ("wa.cpp", Verdict::WA, true),
        ("ok.cpp", Verdict::AC, true),
        ("slow.cpp", Verdict::TLE, true),
        ("crash.cpp", Verdict::RE, true),
        ("fast.cpp", Verdict::AC, false),
        ("crash-not-wa.cpp", Verdict::RE, false),
    ];
    assert_eq!(got, want.map(|(p, v, h)| (p.to_string(), Some(v), h)));
    assert_eq!((check.failures(), check.judge_errors()), (2, 0));
}

#[test]
fn a_polygon_solution_typed_python_2_is_skipped_not_failed() {
    let dir = polygon(&[
        ("main.cpp", "ref", "main"),
        ("py2-ref.py", "ref", "accepted"),
        ("ref.py", "ref", "accepted"),
    ]);
    let (check, _) = verify(&programs(), dir.path());
    assert!(check.ok(), "{:?}", check.findings);
    let skipped: Vec<_> = check
        .solutions
        .iter()
        .filter_map(|s| Some((s.path.file_name()?.to_str()?, s.skipped.as_deref()?)))
        .collect();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, "py2-ref.py");
    assert!(
        skipped[0].1.contains("the package says `python.2`"),
        "{skipped:?}"
    );
}

#[test]
fn a_kattis_time_limit_comes_from_the_slowest_accepted_submission() {
    // No time_limit: the slowest accepted submission x 2 (ac_to_time_limit), rounded up to the
    // resolution (1 s): 0.45 s gives 1 s, against which the TLE submission is judged.
    let dir = kattis_limits(
        "",
        &[
            ("accepted/a.py", "ref"),
            ("accepted/b.py", "steady"),
            ("time_limit_exceeded/slow.py", "too-slow"),
        ],
        "",
    );
    let fake = kattis_programs()
        .program("steady", |run| {
            Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(450)
        })
        .program("too-slow", |run| {
            Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(1100)
        });
    let (check, events) = verify(&fake, dir.path());
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    let problem = check.problem.as_ref().unwrap();
    assert_eq!(problem.limits.time, Duration::from_secs(1));
    assert!(
        problem.origin.time.starts_with(
            "derived: slowest accepted submission submissions/accepted/b.py took 0.450 s; x 2"
        ),
        "{}",
        problem.origin.time
    );
    let noted = events
        .iter()
        .any(|e| matches!(e, Event::Note { message, .. } if message.starts_with("time limit 1")));
    assert!(noted);
    let slow = check
        .solutions
        .iter()
        .find(|s| s.path.ends_with("slow.py"))
        .unwrap();
    assert_eq!(slow.report.as_ref().unwrap().verdict, Verdict::TLE);
}

#[test]
fn a_polygon_validator_rejecting_a_test_fails_the_package() {
    let dir = polygon(&[("main.cpp", "ref", "main")]);
    let xml = std::fs::read_to_string(dir.path().join("problem.xml")).unwrap();
    let xml = xml.replace(
        "<solutions>",
        "<validators><validator><source path=\"files/val.cpp\" type=\"cpp.g++17\"/></validator></validators><solutions>",
    );
    fake::file(dir.path(), "problem.xml", &xml);
    fake::source(dir.path(), "files/val.cpp", "validator");
    fake::file(dir.path(), "tests/03", "30\n");
    fake::file(dir.path(), "tests/03.a", "60\n");
    let (check, _) = verify(&programs(), dir.path());
    let failed = only(&check, Severity::Failed);
    assert!(
        failed.ends_with("tests/03: invalid test (rejected by val.cpp): n = 30 is over 3"),
        "{}",
        failed
    );
}

#[test]
fn a_kattis_output_validator_gets_its_groups_arguments_and_decides_by_42_or_43() {
    let dir = kattis(
        &[
            ("accepted/ref.py", "ref"),
            ("wrong_answer/off.py", "off-by-one"),
        ],
        "",
    );
    fake::source(
        dir.path(),
        "output_validator/validate.py",
        "output-validator",
    );
    fake::file(
        dir.path(),
        "data/secret/test_group.yaml",
        "output_validator_args: [mode, strict]\n",
    );
    let fake = kattis_programs()
        .program("off-by-one", |run| {
            Act::prints(format!("{}\n", 2 * number(run) + 1))
        })
        .program("output-validator", |run| {
            // input answer feedback_dir/ [the group's arguments] < output
            let extra: Vec<&str> = run.args[3..].iter().map(String::as_str).collect();
            let secret = run.arg_file(0) == "2\n";
            assert_eq!(
                extra,
                if secret {
                    vec!["mode", "strict"]
                } else {
                    vec![]
                }
            );
            if run.input_text() == run.arg_file(1) {
                Act::exits(42)
            } else {
                Act::exits(43).file("judgemessage.txt", "off by one\n")
            }
        });
    let (check, _) = verify(&fake, dir.path());
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    let off = check
        .solutions
        .iter()
        .find(|s| s.path.ends_with("off.py"))
        .unwrap();
    let failure = off.report.as_ref().unwrap().first_failure().unwrap();
    assert_eq!(
        (failure.verdict, failure.message.as_str()),
        (Verdict::WA, "off by one")
    );
    // Samples first, then the secret test, for the accepted one.
    let tests: Vec<String> = fake
        .runs_of("output-validator")
        .into_iter()
        .map(|c| c.args[3..].join(" "))
        .collect();
    assert_eq!(tests, ["", "mode strict", ""]);
}

#[test]
fn a_polygon_package_without_its_generated_tests_gets_them_from_its_generator_and_main() {
    let dir = tempfile::tempdir().unwrap();
    fake::file(dir.path(), "tests/01", "1\n");
    fake::source(dir.path(), "files/gen.cpp", "gen");
    fake::source(dir.path(), "solutions/main.py", "ref");
    fake::source(dir.path(), "solutions/small.py", "small-only");
    fake::file(
        dir.path(),
        "problem.xml",
        r#"<?xml version="1.0" encoding="utf-8"?>
<problem revision="1" short-name="double-generated">
  <names><name language="english" value="Double"/></names>
  <judging input-file="" output-file="">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>67108864</memory-limit>
      <test-count>3</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests>
        <test method="manual" sample="true"/>
        <test cmd="gen 2" method="generated"/>
        <test cmd="gen 7" method="generated"/>
      </tests>
    </testset>
  </judging>
  <files><executables><executable><source path="files/gen.cpp" type="cpp.g++17"/></executable></executables></files>
  <assets>
    <checker name="std::wcmp.cpp" type="testlib"/>
    <solutions>
      <solution tag="main"><source path="solutions/main.py" type="python.3"/></solution>
      <solution tag="wrong-answer"><source path="solutions/small.py" type="python.3"/></solution>
    </solutions>
  </assets>
</problem>
"#,
    );
    // Right up to 3 only: the generated test 03 (n = 7) shows it.
    let fake = programs().program("small-only", |run| match number(run) {
        n if n <= 3 => Act::prints(format!("{}\n", 2 * n)),
        _ => Act::prints("0\n"),
    });
    let (check, events) = verify(&fake, dir.path());
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    let small = check
        .solutions
        .iter()
        .find(|s| s.path.ends_with("small.py"))
        .unwrap();
    let failure = small.report.as_ref().unwrap().first_failure().unwrap();
    assert_eq!(
        (failure.name.as_str(), failure.verdict),
        ("03", Verdict::WA)
    );
    // Made in the work folder, not in the package.
    assert!(!dir.path().join("tests/02").exists() && !dir.path().join("tests/01.a").exists());
    let gen_args: Vec<Vec<String>> = fake.runs_of("gen").into_iter().map(|c| c.args).collect();
    assert_eq!(gen_args, [["2"], ["7"]]);
    let noted = events.iter().any(|e| {
        matches!(e, Event::Note { message, .. } if message.contains("made 2 input(s) with the generator(s) gen and 3 answer(s) with the main solution solutions/main.py"))
    });
    assert!(noted, "{events:?}");
}

/// A Kattis legacy scoring package (n → 2n) with a sample and a secret test, no time limit, no
/// submissions.
fn legacy_scoring() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fake::file(d, "problem.yaml", "name: Double\ntype: scoring\n");
    fake::file(d, "data/sample/1.in", "1\n");
    fake::file(d, "data/sample/1.ans", "2\n");
    fake::file(d, "data/secret/2.in", "2\n");
    fake::file(d, "data/secret/2.ans", "4\n");
    dir
}

/// A fake grader: always accepts; the sum of its items' scores, halved with the flag `half`.
fn summing_grader(run: &Run) -> Act {
    let sum: f64 = run
        .input_text()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap())
        .sum();
    let half = run.args.iter().any(|a| a == "half");
    Act::prints(format!("AC {}\n", if half { sum / 2.0 } else { sum }))
}

#[test]
fn a_custom_graders_scores_are_checked_against_what_the_submissions_expect() {
    // A legacy scoring package whose secret group is scored by its own grader (sum, halved by
    // its flag): ref gets the sample's 1 and the grader's 25 of secret's 50; `sample` answers
    // the sample only (secret: WA 0, which the grader accepts with 0).
    let dir = legacy_scoring();
    let d = dir.path();
    fake::file(d, ".timelimit", "1\n");
    fake::file(
        d,
        "data/secret/testdata.yaml",
        "grading: custom\nrange: 0 50\naccept_score: 50\ngrader_flags: half\non_reject: continue\n",
    );
    fake::source(d, "graders/grader.py", "grader");
    fake::source(d, "submissions/accepted/ref.py", "ref");
    fake::source(d, "submissions/partially_accepted/sample.py", "sample");
    let fake = programs()
        .program("grader", summing_grader)
        .program("sample", |run| {
            Act::prints(if number(run) == 1 { "2\n" } else { "0\n" })
        });
    let (check, events) = verify(&fake, d);
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    let scores: Vec<(Option<f64>, Option<f64>)> = check
        .solutions
        .iter()
        .map(|s| {
            let r = s.report.as_ref().unwrap();
            (r.score, r.max_score)
        })
        .collect();
    assert_eq!(scores, [(Some(26.0), Some(51.0)), (Some(1.0), Some(51.0))]);
    let graded: Vec<(Vec<String>, String)> = fake
        .runs_of("grader")
        .iter()
        .map(|c| (c.args.clone(), c.test.clone()))
        .collect();
    assert_eq!(graded.len(), 2, "{graded:?}");
    assert!(
        graded.iter().all(|(args, _)| args == &["half"]),
        "{graded:?}"
    );
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::Note { message, .. } if message.contains("grader"))));
    // Without the flag the grader gives ref all of secret: then it is no partial score.
    fake::file(
        d,
        "data/secret/testdata.yaml",
        "grading: custom\nrange: 0 50\naccept_score: 50\non_reject: continue\n",
    );
    fake::source(d, "submissions/partially_accepted/full.py", "ref");
    let (check, _) = verify(&fake, d);
    assert!(!check.ok());
    let failed: Vec<String> = outcomes(&check)
        .into_iter()
        .filter(|(_, _, holds)| !holds)
        .map(|(name, _, _)| name)
        .collect();
    assert_eq!(failed, ["full.py"]);
}

#[test]
fn a_crashing_grader_is_a_judge_error_naming_it_and_its_last_lines() {
    let dir = legacy_scoring();
    let d = dir.path();
    fake::file(d, ".timelimit", "1\n");
    fake::file(
        d,
        "data/secret/testdata.yaml",
        "grading: custom\nrange: 0 50\n",
    );
    fake::source(d, "graders/grader.py", "grader");
    fake::source(d, "submissions/accepted/ref.py", "ref");
    for (act, why) in [
        (
            Act::exits(1).stderr("Traceback (most recent call last):\n  File \"grader.py\", line 3, in <module>\nValueError: bad line\n"),
            "the grader `graders/grader.py` crashed (exit code 1): ValueError: bad line",
        ),
        (
            Act::exits(3).stderr("usage: grader\n"),
            "the grader `graders/grader.py` failed (exit code 3; a grader exits 0)\n    usage: grader",
        ),
        (
            Act::prints("accepted\n"),
            "the grader `graders/grader.py` printed `accepted` where one line `VERDICT SCORE` was due",
        ),
    ] {
        let fake = programs().always("grader", act);
        let (check, _) = verify(&fake, d);
        let ref_ = &check.solutions[0];
        let report = ref_.report.as_ref().unwrap();
        assert_eq!(report.verdict, Verdict::JE, "{report:?}");
        let group = report.groups.iter().find(|g| g.name == "secret").unwrap();
        let note = group.note.as_deref().unwrap_or_default();
        assert!(note.starts_with(why), "{note}");
    }
}

#[test]
fn custom_grading_without_a_grader_is_refused_and_one_that_does_not_compile_is_named() {
    let dir = legacy_scoring();
    let d = dir.path();
    fake::file(d, ".timelimit", "1\n");
    fake::file(d, "data/secret/testdata.yaml", "grading: custom\n");
    fake::source(d, "submissions/accepted/ref.py", "ref");
    let err = crate::package::Problem::load(d).unwrap_err();
    assert!(err.file.ends_with("graders"), "{err:?}");
    assert!(err.message.contains("no graders/ folder"), "{err}");
    fake::source(d, "graders/grader.py", "grader");
    let fake = programs().compile_error("grader", "grader.py:1: SyntaxError");
    let (check, _) = verify(&fake, d);
    let broken = messages(&check, Severity::Broken).join("\n");
    assert!(
        broken.contains("the grader") && broken.contains("grader.py does not compile"),
        "{broken}"
    );
}

#[test]
fn a_partially_accepted_submission_neither_gives_the_limit_nor_is_the_slowest_accepted() {
    // Legacy scoring package without a time limit: accepted/ref.py takes 0.1 s, the slower
    // partially_accepted/ one 0.9 s. The limit is ref's 0.1 s x 5, rounded up to 1 s (with the
    // slow one it would be 5 s), and the advice's slowest accepted is ref.
    let dir = legacy_scoring();
    let d = dir.path();
    fake::source(d, "submissions/accepted/ref.py", "quick");
    fake::source(d, "submissions/partially_accepted/slow.py", "steady");
    let doubles =
        |ms: u64| move |run: &Run| Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(ms);
    let fake = programs()
        .program("quick", doubles(100))
        .program("steady", doubles(900));
    let (check, _) = verify(&fake, d);
    let problem = check.problem.as_ref().unwrap();
    assert_eq!(
        problem.limits.time,
        Duration::from_secs(1),
        "{}",
        problem.origin.time
    );
    let advice = check.advice.as_ref().unwrap();
    let (t, path) = advice.slowest_accepted.as_ref().unwrap();
    assert!(path.ends_with("ref.py"), "{path:?}");
    assert_eq!(*t, Duration::from_millis(100));
}

#[test]
fn the_advice_applies_the_packages_own_time_rule() {
    // ac_to_time_limit 3 with a 0.5 s resolution: 0.72 s x 3 = 2.16 s, rounded up to 2.5 s.
    let dir = kattis_limits(
        "  time_limit: 4.0\n  time_multipliers:\n    ac_to_time_limit: 3\n  time_resolution: 0.5\n",
        &[("accepted/heavy.py", "heavy")],
        "",
    );
    let fake = kattis_programs().program("heavy", |run| {
        Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(720)
    });
    let (check, _) = verify(&fake, dir.path());
    assert!(check.ok(), "{:?} {:?}", check.findings, outcomes(&check));
    let advice = check.advice.unwrap();
    assert_eq!(advice.kattis_limit, Some(Duration::from_millis(2500)));
    assert_eq!(advice.rule.unwrap().multiplier, 3.0);
}

/// What `verify` announced it was checking.
fn checking(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Step { verb, what, .. } if verb == "Checking" => Some(what.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn verify_announces_only_the_checks_a_package_has() {
    const CHECKER_TESTS: &str = "the checker against checker_tests.toml";
    const GENERATED: &str = "that generated tests are up to date";
    let (_, events) = verify(&programs(), native(&[("accepted/ref.py", "ref")]).path());
    let said = checking(&events);
    assert!(
        !said.iter().any(|w| w == CHECKER_TESTS || w == GENERATED),
        "{said:?}"
    );
    let (_, events) = verify(&programs(), generated(Some("4\n"), "8\n").path());
    assert!(checking(&events).iter().any(|w| w == GENERATED));
    let dir = native_with(CUSTOM, &[("accepted/ref.py", "ref")]);
    fake::file(
        dir.path(),
        "checker_tests.toml",
        "[[case]]\nname = \"right\"\ntest = \"1\"\noutput = \"2\\n\"\nexpect = \"AC\"\n",
    );
    let (_, events) = verify(&programs().always("checker", Act::ok()), dir.path());
    assert!(checking(&events).iter().any(|w| w == CHECKER_TESTS));
}

/// Prints 2n after `ms` of CPU time.
fn doubles_in(ms: u64) -> impl Fn(&Run) -> Act + Send + Sync + 'static {
    move |run: &Run| Act::prints(format!("{}\n", 2 * number(run))).cpu_ms(ms)
}

/// A solution's file name, its verdict and each test's.
type SolutionVerdicts = (String, Option<Verdict>, Vec<Verdict>);

/// Each solution's verdict and each test's, and whether the package is sound.
fn verdicts(check: &ProblemCheck) -> (bool, Vec<SolutionVerdicts>) {
    let solutions = check
        .solutions
        .iter()
        .map(|s| {
            let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
            let report = s.report.as_ref();
            let tests = report
                .map(|r| r.tests.iter().map(|t| t.verdict).collect())
                .unwrap_or_default();
            (name, report.map(|r| r.verdict), tests)
        })
        .collect();
    (check.ok(), solutions)
}

#[test]
fn the_runs_that_derive_a_kattis_limit_are_the_accepted_solutions_results() {
    // 0.45 s x 2 rounded up: 1 s, the lowest the rule allows. With several jobs the TLE
    // submission is judged with that limit while the accepted ones are measured, and kept.
    let dir = kattis_limits(
        "",
        &[
            ("accepted/a.py", "ref"),
            ("accepted/b.py", "steady"),
            ("time_limit_exceeded/slow.py", "too-slow"),
        ],
        "",
    );
    let fake = || {
        kattis_programs()
            .program("steady", doubles_in(450))
            .program("too-slow", doubles_in(1100))
    };
    let (one_fake, many_fake) = (fake(), fake());
    let (one, one_events) = verify_jobs(&one_fake, dir.path(), 1);
    let (many, many_events) = verify_jobs(&many_fake, dir.path(), 2);
    assert!(one.ok(), "{:?} {:?}", one.findings, outcomes(&one));
    assert_eq!(verdicts(&many), verdicts(&one));
    for (check, fake) in [(&one, &one_fake), (&many, &many_fake)] {
        assert_eq!(
            check.problem.as_ref().unwrap().limits.time,
            Duration::from_secs(1)
        );
        // Measured once on each of the 2 tests, and not judged again.
        assert_eq!(fake.runs_of("ref").len(), 2);
        assert_eq!(fake.runs_of("steady").len(), 2);
    }
    // One job: judged once the limit is known (1.1 s on the first test: TLE). Several: judged
    // with 1 s beside the measuring (1.1 s is under the 1.5 s cap: judged again alone), kept.
    assert_eq!(one_fake.runs_of("too-slow").len(), 1);
    let runs: Vec<bool> = many_fake
        .runs_of("too-slow")
        .iter()
        .map(|c| c.alone)
        .collect();
    assert_eq!(runs, [false, true]);
    // The kept runs' events come after the limit's note, in the solutions' order, each
    // solution's events once.
    for events in [&one_events, &many_events] {
        let note = events
            .iter()
            .position(
                |e| matches!(e, Event::Note { message, .. } if message.starts_with("time limit 1")),
            )
            .unwrap();
        let firsts: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Event::CompileStarted { .. }))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(firsts.len(), 3);
        assert!(firsts[0] > note, "{events:?}");
        let finished = events
            .iter()
            .filter(|e| matches!(e, Event::TestFinished { .. }))
            .count();
        assert_eq!(finished, 2 + 2 + 1);
    }
}

#[test]
fn the_others_are_judged_again_when_the_limit_comes_out_above_the_lowest() {
    // 0.9 s x 2 rounded up: 2 s. Judged with 1 s beside the measuring, `slow-wa` (1.5 s, a wrong
    // answer) was a TLE and `too-slow` (2.5 s) one too: both judged again with 2 s.
    let dir = kattis_limits(
        "",
        &[
            ("accepted/a.py", "ref"),
            ("accepted/b.py", "steady"),
            ("wrong_answer/w.py", "slow-wa"),
            ("time_limit_exceeded/slow.py", "too-slow"),
        ],
        "",
    );
    let fake = || {
        kattis_programs()
            .program("steady", doubles_in(900))
            .program("slow-wa", |_| Act::prints("0\n").cpu_ms(1500))
            .program("too-slow", doubles_in(2500))
    };
    let (one_fake, many_fake) = (fake(), fake());
    let (one, _) = verify_jobs(&one_fake, dir.path(), 1);
    let (many, _) = verify_jobs(&many_fake, dir.path(), 2);
    assert!(one.ok(), "{:?} {:?}", one.findings, outcomes(&one));
    assert_eq!(verdicts(&many), verdicts(&one));
    assert_eq!(
        many.problem.as_ref().unwrap().limits.time,
        Duration::from_secs(2)
    );
    // 0.9 s is under 2 s / 1.5: the measuring runs are kept.
    assert_eq!(one_fake.runs_of("steady").len(), 2);
    assert_eq!(many_fake.runs_of("steady").len(), 2);
    let wa: Vec<bool> = many_fake
        .runs_of("slow-wa")
        .into_iter()
        .filter(|c| c.test == "1")
        .map(|c| c.alone)
        .collect();
    // With 1 s: TLE beside (1.5 s, the cap), then with 2 s: a WA near the limit, again alone
    // (test 2 may have run ahead in the other job meanwhile: its result is dropped).
    assert_eq!(wa, [false, false, true]);
}

#[test]
fn a_limit_measured_beside_other_jobs_near_a_step_of_the_rule_is_measured_again_alone() {
    // 0.45 s alone gives 1 s; 0.55 s beside another job would give 2 s: measured again alone.
    let dir = kattis_limits("", &[("accepted/a.py", "crowded-ref")], "");
    let fake = kattis_programs().program("crowded-ref", |run| {
        doubles_in(if run.alone { 450 } else { 550 })(run)
    });
    let (one, _) = verify_jobs(&fake, dir.path(), 1);
    let (many, _) = verify_jobs(&fake, dir.path(), 2);
    for check in [&one, &many] {
        assert!(check.ok(), "{:?}", check.findings);
        let problem = check.problem.as_ref().unwrap();
        assert_eq!(
            problem.limits.time,
            Duration::from_secs(1),
            "{}",
            problem.origin.time
        );
        assert!(
            problem.origin.time.contains("took 0.450 s"),
            "{}",
            problem.origin.time
        );
    }
}
