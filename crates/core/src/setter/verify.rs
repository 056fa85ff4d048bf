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
    let marked_scores = expected_scores(&problem, &solutions, &id, &mut check, reporter);
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
    if let (Some(checker), true) = (&checker, problem.derive_time) {
        derive_time_limit(engines[0], &mut problem, checker, &id, &mut check, reporter);
    }
    if let Some(checker) = &checker {
        let submissions = submissions(&problem, &solutions, &marked_scores, &id);
        let outcomes = judging::judge(engines, (&problem, checker), &submissions, &mut *reporter);
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
/// format, over the package's own), with a note when the package's grader is not run.
fn expected_scores(
    problem: &Problem,
    solutions: &[(PathBuf, Vec<Verdict>)],
    id: &str,
    check: &mut ProblemCheck,
    reporter: &mut dyn Reporter,
) -> Vec<(PathBuf, judge_model::score::Expected)> {
    if problem
        .scoring
        .as_ref()
        .is_some_and(crate::score::Scoring::grader_not_run)
        && problem.solutions.iter().any(|s| s.score.is_some())
    {
        note(reporter, id, "the package's custom grader is not run, so the scores shown are the default grader's (capped at each range) and the scores its submissions expect are not checked".into());
    }
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
    progress("Checking", "that generated tests are up to date");
    match recipe {
        Ok(recipe) => findings.extend(crate::setter::gen::stale_tests(
            engines,
            &builds,
            problem,
            &recipe,
            reference,
            &options.gen,
            &progress,
        )),
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
    step(
        reporter,
        id,
        "Checking",
        "the checker against checker_tests.toml",
    );
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

/// No time limit in the package: the accepted solutions give it (Kattis' rule).
fn derive_time_limit(
    engine: &mut Engine,
    problem: &mut Problem,
    checker: &Checker,
    id: &str,
    check: &mut ProblemCheck,
    reporter: &mut dyn Reporter,
) {
    step(
        reporter,
        id,
        "Deriving",
        "the time limit from the accepted solutions",
    );
    match crate::setter::time_limit::derive(engine, problem, checker, false) {
        Ok(derived) => {
            for message in derived.notes {
                note(reporter, id, message);
            }
            if let Some((limit, why)) = derived.limit {
                problem.limits.time = limit;
                problem.limits.wall = limit * 3 + Duration::from_secs(1);
                problem.origin.time = why;
                let message = format!(
                    "time limit {}: {}",
                    judge_model::units::secs(problem.limits.time),
                    problem.origin.time
                );
                note(reporter, id, message);
            }
        }
        Err(e) => check.findings.push(Finding::broken(e.to_string())),
    }
}

/// Each solution as a submission with what the package expects of it. Every test of every
/// solution is a piece of work for whichever job is free; a solution expected to run out of time
/// runs each test alone (`JudgeOptions::alone`), as its TLE would be judged again alone anyway.
fn submissions(
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
                    alone: expected == Verdict::TLE,
                    score: marked_scores
                        .iter()
                        .find(|(p, _)| p == path)
                        .map(|(_, s)| *s)
                        .or_else(|| expected_score(problem, path)),
                    rules: package_rules(problem, path),
                    permitted: declared.and_then(|s| s.permitted.clone()),
                },
                skip,
            }
        })
        .collect()
}

/// What happened to one solution, against what its package expects.
fn solution_check(
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
fn package_rules(problem: &Problem, path: &Path) -> Vec<crate::package::TestRule> {
    problem
        .solutions
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.rules.clone())
        .unwrap_or_default()
}

/// The score the package expects of its solution `path` (a scored problem only).
fn expected_score(problem: &Problem, path: &Path) -> Option<judge_model::score::Expected> {
    if problem.scoring.as_ref()?.grader_not_run() {
        return None;
    }
    problem
        .solutions
        .iter()
        .find(|s| s.path == path)
        .and_then(|s| s.score)
}

