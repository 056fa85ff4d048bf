//! `judge verify`: a problem is sound when its package loads, every test passes the validator,
//! generated tests are up to date, the checker passes its own tests, and every solution under
//! `solutions/<slug>/<expected>/` gets its expected verdict.

use crate::judge::{Checker, Engine, JudgeOptions, Reporter, SubmissionReport};
use crate::package::{natural_cmp, recipe, Problem};
use crate::verdict::Verdict;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One solution file and what happened to it.
#[derive(Debug, Clone)]
pub struct SolutionCheck {
    pub path: PathBuf,
    pub expected: Verdict,
    /// `None` when the solution could not be judged at all (see `error`).
    pub report: Option<SubmissionReport>,
    pub error: Option<String>,
}

impl SolutionCheck {
    /// The expectation holds: accepted means AC everywhere; otherwise the first failing verdict.
    pub fn holds(&self) -> bool {
        self.report
            .as_ref()
            .is_some_and(|r| r.verdict == self.expected)
    }
}

/// Time-limit advice from the measured times.
#[derive(Debug, Clone)]
pub struct TimeAdvice {
    pub limit: Duration,
    pub slowest_accepted: Option<(Duration, PathBuf)>,
    /// Fastest test that a time_limit_exceeded solution was killed on (at least the limit).
    pub fastest_tle: Option<(Duration, PathBuf)>,
    /// The Kattis rule: slowest accepted x 2, rounded up to 0.1 s.
    pub kattis_limit: Option<Duration>,
    /// Solutions whose verdict would change within a factor 1.5 of the limit, with the evidence.
    pub warnings: Vec<String>,
}

/// Everything `verify` found about one problem.
#[derive(Debug, Clone)]
pub struct ProblemCheck {
    pub dir: PathBuf,
    pub problem: Option<Problem>,
    /// Problems with the package itself (each names its file and what to do).
    pub errors: Vec<String>,
    pub solutions: Vec<SolutionCheck>,
    pub advice: Option<TimeAdvice>,
}

impl ProblemCheck {
    pub fn ok(&self) -> bool {
        self.errors.is_empty() && self.solutions.iter().all(SolutionCheck::holds)
    }
}

/// Progress of a verification.
pub trait VerifyReporter {
    fn step(&mut self, _what: &str) {}
    fn solution_started(&mut self, _path: &Path) {}
    fn solution_finished(&mut self, _check: &SolutionCheck) {}
    /// Reporter for the tests of one solution.
    fn tests(&mut self) -> &mut dyn Reporter;
}

/// Where the solutions of a package live: `<package>/solutions/` when it exists, otherwise
/// `solutions/<slug>/` beside the `problems/` folder that holds the package.
pub fn solutions_dir(problem_dir: &Path, slug: &str) -> PathBuf {
    let own = problem_dir.join("solutions");
    if own.is_dir() {
        return own;
    }
    let root = problem_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    root.join("solutions").join(slug)
}

/// Lists `<dir>/<expected>/<file>`; unknown folders are errors.
pub fn list_solutions(dir: &Path) -> Result<Vec<(PathBuf, Verdict)>, String> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(format!("{}: cannot read: {e}", dir.display())),
    };
    let mut folders: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    folders.sort();
    for folder in folders {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Some(expected) = folder
            .is_dir()
            .then(|| Verdict::from_folder(&name))
            .flatten()
        else {
            let names: Vec<&str> = Verdict::ALL.iter().filter_map(|v| v.folder()).collect();
            return Err(format!(
                "{}: not an expected-verdict folder\n  hint: solutions go in one of: {}",
                folder.display(),
                names.join(", ")
            ));
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .map_err(|e| format!("{}: cannot read: {e}", folder.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        files.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
        out.extend(files.into_iter().map(|f| (f, expected)));
    }
    Ok(out)
}

/// Verifies one package.
pub fn verify_problem(
    engine: &mut Engine,
    dir: &Path,
    reporter: &mut dyn VerifyReporter,
) -> ProblemCheck {
    let mut check = ProblemCheck {
        dir: dir.to_path_buf(),
        problem: None,
        errors: Vec::new(),
        solutions: Vec::new(),
        advice: None,
    };
    let problem = match Problem::load(dir) {
        Ok(p) => p,
        Err(e) => {
            check.errors.push(e.to_string());
            return check;
        }
    };
    reporter.step("tests against the validator");
    check.errors.extend(validate_tests(engine, &problem));
    reporter.step("that generated tests are up to date");
    check
        .errors
        .extend(crate::setter::gen::stale_tests(engine, &problem));
    let checker = match engine.prepare_checker(&problem) {
        Ok(c) => Some(c),
        Err(e) => {
            check.errors.push(e.to_string());
            None
        }
    };
    if let Some(checker) = &checker {
        reporter.step("the checker against checker_tests.toml");
        check
            .errors
            .extend(run_checker_tests(engine, &problem, checker));
    }
    let solutions = match list_solutions(&solutions_dir(dir, &problem.slug)) {
        Ok(s) => s,
        Err(e) => {
            check.errors.push(e);
            Vec::new()
        }
    };
    if !solutions.iter().any(|(_, v)| *v == Verdict::AC) {
        check.errors.push(format!(
            "{}: no reference solution\n  hint: put at least one solution in accepted/",
            solutions_dir(dir, &problem.slug).display()
        ));
    }
    if let Some(checker) = &checker {
        for (path, expected) in solutions {
            reporter.solution_started(&path);
            let (report, error) = match engine.judge(
                &problem,
                checker,
                &path,
                JudgeOptions::default(),
                reporter.tests(),
            ) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e.to_string())),
            };
            let sc = SolutionCheck {
                path,
                expected,
                report,
                error,
            };
            reporter.solution_finished(&sc);
            check.solutions.push(sc);
        }
    }
    check.advice = Some(time_advice(&problem, &check.solutions));
    check.problem = Some(problem);
    check
}

