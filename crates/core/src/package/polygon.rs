//! Codeforces Polygon packages: `problem.xml` (read into its raw shape, `raw/polygon.rs`) —
//! `<judging>` limits (ms and bytes), input and output files, the `tests` test set (paths from
//! its patterns, groups and points), the checker (a standard testlib one by name becomes a
//! built-in; any other is built from the package with `files/` beside it), the interactor, the
//! validators (testlib: exit 0 = valid) and the solutions with their tags.

use super::raw::polygon::{self as raw, Pos, ProblemXml, ProgramXml, TestXml, Testset};
use super::{
    slug_of, CheckerSpec, FileIo, Format, Group, LimitOrigin, PackageError, Problem, ProblemLimits,
    Program, Protocol, Rebuild, Solution, TestCase, MIB,
};
use crate::checker::testlib::Standard;
use crate::checker::Builtin;
use crate::score::{self, Aggregate, Item, Scoring, TestItem};
use judge_model::Verdict;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Polygon has no output limit: the judge's native default.
const OUTPUT_LIMIT: u64 = 64 * MIB;

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

/// The `file:line:column` error at `pos`.
fn at(path: &Path, pos: Pos, message: impl Into<String>) -> PackageError {
    let mut e = PackageError::new(path, message);
    e.position = Some(pos);
    e
}

/// Reads the Polygon package in `dir`; `strict` = every test has its input and answer.
pub fn load(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
    let path = dir.join("problem.xml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| PackageError::new(&path, format!("cannot read: {e}")))?;
    let xml = raw::parse(&path, &text)?;
    let mut warnings = Vec::new();
    for (pos, tag) in &xml.unknown {
        warnings.push(at(&path, *pos, format!("unknown element <{tag}>; ignored")));
    }
    if let Some(a) = &xml.assets {
        for (pos, tag) in &a.unknown {
            warnings.push(at(&path, *pos, format!("unknown asset <{tag}>; ignored")));
        }
    }
    let name = xml
        .names
        .iter()
        .find(|(language, _)| language.as_deref() == Some("english"))
        .or(xml.names.first())
        .and_then(|(_, value)| value.clone())
        .or_else(|| xml.short_name.clone())
        .unwrap_or_else(|| slug_of(dir));
    let judging = xml.judging.as_ref().ok_or_else(|| {
        at(&path, xml.pos, "no <judging> element")
            .hint("a Polygon problem.xml has <judging> with the test set and limits")
    })?;
    let file = |name: &Option<String>| {
        name.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let io = FileIo {
        input: file(&judging.input_file),
        output: file(&judging.output_file),
    };
    let testset = judging
        .testsets
        .iter()
        .find(|t| t.name.as_deref() == Some("tests"))
        .or(judging.testsets.first())
        .ok_or_else(|| {
            at(&path, judging.pos, "no <testset> in <judging>")
                .hint("the package needs the `tests` test set")
        })?;
    for other in judging.testsets.iter().filter(|t| t.pos != testset.pos) {
        warnings.push(at(
            &path,
            other.pos,
            format!(
                "test set `{}` is not judged (only `{}` is)",
                other.name.as_deref().unwrap_or("?"),
                testset.name.as_deref().unwrap_or("?")
            ),
        ));
    }
    let (limits, origin) = limits(&path, testset)?;
    let helpers = helper_files(dir);
    let rebuild = rebuild(dir, &xml, &helpers);
    let tests = tests(dir, &path, testset, &rebuild, strict, &mut warnings)?;
    let groups: Vec<Group> = testset
        .groups
        .iter()
        .map(|g| Group {
            name: g.name.clone().unwrap_or_default(),
            points: g.points.as_deref().and_then(|p| p.trim().parse().ok()),
            points_policy: g.points_policy.clone(),
            dependencies: g.dependencies.clone(),
        })
        .collect();
    let scoring = scoring(&tests, &groups, &path)?;
    let jury = Jury {
        dir,
        path: &path,
        helpers: &helpers,
    };
    let (checker, interactor, validators) = jury.programs(&xml)?;
    let solutions = solutions(&jury, &xml, &mut warnings)?;
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
        grader: None,
        python: None,
    })
}

