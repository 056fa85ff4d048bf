//! `judge run <PROBLEM> <SOURCE> [--all] [--test NAME]... [--transcript] [--show-output] [--format human|json|jsonl|junit]`.

use super::{exit, Session};
use judge_core::engine::JudgeOptions;
use judge_core::judging;
use judge_core::package::{self, Problem};
use judge_core::setter::prepare::{prepare, Request};
use judge_model::event::Event;
use judge_model::Verdict;
use judge_report as report;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    /// The solution's source file (.cpp .cc .c .rs .py .java), or a folder holding a multi-file one.
    source: PathBuf,
    /// Run every test instead of stopping at the first failure.
    #[arg(long)]
    all: bool,
    /// Judge only this test (its name without .in); repeat it, or give a quoted pattern with
    /// * ? [abc] (`--test 'sample*'`).
    #[arg(long = "test", value_name = "NAME")]
    tests: Vec<String>,
    /// Interactive problems: relay the exchange through the judge and show it for the failing
    /// test (its first lines, `<` judge to solution, `>` solution to judge).
    #[arg(long)]
    transcript: bool,
    /// Show what the failing test's program printed (its output and stderr, 4 KiB each) under
    /// its diff. A runtime error's last lines of stderr are shown without it.
    #[arg(long)]
    show_output: bool,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let problem = Problem::load(&dir)?;
    // The selection is checked before anything starts (and sizes the jobs); `prepare` applies it.
    let selected = package::select_tests(&problem.dir, &problem.tests, &args.tests)?.len();
    if !args.source.is_file() && !args.source.is_dir() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file (or of a folder holding a multi-file solution)",
            args.source.display()
        );
    }
    let mut reporter =
        report::reporter_showing(args.format.pick(), report::Command::Run, args.show_output);
    // Without --all, one job unless asked: the run stops at the first failure, so tests judged
    // ahead would mostly be thrown away, and a TLE judged beside them would be judged again
    // alone (the verdict comes at the limit, not at twice the limit). More jobs than tests
    // would only start idle workers.
    let wanted = if args.all {
        args.jobs.count()
    } else {
        args.jobs.given().unwrap_or(1)
    };
    let jobs = wanted.min(selected).max(1);
    let mut session = Session::with_jobs(languages, jobs)?;
    super::started(&mut *reporter, "run", &session.engine.sandbox);
    let request = Request {
        tests: args.tests.clone(),
        transcript: args.transcript,
    };
    let mut engines = session.engines();
    let prepared = prepare(
        &mut engines,
        problem,
        &request,
        &args.source,
        &mut *reporter,
    )?;
    let options = JudgeOptions {
        all: args.all,
        ..Default::default()
    };
    let report = judging::judge_one(
        &mut engines,
        &prepared,
        &args.source,
        options,
        &mut *reporter,
    )?;
    let code = exit::for_verdict(report.verdict);
    let rejected = report.verdict != Verdict::AC && report.verdict != Verdict::JE;
    reporter.event(&Event::ProblemFinished {
        problem: prepared.problem.slug.clone(),
        findings: Vec::new(),
        advice: None,
        judge_errors: usize::from(report.verdict == Verdict::JE),
        failures: usize::from(rejected),
        package: None,
    });
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}
