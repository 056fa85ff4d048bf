//! `judge rejudge SERVER …`: a rejudge set on `judge serve` (organisers; the token from
//! `--token` or JUDGE_TOKEN). Without ID: makes a set from the filter (`--problem`,
//! `--verdict`, `--submission`, `--since`, `--until`, `--stale`, `--repeat`) and prints its
//! old → new verdict matrix (`--wait`: once judged; `--apply`: then publishes it); `--stale
//! --list` only lists the results whose inputs changed, and why. With ID: shows the set
//! (`--wait`), applies it (`--apply`) or cancels it (`--cancel`).

use super::status::text;
use judge_service::client;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The API of `judge serve` (http://host:port).
    #[arg(value_name = "SERVER")]
    server: String,
    /// A rejudge set's id: show it, or with --apply / --cancel act on it.
    #[arg(value_name = "ID")]
    id: Option<i64>,
    /// The API token (else JUDGE_TOKEN): an organiser's.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Only this problem's submissions.
    #[arg(long, value_name = "NAME", conflicts_with = "id")]
    problem: Option<String>,
    /// Only submissions with these verdicts (AC,WA,TLE,…).
    #[arg(long, value_name = "V,…", value_delimiter = ',', conflicts_with = "id")]
    verdict: Vec<String>,
    /// Only these submissions (ids, comma-separated).
    #[arg(
        long,
        value_name = "ID,…",
        value_delimiter = ',',
        conflicts_with = "id"
    )]
    submission: Vec<i64>,
    /// Only submissions made at or after this time (UTC, 2026-03-01T09:00:00Z).
    #[arg(long, value_name = "TIME", conflicts_with = "id")]
    since: Option<String>,
    /// Only submissions made before this time (UTC).
    #[arg(long, value_name = "TIME", conflicts_with = "id")]
    until: Option<String>,
    /// Only results whose inputs (a test they were judged on, the checker, the validators,
    /// the language entry) changed since they were judged.
    #[arg(long, conflicts_with = "id")]
    stale: bool,
    /// With --stale: list those results and why, and make no set.
    #[arg(long, requires = "stale", conflicts_with_all = ["apply", "wait", "repeat"])]
    list: bool,
    /// Judge each submission N times (the spread shows the noise).
    #[arg(long, value_name = "N", conflicts_with = "id", value_parser = clap::value_parser!(i32).range(1..=10))]
    repeat: Option<i32>,
    /// Wait until every submission of the set is judged.
    #[arg(long)]
    wait: bool,
    /// Publish the set's results (waiting until it is judged).
    #[arg(long, conflicts_with = "cancel")]
    apply: bool,
    /// Drop the set's pending judgings and shadow results.
    #[arg(long, requires = "id")]
    cancel: bool,
    /// Print the API's JSON document.
    #[arg(long)]
    json: bool,
}

