//! `judge verify`: a problem is sound when its package loads, every test passes the validator,
//! generated tests are up to date, the checker passes its own tests, and every solution under
//! `solutions/<slug>/<expected>/` gets its expected verdict.

use crate::engine::{Checker, Engine, JudgeOptions};
use crate::jobs::spread;
use crate::judging::{self, Submission};
use crate::package::{recipe, Problem};
use crate::setter::gen::GenOptions;
use crate::setter::jury::{validate_input_with, NotValid, VALIDATOR_RULE};
use crate::setter::solutions::{list_solutions, solutions_dir};
use crate::setter::{Builds, SetterError};
use judge_model::event::{Event, PackageInfo, Reporter};
use judge_model::finding::SolutionCheck;
use judge_model::finding::TimeAdvice;
use judge_model::finding::{Finding, Severity};
use judge_model::Verdict;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Everything `verify` found about one problem.
#[derive(Debug, Clone)]
pub struct ProblemCheck {
    pub dir: PathBuf,
    pub problem: Option<Problem>,
    /// Problems with the package itself (each names its file and what to do).
    pub findings: Vec<Finding>,
    pub solutions: Vec<SolutionCheck>,
    pub advice: Option<TimeAdvice>,
}

impl ProblemCheck {
    pub fn ok(&self) -> bool {
        self.findings.is_empty() && self.solutions.iter().all(SolutionCheck::holds)
    }

    /// Judge errors: broken package parts, jury programs that failed, solutions not judged.
    pub fn judge_errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Broken)
            .count()
            + self.solutions.iter().filter(|s| s.judge_error()).count()
    }

    /// Failed expectations: invalid or stale tests, checker tests, solutions with another verdict.
    pub fn failures(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Failed)
            .count()
            + self
                .solutions
                .iter()
                .filter(|s| !s.holds() && !s.judge_error())
                .count()
    }
}

/// Options of `verify`.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    pub gen: GenOptions,
}

/// Verifies one package: the package steps with the first engine, the solutions spread over
/// all of them (`crate::judging::judge` over the jobs), reported in their order.
pub fn verify_problem(
    engines: &mut [&mut Engine],
    dir: &Path,
    options: &VerifyOptions,
    reporter: &mut dyn Reporter,
) -> ProblemCheck {
    let mut check = ProblemCheck {
        dir: dir.to_path_buf(),
        problem: None,
        findings: Vec::new(),
        solutions: Vec::new(),
        advice: None,
    };
    let (id, mut problem) = match load(engines, dir, reporter) {
        (id, Ok(problem)) => (id, problem),
        (id, Err((finding, problem))) => {
            check.findings.push(finding);
            finished(reporter, id, &check, problem.as_ref());
            return check;
        }
    };
    let (solutions_dir, solutions) = expected_verdicts(&problem, dir, &mut check);
    let sources = solutions.iter().map(|(p, _)| p.as_path());
    for message in engines[0].languages.fallback_notes(sources) {
        // A language this format runs differently (Kattis' PyPy) missing here.
        note(reporter, &id, message);
    }
    let marked_scores = expected_scores(&problem, &solutions, &mut check);
    let reference = solutions
        .iter()
        .find(|(_, v)| *v == [Verdict::AC])
        .map(|(p, _)| p.clone());
    if reference.is_none() {
        check.findings.push(Finding::failed(format!(
            "{}: no reference solution\n  hint: put at least one solution in accepted/",
            solutions_dir.display()
        )));
    }
    check.findings.extend(check_tests(
        engines,
        &problem,
        reference.as_deref(),
        options,
        &id,
        reporter,
    ));
    let checker = check_checker(engines[0], &problem, &id, &mut check, reporter);
    if let Some(checker) = &checker {
        let mut submissions = submissions(&problem, &solutions, &marked_scores, &id);
        let prejudged = if problem.derive_time {
            let mut deriving = Deriving {
                problem: &mut problem,
                checker,
                id: &id,
                check: &mut check,
            };
            deriving.derive(engines, &mut submissions, reporter)
        } else {
            Vec::new()
        };
        let outcomes = judging::judge_with(
            engines,
            (&problem, checker),
            &submissions,
            prejudged,
            &mut *reporter,
        );
        check
            .solutions
            .extend(solutions.iter().zip(&submissions).zip(outcomes).map(
                |(((path, allowed), submission), outcome)| {
                    solution_check(path, allowed, submission, outcome)
                },
            ));
    }
    check.advice = Some(time_advice(&problem, &check.solutions));
    finished(reporter, id, &check, Some(&problem));
    check.problem = Some(problem);
    check
}

