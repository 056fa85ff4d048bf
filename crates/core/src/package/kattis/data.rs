//! A Kattis package's `data/`: `sample/` and `secret/` with their groups (sub-folders, in
//! lexicographic order), each test an `.in` + `.ans` pair, and the settings of each group
//! (`testdata.yaml` legacy, `test_group.yaml` 2025-09, or what BAPCtools'
//! `generators/generators.yaml` gives where `data/` was not generated again; a case's own
//! `NAME.yaml` last): validator arguments, inherited down the tree, and scoring keys.

use crate::package::raw::kattis::{DraftScoring, GroupConfig, InputArgs};
use crate::package::raw::{self, Args, Read, Text};
use crate::package::{substitute, Group, PackageError, TestCase};
use serde_yaml_ng::{Mapping, Value};
use std::path::{Path, PathBuf};

/// Validator arguments in force for a group (inherited down the tree), and its scoring keys.
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    pub(super) output_args: Vec<String>,
    pub(super) input_args: Vec<String>,
    /// Legacy `testdata.yaml` scoring keys (inherited).
    pub(super) legacy: LegacyGrading,
    /// 2025-09 `test_group.yaml` scoring keys (the group's own, not inherited).
    pub(super) own: GroupScoring,
}

/// The legacy default grader's settings of a group.
#[derive(Debug, Clone)]
pub(super) struct LegacyGrading {
    pub on_reject_break: bool,
    pub accept_score: f64,
    pub reject_score: f64,
    /// The upper end of `range` when finite.
    pub range_max: Option<f64>,
    pub grader_flags: Vec<String>,
    /// Some group configuration gives one of these keys.
    pub given: bool,
    /// `grading: custom`: the package's own grader (`graders/`) scores the group.
    pub custom: bool,
}

impl Default for LegacyGrading {
    fn default() -> Self {
        LegacyGrading {
            on_reject_break: true,
            accept_score: 1.0,
            reject_score: 0.0,
            range_max: None,
            grader_flags: Vec::new(),
            given: false,
            custom: false,
        }
    }
}

/// A 2025-09 group's own scoring keys.
#[derive(Debug, Clone, Default)]
pub(super) struct GroupScoring {
    /// `Some(None)`: `unbounded`.
    pub max_score: Option<Option<f64>>,
    pub aggregation: Option<String>,
    pub require_pass: Vec<String>,
}

/// What the walk of `data/` found.
pub(super) struct Walk {
    modern: bool,
    strict: bool,
    /// Replaced in group arguments.
    constants: Vec<(String, String)>,
    pub tests: Vec<TestCase>,
    pub groups: Vec<Group>,
    /// Each group's settings by name (`""`: the `data` folder itself), for scoring.
    pub confs: Vec<(String, Settings)>,
    pub warnings: Vec<PackageError>,
    /// Group settings BAPCtools' `generators/generators.yaml` gives (`test_group.yaml:` of the
    /// root and of each group), by group folder: read where `bt generate` has not written them.
    generated: Vec<(PathBuf, Value)>,
}

