//! `judge submit SERVER PROBLEM FILE [--wait]`: posts a source to `judge serve`'s API (the
//! token from `--token` or JUDGE_TOKEN) and prints its id, or with `--wait` its result.
//! `judge submit --db URL PROBLEM_DIR FILE`: stores a problem's package (a tar of its folder,
//! named as `judge run` names it) and a source in the service's database directly, queues the
//! submission and prints its id.

use judge_service::store::{self, NewSubmission};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service's PostgreSQL database (as `judge worker --db`): then the arguments are
    /// PROBLEM_DIR FILE, and the package is stored too.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// SERVER PROBLEM FILE (the API of `judge serve`, http://host:port), or with --db
    /// PROBLEM_DIR FILE.
    #[arg(value_name = "SERVER PROBLEM FILE", num_args = 2..=3, required = true)]
    args: Vec<PathBuf>,
    /// The API token (else JUDGE_TOKEN).
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Wait until the submission is judged and print its result (exit status as `judge run`).
    #[arg(long)]
    wait: bool,
    /// With --wait: print the submission as the API's JSON document.
    #[arg(long)]
    json: bool,
    /// The source's language (a name or alias of the language table, e.g. C++ or python3):
    /// the worker builds it so whatever its file name says. Default: told by the file name.
    #[arg(long, value_name = "NAME")]
    language: Option<String>,
    /// With --db: judging attempts before the submission becomes a judge error.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(i32).range(1..=100))]
    max_attempts: i32,
}

fn file_name(file: &Path) -> anyhow::Result<String> {
    Ok(file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("{}: not a UTF-8 file name", file.display()))?
        .to_string())
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    match (&args.db, args.args.as_slice()) {
        (Some(db), [problem, file]) => submit_db(
            db,
            problem,
            file,
            args.language.as_deref(),
            args.max_attempts,
        ),
        (None, [server, problem, file]) => {
            let server = server.to_string_lossy().into_owned();
            let problem = problem.to_string_lossy().into_owned();
            let token = super::status::token(args.token)?;
            let language = args.language.as_deref();
            submit_http(
                &server, &problem, file, language, &token, args.wait, args.json,
            )
        }
        (Some(_), _) => anyhow::bail!(
            "with --db, give PROBLEM_DIR FILE\n  hint: judge submit --db URL problems/sum sum.cpp"
        ),
        (None, _) => anyhow::bail!(
            "give SERVER PROBLEM FILE\n  hint: judge submit http://judge.example:8080 sum sum.cpp"
        ),
    }
}

fn submit_http(
    server: &str,
    problem: &str,
    file: &Path,
    language: Option<&str>,
    token: &str,
    wait: bool,
    json: bool,
) -> anyhow::Result<i32> {
    let source =
        std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let mut body =
        serde_json::json!({"problem": problem, "filename": file_name(file)?, "source": source});
    if let Some(language) = language {
        body["language"] = language.into();
    }
    let answer =
        judge_service::client::request(server, "POST", "/api/v1/submissions", token, Some(&body))
            .map_err(anyhow::Error::msg)?;
    if answer.status != 201 {
        anyhow::bail!("{server}: {}", answer.reason());
    }
    let id = answer.body["id"]
        .as_i64()
        .ok_or_else(|| anyhow::anyhow!("{server}: the answer has no id"))?;
    if !wait {
        judge_report::outln!("{id}");
        return Ok(super::exit::OK);
    }
    let done = super::status::wait(server, token, id)?;
    super::status::print(&done, json)
}

fn submit_db(
    db: &str,
    problem: &Path,
    file: &Path,
    language: Option<&str>,
    max_attempts: i32,
) -> anyhow::Result<i32> {
    let dir = std::fs::canonicalize(problem)
        .map_err(|e| anyhow::anyhow!("{}: {e}", problem.display()))?;
    judge_core::package::Problem::load(&dir)?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow::anyhow!("{}: the folder's name is not UTF-8", dir.display()))?
        .to_string();
    let filename = file_name(file)?;
    let source = std::fs::read(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    // As `judge serve` takes it: stored as the table spells it.
    let table = judge_core::lang::Languages::load(None)?;
    let language = language
        .map(|name| {
            table.named(name).map(|l| l.name.clone()).ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown language `{name}`\n  hint: the judge knows {}",
                    table.names()
                )
            })
        })
        .transpose()?;
    let package = store::pack(&dir)?;
    let mut client = judge_service::connect(db)?;
    store::put_problem(&mut client, &name, &package)?;
    let id = store::submit(
        &mut client,
        &NewSubmission {
            problem: &name,
            filename: &filename,
            source: &source,
            language: language.as_deref(),
            max_attempts: Some(max_attempts),
            submitter: None,
        },
    )?;
    judge_report::outln!("{id}");
    Ok(super::exit::OK)
}
