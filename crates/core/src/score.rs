//! Scored problems: how test verdicts (and the scores checkers report) add up to group scores and
//! a total. One model for every format: a tree of [`Node`]s (groups) over the problem's tests,
//! each with an aggregation rule, built by the loaders (Kattis 2025-09 `test_group.yaml`, Kattis
//! legacy `testdata.yaml` and its default grader, Polygon `<groups>`, native `[[group]]`). The
//! functions here are pure: [`Scoring::evaluate`] takes the tests' results and returns the
//! [`Score`]; the engine calls it once a solution's tests are judged.

use judge_model::Verdict;
use serde::Serialize;

/// Slack for comparing sums of floats with a maximum.
pub use judge_model::score::{round, show, Expected, GroupScore, Reported, Score, EPSILON};

/// How a problem is scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    /// The node whose score is the submission's (Kattis `secret` or `data`, or a node over the
    /// Polygon or native groups).
    pub root: Node,
    /// The submission's verdict is the root's aggregated verdict (Kattis legacy graders: with
    /// `accept_if_any_accepted` or `ignore_sample` a submission failing some test may be
    /// accepted), not its first failing test's.
    pub graded_verdict: bool,
    /// Groups a node may depend on by name, with the tests of each (`require_pass`,
    /// Polygon `dependencies`): indices into the problem's tests.
    pub named: Vec<(String, Vec<usize>)>,
}

/// A group: its tests and sub-groups, and how their results add up.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The group's name as the package gives it (`secret/group1`, `1`, `small`); empty for a
    /// node the judge adds over the groups.
    pub name: String,
    /// The most it can score (`None`: unbounded or not stated).
    pub max: Option<f64>,
    pub aggregate: Aggregate,
    /// After a rejected test or sub-group the rest does not count (Kattis `on_reject: break`).
    pub on_reject_break: bool,
    pub verdicts: VerdictMode,
    /// Kattis `accept_if_any_accepted`.
    pub accept_if_any: bool,
    /// Kattis `ignore_sample`: only the last item counts (the root's `secret`).
    pub ignore_first: bool,
    /// Groups whose every test must be accepted for this one to score (names in
    /// [`Scoring::named`]).
    pub requires: Vec<String>,
    pub items: Vec<Item>,
    /// The package's own grader makes this group's result from its items' (Kattis legacy
    /// `grading: custom`), with these arguments (`grader_flags`): see [`grader`]. The
    /// aggregation, verdict mode and flags above are then not used.
    pub custom_grader: Option<Vec<String>>,
}

impl Node {
    /// A node with the common defaults: sum, continue on reject, first error, no dependencies.
    pub fn new(name: impl Into<String>, aggregate: Aggregate, max: Option<f64>) -> Node {
        Node {
            name: name.into(),
            max,
            aggregate,
            on_reject_break: false,
            verdicts: VerdictMode::FirstError,
            accept_if_any: false,
            ignore_first: false,
            requires: Vec::new(),
            items: Vec::new(),
            custom_grader: None,
        }
    }

    /// Every test under this node, in order.
    pub fn tests(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Test(t) => out.push(t.index),
                Item::Node(n) => out.extend(n.tests()),
            }
        }
        out
    }

    /// The most this node can score, from its own maximum or its items' (`None`: unbounded).
    pub fn max_score(&self) -> Option<f64> {
        if let Some(m) = self.max {
            return Some(m);
        }
        let maxes: Option<Vec<f64>> = self
            .items
            .iter()
            .map(|i| match i {
                Item::Test(t) => t.accept.map(|a| t.cap.unwrap_or(a).max(a)),
                Item::Node(n) => n.max_score(),
            })
            .collect();
        let maxes = maxes?;
        Some(match self.aggregate {
            Aggregate::PassFail => 0.0,
            Aggregate::Sum => maxes.iter().sum(),
            Aggregate::Min | Aggregate::Max | Aggregate::Avg => {
                maxes.iter().copied().fold(0.0, f64::max)
            }
        })
    }
}

/// An item of a group.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Test(TestItem),
    Node(Node),
}

