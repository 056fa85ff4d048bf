//! `-j 1` and `-j N` give the same verdicts and the same events (the `rejudged` ones aside), over
//! the fake executor: with several jobs every run that shares the CPUs is slower
//! ([`FakeExecutor::crowded`]), so the re-judge rule is what keeps the verdicts equal.

use super::*;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use crate::jobs::Gate;
use judge_model::event::Collect;
use judge_model::Verdict;
use std::sync::Arc;

fn doubles(run: &Run) -> Act {
    let n: u64 = run.input_text().trim().parse().unwrap();
    Act::prints(format!("{}\n", 2 * n))
}

/// Programs whose verdicts depend on the load: 0.8 s alone, 1.2 s beside others (1 s limit).
fn programs() -> FakeExecutor {
    FakeExecutor::new()
        .program("fast", |run| doubles(run).cpu_ms(50))
        .program("tight", |run| {
            doubles(run).cpu_ms(if run.alone { 800 } else { 1200 })
        })
        .program("tight-on-4", |run| {
            let ms = match (run.test.as_str(), run.alone) {
                ("4", true) => 950,
                ("4", false) => 1400,
                _ => 100,
            };
            doubles(run).cpu_ms(ms)
        })
        .program("wrong-on-3", |run| match run.test.as_str() {
            "3" => Act::prints("0\n"),
            _ => doubles(run),
        })
        .program("slow", |run| {
            let ms = if run.test == "5" { 3000 } else { 700 };
            doubles(run).cpu_ms(if run.alone { ms } else { ms * 3 / 2 })
        })
        .program("crash-on-2", |run| match run.test.as_str() {
            "2" => Act::exits(1).stderr("oops\n"),
            _ => doubles(run).cpu_ms(300),
        })
        .compile_error("broken", "no main")
}

const NAMES: [&str; 7] = [
    "fast",
    "tight",
    "tight-on-4",
    "wrong-on-3",
    "slow",
    "crash-on-2",
    "broken",
];

