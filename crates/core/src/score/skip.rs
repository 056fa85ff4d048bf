//! Tests of a scored problem that need not be judged: whatever they would get, the score, the
//! groups' results and the verdict stay the same, given the results of the tests before them.
//! A group that scores all or nothing (or its weakest test) has already failed; a group that
//! stops at its first rejection (Kattis `on_reject: break`) has stopped; a group whose required
//! group failed scores nothing. A custom-graded group (Kattis legacy `grading: custom`) is
//! skipped in only by `on_reject: break`: what its grader makes of the rest is not known. The
//! decision for a test reads only the tests before it, so judging in order and judging in
//! parallel (then replaying in order) skip the same tests.

use super::{Aggregate, Eval, Item, NoGrader, Node, Scoring, TestOutcome, VerdictMode};
use judge_model::Verdict;

/// Why a test is not judged, and the verdict that stands in for it in the evaluation (never
/// seen in the result: the rule that skipped it makes it not count).
#[derive(Debug, Clone, PartialEq)]
pub struct Skip {
    pub verdict: Verdict,
    pub why: String,
}

impl Skip {
    /// What stands in for the skipped test in [`Scoring::evaluate`].
    pub fn outcome(&self) -> TestOutcome {
        TestOutcome {
            verdict: self.verdict,
            reported: None,
        }
    }
}

impl Scoring {
    /// Whether test `index` need not be judged, from `known` (the tests judged or skipped so
    /// far; only those before `index` are read, and any may be missing yet).
    pub fn skip(&self, index: usize, known: &[Option<TestOutcome>]) -> Option<Skip> {
        let before: Vec<Option<TestOutcome>> = (0..index)
            .map(|i| known.get(i).copied().flatten())
            .collect();
        let mut path = Vec::new();
        if !branch(&self.root, index, &mut path) {
            return None;
        }
        // A test another group's requirement reads is skipped only by its own group's failure
        // (which keeps the first rejection, all a requirement reads).
        let read_elsewhere = self.required_by_others(index);
        for (depth, &(node, at)) in path.iter().enumerate() {
            // An item known to be rejected, with a test that failed (not only a scoring error:
            // a requirement reads the tests' verdicts, and the first failing one must stay).
            let rejections: Vec<Eval> = node.items[..at]
                .iter()
                .filter(|item| failed_test(item, &before))
                .filter_map(|item| self.settled(node, item, &before))
                .filter(|e| e.verdict != Verdict::AC)
                .collect();
            let rejected = rejections.first();
            let name = display(node);
            // (A group whose requirement fails lists its sub-groups all the same: not then.)
            if node.on_reject_break && node.requires.is_empty() && !read_elsewhere {
                if let Some(e) = rejected {
                    return Some(Skip {
                        verdict: e.verdict,
                        why: format!("{name} stopped at its first rejection"),
                    });
                }
            }
            if depth + 1 < path.len() {
                continue;
            }
            // The test's own group. A custom-graded one is its grader's to score: only
            // `on_reject: break` (above, which the specification applies before grading)
            // skips in it.
            if node.custom_grader.is_some() {
                return None;
            }
            let plain = node.verdicts == VerdictMode::FirstError
                && !node.accept_if_any
                && !node.ignore_first;
            let reject = match &node.items[at] {
                Item::Test(t) => t.reject,
                Item::Node(_) => return None,
            };
            let nothing = rejections.iter().find(|e| e.score <= 0.0);
            match (rejected, nothing, node.aggregate) {
                (Some(e), _, Aggregate::PassFail) if plain => {
                    return Some(Skip {
                        verdict: e.verdict,
                        why: format!("{name} already failed"),
                    })
                }
                (_, Some(e), Aggregate::Min) if plain && reject >= 0.0 => {
                    return Some(Skip {
                        verdict: e.verdict,
                        why: format!("{name} already scores 0"),
                    })
                }
                _ => {}
            }
            if read_elsewhere {
                return None;
            }
            let judged = self.required_closure(&node.requires).iter().all(|r| {
                self.named
                    .iter()
                    .find(|(n, _)| n == r)
                    .is_some_and(|(_, tests)| {
                        tests.iter().all(|&i| i < index && before[i].is_some())
                    })
            });
            if judged {
                if let Some((required, verdict)) = self.failed_dependency(node, &before) {
                    return Some(Skip {
                        verdict,
                        why: format!("{name} requires group `{required}`, which failed"),
                    });
                }
            }
        }
        None
    }

    /// An item's result when every test under it is known.
    fn settled(&self, node: &Node, item: &Item, known: &[Option<TestOutcome>]) -> Option<Eval> {
        match item {
            Item::Test(t) => {
                known.get(t.index).copied().flatten()?;
                Some(self.test(node, t, known).unwrap_or(Eval {
                    verdict: Verdict::JE,
                    score: 0.0,
                }))
            }
            // What a grader would make of it is not known before it runs.
            Item::Node(n) if graded(n) => None,
            Item::Node(n) => {
                // Its tests, and those of the groups it (or a group in it) requires.
                let mut reads = n.tests();
                let mut names = Vec::new();
                requirements(n, &mut names);
                let names = self.required_closure(&names);
                for (name, tests) in &self.named {
                    if names.contains(name) {
                        reads.extend(tests);
                    }
                }
                if reads
                    .iter()
                    .any(|&i| known.get(i).copied().flatten().is_none())
                {
                    return None;
                }
                Some(self.node(n, known, &mut Vec::new(), &mut NoGrader))
            }
        }
    }

    /// Whether some group's requirement reads test `index` (then only a group's own failure
    /// may skip it: that keeps its first rejection, which is what a requirement reads).
    fn required_by_others(&self, index: usize) -> bool {
        let mut names = Vec::new();
        requirements(&self.root, &mut names);
        self.named
            .iter()
            .any(|(n, tests)| names.contains(n) && tests.contains(&index))
    }
}

/// Whether `node` or a group in it is custom-graded.
fn graded(node: &Node) -> bool {
    node.custom_grader.is_some()
        || node.items.iter().any(|i| match i {
            Item::Node(n) => graded(n),
            Item::Test(_) => false,
        })
}

/// The groups `node` and the groups in it require, by name.
fn requirements(node: &Node, out: &mut Vec<String>) {
    out.extend(node.requires.iter().cloned());
    for item in &node.items {
        if let Item::Node(n) = item {
            requirements(n, out);
        }
    }
}

/// Whether a test under `item` is known to have failed.
fn failed_test(item: &Item, known: &[Option<TestOutcome>]) -> bool {
    let failed = |i: usize| {
        known
            .get(i)
            .copied()
            .flatten()
            .is_some_and(|o| o.verdict != Verdict::AC)
    };
    match item {
        Item::Test(t) => failed(t.index),
        Item::Node(n) => n.tests().into_iter().any(failed),
    }
}

/// The nodes from `node` down to the one holding test `index`, each with the position of the
/// item leading there.
fn branch<'a>(node: &'a Node, index: usize, path: &mut Vec<(&'a Node, usize)>) -> bool {
    for (at, item) in node.items.iter().enumerate() {
        match item {
            Item::Test(t) if t.index == index => {
                path.push((node, at));
                return true;
            }
            Item::Node(n) => {
                path.push((node, at));
                if branch(n, index, path) {
                    return true;
                }
                path.pop();
            }
            Item::Test(_) => {}
        }
    }
    false
}

fn display(node: &Node) -> String {
    if node.name.is_empty() {
        "the problem".into()
    } else {
        format!("group `{}`", node.name)
    }
}
