//! `judge new <slug>`: scaffold a package that verifies at once.

use super::{exit, Session};
use judge_core::setter::{gen, new};
use std::path::Path;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder name of the new problem, e.g. `sum-of-numbers`.
    slug: String,
}

pub fn run(args: Args, languages: Option<&Path>) -> anyhow::Result<i32> {
    let dir = new::scaffold(Path::new("."), &args.slug)?;
    let mut session = Session::new(languages)?;
    gen::generate(
        &mut session.engines(),
        &dir,
        &gen::GenOptions::default(),
        &|_, _| {},
    )?;
    judge_report::outln!(
        "created {} and solutions/{}/accepted/reference.py",
        dir.display(),
        args.slug
    );
    judge_report::outln!(
        "next: edit statement.md, problem.toml, validator.py, generator.py and tests.toml, then"
    );
    judge_report::outln!(
        "  judge gen {0}   # rebuild generated tests and answers\n  judge verify {0}",
        args.slug
    );
    Ok(exit::OK)
}