/// What a reader sees of the events: kind, solution (by name), test and verdict (no run ids or
/// times).
fn seen(events: &[Event]) -> Vec<String> {
    let name = |path: &String| {
        std::path::Path::new(path)
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    events
        .iter()
        .filter_map(|e| match e {
            Event::CompileStarted { solution, .. } => Some(format!("compile {}", name(solution))),
            Event::CompileFinished {
                solution, compile, ..
            } => Some(format!("compiled {} {}", name(solution), compile.ok)),
            Event::TestStarted { solution, test, .. } => {
                Some(format!("start {} {}", name(solution), test.name))
            }
            Event::TestFinished {
                solution,
                test,
                result,
                ..
            } => Some(format!(
                "end {} {} {}",
                name(solution),
                test.name,
                result.verdict
            )),
            Event::SolutionFinished {
                solution, verdict, ..
            } => Some(format!("done {} {verdict}", name(solution))),
            _ => None,
        })
        .collect()
}

struct Judged {
    verdicts: Vec<(Verdict, Vec<(Verdict, u128)>)>,
    events: Vec<String>,
    rejudged: usize,
}

fn judge_with_jobs(jobs: usize, alone_for_tle: bool) -> Judged {
    let entries: Vec<(&str, JudgeOptions)> = NAMES
        .iter()
        .map(|name| {
            let options = JudgeOptions {
                alone: alone_for_tle && *name == "slow",
                ..JudgeOptions::default()
            };
            (*name, options)
        })
        .collect();
    judge_entries(jobs, &programs(), &entries)
}

/// Judges the fake programs `entries` (name, options) on tests 1..=5 (n → 2n, a 1 s limit) with
/// `jobs` engines over `fake` (crowded with several).
fn judge_entries(jobs: usize, fake: &FakeExecutor, entries: &[(&str, JudgeOptions)]) -> Judged {
    let pkg = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let tests: Vec<(String, String, String)> = (1..=5)
        .map(|i| (i.to_string(), format!("{i}\n"), format!("{}\n", 2 * i)))
        .collect();
    let refs: Vec<(&str, &str, &str)> = tests
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    fake::native(pkg.path(), 1.0, 64, "", &refs);
    let problem = Problem::load(pkg.path()).unwrap();
    let mut engines: Vec<Engine> = if jobs == 1 {
        vec![fake.engine(work.path())]
    } else {
        let gate = Arc::new(Gate::default());
        (0..jobs)
            .map(|_| {
                let mut engine = fake.clone().crowded(gate.clone()).engine(work.path());
                engine.join(gate.clone());
                engine
            })
            .collect()
    };
    let mut refs: Vec<&mut Engine> = engines.iter_mut().collect();
    let checker = refs[0].prepare_checker(&problem).unwrap();
    let entries: Vec<Submission> = entries
        .iter()
        .map(|(name, options)| Submission {
            source: fake::source(work.path(), &format!("src/{name}.py"), name),
            options: options.clone(),
            skip: None,
            limit: None,
            run: None,
        })
        .collect();
    let mut events = Collect::default();
    let outcomes = judge_solutions(&mut refs, &problem, &checker, &entries, &mut events);
    let verdicts = outcomes
        .into_iter()
        .map(|o| {
            let report = o.unwrap().unwrap();
            let tests = report
                .tests
                .iter()
                .map(|t| (t.verdict, t.time.as_millis()))
                .collect();
            (report.verdict, tests)
        })
        .collect();
    let rejudged = events
        .0
        .iter()
        .filter(|e| matches!(e, Event::Rejudged { .. }))
        .count();
    Judged {
        verdicts,
        events: seen(&events.0),
        rejudged,
    }
}

/// A test's verdict and its time in ms (`None` for a TLE).
type TestDecided = (Verdict, Option<u128>);

/// The verdicts and times, a TLE's time left out: it is the CPU cap the run had (the limit
/// alone, 1.5 × it beside other jobs: `crate::engine::beside_cap`), not the program's.
fn decided(judged: &Judged) -> Vec<(Verdict, Vec<TestDecided>)> {
    judged
        .verdicts
        .iter()
        .map(|(v, tests)| {
            let tests = tests
                .iter()
                .map(|(t, ms)| (*t, (*t != Verdict::TLE).then_some(*ms)))
                .collect();
            (*v, tests)
        })
        .collect()
}

#[test]
fn one_job_and_several_jobs_give_the_same_verdicts_times_and_events() {
    let one = judge_with_jobs(1, false);
    let finals: Vec<Verdict> = one.verdicts.iter().map(|(v, _)| *v).collect();
    use Verdict::*;
    assert_eq!(finals, [AC, AC, AC, WA, TLE, RE, CE]);
    assert_eq!(one.rejudged, 0, "one job is always alone");
    for jobs in [2, 4] {
        let many = judge_with_jobs(jobs, false);
        assert_eq!(decided(&many), decided(&one), "-j {jobs}");
        assert_eq!(many.events, one.events, "-j {jobs}");
        // Beside others, every test of `tight`, test 4 of `tight-on-4` and the tests of `slow`
        // before its TLE were near the limit (1.05–1.4 s: over it, under the 1.5 s cap): judged
        // again alone. `slow`'s test 5 ran to the cap beside the others: a clear TLE, kept.
        assert_eq!(many.rejudged, 5 + 1 + 4, "-j {jobs}");
    }
}

#[test]
fn beside_other_jobs_a_run_may_go_on_to_one_and_a_half_times_the_limit_and_over_it_is_a_tle() {
    // 1.2 s of CPU, then a crash: the limit (1 s) would have stopped it first, so it is a TLE
    // whatever the cap was; between the limit and the cap it is judged again alone.
    let caps = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = caps.clone();
    let fake = programs().program("late-crash", move |run| {
        // Test 1's runs (another job may run test 2 ahead meanwhile: its result is dropped).
        if run.test == "1" {
            seen.lock()
                .unwrap()
                .push((run.alone, run.spec.limits.cpu.as_millis()));
        }
        Act::exits(1).stderr("oops\n").cpu_ms(1200)
    });
    let entries = [("late-crash", JudgeOptions::default())];
    let one = judge_entries(1, &fake, &entries);
    assert_eq!(one.verdicts[0].0, Verdict::TLE);
    assert_eq!(*caps.lock().unwrap(), [(true, 1000)]);
    caps.lock().unwrap().clear();
    let many = judge_entries(2, &fake, &entries);
    assert_eq!(decided(&many), decided(&one));
    assert_eq!(many.rejudged, 1);
    // Beside the other job with the cap, then alone with the limit.
    assert_eq!(*caps.lock().unwrap(), [(false, 1500), (true, 1000)]);
}

#[test]
fn a_sleepers_wall_clock_tle_beside_other_jobs_stands_without_a_run_alone() {
    // 20 ms of CPU, then asleep past any wall limit: killed by the wall clock beside another job
    // or alone alike. One that computed near the limit before the wall clock stopped it is
    // judged again alone.
    let fake = programs()
        .program("sleeper", |_| Act::ok().cpu_ms(20).wall_ms(600_000))
        .program("starved", |_| Act::ok().cpu_ms(800).wall_ms(600_000));
    for (name, rejudged) in [("sleeper", 0), ("starved", 1)] {
        let entries = [(name, JudgeOptions::default())];
        let one = judge_entries(1, &fake, &entries);
        assert_eq!(one.verdicts[0].0, Verdict::TLE, "{name}");
        let many = judge_entries(2, &fake, &entries);
        assert_eq!(decided(&many), decided(&one), "{name}");
        assert_eq!(many.rejudged, rejudged, "{name}");
    }
}

#[test]
fn a_solution_expected_to_run_out_of_time_starts_first_beside_the_others_and_its_clear_tle_stands()
{
    let expect = |name: &str| JudgeOptions {
        expected: vec![if name == "slow" {
            Verdict::TLE
        } else {
            Verdict::AC
        }],
        ..JudgeOptions::default()
    };
    let entries: Vec<(&str, JudgeOptions)> = NAMES.iter().map(|n| (*n, expect(n))).collect();
    let one = judge_entries(1, &programs(), &entries);
    let fake = programs();
    let many = judge_entries(3, &fake, &entries);
    assert_eq!(decided(&many), decided(&one));
    assert_eq!(many.events, one.events);
    let slow: Vec<(String, bool)> = fake
        .runs_of("slow")
        .into_iter()
        .map(|c| (c.test, c.alone))
        .collect();
    // Tests 1–4 beside the others (1.05 s: judged again alone, 0.7 s), test 5 to the cap: once.
    let want: Vec<(String, bool)> = ["1", "1", "2", "2", "3", "3", "4", "4", "5"]
        .iter()
        .enumerate()
        .map(|(k, t)| (t.to_string(), k % 2 == 1 && k < 8))
        .collect();
    assert_eq!(slow, want);
}

#[test]
fn a_solution_judged_alone_from_the_start_is_not_judged_again() {
    let one = judge_with_jobs(1, true);
    let many = judge_with_jobs(3, true);
    assert_eq!(decided(&many), decided(&one));
    assert_eq!(many.events, one.events);
    // Only `tight` (5 tests) and test 4 of `tight-on-4`: `slow` ran alone.
    assert_eq!(many.rejudged, 6);
}

#[test]
fn tests_after_the_first_failure_leave_no_events_with_several_jobs() {
    let many = judge_with_jobs(4, false);
    let crash: Vec<&str> = many
        .events
        .iter()
        .map(String::as_str)
        .filter(|e| e.contains("crash-on-2"))
        .collect();
    assert_eq!(
        crash,
        [
            "compile crash-on-2",
            "compiled crash-on-2 true",
            "start crash-on-2 1",
            "end crash-on-2 1 AC",
            "start crash-on-2 2",
            "end crash-on-2 2 RE",
            "done crash-on-2 RE",
        ]
    );
}

/// `jobs` engines over `fakes` (engine k over `fakes[k]`), each running the program `p` once per
/// item of `spread`: which items ran well.
fn spread_over(fakes: &[FakeExecutor], items: usize) -> Vec<Option<bool>> {
    let work = tempfile::tempdir().unwrap();
    let mut engines: Vec<Engine> = fakes.iter().map(|f| f.engine(work.path())).collect();
    let source = fake::source(work.path(), "p.py", "p");
    let artifact = FakeExecutor::new()
        .always("p", Act::ok())
        .engine(work.path())
        .build(&source)
        .unwrap()
        .0
        .unwrap();
    let mut refs: Vec<&mut Engine> = engines.iter_mut().collect();
    let limits = crate::engine::checker_limits();
    crate::jobs::spread(&mut refs, items, &|_| false, &|engine, _| {
        engine
            .execute(&artifact, &[], None, &[], limits.clone())
            .is_ok()
    })
}

#[test]
fn a_job_whose_executor_fails_takes_no_more_work_while_another_can() {
    let bad = FakeExecutor::new().always("p", Act::executor_fails("worker gone"));
    let good = FakeExecutor::new().always("p", Act::ok());
    let results = spread_over(&[bad.clone(), good.clone()], 20);
    assert!(results.iter().all(Option::is_some), "every item is done");
    let failed = results.iter().filter(|r| **r == Some(false)).count();
    assert!(bad.runs_of("p").len() <= 1, "{:?}", bad.runs_of("p"));
    assert_eq!(failed, bad.runs_of("p").len());
    assert_eq!(good.runs_of("p").len(), 20 - failed);
    // When every job's executor fails, the last one left still takes every item.
    let results = spread_over(&[bad.clone(), bad], 5);
    assert_eq!(results, [Some(false); 5]);
}

#[test]
fn run_with_all_spreads_one_solution_and_keeps_every_test_in_order() {
    let pkg = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let tests: Vec<(String, String, String)> = (1..=6)
        .map(|i| (i.to_string(), format!("{i}\n"), format!("{}\n", 2 * i)))
        .collect();
    let refs: Vec<(&str, &str, &str)> = tests
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    fake::native(pkg.path(), 1.0, 64, "", &refs);
    let problem = Problem::load(pkg.path()).unwrap();
    let fake = programs().program("mixed", |run| match run.test.as_str() {
        "2" => Act::prints("0\n"),
        "4" => Act::exits(1),
        _ => doubles(run),
    });
    let verdicts = |jobs: usize| {
        let gate = Arc::new(Gate::default());
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
        let checker = refs[0].prepare_checker(&problem).unwrap();
        let source = fake::source(work.path(), "mixed.py", "mixed");
        let options = JudgeOptions {
            all: true,
            ..JudgeOptions::default()
        };
        let report = judge_solutions(
            &mut refs,
            &problem,
            &checker,
            &[Submission::new(source, options)],
            &mut Collect::default(),
        )
        .pop()
        .flatten()
        .unwrap()
        .unwrap();
        let tests: Vec<(String, Verdict)> = report
            .tests
            .iter()
            .map(|t| (t.name.clone(), t.verdict))
            .collect();
        (report.verdict, tests)
    };
    let one = verdicts(1);
    use Verdict::*;
    let want: Vec<(String, Verdict)> = [AC, WA, AC, RE, AC, AC]
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1).to_string(), *v))
        .collect();
    assert_eq!(one, (WA, want));
    assert_eq!(verdicts(3), one);
}

