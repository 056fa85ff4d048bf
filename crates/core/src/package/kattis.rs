//! Kattis / ICPC problem packages, legacy and `2025-09`: `problem.yaml`, `data/sample` and
//! `data/secret` (groups are sub-folders), `.in` + `.ans`, `testdata.yaml` / `test_group.yaml`
//! inherited down the tree, the default output validator with its flags or a custom one
//! (`output_validators/` legacy, `output_validator/` 2025-09), input validators (exit 42 = valid).
//! Units at this boundary: seconds and MiB in, durations and bytes out.

use super::{
    program_from, slug_of, CheckerSpec, Format, Group, LimitOrigin, PackageError, Problem,
    ProblemLimits, Program, Protocol, Solution, TestCase, TestRule, MIB,
};
use crate::checker::kattis::Flags;
use crate::checker::Builtin;
use judge_model::TimeRule;
use judge_model::Verdict;
use serde_yaml_ng::{Mapping, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The time limit used when a package states none (and no `.timelimit` file gives one).
pub const DEFAULT_TIME_LIMIT_SECS: f64 = 1.0;
/// `limits.memory` when absent (MiB).
pub const DEFAULT_MEMORY_MIB: f64 = 2048.0;
/// `limits.output` when absent (MiB).
pub const DEFAULT_OUTPUT_MIB: f64 = 8.0;

const LEGACY_KEYS: &[&str] = &[
    "problem_format_version",
    "type",
    "name",
    "uuid",
    "author",
    "source",
    "source_url",
    "license",
    "rights_owner",
    "limits",
    "validation",
    "validator_flags",
    "keywords",
    "languages",
    "grading",
];
const KEYS_2025: &[&str] = &[
    "problem_format_version",
    "type",
    "name",
    "uuid",
    "version",
    "credits",
    "source",
    "license",
    "rights_owner",
    "embargo_until",
    "limits",
    "keywords",
    "languages",
    "allow_file_writing",
    "constants",
];
const LEGACY_LIMITS: &[&str] = &[
    // Not in the legacy spec, but BAPCtools and DOMjudge packages write it there.
    "time_limit",
    "time_multiplier",
    "time_safety_margin",
    "memory",
    "output",
    "code",
    "compilation_time",
    "compilation_memory",
    "validation_time",
    "validation_memory",
    "validation_output",
];
const LIMITS_2025: &[&str] = &[
    "time_multipliers",
    "time_limit",
    "time_resolution",
    "memory",
    "output",
    "code",
    "compilation_time",
    "compilation_memory",
    "validation_time",
    "validation_memory",
    "validation_output",
    "validation_passes",
];
/// Group configuration keys the judge reads.
const GROUP_ARGS: &[&str] = &[
    "output_validator_flags",
    "input_validator_flags",
    "output_validator_args",
    "input_validator_args",
];
/// Group configuration keys for tools the judge does not have (visualizers).
const GROUP_OTHER: &[&str] = &["input_visualizer_args", "output_visualizer_args"];
/// Group configuration keys about scoring and feedback: kept for a later issue, not read now.
const GROUP_SCORING: &[&str] = &[
    "on_reject",
    "grading",
    "grader_flags",
    "accept_score",
    "reject_score",
    "range",
    "scoring",
    "max_score",
    "score_aggregation",
    "require_pass",
    "full_feedback",
    "static_validation",
];

/// Group configuration keys of scoring the judge reads.
const SCORING_READ: &[&str] = &[
    "on_reject",
    "accept_score",
    "reject_score",
    "range",
    "grader_flags",
    "max_score",
    "score_aggregation",
    "require_pass",
];

/// `limits.validation_passes` (at least 2; default 2).
fn validation_passes(yaml: &Mapping, path: &Path) -> Result<u32, PackageError> {
    let Some(v) = yaml.get("limits").and_then(|l| l.get("validation_passes")) else {
        return Ok(2);
    };
    match number(v) {
        Some(n) if n >= 2.0 && n.fract() == 0.0 && n <= 1000.0 => Ok(n as u32),
        _ => Err(PackageError::new(
            path,
            format!(
                "`limits.validation_passes` = {} is not a whole number of passes, at least 2",
                scalar(v).unwrap_or_default()
            ),
        )
        .hint("e.g. limits:\n    validation_passes: 3")),
    }
}

/// Which Kattis version the package in `dir` is (legacy unless `problem.yaml` says 2025-09 or
/// a 2023-07 draft). A `problem.yaml` that does not parse is reported by [`load`].
pub fn version(dir: &Path) -> Format {
    let text = std::fs::read_to_string(dir.join("problem.yaml")).unwrap_or_default();
    let value: Value = serde_yaml_ng::from_str(&text).unwrap_or(Value::Null);
    match value.get("problem_format_version").and_then(scalar) {
        Some(v) if v.starts_with("2025") || v.starts_with("2023") => Format::Kattis2025,
        _ => Format::KattisLegacy,
    }
}

/// A scalar YAML value as text.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Reads a YAML file; an empty file is an empty mapping. Errors carry line and column.
fn read_yaml(path: &Path) -> Result<Mapping, PackageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| PackageError::new(path, format!("cannot read: {e}")))?;
    let value: Value = serde_yaml_ng::from_str(&text).map_err(|e| {
        let mut err = PackageError::new(path, format!("not valid YAML: {e}"))
            .hint("fix the YAML syntax there (indent with spaces, `key: value`, quote strings holding `:` or `#`)");
        if let Some(loc) = e.location() {
            err.position = Some((loc.line(), loc.column()));
            // The crate's message repeats the position; keep one.
            if let Some((head, _)) = err.message.split_once(" at line ") {
                err.message = head.to_string();
            }
        }
        err
    })?;
    match value {
        Value::Null => Ok(Mapping::new()),
        Value::Mapping(m) => Ok(m),
        _ => Err(
            PackageError::new(path, "expected a mapping of `key: value` lines")
                .hint("write one `key: value` per line at the top level"),
        ),
    }
}

/// The keys of a mapping, as text.
fn keys(m: &Mapping) -> impl Iterator<Item = (String, &Value)> {
    m.iter()
        .map(|(k, v)| (scalar(k).unwrap_or_else(|| format!("{k:?}")), v))
}

/// Arguments given as a string ("a b c") or a list of strings.
fn args_of(v: &Value, file: &Path, key: &str) -> Result<Vec<String>, PackageError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(s.split_whitespace().map(String::from).collect()),
        Value::Sequence(items) => items
            .iter()
            .map(|i| {
                scalar(i).ok_or_else(|| {
                    PackageError::new(file, format!("`{key}` holds a non-text item"))
                        .hint("write the arguments as a list of strings")
                })
            })
            .collect(),
        Value::Number(n) => Ok(vec![n.to_string()]),
        _ => Err(PackageError::new(
            file,
            format!("`{key}` must be a string or a list of strings"),
        )
        .hint("e.g. output_validator_args: [case_sensitive]")),
    }
}

