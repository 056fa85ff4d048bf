use super::*;
use judge_model::Verdict::{AC, JE, RE, TLE, WA};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestRunner;
use test_case::test_case;

fn ok(verdict: Verdict) -> Option<TestOutcome> {
    Some(TestOutcome {
        verdict,
        reported: None,
    })
}

fn scored(s: f64) -> Option<TestOutcome> {
    Some(TestOutcome {
        verdict: AC,
        reported: Some(Reported::Score(s)),
    })
}

fn group(name: &str, aggregate: Aggregate, max: Option<f64>, tests: &[usize]) -> Node {
    let mut n = Node::new(name, aggregate, max);
    let share = match (aggregate, max) {
        (Aggregate::Sum, Some(m)) => Some(m / tests.len() as f64),
        (Aggregate::Min, Some(m)) => Some(m),
        _ => None,
    };
    n.items = tests
        .iter()
        .map(|&i| {
            Item::Test(TestItem {
                index: i,
                accept: share,
                reject: 0.0,
                cap: share,
            })
        })
        .collect();
    n
}

fn scoring(groups: Vec<Node>) -> Scoring {
    let named = groups.iter().map(|g| (g.name.clone(), g.tests())).collect();
    let mut root = Node::new("", Aggregate::Sum, None);
    root.items = groups.into_iter().map(Item::Node).collect();
    Scoring {
        root,
        graded_verdict: false,
        named,
    }
}

#[test]
fn pass_fail_groups_score_their_maximum_only_when_every_test_passes() {
    let s = scoring(vec![
        group("a", Aggregate::PassFail, Some(30.0), &[0, 1]),
        group("b", Aggregate::PassFail, Some(70.0), &[2, 3]),
    ]);
    let score = s.evaluate(&[ok(AC), ok(AC), ok(AC), ok(WA)]);
    assert_eq!(score.score, 30.0);
    assert_eq!(score.max_score, Some(100.0));
    assert_eq!(score.verdict, WA);
    assert_eq!(
        score
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.score, g.verdict))
            .collect::<Vec<_>>(),
        [("a", 30.0, AC), ("b", 0.0, WA)]
    );
}

#[test]
fn sum_groups_split_their_maximum_over_the_tests() {
    let s = scoring(vec![group("g", Aggregate::Sum, Some(90.0), &[0, 1, 2])]);
    let score = s.evaluate(&[ok(AC), ok(TLE), ok(AC)]);
    assert_eq!(score.score, 60.0);
    assert_eq!(score.groups[0].verdict, TLE);
}

#[test]
fn min_groups_take_the_smallest_test_score_and_checker_scores_count() {
    let s = scoring(vec![group("g", Aggregate::Min, Some(50.0), &[0, 1])]);
    assert_eq!(s.evaluate(&[scored(20.0), ok(AC)]).score, 20.0);
    assert_eq!(s.evaluate(&[scored(20.0), ok(RE)]).score, 0.0);
    // A multiplier is a fraction of the test's maximum.
    let half = Some(TestOutcome {
        verdict: AC,
        reported: Some(Reported::Multiplier(0.5)),
    });
    assert_eq!(s.evaluate(&[half, ok(AC)]).score, 25.0);
}

#[test]
fn a_checker_score_above_the_test_maximum_is_a_judge_error() {
    let s = scoring(vec![group("g", Aggregate::Sum, Some(10.0), &[0, 1])]);
    let score = s.evaluate(&[scored(7.0), ok(AC)]);
    assert_eq!(score.verdict, JE);
    assert_eq!(score.score, 0.0);
    let note = score.groups[0].note.as_deref().unwrap();
    assert!(note.contains("exceeds the test's maximum 5"), "{note}");
}

#[test]
fn an_unbounded_group_needs_the_checker_score() {
    let s = scoring(vec![group("g", Aggregate::Sum, None, &[0, 1])]);
    assert_eq!(s.evaluate(&[scored(3.5), scored(1.0)]).score, 4.5);
    let missing = s.evaluate(&[scored(3.5), ok(AC)]);
    assert_eq!(missing.verdict, JE);
    assert!(missing.groups[0]
        .note
        .as_deref()
        .unwrap()
        .contains("score.txt"));
}