fn call(
    server: &str,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> anyhow::Result<Value> {
    let answer = client::request(server, method, path, token, body).map_err(anyhow::Error::msg)?;
    if !(200..300).contains(&answer.status) {
        anyhow::bail!("{server}: {}", answer.reason());
    }
    Ok(answer.body)
}

/// Polls the set until no judging of it is left.
fn wait(server: &str, token: &str, id: i64) -> anyhow::Result<Value> {
    let path = format!("/api/v1/rejudges/{id}");
    let mut pause = Duration::from_millis(100);
    let started = Instant::now();
    loop {
        let set = call(server, token, "GET", &path, None)?;
        if set["state"] != "judging" {
            return Ok(set);
        }
        if started.elapsed() > Duration::from_secs(6 * 3600) {
            anyhow::bail!(
                "rejudge {id} still has {} of {} judgings to go after six hours",
                set["judgings"].as_i64().unwrap_or(0) - set["judged"].as_i64().unwrap_or(0),
                set["judgings"]
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

/// A set as text: its head, the matrix, the changed submissions, the spread.
fn print(set: &Value) {
    judge_report::outln!(
        "rejudge {}  {}  {} submissions  {}/{} judged  repeat {}",
        text(&set["id"]),
        text(&set["state"]),
        text(&set["submissions"]),
        text(&set["judged"]),
        text(&set["judgings"]),
        text(&set["repeat"]),
    );
    let matrix = set["matrix"].as_array().cloned().unwrap_or_default();
    if !matrix.is_empty() {
        judge_report::outln!("  old → new   count");
        for cell in &matrix {
            judge_report::outln!(
                "  {:<4}→ {:<5} {:>5}",
                text(&cell["from"]),
                text(&cell["to"]),
                text(&cell["count"])
            );
        }
    }
    let changed = set["changed"].as_array().cloned().unwrap_or_default();
    if !changed.is_empty() {
        judge_report::outln!("  changed:");
        for c in &changed {
            judge_report::outln!(
                "  {:>6}  {:<12} {} → {}  {} ms → {} ms",
                text(&c["id"]),
                text(&c["problem"]),
                text(&c["old"]["verdict"]),
                text(&c["new"]["verdict"]),
                text(&c["old"]["time_ms"]),
                text(&c["new"]["time_ms"]),
            );
        }
    }
    if let Some(spread) = set["spread"].as_array() {
        judge_report::outln!(
            "  spread ({} given more than one verdict):",
            text(&set["unstable"])
        );
        for s in spread {
            let verdicts: Vec<String> = s["verdicts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(text)
                .collect();
            judge_report::outln!(
                "  {:>6}  {:<12} {} – {} ms",
                text(&s["id"]),
                verdicts.join(","),
                text(&s["min_time_ms"]),
                text(&s["max_time_ms"]),
            );
        }
    }
}

fn show(set: &Value, json: bool) -> anyhow::Result<()> {
    if json {
        judge_report::outln!("{}", serde_json::to_string_pretty(set)?);
    } else {
        print(set);
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let token = super::status::token(args.token.clone())?;
    let server = args.server.as_str();
    if args.list {
        let path = match &args.problem {
            Some(p) => format!("/api/v1/rejudges/stale?problem={}", query_escape(p)),
            None => "/api/v1/rejudges/stale".to_string(),
        };
        let stale = call(server, &token, "GET", &path, None)?;
        if args.json {
            judge_report::outln!("{}", serde_json::to_string_pretty(&stale)?);
        } else {
            for s in stale["submissions"].as_array().into_iter().flatten() {
                let reasons: Vec<String> = s["reasons"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(text)
                    .collect();
                judge_report::outln!(
                    "{:>6}  {:<12} {:<4} {}",
                    text(&s["id"]),
                    text(&s["problem"]),
                    text(&s["verdict"]),
                    reasons.join(", ")
                );
            }
        }
        return Ok(super::exit::OK);
    }
    let id = match args.id {
        Some(id) => id,
        None => {
            let mut filter = json!({});
            if let Some(p) = &args.problem {
                filter["problem"] = json!(p);
            }
            if !args.verdict.is_empty() {
                filter["verdicts"] = json!(args.verdict);
            }
            if !args.submission.is_empty() {
                filter["submissions"] = json!(args.submission);
            }
            if let Some(t) = &args.since {
                filter["since"] = json!(t);
            }
            if let Some(t) = &args.until {
                filter["until"] = json!(t);
            }
            if args.stale {
                filter["stale"] = json!(true);
            }
            if let Some(n) = args.repeat {
                filter["repeat"] = json!(n);
            }
            let set = call(server, &token, "POST", "/api/v1/rejudges", Some(&filter))?;
            let id = set["id"]
                .as_i64()
                .ok_or_else(|| anyhow::anyhow!("{server}: the answer names no rejudge set"))?;
            if !(args.wait || args.apply) {
                show(&set, args.json)?;
                return Ok(super::exit::OK);
            }
            id
        }
    };
    let path = format!("/api/v1/rejudges/{id}");
    let set = if args.cancel {
        call(server, &token, "POST", &format!("{path}/cancel"), None)?
    } else if args.apply {
        wait(server, &token, id)?;
        call(server, &token, "POST", &format!("{path}/apply"), None)?
    } else if args.wait {
        wait(server, &token, id)?
    } else {
        call(server, &token, "GET", &path, None)?
    };
    show(&set, args.json)?;
    Ok(super::exit::OK)
}

/// A query value with the characters a URL's query cannot hold escaped.
fn query_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
