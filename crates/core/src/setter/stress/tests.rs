//! `stress`'s search and shrinking over the fake executor (`crate::executor::fake`): scripted
//! generators, references and solutions that disagree on known inputs.
//!
//! The problem: the input is one number per line, the answer their sum. The generator prints
//! `size` numbers below 100 from its seed; the validator accepts numbers below 100.

use super::*;
use crate::executor::fake::{self, Act, FakeExecutor, Run};
use crate::jobs::Gate;
use std::sync::Arc;

fn numbers(run: &Run) -> Vec<u64> {
    run.input_text()
        .split_whitespace()
        .map(|w| w.parse().unwrap_or(u64::MAX))
        .collect()
}

fn sum_where(run: &Run, keep: impl Fn(u64) -> bool) -> Act {
    let sum: u64 = numbers(run).into_iter().filter(|&n| keep(n)).sum();
    Act::prints(format!("{sum}\n"))
}

/// `gen SEED SIZE`: SIZE numbers below 100, one per line.
fn generator(run: &Run) -> Act {
    let seed: u64 = run.args[0].parse().unwrap();
    let size: u64 = run.args[1].parse().unwrap();
    let mut x = seed;
    let mut out = String::new();
    for _ in 0..size {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        out.push_str(&format!("{}\n", (x >> 33) % 100));
    }
    Act::prints(out)
}

fn programs() -> FakeExecutor {
    FakeExecutor::new()
        .program("gen", generator)
        .program("brute", |run| sum_where(run, |_| true))
        // Forgets numbers over 50.
        .program("buggy", |run| sum_where(run, |n| n <= 50))
        .program("validator", |run| {
            let text = run.input_text();
            let valid = !text.is_empty()
                && text
                    .lines()
                    .all(|l| l.trim().parse::<u64>().is_ok_and(|n| n < 100));
            if valid {
                Act::ok()
            } else {
                Act::exits(1).stderr("not a list of numbers below 100\n")
            }
        })
}

/// A native package with the reference `brute`, the generator `gen.py` and the validator.
fn package() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fake::native(dir.path(), 1.0, 64, "", &[("1", "1\n2\n", "3\n")]);
    fake::source(dir.path(), "solutions/accepted/brute.py", "brute");
    fake::source(dir.path(), "gen.py", "gen");
    fake::source(dir.path(), "validator.py", "validator");
    dir
}

fn options(seconds: f64) -> StressOptions {
    StressOptions {
        gen: "gen.py {seed} {size}".into(),
        time_budget: Duration::from_secs_f64(seconds),
        against: None,
        generator_time_limit: None,
    }
}

/// Stresses the program `name` with `jobs` engines.
fn stress_with(
    fake: &FakeExecutor,
    pkg: &Path,
    name: &str,
    options: &StressOptions,
    jobs: usize,
) -> Result<Option<Counterexample>, SetterError> {
    let work = tempfile::tempdir().unwrap();
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
    let problem = Problem::load(pkg).unwrap();
    let source = fake::source(work.path(), &format!("{name}.py"), name);
    stress(&mut refs, &problem, &source, options, &mut |_| {})
}

#[test]
fn a_disagreement_is_found_and_shrunk_to_one_line_that_shows_it() {
    let pkg = package();
    let fake = programs();
    let found = stress_with(&fake, pkg.path(), "buggy", &options(30.0), 1)
        .unwrap()
        .expect("a counterexample");
    assert_eq!(found.verdict, Verdict::WA);
    let input = String::from_utf8(found.input.clone()).unwrap();
    let lines: Vec<u64> = input.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(lines.len(), 1, "{input:?}");
    assert!(lines[0] > 50, "{input:?}");
    assert_eq!(found.answer, format!("{}\n", lines[0]).into_bytes());
    assert_eq!(found.output, b"0\n");
    assert!(found.tries >= 1);
    // The search went no further than the first failing input.
    let generated = fake.runs_of("gen").len() as u64;
    assert!(generated >= found.tries, "{generated} {}", found.tries);
}

