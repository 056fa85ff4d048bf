//! `judge stress <PROBLEM> <SOURCE> --gen "..."`: find and shrink a failing input.

use super::{exit, Session};
use crate::package::{self, Problem};
use crate::report::human::{status, Paint};
use crate::setter::stress::{stress, StressOptions};
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
    let mut session = Session::new(languages)?;
    super::warn_isolation(&session.engine.sandbox);
    let paint = Paint {
        on: crate::report::use_colour(&std::io::stderr()),
    };
    let options = StressOptions {
        gen: args.gen.clone(),
        time_budget: Duration::from_secs_f64(args.seconds),
        against: args.against.clone(),
        generator_time_limit: args.gen_limits.options().generator_time_limit,
    };
    let found = stress(
        &mut session.engine,
        &problem,
        &args.source,
        &options,
        &mut |l| status(&paint, "Stress", l),
    )?;
    let Some(c) = found else {
        crate::outln!("no failing input found in {} s", args.seconds);
        return Ok(exit::OK);
    };
    if c.verdict == crate::verdict::Verdict::CE {
        crate::outln!("{} does not compile:\n{}", args.source.display(), c.message);
        return Ok(exit::REJECTED);
    }
    crate::outln!(
        "{} ({}) after {} input(s); shrunk in {} step(s) to {} byte(s):",
        c.verdict.code(),
        c.verdict.long_name(),
        c.tries,
        c.shrink_steps,
        c.input.len()
    );
    crate::outln!("--- input\n{}", show(&c.input));
    crate::outln!("--- expected (reference)\n{}", show(&c.answer));
    crate::outln!("--- {}\n{}", args.source.display(), show(&c.output));
    if !c.message.is_empty() {
        crate::outln!("--- verdict\n{}: {}", c.verdict.code(), c.message);
    }
    if let Some(out) = &args.out {
        std::fs::write(out, &c.input)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", out.display()))?;
        let ans = if out.extension().is_some_and(|e| e == "in") {
            out.with_extension("ans")
        } else {
            PathBuf::from(format!("{}.ans", out.display()))
        };
        std::fs::write(&ans, &c.answer)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", ans.display()))?;
        crate::outln!("saved {} and {}", out.display(), ans.display());
    }
    Ok(exit::REJECTED)
}

fn show(bytes: &[u8]) -> String {
    const CAP: usize = 4000;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(CAP)]).into_owned();
    let text = text.trim_end_matches('\n').to_string();
    if bytes.len() > CAP {
        format!("{text}\n[… {} more bytes]", bytes.len() - CAP)
    } else {
        text
    }
}