/// An event of a step of `verify` ("Checking", "tests against the validator").
fn step(reporter: &mut dyn Reporter, id: &str, verb: &str, what: &str) {
    reporter.event(&Event::Step {
        problem: id.to_string(),
        verb: verb.to_string(),
        what: what.to_string(),
    })
}

fn note(reporter: &mut dyn Reporter, id: &str, message: String) {
    reporter.event(&Event::Note {
        problem: Some(id.to_string()),
        message,
    });
}

/// What stops verifying a package: the finding, and the package when it loaded.
type Stop = (Finding, Option<Problem>);

/// Loads the package (`problem_started` either way), tells its warnings and makes the tests it
/// leaves out; the problem's id (its slug, or the folder when it does not load).
fn load(
    engines: &mut [&mut Engine],
    dir: &Path,
    reporter: &mut dyn Reporter,
) -> (String, Result<Problem, Stop>) {
    let loaded = Problem::load(dir);
    let id = match &loaded {
        Ok(p) => p.slug.clone(),
        Err(_) => dir.display().to_string(),
    };
    reporter.event(&match &loaded {
        Ok(p) => p.started_event(),
        Err(_) => Event::ProblemStarted {
            problem: id.clone(),
            dir: dir.display().to_string(),
            name: String::new(),
            tests: Vec::new(),
            time_limit_ms: Duration::ZERO,
            memory_limit_kib: 0,
        },
    });
    let mut problem = match loaded {
        Ok(p) => p,
        Err(e) => return (id, Err((Finding::broken(e.to_string()), None))),
    };
    for engine in engines.iter_mut() {
        problem.set_languages(&mut engine.languages);
    }
    // Keys and elements the loader does not read (Kattis, Polygon).
    for warning in &problem.warnings {
        reporter.event(&Event::Warning {
            problem: Some(id.clone()),
            message: warning.to_string(),
        });
    }
    // Tests the package leaves out (Polygon without its full files) are made first.
    let made = crate::setter::rebuild::rebuild_missing(
        &mut *engines[0],
        &mut problem,
        &mut |verb, what| step(reporter, &id, verb, what),
    );
    match made {
        Ok(notes) => {
            for message in notes {
                note(reporter, &id, message);
            }
            (id, Ok(problem))
        }
        Err(e) => (id, Err((Finding::broken(e.to_string()), Some(problem)))),
    }
}

/// The package's solutions with the verdicts each may get, and the folder they are listed from.
/// A native package keeps its solutions in verdict folders (a misplaced one is a finding);
/// Kattis and Polygon packages list theirs with the verdicts they allow.
fn expected_verdicts(
    problem: &Problem,
    dir: &Path,
    check: &mut ProblemCheck,
) -> (PathBuf, Vec<(PathBuf, Vec<Verdict>)>) {
    match problem.format {
        crate::package::Format::Native => {
            let folder = solutions_dir(dir, &problem.slug);
            let (solutions, misplaced) = list_solutions(&folder);
            check
                .findings
                .extend(misplaced.into_iter().map(Finding::broken));
            let solutions = solutions.into_iter().map(|(p, v)| (p, vec![v])).collect();
            (folder, solutions)
        }
        _ => {
            let solutions = problem
                .solutions
                .iter()
                .map(|s| (s.path.clone(), s.expected.clone()))
                .collect();
            (dir.to_path_buf(), solutions)
        }
    }
}