#[test]
fn a_group_whose_dependency_fails_scores_nothing() {
    let mut later = group("b", Aggregate::PassFail, Some(60.0), &[2]);
    later.requires = vec!["a".into()];
    let s = scoring(vec![
        group("a", Aggregate::PassFail, Some(40.0), &[0, 1]),
        later,
    ]);
    let score = s.evaluate(&[ok(AC), ok(WA), ok(AC)]);
    assert_eq!(score.score, 0.0);
    assert_eq!(score.groups[1].verdict, WA);
    assert!(score.groups[1].note.as_deref().unwrap().contains("`a`"));
    assert_eq!(s.evaluate(&[ok(AC), ok(AC), ok(AC)]).score, 100.0);
}

#[test]
fn a_failed_dependency_carries_down_a_chain_of_groups() {
    // c requires b, b requires a; a fails, b and c pass every test of their own: neither
    // scores (Polygon's dependencies, Kattis require_pass).
    let mut b = group("b", Aggregate::PassFail, Some(30.0), &[1]);
    b.requires = vec!["a".into()];
    let mut c = group("c", Aggregate::PassFail, Some(50.0), &[2]);
    c.requires = vec!["b".into()];
    let s = scoring(vec![
        group("a", Aggregate::PassFail, Some(20.0), &[0]),
        b,
        c,
    ]);
    let score = s.evaluate(&[ok(WA), ok(AC), ok(AC)]);
    assert_eq!(score.score, 0.0, "{score:?}");
    assert_eq!(score.groups[2].verdict, WA);
    assert!(score.groups[2].note.as_deref().unwrap().contains("`a`"));
    // With a passing, only the groups' own tests count.
    assert_eq!(s.evaluate(&[ok(AC), ok(WA), ok(AC)]).score, 20.0);
    assert_eq!(s.evaluate(&[ok(AC), ok(AC), ok(AC)]).score, 100.0);
}

#[test]
fn kattis_legacy_break_stops_counting_at_the_first_rejection() {
    // accept_score 10, on_reject: break, min grader: the tests after the WA do not count.
    let mut g = Node::new("secret", Aggregate::Sum, None);
    g.on_reject_break = true;
    g.verdicts = VerdictMode::WorstError;
    g.items = (0..3)
        .map(|i| {
            Item::Test(TestItem {
                index: i,
                accept: Some(10.0),
                reject: 0.0,
                cap: None,
            })
        })
        .collect();
    let s = Scoring {
        root: g,
        graded_verdict: true,
        named: Vec::new(),
    };
    let score = s.evaluate(&[ok(AC), ok(WA), ok(AC)]);
    assert_eq!((score.score, score.verdict), (10.0, WA));
    // A score.txt above accept_score is fine in legacy packages (no cap).
    assert_eq!(s.evaluate(&[scored(15.0), ok(AC), ok(AC)]).score, 35.0);
}

#[test]
fn kattis_legacy_graders_accept_if_any_and_ignore_sample() {
    // data: ignore_sample; secret: accept_if_any_accepted over two subtasks with min.
    let sub = |name: &str, tests: [usize; 2]| {
        let mut n = Node::new(name, Aggregate::Min, None);
        n.on_reject_break = true;
        n.verdicts = VerdictMode::WorstError;
        n.items = tests
            .iter()
            .map(|&i| {
                Item::Test(TestItem {
                    index: i,
                    accept: Some(50.0),
                    reject: 0.0,
                    cap: None,
                })
            })
            .collect();
        n
    };
    let mut secret = Node::new("secret", Aggregate::Sum, None);
    secret.verdicts = VerdictMode::FirstError;
    secret.accept_if_any = true;
    secret.items = vec![
        Item::Node(sub("secret/a", [1, 2])),
        Item::Node(sub("secret/b", [3, 4])),
    ];
    let mut sample = Node::new("sample", Aggregate::Sum, None);
    sample.items = vec![Item::Test(TestItem {
        index: 0,
        accept: Some(0.0),
        reject: 0.0,
        cap: None,
    })];
    let mut data = Node::new("", Aggregate::Sum, None);
    data.ignore_first = true;
    data.verdicts = VerdictMode::WorstError;
    data.items = vec![Item::Node(sample), Item::Node(secret)];
    let s = Scoring {
        root: data,
        graded_verdict: true,
        named: Vec::new(),
    };
    // The sample fails, subtask a passes, subtask b fails: accepted with 50.
    let score = s.evaluate(&[ok(WA), ok(AC), ok(AC), ok(AC), ok(WA)]);
    assert_eq!((score.score, score.verdict), (50.0, AC));
    let b = score.groups.iter().find(|g| g.name == "secret/b").unwrap();
    assert_eq!((b.score, b.verdict), (0.0, WA));
    // Nothing passes: rejected.
    let none = s.evaluate(&[ok(AC), ok(TLE), ok(AC), ok(WA), ok(AC)]);
    assert_eq!((none.score, none.verdict), (0.0, TLE));
}