/// A test in a group and what it scores.
#[derive(Debug, Clone, PartialEq)]
pub struct TestItem {
    /// Index into the problem's tests.
    pub index: usize,
    /// The score of an accepted test whose checker reports none (`None`: the checker must
    /// report one, Kattis unbounded groups).
    pub accept: Option<f64>,
    /// The score of a rejected test.
    pub reject: f64,
    /// The most a checker may report (`None`: no bound).
    pub cap: Option<f64>,
}

impl TestItem {
    /// A test worth `points` when accepted, checker scores up to `points`.
    pub fn worth(index: usize, points: f64) -> TestItem {
        TestItem {
            index,
            accept: Some(points),
            reject: 0.0,
            cap: Some(points),
        }
    }
}

/// How a group's score comes from its items'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    /// The group's maximum if every item is accepted, else 0 (Kattis `pass-fail`, Polygon
    /// `complete-group`).
    PassFail,
    Sum,
    Min,
    Max,
    Avg,
}

impl Aggregate {
    pub fn name(self) -> &'static str {
        match self {
            Aggregate::PassFail => "pass-fail",
            Aggregate::Sum => "sum",
            Aggregate::Min => "min",
            Aggregate::Max => "max",
            Aggregate::Avg => "avg",
        }
    }
}

/// How a group's verdict comes from its items' (the Kattis default grader's modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictMode {
    /// The first rejected item's.
    FirstError,
    /// The worst of the rejected items' (JE, RE, MLE, TLE, OLE, WA, PE).
    WorstError,
    AlwaysAccept,
}

/// What the evaluation needs of one judged test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestOutcome {
    pub verdict: Verdict,
    pub reported: Option<Reported>,
}

/// The group named `name` under `node` (itself included).
fn find_node<'a>(node: &'a Node, name: &str) -> Option<&'a Node> {
    if node.name == name {
        return Some(node);
    }
    node.items.iter().find_map(|item| match item {
        Item::Node(n) => find_node(n, name),
        Item::Test(_) => None,
    })
}

struct Eval {
    verdict: Verdict,
    score: f64,
}

impl Scoring {
    /// Whether some group's result is the package's own grader's (Kattis legacy
    /// `grading: custom`): then the engine runs it ([`Scoring::evaluate_with`]).
    pub fn custom_graded(&self) -> bool {
        fn any(node: &Node) -> bool {
            node.custom_grader.is_some()
                || node.items.iter().any(|i| match i {
                    Item::Node(n) => any(n),
                    Item::Test(_) => false,
                })
        }
        any(&self.root)
    }

