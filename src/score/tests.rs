use super::*;
use crate::verdict::Verdict::{AC, JE, RE, TLE, WA};

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

#[test]
fn scores_show_with_two_decimals_at_most() {
    assert_eq!(show(100.0 / 3.0), "33.33");
    assert_eq!(show(40.0), "40");
    assert_eq!(show(2.5), "2.5");
}