#[test]
fn a_test_without_a_result_makes_its_group_a_judge_error() {
    let s = scoring(vec![group("g", Aggregate::Sum, Some(10.0), &[0, 1])]);
    let score = s.evaluate(&[ok(AC), None]);
    assert_eq!((score.score, score.verdict), (0.0, JE));
}

#[test_case(100.0 / 3.0 => "33.33" ; "a third of a hundred")]
#[test_case(40.0 => "40" ; "a whole number")]
#[test_case(2.5 => "2.5" ; "one decimal")]
fn scores_show_with_two_decimals_at_most(score: f64) -> String {
    show(score)
}

/// One group of a random scoring, before its tests are known: how many it takes and its rules.
#[derive(Debug, Clone)]
struct GroupSpec {
    size: usize,
    aggregate: Aggregate,
    max: f64,
    /// Kattis legacy `reject_score` of each test, where set.
    rejects: [Option<f64>; 4],
    on_reject_break: bool,
    verdicts: VerdictMode,
    accept_if_any: bool,
    /// Requires an earlier top-level group (picked among those made so far).
    requires: Option<Index>,
    /// Goes inside the group before it.
    nested: bool,
    /// Scored by the package's own grader (Kattis legacy `grading: custom`).
    custom: bool,
}

fn group_spec() -> impl Strategy<Value = GroupSpec> {
    let aggregate = prop::sample::select(vec![
        Aggregate::PassFail,
        Aggregate::Sum,
        Aggregate::Min,
        Aggregate::Max,
        Aggregate::Avg,
    ]);
    let reject = prop::option::weighted(0.2, (0..3u8).prop_map(f64::from));
    let verdicts = prop_oneof![
        1 => Just(VerdictMode::WorstError),
        1 => Just(VerdictMode::AlwaysAccept),
        4 => Just(VerdictMode::FirstError),
    ];
    (
        (
            1..=4usize,
            aggregate,
            (1..=5u8).prop_map(|m| 10.0 * f64::from(m)),
        ),
        [reject.clone(), reject.clone(), reject.clone(), reject],
        (
            prop::bool::weighted(0.25),
            verdicts,
            prop::bool::weighted(0.125),
        ),
        (
            prop::option::weighted(1.0 / 3.0, any::<Index>()),
            prop::bool::weighted(0.25),
            prop::bool::weighted(0.2),
        ),
    )
        .prop_map(
            |(
                (size, aggregate, max),
                rejects,
                (on_reject_break, verdicts, accept_if_any),
                (requires, nested, custom),
            )| GroupSpec {
                size,
                aggregate,
                max,
                rejects,
                on_reject_break,
                verdicts,
                accept_if_any,
                requires,
                nested,
                custom,
            },
        )
}

