//! `/api/v1/submissions`: submit (organisers and submitters), read one with its tests and
//! every judging attempt, list by problem and state. A submitter sees only their own.

use super::auth::{Caller, Role};
use super::{db, ApiError, Shared, MAX_SOURCE};
use crate::db::{Db, Sql};
use crate::store::NewSubmission;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewBody {
    problem: String,
    language: Option<String>,
    filename: String,
    source: String,
}

/// `POST /api/v1/submissions` `{"problem", "language"?, "filename", "source"}` → `201 {"id"}`.
pub async fn create(
    caller: Caller,
    State(state): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = body?;
    let new: NewBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("the body is not a submission: {e}")))?;
    if new.source.len() > MAX_SOURCE {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the source has {} bytes; at most {} (1 MiB) are judged",
                new.source.len(),
                MAX_SOURCE
            ),
        ));
    }
    let plain = |s: &str| {
        !s.is_empty() && s.len() <= 255 && !s.contains(['/', '\0']) && s != "." && s != ".."
    };
    if !plain(&new.filename) {
        return Err(ApiError::bad_request(format!(
            "`{}` is not a file name (no folders, 1 to 255 bytes)",
            new.filename
        )));
    }
    let language = check_language(&state.languages, new.language.as_deref(), &new.filename)?;
    let submitter = match caller.role {
        Role::Organiser => None,
        Role::Submitter => Some(caller.name.clone()),
    };
    let id = db(&state, move |client| {
        let new = NewSubmission {
            problem: &new.problem,
            filename: &new.filename,
            source: new.source.as_bytes(),
            language: language.as_deref(),
            max_attempts: None,
            submitter: submitter.as_deref(),
        };
        crate::store::submit(client, &new).map_err(|e| match e {
            crate::Error::Unknown(m) => ApiError::new(
                StatusCode::NOT_FOUND,
                format!("{m}\n  hint: GET /api/v1/problems lists them"),
            ),
            other => other.into(),
        })
    })
    .await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id }))))
}

/// A named language must be in the table (by name or alias, any case, an entry that builds
/// sources): its name as the table spells it is stored, and the worker builds the source in
/// it whatever the file name says. Without one, the file name must tell it, as `judge run`
/// guesses it (the worker then guesses with the package's format in view).
fn check_language(
    languages: &judge_core::lang::Languages,
    language: Option<&str>,
    filename: &str,
) -> Result<Option<String>, ApiError> {
    let unprocessable = |why: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    match language {
        Some(name) => match languages.named(name) {
            Some(l) => Ok(Some(l.name.clone())),
            None => Err(unprocessable(format!(
                "unknown language `{name}`; the judge knows {}",
                languages.names()
            ))),
        },
        None => languages
            .for_source(std::path::Path::new(filename))
            .map(|_| None)
            .map_err(|e| unprocessable(e.to_string())),
    }
}

const TIME: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'";

