//! What a package expects of each solution in `verify` (verdicts, a score, requirements on
//! some tests, a language dialect), what each came to, and the time-limit advice from them.

use super::*;

/// Each solution as a submission with what the package expects of it. Every test of every
/// solution is a piece of work for whichever job is free; a solution expected to run out of time
/// goes first, its tests in order beside the others (a run beside other jobs may go on to
/// 1.5 × the limit, so that its TLE is clear at once: `crate::engine::near_limit`).
pub(super) fn submissions(
    problem: &Problem,
    solutions: &[(PathBuf, Vec<Verdict>)],
    marked_scores: &[(PathBuf, judge_model::score::Expected)],
    id: &str,
) -> Vec<Submission> {
    solutions
        .iter()
        .map(|(path, allowed)| {
            let expected = allowed.first().copied().unwrap_or(Verdict::AC);
            let declared = problem.solutions.iter().find(|s| s.path == *path);
            let language = declared.and_then(|s| s.language.as_deref());
            let skip = other_dialect(path, language).map(|why| Event::SolutionSkipped {
                problem: id.to_string(),
                solution: path.display().to_string(),
                expected: Some(expected),
                allowed: if allowed.len() > 1 {
                    allowed.clone()
                } else {
                    Vec::new()
                },
                reason: why,
            });
            Submission {
                source: path.clone(),
                options: JudgeOptions {
                    all: false,
                    expected: allowed.clone(),
                    skip_unavailable: true,
                    alone: false,
                    score: marked_scores
                        .iter()
                        .find(|(p, _)| p == path)
                        .map(|(_, s)| *s)
                        .or_else(|| expected_score(problem, path)),
                    rules: package_rules(problem, path),
                    permitted: declared.and_then(|s| s.permitted.clone()),
                },
                skip,
                limit: None,
                run: None,
            }
        })
        .collect()
}

/// What happened to one solution, against what its package expects.
pub(super) fn solution_check(
    path: &Path,
    allowed: &[Verdict],
    submission: &Submission,
    outcome: judging::Outcome,
) -> SolutionCheck {
    let expected = allowed.first().copied().unwrap_or(Verdict::AC);
    let (report, error) = match outcome {
        None => (None, None),
        Some(Ok(r)) => (Some(r), None),
        Some(Err(e)) => (None, Some(e)),
    };
    // No toolchain for its language here: skipped with a note, not failed.
    let skipped = match (&submission.skip, &error) {
        (Some(Event::SolutionSkipped { reason, .. }), _) => Some(reason.clone()),
        (_, Some(crate::engine::EngineError::Build(crate::build::BuildError::Lang(e)))) => {
            Some(e.short())
        }
        _ => None,
    };
    SolutionCheck {
        path: path.to_path_buf(),
        expected,
        allowed: allowed.to_vec(),
        score: submission.options.score,
        rule_failures: report
            .as_ref()
            .map(|r| crate::engine::expectation_failures(&submission.options, r))
            .unwrap_or_default(),
        skipped: skipped.clone(),
        report,
        error: if skipped.is_some() {
            None
        } else {
            error.map(|e| e.to_string())
        },
    }
}

/// `@EXPECTED_SCORE@: 70` (DOMjudge's mark) in a source file: the score it must get. `Err`
/// names the file and line of a mark that is not a number.
pub fn marked_score(file: &Path) -> Result<Option<judge_model::score::Expected>, String> {
    const MARK: &str = "@EXPECTED_SCORE@:";
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 20)]);
    let Some(at) = text.find(MARK) else {
        return Ok(None);
    };
    let value = text[at + MARK.len()..]
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches("*/")
        .trim_end_matches("-->")
        .trim();
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(judge_model::score::Expected::Between(x, x))),
        _ => {
            let (line, column) = crate::package::line_column(&text, at);
            Err(format!(
                "{}:{line}:{column}: @EXPECTED_SCORE@ holds `{value}`, not a score\n  hint: write the score the solution must get, e.g. `@EXPECTED_SCORE@: 70`",
                file.display()
            ))
        }
    }
}

