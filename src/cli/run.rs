//! `judge run <PROBLEM> <SOURCE> [--all] [--test NAME]... [--transcript] [--format human|json|jsonl|junit]`.

use super::{exit, Session};
use judge_core::package::{self, Problem};
use judge_model::event::{Event, Reporter};
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
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut problem = Problem::load(&dir)?;
    let total = problem.tests.len();
    // The selection is checked now; it is applied once missing tests are made and a missing
    // time limit is derived (from every test).
    let selected: Vec<String> = package::select_tests(&problem.dir, &problem.tests, &args.tests)?
        .into_iter()
        .map(|t| t.name)
        .collect();
    if !args.source.is_file() && !args.source.is_dir() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file (or of a folder holding a multi-file solution)",
            args.source.display()
        );
    }
    let mut reporter = report::reporter(args.format.pick(), report::Command::Run)?;
    // Without --all, one job unless asked: the run stops at the first failure, so tests judged
    // ahead would mostly be thrown away, and a TLE judged beside them would be judged again
    // alone (the verdict comes at the limit, not at twice the limit). More jobs than tests
    // would only start idle workers.
    let wanted = if args.all {
        args.jobs.count()
    } else {
        args.jobs.given().unwrap_or(1)
    };
    let jobs = wanted.min(selected.len()).max(1);
    let mut session = Session::with_jobs(languages, jobs)?;
    super::started(&mut *reporter, "run", &session.engine.sandbox);
    for engine in session.engines() {
        problem.set_languages(&mut engine.languages);
    }
    let engine = &mut session.engine;
    for warning in &problem.warnings {
        reporter.event(&Event::Warning {
            problem: Some(problem.slug.clone()),
            message: warning.to_string(),
        });
    }
    if selected.len() < total {
        reporter.event(&Event::Note {
            problem: Some(problem.slug.clone()),
            message: format!(
                "judging {} of {total} tests (--test); the verdict is for these only",
                selected.len()
            ),
        });
    }
    let note = |reporter: &mut dyn Reporter, problem: &Problem, message: String| {
        reporter.event(&Event::Note {
            problem: Some(problem.slug.clone()),
            message,
        })
    };
    for message in engine.languages.fallback_notes([args.source.as_path()]) {
        note(&mut *reporter, &problem, message);
    }
    if problem
        .tests
        .iter()
        .any(|t| t.generate.is_some() || t.answer_missing)
    {
        note(
            &mut *reporter,
            &problem,
            "the package lacks some tests or answers: making them first".into(),
        );
    }
    for message in
        judge_core::setter::rebuild::rebuild_missing(engine, &mut problem, &mut |_, _| {})?
    {
        note(&mut *reporter, &problem, message);
    }
    let checker = engine.prepare_checker(&problem)?;
    if problem.derive_time {
        // The package states no time limit: measure its accepted solutions (Kattis' rule).
        let derived = judge_core::setter::time_limit::derive(engine, &problem, &checker, true)?;
        for message in derived.notes {
            note(&mut *reporter, &problem, message);
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
        let message = format!(
            "time limit {}: {}",
            judge_model::units::secs(problem.limits.time),
            problem.origin.time
        );
        note(&mut *reporter, &problem, message);
    }
    if problem.scoring.is_some() && selected.len() < problem.tests.len() {
        // A score counts every test of a group: none for a selection.
        problem.scoring = None;
        note(
            &mut *reporter,
            &problem,
            "no score: --test picks some of the tests; a score needs them all".to_string(),
        );
    }
    problem.tests.retain(|t| selected.contains(&t.name));
    if args.transcript {
        if problem.interactor.is_none() {
            let message = "--transcript: not an interactive problem, there is no exchange to show (the output diff is shown instead)".to_string();
            note(&mut *reporter, &problem, message);
        }
        for engine in session.engines() {
            engine.partner.record = true;
        }
    }
    reporter.event(&problem.started_event());
    let options = judge_core::engine::JudgeOptions {
        all: args.all,
        ..Default::default()
    };
    let report = if jobs > 1 {
        judge_core::jobs::judge_spread(
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
        package: None,
    });
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}