/// The limits of the test set, in ms and bytes.
fn limits(path: &Path, testset: &Testset) -> Result<(ProblemLimits, LimitOrigin), PackageError> {
    let integer = |given: &Option<(Pos, String)>, name: &str, unit: &str, max: u64| {
        let Some((pos, value)) = given else {
            return Err(
                at(path, testset.pos, format!("no <{name}> in the test set"))
                    .hint(format!("add <{name}> ({unit})")),
            );
        };
        match value.parse::<u64>() {
            Ok(v) if v > 0 && v <= max => Ok(v),
            _ => Err(at(
                path,
                *pos,
                format!("<{name}> `{value}` is not a number of {unit}"),
            )
            .hint(format!("write a positive whole number of {unit}"))),
        }
    };
    let time_ms = integer(&testset.time_limit, "time-limit", "milliseconds", 3_600_000)?;
    let memory = integer(&testset.memory_limit, "memory-limit", "bytes", 64 << 30)?;
    let time = Duration::from_millis(time_ms);
    Ok((
        ProblemLimits {
            time,
            wall: time * 3 + Duration::from_secs(1),
            memory,
            stack: memory,
            output: OUTPUT_LIMIT,
        },
        LimitOrigin {
            time: format!("problem.xml <time-limit> {time_ms} ms"),
            memory: format!("problem.xml <memory-limit> {memory} bytes"),
            output: "default (64 MiB; Polygon has no output limit)".into(),
        },
    ))
}

/// What makes the tests a package leaves out: its generators (`<files><executables>`) and the
/// main solution.
fn rebuild(dir: &Path, xml: &ProblemXml, helpers: &[PathBuf]) -> Rebuild {
    let mut rebuild = Rebuild::default();
    for src in &xml.executables {
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
    rebuild.main = xml
        .assets
        .iter()
        .flat_map(|a| &a.solutions)
        .filter(|s| s.tag.as_deref() == Some("main"))
        .find_map(|s| s.source.as_ref())
        .map(|p| dir.join(p))
        .filter(|p| p.is_file());
    rebuild
}

/// The test set's tests, their files from its path patterns; a test the package lacks is
/// marked for rebuilding when something can make it.
fn tests(
    dir: &Path,
    path: &Path,
    testset: &Testset,
    rebuild: &Rebuild,
    strict: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<TestCase>, PackageError> {
    let input_pattern = testset
        .input_path_pattern
        .as_deref()
        .unwrap_or("tests/%02d");
    let answer_pattern = testset
        .answer_path_pattern
        .as_deref()
        .unwrap_or("tests/%02d.a");
    if let Some(count) = &testset.test_count {
        if count.parse::<usize>().ok() != Some(testset.tests.len()) {
            warnings.push(PackageError::new(
                path,
                format!(
                    "<test-count> says {count} but <tests> lists {}; the listed ones are judged",
                    testset.tests.len()
                ),
            ));
        }
    }
    let mut tests = Vec::new();
    for (i, node) in testset.tests.iter().enumerate() {
        let n = i + 1;
        let file = |pattern: &str| {
            format_pattern(pattern, n)
                .map(|p| dir.join(p))
                .ok_or_else(|| {
                    at(
                        path,
                        testset.pos,
                        format!("cannot use the path pattern `{pattern}`"),
                    )
                    .hint("patterns look like tests/%02d (printf's %d with an optional width)")
                })
        };
        let input = file(input_pattern)?;
        let answer = file(answer_pattern)?;
        tests.push(test(path, n, node, input, answer, rebuild, strict)?);
    }
    if strict && tests.is_empty() {
        return Err(at(path, testset.pos, "the test set lists no tests")
            .hint("add tests in Polygon and download the package again"));
    }
    Ok(tests)
}

/// Test `n` (`node`) with its files.
fn test(
    path: &Path,
    n: usize,
    node: &TestXml,
    input: PathBuf,
    answer: PathBuf,
    rebuild: &Rebuild,
    strict: bool,
) -> Result<TestCase, PackageError> {
    let generated = node.method.as_deref() == Some("generated");
    let cmd = node.cmd.as_deref().unwrap_or("");
    let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
    let generate = (!input.is_file()
        && generated
        && words
            .first()
            .is_some_and(|g| rebuild.generators.contains_key(g)))
    .then(|| words.clone());
    let answer_missing = !answer.is_file() && rebuild.main.is_some();
    if strict && !input.is_file() && generate.is_none() {
        let e = at(
            path,
            node.pos,
            format!("test {n}: its input {} is missing", input.display()),
        );
        return Err(if generated {
            e.hint(format!("test {n} is generated (`{cmd}`) by a generator that is not among <files><executables>: download the full package (Polygon's \"linux\" package holds every test)"))
        } else {
            e.hint("restore the test file, or download the package again")
        });
    }
    if strict && !answer.is_file() && !answer_missing {
        return Err(at(path, node.pos, format!("test {n}: its answer {} is missing", answer.display()))
            .hint("the package has no main solution to make it: download the full package from Polygon (it holds every answer), or write the answer file"));
    }
    let points = match &node.points {
        None => None,
        Some(p) => Some(p.trim().parse::<f64>().map_err(|_| {
            at(
                path,
                node.pos,
                format!("test {n}: points `{p}` is not a number"),
            )
            .hint("write points=\"5\"")
        })?),
    };
    Ok(TestCase {
        name: input
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| n.to_string()),
        input,
        answer,
        sample: node.sample,
        group: node.group.clone().unwrap_or_default(),
        checker_args: Vec::new(),
        validator_args: Vec::new(),
        points,
        generate,
        answer_missing,
        interaction: None,
    })
}

/// Where the jury's programs are built from: the package, its `problem.xml`, the helper files
/// of `files/`.
struct Jury<'a> {
    dir: &'a Path,
    path: &'a Path,
    helpers: &'a [PathBuf],
}