/// A source written for a language the table does not have although its extension matches one
/// it has: a `.py` file whose `#!` line asks for Python 2 (Kattis packages keep such submissions).
fn other_dialect(path: &Path, declared: Option<&str>) -> Option<String> {
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

/// Runs the validator on every test: one finding per invalid test (a failed expectation) and per
/// crash of the validator (a judge error). After the validator runs out of time once, the other
/// tests are not validated (each would cost the whole limit). The tests are spread over the
/// engines; the findings are those of one engine going through them in order.
pub fn validate_tests(
    engines: &mut [&mut Engine],
    builds: &Builds,
    problem: &Problem,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for program in &problem.validators {
        findings.extend(validate_with(engines, builds, problem, program, progress));
    }
    findings
}

/// Runs one validator of the package on every test.
fn validate_with(
    engines: &mut [&mut Engine],
    builds: &Builds,
    problem: &Problem,
    program: &crate::package::Program,
    progress: &(dyn Fn(&str, &str) + Sync),
) -> Vec<Finding> {
    let validator = &program.source;
    let name = validator
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    // A validator with helper files (testlib.h) or a Kattis package's constants is built with
    // them; a plain one once per session.
    let built = if program.helpers.is_empty() && problem.constants.is_empty() {
        builds.get(engines[0], validator, "validator")
    } else {
        match engines[0].build_program_with(program, &problem.constants) {
            Ok((Some(a), _)) => Ok(a),
            Ok((None, report)) => Err(SetterError::Other(format!(
                "{}: the validator does not compile:\n{}",
                validator.display(),
                report.message
            ))),
            Err(e) => Err(SetterError::Other(format!("{}: {e}", validator.display()))),
        }
    };
    let artifact = match built {
        Ok(a) => a,
        Err(SetterError::Other(message)) => return vec![Finding::broken(message)],
        Err(e) => return vec![Finding::broken(format!("{}: {e}", validator.display()))],
    };
    let count = problem.tests.len();
    // The first test the validator ran out of time on: later ones are not started.
    let timed_out_at = AtomicUsize::new(usize::MAX);
    let validate = |engine: &mut Engine, i: usize| {
        let test = &problem.tests[i];
        progress("Validating", &format!("{} ({}/{count})", test.name, i + 1));
        let result = validate_input_with(
            engine,
            &artifact,
            validator,
            &test.input,
            &test.validator_args,
            program.protocol,
        );
        if let Err(NotValid::Crashed(f)) = &result {
            if f.timed_out {
                timed_out_at.fetch_min(i, Ordering::SeqCst);
            }
        }
        result
    };
    let stop = |i: usize| i > timed_out_at.load(Ordering::SeqCst);
    let results = spread(engines, count, &stop, &validate);
    let mut findings = Vec::new();
    for (i, (test, result)) in problem.tests.iter().zip(results).enumerate() {
        let Some(result) = result else { break };
        match result {
            Ok(()) => {}
            Err(NotValid::Rejected(why)) => findings.push(Finding::failed(format!(
                "{}: invalid test (rejected by {name}): {why}",
                test.input.display()
            ))),
            Err(NotValid::Crashed(f)) => {
                findings.push(Finding::broken(format!(
                    "{}: {}\n  hint: fix the validator: {VALIDATOR_RULE}",
                    test.input.display(),
                    f.render(&name)
                )));
                if f.timed_out && i + 1 < count {
                    findings.push(Finding::broken(format!(
                        "{}: not run on the other {} test(s) after it exceeded its time limit",
                        validator.display(),
                        count - i - 1
                    )));
                    break;
                }
            }
        }
    }
    findings
}

/// Runs `checker_tests.toml`: one finding per case the checker judges otherwise (a failed
/// expectation) or fails on (a judge error).
fn run_checker_tests(engine: &mut Engine, problem: &Problem, checker: &Checker) -> Vec<Finding> {
    let names: Vec<&str> = problem.tests.iter().map(|t| t.name.as_str()).collect();
    let cases = match recipe::load_checker_tests(&problem.dir, &names) {
        Ok(c) => c,
        Err(e) => return vec![Finding::broken(e.to_string())],
    };
    let mut errors = Vec::new();
    for case in cases {
        let test = problem
            .tests
            .iter()
            .find(|t| t.name == case.test)
            .expect("checked on load");
        let dir = match engine.fresh_dir("checker-test") {
            Ok(d) => d,
            Err(e) => return vec![Finding::broken(e.to_string())],
        };
        let output = dir.join("output");
        if let Err(e) = std::fs::write(&output, &case.output) {
            errors.push(Finding::broken(format!("{}: {e}", output.display())));
            continue;
        }
        let file = problem.dir.join("checker_tests.toml");
        match engine.check(checker, &test.input, &output, &test.answer) {
            Ok(o) => {
                let got = match o.judgement {
                    crate::checker::Judgement::Accepted => "AC",
                    crate::checker::Judgement::WrongAnswer => "WA",
                    crate::checker::Judgement::PresentationError => "PE",
                };
                if got != case.expect {
                    errors.push(Finding::failed(format!(
                        "{}: checker test `{}` expects {} but the checker said {got}",
                        file.display(),
                        case.name,
                        case.expect
                    )));
                }
            }
            Err(why) => errors.push(Finding::broken(format!(
                "{}: checker test `{}` expects {} but the checker failed: {why}",
                file.display(),
                case.name,
                case.expect
            ))),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    errors
}

fn time_advice(problem: &Problem, solutions: &[SolutionCheck]) -> TimeAdvice {
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

#[cfg(test)]
mod tests;
