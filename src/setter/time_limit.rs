//! A time limit from the accepted solutions, for packages that state none (Kattis keeps it
//! outside legacy packages): the slowest accepted solution's CPU time times the package's
//! multiplier, rounded up to its resolution (problemtools' rule).

use crate::build::BuildError;
use crate::engine::{Checker, Engine, EngineError, JudgeOptions};
use crate::event::Silent;
use crate::package::Problem;
use crate::verdict::Verdict;
use std::time::Duration;

/// What the measuring ran into, and the limit if one was found.
#[derive(Debug, Default)]
pub struct Derived {
    /// The limit, and why ("0.12 s of submissions/accepted/a.py x 5 …").
    pub limit: Option<(Duration, String)>,
    /// A line per solution that could not be used, and why.
    pub notes: Vec<String>,
}

/// The CPU time accepted solutions may take while measured.
const MEASURE_LIMIT: Duration = Duration::from_secs(30);

/// Runs every accepted solution of `problem` on every test and applies its [`TimeRule`]
/// (`None` in the result when the problem has no rule or no solution could be measured).
///
/// [`TimeRule`]: crate::package::TimeRule
pub fn derive(
    engine: &mut Engine,
    problem: &Problem,
    checker: &Checker,
) -> Result<Derived, EngineError> {
    let mut derived = Derived::default();
    let Some(rule) = &problem.time_rule else {
        return Ok(derived);
    };
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
        .filter(|s| s.expected == [Verdict::AC])
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
        derived.limit = Some((
            limit,
            format!(
                "derived: slowest accepted submission {name} took {:.3} s; x {} ({}) rounded up to {} s = {} s",
                time.as_secs_f64(),
                rule.multiplier,
                rule.multiplier_key,
                rule.resolution,
                limit.as_secs_f64()
            ),
        ));
    }
    Ok(derived)
}