/// A random scoring: groups of every rule (some nested, some stopping at their first
/// rejection, some requiring earlier groups, other verdict modes), over `tests` tests in order,
/// from as many of `specs` as they take (there are enough: a group takes one test or more).
fn random_scoring(
    tests: usize,
    specs: &[GroupSpec],
    root_on_reject_break: bool,
    graded_verdict: bool,
) -> Scoring {
    let mut groups: Vec<Node> = Vec::new();
    let mut next = 0;
    for (made, spec) in specs.iter().enumerate() {
        if next == tests {
            break;
        }
        let size = spec.size.min(tests - next);
        let ids: Vec<usize> = (next..next + size).collect();
        next += size;
        let mut g = group(
            &format!("g{}", made + 1),
            spec.aggregate,
            Some(spec.max),
            &ids,
        );
        for (item, reject) in g.items.iter_mut().zip(spec.rejects) {
            if let Item::Test(t) = item {
                if spec.aggregate == Aggregate::PassFail {
                    t.accept = Some(0.0);
                }
                if let Some(r) = reject {
                    t.reject = r;
                }
            }
        }
        g.on_reject_break = spec.on_reject_break;
        g.verdicts = spec.verdicts;
        g.accept_if_any = spec.accept_if_any;
        if spec.custom {
            g.custom_grader = Some(vec!["weights".into()]);
        }
        if let Some(earlier) = spec.requires.filter(|_| !groups.is_empty()) {
            g.requires = vec![groups[earlier.index(groups.len())].name.clone()];
        }
        match groups.last_mut() {
            Some(last) if spec.nested => last.items.push(Item::Node(g)),
            _ => groups.push(g),
        }
    }
    assert_eq!(next, tests, "enough specs for every test");
    let mut s = scoring(groups);
    let mut named = Vec::new();
    fn collect(node: &Node, out: &mut Vec<(String, Vec<usize>)>) {
        for item in &node.items {
            if let Item::Node(n) = item {
                out.push((n.name.clone(), n.tests()));
                collect(n, out);
            }
        }
    }
    collect(&s.root, &mut named);
    s.named = named;
    s.root.on_reject_break = root_on_reject_break;
    s.graded_verdict = graded_verdict;
    s
}

/// A test's real outcome: mostly accepted, some accepted with a checker's score (at most their
/// share, or more: a judge error of the scoring), the rest each kind of failure.
fn real_outcome() -> impl Strategy<Value = Option<TestOutcome>> {
    prop_oneof![
        2 => Just(ok(AC)),
        1 => (0..12u8).prop_map(|s| scored(f64::from(s))),
        1 => Just(ok(WA)),
        1 => Just(ok(TLE)),
        1 => Just(ok(RE)),
        1 => Just(ok(JE)),
    ]
}

/// The most tests a random scoring has.
const MOST_TESTS: usize = 12;

/// Whether test `i` is a judge error: its verdict, or its checker's score its group cannot take.
fn judge_error(s: &Scoring, i: usize, real: &[Option<TestOutcome>]) -> bool {
    fn find(s: &Scoring, node: &Node, i: usize, real: &[Option<TestOutcome>]) -> Option<bool> {
        node.items.iter().find_map(|item| match item {
            Item::Test(t) if t.index == i => {
                Some(s.test(node, t, real).map_or(true, |e| e.verdict == JE))
            }
            Item::Node(n) => find(s, n, i, real),
            Item::Test(_) => None,
        })
    }
    find(s, &s.root, i, real).unwrap_or(false)
}

/// A grader whose result reads every item it is given, in order: the first rejection's code
/// (else AC), and the items' scores weighed by their places plus their number.
fn weighing(flags: &[String], input: &str) -> Result<String, String> {
    assert_eq!(flags, ["weights"]);
    let mut code = "AC";
    let mut score = 0.0;
    let mut n = 0.0;
    for (i, line) in input.lines().enumerate() {
        let (c, s) = line.split_once(' ').unwrap();
        if code == "AC" && c != "AC" {
            code = c;
        }
        score += (i + 1) as f64 * s.parse::<f64>().unwrap();
        n += 1.0;
    }
    Ok(format!(
        "{} {}\n",
        if code == "AC" { "AC" } else { code },
        score + n
    ))
}

/// Random cases tried per run (proptest's own seed each run; a failure prints the smallest case
/// it shrank to).
const SKIP_CASES: u32 = 2000;