/// Walks `data/` of the package in `dir`: tests and groups in judging order, each group's
/// settings. `strict`: every input has its answer.
pub(super) fn walk(
    dir: &Path,
    modern: bool,
    strict: bool,
    constants: &[(String, String)],
) -> Result<Walk, PackageError> {
    let data = dir.join("data");
    let mut walk = Walk {
        modern,
        strict,
        constants: constants.to_vec(),
        tests: Vec::new(),
        groups: Vec::new(),
        confs: Vec::new(),
        warnings: Vec::new(),
        generated: Vec::new(),
    };
    walk.generated = generated_settings(dir, &mut walk.warnings);
    let root_settings = walk.settings(&data, &Settings::default())?;
    walk.confs.push((String::new(), root_settings.clone()));
    let mut top: Vec<String> = std::fs::read_dir(&data)
        .map_err(|e| PackageError::new(&data, format!("cannot read the data folder: {e}")))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    for name in &top {
        match name.as_str() {
            "sample" | "secret" => {}
            "invalid_input" | "invalid_output" | "valid_output" | "invalid_inputs"
            | "invalid_outputs" | "valid_outputs" => {}
            n if n.starts_with('.') || n == "testdata.yaml" || n == "test_group.yaml" => {}
            _ => walk.warnings.push(PackageError::new(
                data.join(name),
                "not a test folder the judge runs (only data/sample and data/secret are judged); ignored",
            )),
        }
    }
    for top in ["sample", "secret"] {
        let path = data.join(top);
        if path.is_dir() {
            walk.group(&path, top, &root_settings)?;
        }
    }
    if walk.tests.is_empty() && strict {
        return Err(PackageError::new(&data, "no tests")
            .hint("put test cases in data/sample and data/secret as NAME.in + NAME.ans pairs"));
    }
    Ok(walk)
}

/// The `test_group.yaml:` (or `testdata.yaml:`) maps of `generators/generators.yaml`, by the
/// folder they would be written to. A broken file is a warning: the judge does not generate.
fn generated_settings(dir: &Path, warnings: &mut Vec<PackageError>) -> Vec<(PathBuf, Value)> {
    let path = dir.join("generators/generators.yaml");
    if !path.is_file() {
        return Vec::new();
    }
    let read = std::fs::read_to_string(&path)
        .map_err(|e| PackageError::new(&path, format!("cannot read: {e}")))
        .and_then(|text| raw::parse_yaml(&path, &text));
    let map = match read {
        Ok(Value::Mapping(m)) => m,
        Ok(_) => Mapping::new(),
        Err(e) => {
            warnings.push(PackageError::new(
                &path,
                format!(
                    "not read ({}); group settings it may give are not applied",
                    e.message
                ),
            ));
            return Vec::new();
        }
    };
    let mut found = Vec::new();
    fn walk(map: &Mapping, folder: PathBuf, found: &mut Vec<(PathBuf, Value)>) {
        for key in ["test_group.yaml", "testdata.yaml"] {
            if let Some(m @ Value::Mapping(_)) = map.get(key) {
                found.push((folder.clone(), m.clone()));
                break;
            }
        }
        // Named groups are the keys of a `data:` map (a list holds test cases).
        if let Some(Value::Mapping(groups)) = map.get("data") {
            for (name, group) in groups {
                let name = match name {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => continue,
                };
                if let (false, Value::Mapping(group)) = (name.is_empty(), group) {
                    walk(group, folder.join(name), found);
                }
            }
        }
    }
    walk(&map, dir.join("data"), &mut found);
    found
}

/// The hint for a value of the wrong type in a group's settings.
fn hint(key: &str) -> String {
    let example = if key.ends_with("_args") || key.ends_with("_flags") {
        "arguments are a string of words or a list, e.g. output_validator_args: [float_tolerance, 1e-6]"
    } else if key.starts_with("input_validator") {
        "e.g. input_validator_args: [--max, 1000], or per validator: {validate.py: [--max, 1000]}"
    } else if key.ends_with("_score") {
        "a number, e.g. accept_score: 10"
    } else {
        "see the specification for the key's type"
    };
    format!("fix `{key}`: {example}")
}

