//! `/api/v1/rejudges` (organisers only): make a rejudge set from a filter, read its old → new
//! verdict matrix, apply or cancel it; list the results whose inputs changed (`stale`). The
//! work is `crate::rejudge`'s.

use super::auth::Caller;
use super::{db, ApiError, Shared};
use crate::db::Sql;
use crate::rejudge::{self, Filter};
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// A set's request: the filter and how many times each submission is judged.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewBody {
    problem: Option<String>,
    submissions: Option<Vec<i64>>,
    verdicts: Option<Vec<String>>,
    since: Option<String>,
    until: Option<String>,
    #[serde(default)]
    stale: bool,
    repeat: Option<i32>,
}

fn id_of(text: &str) -> Result<i64, ApiError> {
    text.parse()
        .map_err(|_| ApiError::bad_request(format!("`{text}` is not a rejudge id")))
}

/// `POST /api/v1/rejudges` `{"problem"?, "submissions"?, "verdicts"?, "since"?, "until"?,
/// "stale"?, "repeat"?}` → `201` the set as `GET` shows it.
pub async fn create(
    caller: Caller,
    State(state): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.organiser("a rejudge")?;
    let body = body?;
    let new: NewBody = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body is not a rejudge's filter: {e}\n  hint: {{\"problem\": \"sum\", \"verdicts\": [\"WA\"], \"stale\": true, \"repeat\": 1}}"
        ))
    })?;
    let filter = Filter {
        problem: new.problem,
        submissions: new.submissions,
        verdicts: new.verdicts,
        since: new.since,
        until: new.until,
        stale: new.stale,
    };
    let runs = new.repeat.unwrap_or(1);
    let shared = state.clone();
    let shown = db(&state, move |client| {
        let (id, _) = rejudge::create(client, &shared.languages, &filter, runs)?;
        Ok(rejudge::show(client, id)?)
    })
    .await?;
    Ok((StatusCode::CREATED, Json(shown.unwrap_or(Value::Null))))
}

/// `GET /api/v1/rejudges`: the sets, newest first (at most 100).
pub async fn list(caller: Caller, State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    caller.organiser("the rejudges")?;
    let sets = db(&state, |client| Ok(rejudge::list(client)?)).await?;
    Ok(Json(json!({ "rejudges": sets })))
}

/// `GET /api/v1/rejudges/{id}`.
pub async fn show(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.organiser("a rejudge")?;
    let id = id_of(&id)?;
    db(&state, move |client| {
        rejudge::show(client, id).map_err(ApiError::from)
    })
    .await?
    .map(Json)
    .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no rejudge {id}")))
}

/// `POST /api/v1/rejudges/{id}/apply` → the set, `applied`.
pub async fn apply(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.organiser("applying a rejudge")?;
    let id = id_of(&id)?;
    let shown = db(&state, move |client| {
        rejudge::apply(client, id)?;
        Ok(rejudge::show(client, id)?)
    })
    .await?;
    Ok(Json(shown.unwrap_or(Value::Null)))
}

/// `POST /api/v1/rejudges/{id}/cancel` → the set, `cancelled`.
pub async fn cancel(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    caller.organiser("cancelling a rejudge")?;
    let id = id_of(&id)?;
    let shown = db(&state, move |client| {
        rejudge::cancel(client, id)?;
        Ok(rejudge::show(client, id)?)
    })
    .await?;
    Ok(Json(shown.unwrap_or(Value::Null)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaleQuery {
    problem: Option<String>,
}

/// `GET /api/v1/rejudges/stale?problem=…`: the published results whose inputs changed since
/// they were judged, each with why.
pub async fn stale(
    caller: Caller,
    State(state): State<Shared>,
    query: Result<Query<StaleQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    caller.organiser("the stale results")?;
    let Query(query) = query.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let shared = state.clone();
    let found = db(&state, move |client| {
        if let Some(p) = &query.problem {
            if client
                .query_opt("SELECT 1 FROM problems WHERE name = $1", &[p])?
                .is_none()
            {
                return Err(ApiError::new(
                    StatusCode::NOT_FOUND,
                    format!("no problem named {p}\n  hint: GET /api/v1/problems lists them"),
                ));
            }
        }
        Ok(rejudge::stale(
            client,
            &shared.languages,
            query.problem.as_deref(),
        )?)
    })
    .await?;
    let submissions: Vec<Value> = found
        .iter()
        .map(|s| {
            json!({"id": s.id, "problem": s.problem, "verdict": s.verdict, "reasons": s.reasons})
        })
        .collect();
    Ok(Json(json!({ "submissions": submissions })))
}
