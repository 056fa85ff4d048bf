//! `judge submit --db URL PROBLEM_DIR FILE`: stores a problem's package (a tar of its folder,
//! named as `judge run` names it) and a source in the service's database, queues the
//! submission and prints its id.

use judge_service::store::{self, NewSubmission};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service's PostgreSQL database (as `judge worker --db`).
    #[arg(long, value_name = "URL")]
    db: String,
    /// The problem package's folder; the problem is named by the folder.
    #[arg(value_name = "PROBLEM_DIR", value_hint = clap::ValueHint::DirPath)]
    problem: PathBuf,
    /// The solution's source file.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    file: PathBuf,
    /// Judging attempts before the submission becomes a judge error (a worker dies each time).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(i32).range(1..=100))]
    max_attempts: i32,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = std::fs::canonicalize(&args.problem)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.problem.display()))?;
    judge_core::package::Problem::load(&dir)?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("{}: the folder's name is not UTF-8", dir.display()))?
        .to_string();
    let filename = args
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("{}: not a UTF-8 file name", args.file.display()))?
        .to_string();
    let source =
        std::fs::read(&args.file).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let package = store::pack(&dir)?;
    let mut client = judge_service::connect(&args.db)?;
    store::put_problem(&mut client, &name, &package)?;
    let id = store::submit(
        &mut client,
        &NewSubmission {
            problem: &name,
            filename: &filename,
            source: &source,
            language: None,
            max_attempts: Some(args.max_attempts),
            submitter: None,
        },
    )?;
    judge_report::outln!("{id}");
    Ok(super::exit::OK)
}