#[test]
fn a_counterexample_is_the_same_with_several_jobs() {
    let pkg = package();
    let one = stress_with(&programs(), pkg.path(), "buggy", &options(30.0), 1)
        .unwrap()
        .unwrap();
    let many = stress_with(&programs(), pkg.path(), "buggy", &options(30.0), 3)
        .unwrap()
        .unwrap();
    assert_eq!(
        (&many.input, many.tries, many.shrink_steps),
        (&one.input, one.tries, one.shrink_steps)
    );
}

#[test]
fn shrinking_drops_lines_then_tokens_while_the_input_still_fails() {
    // Wrong only when 42 and 7 both appear: the smallest failing input has exactly those two.
    let pkg = package();
    let fake = programs()
        .program("gen", |_| Act::prints("3\n42\n5\n7\n9\n"))
        .program("pair", |run| {
            let n = numbers(run);
            if n.contains(&42) && n.contains(&7) {
                Act::prints("0\n")
            } else {
                sum_where(run, |_| true)
            }
        });
    let found = stress_with(&fake, pkg.path(), "pair", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&found.input), "42\n7\n");
    assert_eq!(found.tries, 1);
    assert!(found.shrink_steps >= 2, "{}", found.shrink_steps);
}

#[test]
fn an_input_the_validator_rejects_is_never_a_counterexample() {
    // The generator also prints numbers the validator rejects, on which the solution is wrong.
    let pkg = package();
    let fake = programs()
        .program("gen", |run| {
            let seed: u64 = run.args[0].parse().unwrap();
            Act::prints(format!("{}\n", 95 + seed % 10))
        })
        .program("brute", |run| sum_where(run, |_| true))
        .program("picky", |run| sum_where(run, |n| n < 100));
    let found = stress_with(&fake, pkg.path(), "picky", &options(0.3), 1).unwrap();
    assert!(found.is_none(), "{found:?}");
    // Every input was tried against the validator; the rejected ones went no further.
    let validated = fake.runs_of("validator").len();
    let judged = fake.runs_of("picky").len();
    assert!(validated > judged && judged > 0, "{validated} {judged}");
}

#[test]
fn no_disagreement_within_the_budget_is_no_counterexample() {
    let pkg = package();
    let fake = programs();
    let found = stress_with(&fake, pkg.path(), "brute", &options(0.2), 1).unwrap();
    assert!(found.is_none());
    assert!(!fake.runs_of("gen").is_empty());
}

#[test]
fn a_solution_too_slow_on_some_input_is_a_tle_counterexample() {
    let pkg = package();
    let fake = programs().program("slow", |run| {
        let ms = if numbers(run).iter().any(|&n| n > 90) {
            2000
        } else {
            10
        };
        sum_where(run, |_| true).cpu_ms(ms)
    });
    let found = stress_with(&fake, pkg.path(), "slow", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(found.verdict, Verdict::TLE);
    let input = String::from_utf8(found.input).unwrap();
    assert_eq!(input.lines().count(), 1, "{input:?}");
    assert!(input.trim().parse::<u64>().unwrap() > 90, "{input:?}");
}

#[test]
fn a_solution_that_does_not_compile_is_a_ce_at_once() {
    let pkg = package();
    let fake = programs().compile_error("typo", "unknown name `x`");
    let found = stress_with(&fake, pkg.path(), "typo", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(found.verdict, Verdict::CE);
    assert!(
        found.message.contains("unknown name `x`"),
        "{}",
        found.message
    );
    assert!(fake.runs_of("gen").is_empty());
}

#[test]
fn a_reference_that_fails_on_a_valid_input_is_an_error() {
    let pkg = package();
    let fake = programs().always(
        "brute",
        Act::exits(1).stderr("IndexError: list index out of range\n"),
    );
    let err = stress_with(&fake, pkg.path(), "buggy", &options(30.0), 1)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("brute.py: on an input the validator accepts, the reference solution failed (exit code 1)"),
        "{err}"
    );
}

#[test]
fn a_generator_that_fails_or_a_gen_without_seed_is_an_error() {
    let pkg = package();
    let fake = programs().always("gen", Act::ok().cpu_ms(6000));
    let err = stress_with(&fake, pkg.path(), "buggy", &options(30.0), 1)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gen.py 1 1: the generator exceeded its time limit (5 s)"),
        "{err}"
    );
    assert!(
        err.contains("hint: the limit (5 s of CPU) is `generator_time_limit`"),
        "{err}"
    );
    let mut no_seed = options(30.0);
    no_seed.gen = "gen.py 5".into();
    let err = stress_with(&programs(), pkg.path(), "buggy", &no_seed, 1)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("--gen \"gen.py 5\" has no {seed}"), "{err}");
}

