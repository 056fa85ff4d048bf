//! The scoring of a Kattis `type: scoring` problem as a [`Scoring`] tree over its tests: the
//! legacy default grader (`testdata.yaml`: `accept_score`, `reject_score`, `range`, `on_reject`,
//! `grader_flags`; the tree starts at `data/` and holds `sample` and `secret`) or the package's
//! own (`grading: custom`, the program in `graders/`, run by the engine), or 2025-09
//! (`test_group.yaml`: `max_score`, `score_aggregation`, `require_pass`; the score is
//! `secret`'s).

use super::data::Settings;
use crate::package::{PackageError, TestCase};
use crate::score::{Aggregate, Item, Node, Scoring, TestItem, VerdictMode};
use std::path::{Path, PathBuf};

/// The scoring tree of the tests the walk found, from each group's settings (`confs`, by group
/// name; `""` is `data/` itself).
pub(super) fn scoring(
    data: &Path,
    modern: bool,
    tests: &[TestCase],
    confs: &[(String, Settings)],
    warnings: &mut Vec<PackageError>,
) -> Result<Scoring, PackageError> {
    let conf = |name: &str| confs.iter().find(|(n, _)| n == name).map(|(_, s)| s);
    let mut named: Vec<(String, Vec<usize>)> = confs
        .iter()
        .filter(|(n, _)| !n.is_empty())
        .map(|(n, _)| (n.clone(), under(tests, n)))
        .collect();
    named.retain(|(_, t)| !t.is_empty());
    let modern_keys = confs.iter().any(|(_, c)| {
        c.own.max_score.is_some() || c.own.aggregation.is_some() || !c.own.require_pass.is_empty()
    });
    // A 2023-07 draft package (problemtools' examples) scores with the legacy keys.
    let drafted = modern && !modern_keys && confs.iter().any(|(_, c)| c.legacy.given);
    if drafted {
        warnings.push(PackageError::new(
            data,
            "the test groups give the legacy grading keys (accept_score, grader_flags, on_reject, range) and none of 2025-09's (max_score, score_aggregation): scored with the legacy default grader",
        ));
    }
    if modern && !drafted {
        let root = modern_node(data, "secret", tests, &conf, true)?;
        // `require_pass` names a group relative to `data/` or to `secret/`.
        let mut root = root;
        resolve_requires(&mut root, &named, data)?;
        Ok(Scoring {
            root,
            graded_verdict: false,
            named,
        })
    } else {
        for (name, s) in confs {
            if s.legacy.grader_flags.iter().any(|f| f == "ignore_sample") && !name.is_empty() {
                warnings.push(PackageError::new(
                    data.join(name).join("testdata.yaml"),
                    "`ignore_sample` is meant for data/testdata.yaml only; ignored here (a group inherits its parent's grader_flags unless it gives its own)",
                ));
            }
        }
        Ok(Scoring {
            root: legacy_node("", tests, &conf),
            graded_verdict: true,
            named,
        })
    }
}

/// The indices of the tests in group `name` or below it.
fn under(tests: &[TestCase], name: &str) -> Vec<usize> {
    tests
        .iter()
        .enumerate()
        .filter(|(_, t)| t.group == name || t.group.starts_with(&format!("{name}/")))
        .map(|(i, _)| i)
        .collect()
}

/// The items of group `name` in judging order: its own tests and its sub-groups (each once,
/// where its first test comes).
fn children(tests: &[TestCase], name: &str) -> Vec<Result<usize, String>> {
    let mut out: Vec<Result<usize, String>> = Vec::new();
    let prefix = if name.is_empty() {
        String::new()
    } else {
        format!("{name}/")
    };
    for (i, t) in tests.iter().enumerate() {
        if t.group == name {
            out.push(Ok(i));
        } else if let Some(rest) = t.group.strip_prefix(&prefix) {
            let child = format!("{prefix}{}", rest.split('/').next().unwrap_or(rest));
            if !out.iter().any(|c| c.as_ref().err() == Some(&child)) {
                out.push(Err(child));
            }
        }
    }
    out
}