/// The requirements the package puts on some of the tests of its solution `path`.
pub(super) fn package_rules(problem: &Problem, path: &Path) -> Vec<crate::package::TestRule> {
    problem
        .solutions
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.rules.clone())
        .unwrap_or_default()
}

/// The score the package expects of its solution `path` (a scored problem only).
pub(super) fn expected_score(
    problem: &Problem,
    path: &Path,
) -> Option<judge_model::score::Expected> {
    problem.scoring.as_ref()?;
    problem
        .solutions
        .iter()
        .find(|s| s.path == path)
        .and_then(|s| s.score)
}

/// A source written for a language the table does not have although its extension matches one
/// it has: a `.py` file whose `#!` line asks for Python 2 (Kattis packages keep such submissions).
pub(super) fn other_dialect(path: &Path, declared: Option<&str>) -> Option<String> {
    if path.extension().is_none_or(|e| e != "py") {
        return None;
    }
    // Polygon's types for Python 2: python.2, python.pypy2.
    if let Some(t) = declared.filter(|t| t.starts_with("python.") && t.ends_with('2')) {
        return Some(format!(
            "written for Python 2 (the package says `{t}`); the language table has Python 3 only"
        ));
    }
    let text = std::fs::read(path).ok()?;
    let first = text.split(|b| *b == b'\n').next()?;
    let first = String::from_utf8_lossy(first);
    let python2 = first.starts_with("#!")
        && first
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w == "python2");
    python2.then(|| {
        "written for Python 2 (its #! line); the language table has Python 3 only".to_string()
    })
}

pub(super) fn time_advice(problem: &Problem, solutions: &[SolutionCheck]) -> TimeAdvice {
    let limit = problem.limits.time;
    let mut advice = TimeAdvice {
        limit,
        slowest_accepted: None,
        fastest_tle: None,
        kattis_limit: None,
        rule: None,
        warnings: Vec::new(),
    };
    for s in solutions {
        let Some(r) = &s.report else { continue };
        // Accepted ones only: a partially_accepted/ submission also ends AC, but its time says
        // nothing about the limit (problemtools leaves it out too).
        let accepted =
            s.allowed == [Verdict::AC] && s.score != Some(judge_model::score::Expected::Partial);
        if r.verdict == Verdict::AC {
            let t = r.max_time();
            if accepted
                && advice
                    .slowest_accepted
                    .as_ref()
                    .is_none_or(|(best, _)| t > *best)
            {
                advice.slowest_accepted = Some((t, s.path.clone()));
            }
            if t.as_secs_f64() * 1.5 > limit.as_secs_f64() {
                advice.warnings.push(format!(
                    "{} is accepted but needs {:.3} s, within a factor 1.5 of the {:.3} s limit",
                    s.path.display(),
                    t.as_secs_f64(),
                    limit.as_secs_f64()
                ));
            }
        }
        if r.verdict == Verdict::TLE {
            if let Some(f) = r.first_failure() {
                if advice
                    .fastest_tle
                    .as_ref()
                    .is_none_or(|(best, _)| f.time < *best)
                {
                    advice.fastest_tle = Some((f.time, s.path.clone()));
                }
            }
            let slowest_passing = r
                .tests
                .iter()
                .filter(|t| t.verdict == Verdict::AC)
                .map(|t| t.time)
                .max();
            if let Some(t) = slowest_passing {
                if t.as_secs_f64() * 1.5 > limit.as_secs_f64() {
                    advice.warnings.push(format!(
                        "{} is too slow, yet passes a test in {:.3} s, within a factor 1.5 of the limit",
                        s.path.display(),
                        t.as_secs_f64()
                    ));
                }
            }
        }
    }
    if let Some((t, _)) = &advice.slowest_accepted {
        advice.kattis_limit = Some(problem.time_rule.limit(*t));
        advice.rule = Some(problem.time_rule.clone());
    }
    advice
}