#[test]
fn without_a_reference_there_is_nothing_to_stress_against() {
    let pkg = package();
    std::fs::remove_dir_all(pkg.path().join("solutions")).unwrap();
    let err = stress_with(&programs(), pkg.path(), "buggy", &options(30.0), 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no reference solution"), "{err}");
    assert!(
        err.contains("hint: put the intended solution in accepted/"),
        "{err}"
    );
    // --against names one.
    let brute = fake::source(pkg.path(), "elsewhere/brute.py", "brute");
    let mut against = options(30.0);
    against.against = Some(brute);
    let found = stress_with(&programs(), pkg.path(), "buggy", &against, 1).unwrap();
    assert_eq!(found.unwrap().verdict, Verdict::WA);
}

/// The integers of a run's input (any sign).
fn integers(run: &Run) -> Vec<i64> {
    run.input_text()
        .split_whitespace()
        .map(|w| w.parse().unwrap_or(i64::MAX))
        .collect()
}

/// Programs for inputs of big numbers: the generator prints `numbers`, the validator accepts
/// integers in `low..1_000_000_000` (absolute value below 10^9), the reference sums them.
fn big_numbers(numbers: &'static str, low: i64) -> FakeExecutor {
    programs()
        .program("gen", move |_| Act::prints(numbers))
        .program("brute", |run| {
            Act::prints(format!("{}\n", integers(run).iter().sum::<i64>()))
        })
        .program("validator", move |run| {
            let ok = run.input_text().lines().all(|l| {
                l.trim()
                    .parse::<i64>()
                    .is_ok_and(|n| n >= low && n.abs() < 1_000_000_000)
            });
            if ok && !run.input_text().is_empty() {
                Act::ok()
            } else {
                Act::exits(1).stderr("out of bounds\n")
            }
        })
}

#[test]
fn shrinking_makes_numbers_small_toward_zero() {
    // Wrong on any number above 5000: the 9-digit input shrinks to the smallest one, 5001.
    let pkg = package();
    let fake = big_numbers("123456789\n", -999_999_999).program("big", |run| {
        let n = integers(run);
        let sum: i64 = n.iter().filter(|&&x| x <= 5000).sum();
        Act::prints(format!("{sum}\n"))
    });
    let found = stress_with(&fake, pkg.path(), "big", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&found.input), "5001\n");
    assert_eq!(found.answer, b"5001\n");
    // Bisection: about log2(10^9) trials, not one per value.
    let judged = fake.runs_of("big").len();
    assert!(judged < 100, "{judged} trials");

    // A negative number keeps its sign: wrong below -300, it shrinks to -301.
    let fake = big_numbers("-987654321\n", -999_999_999).program("low", |run| {
        let sum: i64 = integers(run).iter().filter(|&&x| x >= -300).sum();
        Act::prints(format!("{sum}\n"))
    });
    let found = stress_with(&fake, pkg.path(), "low", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&found.input), "-301\n");
}

#[test]
fn numbers_shrink_no_further_than_the_validator_accepts() {
    // Wrong on every input; the validator wants numbers of at least 100: 100 it is.
    let pkg = package();
    let fake = big_numbers("734212991\n", 100).program("off", |run| {
        Act::prints(format!("{}\n", integers(run).iter().sum::<i64>() + 1))
    });
    let found = stress_with(&fake, pkg.path(), "off", &options(30.0), 1)
        .unwrap()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&found.input), "100\n");
    // Candidates below 100 went to the validator and no further.
    assert!(
        fake.runs_of("validator").len() > fake.runs_of("off").len(),
        "the validator saw every candidate"
    );
}

#[test]
fn only_plain_integers_are_made_smaller() {
    assert_eq!(integer("123456789"), Some(123_456_789));
    assert_eq!(integer("-42"), Some(-42));
    assert_eq!(integer("0"), Some(0));
    for kept in ["007", "+1", "1e9", "1.5", "-0", "-", "", "x1"] {
        assert_eq!(integer(kept), None, "{kept}");
    }
}