impl Walk {
    /// The settings of the group in `dir`: its own configuration file over the inherited ones.
    fn settings(&mut self, dir: &Path, inherited: &Settings) -> Result<Settings, PackageError> {
        let (own, other) = if self.modern {
            ("test_group.yaml", "testdata.yaml")
        } else {
            ("testdata.yaml", "test_group.yaml")
        };
        let mut settings = inherited.clone();
        settings.own = GroupScoring::default();
        let path = dir.join(own);
        let alt = dir.join(other);
        let path = if path.is_file() {
            path
        } else if alt.is_file() {
            self.warnings.push(PackageError::new(
                &alt,
                format!("`{other}` is the other version's name (this package: `{own}`); read"),
            ));
            alt
        } else if let Some((_, map)) = self.generated.iter().find(|(d, _)| d == dir) {
            let map = map.clone();
            let generators = dir
                .ancestors()
                .find(|d| d.join("generators/generators.yaml").is_file())
                .map(|d| d.join("generators/generators.yaml"))
                .unwrap_or_default();
            self.warnings.push(
                PackageError::new(
                    &path,
                    format!(
                        "missing; the settings {} gives for this folder are read instead",
                        generators.display()
                    ),
                )
                .hint("run `bt generate` to write data/ as BAPCtools would"),
            );
            let read = raw::from_value::<GroupConfig>(map).map_err(|e| {
                PackageError::new(&generators, format!("{own}: {e}")).hint(hint(own))
            })?;
            self.apply(&generators, read, &mut settings)?;
            return Ok(settings);
        } else {
            return Ok(settings);
        };
        let read = raw::read_yaml::<GroupConfig>(&path, &hint)?;
        self.apply(&path, read, &mut settings)?;
        Ok(settings)
    }

