//! The native format: `problem.toml`, `tests/NAME.in` + `NAME.ans`, an optional
//! `validator.<ext>`.

use super::raw::native as raw;
use super::{
    natural_cmp, slug_of, testlib_names, CheckerSpec, Format, LimitOrigin, PackageError, Problem,
    ProblemLimits, Program, Protocol, TestCase, MIB,
};
use crate::checker::testlib::{self, Standard};
use crate::checker::{kattis, Builtin};
use crate::score::{Aggregate, Item, Node, Scoring, TestItem};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Reads and validates the native package in `dir`; `strict` = every input has its answer.
pub fn load(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
    let toml_path = dir.join("problem.toml");
    let text = std::fs::read_to_string(&toml_path).map_err(|e| {
        PackageError::new(&toml_path, format!("cannot read: {e}"))
            .hint("every package needs a problem.toml (see the book: docs/book/src/setters/problem-toml.md)")
    })?;
    let raw: raw::Problem = toml::from_str(&text).map_err(|e| toml_error(&toml_path, &text, &e))?;
    let err = |offset: usize, msg: String| PackageError::new(&toml_path, msg).at(&text, offset);

    let name = raw.name.get_ref().trim().to_string();
    if name.is_empty() {
        return Err(err(raw.name.span().start, "`name` is empty".into())
            .hint("give the problem a display name"));
    }
    let python = match &raw.python {
        None => None,
        Some(p) => Some(crate::lang::Python::parse(p.get_ref()).ok_or_else(|| {
            err(p.span().start, format!("`python` = \"{}\" is not `pypy` or `cpython`", p.get_ref()))
                .hint("python = \"pypy\" runs the package's Python programs with PyPy (as Kattis does), python = \"cpython\" with CPython")
        })?),
    };
    let limits = validate_limits(raw.limits.get_ref(), &err)?;
    let checker = validate_checker(dir, raw.checker.as_ref(), &err)?;
    let interactor = match &raw.interactor {
        None => None,
        Some(i) => Some(validate_interactor(dir, i, &err)?),
    };
    let mut tests = find_tests(dir, strict)?;
    let (groups, scoring) = scored_groups(&raw.group, &mut tests, &err)?;
    let validator = find_validator(dir)?;
    let origin = LimitOrigin {
        time: "problem.toml [limits] time_limit".into(),
        memory: "problem.toml [limits] memory".into(),
        output: if raw.limits.get_ref().output.is_some() {
            "problem.toml [limits] output".into()
        } else {
            "default (64 MiB)".into()
        },
    };
    let validators = validator
        .iter()
        .map(|v| Program {
            source: v.clone(),
            protocol: Protocol::Testlib,
            helpers: Vec::new(),
            args: Vec::new(),
        })
        .collect();
    Ok(Problem {
        slug: slug_of(dir),
        dir: dir.to_path_buf(),
        format: Format::Native,
        name,
        source: raw.source,
        limits,
        origin,
        time_rule: judge_model::TimeRule::usual(),
        derive_time: false,
        checker,
        interactor,
        tests,
        groups,
        validator,
        validators,
        io: Default::default(),
        solutions: Vec::new(),
        includes: Default::default(),
        rebuild: Default::default(),
        constants: Vec::new(),
        warnings: Vec::new(),
        scoring,
        passes: None,
        grader: None,
        python,
    })
}

fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> PackageError {
    let mut message = e.message().to_string();
    if message.starts_with("unknown field") {
        message.push_str(" (check the spelling; the book lists every key: docs/book/src/setters/problem-toml.md)");
    }
    let mut err = PackageError::new(path, message);
    if let Some(span) = e.span() {
        err = err.at(text, span.start);
    }
    err
}

