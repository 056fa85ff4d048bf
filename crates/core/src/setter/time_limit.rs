//! A time limit from the accepted solutions, for packages that state none (Kattis keeps it
//! outside legacy packages): the slowest accepted solution's CPU time times the package's
//! multiplier, rounded up to its resolution (problemtools' rule).

use crate::build::BuildError;
use crate::engine::{Checker, Engine, EngineError, JudgeOptions};
use crate::package::Problem;
use judge_model::event::Silent;
use judge_model::result::SubmissionReport;
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
    let measuring = measuring(problem);
    let mut measured = Vec::new();
    for solution in problem.solutions.iter().filter(|s| measured_for_limit(s)) {
        let outcome = engine.judge(
            &measuring,
            checker,
            &solution.path,
            JudgeOptions::default(),
            &mut Silent,
        );
        let outcome = match outcome {
            Err(e) if !unavailable(&e) => return Err(e),
            other => other,
        };
        let name = rel(problem, &solution.path);
        measured.push((measure(&name, &outcome), name));
    }
    Ok(conclude(problem, measured, derived.notes))
}

/// Whether a package's solution is measured for its time limit: the accepted ones only (a
/// legacy `partially_accepted/` submission also ends AC, but problemtools leaves it out).
pub fn measured_for_limit(s: &crate::package::Solution) -> bool {
    s.expected == [Verdict::AC] && s.score != Some(judge_model::score::Expected::Partial)
}

/// `problem` as its accepted solutions are measured: a generous limit.
pub fn measuring(problem: &Problem) -> Problem {
    crate::jobs::with_limit(problem, MEASURE_LIMIT)
}

/// The lowest limit the package's rule can derive (one step of its resolution: Kattis never
/// derives less than 1 s).
pub fn lowest(problem: &Problem) -> Duration {
    problem.time_rule.limit(Duration::ZERO)
}

/// Whether the limit derived from `slowest`, measured beside other jobs, is the one measured
/// alone would give: the same within a factor 1.5 below (the re-judge rule's window,
/// `crate::engine::near_limit`).
pub fn steady(problem: &Problem, slowest: Duration) -> bool {
    let rule = &problem.time_rule;
    rule.limit(slowest.div_f64(1.5)) == rule.limit(slowest)
}

/// The package's path of `path`, as notes name it.
fn rel(problem: &Problem, path: &std::path::Path) -> String {
    path.strip_prefix(&problem.dir)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A solution that could not be judged for want of its language's toolchain here (not a judge
/// error: it is left out of the measure).
pub fn unavailable(e: &EngineError) -> bool {
    matches!(e, EngineError::Build(BuildError::Lang(_)))
}

/// What measuring one accepted solution (`name`) gave: its slowest test's time, or why it
/// could not be used. A judge error other than [`unavailable`] is the caller's to report.
pub fn measure(
    name: &str,
    outcome: &Result<SubmissionReport, EngineError>,
) -> Result<Duration, String> {
    let report = match outcome {
        Ok(r) => r,
        Err(EngineError::Build(BuildError::Lang(e))) => {
            return Err(format!("{name}: not measured: {}", e.short()));
        }
        Err(e) => return Err(format!("{name}: not measured: {e}")),
    };
    if report.verdict != Verdict::AC {
        return Err(format!(
            "{name}: not measured: it got {} (expected AC) even with {} s",
            report.verdict.code(),
            MEASURE_LIMIT.as_secs()
        ));
    }
    Ok(report.max_time())
}

/// The limit from what was measured (each solution's name and [`measure`]), kept in the build
/// cache; `notes` gathers the solutions that could not be used.
pub fn conclude(
    problem: &Problem,
    measured: Vec<(Result<Duration, String>, String)>,
    mut notes: Vec<String>,
) -> Derived {
    let rule = &problem.time_rule;
    let mut slowest: Option<(Duration, String)> = None;
    for (m, name) in measured {
        match m {
            Ok(time) if slowest.as_ref().is_none_or(|(t, _)| time > *t) => {
                slowest = Some((time, name))
            }
            Ok(_) => {}
            Err(note) => notes.push(note),
        }
    }
    let mut derived = Derived { limit: None, notes };
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
        if let (Some(cache), Some(key)) = (crate::build::cache::installed(), fingerprint(problem)) {
            let kept = Kept {
                limit_ns: limit.as_nanos() as u64,
                why: why.clone(),
                notes: derived.notes.clone(),
            };
            if let Ok(text) = serde_json::to_string(&kept) {
                cache.write_note(NOTE, &key, &text);
            }
        }
        derived.limit = Some((limit, why));
    }
    derived
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
