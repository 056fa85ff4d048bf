//! `judge run <PROBLEM> <SOURCE> [--all] [--test NAME]... [--format human|json|jsonl|junit]`.

use super::{exit, Session};
use crate::event::{Event, Reporter};
use crate::package::{self, Problem};
use crate::report;
use crate::verdict::Verdict;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    /// The solution's source file (.cpp .cc .c .rs .py).
    source: PathBuf,
    /// Run every test instead of stopping at the first failure.
    #[arg(long)]
    all: bool,
    /// Judge only this test (its name without .in); repeat it, or give a quoted pattern with
    /// * ? [abc] (`--test 'sample*'`).
    #[arg(long = "test", value_name = "NAME")]
    tests: Vec<String>,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut problem = Problem::load(&dir)?;
    let total = problem.tests.len();
    problem.tests = package::select_tests(&problem.dir, &problem.tests, &args.tests)?;
    if !args.source.is_file() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file",
            args.source.display()
        );
    }
    let mut reporter = report::reporter(args.format.pick(), report::Command::Run)?;
    // More jobs than tests would only start idle workers.
    let jobs = args.jobs.count().min(problem.tests.len()).max(1);
    let mut session = Session::with_jobs(languages, jobs)?;
    super::started(&mut *reporter, "run", &session.engine.sandbox);
    if problem.tests.len() < total {
        reporter.event(&Event::Note {
            problem: Some(problem.slug.clone()),
            message: format!(
                "judging {} of {total} tests (--test); the verdict is for these only",
                problem.tests.len()
            ),
        });
    }
    reporter.event(&Event::problem_started(&problem));
    let checker = session.engine.prepare_checker(&problem)?;
    let options = crate::engine::JudgeOptions {
        all: args.all,
        expected: None,
        alone: false,
    };
    let report = if jobs > 1 {
        crate::jobs::judge_spread(
            &mut session.engines(),
            &problem,
            &checker,
            &args.source,
            options,
            &mut *reporter,
        )?
    } else {
        session
            .engine
            .judge(&problem, &checker, &args.source, options, &mut *reporter)?
    };
    let code = exit::for_verdict(report.verdict);
    let rejected = report.verdict != Verdict::AC && report.verdict != Verdict::JE;
    reporter.event(&Event::ProblemFinished {
        problem: problem.slug.clone(),
        findings: Vec::new(),
        advice: None,
        judge_errors: usize::from(report.verdict == Verdict::JE),
        failures: usize::from(rejected),
    });
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}