    /// A group's (or a case's) configuration over `settings`.
    fn apply(
        &mut self,
        path: &Path,
        read: Read<GroupConfig>,
        settings: &mut Settings,
    ) -> Result<(), PackageError> {
        for key in &read.unknown {
            self.warnings.push(PackageError::new(
                path,
                format!("unknown key `{key}`; ignored"),
            ));
        }
        let mut c = read.value;
        if let Some(Args(args)) = c
            .output_validator_args
            .take()
            .or(c.output_validator_flags.take())
        {
            settings.output_args = args
                .iter()
                .map(|a| substitute(a, &self.constants))
                .collect();
        }
        let input = match (
            c.input_validator_args.take(),
            c.input_validator_flags.take(),
        ) {
            (Some(args), _) => Some(("input_validator_args", args)),
            (None, Some(flags)) => Some(("input_validator_flags", flags)),
            (None, None) => None,
        };
        if let Some((key, args)) = input {
            settings.input_args = match args {
                InputArgs::All(Args(all)) => all,
                // Per validator: arguments for all of them are the judge's only reading.
                InputArgs::PerValidator(each) => {
                    self.warnings.push(PackageError::new(
                        path,
                        format!("`{key}` per validator name: every input validator gets the arguments of all"),
                    ));
                    each.into_iter().flat_map(|(_, Args(a))| a).collect()
                }
            }
            .iter()
            .map(|a| substitute(a, &self.constants))
            .collect();
        }
        let mut not_read = Vec::new();
        legacy_grading(path, &c, &mut settings.legacy)?;
        match &c.grading {
            Some(Text(g)) if !self.modern && g == "custom" => settings.legacy.custom = true,
            Some(Text(g)) if !self.modern && g == "default" => settings.legacy.custom = false,
            Some(Text(g)) if !self.modern => {
                return Err(bad(
                    path,
                    "grading",
                    g,
                    "`default` or `custom`",
                    "grading: custom (the grader in graders/ scores the group)",
                ))
            }
            Some(_) => not_read.push("grading"),
            None => {}
        }
        own_scoring(
            path,
            c.max_score.as_ref(),
            c.score_aggregation.as_ref(),
            c.require_pass.as_ref(),
            &mut settings.own,
        )?;
        match c.scoring {
            // A draft of 2025-09 (the spec's own scoring example still has it):
            // `scoring: {score, aggregation}` for `max_score` and `score_aggregation`.
            Some(v @ Value::Mapping(_)) if self.modern => self.draft_scoring(path, v, settings)?,
            Some(_) => not_read.push("scoring"),
            None => {}
        }
        for (key, given) in [
            ("full_feedback", c.full_feedback.is_some()),
            ("static_validation", c.static_validation.is_some()),
        ] {
            if given {
                not_read.push(key);
            }
        }
        if !not_read.is_empty() {
            self.warnings.push(PackageError::new(
                path,
                format!(
                    "scoring and feedback keys ({}) are not read; the default grading holds",
                    not_read.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The draft form `scoring: {score: 30, aggregation: min, require_pass: [...]}`.
    fn draft_scoring(
        &mut self,
        path: &Path,
        value: Value,
        settings: &mut Settings,
    ) -> Result<(), PackageError> {
        let read = raw::from_value::<DraftScoring>(value)
            .map_err(|e| PackageError::new(path, format!("scoring.{e}")).hint(hint("scoring")))?;
        for key in &read.unknown {
            self.warnings.push(PackageError::new(
                path,
                format!("unknown key `scoring.{key}`; ignored"),
            ));
        }
        let d = read.value;
        own_scoring(
            path,
            d.score.as_ref(),
            d.aggregation.as_ref(),
            d.require_pass.as_ref(),
            &mut settings.own,
        )?;
        let read: Vec<String> = [
            ("score", "max_score", d.score.is_some()),
            ("aggregation", "score_aggregation", d.aggregation.is_some()),
            ("require_pass", "require_pass", d.require_pass.is_some()),
        ]
        .iter()
        .filter(|(_, _, given)| *given)
        .map(|(key, now, _)| format!("`scoring.{key}` as `{now}`"))
        .collect();
        if !read.is_empty() {
            self.warnings.push(
                PackageError::new(
                    path,
                    format!("the draft `scoring:` map is not 2025-09; read {}", read.join(", ")),
                )
                .hint("2025-09 puts max_score, score_aggregation and require_pass in test_group.yaml itself"),
            );
        }
        Ok(())
    }

    /// Test cases and sub-groups of `dir` in lexicographic order, sub-groups recursively.
    fn group(&mut self, dir: &Path, name: &str, parent: &Settings) -> Result<(), PackageError> {
        let settings = self.settings(dir, parent)?;
        self.confs.push((name.to_string(), settings.clone()));
        self.groups.push(Group {
            name: name.to_string(),
            ..Group::default()
        });
        let mut entries: Vec<(String, PathBuf, bool)> = Vec::new();
        let mut files = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(dir)
            .map_err(|e| PackageError::new(dir, format!("cannot read the test group: {e}")))?
        {
            let entry = entry.map_err(|e| PackageError::new(dir, format!("cannot read: {e}")))?;
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if file_name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                entries.push((file_name, path, true));
            } else {
                if let Some(stem) = file_name.strip_suffix(".in") {
                    entries.push((stem.to_string(), path.clone(), false));
                }
                files.insert(file_name);
            }
        }
        entries.sort();
        for (key, path, is_dir) in entries {
            if is_dir {
                self.group(&path, &format!("{name}/{key}"), &settings)?;
            } else {
                let case = self.case(dir, &key, path, name, &files, &settings)?;
                self.tests.push(case);
            }
        }
        Ok(())
    }

    /// The test `key` of the group `group` in `dir` (whose files are `files`).
    fn case(
        &mut self,
        dir: &Path,
        key: &str,
        input: PathBuf,
        group: &str,
        files: &std::collections::BTreeSet<String>,
        settings: &Settings,
    ) -> Result<TestCase, PackageError> {
        let answer = dir.join(format!("{key}.ans"));
        if !files.contains(&format!("{key}.ans")) && self.strict {
            let hint = if files.contains(&format!("{key}.out")) {
                format!("add {key}.ans: a .out file is not the answer (in 2025-09 it is an example output for the statement)")
            } else {
                format!("add {key}.ans with the expected output")
            };
            return Err(PackageError::new(answer, "missing answer for this test").hint(hint));
        }
        let mut case = TestCase {
            name: format!("{group}/{key}"),
            input,
            answer,
            sample: group == "sample" || group.starts_with("sample/"),
            group: group.to_string(),
            checker_args: settings.output_args.clone(),
            validator_args: settings.input_args.clone(),
            ..TestCase::default()
        };
        if files.contains(&format!("{key}.interaction")) {
            case.interaction = Some(dir.join(format!("{key}.interaction")));
        }
        if files.contains(&format!("{key}.yaml")) {
            let own = dir.join(format!("{key}.yaml"));
            let read = raw::read_yaml::<GroupConfig>(&own, &hint)?;
            let mut s = settings.clone();
            self.apply(&own, read, &mut s)?;
            case.checker_args = s.output_args;
            case.validator_args = s.input_args;
        }
        Ok(case)
    }
}

/// The legacy default grader's keys of a group's configuration.
fn legacy_grading(
    path: &Path,
    c: &GroupConfig,
    legacy: &mut LegacyGrading,
) -> Result<(), PackageError> {
    if c.on_reject.is_some()
        || c.accept_score.is_some()
        || c.reject_score.is_some()
        || c.range.is_some()
        || c.grader_flags.is_some()
    {
        legacy.given = true;
    }
    if let Some(Text(on_reject)) = &c.on_reject {
        legacy.on_reject_break = match on_reject.as_str() {
            "break" => true,
            "continue" => false,
            _ => {
                return Err(bad(
                    path,
                    "on_reject",
                    on_reject,
                    "`break` or `continue`",
                    "on_reject: continue",
                ))
            }
        }
    }
    if let Some(x) = c.accept_score {
        legacy.accept_score = x.0;
    }
    if let Some(x) = c.reject_score {
        legacy.reject_score = x.0;
    }
    if let Some(Text(range)) = &c.range {
        let float = |text: &str| -> Option<f64> {
            match text.trim() {
                "inf" | "+inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                t => t.parse().ok(),
            }
        };
        let ends: Vec<Option<f64>> = range.split_whitespace().map(float).collect();
        match ends.as_slice() {
            [Some(_), Some(hi)] => legacy.range_max = hi.is_finite().then_some(*hi),
            _ => return Err(bad(path, "range", range, "two numbers", "range: 0 100")),
        }
    }
    if let Some(Args(flags)) = &c.grader_flags {
        legacy.grader_flags = flags.clone();
    }
    Ok(())
}

/// A 2025-09 group's own scoring keys (`max_score`, `score_aggregation`, `require_pass`), from
/// the group's configuration or its draft `scoring:` map.
fn own_scoring(
    path: &Path,
    max_score: Option<&Text>,
    aggregation: Option<&Text>,
    require_pass: Option<&Args>,
    own: &mut GroupScoring,
) -> Result<(), PackageError> {
    if let Some(Text(m)) = max_score {
        own.max_score = Some(match m.trim() {
            "unbounded" => None,
            // `.inf` as YAML writes it.
            t => match t.replace(".inf", "inf").parse::<f64>() {
                Ok(x) if x >= 0.0 => Some(x),
                _ => {
                    return Err(bad(
                        path,
                        "max_score",
                        m,
                        "a non-negative number or `unbounded`",
                        "max_score: 40",
                    ))
                }
            },
        });
    }
    if let Some(Text(a)) = aggregation {
        if !["pass-fail", "sum", "min"].contains(&a.as_str()) {
            return Err(bad(
                path,
                "score_aggregation",
                a,
                "`pass-fail`, `sum` or `min`",
                "score_aggregation: sum",
            ));
        }
        own.aggregation = Some(a.clone());
    }
    if let Some(Args(names)) = require_pass {
        own.require_pass = names.clone();
    }
    Ok(())
}

/// "`key`: value is not what": a scoring key's value out of its words or range.
fn bad(path: &Path, key: &str, value: &str, what: &str, example: &str) -> PackageError {
    PackageError::new(path, format!("`{key}`: {value} is not {what}")).hint(example.to_string())
}
