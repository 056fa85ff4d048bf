//! `judge stress <PROBLEM> <SOURCE> --gen "..."`: find and shrink a failing input.

use super::{exit, Session};
use judge_core::package::{self, Problem};
use judge_core::setter::stress::{stress, StressOptions};
use judge_model::event::{Event, Reporter};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    /// The solution to attack.
    source: PathBuf,
    /// Generator arguments with {seed} and optionally {size}; may start with the generator's path
    /// inside the package (default: the generator of tests.toml).
    #[arg(long, value_name = "ARGS")]
    gen: String,
    /// How long to search before giving up (shrinking comes on top).
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// Save the smallest failing input here (and the reference's answer beside it as .ans).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The solution whose answers count (default: the first of accepted/).
    #[arg(long, value_name = "REF")]
    against: Option<PathBuf>,
    #[command(flatten)]
    gen_limits: super::gen::GenArgs,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let problem = Problem::load(&dir)?;
    if !args.source.is_file() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of the solution to stress",
            args.source.display()
        );
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        anyhow::bail!(
            "--seconds {} is not a positive number of seconds",
            args.seconds
        );
    }
    let mut reporter = judge_report::reporter(args.format.pick(), judge_report::Command::Stress);
    let mut session = Session::with_jobs(languages, args.jobs.count())?;
    super::started(&mut *reporter, "stress", &session.engine.sandbox);
    for engine in session.engines() {
        problem.set_languages(&mut engine.languages);
    }
    let options = StressOptions {
        gen: args.gen.clone(),
        time_budget: Duration::from_secs_f64(args.seconds),
        against: args.against.clone(),
        generator_time_limit: args.gen_limits.options().generator_time_limit,
    };
    let found = stress(
        &mut session.engines(),
        &problem,
        &args.source,
        &options,
        &mut |l| {
            reporter.event(&Event::Step {
                problem: problem.slug.clone(),
                verb: "Stress".into(),
                what: l.into(),
            })
        },
    )?;
    let mut saved = Vec::new();
    if let (Some(c), Some(out)) = (&found, &args.out) {
        if c.verdict != judge_model::Verdict::CE {
            std::fs::write(out, &c.input)
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", out.display()))?;
            let ans = if out.extension().is_some_and(|e| e == "in") {
                out.with_extension("ans")
            } else {
                PathBuf::from(format!("{}.ans", out.display()))
            };
            std::fs::write(&ans, &c.answer)
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", ans.display()))?;
            saved = vec![out.display().to_string(), ans.display().to_string()];
        }
    }
    let code = if found.is_some() {
        exit::REJECTED
    } else {
        exit::OK
    };
    reporter.event(&Event::StressFinished {
        problem: problem.slug.clone(),
        solution: args.source.display().to_string(),
        seconds: args.seconds,
        found,
        saved,
    });
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}
