//! The human report of `judge verify`: status lines and a progress line on stderr while it
//! works, one block per problem on stdout when the problem is done (findings, a table of
//! solutions with expected and obtained verdicts, time-limit advice), and a closing verdict.

use super::human::{Out, StatusLines, TICK};
use judge_model::event::{Event, Reporter};
use judge_model::finding::SolutionCheck;
use judge_model::finding::TimeAdvice;
use judge_model::finding::{Finding, Severity};
use judge_model::paint::Paint;
use judge_model::units::{mib, secs};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the report knows of one problem, gathered from its events.
#[derive(Default)]
struct ProblemView {
    problem: String,
    dir: String,
    name: String,
    loaded: bool,
    tests: usize,
    time_limit: Duration,
    memory_limit_kib: u64,
    findings: Vec<Finding>,
    solutions: Vec<SolutionCheck>,
    advice: Option<TimeAdvice>,
}

impl ProblemView {
    fn ok(&self) -> bool {
        self.findings.is_empty() && self.solutions.iter().all(SolutionCheck::holds)
    }
}

/// The human reporter of `judge verify`.
pub struct VerifyTable {
    out: Out,
    err: StatusLines,
    paint: Paint,
    current: Option<ProblemView>,
    done: Vec<ProblemView>,
    judge_errors: usize,
    failures: usize,
}

impl VerifyTable {
    /// `colour` for stdout, `status_colour` for stderr, `progress` when stderr is a terminal.
    pub fn new(out: Out, err: Out, colour: bool, status_colour: bool, progress: bool) -> Self {
        VerifyTable {
            out,
            err: StatusLines::new(err, Paint { on: status_colour }, progress),
            paint: Paint { on: colour },
            current: None,
            done: Vec::new(),
            judge_errors: 0,
            failures: 0,
        }
    }

    /// Redraws the progress line every so often while a test runs.
    pub fn ticking(mut self) -> Self {
        self.err = self.err.ticking(TICK);
        self
    }

    fn status(&mut self, verb: &str, rest: &str) {
        self.err.status(verb, rest);
    }

    fn closing(&mut self) {
        let paint = &self.paint;
        let failed: Vec<&ProblemView> = self.done.iter().filter(|c| !c.ok()).collect();
        let mut s = String::new();
        let skipped = self
            .done
            .iter()
            .flat_map(|p| &p.solutions)
            .filter(|s| s.skipped.is_some())
            .count();
        if failed.is_empty() && self.judge_errors == 0 && self.failures == 0 {
            // A skipped solution was not checked: the headline does not claim it holds.
            let verdict = if skipped == 0 {
                "every expectation holds".to_string()
            } else {
                format!(
                    "the expectations of the judged solutions hold; {skipped} solution(s) skipped, not checked"
                )
            };
            s.push_str(&format!(
                "\n{}\n",
                paint.verdict(
                    judge_model::Verdict::AC,
                    &format!("verified {} problem(s): {verdict}", self.done.len())
                )
            ));
        } else {
            let mut counts = Vec::new();
            if self.judge_errors > 0 {
                counts.push(format!("{} judge error(s)", self.judge_errors));
            }
            if self.failures > 0 {
                counts.push(format!("{} failed expectation(s)", self.failures));
            }
            let headline = format!("verification failed: {}:", counts.join(", "));
            let colour = if self.judge_errors > 0 {
                judge_model::Verdict::JE
            } else {
                judge_model::Verdict::WA
            };
            s.push_str(&format!("\n{}\n", paint.verdict(colour, &headline)));
            for c in &failed {
                for f in &c.findings {
                    s.push_str(&format!("  {}\n", render_finding(f)));
                }
                for sol in c.solutions.iter().filter(|s| !s.holds()) {
                    s.push_str(&format!("  {}\n", describe_failure(sol)));
                }
            }
        }
        let _ = write!(self.out, "{s}");
        let _ = self.out.flush();
    }
}