/// The default output validator's flags from its arguments.
pub fn default_flags(args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let mut value = || -> Result<f64, String> {
            i += 1;
            args.get(i)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("`{flag}` needs a number after it"))
        };
        match flag {
            "case_sensitive" => flags.case_sensitive = true,
            "space_change_sensitive" => flags.space_change_sensitive = true,
            "float_absolute_tolerance" => flags.float_absolute_tolerance = Some(value()?),
            "float_relative_tolerance" => flags.float_relative_tolerance = Some(value()?),
            "float_tolerance" => {
                let e = value()?;
                flags.float_absolute_tolerance = Some(e);
                flags.float_relative_tolerance = Some(e);
            }
            other => {
                return Err(format!(
                    "`{other}` is not a flag of the default output validator"
                ))
            }
        }
        i += 1;
    }
    Ok(flags)
}

/// Reads the Kattis package in `dir`; `strict` = every input has its answer.
pub fn load(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
    let yaml_path = dir.join("problem.yaml");
    let yaml = read_yaml(&yaml_path)?;
    let format = version(dir);
    let modern = format == Format::Kattis2025;
    let mut warnings = Vec::new();
    let spec = if modern { "2025-09" } else { "legacy" };
    let warn = |warnings: &mut Vec<PackageError>, file: &Path, msg: String| {
        warnings.push(PackageError::new(file, msg));
    };

    if let Some(v) = yaml.get("problem_format_version").and_then(scalar) {
        let known = ["legacy", "legacy-icpc", "2025-09"];
        if !known.contains(&v.as_str()) {
            if v.starts_with("2023") {
                warn(
                    &mut warnings,
                    &yaml_path,
                    format!("problem_format_version `{v}` is a draft; read as 2025-09"),
                );
            } else {
                return Err(PackageError::new(
                    &yaml_path,
                    format!("unknown problem_format_version `{v}`"),
                )
                .hint("use `2025-09`, or `legacy` (or leave the key out) for the legacy format"));
            }
        }
    }
    let known = if modern { KEYS_2025 } else { LEGACY_KEYS };
    for (key, _) in keys(&yaml) {
        if !known.contains(&key.as_str()) {
            warn(
                &mut warnings,
                &yaml_path,
                format!("unknown key `{key}` (not in the {spec} specification); ignored"),
            );
        }
    }

    if yaml.contains_key("grading") {
        warn(
            &mut warnings,
            &yaml_path,
            "`grading` (objective, show_test_data_groups, …) is not read; a scoring problem's score is maximised and its groups are graded by testdata.yaml".into(),
        );
    }
    // What kind of problem: the judge runs pass-fail problems.
    let mut types: Vec<String> = match yaml.get("type") {
        None => Vec::new(),
        Some(Value::Sequence(items)) => items.iter().filter_map(scalar).collect(),
        Some(v) => scalar(v)
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect(),
    };
    let validation = yaml
        .get("validation")
        .and_then(scalar)
        .unwrap_or_else(|| "default".into());
    let validation_words: Vec<&str> = validation.split_whitespace().collect();
    types.extend(
        validation_words
            .iter()
            .filter(|w| ["interactive", "score", "multi-pass"].contains(w))
            .map(|w| w.to_string()),
    );
    let interactive = types.iter().any(|t| t == "interactive");
    let mut scored = false;
    let mut multi_pass = false;
    for t in &types {
        match t.as_str() {
            "pass-fail" | "interactive" => {}
            "scoring" | "score" => scored = true,
            "multi-pass" => multi_pass = true,
            "submit-answer" => {
                return Err(PackageError::new(
                    &yaml_path,
                    "`submit-answer` problems are not supported by the judge yet",
                )
                .hint("pass-fail, scoring, interactive and multi-pass problems (a program that reads and writes) can be judged"));
            }
            other => warn(
                &mut warnings,
                &yaml_path,
                format!("unknown problem type `{other}`; judged as pass-fail"),
            ),
        }
    }

    let name = match yaml.get("name") {
        Some(Value::Mapping(m)) => m.get("en").or_else(|| m.values().next()).and_then(scalar),
        Some(v) => scalar(v),
        None => None,
    }
    .filter(|n| !n.trim().is_empty())
    .unwrap_or_else(|| slug_of(dir));
    let source = match yaml.get("source") {
        Some(Value::Mapping(m)) => m.get("name").and_then(scalar),
        Some(Value::Sequence(s)) => s.first().and_then(|f| match f {
            Value::Mapping(m) => m.get("name").and_then(scalar),
            v => scalar(v),
        }),
        Some(v) => scalar(v),
        None => None,
    };

    let solutions = read_submissions(dir, modern, &mut warnings)?;
    let accepted = solutions.iter().any(|s| s.expected == [AC]);
    let (limits, origin, time_rule, derive_time) =
        read_limits(dir, &yaml, modern, accepted, &mut warnings)?;

    // The output validator.
    let mut problem_args = Vec::new();
    if let Some(v) = yaml.get("validator_flags") {
        problem_args = args_of(v, &yaml_path, "validator_flags")?;
    }
    let custom_dir = if modern {
        let single = dir.join("output_validator");
        let plural = dir.join("output_validators");
        if single.exists() {
            Some(single)
        } else if plural.is_dir() {
            warn(
                &mut warnings,
                &plural,
                "`output_validators/` is the legacy folder name (2025-09: `output_validator/`); used".into(),
            );
            Some(plural)
        } else {
            None
        }
    } else {
        let plural = dir.join("output_validators");
        let custom = validation_words.first() == Some(&"custom");
        match (custom, plural.is_dir()) {
            (true, true) => Some(plural),
            (true, false) => {
                return Err(PackageError::new(
                    &yaml_path,
                    "`validation: custom` but the package has no output_validators/ folder",
                )
                .hint(
                    "add the validator under output_validators/<name>/, or set validation: default",
                ))
            }
            (false, true) => {
                warn(
                    &mut warnings,
                    &plural,
                    "output_validators/ is present but problem.yaml says `validation: default`; the default validator is used".into(),
                );
                None
            }
            (false, false) => None,
        }
    };
    let checker = match custom_dir {
        None => {
            let flags = default_flags(&problem_args).map_err(|e| {
                PackageError::new(&yaml_path, format!("validator_flags: {e}")).hint(
                    "flags are case_sensitive, space_change_sensitive, float_absolute_tolerance E, float_relative_tolerance E, float_tolerance E",
                )
            })?;
            CheckerSpec::Builtin(Builtin::Kattis(flags))
        }
        Some(folder) => CheckerSpec::Custom(one_program(&folder, "output validator")?),
    };
    // An interactive problem's output validator is its interactor; nothing checks an output.
    let (checker, interactor) = match (interactive, checker) {
        (false, checker) => (checker, None),
        (true, CheckerSpec::Custom(program)) => (
            CheckerSpec::Builtin(Builtin::Kattis(Default::default())),
            Some(program),
        ),
        (true, CheckerSpec::Builtin(_)) => {
            let folder = if modern {
                "output_validator/"
            } else {
                "output_validators/<name>/"
            };
            return Err(PackageError::new(
                &yaml_path,
                "an interactive problem without its interactor (the output validator)",
            )
            .hint(format!("add the interactor's source under {folder}: it runs as `validator input answer feedback_dir [args]`, talks to the submission on its stdin and stdout, and exits 42 (accepted) or 43 (wrong answer)")));
        }
    };

    // Input validators.
    let mut validators = Vec::new();
    for name in ["input_validators", "input_validator"] {
        let folder = dir.join(name);
        if !folder.is_dir() {
            continue;
        }
        if name == "input_validator" {
            validators.push(program_from(&folder, Protocol::Kattis, "input validator")?);
            continue;
        }
        let entries: Vec<PathBuf> = super::visible_entries(&folder, "cannot read")?;
        for entry in entries {
            let is_source = entry.is_dir()
                || entry.extension().is_some_and(|e| {
                    super::SOURCE_EXTENSIONS.contains(&e.to_string_lossy().as_ref())
                });
            if is_source {
                validators.push(program_from(&entry, Protocol::Kattis, "input validator")?);
            } else {
                warn(
                    &mut warnings,
                    &entry,
                    "not a source file the judge builds (.ctd checktestdata scripts and others are not run); skipped".into(),
                );
            }
        }
    }
    let includes = read_includes(dir)?;
    let constants = read_constants(&yaml, &yaml_path)?;
    for (folder, why) in [(
        "input_format_validators",
        "checktestdata / viva scripts are not run by the judge",
    )] {
        if dir.join(folder).exists() {
            warn(&mut warnings, &dir.join(folder), format!("{why}; ignored"));
        }
    }

    // Tests.
    let data = dir.join("data");
    let mut walk = Walk {
        modern,
        strict,
        constants: constants.clone(),
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
        let path = data.join(name);
        match name.as_str() {
            "sample" | "secret" => {}
            "invalid_input" | "invalid_output" | "valid_output" | "invalid_inputs"
            | "invalid_outputs" | "valid_outputs" => {}
            n if n.starts_with('.') || n == "testdata.yaml" || n == "test_group.yaml" => {}
            _ => walk.warnings.push(PackageError::new(
                &path,
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
    warnings.append(&mut walk.warnings);
    // `validator_flags` go to every output validator, before the group's; the default
    // validator's must be flags it knows.
    let default =
        interactor.is_none() && matches!(checker, CheckerSpec::Builtin(Builtin::Kattis(_)));
    for test in &mut walk.tests {
        let mut all = problem_args.clone();
        all.append(&mut test.checker_args);
        test.checker_args = all;
        if default {
            if let Err(e) = default_flags(&test.checker_args) {
                return Err(PackageError::new(&test.input, format!("output validator arguments of this test: {e}"))
                    .hint("fix output_validator_args / output_validator_flags in the group's configuration"));
            }
        }
    }
    let scoring = if scored {
        Some(super::kattis_score::scoring(
            &data,
            modern,
            &walk.tests,
            &walk.confs,
            &mut warnings,
        )?)
    } else {
        if walk
            .confs
            .iter()
            .any(|(_, c)| c.own.max_score.is_some() || c.own.aggregation.is_some())
        {
            warn(
                &mut warnings,
                &yaml_path,
                "test groups give scoring keys but the problem is pass-fail (problem.yaml `type: scoring` is missing); judged pass-fail".into(),
            );
        }
        None
    };
    let passes = if multi_pass {
        if interactor.is_none() && !matches!(checker, CheckerSpec::Custom(_)) {
            return Err(PackageError::new(
                &yaml_path,
                "a multi-pass problem without an output validator",
            )
            .hint(format!(
                "add the output validator that writes nextpass.in to {}",
                if modern {
                    "output_validator/"
                } else {
                    "output_validators/"
                }
            )));
        }
        Some(validation_passes(&yaml, &yaml_path)?)
    } else {
        None
    };
    Ok(Problem {
        slug: slug_of(dir),
        dir: dir.to_path_buf(),
        format,
        name,
        source,
        limits,
        origin,
        time_rule,
        derive_time,
        checker,
        interactor,
        tests: walk.tests,
        groups: walk.groups,
        validator: None,
        validators,
        io: Default::default(),
        solutions,
        includes,
        rebuild: Default::default(),
        constants,
        warnings,
        scoring,
        passes,
    })
}

/// The output validator: legacy `output_validators/` holds one program (a file or a folder);
/// 2025-09 `output_validator/` is the program.
fn one_program(folder: &Path, what: &str) -> Result<Program, PackageError> {
    if folder.is_file() {
        return program_from(folder, Protocol::Kattis, what);
    }
    let entries: Vec<PathBuf> = super::visible_entries(folder, "cannot read")?;
    let dirs: Vec<&PathBuf> = entries.iter().filter(|p| p.is_dir()).collect();
    let files = entries.len() - dirs.len();
    match (dirs.as_slice(), files) {
        // output_validators/<name>/ holding the program.
        ([one], 0) => program_from(one, Protocol::Kattis, what),
        ([], _) => program_from(folder, Protocol::Kattis, what),
        _ => Err(PackageError::new(
            folder,
            format!("several programs in the {what} folder; the judge runs one"),
        )
        .hint("keep one validator (a file, or one folder with its source and headers)")),
    }
}

/// The limits, where each came from, and the rule for a time limit the package does not state.
fn read_limits(
    dir: &Path,
    yaml: &Mapping,
    modern: bool,
    accepted: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<(ProblemLimits, LimitOrigin, TimeRule, bool), PackageError> {
    let yaml_path = dir.join("problem.yaml");
    let empty = Mapping::new();
    let limits = match yaml.get("limits") {
        None | Some(Value::Null) => &empty,
        Some(Value::Mapping(m)) => m,
        Some(_) => {
            return Err(PackageError::new(&yaml_path, "`limits` must be a mapping")
                .hint("e.g. limits:\n    memory: 1024"))
        }
    };
    let known = if modern { LIMITS_2025 } else { LEGACY_LIMITS };
    for (key, _) in keys(limits) {
        if !known.contains(&key.as_str()) {
            warnings.push(PackageError::new(
                &yaml_path,
                format!("unknown key `limits.{key}`; ignored"),
            ));
        }
    }
    let positive = |key: &str, max: f64| -> Result<Option<f64>, PackageError> {
        match limits.get(key) {
            None => Ok(None),
            Some(v) => match number(v) {
                Some(x) if x.is_finite() && x > 0.0 && x <= max => Ok(Some(x)),
                _ => Err(PackageError::new(
                    &yaml_path,
                    format!("`limits.{key}` is not a sensible positive number"),
                )
                .hint(format!("use a positive number up to {max}"))),
            },
        }
    };
    let rule = || -> Result<TimeRule, PackageError> {
        let sub = |key: &str| match limits.get("time_multipliers") {
            Some(Value::Mapping(m)) => m.get(key).and_then(number),
            _ => None,
        };
        let (multiplier, key) = if modern {
            (
                sub("ac_to_time_limit"),
                "limits.time_multipliers.ac_to_time_limit",
            )
        } else {
            (
                limits.get("time_multiplier").and_then(number),
                "limits.time_multiplier",
            )
        };
        let default = if modern { 2.0 } else { 5.0 };
        let resolution = if modern {
            limits.get("time_resolution").and_then(number)
        } else {
            None
        };
        let resolution = resolution.unwrap_or(1.0);
        if !(resolution.is_finite() && resolution > 0.0) {
            return Err(PackageError::new(
                &yaml_path,
                "`limits.time_resolution` must be a positive number of seconds",
            )
            .hint("e.g. 1.0"));
        }
        Ok(match multiplier {
            Some(m) if m.is_finite() && m >= 1.0 => TimeRule {
                multiplier: m,
                multiplier_key: key.to_string(),
                resolution,
            },
            Some(_) => {
                return Err(PackageError::new(
                    &yaml_path,
                    format!("`{key}` must be a number of at least 1"),
                )
                .hint(format!("the default is {default}")))
            }
            None => TimeRule {
                multiplier: default,
                multiplier_key: format!("{key}, default"),
                resolution,
            },
        })
    };
    let mut derive = false;
    let stated = positive("time_limit", 3600.0)?;
    let stated = match stated {
        Some(t) => Some((t, format!("problem.yaml limits.time_limit = {t} s"))),
        None => time_limit_file(dir)?,
    };
    // The rule matters for deriving a limit; with one stated it only shapes verify's advice,
    // so a broken rule is then a warning.
    let time_rule = match rule() {
        Ok(r) => r,
        Err(e) if stated.is_some() => {
            warnings.push(
                e.hint("the package's time limit is used; the rule only shapes verify's advice"),
            );
            TimeRule::usual()
        }
        Err(e) => return Err(e),
    };
    let (time, time_origin) = if let Some((t, from)) = stated {
        (t, from)
    } else if accepted {
        let r = &time_rule;
        let origin = format!(
            "not in the package: `judge run` derives it from the accepted submissions (slowest x {} ({}), rounded up to {} s); {DEFAULT_TIME_LIMIT_SECS} s otherwise",
            r.multiplier, r.multiplier_key, r.resolution
        );
        derive = true;
        (DEFAULT_TIME_LIMIT_SECS, origin)
    } else {
        let why = if modern {
            "problem.yaml has no limits.time_limit and there are no accepted submissions"
        } else {
            "a legacy package keeps its time limit outside problem.yaml, and there is no .timelimit, domjudge-problem.ini or accepted submission"
        };
        warnings.push(
            PackageError::new(
                &yaml_path,
                format!("no time limit: {why}; using the default {DEFAULT_TIME_LIMIT_SECS} s"),
            )
            .hint("write the limit in seconds to a `.timelimit` file in the package folder (or limits.time_limit in 2025-09)"),
        );
        (
            DEFAULT_TIME_LIMIT_SECS,
            format!("default {DEFAULT_TIME_LIMIT_SECS} s ({why})"),
        )
    };
    let (memory, memory_origin) = match positive("memory", 65536.0)? {
        Some(m) => (m, format!("problem.yaml limits.memory = {m} MiB")),
        None => (
            DEFAULT_MEMORY_MIB,
            format!("default {DEFAULT_MEMORY_MIB} MiB (the specification's)"),
        ),
    };
    let (output, output_origin) = match positive("output", 65536.0)? {
        Some(o) => (o, format!("problem.yaml limits.output = {o} MiB")),
        None => (
            DEFAULT_OUTPUT_MIB,
            format!("default {DEFAULT_OUTPUT_MIB} MiB (the specification's)"),
        ),
    };
    let time = Duration::from_secs_f64(time);
    let memory = (memory * MIB as f64) as u64;
    Ok((
        ProblemLimits {
            time,
            wall: time * 3 + Duration::from_secs(1),
            memory,
            stack: memory,
            output: (output * MIB as f64) as u64,
        },
        LimitOrigin {
            time: time_origin,
            memory: memory_origin,
            output: output_origin,
        },
        time_rule,
        derive,
    ))
}

/// DOMjudge's places for a legacy package's time limit: `.timelimit` (seconds) or
/// `domjudge-problem.ini` (`timelimit = 2`).
fn time_limit_file(dir: &Path) -> Result<Option<(f64, String)>, PackageError> {
    let check = |path: &Path, text: &str| -> Result<f64, PackageError> {
        let t = text.trim().trim_matches(['"', '\'']);
        match t.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 && x <= 3600.0 => Ok(x),
            _ => Err(
                PackageError::new(path, format!("`{t}` is not a time limit in seconds"))
                    .hint("write a positive number of seconds, e.g. 2 or 1.5"),
            ),
        }
    };
    let file = dir.join(".timelimit");
    if let Ok(text) = std::fs::read_to_string(&file) {
        let t = check(&file, &text)?;
        return Ok(Some((t, format!(".timelimit = {t} s"))));
    }
    let ini = dir.join("domjudge-problem.ini");
    if let Ok(text) = std::fs::read_to_string(&ini) {
        for line in text.lines() {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "timelimit" {
                    let t = check(&ini, value)?;
                    return Ok(Some((t, format!("domjudge-problem.ini timelimit = {t} s"))));
                }
            }
        }
    }
    Ok(None)
}

/// Validator arguments in force for a group (inherited down the tree), and its scoring keys.
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    output_args: Vec<String>,
    input_args: Vec<String>,
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
    /// `grading: custom`: the package's own grader (not run) scores the group.
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

struct Walk {
    modern: bool,
    strict: bool,
    /// Replaced in group arguments.
    constants: Vec<(String, String)>,
    tests: Vec<TestCase>,
    groups: Vec<Group>,
    /// Each group's settings by name (`""`: the `data` folder itself), for scoring.
    confs: Vec<(String, Settings)>,
    warnings: Vec<PackageError>,
    /// Group settings BAPCtools' `generators/generators.yaml` gives (`test_group.yaml:` of the
    /// root and of each group), by group folder: read where `bt generate` has not written them.
    generated: Vec<(PathBuf, Mapping)>,
}

/// The `test_group.yaml:` (or `testdata.yaml:`) maps of `generators/generators.yaml`, by the
/// folder they would be written to. A broken file is a warning: the judge does not generate.
fn generated_settings(dir: &Path, warnings: &mut Vec<PackageError>) -> Vec<(PathBuf, Mapping)> {
    let path = dir.join("generators/generators.yaml");
    if !path.is_file() {
        return Vec::new();
    }
    let map = match read_yaml(&path) {
        Ok(m) => m,
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
    fn walk(map: &Mapping, folder: PathBuf, found: &mut Vec<(PathBuf, Mapping)>) {
        for key in ["test_group.yaml", "testdata.yaml"] {
            if let Some(Value::Mapping(m)) = map.get(key) {
                found.push((folder.clone(), m.clone()));
                break;
            }
        }
        // Named groups are the keys of a `data:` map (a list holds test cases).
        if let Some(Value::Mapping(groups)) = map.get("data") {
            for (name, group) in groups {
                if let (Some(name), Value::Mapping(group)) = (scalar(name), group) {
                    if !name.is_empty() {
                        walk(group, folder.join(name), found);
                    }
                }
            }
        }
    }
    walk(&map, dir.join("data"), &mut found);
    found
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
            self.apply(&generators, &map, &mut settings)?;
            return Ok(settings);
        } else {
            return Ok(settings);
        };
        let map = read_yaml(&path)?;
        self.apply(&path, &map, &mut settings)?;
        Ok(settings)
    }

    fn apply(
        &mut self,
        path: &Path,
        map: &Mapping,
        settings: &mut Settings,
    ) -> Result<(), PackageError> {
        let mut scoring = Vec::new();
        for (key, value) in keys(map) {
            match key.as_str() {
                "output_validator_flags" | "output_validator_args" => {
                    settings.output_args = args_of(value, path, &key)?
                        .iter()
                        .map(|a| super::substitute(a, &self.constants))
                        .collect();
                }
                "input_validator_flags" | "input_validator_args" => {
                    settings.input_args = match value {
                        // Per validator: arguments for all of them are the judge's only reading.
                        Value::Mapping(m) => {
                            self.warnings.push(PackageError::new(
                                path,
                                format!("`{key}` per validator name: every input validator gets the arguments of all"),
                            ));
                            let mut all = Vec::new();
                            for v in m.values() {
                                all.extend(args_of(v, path, &key)?);
                            }
                            all
                        }
                        v => args_of(v, path, &key)?,
                    }
                    .iter()
                    .map(|a| super::substitute(a, &self.constants))
                    .collect();
                }
                k if SCORING_READ.contains(&k) => self.scoring_key(path, k, value, settings)?,
                "grading" if !self.modern && scalar(value).as_deref() == Some("custom") => {
                    settings.legacy.custom = true;
                    self.warnings.push(PackageError::new(
                        path,
                        "`grading: custom`: the package's own grader is not run; the default grader scores this group, capped at its `range`",
                    ));
                }
                // A draft of 2025-09 (the spec's own scoring example still has it):
                // `scoring: {score, aggregation}` for `max_score` and `score_aggregation`.
                "scoring" if self.modern && matches!(value, Value::Mapping(_)) => {
                    self.draft_scoring(path, value, settings)?
                }
                k if GROUP_SCORING.contains(&k) => scoring.push(key),
                k if GROUP_ARGS.contains(&k) || GROUP_OTHER.contains(&k) => {}
                _ => self.warnings.push(PackageError::new(
                    path,
                    format!("unknown key `{key}`; ignored"),
                )),
            }
        }
        if !scoring.is_empty() {
            self.warnings.push(PackageError::new(
                path,
                format!(
                    "scoring and feedback keys ({}) are not read; the default grading holds",
                    scoring.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The draft form `scoring: {score: 30, aggregation: min, require_pass: [...]}`.
    fn draft_scoring(
        &mut self,
        path: &Path,
        value: &Value,
        settings: &mut Settings,
    ) -> Result<(), PackageError> {
        let mut read = Vec::new();
        for (key, v) in value.as_mapping().into_iter().flatten() {
            let key = scalar(key).unwrap_or_default();
            let now = match key.as_str() {
                "score" => "max_score",
                "aggregation" => "score_aggregation",
                "require_pass" => "require_pass",
                _ => {
                    self.warnings.push(PackageError::new(
                        path,
                        format!("unknown key `scoring.{key}`; ignored"),
                    ));
                    continue;
                }
            };
            self.scoring_key(path, now, v, settings)?;
            read.push(format!("`scoring.{key}` as `{now}`"));
        }
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

    /// One scoring key of a group's configuration.
    fn scoring_key(
        &mut self,
        path: &Path,
        key: &str,
        value: &Value,
        settings: &mut Settings,
    ) -> Result<(), PackageError> {
        let bad = |what: &str, hint: &str| {
            PackageError::new(
                path,
                format!(
                    "`{key}`: {} is not {what}",
                    scalar(value).unwrap_or_else(|| "this".into())
                ),
            )
            .hint(hint.to_string())
        };
        let float = |text: &str| -> Option<f64> {
            match text.trim() {
                "inf" | "+inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                t => t.parse().ok(),
            }
        };
        let legacy = &mut settings.legacy;
        if [
            "on_reject",
            "accept_score",
            "reject_score",
            "range",
            "grader_flags",
        ]
        .contains(&key)
        {
            legacy.given = true;
        }
        match key {
            "on_reject" => {
                legacy.on_reject_break = match scalar(value).as_deref() {
                    Some("break") => true,
                    Some("continue") => false,
                    _ => return Err(bad("`break` or `continue`", "on_reject: continue")),
                }
            }
            "accept_score" | "reject_score" => {
                let x = number(value).ok_or_else(|| bad("a number", "accept_score: 10"))?;
                if key == "accept_score" {
                    legacy.accept_score = x;
                } else {
                    legacy.reject_score = x;
                }
            }
            "range" => {
                let text = scalar(value).unwrap_or_default();
                let ends: Vec<Option<f64>> = text.split_whitespace().map(float).collect();
                match ends.as_slice() {
                    [Some(_), Some(hi)] => legacy.range_max = hi.is_finite().then_some(*hi),
                    _ => return Err(bad("two numbers", "range: 0 100")),
                }
            }
            "grader_flags" => {
                legacy.grader_flags = args_of(value, path, key)?;
            }

            "max_score" => {
                settings.own.max_score = Some(match value {
                    Value::String(s) if s == "unbounded" => None,
                    v => match number(v) {
                        Some(x) if x >= 0.0 => Some(x),
                        _ => {
                            return Err(bad(
                                "a non-negative number or `unbounded`",
                                "max_score: 40",
                            ))
                        }
                    },
                })
            }
            "score_aggregation" => {
                let a = scalar(value).unwrap_or_default();
                if !["pass-fail", "sum", "min"].contains(&a.as_str()) {
                    return Err(bad("`pass-fail`, `sum` or `min`", "score_aggregation: sum"));
                }
                settings.own.aggregation = Some(a);
            }
            "require_pass" => {
                settings.own.require_pass = args_of(value, path, key)?;
            }
            _ => {}
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
            let child = format!("{name}/{key}");
            if is_dir {
                self.group(&path, &child, &settings)?;
                continue;
            }
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
                name: child,
                input: path,
                answer,
                sample: name == "sample" || name.starts_with("sample/"),
                group: name.to_string(),
                checker_args: settings.output_args.clone(),
                validator_args: settings.input_args.clone(),
                ..TestCase::default()
            };
            if files.contains(&format!("{key}.interaction")) {
                case.interaction = Some(dir.join(format!("{key}.interaction")));
            }
            let own = dir.join(format!("{key}.yaml"));
            if files.contains(&format!("{key}.yaml")) {
                let map = read_yaml(&own)?;
                let mut s = settings.clone();
                self.apply(&own, &map, &mut s)?;
                case.checker_args = s.output_args;
                case.validator_args = s.input_args;
            }
            self.tests.push(case);
        }
        Ok(())
    }
}

use judge_model::score::Expected;
use Verdict::{AC, CE, MLE, OLE, PE, RE, TLE, WA};

/// The verdicts a Kattis name stands for (the spec's `AC`/`WA`/`TLE`/`RTE`, the folder names, and
/// the `@EXPECTED_RESULTS@` names of BAPCtools and DOMjudge). Kattis has no PE, MLE or OLE: a
/// wrong format is a WA, a program out of memory a run-time error. Output past the limit is a
/// run-time error for problemtools (the write fails) and a time limit for DOMjudge (it cuts the
/// output and lets the program run on): packages expect either, so OLE stands for both.
fn kattis_verdicts(name: &str) -> Option<&'static [Verdict]> {
    let name = name.trim().to_ascii_uppercase().replace('-', "_");
    Some(match name.as_str() {
        "AC" | "ACCEPTED" | "CORRECT" => &[AC],
        "WA" | "WRONG_ANSWER" | "NO_OUTPUT" => &[WA],
        "TLE" | "TIME_LIMIT_EXCEEDED" | "TIMELIMIT" => &[TLE, OLE],
        "RTE" | "RUN_TIME_ERROR" | "RUN_ERROR" | "RUNTIME_ERROR" => &[RE, MLE, OLE],
        "OUTPUT_LIMIT" | "OUTPUT_LIMIT_EXCEEDED" => &[OLE],
        "MEMORY_LIMIT_EXCEEDED" => &[MLE],
        "COMPILER_ERROR" | "COMPILE_ERROR" => &[CE],
        _ => return None,
    })
}

/// Every verdict a run can end with, CE aside.
const RUN_VERDICTS: [Verdict; 7] = [AC, WA, PE, TLE, MLE, OLE, RE];

/// A `permitted` / `required` pair in our verdicts.
#[derive(Debug, Clone)]
struct Requirement {
    permitted: Vec<Verdict>,
    required: Vec<Verdict>,
}

impl Requirement {
    fn new(permitted: &[&str], required: &[&str]) -> Requirement {
        let map = |names: &[&str]| -> Vec<Verdict> {
            let mut out: Vec<Verdict> = names
                .iter()
                .flat_map(|n| kattis_verdicts(n).unwrap_or(&[]).iter().copied())
                .collect();
            out.sort();
            out.dedup();
            out
        };
        Requirement {
            permitted: map(permitted),
            required: map(required),
        }
    }

    /// The final verdicts it allows: a failing test's verdict (permitted), or AC when every test
    /// may pass.
    fn finals(&self) -> Vec<Verdict> {
        self.permitted
            .iter()
            .copied()
            .filter(|v| *v != AC || self.required.contains(&AC))
            .collect()
    }
}

/// The spec's default requirement of a submissions folder.
fn folder_requirement(folder: &str) -> Option<Requirement> {
    let all = ["AC", "WA", "TLE", "RTE"];
    Some(match folder {
        "accepted" => Requirement::new(&["AC"], &all),
        "rejected" => Requirement::new(&all, &["RTE", "TLE", "WA"]),
        "wrong_answer" => Requirement::new(&["AC", "WA"], &["WA"]),
        "time_limit_exceeded" => Requirement::new(&["AC", "TLE"], &["TLE"]),
        "run_time_error" => Requirement::new(&["AC", "RTE"], &["RTE"]),
        "brute_force" => Requirement::new(&["AC", "RTE", "TLE"], &["RTE", "TLE"]),
        _ => return None,
    })
}

fn verdict_names(v: &[Verdict]) -> String {
    v.iter().map(|v| v.code()).collect::<Vec<_>>().join(", ")
}

/// `{a,b}` brace expansion (one level at a time, recursively; spaces around an alternative
/// do not count).
pub(crate) fn expand_braces(pattern: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (pattern.find('{'), pattern.find('}')) else {
        return vec![pattern.to_string()];
    };
    if close < open {
        return vec![pattern.to_string()];
    }
    let (head, rest) = pattern.split_at(open);
    let inner = &rest[1..close - open];
    let tail = &rest[close - open + 1..];
    inner
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{}{tail}", alt.trim())))
        .collect()
}

/// `*` matches within one path component.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let (p, t): (Vec<&str>, Vec<&str>) = (
        pattern.trim_end_matches('/').split('/').collect(),
        path.split('/').collect(),
    );
    p.len() == t.len()
        && p.iter()
            .zip(&t)
            .all(|(p, t)| component_match(p.as_bytes(), t.as_bytes()))
}

fn component_match(p: &[u8], t: &[u8]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some((b'*', rest)) => (0..=t.len()).any(|i| component_match(rest, &t[i..])),
        Some((c, rest)) => t.first() == Some(c) && component_match(rest, &t[1..]),
    }
}

/// `@EXPECTED_RESULTS@: WRONG_ANSWER, TIME_LIMIT_EXCEEDED` in a source file.
fn expected_results(file: &Path) -> Result<Option<(Vec<Verdict>, String)>, PackageError> {
    const MARK: &str = "@EXPECTED_RESULTS@:";
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 20)]);
    let Some(at) = text.find(MARK) else {
        return Ok(None);
    };
    let line = text[at + MARK.len()..].lines().next().unwrap_or("");
    let mut out = Vec::new();
    for name in line.split(',').map(|n| {
        n.trim()
            .trim_end_matches("*/")
            .trim_end_matches("-->")
            .trim()
    }) {
        if name.is_empty() {
            continue;
        }
        let Some(v) = kattis_verdicts(name) else {
            let (l, c) = super::line_column(&text, at);
            let mut e = PackageError::new(
                file,
                format!("unknown verdict `{name}` in @EXPECTED_RESULTS@"),
            );
            e.position = Some((l, c));
            return Err(e.hint("use ACCEPTED, WRONG_ANSWER, TIME_LIMIT_EXCEEDED, RUN_TIME_ERROR (or DOMjudge's CORRECT, WRONG-ANSWER, TIMELIMIT, RUN-ERROR)"));
        };
        out.extend_from_slice(v);
    }
    out.sort();
    out.dedup();
    Ok(Some((out, format!("@EXPECTED_RESULTS@: {}", line.trim()))))
}