#[test]
fn skipped_tests_never_change_the_score_the_groups_or_the_verdict() {
    let case = (1..=MOST_TESTS).prop_flat_map(|tests| {
        (
            Just(tests),
            // At most one group a test.
            prop::collection::vec(group_spec(), tests),
            (prop::bool::weighted(1.0 / 3.0), any::<bool>()),
            prop::collection::vec(real_outcome(), tests),
            // Which results are known yet, per test about to start (bit j: test j's).
            prop::collection::vec(any::<u16>(), tests),
        )
    });
    // `PROPTEST_CASES=100000 cargo test --lib score::` tries more.
    let cases = match std::env::var_os("PROPTEST_CASES") {
        Some(_) => ProptestConfig::default().cases,
        None => SKIP_CASES,
    };
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        ..ProptestConfig::default()
    });
    let skipped_some = std::cell::Cell::new(0u32);
    let result = runner.run(
        &case,
        |(tests, specs, (root_break, graded), outcomes, known_yet)| {
            let s = random_scoring(tests, &specs, root_break, graded);
            let real = &outcomes[..];
            // Judged in order, each test skipped when the ones before it allow.
            let mut known: Vec<Option<TestOutcome>> = vec![None; tests];
            let mut first_skipped = None;
            for i in 0..tests {
                known[i] = match s.skip(i, &known) {
                    Some(skip) => {
                        first_skipped.get_or_insert(i);
                        Some(skip.outcome())
                    }
                    None => real[i],
                };
            }
            // A judge error on a test not judged cannot be known: equal whenever none of the
            // skipped tests would have been one.
            let hidden_je = (0..tests).any(|i| known[i] != real[i] && judge_error(&s, i, real));
            let (all, some) = (
                s.evaluate_with(real, &mut weighing),
                s.evaluate_with(&known, &mut weighing),
            );
            if !hidden_je {
                prop_assert_eq!(&all, &some, "{:#?}\nreal {:?}\nknown {:?}", s, real, known);
            }
            if first_skipped.is_some() {
                skipped_some.set(skipped_some.get() + 1);
            }
            // Judged in parallel, less is known when a test is about to start: what is skipped
            // then is skipped in order too (the replay agrees).
            for (i, mask) in known_yet.iter().enumerate() {
                let partial: Vec<Option<TestOutcome>> = known
                    .iter()
                    .enumerate()
                    .map(|(j, o)| o.filter(|_| mask & (1 << j) != 0))
                    .collect();
                if s.skip(i, &partial).is_some() {
                    prop_assert!(
                        s.skip(i, &known).is_some(),
                        "{:#?}\n{:?}\n{:?}",
                        s,
                        partial,
                        known
                    );
                }
            }
            // The submission's verdict as the engine makes it: the graded one, a judge error
            // of the scoring, or the first failing test judged.
            let verdict = |score: &Score, judged: &[Option<TestOutcome>]| {
                if s.graded_verdict || score.verdict == JE {
                    return score.verdict;
                }
                judged
                    .iter()
                    .flatten()
                    .map(|o| o.verdict)
                    .find(|v| *v != AC)
                    .unwrap_or(AC)
            };
            let judged: Vec<Option<TestOutcome>> = (0..tests)
                .map(|i| real[i].filter(|_| known[i] == real[i]))
                .collect();
            if !hidden_je {
                prop_assert_eq!(
                    verdict(&all, real),
                    verdict(&some, &judged),
                    "{:#?}\nreal {:?}\nknown {:?}",
                    s,
                    real,
                    known
                );
            }
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}\n{runner}");
    }
    // As many cases skip something as with the hand-rolled generator this replaced: more than
    // 300 in 20000.
    assert!(
        skipped_some.get() > cases * 300 / 20000,
        "the rules skip something: {} of {cases}",
        skipped_some.get()
    );
}

#[test]
fn a_partial_score_is_below_the_maximum_and_may_be_zero() {
    // Kattis legacy partially_accepted/: accepted, "score must not be the max of the range".
    assert!(Expected::Partial.holds(0.0, Some(100.0)));
    assert!(Expected::Partial.holds(99.0, Some(100.0)));
    assert!(!Expected::Partial.holds(100.0, Some(100.0)));
}

#[test]
fn a_custom_graded_group_is_its_graders_result_on_its_items_lines() {
    // Kattis legacy `grading: custom` with `grader_flags: min`, range 0 100: the grader gets a
    // line per test (AC 60, WA 0 with on_reject: continue) and the flags, and its line is the
    // group's result.
    let mut g = group("secret", Aggregate::Sum, Some(100.0), &[0, 1, 2]);
    g.custom_grader = Some(vec!["min".into()]);
    g.verdicts = VerdictMode::WorstError;
    for item in &mut g.items {
        if let Item::Test(t) = item {
            t.accept = Some(60.0);
            t.cap = None;
        }
    }
    let mut s = scoring(vec![g.clone()]);
    s.graded_verdict = true;
    let mut seen = Vec::new();
    let mut grader = |flags: &[String], input: &str| {
        seen.push((flags.to_vec(), input.to_string()));
        Ok("AC 42.5\n".to_string())
    };
    let score = s.evaluate_with(&[ok(AC), ok(WA), scored(7.0)], &mut grader);
    assert_eq!(
        seen,
        [(vec!["min".to_string()], "AC 60\nWA 0\nAC 7\n".to_string())]
    );
    assert_eq!((score.score, score.verdict), (42.5, AC));
    assert_eq!(score.groups[0].note, None);
    // Its verdict stands for the first item with that code.
    let score = s.evaluate_with(&[ok(AC), ok(RE), ok(WA)], &mut |_: &[String], _: &str| {
        Ok("RTE 0".to_string())
    });
    assert_eq!((score.verdict, score.groups[0].verdict), (RE, RE));
    // Without a grader (no engine): a judge error saying so, never the default grader's.
    let score = s.evaluate(&[ok(AC), ok(AC), ok(AC)]);
    assert_eq!(score.verdict, JE);
    assert_eq!(
        score.groups[0].note.as_deref(),
        Some("the package's custom grader was not built")
    );
}

