//! `judge gen <PROBLEM>`: rebuild generated inputs and every answer.

use super::{exit, Session};
use crate::package;
use crate::report::human::{status, Paint};
use crate::setter::gen;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let mut session = Session::new(languages)?;
    let paint = Paint {
        on: crate::report::use_colour(&std::io::stderr()),
    };
    let summary = gen::generate(&mut session.engine, &dir, &mut |line| {
        status(&paint, "Gen", line)
    })?;
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
