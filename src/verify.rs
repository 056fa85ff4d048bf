//! `judge verify`: a problem is sound when its package loads, every test passes the validator,
//! generated tests are up to date, the checker passes its own tests, and every solution under
//! `solutions/<slug>/<expected>/` gets its expected verdict.

use crate::judge::{Checker, Engine, JudgeOptions, Reporter, SubmissionReport};
use crate::package::{natural_cmp, recipe, Problem, Protocol};
use crate::setter::gen::GenOptions;
use crate::setter::jury::{self, NotValid};
use crate::verdict::Verdict;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The validator's protocol, in one sentence for hints (the rule is in `setter::jury`).
pub const VALIDATOR_RULE: &str = "a validator accepts with exit 0 and rejects with another exit status (or a failed assertion), the reason on stderr; an uncaught exception, a panic or a signal is a crash";

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The package or a jury program is broken (a judge error): nothing built on it can be
    /// trusted.
    Broken,
    /// An expectation does not hold (an invalid or stale test, a checker test that disagrees).
    Failed,
}

/// Something wrong with a package, naming its file and what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub severity: Severity,
    pub message: String,
}

impl Finding {
    pub fn broken(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Broken,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Failed,
            message: message.into(),
        }
    }
}

/// One solution file and what happened to it.
#[derive(Debug, Clone)]
pub struct SolutionCheck {
    pub path: PathBuf,
    /// The first of `allowed` (the folder's verdict for a native package).
    pub expected: Verdict,
    /// Every final verdict the package allows (Kattis and Polygon packages may allow several).
    pub allowed: Vec<Verdict>,
    /// Why it was not judged although nothing is wrong (no toolchain for its language here).
    pub skipped: Option<String>,
    /// `None` when the solution could not be judged at all (see `error`).
    pub report: Option<SubmissionReport>,
    pub error: Option<String>,
}

impl SolutionCheck {
    /// The judge could not judge it (an error, or a JE verdict: the checker failed).
    pub fn judge_error(&self) -> bool {
        self.error.is_some()
            || self
                .report
                .as_ref()
                .is_some_and(|r| r.verdict == Verdict::JE)
    }

    /// The expectation holds: accepted means AC everywhere; otherwise the first failing verdict
    /// is one the package allows. A skipped solution holds nothing against the package.
    pub fn holds(&self) -> bool {
        self.skipped.is_some()
            || self
                .report
                .as_ref()
                .is_some_and(|r| self.allowed.contains(&r.verdict))
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

/// Progress of a verification.
pub trait VerifyReporter {
    fn step(&mut self, _what: &str) {}
    /// One step of a long check: `verb` ("Generating", "Validating") and what, with i/N.
    fn status(&mut self, _verb: &str, _what: &str) {}
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

/// Lists `<dir>/<expected>/<file>`, and names everything else in `<dir>` (each misnamed folder,
/// each stray file) with the valid folder names: those are not judged, every other solution is.
pub fn list_solutions(dir: &Path) -> (Vec<(PathBuf, Verdict)>, Vec<String>) {
    let mut out = Vec::new();
    let mut misplaced = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (out, misplaced),
        Err(e) => return (out, vec![format!("{}: cannot read: {e}", dir.display())]),
    };
    let valid: Vec<&str> = Verdict::ALL.iter().filter_map(|v| v.folder()).collect();
    let hint = format!("\n  hint: solutions go in one of: {}", valid.join(", "));
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
        if !folder.is_dir() {
            misplaced.push(format!(
                "{}: not in an expected-verdict folder, so not judged{hint}",
                folder.display()
            ));
            continue;
        }
        let Some(expected) = Verdict::from_folder(&name) else {
            let guess = match meant_folder(&name) {
                Some(f) => format!(" (did you mean `{f}`?)"),
                None => String::new(),
            };
            misplaced.push(format!(
                "{}: not an expected-verdict folder{guess}, so its solutions are not judged{hint}",
                folder.display()
            ));
            continue;
        };
        let files = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) => {
                misplaced.push(format!("{}: cannot read: {e}", folder.display()));
                continue;
            }
        };
        let mut files: Vec<PathBuf> = files
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
    (out, misplaced)
}

/// The expected-verdict folder a misnamed one probably means: `wrong` → `wrong_answer`,
/// `time_limit` → `time_limit_exceeded`, `tle` → `time_limit_exceeded`.
fn meant_folder(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    if let Some(f) = Verdict::from_code(&lower.to_ascii_uppercase()).and_then(Verdict::folder) {
        return Some(f);
    }
    let mut candidates = Verdict::ALL
        .iter()
        .filter_map(|v| v.folder())
        .filter(|f| lower.len() >= 2 && (f.starts_with(&lower) || lower.starts_with(f)));
    match (candidates.next(), candidates.next()) {
        (Some(f), None) => Some(f),
        _ => None,
    }
}