    /// The named groups in order (a parent before its sub-groups) with their depth.
    pub fn outline(&self) -> Vec<(usize, &Node)> {
        fn walk<'a>(node: &'a Node, depth: usize, out: &mut Vec<(usize, &'a Node)>) {
            let depth = if node.name.is_empty() {
                depth
            } else {
                out.push((depth, node));
                depth + 1
            };
            for item in &node.items {
                if let Item::Node(n) = item {
                    walk(n, depth, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, 0, &mut out);
        out
    }

    /// The score of a judging whose test `i` came to `tests[i]` (`None`: no result, which makes
    /// its group a judge error: a score is never made up). A custom-graded group is a judge
    /// error here: [`Scoring::evaluate_with`] runs its grader.
    pub fn evaluate(&self, tests: &[Option<TestOutcome>]) -> Score {
        self.evaluate_with(tests, &mut NoGrader)
    }

    /// [`Scoring::evaluate`], with `grader` making the result of each custom-graded group.
    pub fn evaluate_with(&self, tests: &[Option<TestOutcome>], grader: &mut dyn Grader) -> Score {
        let mut groups = Vec::new();
        let root = self.node(&self.root, tests, &mut groups, grader);
        Score {
            score: round(root.score),
            max_score: self.root.max_score(),
            verdict: root.verdict,
            groups,
        }
    }

    fn node(
        &self,
        node: &Node,
        tests: &[Option<TestOutcome>],
        groups: &mut Vec<GroupScore>,
        grader: &mut dyn Grader,
    ) -> Eval {
        let slot = groups.len();
        if !node.name.is_empty() {
            groups.push(GroupScore {
                name: node.name.clone(),
                score: 0.0,
                max_score: node.max_score(),
                verdict: Verdict::AC,
                note: None,
            });
        }
        let mut note = None;
        let eval = match self.failed_dependency(node, tests) {
            Some((name, verdict)) => {
                note = Some(format!("scores nothing: group `{name}` is not passed"));
                // Its sub-groups are listed, with nothing.
                let mut inner = Vec::new();
                for item in &node.items {
                    if let Item::Node(n) = item {
                        self.node(n, tests, &mut inner, grader);
                    }
                }
                for g in &mut inner {
                    g.score = 0.0;
                }
                groups.extend(inner);
                Eval {
                    verdict,
                    score: 0.0,
                }
            }
            None => {
                let mut items: Vec<Eval> = Vec::new();
                for item in &node.items {
                    let e = match item {
                        Item::Test(t) => match self.test(node, t, tests) {
                            Ok(e) => e,
                            Err(why) => {
                                note.get_or_insert(why);
                                Eval {
                                    verdict: Verdict::JE,
                                    score: 0.0,
                                }
                            }
                        },
                        Item::Node(n) => self.node(n, tests, groups, grader),
                    };
                    let rejected = e.verdict != Verdict::AC;
                    items.push(e);
                    if rejected && node.on_reject_break {
                        break;
                    }
                }
                if node.ignore_first && items.len() > 1 {
                    items.drain(..items.len() - 1);
                }
                let mut e = match &node.custom_grader {
                    Some(flags) => match custom(flags, &items, grader) {
                        Ok(e) => e,
                        Err(why) => {
                            note = Some(why);
                            Eval {
                                verdict: Verdict::JE,
                                score: 0.0,
                            }
                        }
                    },
                    None => aggregate(node, &items),
                };
                if let Some(max) = node.max {
                    if e.score > max + EPSILON && e.verdict != Verdict::JE {
                        note = Some(format!(
                            "the score {} exceeds the group's maximum {}",
                            round(e.score),
                            max
                        ));
                        e.verdict = Verdict::JE;
                    }
                }
                e
            }
        };
        if !node.name.is_empty() {
            let g = &mut groups[slot];
            g.score = round(eval.score);
            g.verdict = eval.verdict;
            g.note = note;
        }
        eval
    }

    /// The groups `names` require, and those they require in turn, after `names` themselves:
    /// a group whose required group failed is not passed either (Polygon, Kattis
    /// `require_pass`).
    pub(crate) fn required_closure(&self, names: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut next: Vec<String> = names.to_vec();
        while let Some(name) = next.first().cloned() {
            next.remove(0);
            if out.contains(&name) {
                continue;
            }
            if let Some(n) = find_node(&self.root, &name) {
                next.extend(n.requires.iter().cloned());
            }
            out.push(name);
        }
        out
    }

    /// The first group `node` requires (directly or through the groups it requires) that has
    /// a test not accepted, with that test's verdict.
    fn failed_dependency(
        &self,
        node: &Node,
        tests: &[Option<TestOutcome>],
    ) -> Option<(String, Verdict)> {
        for name in &self.required_closure(&node.requires) {
            let Some((_, indices)) = self.named.iter().find(|(n, _)| n == name) else {
                continue;
            };
            for &i in indices {
                let verdict = tests
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or(Verdict::JE, |t| t.verdict);
                if verdict != Verdict::AC {
                    return Some((name.clone(), verdict));
                }
            }
        }
        None
    }

    fn test(
        &self,
        node: &Node,
        item: &TestItem,
        tests: &[Option<TestOutcome>],
    ) -> Result<Eval, String> {
        let Some(outcome) = tests.get(item.index).copied().flatten() else {
            return Ok(Eval {
                verdict: Verdict::JE,
                score: item.reject,
            });
        };
        if outcome.verdict != Verdict::AC {
            return Ok(Eval {
                verdict: outcome.verdict,
                score: item.reject,
            });
        }
        let score = match (outcome.reported, node.aggregate) {
            // A pass-fail group gives its tests no score of their own.
            (_, Aggregate::PassFail) => item.accept.unwrap_or(0.0),
            (None, _) => item.accept.ok_or_else(|| {
                "the checker gave no score for a test of an unbounded group (write score.txt)"
                    .to_string()
            })?,
            (Some(Reported::Score(s)), _) => {
                if !s.is_finite() || s < 0.0 {
                    return Err(format!(
                        "the checker's score {s} is not a non-negative number"
                    ));
                }
                if let Some(cap) = item.cap {
                    if s > cap + EPSILON {
                        return Err(format!(
                            "the checker's score {s} exceeds the test's maximum {}",
                            round(cap)
                        ));
                    }
                }
                s
            }
            (Some(Reported::Multiplier(m)), _) => {
                if !(0.0..=1.0).contains(&m) {
                    return Err(format!(
                        "the checker's score multiplier {m} is not in [0, 1]"
                    ));
                }
                let Some(max) = item.cap.or(item.accept) else {
                    return Err(
                        "a score multiplier for a test of an unbounded group (write score.txt)"
                            .into(),
                    );
                };
                m * max
            }
        };
        Ok(Eval {
            verdict: Verdict::AC,
            score,
        })
    }
}

/// A custom-graded group's result: its grader's, on its items' (a judge error among them is
/// the group's, which no grader hides; no items: accepted with 0, the grader not run).
fn custom(flags: &[String], items: &[Eval], grader: &mut dyn Grader) -> Result<Eval, String> {
    if let Some(je) = items.iter().find(|e| e.verdict == Verdict::JE) {
        return Ok(Eval {
            verdict: je.verdict,
            score: 0.0,
        });
    }
    if items.is_empty() {
        return Ok(Eval {
            verdict: Verdict::AC,
            score: 0.0,
        });
    }
    let items: Vec<(Verdict, f64)> = items.iter().map(|e| (e.verdict, round(e.score))).collect();
    let output = grader.run(flags, &grader::input(&items))?;
    let (verdict, score) =
        grader::parse(&output, &items).map_err(|why| format!("{} {why}", grader.who()))?;
    if verdict == Verdict::JE {
        return Err(format!("{} judged the group JE", grader.who()));
    }
    Ok(Eval { verdict, score })
}

fn aggregate(node: &Node, items: &[Eval]) -> Eval {
    if let Some(je) = items.iter().find(|e| e.verdict == Verdict::JE) {
        return Eval {
            verdict: je.verdict,
            score: 0.0,
        };
    }
    let accepted = items.iter().all(|e| e.verdict == Verdict::AC);
    let verdict = if node.accept_if_any && items.iter().any(|e| e.verdict == Verdict::AC) {
        Verdict::AC
    } else {
        match node.verdicts {
            VerdictMode::AlwaysAccept => Verdict::AC,
            VerdictMode::FirstError => items
                .iter()
                .map(|e| e.verdict)
                .find(|v| *v != Verdict::AC)
                .unwrap_or(Verdict::AC),
            VerdictMode::WorstError => items
                .iter()
                .map(|e| e.verdict)
                .min_by_key(|v| worst_rank(*v))
                .unwrap_or(Verdict::AC),
        }
    };
    let scores = items.iter().map(|e| e.score);
    let score = match node.aggregate {
        Aggregate::PassFail => {
            if accepted {
                node.max.unwrap_or(0.0)
            } else {
                0.0
            }
        }
        Aggregate::Sum => scores.sum(),
        Aggregate::Min => scores.reduce(f64::min).unwrap_or(0.0),
        Aggregate::Max => scores.reduce(f64::max).unwrap_or(0.0),
        Aggregate::Avg => {
            if items.is_empty() {
                0.0
            } else {
                scores.sum::<f64>() / items.len() as f64
            }
        }
    };
    Eval { verdict, score }
}

/// The Kattis default grader's `worst_error` order (lower is worse).
fn worst_rank(v: Verdict) -> u8 {
    match v {
        Verdict::JE => 0,
        Verdict::CE => 1,
        Verdict::RE => 2,
        Verdict::MLE => 3,
        Verdict::TLE => 4,
        Verdict::OLE => 5,
        Verdict::WA => 6,
        Verdict::PE => 7,
        Verdict::AC => 8,
    }
}

pub mod grader;
mod skip;
pub use grader::{Grader, NoGrader};
pub use skip::Skip;

#[cfg(test)]
mod tests;
