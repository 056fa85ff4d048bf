//! `judge verify [PROBLEM...]`: every problem under ./problems by default.

use super::{exit, Session};
use judge_core::package;
use judge_core::setter::verify::{self, ProblemCheck};
use judge_model::event::{Event, Reporter};
use judge_report as report;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problems to verify (directories or slugs under ./problems); default: all of ./problems.
    problems: Vec<String>,
    #[command(flatten)]
    gen: super::gen::GenArgs,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
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
    let mut reporter = report::reporter(args.format.pick(), report::Command::Verify);
    let mut session = Session::with_jobs(languages, args.jobs.count())?;
    super::started(&mut *reporter, "verify", &session.engine.sandbox);
    let options = verify::VerifyOptions {
        gen: args.gen.options(),
    };
    let mut checks = Vec::new();
    for dir in &dirs {
        checks.push(verify::verify_problem(
            &mut session.engines(),
            dir,
            &options,
            &mut *reporter,
        ));
    }
    let errors: usize = checks.iter().map(ProblemCheck::judge_errors).sum();
    let failures: usize = checks.iter().map(ProblemCheck::failures).sum();
    let code = exit::for_findings(errors, failures);
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}