impl Reporter for VerifyTable {
    fn event(&mut self, e: &Event) {
        match e {
            Event::Warning { message, .. } => self.err.write(&format!("warning: {message}\n")),
            Event::Note { message, .. } => self.err.write(&format!("note: {message}\n")),
            Event::Rejudged { .. } => {
                let line = crate::human::rejudged(e);
                self.err.write(&format!("note: {line}\n"));
            }
            Event::ProblemStarted {
                problem,
                dir,
                name,
                tests,
                time_limit_ms,
                memory_limit_kib,
            } => {
                self.status("Verifying", dir);
                self.current = Some(ProblemView {
                    problem: problem.clone(),
                    dir: dir.clone(),
                    name: name.clone(),
                    loaded: !name.is_empty() || !tests.is_empty(),
                    tests: tests.len(),
                    time_limit: *time_limit_ms,
                    memory_limit_kib: *memory_limit_kib,
                    ..ProblemView::default()
                });
            }
            Event::Step { verb, what, .. } => self.status(verb, what),
            Event::CompileStarted { solution, .. } => self.status("Judging", solution),
            Event::CompileFinished { .. } => self.err.start_clock(),
            Event::TestStarted {
                solution, test, of, ..
            } => {
                let rest = format!("{solution}  test {}/{of} ({})", test.index, test.name);
                self.err.progress("Running", &rest);
            }
            Event::SolutionFinished {
                solution,
                expected,
                allowed,
                error,
                report,
                expected_score,
                rule_failures,
                ..
            } => {
                self.err.clear();
                if let Some(view) = &mut self.current {
                    let expected = expected.unwrap_or(judge_model::Verdict::AC);
                    view.solutions.push(SolutionCheck {
                        path: PathBuf::from(solution),
                        expected,
                        allowed: allowed_or(allowed, expected),
                        score: *expected_score,
                        rule_failures: rule_failures.clone(),
                        skipped: None,
                        report: report.clone(),
                        error: error.clone(),
                    });
                }
            }
            Event::SolutionSkipped {
                solution,
                expected,
                allowed,
                reason,
                ..
            } => {
                self.err.clear();
                if let Some(view) = &mut self.current {
                    let expected = expected.unwrap_or(judge_model::Verdict::AC);
                    view.solutions.push(SolutionCheck {
                        path: PathBuf::from(solution),
                        expected,
                        allowed: allowed_or(allowed, expected),
                        score: None,
                        rule_failures: Vec::new(),
                        skipped: Some(reason.clone()),
                        report: None,
                        error: None,
                    });
                }
            }
            Event::ProblemFinished {
                findings,
                advice,
                judge_errors,
                failures,
                ..
            } => {
                self.err.clear();
                let mut view = self.current.take().unwrap_or_default();
                view.findings = findings.clone();
                view.advice = advice.clone();
                if let Some(a) = advice {
                    // A limit derived while verifying (a package that states none).
                    view.time_limit = a.limit;
                }
                self.judge_errors += judge_errors;
                self.failures += failures;
                let block = render_problem(&view, &self.paint);
                let _ = write!(self.out, "{block}");
                let _ = self.out.flush();
                self.done.push(view);
            }
            Event::Finished { .. } => {
                self.err.clear();
                self.closing();
            }
            Event::Started { .. }
            | Event::TestFinished { .. }
            | Event::Generated { .. }
            | Event::StressFinished { .. } => {}
        }
    }
}

/// The verdicts a solution may get: `allowed` when the event lists several, else `expected`.
fn allowed_or(
    allowed: &[judge_model::Verdict],
    expected: judge_model::Verdict,
) -> Vec<judge_model::Verdict> {
    if allowed.is_empty() {
        vec![expected]
    } else {
        allowed.to_vec()
    }
}

/// "error: …" for a judge error, "failed: …" for a failed expectation; continuation lines indented.
fn render_finding(f: &Finding) -> String {
    let label = match f.severity {
        Severity::Broken => "error",
        Severity::Failed => "failed",
    };
    format!("{label}: {}", f.message.replace('\n', "\n  "))
}

fn describe_failure(s: &SolutionCheck) -> String {
    match (&s.report, &s.error) {
        (_, Some(e)) => format!("{}: could not be judged: {e}", s.path.display()),
        (Some(r), None) if r.verdict == judge_model::Verdict::JE => {
            // A test's judge error, else the group that made the score one (a grader's).
            let at = r
                .tests
                .iter()
                .find(|t| t.verdict == judge_model::Verdict::JE)
                .map(|t| format!(" on test {}: {}", t.name, t.message))
                .or_else(|| {
                    r.groups
                        .iter()
                        .find(|g| g.verdict == judge_model::Verdict::JE && g.note.is_some())
                        .map(|g| {
                            format!(" in group {}: {}", g.name, g.note.as_deref().unwrap_or(""))
                        })
                })
                .unwrap_or_default();
            format!("{}: judge error{at}", s.path.display())
        }
        (Some(r), None)
            if s.allowed.contains(&r.verdict) && judge_model::result::score_matches(s.score, r) =>
        {
            format!("{}: {}", s.path.display(), s.rule_failures.join("; "))
        }
        (Some(r), None) if s.allowed.contains(&r.verdict) => format!(
            "{}: expected {} but got score {}",
            s.path.display(),
            s.score.map(|e| e.describe()).unwrap_or_default(),
            show_score(r),
        ),
        (Some(r), None) => {
            let at = r
                .first_failure()
                .map(|t| format!(" on test {} ({})", t.name, t.message))
                .unwrap_or_default();
            format!(
                "{}: expected {} but got {}{at}",
                s.path.display(),
                s.allowed
                    .iter()
                    .map(|v| v.code())
                    .collect::<Vec<_>>()
                    .join(" or "),
                r.verdict.code()
            )
        }
        (None, None) => format!("{}: not judged", s.path.display()),
    }
}

/// "60 of 100" (a scored problem's total).
fn show_score(r: &judge_model::result::SubmissionReport) -> String {
    let total = judge_model::score::show(r.score.unwrap_or(0.0));
    match r.max_score {
        Some(m) => format!("{total} of {}", judge_model::score::show(m)),
        None => total,
    }
}

