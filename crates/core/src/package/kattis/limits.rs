//! A Kattis package's limits and where each came from: `limits:` of `problem.yaml` (seconds
//! and MiB), a legacy package's `.timelimit` or `domjudge-problem.ini`, the specification's
//! defaults, and the rule that derives a time limit from the accepted submissions when the
//! package states none (`time_multiplier(s)`, `time_resolution`).

use super::{DEFAULT_MEMORY_MIB, DEFAULT_OUTPUT_MIB, DEFAULT_TIME_LIMIT_SECS};
use crate::package::raw::kattis::HeaderLimits;
use crate::package::{LimitOrigin, PackageError, ProblemLimits, MIB};
use judge_model::TimeRule;
use std::path::Path;
use std::time::Duration;

/// The limits, where each came from, the rule for a time limit the package does not state, and
/// whether `run` derives one.
pub(super) struct Read {
    pub limits: ProblemLimits,
    pub origin: LimitOrigin,
    pub time_rule: TimeRule,
    pub derive_time: bool,
}

/// `value` of `limits.key` when it is a positive number up to `max`.
fn positive(
    value: Option<f64>,
    key: &str,
    max: f64,
    yaml_path: &Path,
) -> Result<Option<f64>, PackageError> {
    match value {
        None => Ok(None),
        Some(x) if x.is_finite() && x > 0.0 && x <= max => Ok(Some(x)),
        Some(_) => Err(PackageError::new(
            yaml_path,
            format!("`limits.{key}` is not a sensible positive number"),
        )
        .hint(format!("use a positive number up to {max}"))),
    }
}

/// How a time limit follows from the accepted submissions' times, by the package's keys.
fn rule(limits: &HeaderLimits, modern: bool, yaml_path: &Path) -> Result<TimeRule, PackageError> {
    let key = if modern {
        "limits.time_multipliers.ac_to_time_limit"
    } else {
        "limits.time_multiplier"
    };
    let default = if modern { 2.0 } else { 5.0 };
    let resolution = limits.resolution.unwrap_or(1.0);
    if !(resolution.is_finite() && resolution > 0.0) {
        return Err(PackageError::new(
            yaml_path,
            "`limits.time_resolution` must be a positive number of seconds",
        )
        .hint("e.g. 1.0"));
    }
    Ok(match limits.multiplier {
        Some(m) if m.is_finite() && m >= 1.0 => TimeRule {
            multiplier: m,
            multiplier_key: key.to_string(),
            resolution,
        },
        Some(_) => {
            return Err(PackageError::new(
                yaml_path,
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
}

/// The limits of the package in `dir` from its `problem.yaml` `limits` (`accepted`: it has
/// accepted submissions to derive a time limit from).
pub(super) fn read(
    dir: &Path,
    limits: &HeaderLimits,
    modern: bool,
    accepted: bool,
    warnings: &mut Vec<PackageError>,
) -> Result<Read, PackageError> {
    let yaml_path = dir.join("problem.yaml");
    let stated = match positive(limits.time_limit, "time_limit", 3600.0, &yaml_path)? {
        Some(t) => Some((t, format!("problem.yaml limits.time_limit = {t} s"))),
        None => time_limit_file(dir)?,
    };
    // The rule matters for deriving a limit; with one stated it only shapes verify's advice,
    // so a broken rule is then a warning.
    let time_rule = match rule(limits, modern, &yaml_path) {
        Ok(r) => r,
        Err(e) if stated.is_some() => {
            warnings.push(
                e.hint("the package's time limit is used; the rule only shapes verify's advice"),
            );
            TimeRule::usual()
        }
        Err(e) => return Err(e),
    };
    let mut derive_time = false;
    let (time, time_origin) = if let Some((t, from)) = stated {
        (t, from)
    } else if accepted {
        let r = &time_rule;
        let origin = format!(
            "not in the package: `judge run` derives it from the accepted submissions (slowest x {} ({}), rounded up to {} s); {DEFAULT_TIME_LIMIT_SECS} s otherwise",
            r.multiplier, r.multiplier_key, r.resolution
        );
        derive_time = true;
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
    let (memory, memory_origin) = match positive(limits.memory, "memory", 65536.0, &yaml_path)? {
        Some(m) => (m, format!("problem.yaml limits.memory = {m} MiB")),
        None => (
            DEFAULT_MEMORY_MIB,
            format!("default {DEFAULT_MEMORY_MIB} MiB (the specification's)"),
        ),
    };
    let (output, output_origin) = match positive(limits.output, "output", 65536.0, &yaml_path)? {
        Some(o) => (o, format!("problem.yaml limits.output = {o} MiB")),
        None => (
            DEFAULT_OUTPUT_MIB,
            format!("default {DEFAULT_OUTPUT_MIB} MiB (the specification's)"),
        ),
    };
    let time = Duration::from_secs_f64(time);
    let memory = (memory * MIB as f64) as u64;
    Ok(Read {
        limits: ProblemLimits {
            time,
            wall: time * 3 + Duration::from_secs(1),
            memory,
            stack: memory,
            output: (output * MIB as f64) as u64,
        },
        origin: LimitOrigin {
            time: time_origin,
            memory: memory_origin,
            output: output_origin,
        },
        time_rule,
        derive_time,
    })
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

/// `limits.validation_passes` of a multi-pass problem (at least 2; default 2).
pub(super) fn validation_passes(
    limits: &HeaderLimits,
    yaml_path: &Path,
) -> Result<u32, PackageError> {
    match limits.validation_passes {
        None => Ok(2),
        Some(n) if n >= 2.0 && n.fract() == 0.0 && n <= 1000.0 => Ok(n as u32),
        Some(n) => Err(PackageError::new(
            yaml_path,
            format!("`limits.validation_passes` = {n} is not a whole number of passes, at least 2"),
        )
        .hint("e.g. limits:\n    validation_passes: 3")),
    }
}