/// A `submissions.yaml` rule: pattern, requirement, keyed by a default folder's name, entrypoint,
/// score.
type Rule = (
    String,
    Requirement,
    bool,
    Option<String>,
    Option<Expected>,
    Vec<TestRule>,
);

/// A `submissions.yaml` verdict list (`permitted`, `required`) under `pattern`.
fn verdict_list(
    m: &Mapping,
    key: &str,
    pattern: &str,
    yaml_path: &Path,
) -> Result<Option<Vec<String>>, PackageError> {
    let Some(v) = m.get(key) else {
        return Ok(None);
    };
    let names = args_of(v, yaml_path, key)?;
    for n in &names {
        if !["AC", "WA", "TLE", "RTE"].contains(&n.as_str()) {
            return Err(PackageError::new(
                yaml_path,
                format!("`{pattern}`: `{n}` in {key} is not a verdict"),
            )
            .hint("the verdicts are AC, WA, TLE and RTE"));
        }
    }
    Ok(Some(names))
}

/// A `submissions.yaml` `score` under `pattern`: a number or an inclusive range.
fn score_of(
    m: &Mapping,
    pattern: &str,
    yaml_path: &Path,
) -> Result<Option<Expected>, PackageError> {
    let Some(v) = m.get("score") else {
        return Ok(None);
    };
    let bad = || {
        PackageError::new(
            yaml_path,
            format!("`{pattern}`: `score` must be a number or a list of two"),
        )
        .hint("e.g. score: 40, or score: [20, 60]")
    };
    let ends: Vec<f64> = match v {
        Value::Sequence(items) => items
            .iter()
            .map(number)
            .collect::<Option<_>>()
            .ok_or_else(bad)?,
        v => vec![number(v).ok_or_else(bad)?],
    };
    match ends.as_slice() {
        [x] => Ok(Some(Expected::Between(*x, *x))),
        [lo, hi] if lo <= hi => Ok(Some(Expected::Between(*lo, *hi))),
        _ => Err(bad()),
    }
}