fn render_problem(c: &ProblemView, paint: &Paint) -> String {
    let mut s = String::new();
    let title = if c.loaded {
        format!("{} — {}", c.problem, c.name)
    } else {
        c.dir.clone()
    };
    s.push_str(&format!("\n{}\n", paint.bold(&title)));
    for f in &c.findings {
        s.push_str(&format!("  {}\n", render_finding(f)));
    }
    if !c.loaded {
        return s;
    }
    let limit = c.time_limit;
    s.push_str(&format!(
        "  {} tests, time limit {}, memory limit {}\n",
        c.tests,
        secs(limit),
        mib(c.memory_limit_kib * 1024)
    ));
    if c.solutions.is_empty() {
        return s;
    }
    let names: Vec<String> = c
        .solutions
        .iter()
        .map(|sol| {
            let folder = sol
                .path
                .parent()
                .and_then(Path::file_name)
                .unwrap_or_default()
                .to_string_lossy();
            let file = sol.path.file_name().unwrap_or_default().to_string_lossy();
            format!("{folder}/{file}")
        })
        .collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    let allowed = |sol: &SolutionCheck| {
        sol.allowed
            .iter()
            .map(|v| v.code())
            .collect::<Vec<_>>()
            .join("/")
    };
    let e = c
        .solutions
        .iter()
        .map(|sol| allowed(sol).len())
        .max()
        .unwrap_or(8)
        .max(8);
    s.push_str(&format!(
        "  {}\n",
        paint.bold(&format!(
            "{:<w$}  {:<e$}  {:<4}  {:>9}  {:>8}  {}",
            "solution", "expected", "got", "slowest", "margin", "first failure"
        ))
    ));
    for (sol, name) in c.solutions.iter().zip(&names) {
        let (got, slowest, margin, failure) = match &sol.report {
            Some(r) => {
                let t = r.max_time();
                let margin = if r.verdict == judge_model::Verdict::TLE {
                    "≥ limit".to_string()
                } else if t.is_zero() {
                    "-".to_string()
                } else {
                    format!("{:.1}x", limit.as_secs_f64() / t.as_secs_f64())
                };
                let failure = if r.verdict == judge_model::Verdict::CE {
                    compiler_error(&r.compile.message)
                } else {
                    r.first_failure()
                        .map(|f| format!("{} ({})", f.name, first_line(&f.message)))
                        .unwrap_or_else(|| format!("all {} tests passed", r.tests.len()))
                };
                let failure = match r.score {
                    Some(_) => format!("score {}; {failure}", show_score(r)),
                    None => failure,
                };
                (r.verdict.code().to_string(), secs(t), margin, failure)
            }
            None if sol.skipped.is_some() => (
                "skip".into(),
                "-".into(),
                "-".into(),
                format!("skipped: {}", sol.skipped.clone().unwrap_or_default()),
            ),
            None => (
                "JE".into(),
                "-".into(),
                "-".into(),
                sol.error.clone().unwrap_or_default(),
            ),
        };
        let got_painted = if sol.holds() {
            paint.verdict(judge_model::Verdict::AC, &format!("{got:<4}"))
        } else {
            paint.verdict(judge_model::Verdict::WA, &format!("{got:<4}"))
        };
        s.push_str(&format!(
            "  {:<w$}  {:<e$}  {}  {:>9}  {:>8}  {}\n",
            name,
            allowed(sol),
            got_painted,
            slowest,
            margin,
            first_line(&failure)
        ));
    }
    if let Some(a) = &c.advice {
        let mut line = String::from("  time limit: ");
        line.push_str(&format!("{} set", secs(a.limit)));
        if let Some((t, _)) = &a.slowest_accepted {
            line.push_str(&format!("; slowest accepted {}", secs(*t)));
        }
        if let Some((t, _)) = &a.fastest_tle {
            line.push_str(&format!("; fastest too-slow killed at {}", secs(*t)));
        }
        if let (Some(k), Some(rule)) = (a.kattis_limit, &a.rule) {
            line.push_str(&format!(
                "; {} x slowest accepted, rounded up to {} s ({}), gives {}",
                rule.multiplier,
                rule.resolution,
                rule.multiplier_key,
                secs(k)
            ));
        }
        s.push_str(&line);
        s.push('\n');
        for w in &a.warnings {
            s.push_str(&format!("  warning: {w}\n"));
        }
    }
    s
}

/// A compilation error's row: the compiler's first line that reports an error (else its first
/// line that says anything).
fn compiler_error(message: &str) -> String {
    let lines = || message.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| l.to_lowercase().contains("error"))
        .or_else(|| lines().next())
        .map(|l| format!("compilation error: {l}"))
        .unwrap_or_else(|| "compilation error".into())
}

fn first_line(text: &str) -> String {
    let l = text.lines().next().unwrap_or("");
    if l.chars().count() > 80 {
        format!("{}…", l.chars().take(80).collect::<String>())
    } else {
        l.to_string()
    }
}