#[test]
fn with_several_jobs_the_solutions_expected_to_run_out_of_time_are_taken_first_in_one_piece() {
    let entry = |alone: bool, expected: &[Verdict]| {
        Submission::new(
            "x.py",
            JudgeOptions {
                alone,
                expected: expected.to_vec(),
                ..JudgeOptions::default()
            },
        )
    };
    use Verdict::*;
    let entries = [
        entry(false, &[AC]),
        entry(false, &[TLE]),
        entry(true, &[]),
        entry(false, &[WA]),
        entry(false, &[TLE, AC]),
    ];
    let built = [true, true, true, false, true];
    // Several jobs: the one run alone, then the TLE ones, each one piece of its 3 tests in
    // order; then a piece per test of the others (entry 3 was not built).
    let want = vec![
        (2, 0..3),
        (1, 0..3),
        (4, 0..3),
        (0, 0..1),
        (0, 1..2),
        (0, 2..3),
    ];
    assert_eq!(pieces(&entries, &built, 3, true), want);
    // One job: in entry order.
    let want = vec![
        (0, 0..1),
        (0, 1..2),
        (0, 2..3),
        (1, 0..3),
        (2, 0..3),
        (4, 0..3),
    ];
    assert_eq!(pieces(&entries, &built, 3, false), want);
}