/// The package's submissions (`submissions/<folder>/<file or folder>`) with their expectations:
/// the folder's default, `submissions.yaml` (2025-09) on top, a source's `@EXPECTED_RESULTS@`
/// over both.
fn read_submissions(
    dir: &Path,
    modern: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Vec<Solution>, PackageError> {
    let root = dir.join("submissions");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(Vec::new());
    };
    let yaml_path = root.join("submissions.yaml");
    // (pattern, requirement, keyed by a default folder's name, entrypoint)
    let mut rules: Vec<Rule> = Vec::new();
    if yaml_path.is_file() {
        let map = read_yaml(&yaml_path)?;
        for (pattern, value) in keys(&map) {
            let Value::Mapping(m) = value else {
                return Err(PackageError::new(
                    &yaml_path,
                    format!("`{pattern}` must map to keys such as permitted and required"),
                )
                .hint("e.g. wrong_answer/slow.py:\n  permitted: [AC, WA, TLE]"));
            };
            let permitted = verdict_list(m, "permitted", &pattern, &yaml_path)?;
            let required = verdict_list(m, "required", &pattern, &yaml_path)?;
            let mut test_rules = Vec::new();
            for (key, value) in keys(m) {
                match (key.as_str(), value) {
                    (
                        "permitted" | "required" | "language" | "entrypoint" | "authors"
                        | "model_solution" | "use_for_time_limit" | "score",
                        _,
                    ) => {}
                    ("message", v) => test_rules.push(TestRule {
                        tests: Vec::new(),
                        permitted: None,
                        required: None,
                        score: None,
                        message: scalar(v),
                        origin: format!("submissions.yaml `{pattern}`"),
                    }),
                    // Requirements on the tests of a group (a test glob relative to data/).
                    (group, Value::Mapping(g)) => {
                        let at = format!("{pattern}` › `{group}");
                        for (k, _) in keys(g) {
                            if ![
                                "permitted",
                                "required",
                                "score",
                                "message",
                                "use_for_time_limit",
                            ]
                            .contains(&k.as_str())
                            {
                                warnings.push(PackageError::new(
                                    &yaml_path,
                                    format!("`{at}`: unknown key `{k}`; ignored"),
                                ));
                            }
                        }
                        test_rules.push(TestRule {
                            tests: expand_braces(group),
                            permitted: verdict_list(g, "permitted", &at, &yaml_path)?.map(|p| {
                                Requirement::new(
                                    &p.iter().map(String::as_str).collect::<Vec<_>>(),
                                    &[],
                                )
                                .permitted
                            }),
                            required: verdict_list(g, "required", &at, &yaml_path)?.map(|r| {
                                Requirement::new(
                                    &[],
                                    &r.iter().map(String::as_str).collect::<Vec<_>>(),
                                )
                                .required
                            }),
                            score: score_of(g, &at, &yaml_path)?,
                            message: g.get("message").and_then(scalar),
                            origin: format!("submissions.yaml `{at}`"),
                        });
                    }
                    _ => warnings.push(PackageError::new(
                        &yaml_path,
                        format!("`{pattern}`: unknown key `{key}`; ignored"),
                    )),
                }
            }
            // A folder's name replaces the keys it gives of the folder's default.
            let base = folder_requirement(&pattern);
            let all = ["AC", "WA", "TLE", "RTE"];
            fn strs(v: &Option<Vec<String>>) -> Option<Vec<&str>> {
                v.as_ref().map(|v| v.iter().map(String::as_str).collect())
            }
            let req = match &base {
                Some(b) => Requirement {
                    permitted: strs(&permitted)
                        .map_or(b.permitted.clone(), |p| Requirement::new(&p, &[]).permitted),
                    required: strs(&required)
                        .map_or(b.required.clone(), |r| Requirement::new(&[], &r).required),
                },
                None => Requirement::new(
                    &strs(&permitted).unwrap_or(all.to_vec()),
                    &strs(&required).unwrap_or(all.to_vec()),
                ),
            };
            let entrypoint = m.get("entrypoint").and_then(scalar);
            let score = score_of(m, &pattern, &yaml_path)?;
            rules.push((pattern, req, base.is_some(), entrypoint, score, test_rules));
        }
    }
    let mut folders: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    folders.sort();
    let mut solutions = Vec::new();
    for folder in folders {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('.') || name == "submissions.yaml" {
            continue;
        }
        if !folder.is_dir() {
            warnings.push(PackageError::new(
                &folder,
                "not in a verdict folder (submissions/<verdict>/); not listed",
            ));
            continue;
        }
        let items: Vec<PathBuf> = super::visible_entries(&folder, "cannot read")?;
        for item in items {
            let rel = format!(
                "{name}/{}",
                item.file_name().unwrap_or_default().to_string_lossy()
            );
            let mut reqs = Vec::new();
            let mut why = Vec::new();
            let overridden = rules
                .iter()
                .any(|(p, _, folder_key, _, _, _)| *folder_key && *p == name);
            let mut entrypoint = None;
            let mut score = None;
            if let (Some(r), false) = (folder_requirement(&name), overridden) {
                why.push(format!("folder submissions/{name}/"));
                reqs.push(r);
            }
            if name == "partially_accepted" {
                // Legacy: accepted (by the graders) with a score below the maximum.
                why.push("folder submissions/partially_accepted/".into());
                reqs.push(Requirement::new(
                    &["AC", "WA", "TLE", "RTE"],
                    &["AC", "WA", "TLE", "RTE"],
                ));
                score = Some(Expected::Partial);
            }
            let mut test_rules = Vec::new();
            for (pattern, req, _, main, wanted, on_tests) in &rules {
                let hit = expand_braces(pattern)
                    .iter()
                    .any(|p| glob_match(p, &name) || glob_match(p, &rel));
                if hit {
                    why.push(format!("submissions.yaml `{pattern}`"));
                    reqs.push(req.clone());
                    entrypoint = main.clone().or(entrypoint);
                    score = wanted.or(score);
                    test_rules.extend(on_tests.iter().cloned());
                }
            }
            if reqs.is_empty() {
                // A folder of no verdict: its sources' @EXPECTED_RESULTS@ say (BAPCtools and
                // DOMjudge judge `mixed/` so).
                let marked = item.is_file() && expected_results(&item)?.is_some();
                if !marked {
                    warnings.push(PackageError::new(&item, format!(
                        "`{name}` is not a verdict folder of the specification and submissions.yaml says nothing of it (nor an @EXPECTED_RESULTS@ comment); not listed"
                    )));
                    continue;
                }
                why.push(format!("folder submissions/{name}/"));
                reqs.push(Requirement::new(
                    &["AC", "WA", "TLE", "RTE"],
                    &["AC", "WA", "TLE", "RTE"],
                ));
            }
            let mut expected: Vec<Verdict> = RUN_VERDICTS.to_vec();
            let mut permitted: Vec<Verdict> = RUN_VERDICTS.to_vec();
            for r in &reqs {
                let finals = r.finals();
                expected.retain(|v| finals.contains(v));
                permitted.retain(|v| r.permitted.contains(v));
            }
            // Legacy: the graders accept with a partial score. 2025-09 has no such folder (its
            // own scoring example does): a scoring problem's submission has a score, not a
            // verdict, so only the score is expected there.
            if score == Some(Expected::Partial) && !modern {
                expected = vec![AC];
            }
            let mut rule = format!(
                "{} (permitted {}; final {})",
                why.join(" + "),
                verdict_names(&permitted),
                verdict_names(&expected)
            );
            let marked = if item.is_file() {
                expected_results(&item)?
            } else {
                None
            };
            if let Some((listed, text)) = marked {
                expected = listed;
                rule = text;
            }
            solutions.push(Solution {
                path: item,
                expected,
                permitted: (permitted.len() < RUN_VERDICTS.len()).then_some(permitted),
                rule,
                entrypoint,
                score,
                rules: test_rules,
                language: None,
            });
        }
    }
    Ok(solutions)
}

