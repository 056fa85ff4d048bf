//! `judge gen <PROBLEM>`: rebuild generated inputs and every answer.

use super::{exit, Session};
use judge_core::package;
use judge_core::setter::gen;
use judge_model::event::{Event, Reporter};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    #[command(flatten)]
    gen: GenArgs,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

/// Options shared by the subcommands that run generators.
#[derive(Debug, clap::Args)]
pub struct GenArgs {
    /// CPU seconds each generator run may use (default: `generator_time_limit` of tests.toml,
    /// else 5).
    #[arg(long, value_name = "SECONDS", value_parser = parse_time_limit)]
    generator_time_limit: Option<std::time::Duration>,
}

impl GenArgs {
    pub fn options(&self) -> gen::GenOptions {
        gen::GenOptions {
            generator_time_limit: self.generator_time_limit,
        }
    }
}

fn parse_time_limit(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    judge_core::package::recipe::generator_time_limit(seconds)
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut reporter = judge_report::reporter(args.format.pick(), judge_report::Command::Gen);
    let mut session = Session::with_jobs(languages, args.jobs.count())?;
    reporter.event(&Event::Started {
        command: "gen".into(),
        isolation: session.engine.sandbox.level(),
    });
    let problem = dir
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    if package::Format::detect(&dir) == Some(package::Format::Polygon) {
        // A Polygon package: the generated tests and answers it lacks, from its own generators
        // and main solution.
        let written = judge_core::setter::rebuild::write_missing(
            &mut session.engine,
            &dir,
            &mut |verb, what| {
                reporter.event(&Event::Step {
                    problem: problem.clone(),
                    verb: verb.into(),
                    what: what.into(),
                })
            },
        )?;
        reporter.event(&Event::Generated {
            problem,
            dir: dir.display().to_string(),
            summary: judge_model::GenSummary {
                files_written: Some(written),
                ..Default::default()
            },
        });
        reporter.event(&Event::Finished { exit: exit::OK });
        return Ok(exit::OK);
    }
    let steps = std::sync::Mutex::new(&mut reporter);
    let summary = gen::generate(
        &mut session.engines(),
        &dir,
        &args.gen.options(),
        &|verb, what| {
            let mut reporter = steps.lock().unwrap_or_else(|e| e.into_inner());
            reporter.event(&Event::Step {
                problem: problem.clone(),
                verb: verb.into(),
                what: what.into(),
            })
        },
    )?;
    reporter.event(&Event::Generated {
        problem,
        dir: dir.display().to_string(),
        summary,
    });
    reporter.event(&Event::Finished { exit: exit::OK });
    Ok(exit::OK)
}
