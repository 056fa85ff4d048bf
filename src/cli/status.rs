//! `judge status SERVER [ID]`: a submission's result from `judge serve`'s API, or the list of
//! submissions the token may see (the token from `--token` or JUDGE_TOKEN).

use judge_service::client;
use serde_json::Value;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API of `judge serve` (http://host:port).
    #[arg(value_name = "SERVER")]
    server: String,
    /// A submission's id; without it, the submissions (newest first).
    #[arg(value_name = "ID")]
    id: Option<i64>,
    /// The API token (else JUDGE_TOKEN).
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// With ID: wait until it is judged.
    #[arg(long)]
    wait: bool,
    /// Print the API's JSON document.
    #[arg(long)]
    json: bool,
}

/// `--token`, else JUDGE_TOKEN.
pub fn token(given: Option<String>) -> anyhow::Result<String> {
    given
        .or_else(|| std::env::var("JUDGE_TOKEN").ok().filter(|t| !t.is_empty()))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "no API token\n  hint: set JUDGE_TOKEN (judge serve prints one at start) or pass --token"
            )
        })
}

fn get(server: &str, token: &str, path: &str) -> anyhow::Result<Value> {
    let answer = client::request(server, "GET", path, token, None).map_err(anyhow::Error::msg)?;
    if answer.status != 200 {
        anyhow::bail!("{server}: {}", answer.reason());
    }
    Ok(answer.body)
}

/// Polls the submission `id` until it is done (a judging is bounded by its limits; a worker
/// that dies is replaced by the queue, so this waits as long as that takes).
pub fn wait(server: &str, token: &str, id: i64) -> anyhow::Result<Value> {
    let path = format!("/api/v1/submissions/{id}");
    let mut pause = Duration::from_millis(100);
    let started = Instant::now();
    loop {
        let body = get(server, token, &path)?;
        if body["state"] == "done" {
            return Ok(body);
        }
        if started.elapsed() > Duration::from_secs(3600) {
            anyhow::bail!("submission {id} is still {} after an hour", body["state"]);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

/// A JSON value as a table cell: `-` for null, a string without its quotes.
pub(super) fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A submission as `--json` prints it: once judged, `judge run --json`'s document of it with
/// the submission's `id`, `state` and `judgings` (every attempt); before, or when no worker
/// could judge it (a judge error after its attempts), the API's document.
fn document(submission: &Value) -> Value {
    match &submission["report"] {
        Value::Object(report) => {
            let mut doc = report.clone();
            for key in ["id", "state", "judgings"] {
                doc.insert(key.into(), submission[key].clone());
            }
            Value::Object(doc)
        }
        _ => submission.clone(),
    }
}

/// Prints a submission; the exit status is `judge run`'s for its verdict (none yet: OK).
pub fn print(submission: &Value, json: bool) -> anyhow::Result<i32> {
    if json {
        judge_report::outln!("{}", serde_json::to_string_pretty(&document(submission))?);
    } else {
        judge_report::outln!(
            "submission {}  {}  {}  {}  {} ms  {} KiB",
            text(&submission["id"]),
            text(&submission["problem"]),
            text(&submission["state"]),
            text(&submission["verdict"]),
            text(&submission["time_ms"]),
            text(&submission["memory_kib"]),
        );
        for test in submission["tests"].as_array().into_iter().flatten() {
            judge_report::outln!(
                "  {:<12} {:<4} {:>6} ms {:>8} KiB  {}",
                text(&test["name"]),
                text(&test["verdict"]),
                text(&test["time_ms"]),
                text(&test["memory_kib"]),
                text(&test["message"]).lines().next().unwrap_or(""),
            );
        }
        if let Some(error) = submission["error"].as_str() {
            judge_report::outln!("  {error}");
        }
        // A CE's reason, as `judge run` shows it (a build's warnings are left to --json).
        if submission["verdict"] == "CE" {
            if let Some(compiler) = submission["compile_output"].as_str() {
                for line in compiler.lines() {
                    judge_report::outln!("  {line}");
                }
            }
        }
    }
    Ok(match submission["verdict"].as_str() {
        None | Some("AC") => super::exit::OK,
        Some("JE") => super::exit::ERROR,
        Some(_) => super::exit::REJECTED,
    })
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let token = token(args.token)?;
    let Some(id) = args.id else {
        let body = get(&args.server, &token, "/api/v1/submissions")?;
        if args.json {
            judge_report::outln!("{}", serde_json::to_string_pretty(&body)?);
        } else {
            for s in body["submissions"].as_array().into_iter().flatten() {
                judge_report::outln!(
                    "{:>6}  {:<16} {:<8} {}",
                    text(&s["id"]),
                    text(&s["problem"]),
                    text(&s["state"]),
                    text(&s["verdict"]),
                );
            }
        }
        return Ok(super::exit::OK);
    };
    let submission = if args.wait {
        wait(&args.server, &token, id)?
    } else {
        get(&args.server, &token, &format!("/api/v1/submissions/{id}"))?
    };
    print(&submission, args.json)
}
