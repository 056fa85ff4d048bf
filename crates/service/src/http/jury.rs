//! What the jury watches: `GET /api/v1/workers` (each worker slot as it last told), `GET
//! /api/v1/queue` (submissions by state, the oldest waiting), and the jury page (`/jury`: a
//! page and its script and style, no data in them; the script asks the API with the organiser
//! token the jury pastes, kept in the tab's session storage).

use super::auth::Caller;
use super::{db, ApiError, Shared};
use crate::db::Sql;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::{json, Value};

const TIME: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'";

/// `GET /api/v1/workers`: every slot that ever registered, the most recently heard first.
pub async fn workers(caller: Caller, State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    caller.organiser("the list of workers")?;
    let rows = db(&state, move |client| {
        Ok(client.query(
            &format!(
                "SELECT name, digest, state, lease_ms,
                        to_char(started_at AT TIME ZONE 'UTC', {TIME}),
                        to_char(last_seen AT TIME ZONE 'UTC', {TIME}),
                        (extract(epoch FROM now() - last_seen) * 1000)::bigint,
                        jobs_done, judge_errors
                 FROM workers ORDER BY last_seen DESC, name"
            ),
            &[],
        )?)
    })
    .await?;
    let workers: Vec<Value> = rows
        .iter()
        .map(|r| {
            let state: String = r.get(2);
            let lease_ms: i64 = r.get(3);
            let silent_ms: i64 = r.get(6);
            // A slot not heard of for longer than its lease is gone: killed, frozen or cut off
            // (its job, if any, goes to another worker).
            let state = if state != "stopped" && silent_ms > lease_ms {
                "silent".to_string()
            } else {
                state
            };
            json!({
                "name": r.get::<_, String>(0),
                "digest": r.get::<_, Option<String>>(1),
                "state": state,
                "lease_ms": lease_ms,
                "started_at": r.get::<_, String>(4),
                "last_seen": r.get::<_, String>(5),
                "silent_ms": silent_ms.max(0),
                "jobs_done": r.get::<_, i64>(7),
                "judge_errors": r.get::<_, i64>(8),
            })
        })
        .collect();
    Ok(Json(json!({ "workers": workers })))
}

/// `GET /api/v1/queue`: how many submissions are queued, being judged and done, and since when
/// the oldest queued one waits (a rejudge's shadow results are not submissions: not counted).
pub async fn queue(caller: Caller, State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    caller.organiser("the queue")?;
    let (counts, oldest) = db(&state, move |client| {
        let counts = client.query(
            "SELECT state, count(*) FROM submissions WHERE shadow_of IS NULL GROUP BY state",
            &[],
        )?;
        let oldest = client.query_one(
            &format!(
                "SELECT to_char(min(created_at) AT TIME ZONE 'UTC', {TIME})
                 FROM submissions WHERE state = 'queued' AND shadow_of IS NULL"
            ),
            &[],
        )?;
        Ok((counts, oldest.get::<_, Option<String>>(0)))
    })
    .await?;
    let mut answer = json!({"queued": 0, "judging": 0, "done": 0, "oldest_queued_at": oldest});
    for row in counts {
        answer[row.get::<_, String>(0)] = json!(row.get::<_, i64>(1));
    }
    Ok(Json(answer))
}

/// The jury page's policy: its own script and style only, no frames, requests to itself only.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn asset(kind: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}

/// `GET /jury`.
pub async fn page() -> impl IntoResponse {
    asset("text/html; charset=utf-8", include_str!("jury/index.html"))
}

/// `GET /jury/app.js`.
pub async fn script() -> impl IntoResponse {
    asset(
        "text/javascript; charset=utf-8",
        include_str!("jury/app.js"),
    )
}

/// `GET /jury/style.css`.
pub async fn style() -> impl IntoResponse {
    asset("text/css; charset=utf-8", include_str!("jury/style.css"))
}