/// Runs the validator on every test; returns one error per invalid test.
pub fn validate_tests(engine: &mut Engine, problem: &Problem) -> Vec<String> {
    let Some(validator) = &problem.validator else {
        return Vec::new();
    };
    let artifact = match engine.build(validator) {
        Ok((Some(a), _)) => a,
        Ok((None, report)) => {
            return vec![format!(
                "{}: the validator does not compile:\n{}",
                validator.display(),
                report.message
            )]
        }
        Err(e) => return vec![format!("{}: {e}", validator.display())],
    };
    let mut errors = Vec::new();
    for test in &problem.tests {
        match validate_input(engine, &artifact, &test.input) {
            Ok(()) => {}
            Err(why) => errors.push(format!(
                "{}: invalid test (rejected by {}): {why}",
                test.input.display(),
                validator.file_name().unwrap_or_default().to_string_lossy()
            )),
        }
    }
    errors
}

/// Runs a built validator on one input: `Err(reason)` when it rejects it.
pub fn validate_input(
    engine: &mut Engine,
    validator: &crate::build::Artifact,
    input: &Path,
) -> Result<(), String> {
    let (run, out, err) = engine
        .execute(
            validator,
            &[],
            Some(input),
            &[],
            crate::judge::checker_limits(),
        )
        .map_err(|e| format!("could not run the validator: {e}"))?;
    let reason = crate::build::read_capped(&err, 2000);
    let _ = (std::fs::remove_file(&out), std::fs::remove_file(&err));
    match run.termination {
        crate::sandbox::Termination::Exited(0)
            if !run.cpu_limit_exceeded && !run.wall_limit_exceeded =>
        {
            Ok(())
        }
        t => {
            let reason = reason.trim();
            Err(if reason.is_empty() {
                format!("validator {}", crate::verdict::termination_text(t))
            } else {
                reason.lines().next().unwrap_or(reason).to_string()
            })
        }
    }
}

/// Runs `checker_tests.toml`; returns one error per failing case.
fn run_checker_tests(engine: &mut Engine, problem: &Problem, checker: &Checker) -> Vec<String> {
    let names: Vec<&str> = problem.tests.iter().map(|t| t.name.as_str()).collect();
    let cases = match recipe::load_checker_tests(&problem.dir, &names) {
        Ok(c) => c,
        Err(e) => return vec![e.to_string()],
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
            Err(e) => return vec![e.to_string()],
        };
        let output = dir.join("output");
        if let Err(e) = std::fs::write(&output, &case.output) {
            errors.push(format!("{}: {e}", output.display()));
            continue;
        }
        let got = match engine.check(checker, &test.input, &output, &test.answer) {
            Ok(o) => match o.judgement {
                crate::checker::Judgement::Accepted => "AC",
                crate::checker::Judgement::WrongAnswer => "WA",
                crate::checker::Judgement::PresentationError => "PE",
            }
            .to_string(),
            Err(why) => format!("JE ({why})"),
        };
        if got != case.expect {
            errors.push(format!(
                "{}: checker test `{}` expects {} but the checker said {got}",
                problem.dir.join("checker_tests.toml").display(),
                case.name,
                case.expect
            ));
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
        warnings: Vec::new(),
    };
    for s in solutions {
        let Some(r) = &s.report else { continue };
        if r.verdict == Verdict::AC {
            let t = r.max_time();
            if advice
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
        let tenths = (t.as_secs_f64() * 2.0 * 10.0).ceil().max(1.0);
        advice.kattis_limit = Some(Duration::from_secs_f64(tenths / 10.0));
    }
    advice
}
