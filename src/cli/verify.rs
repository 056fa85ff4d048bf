//! `judge verify [PROBLEM...]`: every problem under ./problems by default.

use super::{exit, Session};
use crate::judge::{Reporter, Silent};
use crate::package;
use crate::report::{self, human::status, human::Paint, secs};
use crate::verify::{self, Finding, ProblemCheck, Severity, SolutionCheck, VerifyReporter};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problems to verify (directories or slugs under ./problems); default: all of ./problems.
    problems: Vec<String>,
    #[command(flatten)]
    gen: super::gen::GenArgs,
}

struct Progress {
    paint: Paint,
    silent: Silent,
}

impl VerifyReporter for Progress {
    fn step(&mut self, what: &str) {
        status(&self.paint, "Checking", what);
    }
    fn status(&mut self, verb: &str, what: &str) {
        status(&self.paint, verb, what);
    }
    fn solution_started(&mut self, path: &Path) {
        status(&self.paint, "Judging", &path.display().to_string());
    }
    fn tests(&mut self) -> &mut dyn Reporter {
        &mut self.silent
    }
}

pub fn run(args: Args, languages: Option<&Path>) -> anyhow::Result<i32> {
    let dirs: Vec<PathBuf> = if args.problems.is_empty() {
        let found = package::discover(Path::new("problems"))?;
        if found.is_empty() {
            anyhow::bail!("problems: no problem packages found\n  hint: run from the repository root, or name the problems");
        }
        found
    } else {
        args.problems
            .iter()
            .map(|p| package::locate(p))
            .collect::<Result<_, _>>()?
    };
    let mut session = Session::new(languages)?;
    super::warn_isolation(&session.engine.sandbox);
    let stdout = std::io::stdout();
    let paint = Paint {
        on: report::use_colour(&stdout),
    };
    let mut progress = Progress {
        paint: Paint {
            on: report::use_colour(&std::io::stderr()),
        },
        silent: Silent,
    };
    let options = verify::VerifyOptions {
        gen: args.gen.options(),
    };
    let mut checks = Vec::new();
    for dir in &dirs {
        status(&progress.paint, "Verifying", &dir.display().to_string());
        let check = verify::verify_problem(&mut session.engine, dir, &options, &mut progress);
        crate::out!("{}", render_problem(&check, &paint));
        checks.push(check);
    }
    let failed: Vec<&ProblemCheck> = checks.iter().filter(|c| !c.ok()).collect();
    let errors: usize = checks.iter().map(ProblemCheck::judge_errors).sum();
    let failures: usize = checks.iter().map(ProblemCheck::failures).sum();
    if failed.is_empty() {
        crate::outln!(
            "\n{}",
            paint.verdict(
                crate::verdict::Verdict::AC,
                &format!(
                    "verified {} problem(s): every expectation holds",
                    checks.len()
                )
            )
        );
    } else {
        let mut counts = Vec::new();
        if errors > 0 {
            counts.push(format!("{errors} judge error(s)"));
        }
        if failures > 0 {
            counts.push(format!("{failures} failed expectation(s)"));
        }
        let headline = format!("verification failed: {}:", counts.join(", "));
        let colour = if errors > 0 {
            crate::verdict::Verdict::JE
        } else {
            crate::verdict::Verdict::WA
        };
        crate::outln!("\n{}", paint.verdict(colour, &headline));
        for c in &failed {
            for f in &c.findings {
                crate::outln!("  {}", render_finding(f));
            }
            for s in c.solutions.iter().filter(|s| !s.holds()) {
                crate::outln!("  {}", describe_failure(s));
            }
        }
    }
    Ok(exit::for_findings(errors, failures))
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
        (Some(r), None) if r.verdict == crate::verdict::Verdict::JE => {
            let at = r
                .first_failure()
                .map(|t| format!(" on test {}: {}", t.name, t.message))
                .unwrap_or_default();
            format!("{}: judge error{at}", s.path.display())
        }
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

fn render_problem(c: &ProblemCheck, paint: &Paint) -> String {
    let mut s = String::new();
    let title = match &c.problem {
        Some(p) => format!("{} — {}", p.slug, p.name),
        None => c.dir.display().to_string(),
    };
    s.push_str(&format!("\n{}\n", paint.bold(&title)));
    for f in &c.findings {
        s.push_str(&format!("  {}\n", render_finding(f)));
    }
    let Some(problem) = &c.problem else { return s };
    let limit = problem.limits.time;
    s.push_str(&format!(
        "  {} tests, time limit {}, memory limit {}\n",
        problem.tests.len(),
        secs(limit),
        report::mib(problem.limits.memory)
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
                let margin = if r.verdict == crate::verdict::Verdict::TLE {
                    "≥ limit".to_string()
                } else if t.is_zero() {
                    "-".to_string()
                } else {
                    format!("{:.1}x", limit.as_secs_f64() / t.as_secs_f64())
                };
                let failure = r
                    .first_failure()
                    .map(|f| format!("{} ({})", f.name, first_line(&f.message)))
                    .unwrap_or_else(|| format!("all {} tests passed", r.tests.len()));
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
            paint.verdict(crate::verdict::Verdict::AC, &format!("{got:<4}"))
        } else {
            paint.verdict(crate::verdict::Verdict::WA, &format!("{got:<4}"))
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
        if let Some(k) = a.kattis_limit {
            line.push_str(&format!(
                "; Kattis rule (2 x slowest accepted) gives {}",
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

fn first_line(text: &str) -> String {
    let l = text.lines().next().unwrap_or("");
    if l.chars().count() > 80 {
        format!("{}…", l.chars().take(80).collect::<String>())
    } else {
        l.to_string()
    }
}
