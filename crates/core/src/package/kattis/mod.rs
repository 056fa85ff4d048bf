//! Kattis / ICPC problem packages, legacy and `2025-09`, read along the data's path:
//! `problem.yaml` (here: its typed shape is `raw::kattis::{Legacy, Current}`), the limits
//! (`limits.rs`), the submissions and what each must get (`submissions.rs`), the output
//! validator or interactor and the input validators (`validators.rs`), the tests and groups of
//! `data/` with their settings (`data.rs`), and a scoring problem's score (`score.rs`).
//! Units at this boundary: seconds and MiB in, durations and bytes out.

mod data;
mod limits;
mod score;
mod submissions;
mod validators;

#[cfg(test)]
mod tests;

pub(crate) use submissions::glob_match;
pub use validators::default_flags;

use super::raw::kattis::{Constant, Current, Header, Legacy};
use super::raw::{self, KeyPath};
use super::{slug_of, CheckerSpec, Format, PackageError, Problem};
use crate::checker::Builtin;
use judge_model::Verdict;
use serde_yaml_ng::Value;
use std::path::{Path, PathBuf};

/// The time limit used when a package states none (and no `.timelimit` file gives one).
pub const DEFAULT_TIME_LIMIT_SECS: f64 = 1.0;
/// `limits.memory` when absent (MiB).
pub const DEFAULT_MEMORY_MIB: f64 = 2048.0;
/// `limits.output` when absent (MiB).
pub const DEFAULT_OUTPUT_MIB: f64 = 8.0;

/// Which Kattis version the package in `dir` is (legacy unless `problem.yaml` says 2025-09 or
/// a 2023-07 draft). A `problem.yaml` that does not parse is reported by [`load`].
pub fn version(dir: &Path) -> Format {
    let text = std::fs::read_to_string(dir.join("problem.yaml")).unwrap_or_default();
    let value: Value = serde_yaml_ng::from_str(&text).unwrap_or(Value::Null);
    let version = match value.get("problem_format_version") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    if version.starts_with("2025") || version.starts_with("2023") {
        Format::Kattis2025
    } else {
        Format::KattisLegacy
    }
}

/// What kind of problem `problem.yaml` describes.
struct Kind {
    interactive: bool,
    scored: bool,
    multi_pass: bool,
    /// Legacy `validation: custom …`: the package's own output validator.
    custom: bool,
}

