//! `judge run <PROBLEM> <SOURCE> [--json] [--all]`.

use super::{exit, Session};
use crate::package::{self, Problem};
use crate::report::{self, human, json};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    /// The solution's source file (.cpp .cc .c .rs .py), or a folder holding a multi-file one.
    source: PathBuf,
    /// Print one JSON object on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Run every test instead of stopping at the first failure.
    #[arg(long)]
    all: bool,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut problem = Problem::load(&dir)?;
    for warning in &problem.warnings {
        crate::errln!("warning: {warning}");
    }
    if !args.source.is_file() && !args.source.is_dir() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file (or of a folder holding a multi-file solution)",
            args.source.display()
        );
    }
    let mut session = Session::new(languages)?;
    let engine = &mut session.engine;
    if !args.json {
        super::warn_isolation(&engine.sandbox);
    }
    if problem
        .tests
        .iter()
        .any(|t| t.generate.is_some() || t.answer_missing)
    {
        crate::errln!("note: the package lacks some tests or answers: making them first");
    }
    for note in crate::setter::rebuild::rebuild_missing(engine, &mut problem, &mut |_, _| {})? {
        crate::errln!("note: {note}");
    }
    let checker = engine.prepare_checker(&problem)?;
    if problem.time_rule.is_some() {
        // The package states no time limit: measure its accepted solutions (Kattis' rule).
        let derived = crate::setter::time_limit::derive(engine, &problem, &checker)?;
        for note in &derived.notes {
            crate::errln!("note: {note}");
        }
        match derived.limit {
            Some((limit, why)) => {
                problem.limits.time = limit;
                problem.limits.wall = limit * 3 + std::time::Duration::from_secs(1);
                problem.origin.time = why;
            }
            None => {
                problem.origin.time = format!(
                    "default {} s (no accepted submission could be measured)",
                    problem.limits.time.as_secs_f64()
                )
            }
        }
        crate::errln!(
            "note: time limit {}: {}",
            report::secs(problem.limits.time),
            problem.origin.time
        );
    }
    let options = crate::judge::JudgeOptions { all: args.all };
    let stdout = std::io::stdout();
    let report = if args.json {
        engine.judge(
            &problem,
            &checker,
            &args.source,
            options,
            &mut crate::judge::Silent,
        )?
    } else {
        let colour = report::use_colour(&stdout);
        let status_colour = report::use_colour(&std::io::stderr());
        let mut table = human::TableReporter::new(
            crate::report::stream::stdout(),
            colour,
            status_colour,
            &problem.tests,
        );
        engine.judge(&problem, &checker, &args.source, options, &mut table)?
    };
    if args.json {
        crate::outln!(
            "{}",
            json::run_document(
                &problem.slug,
                &args.source.to_string_lossy(),
                engine.sandbox.level(),
                &report
            )
        );
    } else {
        crate::out!(
            "{}",
            human::render_summary(&report, problem.tests.len(), report::use_colour(&stdout))
        );
    }
    Ok(exit::for_verdict(report.verdict))
}