fn validate_limits(
    raw: &raw::Limits,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<ProblemLimits, PackageError> {
    let seconds = |v: &toml::Spanned<f64>, key: &str, max: f64| -> Result<Duration, PackageError> {
        let x = *v.get_ref();
        if !(x.is_finite() && x > 0.0 && x <= max) {
            return Err(err(
                v.span().start,
                format!("`{key}` = {x} is not a sensible number of seconds"),
            )
            .hint(format!("use a positive number up to {max}, e.g. 1.0")));
        }
        Ok(Duration::from_secs_f64(x))
    };
    let mebibytes = |v: &toml::Spanned<f64>, key: &str, min: f64| -> Result<u64, PackageError> {
        let x = *v.get_ref();
        if !(x.is_finite() && x >= min && x <= 65536.0) {
            return Err(
                err(v.span().start, format!("`{key}` = {x} MiB is out of range"))
                    .hint(format!("use a number of MiB between {min} and 65536")),
            );
        }
        Ok((x * MIB as f64) as u64)
    };
    let time = seconds(&raw.time_limit, "time_limit", 3600.0)?;
    let memory = mebibytes(&raw.memory, "memory", 4.0)?;
    let wall = match &raw.wall_time_limit {
        Some(w) => {
            let wall = seconds(w, "wall_time_limit", 3.0 * 3600.0)?;
            if wall < time {
                return Err(err(w.span().start, "`wall_time_limit` is shorter than `time_limit`".into())
                    .hint("the wall-clock limit must be at least the CPU time limit; omit it for 3 x time_limit + 1"));
            }
            wall
        }
        None => time * 3 + Duration::from_secs(1),
    };
    let output = match &raw.output {
        Some(o) => mebibytes(o, "output", 1.0 / 1024.0)?,
        None => 64 * MIB,
    };
    let stack = match &raw.stack {
        Some(s) => {
            let stack = mebibytes(s, "stack", 1.0)?;
            if stack > memory {
                return Err(err(s.span().start, "`stack` is larger than `memory`".into())
                    .hint("the stack counts against the memory limit; omit it to make it equal to memory"));
            }
            stack
        }
        None => memory,
    };
    Ok(ProblemLimits {
        time,
        wall,
        memory,
        stack,
        output,
    })
}

fn validate_checker(
    dir: &Path,
    raw: Option<&toml::Spanned<raw::Checker>>,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<CheckerSpec, PackageError> {
    let Some(spanned) = raw else {
        return Ok(CheckerSpec::Builtin(Builtin::Tokens));
    };
    let c = spanned.get_ref();
    let kind = c
        .kind
        .as_ref()
        .map_or(raw::CheckerKind::Tokens, |k| *k.get_ref());
    let at = spanned.span().start;
    keys_fit_kind(c, kind, err)?;
    let tol = |v: &Option<toml::Spanned<f64>>, key: &str| -> Result<Option<f64>, PackageError> {
        match v {
            None => Ok(None),
            Some(v) if v.get_ref().is_finite() && *v.get_ref() >= 0.0 && *v.get_ref() < 1e6 => {
                Ok(Some(*v.get_ref()))
            }
            Some(v) => Err(err(
                v.span().start,
                format!("`{key}` must be a finite number >= 0"),
            )
            .hint("e.g. 1e-6")),
        }
    };
    Ok(match kind {
        raw::CheckerKind::Exact => CheckerSpec::Builtin(Builtin::Exact),
        raw::CheckerKind::Lines => CheckerSpec::Builtin(Builtin::Lines),
        raw::CheckerKind::Tokens => CheckerSpec::Builtin(Builtin::Tokens),
        raw::CheckerKind::Float => {
            if c.float_absolute_tolerance.is_none() && c.float_relative_tolerance.is_none() {
                return Err(err(at, "kind = \"float\" needs a tolerance".into())
                    .hint("add float_absolute_tolerance and/or float_relative_tolerance (accepted if within either)"));
            }
            CheckerSpec::Builtin(Builtin::Float {
                absolute: tol(&c.float_absolute_tolerance, "float_absolute_tolerance")?
                    .unwrap_or(0.0),
                relative: tol(&c.float_relative_tolerance, "float_relative_tolerance")?
                    .unwrap_or(0.0),
            })
        }
        raw::CheckerKind::Testlib => testlib_checker(c, at, err)?,
        raw::CheckerKind::Kattis => {
            let mut absolute = tol(&c.float_absolute_tolerance, "float_absolute_tolerance")?;
            let mut relative = tol(&c.float_relative_tolerance, "float_relative_tolerance")?;
            if let Some(both) = &c.float_tolerance {
                if absolute.is_some() || relative.is_some() {
                    return Err(err(
                        both.span().start,
                        "`float_tolerance` together with `float_absolute_tolerance` or `float_relative_tolerance`".into(),
                    )
                    .hint("float_tolerance sets both; keep either it or the separate tolerances"));
                }
                absolute = tol(&c.float_tolerance, "float_tolerance")?;
                relative = absolute;
            }
            let flag = |v: &Option<toml::Spanned<bool>>| v.as_ref().is_some_and(|b| *b.get_ref());
            CheckerSpec::Builtin(Builtin::Kattis(kattis::Flags {
                case_sensitive: flag(&c.case_sensitive),
                space_change_sensitive: flag(&c.space_change_sensitive),
                float_absolute_tolerance: absolute,
                float_relative_tolerance: relative,
            }))
        }
        raw::CheckerKind::Custom => custom_checker(dir, c, at, err)?,
    })
}

/// Each key of `[checker]` applies to some kinds only.
fn keys_fit_kind(
    c: &raw::Checker,
    kind: raw::CheckerKind,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<(), PackageError> {
    use raw::CheckerKind as K;
    // Each key and the kinds it applies to.
    let keys: [(&str, Option<usize>, &[K], &str); 9] = [
        (
            "float_absolute_tolerance",
            c.float_absolute_tolerance.as_ref().map(|v| v.span().start),
            &[K::Float, K::Kattis],
            "\"float\" or \"kattis\"",
        ),
        (
            "float_relative_tolerance",
            c.float_relative_tolerance.as_ref().map(|v| v.span().start),
            &[K::Float, K::Kattis],
            "\"float\" or \"kattis\"",
        ),
        (
            "float_tolerance",
            c.float_tolerance.as_ref().map(|v| v.span().start),
            &[K::Kattis],
            "\"kattis\"",
        ),
        (
            "case_sensitive",
            c.case_sensitive.as_ref().map(|v| v.span().start),
            &[K::Kattis],
            "\"kattis\"",
        ),
        (
            "space_change_sensitive",
            c.space_change_sensitive.as_ref().map(|v| v.span().start),
            &[K::Kattis],
            "\"kattis\"",
        ),
        (
            "name",
            c.name.as_ref().map(|v| v.span().start),
            &[K::Testlib],
            "\"testlib\"",
        ),
        (
            "source",
            c.source.as_ref().map(|v| v.span().start),
            &[K::Custom],
            "\"custom\"",
        ),
        (
            "protocol",
            c.protocol.as_ref().map(|v| v.span().start),
            &[K::Custom],
            "\"custom\"",
        ),
        (
            "files",
            c.files
                .as_ref()
                .map(|v| v.first().map_or(0, |f| f.span().start)),
            &[K::Custom],
            "\"custom\"",
        ),
    ];
    for (key, offset, kinds, names) in keys {
        if let Some(offset) = offset.filter(|_| !kinds.contains(&kind)) {
            return Err(
                err(offset, format!("`{key}` only applies to kind = {names}"))
                    .hint(format!("set kind = {names} or remove `{key}`")),
            );
        }
    }
    Ok(())
}

/// `kind = "testlib"`: one of testlib's standard checkers, by `name`.
fn testlib_checker(
    c: &raw::Checker,
    at: usize,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<CheckerSpec, PackageError> {
    let Some(name) = &c.name else {
        return Err(
            err(at, "kind = \"testlib\" needs `name`".into()).hint(format!(
                "name one of testlib's standard checkers: {}",
                testlib_names()
            )),
        );
    };
    match Standard::from_name(name.get_ref()) {
        Some(which) => Ok(CheckerSpec::Builtin(Builtin::Testlib(which))),
        None if testlib::SCORING.contains(&testlib::bare_name(name.get_ref())) => {
            Err(err(
                name.span().start,
                format!("`{}` is a testlib checker that gives points, not a verdict; it is not built in (a custom checker may give points: testlib exit 7 in a [[group]] with policy = \"each\")", name.get_ref()),
            )
            .hint("use a comparing checker (e.g. \"rcmp6\"), or kind = \"custom\" with a checker that exits 0, 1 or 2"))
        }
        None => {
            Err(err(
                name.span().start,
                format!("`{}` is not one of testlib's standard checkers", name.get_ref()),
            )
            .hint(format!(
                "use one of {} (with or without `std::` and `.cpp`), or kind = \"custom\" with the checker's source",
                testlib_names()
            )))
        }
    }
}

/// `kind = "custom"`: a checker built from `source` with its helper `files`.
fn custom_checker(
    dir: &Path,
    c: &raw::Checker,
    at: usize,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<CheckerSpec, PackageError> {
    let Some(source) = &c.source else {
        return Err(err(at, "kind = \"custom\" needs `source`".into())
            .hint("add source = \"checker.rs\" (a file in the package)"));
    };
    let path = dir.join(source.get_ref());
    if !path.is_file() {
        return Err(err(
            source.span().start,
            format!("checker source `{}` does not exist", path.display()),
        )
        .hint("write the checker there, or fix the path (relative to the package folder)"));
    }
    let protocol = match c.protocol.as_ref().map(|p| *p.get_ref()) {
        None | Some(raw::Protocol::Testlib) => Protocol::Testlib,
        Some(raw::Protocol::Kattis) => Protocol::Kattis,
    };
    let mut helpers = Vec::new();
    for file in c.files.iter().flatten() {
        let helper = dir.join(file.get_ref());
        if !helper.is_file() {
            return Err(err(
                file.span().start,
                format!("helper file `{}` does not exist", helper.display()),
            )
            .hint(
                "list files of the package (relative to its folder), e.g. files = [\"testlib.h\"]",
            ));
        }
        helpers.push(helper);
    }
    Ok(CheckerSpec::Custom(Program {
        source: path,
        protocol,
        helpers,
        args: Vec::new(),
    }))
}

/// `[interactor] source = "interactor.rs", protocol = "kattis" | "testlib"`, `files = [...]`.
fn validate_interactor(
    dir: &Path,
    raw: &toml::Spanned<toml::Value>,
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<Program, PackageError> {
    let at = raw.span().start;
    let example = |file: &str| {
        format!("write it as a table:\n[interactor]\nsource = \"{file}\"\nprotocol = \"kattis\"   # or \"testlib\"")
    };
    let table = match raw.get_ref() {
        toml::Value::Table(t) => t,
        toml::Value::String(file) => {
            return Err(
                err(at, "the interactor needs its protocol named".into()).hint(example(file))
            )
        }
        _ => {
            return Err(
                err(at, "`interactor` must be a table".into()).hint(example("interactor.rs"))
            )
        }
    };
    if let Some(key) = table
        .keys()
        .find(|k| !["source", "protocol", "files"].contains(&k.as_str()))
    {
        return Err(err(at, format!("unknown key `{key}` in [interactor]"))
            .hint("[interactor] has source, protocol and files"));
    }
    let Some(source) = table.get("source").and_then(|v| v.as_str()) else {
        return Err(err(at, "[interactor] needs `source` (a file name)".into())
            .hint(example("interactor.rs")));
    };
    let protocol = match table.get("protocol").and_then(|v| v.as_str()) {
        Some("kattis") => Protocol::Kattis,
        Some("testlib") => Protocol::Testlib,
        other => {
            return Err(err(
                at,
                match other {
                    None => "[interactor] needs `protocol`".into(),
                    Some(p) => format!("unknown interactor protocol `{p}`"),
                },
            )
            .hint("protocol = \"kattis\" (run as `interactor input answer feedback_dir/`: exit 42 accepts, 43 rejects) or \"testlib\" (run as `interactor input tout answer`: exit 0, then the checker checks tout; 1 WA, 2 PE, 3 fail)"))
        }
    };
    let path = dir.join(source);
    if !path.is_file() {
        return Err(err(
            at,
            format!("interactor source `{}` does not exist", path.display()),
        )
        .hint("write the interactor there, or fix the path (relative to the package folder)"));
    }
    let mut helpers = Vec::new();
    let files = match table.get("files") {
        None => Vec::new(),
        Some(toml::Value::Array(a)) if a.iter().all(|v| v.is_str()) => {
            a.iter().filter_map(|v| v.as_str()).collect()
        }
        Some(_) => {
            return Err(err(
                at,
                "[interactor] `files` must be a list of file names".into(),
            )
            .hint("files = [\"testlib.h\"]"))
        }
    };
    for file in files {
        let helper = dir.join(file);
        if !helper.is_file() {
            return Err(err(
                at,
                format!("helper file `{}` does not exist", helper.display()),
            )
            .hint("list files of the package (relative to its folder)"));
        }
        helpers.push(helper);
    }
    Ok(Program {
        source: path,
        protocol,
        helpers,
        args: Vec::new(),
    })
}

fn find_tests(dir: &Path, strict: bool) -> Result<Vec<TestCase>, PackageError> {
    let tests_dir = dir.join("tests");
    if !strict && !tests_dir.exists() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(&tests_dir).map_err(|e| {
        PackageError::new(&tests_dir, format!("cannot read the tests folder: {e}"))
            .hint("put tests there as NAME.in + NAME.ans pairs (or run `judge gen` to build them)")
    })?;
    let mut inputs = Vec::new();
    let mut answers = std::collections::BTreeSet::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            PackageError::new(&tests_dir, format!("cannot read the tests folder: {e}"))
        })?;
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            continue;
        }
        match file_name.rsplit_once('.') {
            Some((stem, "in")) if !stem.is_empty() => inputs.push(stem.to_string()),
            Some((stem, "ans")) if !stem.is_empty() => {
                answers.insert(stem.to_string());
            }
            // An interactive test's example exchange (shown and checked).
            Some((stem, "interaction")) if !stem.is_empty() => {}
            _ => {
                return Err(PackageError::new(path, "unexpected file in tests/")
                    .hint("tests/ holds only NAME.in and NAME.ans pairs (and NAME.interaction); move other files elsewhere in the package"))
            }
        }
    }
    for stem in &answers {
        if !inputs.contains(stem) {
            return Err(PackageError::new(
                tests_dir.join(format!("{stem}.ans")),
                "answer without an input",
            )
            .hint(format!("add tests/{stem}.in or delete the .ans")));
        }
    }
    for stem in inputs.iter().filter(|_| strict) {
        if !answers.contains(stem) {
            return Err(PackageError::new(
                tests_dir.join(format!("{stem}.in")),
                "input without an answer",
            )
            .hint(format!(
                "add tests/{stem}.ans (`judge gen` writes it from the reference solution)"
            )));
        }
    }
    if inputs.is_empty() && strict {
        return Err(PackageError::new(&tests_dir, "no tests").hint(
            "add at least one NAME.in + NAME.ans pair (names starting with \"sample\" run first)",
        ));
    }
    let mut tests: Vec<TestCase> = inputs
        .into_iter()
        .map(|name| TestCase {
            input: tests_dir.join(format!("{name}.in")),
            answer: tests_dir.join(format!("{name}.ans")),
            sample: name.starts_with("sample"),
            interaction: Some(tests_dir.join(format!("{name}.interaction")))
                .filter(|p| p.is_file()),
            name,
            ..TestCase::default()
        })
        .collect();
    tests.sort_by(|a, b| {
        b.sample
            .cmp(&a.sample)
            .then_with(|| natural_cmp(&a.name, &b.name))
    });
    Ok(tests)
}

fn find_validator(dir: &Path) -> Result<Option<PathBuf>, PackageError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_stem().is_some_and(|s| s == "validator"))
        .collect();
    found.sort();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(
            PackageError::new(&found[1], "more than one validator in the package")
                .hint("keep a single validator.<ext>"),
        ),
    }
}