/// The scores marked in the solutions' sources (DOMjudge's `@EXPECTED_SCORE@: 70`, in any
/// format, over the package's own).
fn expected_scores(
    problem: &Problem,
    solutions: &[(PathBuf, Vec<Verdict>)],
    check: &mut ProblemCheck,
) -> Vec<(PathBuf, judge_model::score::Expected)> {
    let mut marked_scores = Vec::new();
    if problem.scoring.is_some() {
        for (path, _) in solutions {
            match marked_score(path) {
                Ok(Some(score)) => marked_scores.push((path.clone(), score)),
                Ok(None) => {}
                Err(why) => check.findings.push(Finding::broken(why)),
            }
        }
    }
    marked_scores
}

/// Builds every jury program at once (spread over the jobs), then checks the tests against the
/// validator and that generated tests are up to date.
fn check_tests(
    engines: &mut [&mut Engine],
    problem: &Problem,
    reference: Option<&Path>,
    options: &VerifyOptions,
    id: &str,
    reporter: &mut dyn Reporter,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    // The jobs' steps, one at a time into the reporter.
    let steps = Mutex::new(reporter);
    let progress = |verb: &str, what: &str| {
        let mut reporter = steps.lock().unwrap_or_else(|e| e.into_inner());
        step(&mut **reporter, id, verb, what);
    };
    let builds = Builds::default();
    let recipe = recipe::load_recipe(&problem.dir);
    let generators = recipe
        .iter()
        .flat_map(|r| r.tests.iter().map(|t| &t.generator));
    builds.prebuild(
        engines,
        problem
            .validator
            .iter()
            .chain(generators)
            .map(PathBuf::as_path)
            .chain(reference),
    );
    progress("Checking", "tests against the validator");
    findings.extend(validate_tests(engines, &builds, problem, &progress));
    match recipe {
        // Nothing to announce for a package without generated tests.
        Ok(recipe) if recipe.tests.is_empty() => {}
        Ok(recipe) => {
            progress("Checking", "that generated tests are up to date");
            findings.extend(crate::setter::gen::stale_tests(
                engines,
                &builds,
                problem,
                &recipe,
                reference,
                &options.gen,
                &progress,
            ))
        }
        Err(e) => findings.push(Finding::broken(e.to_string())),
    }
    findings
}

/// Builds the checker (or interactor), runs `checker_tests.toml` and plays an interactive
/// problem's sample exchanges against its interactor; `None` when the checker does not build.
fn check_checker(
    engine: &mut Engine,
    problem: &Problem,
    id: &str,
    check: &mut ProblemCheck,
    reporter: &mut dyn Reporter,
) -> Option<Checker> {
    let checker = match engine.prepare_checker(problem) {
        Ok(c) => c,
        Err(e) => {
            check.findings.push(Finding::broken(e.to_string()));
            return None;
        }
    };
    if problem.dir.join("checker_tests.toml").is_file() {
        step(
            reporter,
            id,
            "Checking",
            "the checker against checker_tests.toml",
        );
    }
    check
        .findings
        .extend(run_checker_tests(engine, problem, &checker));
    check.findings.extend(
        crate::engine::interactive::check_samples(engine, problem, &checker)
            .into_iter()
            .map(Finding::failed),
    );
    Some(checker)
}

/// `problem_finished`; `loaded` is the package as judged (its time limit maybe derived), if it
/// loaded.
fn finished(
    reporter: &mut dyn Reporter,
    problem: String,
    check: &ProblemCheck,
    loaded: Option<&Problem>,
) {
    let package = PackageInfo {
        format: loaded
            .map(|p| p.format)
            .or_else(|| crate::package::Format::detect(&check.dir))
            .map(|f| f.name().to_string()),
        time_limit_ms: loaded.map(|p| p.limits.time),
        time_limit_source: loaded.map(|p| p.origin.time.clone()),
    };
    reporter.event(&Event::ProblemFinished {
        problem,
        findings: check.findings.clone(),
        advice: check.advice.clone(),
        judge_errors: check.judge_errors(),
        failures: check.failures(),
        package: Some(package),
    });
}

mod checks;
mod derive;
mod solutions;

use checks::run_checker_tests;
pub use checks::validate_tests;
use derive::Deriving;
pub use solutions::marked_score;
use solutions::{solution_check, submissions, time_advice};

#[cfg(test)]
mod tests;
