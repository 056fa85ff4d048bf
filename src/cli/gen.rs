//! `judge gen <PROBLEM>`: rebuild generated inputs and every answer.

use super::{exit, Session};
use crate::package;
use crate::report::human::{status, Paint};
use crate::setter::gen;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    #[command(flatten)]
    gen: GenArgs,
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
    crate::package::recipe::generator_time_limit(seconds)
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut session = Session::new(languages)?;
    let paint = Paint {
        on: crate::report::use_colour(&std::io::stderr()),
    };
    if package::Format::detect(&dir) == Some(package::Format::Polygon) {
        // A Polygon package: the generated tests and answers it lacks, from its own generators
        // and main solution.
        let written =
            crate::setter::rebuild::write_missing(&mut session.engine, &dir, &mut |verb, what| {
                status(&paint, verb, what)
            })?;
        crate::outln!("{}: {} file(s) written", dir.display(), written.len());
        for name in &written {
            crate::outln!("  wrote {name}");
        }
        return Ok(exit::OK);
    }
    let summary = gen::generate(
        &mut session.engine,
        &dir,
        &args.gen.options(),
        &mut |verb, what| status(&paint, verb, what),
    )?;
    crate::outln!(
        "{}: {} input(s) and {} answer(s) written, {} unchanged, {} up to date (cached)",
        dir.display(),
        summary.inputs_written.len(),
        summary.answers_written.len(),
        summary.unchanged,
        summary.cached
    );
    for name in summary.inputs_written.iter() {
        crate::outln!("  wrote tests/{name}.in");
    }
    for name in summary.answers_written.iter() {
        crate::outln!("  wrote tests/{name}.ans");
    }
    Ok(exit::OK)
}