/// The `[[group]]` tables: each group's tests (by name or pattern; a test in one group at most),
/// points and policy, and the scoring over them (`None` without groups). Tests in no group
/// score nothing.
fn scored_groups(
    raw: &[toml::Spanned<raw::Group>],
    tests: &mut [TestCase],
    err: &dyn Fn(usize, String) -> PackageError,
) -> Result<(Vec<super::Group>, Option<Scoring>), PackageError> {
    if raw.is_empty() {
        return Ok((Vec::new(), None));
    }
    let mut groups = Vec::new();
    let mut root = Node::new("", Aggregate::Sum, None);
    let mut named: Vec<(String, Vec<usize>)> = Vec::new();
    for g in raw {
        let g = g.get_ref();
        let name = g.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(err(g.name.span().start, "a group's `name` is empty".into())
                .hint("name the group, e.g. name = \"small\""));
        }
        if named.iter().any(|(n, _)| *n == name) {
            return Err(err(
                g.name.span().start,
                format!("two groups are named `{name}`"),
            )
            .hint("give each [[group]] its own name"));
        }
        let points = *g.points.get_ref();
        if !(points.is_finite() && points >= 0.0) {
            return Err(err(
                g.points.span().start,
                format!("group `{name}`: points = {points} is not a non-negative number"),
            ));
        }
        let policy = g.policy.as_ref().map_or("all", |p| p.get_ref().as_str());
        let each = match policy {
            "all" => false,
            "each" => true,
            other => {
                return Err(err(
                    g.policy.as_ref().map_or(0, |p| p.span().start),
                    format!("group `{name}`: unknown policy `{other}`"),
                )
                .hint("policy = \"all\" (the points only when every test passes) or \"each\" (split over the tests)"))
            }
        };
        let mut members = Vec::new();
        for pattern in g.tests.get_ref() {
            let before = members.len();
            for (i, t) in tests.iter().enumerate() {
                if (t.name == *pattern || super::glob_match(pattern, &t.name))
                    && !members.contains(&i)
                {
                    members.push(i);
                }
            }
            if members.len() == before {
                let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
                return Err(err(
                    g.tests.span().start,
                    format!("group `{name}`: no test matches `{pattern}`"),
                )
                .hint(format!("the tests are: {}", names.join(", "))));
            }
        }
        members.sort_unstable();
        for &i in &members {
            if !tests[i].group.is_empty() {
                return Err(err(
                    g.tests.span().start,
                    format!(
                        "test `{}` is in group `{}` and in group `{name}`",
                        tests[i].name, tests[i].group
                    ),
                )
                .hint("a test belongs to one group at most: narrow the patterns"));
            }
            tests[i].group = name.clone();
        }
        let mut requires = Vec::new();
        for r in &g.requires {
            if !named.iter().any(|(n, _)| n == r.get_ref()) {
                return Err(err(
                    r.span().start,
                    format!(
                        "group `{name}` requires `{}`, which is not a group above it",
                        r.get_ref()
                    ),
                )
                .hint("list the groups it depends on by name, each defined before it"));
            }
            requires.push(r.get_ref().clone());
        }
        let mut node = if each {
            let share = points / members.len() as f64;
            let mut n = Node::new(name.clone(), Aggregate::Sum, Some(points));
            n.items = members
                .iter()
                .map(|&i| Item::Test(TestItem::worth(i, share)))
                .collect();
            n
        } else {
            let mut n = Node::new(name.clone(), Aggregate::PassFail, Some(points));
            n.items = members
                .iter()
                .map(|&i| Item::Test(TestItem::worth(i, 0.0)))
                .collect();
            n
        };
        node.requires = requires.clone();
        root.items.push(Item::Node(node));
        groups.push(super::Group {
            name: name.clone(),
            points: Some(points),
            points_policy: Some(policy.to_string()),
            dependencies: requires,
        });
        named.push((name, members));
    }
    Ok((
        groups,
        Some(Scoring {
            root,
            graded_verdict: false,
            named,
        }),
    ))
}
