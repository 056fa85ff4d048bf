//! A time limit from the accepted solutions, for packages that state none (Kattis keeps it
//! outside legacy packages): the slowest accepted solution's CPU time times the package's
//! multiplier, rounded up to its resolution (problemtools' rule).

use crate::build::BuildError;
use crate::engine::{Checker, Engine, EngineError, JudgeOptions};
use crate::package::Problem;
use judge_model::event::Silent;
use judge_model::Verdict;
use std::time::Duration;

/// What the measuring ran into, and the limit if one was found.
#[derive(Debug, Default)]
pub struct Derived {
    /// The limit, and why ("0.12 s of submissions/accepted/a.py x 5 …").
    pub limit: Option<(Duration, String)>,
    /// A line per solution that could not be used, and why.
    pub notes: Vec<String>,
}

impl Derived {
    /// Makes the derived limit the problem's (its wall time 3 × it + 1 s, and why), or, when none
    /// could be measured, says the default stays; the note that tells which.
    pub fn apply(self, problem: &mut Problem) -> String {
        match self.limit {
            Some((limit, why)) => {
                problem.limits.time = limit;
                problem.limits.wall = limit * 3 + Duration::from_secs(1);
                problem.origin.time = why;
            }
            None => {
                problem.origin.time = format!(
                    "default {} s (no accepted submission could be measured)",
                    problem.limits.time.as_secs_f64()
                )
            }
        }
        format!(
            "time limit {}: {}",
            judge_model::units::secs(problem.limits.time),
            problem.origin.time
        )
    }
}

/// The CPU time accepted solutions may take while measured.
const MEASURE_LIMIT: Duration = Duration::from_secs(30);

/// Runs every accepted solution of `problem` on every test and applies its [`TimeRule`]
/// (`None` in the result when the problem has no rule or no solution could be measured);
/// with `reuse`, a limit measured before for the package as it is now is taken instead.
///
/// [`TimeRule`]: judge_model::finding::TimeRule
pub fn derive(
    engine: &mut Engine,
    problem: &Problem,
    checker: &Checker,
    reuse: bool,
) -> Result<Derived, EngineError> {
    let mut derived = Derived::default();
    if !problem.derive_time {
        return Ok(derived);
    }
    let rule = &problem.time_rule;
    // Measured before on this machine with the package as it is now: the same answer, without
    // running every accepted solution on every test again (`judge run` asks each time, with
    // `reuse`; `verify` measures afresh and keeps what it found).
    let cache = crate::build::cache::installed();
    let key = fingerprint(problem);
    if let (Some(cache), Some(key), true) = (&cache, &key, reuse) {
        if let Some(kept) = cache
            .read_note(NOTE, key)
            .and_then(|text| serde_json::from_str::<Kept>(&text).ok())
        {
            derived.limit = Some((
                Duration::from_nanos(kept.limit_ns),
                format!("{} (measured earlier, kept in the build cache)", kept.why),
            ));
            derived.notes = kept.notes;
            return Ok(derived);
        }
    }
    let mut measuring = problem.clone();
    measuring.limits.time = MEASURE_LIMIT;
    measuring.limits.wall = MEASURE_LIMIT * 3 + Duration::from_secs(1);
    let rel = |p: &std::path::Path| {
        p.strip_prefix(&problem.dir)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let mut slowest: Option<(Duration, String)> = None;
    for solution in problem
        .solutions
        .iter()
        // Accepted ones only: a legacy `partially_accepted/` submission also ends AC, but
        // problemtools leaves it out of the measure.
        .filter(|s| {
            s.expected == [Verdict::AC] && s.score != Some(judge_model::score::Expected::Partial)
        })
    {
        let name = rel(&solution.path);
        let report = match engine.judge(
            &measuring,
            checker,
            &solution.path,
            JudgeOptions::default(),
            &mut Silent,
        ) {
            Ok(r) => r,
            Err(EngineError::Build(BuildError::Lang(e))) => {
                derived
                    .notes
                    .push(format!("{name}: not measured: {}", e.short()));
                continue;
            }
            Err(e) => return Err(e),
        };
        if report.verdict != Verdict::AC {
            derived.notes.push(format!(
                "{name}: not measured: it got {} (expected AC) even with {} s",
                report.verdict.code(),
                MEASURE_LIMIT.as_secs()
            ));
            continue;
        }
        let time = report.max_time();
        if slowest.as_ref().is_none_or(|(t, _)| time > *t) {
            slowest = Some((time, name));
        }
    }
    if let Some((time, name)) = slowest {
        let limit = rule.limit(time);
        let why = format!(
            "derived: slowest accepted submission {name} took {:.3} s; x {} ({}) rounded up to {} s = {} s",
            time.as_secs_f64(),
            rule.multiplier,
            rule.multiplier_key,
            rule.resolution,
            limit.as_secs_f64()
        );
        if let (Some(cache), Some(key)) = (&cache, &key) {
            let kept = Kept {
                limit_ns: limit.as_nanos() as u64,
                why: why.clone(),
                notes: derived.notes.clone(),
            };
            if let Ok(text) = serde_json::to_string(&kept) {
                cache.write_note(NOTE, key, &text);
            }
        }
        derived.limit = Some((limit, why));
    }
    Ok(derived)
}

/// The build cache's notes holding measured limits.
const NOTE: &str = "time-limits";

/// A measured limit as the build cache keeps it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    limit_ns: u64,
    why: String,
    notes: Vec<String>,
}

/// The package as it is now, for the kept limit: every file's path, size and modification
/// time (a solution, a test, the validator or problem.yaml changed: measured again), and this
/// judge's version. `None` when the folder cannot be read.
fn fingerprint(problem: &Problem) -> Option<String> {
    use sha2::{Digest, Sha256};
    use std::os::unix::fs::MetadataExt;
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let meta = entry.metadata()?;
            let path = format!("{rel}/{name}");
            if meta.is_dir() {
                walk(&entry.path(), &path, out)?;
            } else {
                out.push(format!(
                    "{path}\t{}\t{}.{}",
                    meta.len(),
                    meta.mtime(),
                    meta.mtime_nsec()
                ));
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(&problem.dir, "", &mut files).ok()?;
    files.sort();
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(
        std::path::absolute(&problem.dir)
            .ok()?
            .as_os_str()
            .as_encoded_bytes(),
    );
    for f in files {
        h.update(f.as_bytes());
        h.update(b"\n");
    }
    Some(format!("{:x}", h.finalize()))
}