/// Verifies one package.
pub fn verify_problem(
    engine: &mut Engine,
    dir: &Path,
    options: &VerifyOptions,
    reporter: &mut dyn VerifyReporter,
) -> ProblemCheck {
    let mut check = ProblemCheck {
        dir: dir.to_path_buf(),
        problem: None,
        findings: Vec::new(),
        solutions: Vec::new(),
        advice: None,
    };
    let mut problem = match Problem::load(dir) {
        Ok(p) => p,
        Err(e) => {
            check.findings.push(Finding::broken(e.to_string()));
            return check;
        }
    };
    // Tests the package leaves out (Polygon without its full files) are made first.
    match crate::setter::rebuild::rebuild_missing(engine, &mut problem, &mut |verb, what| {
        reporter.status(verb, what)
    }) {
        Ok(notes) => {
            for note in notes {
                reporter.step(&note);
            }
        }
        Err(e) => {
            check.findings.push(Finding::broken(e.to_string()));
            return check;
        }
    }
    // A native package keeps its solutions in verdict folders; Kattis and Polygon packages list
    // theirs with the verdicts they allow.
    let solutions_dir = match problem.format {
        crate::package::Format::Native => solutions_dir(dir, &problem.slug),
        _ => dir.to_path_buf(),
    };
    let solutions: Vec<(PathBuf, Vec<Verdict>)> = match problem.format {
        crate::package::Format::Native => {
            let (solutions, misplaced) = list_solutions(&solutions_dir);
            check
                .findings
                .extend(misplaced.into_iter().map(Finding::broken));
            solutions.into_iter().map(|(p, v)| (p, vec![v])).collect()
        }
        _ => problem
            .solutions
            .iter()
            .map(|s| (s.path.clone(), s.expected.clone()))
            .collect(),
    };
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
    reporter.step("tests against the validator");
    check
        .findings
        .extend(validate_tests(engine, &problem, &mut |verb, what| {
            reporter.status(verb, what)
        }));
    reporter.step("that generated tests are up to date");
    match recipe::load_recipe(&problem.dir) {
        Ok(recipe) => check.findings.extend(crate::setter::gen::stale_tests(
            engine,
            &problem,
            &recipe,
            reference.as_deref(),
            &options.gen,
            &mut |verb, what| reporter.status(verb, what),
        )),
        Err(e) => check.findings.push(Finding::broken(e.to_string())),
    }
    let checker = match engine.prepare_checker(&problem) {
        Ok(c) => Some(c),
        Err(e) => {
            check.findings.push(Finding::broken(e.to_string()));
            None
        }
    };
    if let Some(checker) = &checker {
        reporter.step("the checker against checker_tests.toml");
        check
            .findings
            .extend(run_checker_tests(engine, &problem, checker));
    }
    if let (Some(checker), Some(_)) = (&checker, &problem.time_rule) {
        // No time limit in the package: the accepted solutions give it (Kattis' rule).
        reporter.step("the time limit from the accepted solutions");
        match crate::setter::time_limit::derive(engine, &problem, checker) {
            Ok(derived) => {
                if let Some((limit, why)) = derived.limit {
                    problem.limits.time = limit;
                    problem.limits.wall = limit * 3 + Duration::from_secs(1);
                    problem.origin.time = why;
                }
            }
            Err(e) => check.findings.push(Finding::broken(e.to_string())),
        }
    }
    if let Some(checker) = &checker {
        for (path, allowed) in solutions {
            reporter.solution_started(&path);
            if let Some(why) = other_dialect(&path) {
                let sc = SolutionCheck {
                    path,
                    expected: allowed.first().copied().unwrap_or(Verdict::AC),
                    allowed,
                    skipped: Some(why),
                    report: None,
                    error: None,
                };
                reporter.solution_finished(&sc);
                check.solutions.push(sc);
                continue;
            }
            let (report, error) = match engine.judge(
                &problem,
                checker,
                &path,
                JudgeOptions::default(),
                reporter.tests(),
            ) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e)),
            };
            // No toolchain for its language here: skipped with a note, not failed.
            let skipped = match &error {
                Some(crate::judge::EngineError::Build(crate::build::BuildError::Lang(e))) => {
                    Some(e.short())
                }
                _ => None,
            };
            let sc = SolutionCheck {
                path,
                expected: allowed.first().copied().unwrap_or(Verdict::AC),
                allowed,
                skipped: skipped.clone(),
                report,
                error: if skipped.is_some() {
                    None
                } else {
                    error.map(|e| e.to_string())
                },
            };
            reporter.solution_finished(&sc);
            check.solutions.push(sc);
        }
    }
    check.advice = Some(time_advice(&problem, &check.solutions));
    check.problem = Some(problem);
    check
}