impl Jury<'_> {
    /// A checker, interactor or validator from its `<source path>`.
    fn program(&self, node: &ProgramXml, what: &str) -> Result<Program, PackageError> {
        let source = node.source.as_ref().ok_or_else(|| {
            at(
                self.path,
                node.pos,
                format!("the {what} has no <source path=…>"),
            )
            .hint("download the package again")
        })?;
        let file = self.dir.join(source);
        if !file.is_file() {
            return Err(at(
                self.path,
                node.pos,
                format!("the {what}'s source {} is missing", file.display()),
            )
            .hint("download the full package (it holds the sources under files/)"));
        }
        Ok(Program {
            helpers: self
                .helpers
                .iter()
                .filter(|h| **h != file)
                .cloned()
                .collect(),
            source: file,
            protocol: Protocol::Testlib,
            args: Vec::new(),
        })
    }

    /// The checker (a standard testlib one by name is built in), the interactor and the
    /// validators.
    fn programs(
        &self,
        xml: &ProblemXml,
    ) -> Result<(CheckerSpec, Option<Program>, Vec<Program>), PackageError> {
        let assets = xml.assets.as_ref();
        let checker = assets.and_then(|a| a.checker.as_ref()).ok_or_else(|| {
            at(self.path, assets.map_or(xml.pos, |a| a.pos), "no <checker> in <assets>").hint(
                "Polygon packages name their checker in <assets><checker>; download the package again",
            )
        })?;
        if let Some(t) = checker.kind.as_deref().filter(|t| *t != "testlib") {
            return Err(at(
                self.path,
                checker.pos,
                format!("checker type `{t}` is not supported (only testlib)"),
            )
            .hint("use a testlib checker"));
        }
        let standard = checker
            .name
            .as_deref()
            .filter(|n| n.starts_with("std::"))
            .and_then(Standard::from_name);
        let spec = match standard {
            Some(which) => CheckerSpec::Builtin(Builtin::Testlib(which)),
            None => CheckerSpec::Custom(self.program(checker, "checker")?),
        };
        // An interactive problem: the interactor writes `tout`, which the checker then checks.
        let interactor = match assets.and_then(|a| a.interactor.as_ref()) {
            Some(node) => Some(self.program(node, "interactor")?),
            None => None,
        };
        let validators = assets
            .iter()
            .flat_map(|a| &a.validators)
            .map(|v| self.program(v, "validator"))
            .collect::<Result<_, _>>()?;
        Ok((spec, interactor, validators))
    }
}

/// The package's solutions with the verdicts their tags allow; one missing from the package is
/// a warning.
fn solutions(
    jury: &Jury,
    xml: &ProblemXml,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<Solution>, PackageError> {
    let mut solutions = Vec::new();
    for node in xml.assets.iter().flat_map(|a| &a.solutions) {
        let tag = node.tag.as_deref().unwrap_or("");
        let Some(expected) = tag_verdicts(tag) else {
            return Err(
                at(jury.path, node.pos, format!("unknown solution tag `{tag}`")).hint(format!(
                    "Polygon's tags are {}",
                    TAGS.iter().map(|(t, _)| *t).collect::<Vec<_>>().join(", ")
                )),
            );
        };
        let source = node.source.as_ref().ok_or_else(|| {
            at(jury.path, node.pos, "the solution has no <source path=…>")
                .hint("download the package again")
        })?;
        let file = jury.dir.join(source);
        if !file.is_file() {
            warnings.push(at(
                jury.path,
                node.pos,
                format!("solution {} is not in the package; skipped", file.display()),
            ));
            continue;
        }
        let mut expected = expected.to_vec();
        expected.sort();
        solutions.push(Solution {
            path: file,
            expected,
            permitted: None,
            rule: format!("Polygon tag `{tag}`"),
            entrypoint: None,
            score: None,
            rules: Vec::new(),
            language: node.language.clone(),
        });
    }
    Ok(solutions)
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