/// The submission `id` as the API shows it, and who submitted it.
fn view(client: &mut Db, id: i64) -> Result<Option<(Value, Option<String>)>, ApiError> {
    let Some(row) = client.query_opt(
        "SELECT problem, language, state, verdict, score, time_ms, memory_kib, error, submitter,
                compile_output, judged_package, checker_hash, validator_hash, language_used,
                language_hash, language_version, judged_digest, source, rejudge, shadow_of, report
         FROM submissions WHERE id = $1",
        &[&id],
    )?
    else {
        return Ok(None);
    };
    let tests: Vec<Value> = client
        .query(
            "SELECT name, verdict, time_ms, memory_kib, message, input_hash, answer_hash,
                    limit_ms, beside_ms
             FROM test_results WHERE submission = $1 ORDER BY ordinal",
            &[&id],
        )?
        .iter()
        .map(|r| {
            let time_ms: i64 = r.get(2);
            let limit_ms: Option<i64> = r.get(7);
            json!({
                "name": r.get::<_, String>(0),
                "verdict": r.get::<_, String>(1),
                "time_ms": time_ms,
                "memory_kib": r.get::<_, i64>(3),
                "message": r.get::<_, String>(4),
                "input_hash": r.get::<_, Option<String>>(5),
                "answer_hash": r.get::<_, Option<String>>(6),
                "limit_ms": limit_ms,
                "near_limit": limit_ms.is_some_and(|l| crate::rows::near_limit(time_ms, l)),
                "beside_ms": r.get::<_, Option<i64>>(8),
            })
        })
        .collect();
    let judgings: Vec<Value> = client
        .query(
            &format!(
                "SELECT j.attempt, j.worker,
                        to_char(j.started_at AT TIME ZONE 'UTC', {TIME}),
                        to_char(j.finished_at AT TIME ZONE 'UTC', {TIME}),
                        j.outcome, j.reason, j.digest, j.environment
                 FROM judgings j JOIN jobs ON jobs.id = j.job
                 WHERE jobs.submission = $1 ORDER BY j.attempt"
            ),
            &[&id],
        )?
        .iter()
        .map(|r| {
            json!({
                "attempt": r.get::<_, i32>(0),
                "worker": r.get::<_, String>(1),
                "started_at": r.get::<_, Option<String>>(2),
                "finished_at": r.get::<_, Option<String>>(3),
                "outcome": r.get::<_, Option<String>>(4),
                "reason": r.get::<_, Option<String>>(5),
                "digest": r.get::<_, Option<String>>(6),
                "environment": r.get::<_, Option<String>>(7),
            })
        })
        .collect();
    let submission = json!({
        "id": id,
        "problem": row.get::<_, String>(0),
        "language": row.get::<_, Option<String>>(1),
        "state": row.get::<_, String>(2),
        "verdict": row.get::<_, Option<String>>(3),
        "score": row.get::<_, Option<f64>>(4),
        "time_ms": row.get::<_, Option<i64>>(5),
        "memory_kib": row.get::<_, Option<i64>>(6),
        "error": row.get::<_, Option<String>>(7),
        "compile_output": row.get::<_, Option<String>>(9),
        "report": row
            .get::<_, Option<String>>(20)
            .and_then(|r| serde_json::from_str::<Value>(&r).ok()),
        "tests": tests,
        "judgings": judgings,
        // What the published result was judged on (none before it was judged).
        "inputs": row.get::<_, Option<String>>(11).map(|checker| json!({
            "source": row.get::<_, String>(17),
            "package": row.get::<_, Option<String>>(10),
            "checker": checker,
            "validator": row.get::<_, Option<String>>(12),
            "language": row.get::<_, Option<String>>(13),
            "language_hash": row.get::<_, Option<String>>(14),
            "language_version": row.get::<_, Option<String>>(15),
            "digest": row.get::<_, Option<String>>(16),
        })),
    });
    let mut submission = submission;
    if let Some(set) = row.get::<_, Option<i64>>(18) {
        // A rejudge's shadow: whose result it judges again, for which set.
        submission["rejudge"] = json!(set);
        submission["shadow_of"] = json!(row.get::<_, Option<i64>>(19));
    }
    Ok(Some((submission, row.get(8))))
}

/// `GET /api/v1/submissions/{id}`.
pub async fn show(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::bad_request(format!("`{id}` is not a submission id")))?;
    let found = db(&state, move |client| view(client, id)).await?;
    let Some((submission, submitter)) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no submission {id}"),
        ));
    };
    if caller.role == Role::Submitter && submitter.as_deref() != Some(caller.name.as_str()) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("submission {id} is not {}'s", caller.name),
        ));
    }
    Ok(Json(submission))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    problem: Option<String>,
    state: Option<String>,
}

/// `GET /api/v1/submissions?problem=…&state=…`: the newest first, at most 1000, a
/// submitter's own only.
pub async fn list(
    caller: Caller,
    State(state): State<Shared>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(e.body_text()))?;
    if let Some(s) = &query.state {
        if !matches!(s.as_str(), "queued" | "judging" | "done") {
            return Err(ApiError::bad_request(format!(
                "`{s}` is not a state: queued, judging or done"
            )));
        }
    }
    let mine = match caller.role {
        Role::Organiser => None,
        Role::Submitter => Some(caller.name),
    };
    let rows = db(&state, move |client| {
        Ok(client.query(
            &format!(
                "SELECT id, problem, language, state, verdict, score, time_ms, memory_kib,
                        submitter, to_char(created_at AT TIME ZONE 'UTC', {TIME})
             FROM submissions
             WHERE ($1::text IS NULL OR problem = $1) AND ($2::text IS NULL OR state = $2)
               AND ($3::text IS NULL OR submitter = $3) AND shadow_of IS NULL
             ORDER BY id DESC LIMIT 1000"
            ),
            &[&query.problem, &query.state, &mine],
        )?)
    })
    .await?;
    let submissions: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.get::<_, i64>(0),
                "problem": r.get::<_, String>(1),
                "language": r.get::<_, Option<String>>(2),
                "state": r.get::<_, String>(3),
                "verdict": r.get::<_, Option<String>>(4),
                "score": r.get::<_, Option<f64>>(5),
                "time_ms": r.get::<_, Option<i64>>(6),
                "memory_kib": r.get::<_, Option<i64>>(7),
                "submitter": r.get::<_, Option<String>>(8),
                "submitted_at": r.get::<_, String>(9),
            })
        })
        .collect();
    Ok(Json(json!({ "submissions": submissions })))
}