#[test]
fn a_failing_or_malformed_grader_is_a_judge_error_naming_it() {
    struct Named(Result<String, String>);
    impl Grader for Named {
        fn run(&mut self, _: &[String], _: &str) -> Result<String, String> {
            self.0.clone()
        }
        fn who(&self) -> String {
            "the grader `graders/min.py`".into()
        }
    }
    let mut g = group("secret", Aggregate::Sum, Some(100.0), &[0]);
    g.custom_grader = Some(Vec::new());
    let mut s = scoring(vec![g]);
    s.graded_verdict = true;
    let cases = [
        (
            Err("the grader `graders/min.py` crashed (exit code 1): ValueError: x".to_string()),
            "the grader `graders/min.py` crashed (exit code 1): ValueError: x",
        ),
        (
            Ok("".to_string()),
            "the grader `graders/min.py` printed nothing where one line `VERDICT SCORE` was due",
        ),
        (
            Ok("OK 3\n".to_string()),
            "the grader `graders/min.py` printed the verdict `OK`",
        ),
        (
            Ok("JE 0\n".to_string()),
            "the grader `graders/min.py` judged the group JE",
        ),
        (
            Ok("AC 120\n".to_string()),
            "the score 120 exceeds the group's maximum 100",
        ),
    ];
    for (output, why) in cases {
        let score = s.evaluate_with(&[ok(AC)], &mut Named(output.clone()));
        assert_eq!((score.verdict, score.score), (JE, 0.0), "{output:?}");
        let note = score.groups[0].note.as_deref().unwrap_or_default();
        assert!(note.starts_with(why), "{output:?}: {note}");
    }
}

#[test]
fn a_judge_error_among_the_items_is_the_groups_and_the_grader_is_not_run() {
    let mut g = group("secret", Aggregate::Sum, None, &[0, 1]);
    g.custom_grader = Some(Vec::new());
    let s = scoring(vec![g]);
    let mut ran = false;
    let score = s.evaluate_with(&[ok(AC), ok(JE)], &mut |_: &[String], _: &str| {
        ran = true;
        Ok("AC 1".to_string())
    });
    assert!(!ran);
    assert_eq!(score.groups[0].verdict, JE);
}

#[test]
fn tests_of_a_custom_graded_group_are_skipped_only_after_a_rejection_with_on_reject_break() {
    // A pass-fail-looking group (min over its tests) that a grader scores: the default
    // grader's "already scores 0" does not hold for a grader.
    let mut g = group("g", Aggregate::Min, Some(10.0), &[0, 1, 2]);
    g.custom_grader = Some(Vec::new());
    let s = scoring(vec![g.clone()]);
    assert_eq!(s.skip(1, &[ok(WA)]), None);
    assert_eq!(s.skip(2, &[ok(WA), ok(AC)]), None);
    // With on_reject: break the specification grades what was judged up to the rejection.
    g.on_reject_break = true;
    let s = scoring(vec![g.clone()]);
    let skip = s.skip(1, &[ok(WA)]).unwrap();
    assert_eq!(skip.why, "group `g` stopped at its first rejection");
    // A default-graded parent does not read a graded child's result before its grader runs.
    g.on_reject_break = false;
    let mut parent = Node::new("p", Aggregate::PassFail, Some(10.0));
    parent.items = vec![Item::Node(g), Item::Test(TestItem::worth(3, 0.0))];
    parent.on_reject_break = true;
    let s = scoring(vec![parent]);
    assert_eq!(s.skip(3, &[ok(WA), ok(WA), ok(WA)]), None);
}