/// The Kattis language code of a source file (`include/<code>/`), from its extension.
pub fn language_code(file: &Path) -> Option<&'static str> {
    let ext = file.extension()?.to_string_lossy().to_ascii_lowercase();
    Some(match ext.as_str() {
        "c" => "c",
        "cc" | "cpp" | "cxx" | "c++" => "cpp",
        "py" | "py3" => "python3",
        "rs" => "rust",
        "java" => "java",
        "kt" => "kotlin",
        "go" => "go",
        "hs" => "haskell",
        "js" => "javascript",
        "ml" => "ocaml",
        "php" => "php",
        "rb" => "ruby",
        "scala" => "scala",
        "cs" => "csharp",
        "pas" => "pascal",
        "pl" => "prolog",
        "lisp" => "lisp",
        _ => return None,
    })
}

/// `include/<language>/` and `include/default/`: files added to every submission of that
/// language before it is built.
fn read_includes(
    dir: &Path,
) -> Result<std::collections::BTreeMap<String, Vec<PathBuf>>, PackageError> {
    let mut out = std::collections::BTreeMap::new();
    let root = dir.join("include");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Ok(out);
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
            .map_err(|e| PackageError::new(&path, format!("cannot read: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            // Folders too: a Java package (`include/java/unsigned/UnsignedLong.java`).
            .filter(|p| p.is_file() || p.is_dir())
            .collect();
        files.sort();
        out.insert(entry.file_name().to_string_lossy().into_owned(), files);
    }
    Ok(out)
}

/// `constants:` of a 2025-09 `problem.yaml`: `name: value` or `name: {value: …, variant: …}`,
/// as (`name`, value), (`name.value`, value) and (`name.variant`, its value).
fn read_constants(yaml: &Mapping, path: &Path) -> Result<Vec<(String, String)>, PackageError> {
    let mut out = Vec::new();
    let Some(Value::Mapping(map)) = yaml.get("constants") else {
        return Ok(out);
    };
    for (name, value) in keys(map) {
        match value {
            Value::Mapping(variants) => {
                let Some(v) = variants.get("value").and_then(scalar) else {
                    return Err(PackageError::new(
                        path,
                        format!("constant `{name}` has no `value`"),
                    )
                    .hint("give it value: (a number or a string) besides its variants"));
                };
                out.push((name.clone(), v));
                for (variant, text) in keys(variants) {
                    if let Some(t) = scalar(text) {
                        out.push((format!("{name}.{variant}"), t));
                    }
                }
            }
            v => match scalar(v) {
                Some(t) => {
                    out.push((name.clone(), t.clone()));
                    out.push((format!("{name}.value"), t));
                }
                None => {
                    return Err(PackageError::new(
                        path,
                        format!("constant `{name}` is not a number or a string"),
                    )
                    .hint("write name: 5, or name: {value: 5, tex: ...}"))
                }
            },
        }
    }
    Ok(out)
}