fn legacy_node<'a>(
    name: &str,
    tests: &[TestCase],
    conf: &dyn Fn(&str) -> Option<&'a Settings>,
) -> Node {
    let settings = conf(name).cloned().unwrap_or_default();
    let g = &settings.legacy;
    let mut node = Node::new(name, Aggregate::Sum, g.range_max);
    node.on_reject_break = g.on_reject_break;
    node.verdicts = VerdictMode::WorstError;
    if g.custom {
        // The package's grader reads the flags; the default grader's modes are not used.
        node.custom_grader = Some(g.grader_flags.clone());
    }
    for flag in g.grader_flags.iter().filter(|_| !g.custom) {
        match flag.as_str() {
            "sum" => node.aggregate = Aggregate::Sum,
            "avg" => node.aggregate = Aggregate::Avg,
            "min" => node.aggregate = Aggregate::Min,
            "max" => node.aggregate = Aggregate::Max,
            "worst_error" | "no_errors" => node.verdicts = VerdictMode::WorstError,
            "first_error" => node.verdicts = VerdictMode::FirstError,
            "always_accept" => node.verdicts = VerdictMode::AlwaysAccept,
            // Only the root's (data/testdata.yaml) counts.
            "ignore_sample" => node.ignore_first = name.is_empty(),
            "accept_if_any_accepted" => node.accept_if_any = true,
            _ => {}
        }
    }
    for child in children(tests, name) {
        node.items.push(match child {
            Ok(i) => Item::Test(TestItem {
                index: i,
                accept: Some(g.accept_score),
                reject: g.reject_score,
                cap: None,
            }),
            Err(sub) => Item::Node(legacy_node(&sub, tests, conf)),
        });
    }
    node
}

fn modern_node<'a>(
    data: &Path,
    name: &str,
    tests: &[TestCase],
    conf: &dyn Fn(&str) -> Option<&'a Settings>,
    top: bool,
) -> Result<Node, PackageError> {
    let settings = conf(name).cloned().unwrap_or_default();
    let own = &settings.own;
    let file = config_file(data, name);
    let max = match own.max_score {
        Some(m) => m,
        None if top => Some(100.0),
        None => None,
    };
    let aggregate = match own.aggregation.as_deref() {
        Some("sum") => Aggregate::Sum,
        Some("min") => Aggregate::Min,
        Some(_) => Aggregate::PassFail,
        None if top => Aggregate::Sum,
        None => Aggregate::PassFail,
    };
    if aggregate == Aggregate::PassFail && max.is_none() {
        return Err(PackageError::new(
            &file,
            format!("group `{name}` is pass-fail with an unbounded score"),
        )
        .hint("give the group a max_score (its points when every test passes), or score_aggregation: sum with score.txt"));
    }
    let items = children(tests, name);
    let direct = items.iter().filter(|c| c.is_ok()).count();
    let share = match (aggregate, max) {
        (Aggregate::Sum, Some(m)) if direct > 0 => Some(m / direct as f64),
        (Aggregate::Min, Some(m)) => Some(m),
        (Aggregate::PassFail, _) => Some(0.0),
        _ => None,
    };
    let mut node = Node::new(name, aggregate, max);
    node.requires = own.require_pass.clone();
    for child in items {
        node.items.push(match child {
            Ok(i) => Item::Test(TestItem {
                index: i,
                accept: share,
                reject: 0.0,
                cap: share,
            }),
            Err(sub) => Item::Node(modern_node(data, &sub, tests, conf, false)?),
        });
    }
    if top {
        // The default maximum of `secret` needs every group to say its own.
        let unbounded: Vec<&str> = node
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Node(n) if n.max.is_none() => Some(n.name.as_str()),
                _ => None,
            })
            .collect();
        if max.is_some() && !unbounded.is_empty() {
            return Err(PackageError::new(
                config_file(data, unbounded[0]),
                format!(
                    "group `{}` has no max_score, but `secret` is bounded ({})",
                    unbounded[0],
                    max.unwrap_or_default()
                ),
            )
            .hint(
                "give each group of secret a max_score (they add up to secret's, 100 by default)",
            ));
        }
    }
    Ok(node)
}

/// A 2025-09 group's configuration file: `test_group.yaml`, or `testdata.yaml` where a package
/// has only the older name.
fn config_file(data: &Path, group: &str) -> PathBuf {
    let modern = data.join(group).join("test_group.yaml");
    let older = data.join(group).join("testdata.yaml");
    if !modern.is_file() && older.is_file() {
        older
    } else {
        modern
    }
}

/// `require_pass` names as the scoring's names (`sample`, `secret/group1`; `group1` is read as
/// `secret/group1`); an unknown name is an error.
fn resolve_requires(
    node: &mut Node,
    named: &[(String, Vec<usize>)],
    data: &Path,
) -> Result<(), PackageError> {
    for r in &mut node.requires {
        if named.iter().any(|(n, _)| n == r) {
            continue;
        }
        let long = format!("secret/{r}");
        if named.iter().any(|(n, _)| *n == long) {
            *r = long;
            continue;
        }
        return Err(PackageError::new(
            config_file(data, &node.name),
            format!("require_pass names `{r}`, which is not a test group"),
        )
        .hint("name `sample` or an earlier group of secret"));
    }
    for item in &mut node.items {
        if let Item::Node(n) = item {
            resolve_requires(n, named, data)?;
        }
    }
    Ok(())
}