/// Reads the Kattis package in `dir`; `strict` = every input has its answer.
pub fn load(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
    let yaml_path = dir.join("problem.yaml");
    let format = version(dir);
    let modern = format == Format::Kattis2025;
    let mut warnings = Vec::new();
    let header = read_header(&yaml_path, modern, &mut warnings)?;
    let kind = kind(&header, &yaml_path, &mut warnings)?;
    let name = header
        .name
        .as_ref()
        .and_then(|n| n.pick())
        .filter(|n| !n.trim().is_empty())
        .map_or_else(|| slug_of(dir), str::to_string);

    let solutions = submissions::read(dir, modern, &mut warnings)?;
    let accepted = solutions.iter().any(|s| s.expected == [Verdict::AC]);
    let limits = limits::read(dir, &header.limits, modern, accepted, &mut warnings)?;
    let asked = validators::Asked {
        modern,
        custom: kind.custom,
        interactive: kind.interactive,
        flags: &header.validator_flags,
    };
    let (checker, interactor) = validators::output(dir, &asked, &mut warnings)?;
    let validators = validators::input(dir, &mut warnings)?;
    let includes = read_includes(dir)?;
    let constants = constants(&header.constants, &yaml_path)?;

    let mut walk = data::walk(dir, modern, strict, &constants)?;
    warnings.append(&mut walk.warnings);
    let default =
        interactor.is_none() && matches!(checker, CheckerSpec::Builtin(Builtin::Kattis(_)));
    validators::checker_args(&mut walk.tests, &header.validator_flags, default)?;
    let data = dir.join("data");
    let scoring = if kind.scored {
        Some(score::scoring(
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
            warnings.push(PackageError::new(
                &yaml_path,
                "test groups give scoring keys but the problem is pass-fail (problem.yaml `type: scoring` is missing); judged pass-fail",
            ));
        }
        None
    };
    let grader = validators::grader(dir, scoring.as_ref(), &mut warnings)?;
    let passes = if kind.multi_pass {
        if interactor.is_none() && !matches!(checker, CheckerSpec::Custom(_)) {
            let folder = if modern {
                "output_validator/"
            } else {
                "output_validators/"
            };
            return Err(PackageError::new(
                &yaml_path,
                "a multi-pass problem without an output validator",
            )
            .hint(format!(
                "add the output validator that writes nextpass.in to {folder}"
            )));
        }
        Some(limits::validation_passes(&header.limits, &yaml_path)?)
    } else {
        None
    };
    Ok(Problem {
        slug: slug_of(dir),
        dir: dir.to_path_buf(),
        format,
        name,
        source: header.source,
        limits: limits.limits,
        origin: limits.origin,
        time_rule: limits.time_rule,
        derive_time: limits.derive_time,
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
        grader,
        python: None,
    })
}

/// The hint for a value of the wrong type in `problem.yaml`.
fn hint(key: &str) -> String {
    let last = key.rsplit('.').next().unwrap_or(key);
    let example = match key.split('.').next().unwrap_or(key) {
        "limits" => {
            let sample = match last {
                "time_limit" | "time_resolution" => "1.5 (seconds)",
                "memory" | "output" => "1024 (MiB)",
                "time_multiplier" => "5",
                "ac_to_time_limit" => "2.0",
                "validation_passes" => "3",
                "limits" => return "fix `limits`: a map, e.g. limits:\n    memory: 1024".into(),
                _ => "a number",
            };
            format!("a number, e.g. {last}: {sample}")
        }
        "name" => "e.g. name: Hello, or (2025-09) name: {en: Hello, de: Hallo}".into(),
        "source" => "e.g. source: NWERC 2024, or source: {name: NWERC 2024, url: https://…}".into(),
        "constants" => {
            "e.g. constants:\n    max_n: 1000\n    big: {value: 1000000, tex: '10^6'}".into()
        }
        "type" => "e.g. type: [pass-fail, interactive]".into(),
        "validator_flags" => "e.g. validator_flags: case_sensitive float_tolerance 1e-6".into(),
        _ => "see the specification for the key's type".into(),
    };
    format!("fix `{key}`: {example}")
}

/// `problem.yaml` in the version's shape, its unknown keys and the other version's keys it
/// gives as warnings.
fn read_header(
    yaml_path: &Path,
    modern: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Header, PackageError> {
    let (spec, header, unknown): (&str, Header, Vec<KeyPath>) = if modern {
        let read = raw::read_yaml::<Current>(yaml_path, &hint)?;
        ("2025-09", read.value.into(), read.unknown)
    } else {
        let read = raw::read_yaml::<Legacy>(yaml_path, &hint)?;
        ("legacy", read.value.into(), read.unknown)
    };
    for key in unknown {
        warnings.push(PackageError::new(
            yaml_path,
            format!("unknown key `{key}` (not in the {spec} specification); ignored"),
        ));
    }
    for key in &header.borrowed {
        let what = match *key {
            "constants" => "a 2025-09 key",
            "validation" => "a legacy key (2025-09 says it with `type`)",
            _ => "a legacy key (2025-09 says it with `output_validator_args` of test_group.yaml)",
        };
        warnings.push(PackageError::new(
            yaml_path,
            format!("`{key}` is {what}, not in the {spec} specification; read all the same"),
        ));
    }
    if let Some(v) = &header.version {
        if !["legacy", "legacy-icpc", "2025-09"].contains(&v.as_str()) {
            if v.starts_with("2023") {
                warnings.push(PackageError::new(
                    yaml_path,
                    format!("problem_format_version `{v}` is a draft; read as 2025-09"),
                ));
            } else {
                return Err(PackageError::new(
                    yaml_path,
                    format!("unknown problem_format_version `{v}`"),
                )
                .hint("use `2025-09`, or `legacy` (or leave the key out) for the legacy format"));
            }
        }
    }
    if header.grading {
        warnings.push(PackageError::new(
            yaml_path,
            "`grading` (objective, show_test_data_groups, …) is not read; a scoring problem's score is maximised and its groups are graded by testdata.yaml",
        ));
    }
    Ok(header)
}

/// The kind of problem from `type` and legacy `validation`: the judge runs pass-fail,
/// scoring, interactive and multi-pass problems.
fn kind(
    header: &Header,
    yaml_path: &Path,
    warnings: &mut Vec<PackageError>,
) -> Result<Kind, PackageError> {
    let validation: Vec<&str> = header
        .validation
        .as_deref()
        .unwrap_or("default")
        .split_whitespace()
        .collect();
    let mut types: Vec<&str> = header.types.iter().map(String::as_str).collect();
    types.extend(
        validation
            .iter()
            .filter(|w| ["interactive", "score", "multi-pass"].contains(w)),
    );
    let mut kind = Kind {
        interactive: false,
        scored: false,
        multi_pass: false,
        custom: validation.first() == Some(&"custom"),
    };
    for t in types {
        match t {
            "pass-fail" => {}
            "interactive" => kind.interactive = true,
            "scoring" | "score" => kind.scored = true,
            "multi-pass" => kind.multi_pass = true,
            "submit-answer" => {
                return Err(PackageError::new(
                    yaml_path,
                    "`submit-answer` problems are not supported by the judge yet",
                )
                .hint("pass-fail, scoring, interactive and multi-pass problems (a program that reads and writes) can be judged"));
            }
            other => warnings.push(PackageError::new(
                yaml_path,
                format!("unknown problem type `{other}`; judged as pass-fail"),
            )),
        }
    }
    Ok(kind)
}

/// `constants:` of a 2025-09 `problem.yaml`: `name: value` or `name: {value: …, variant: …}`,
/// as (`name`, value), (`name.value`, value) and (`name.variant`, its value).
fn constants(
    given: &[(String, Constant)],
    path: &Path,
) -> Result<Vec<(String, String)>, PackageError> {
    let mut out = Vec::new();
    for (name, constant) in given {
        match constant {
            Constant::Plain(value) => {
                out.push((name.clone(), value.clone()));
                out.push((format!("{name}.value"), value.clone()));
            }
            Constant::Variants(variants) => {
                let Some((_, value)) = variants.iter().find(|(k, _)| k == "value") else {
                    return Err(PackageError::new(
                        path,
                        format!("constant `{name}` has no `value`"),
                    )
                    .hint("give it value: (a number or a string) besides its variants"));
                };
                out.push((name.clone(), value.clone()));
                for (variant, text) in variants {
                    out.push((format!("{name}.{variant}"), text.clone()));
                }
            }
        }
    }
    Ok(out)
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
