//! Codeforces Polygon packages: `problem.xml` — `<judging>` limits (ms and bytes), input and
//! output files, the `tests` test set (paths from its patterns, groups and points), the checker
//! (a standard testlib one by name becomes a built-in; any other is built from the package with
//! `files/` beside it) and the validators (testlib: exit 0 = valid).

use super::{
    slug_of, CheckerSpec, FileIo, Format, Group, LimitOrigin, PackageError, Problem, ProblemLimits,
    Program, Protocol, Rebuild, Solution, TestCase, MIB,
};
use crate::checker::testlib::Standard;
use crate::checker::Builtin;
use crate::score::{self, Aggregate, Item, Scoring, TestItem};
use judge_model::Verdict;
use roxmltree::{Document, Node};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Polygon has no output limit: the judge's native default.
const OUTPUT_LIMIT: u64 = 64 * MIB;

const PROBLEM_CHILDREN: &[&str] = &[
    "names",
    "statements",
    "tutorials",
    "judging",
    "files",
    "assets",
    "properties",
    "stresses",
    "tags",
    "documents",
    "materials",
];
const ASSET_CHILDREN: &[&str] = &[
    "checker",
    "validators",
    "validator",
    "solutions",
    "interactor",
];

/// The `file:line:column` error for a node.
fn at(doc: &Document, path: &Path, node: Node, message: impl Into<String>) -> PackageError {
    let pos = doc.text_pos_at(node.range().start);
    let mut e = PackageError::new(path, message);
    e.position = Some((pos.row as usize, pos.col as usize));
    e
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| c.has_tag_name(name))
}

fn text_of(node: Option<Node>) -> Option<String> {
    node.and_then(|n| n.text()).map(|t| t.trim().to_string())
}

/// `tests/%02d` with test number `n`: `%d`, `%0Nd`, `%Nd` and `%%`.
pub fn format_pattern(pattern: &str, n: usize) -> Option<String> {
    let mut out = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        if chars.next() != Some('d') {
            return None;
        }
        let width: usize = spec.parse().unwrap_or(0);
        if width > 20 {
            return None;
        }
        if spec.starts_with('0') {
            out.push_str(&format!("{n:0width$}"));
        } else {
            out.push_str(&format!("{n:width$}"));
        }
    }
    Some(out)
}