/// A source written for a language the table does not have although its extension matches one
/// it has: a `.py` file whose `#!` line asks for Python 2 (Kattis packages keep such submissions).
fn other_dialect(path: &Path) -> Option<String> {
    if path.extension().is_none_or(|e| e != "py") {
        return None;
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

/// Runs the validator on every test: one finding per invalid test (a failed expectation) and per
/// crash of the validator (a judge error). After the validator runs out of time once, the other
/// tests are not validated (each would cost the whole limit).
pub fn validate_tests(
    engine: &mut Engine,
    problem: &Problem,
    progress: &mut dyn FnMut(&str, &str),
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for program in &problem.validators {
        findings.extend(validate_with(engine, problem, program, progress));
    }
    findings
}

/// Runs one validator of the package on every test.
fn validate_with(
    engine: &mut Engine,
    problem: &Problem,
    program: &crate::package::Program,
    progress: &mut dyn FnMut(&str, &str),
) -> Vec<Finding> {
    let validator = &program.source;
    let name = validator
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let artifact = match engine.build_program_with(program, &problem.constants) {
        Ok((Some(a), _)) => a,
        Ok((None, report)) => {
            return vec![Finding::broken(format!(
                "{}: the validator does not compile:\n{}",
                validator.display(),
                report.message
            ))]
        }
        Err(e) => return vec![Finding::broken(format!("{}: {e}", validator.display()))],
    };
    let mut findings = Vec::new();
    let count = problem.tests.len();
    for (i, test) in problem.tests.iter().enumerate() {
        progress("Validating", &format!("{} ({}/{count})", test.name, i + 1));
        match validate_input_with(
            engine,
            &artifact,
            validator,
            &test.input,
            &test.validator_args,
            program.protocol,
        ) {
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

/// Runs a validator built from `source` on one input (the rule is in `setter::jury`).
pub fn validate_input(
    engine: &mut Engine,
    validator: &crate::build::Artifact,
    source: &Path,
    input: &Path,
) -> Result<(), NotValid> {
    validate_input_with(engine, validator, source, input, &[], Protocol::Testlib)
}

/// [`validate_input`] with arguments (Kattis `input_validator_args`) and the validator's
/// protocol: a Kattis validator must exit 42 for a valid input (its exit 0 is a crash).
pub fn validate_input_with(
    engine: &mut Engine,
    validator: &crate::build::Artifact,
    source: &Path,
    input: &Path,
    args: &[String],
    protocol: Protocol,
) -> Result<(), NotValid> {
    let limits = crate::judge::checker_limits();
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let (run, out, err) = engine
        .execute(validator, &args, Some(input), &[], limits.clone())
        .map_err(|e| {
            NotValid::Crashed(jury::Failure {
                what: format!("could not be run: {e}"),
                tail: Vec::new(),
                timed_out: false,
            })
        })?;
    let stderr = jury::name_source(&jury::read_tail(&err, jury::STDERR_TAIL), validator, source);
    engine.recycle(out, err);
    let limited = run.cpu_limit_exceeded
        || run.wall_limit_exceeded
        || run.memory_limit_exceeded
        || run.output_limit_exceeded;
    if protocol == Protocol::Kattis
        && !limited
        && run.termination == crate::sandbox::Termination::Exited(0)
    {
        return Err(NotValid::Crashed(jury::Failure {
            what: "exited with 0, which is no answer: a Kattis input validator exits 42 for a valid input and 43 for an invalid one".into(),
            tail: Vec::new(),
            timed_out: false,
        }));
    }
    jury::validator_verdict(&run, &limits, &stderr)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misnamed_folder_gets_a_guess() {
        assert_eq!(meant_folder("wrong"), Some("wrong_answer"));
        assert_eq!(meant_folder("time_limit"), Some("time_limit_exceeded"));
        assert_eq!(meant_folder("TLE"), Some("time_limit_exceeded"));
        assert_eq!(meant_folder("ac"), Some("accepted"));
        assert_eq!(meant_folder("wrong-answer"), Some("wrong_answer"));
        assert_eq!(meant_folder("misc"), None);
        assert_eq!(meant_folder("je"), None);
    }

    #[test]
    fn every_misplaced_entry_is_named_and_the_rest_listed() {
        let dir = tempfile::tempdir().unwrap();
        for (folder, file) in [("accepted", "a.c"), ("wrong", "w.c"), ("tle", "t.c")] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::write(dir.path().join(folder).join(file), "").unwrap();
        }
        std::fs::write(dir.path().join("stray.c"), "").unwrap();
        let (solutions, misplaced) = list_solutions(dir.path());
        assert_eq!(solutions, [(dir.path().join("accepted/a.c"), Verdict::AC)]);
        assert_eq!(misplaced.len(), 3, "{misplaced:?}");
        assert!(misplaced[0].contains("stray.c: not in an expected-verdict folder"));
        assert!(misplaced[1]
            .contains("tle: not an expected-verdict folder (did you mean `time_limit_exceeded`?)"));
        assert!(misplaced[2]
            .contains("wrong: not an expected-verdict folder (did you mean `wrong_answer`?)"));
    }
}