/// Reads the Polygon package in `dir`; `strict` = every test has its input and answer.
pub fn load(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
    let path = dir.join("problem.xml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| PackageError::new(&path, format!("cannot read: {e}")))?;
    let doc = Document::parse(&text).map_err(|e| {
        let pos = e.pos();
        let text = e.to_string();
        // The crate's message ends with the position; the error puts it after the file name.
        let text = text
            .strip_suffix(&format!(" at {}:{}", pos.row, pos.col))
            .unwrap_or(&text);
        let mut err = PackageError::new(&path, format!("not valid XML: {text}"))
            .hint("fix the XML there (every tag closed, attribute values quoted); Polygon writes problem.xml itself, so re-download the package if it was edited by hand");
        err.position = Some((pos.row as usize, pos.col as usize));
        err
    })?;
    let root = doc.root_element();
    if !root.has_tag_name("problem") {
        return Err(at(
            &doc,
            &path,
            root,
            format!(
                "the root element is <{}>, not <problem>",
                root.tag_name().name()
            ),
        )
        .hint("a Polygon package's problem.xml starts with <problem>"));
    }
    let mut warnings = Vec::new();
    for c in root.children().filter(|c| c.is_element()) {
        if !PROBLEM_CHILDREN.contains(&c.tag_name().name()) {
            warnings.push(at(
                &doc,
                &path,
                c,
                format!("unknown element <{}>; ignored", c.tag_name().name()),
            ));
        }
    }

    let name = child(root, "names")
        .and_then(|names| {
            let all: Vec<Node> = names
                .children()
                .filter(|n| n.has_tag_name("name"))
                .collect();
            all.iter()
                .find(|n| n.attribute("language") == Some("english"))
                .or(all.first())
                .and_then(|n| n.attribute("value"))
                .map(String::from)
        })
        .or_else(|| root.attribute("short-name").map(String::from))
        .unwrap_or_else(|| slug_of(dir));

    let judging = child(root, "judging").ok_or_else(|| {
        at(&doc, &path, root, "no <judging> element")
            .hint("a Polygon problem.xml has <judging> with the test set and limits")
    })?;
    let file_attr = |key: &str| {
        judging
            .attribute(key)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let io = FileIo {
        input: file_attr("input-file"),
        output: file_attr("output-file"),
    };
    let testsets: Vec<Node> = judging
        .children()
        .filter(|c| c.has_tag_name("testset"))
        .collect();
    let testset = testsets
        .iter()
        .find(|t| t.attribute("name") == Some("tests"))
        .or(testsets.first())
        .copied()
        .ok_or_else(|| {
            at(&doc, &path, judging, "no <testset> in <judging>")
                .hint("the package needs the `tests` test set")
        })?;
    for other in testsets.iter().filter(|t| t.id() != testset.id()) {
        warnings.push(at(
            &doc,
            &path,
            *other,
            format!(
                "test set `{}` is not judged (only `{}` is)",
                other.attribute("name").unwrap_or("?"),
                testset.attribute("name").unwrap_or("?")
            ),
        ));
    }

    // Limits, in ms and bytes.
    let integer = |name: &str, unit: &str, max: u64| -> Result<(u64, Node), PackageError> {
        let node = child(testset, name).ok_or_else(|| {
            at(&doc, &path, testset, format!("no <{name}> in the test set"))
                .hint(format!("add <{name}> ({unit})"))
        })?;
        let value = node.text().unwrap_or("").trim();
        match value.parse::<u64>() {
            Ok(v) if v > 0 && v <= max => Ok((v, node)),
            _ => Err(at(
                &doc,
                &path,
                node,
                format!("<{name}> `{value}` is not a number of {unit}"),
            )
            .hint(format!("write a positive whole number of {unit}"))),
        }
    };
    let (time_ms, _) = integer("time-limit", "milliseconds", 3_600_000)?;
    let (memory, _) = integer("memory-limit", "bytes", 64 << 30)?;
    let time = Duration::from_millis(time_ms);
    let limits = ProblemLimits {
        time,
        wall: time * 3 + Duration::from_secs(1),
        memory,
        stack: memory,
        output: OUTPUT_LIMIT,
    };
    let origin = LimitOrigin {
        time: format!("problem.xml <time-limit> {time_ms} ms"),
        memory: format!("problem.xml <memory-limit> {memory} bytes"),
        output: "default (64 MiB; Polygon has no output limit)".into(),
    };

    // Tests.
    let pattern = |name: &str, default: &str| {
        text_of(child(testset, name)).unwrap_or_else(|| default.to_string())
    };
    let input_pattern = pattern("input-path-pattern", "tests/%02d");
    let answer_pattern = pattern("answer-path-pattern", "tests/%02d.a");
    let mut tests = Vec::new();
    let test_nodes: Vec<Node> = child(testset, "tests")
        .map(|t| t.children().filter(|c| c.has_tag_name("test")).collect())
        .unwrap_or_default();
    if let Some(count) = text_of(child(testset, "test-count")) {
        if count.parse::<usize>().ok() != Some(test_nodes.len()) {
            warnings.push(PackageError::new(
                &path,
                format!(
                    "<test-count> says {count} but <tests> lists {}; the listed ones are judged",
                    test_nodes.len()
                ),
            ));
        }
    }
    // What makes the tests a package leaves out: its generators (<files><executables>) and the
    // main solution.
    let helpers = helper_files(dir);
    let mut rebuild = Rebuild::default();
    if let Some(execs) = child(root, "files").and_then(|f| child(f, "executables")) {
        for e in execs.children().filter(|c| c.has_tag_name("executable")) {
            let Some(src) = child(e, "source").and_then(|s| s.attribute("path")) else {
                continue;
            };
            let file = dir.join(src);
            let Some(stem) = file.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                continue;
            };
            if file.is_file() {
                rebuild.generators.insert(
                    stem,
                    Program {
                        helpers: helpers.iter().filter(|h| **h != file).cloned().collect(),
                        source: file,
                        protocol: Protocol::Testlib,
                        args: Vec::new(),
                    },
                );
            }
        }
    }
    rebuild.main = child(root, "assets")
        .and_then(|a| child(a, "solutions"))
        .and_then(|list| {
            list.children()
                .filter(|c| c.has_tag_name("solution") && c.attribute("tag") == Some("main"))
                .find_map(|c| child(c, "source").and_then(|s| s.attribute("path")))
        })
        .map(|p| dir.join(p))
        .filter(|p| p.is_file());
    for (i, node) in test_nodes.iter().enumerate() {
        let n = i + 1;
        let bad_pattern = |p: &str| {
            at(
                &doc,
                &path,
                testset,
                format!("cannot use the path pattern `{p}`"),
            )
            .hint("patterns look like tests/%02d (printf's %d with an optional width)")
        };
        let input =
            dir.join(format_pattern(&input_pattern, n).ok_or_else(|| bad_pattern(&input_pattern))?);
        let answer = dir
            .join(format_pattern(&answer_pattern, n).ok_or_else(|| bad_pattern(&answer_pattern))?);
        let generated = node.attribute("method") == Some("generated");
        let words: Vec<String> = node
            .attribute("cmd")
            .unwrap_or("")
            .split_whitespace()
            .map(String::from)
            .collect();
        let generate = (!input.is_file()
            && generated
            && words
                .first()
                .is_some_and(|g| rebuild.generators.contains_key(g)))
        .then(|| words.clone());
        let answer_missing = !answer.is_file() && rebuild.main.is_some();
        if strict && !input.is_file() && generate.is_none() {
            let mut e = at(
                &doc,
                &path,
                *node,
                format!("test {n}: its input {} is missing", input.display()),
            );
            e = if generated {
                e.hint(format!("test {n} is generated (`{}`) by a generator that is not among <files><executables>: download the full package (Polygon's \"linux\" package holds every test)", node.attribute("cmd").unwrap_or("")))
            } else {
                e.hint("restore the test file, or download the package again")
            };
            return Err(e);
        }
        if strict && !answer.is_file() && !answer_missing {
            return Err(at(&doc, &path, *node, format!("test {n}: its answer {} is missing", answer.display()))
                .hint("the package has no main solution to make it: download the full package from Polygon (it holds every answer), or write the answer file"));
        }
        let points = match node.attribute("points") {
            None => None,
            Some(p) => Some(p.trim().parse::<f64>().map_err(|_| {
                at(
                    &doc,
                    &path,
                    *node,
                    format!("test {n}: points `{p}` is not a number"),
                )
                .hint("write points=\"5\"")
            })?),
        };
        tests.push(TestCase {
            name: input
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| n.to_string()),
            input,
            answer,
            sample: node.attribute("sample") == Some("true"),
            group: node.attribute("group").unwrap_or("").to_string(),
            checker_args: Vec::new(),
            validator_args: Vec::new(),
            points,
            generate,
            answer_missing,
            interaction: None,
        });
    }
    if strict && tests.is_empty() {
        return Err(at(&doc, &path, testset, "the test set lists no tests")
            .hint("add tests in Polygon and download the package again"));
    }
    let mut groups = Vec::new();
    if let Some(gs) = child(testset, "groups") {
        for g in gs.children().filter(|c| c.has_tag_name("group")) {
            groups.push(Group {
                name: g.attribute("name").unwrap_or("").to_string(),
                points: g.attribute("points").and_then(|p| p.trim().parse().ok()),
                points_policy: g.attribute("points-policy").map(String::from),
                dependencies: child(g, "dependencies")
                    .map(|d| {
                        d.children()
                            .filter_map(|c| c.attribute("group").map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
    }
    let scoring = scoring(&tests, &groups, &path)?;

    // Checker and validators.
    let assets = child(root, "assets");
    if let Some(a) = assets {
        for c in a.children().filter(|c| c.is_element()) {
            if !ASSET_CHILDREN.contains(&c.tag_name().name()) {
                warnings.push(at(
                    &doc,
                    &path,
                    c,
                    format!("unknown asset <{}>; ignored", c.tag_name().name()),
                ));
            }
        }
    }
    let checker_node = assets.and_then(|a| child(a, "checker")).ok_or_else(|| {
        at(
            &doc,
            &path,
            assets.unwrap_or(root),
            "no <checker> in <assets>",
        )
        .hint(
            "Polygon packages name their checker in <assets><checker>; download the package again",
        )
    })?;
    let program = |node: Node, what: &str| -> Result<Program, PackageError> {
        let source = child(node, "source")
            .and_then(|s| s.attribute("path"))
            .ok_or_else(|| {
                at(
                    &doc,
                    &path,
                    node,
                    format!("the {what} has no <source path=…>"),
                )
                .hint("download the package again")
            })?;
        let file = dir.join(source);
        if !file.is_file() {
            return Err(at(
                &doc,
                &path,
                node,
                format!("the {what}'s source {} is missing", file.display()),
            )
            .hint("download the full package (it holds the sources under files/)"));
        }
        Ok(Program {
            helpers: helpers.iter().filter(|h| **h != file).cloned().collect(),
            source: file,
            protocol: Protocol::Testlib,
            args: Vec::new(),
        })
    };
    if let Some(t) = checker_node.attribute("type").filter(|t| *t != "testlib") {
        return Err(at(
            &doc,
            &path,
            checker_node,
            format!("checker type `{t}` is not supported (only testlib)"),
        )
        .hint("use a testlib checker"));
    }
    let standard = checker_node
        .attribute("name")
        .filter(|n| n.starts_with("std::"))
        .and_then(Standard::from_name);
    let checker = match standard {
        Some(which) => CheckerSpec::Builtin(Builtin::Testlib(which)),
        None => CheckerSpec::Custom(program(checker_node, "checker")?),
    };
    // An interactive problem: the interactor writes `tout`, which the checker then checks.
    let interactor = match assets.and_then(|a| child(a, "interactor")) {
        Some(node) => Some(program(node, "interactor")?),
        None => None,
    };
    let mut validators = Vec::new();
    if let Some(a) = assets {
        let mut nodes: Vec<Node> = a
            .children()
            .filter(|c| c.has_tag_name("validator"))
            .collect();
        if let Some(vs) = child(a, "validators") {
            nodes.extend(vs.children().filter(|c| c.has_tag_name("validator")));
        }
        for v in nodes {
            validators.push(program(v, "validator")?);
        }
    }

    let mut solutions = Vec::new();
    if let Some(list) = assets.and_then(|a| child(a, "solutions")) {
        for node in list.children().filter(|c| c.has_tag_name("solution")) {
            let tag = node.attribute("tag").unwrap_or("");
            let Some(expected) = tag_verdicts(tag) else {
                return Err(
                    at(&doc, &path, node, format!("unknown solution tag `{tag}`")).hint(format!(
                        "Polygon's tags are {}",
                        TAGS.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(", ")
                    )),
                );
            };
            let source = child(node, "source")
                .and_then(|s| s.attribute("path"))
                .ok_or_else(|| {
                    at(&doc, &path, node, "the solution has no <source path=…>")
                        .hint("download the package again")
                })?;
            let file = dir.join(source);
            if !file.is_file() {
                warnings.push(at(
                    &doc,
                    &path,
                    node,
                    format!("solution {} is not in the package; skipped", file.display()),
                ));
                continue;
            }
            let mut expected = expected.to_vec();
            expected.sort();
            let language = child(node, "source")
                .and_then(|s| s.attribute("type"))
                .map(str::to_string);
            solutions.push(Solution {
                path: file,
                expected,
                permitted: None,
                rule: format!("Polygon tag `{tag}`"),
                entrypoint: None,
                score: None,
                rules: Vec::new(),
                language,
            });
        }
    }

    if interactor.is_some() && (io.input.is_some() || io.output.is_some()) {
        return Err(PackageError::new(
            &path,
            "an interactive problem whose solution reads or writes files (<judging input-file / output-file>)",
        )
        .hint("an interactive solution talks to the interactor on stdin and stdout: leave input-file and output-file empty"));
    }
    Ok(Problem {
        slug: slug_of(dir),
        dir: dir.to_path_buf(),
        format: Format::Polygon,
        name,
        source: None,
        limits,
        origin,
        time_rule: judge_model::TimeRule::usual(),
        derive_time: false,
        checker,
        interactor,
        tests,
        groups,
        validator: None,
        validators,
        io,
        solutions,
        includes: Default::default(),
        rebuild,
        constants: Vec::new(),
        warnings,
        scoring,
        passes: None,
    })
}

use Verdict::*;

/// Polygon's solution tags and the final verdicts each allows ("rejected" and "failed": any
/// rejection).
const TAGS: &[(&str, &[Verdict])] = &[
    ("main", &[AC]),
    ("accepted", &[AC]),
    ("wrong-answer", &[WA]),
    ("presentation-error", &[PE, WA]),
    ("time-limit-exceeded", &[TLE]),
    ("memory-limit-exceeded", &[MLE]),
    ("time-limit-exceeded-or-accepted", &[AC, TLE]),
    ("time-limit-exceeded-or-memory-limit-exceeded", &[TLE, MLE]),
    ("rejected", &[WA, PE, TLE, MLE, OLE, RE]),
    ("failed", &[WA, PE, TLE, MLE, OLE, RE]),
];

fn tag_verdicts(tag: &str) -> Option<&'static [Verdict]> {
    TAGS.iter().find(|(t, _)| *t == tag).map(|(_, v)| *v)
}

/// Files under `files/` other than sources (testlib.h, headers): copied next to every checker and
/// validator build.
fn helper_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("files"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && !p.extension().is_some_and(|e| {
                            super::SOURCE_EXTENSIONS.contains(&e.to_string_lossy().as_ref())
                        })
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The scoring of a problem with points (`None` when no test or group has any): each group
/// in `<groups>` order, `each-test` (the sum of its passing tests' points; a test's points are
/// the checker's when it gives some, testlib exit 7) or `complete-group` (the group's points, or
/// its tests' sum, only when every test passes), after its `dependencies` pass; tests in no
/// group score their own points.
fn scoring(
    tests: &[TestCase],
    groups: &[Group],
    path: &Path,
) -> Result<Option<Scoring>, PackageError> {
    let positive = |p: Option<f64>| p.is_some_and(|p| p > 0.0);
    if !tests.iter().any(|t| positive(t.points)) && !groups.iter().any(|g| positive(g.points)) {
        return Ok(None);
    }
    let mut names: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
    for t in tests {
        if !t.group.is_empty() && !names.contains(&t.group) {
            names.push(t.group.clone());
        }
    }
    let mut root = score::Node::new("", Aggregate::Sum, None);
    let mut named = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    // Ungrouped tests first where they come first: keep the tests' order for them.
    for (i, t) in tests.iter().enumerate() {
        if t.group.is_empty() {
            root.items.push(Item::Test(TestItem {
                index: i,
                accept: Some(t.points.unwrap_or(0.0)),
                reject: 0.0,
                cap: None,
            }));
        }
    }
    for name in &names {
        let spec = groups.iter().find(|g| g.name == *name);
        let members: Vec<usize> = (0..tests.len())
            .filter(|&i| tests[i].group == *name)
            .collect();
        let test_points: f64 = members
            .iter()
            .map(|&i| tests[i].points.unwrap_or(0.0))
            .sum();
        let complete = spec.and_then(|g| g.points_policy.as_deref()) == Some("complete-group");
        let group_points = spec.and_then(|g| g.points);
        let mut node = if complete {
            score::Node::new(
                name.clone(),
                Aggregate::PassFail,
                Some(group_points.unwrap_or(test_points)),
            )
        } else {
            score::Node::new(name.clone(), Aggregate::Sum, None)
        };
        let even = (!complete && test_points == 0.0 && !members.is_empty())
            .then(|| group_points.unwrap_or(0.0) / members.len() as f64);
        node.items = members
            .iter()
            .map(|&i| {
                Item::Test(TestItem {
                    index: i,
                    accept: Some(even.unwrap_or(tests[i].points.unwrap_or(0.0))),
                    reject: 0.0,
                    cap: None,
                })
            })
            .collect();
        if let Some(g) = spec {
            for d in &g.dependencies {
                if !seen.contains(&d.as_str()) {
                    return Err(PackageError::new(
                        path,
                        format!(
                            "group `{name}` depends on group `{d}`, which is not a group before it"
                        ),
                    )
                    .hint(
                        "fix the group's <dependencies> in Polygon and download the package again",
                    ));
                }
            }
            node.requires = g.dependencies.clone();
        }
        seen.push(name);
        named.push((name.clone(), members));
        root.items.push(Item::Node(node));
    }
    Ok(Some(Scoring {
        root,
        graded_verdict: false,
        named,
    }))
}
