//! `/judge0/…`: the Judge0 CE API's routes over the service's queue (the facts and the
//! storage are `crate::judge0`). Errors answer as Judge0 answers them — `{"error": …}`, or
//! 422 with field → messages — not as JSON problems: Judge0 clients read those shapes.
//!
//! Authentication: Judge0's `X-Auth-Token` header or our `Authorization: Bearer`, either with
//! one of the server's tokens. A submitter reads only its own submissions.

use super::auth::{Caller, Role};
use super::{db, ApiError, Shared};
use crate::db::{Db, Sql};
use crate::judge0::{self as j0, Request};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The largest body a Judge0 request may have (a batch of 20 submissions of 1 MiB texts).
const MAX_BODY: usize = 64 << 20;
/// How long `?wait=true` waits for a verdict before it answers what there is.
const WAIT_MAX: Duration = Duration::from_secs(300);

/// The routes under `/judge0`.
pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/submissions", post(create))
        .route("/submissions/batch", post(create_batch).get(show_batch))
        .route("/submissions/{token}", get(show))
        .route("/languages", get(languages))
        .route("/languages/{id}", get(language))
        .route("/statuses", get(statuses))
        .route("/about", get(about))
        .route("/config_info", get(config_info))
        .route("/authenticate", post(authenticate))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such Judge0 endpoint") })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// A refused request: its status and Judge0's body for it.
pub struct Refusal(StatusCode, Value);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, Json(self.1)).into_response()
    }
}

/// `{"error": message}` with `status`.
fn error(status: StatusCode, message: impl Into<String>) -> Refusal {
    Refusal(status, json!({ "error": message.into() }))
}

fn from_api(e: ApiError) -> Refusal {
    error(e.status, e.detail)
}

/// The caller of `headers`: `X-Auth-Token: TOKEN` or `Authorization: Bearer TOKEN`.
fn caller(state: &Shared, headers: &HeaderMap) -> Result<Caller, Refusal> {
    let token = headers
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .or_else(|| {
            headers
                .get(axum::http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
        });
    let Some(token) = token else {
        return Err(error(
            StatusCode::UNAUTHORIZED,
            "authentication failed: send the header `X-Auth-Token: TOKEN` (or `Authorization: Bearer TOKEN`)",
        ));
    };
    state.tokens.caller(token).cloned().ok_or_else(|| {
        error(
            StatusCode::UNAUTHORIZED,
            "authentication failed: this token is not one the server accepts",
        )
    })
}

/// A query flag: absent is false; `true`/`false` (any case) else a 400.
fn flag(query: &HashMap<String, String>, name: &str) -> Result<bool, Refusal> {
    match query.get(name).map(|v| v.to_ascii_lowercase()) {
        None => Ok(false),
        Some(v) if v == "true" || v == "1" => Ok(true),
        Some(v) if v == "false" || v == "0" || v.is_empty() => Ok(false),
        Some(v) => Err(error(
            StatusCode::BAD_REQUEST,
            format!("`{name}={v}`: use true or false"),
        )),
    }
}

fn fields(query: &HashMap<String, String>) -> Result<Vec<&'static str>, Refusal> {
    j0::fields(query.get("fields").map(String::as_str))
        .map_err(|e| error(StatusCode::BAD_REQUEST, e))
}

fn submitter(caller: &Caller) -> Option<String> {
    match caller.role {
        Role::Organiser => None,
        Role::Submitter => Some(caller.name.clone()),
    }
}

fn body_json(body: &Bytes) -> Result<Value, Refusal> {
    serde_json::from_slice(body).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            format!("the body is not JSON: {e}"),
        )
    })
}

/// Reads `tokens` (waiting until each is judged when `wait`), cut to `fields`; None for a
/// token that is not one, or not the caller's.
async fn read(
    state: &Shared,
    caller: &Caller,
    tokens: Vec<String>,
    base64: bool,
    wait: bool,
) -> Result<Vec<Option<Map<String, Value>>>, Refusal> {
    let mine = submitter(caller);
    db(state, move |client| {
        let deadline = Instant::now() + WAIT_MAX;
        loop {
            let found = j0::read(client, &tokens, base64)?;
            let pending = found
                .iter()
                .flatten()
                .any(|(m, _)| m.get("status_id").and_then(Value::as_i64).unwrap_or(0) < 3);
            if !wait || !pending || Instant::now() >= deadline {
                return Ok(found
                    .into_iter()
                    .map(|f| {
                        f.filter(|(_, by)| mine.is_none() || *by == mine)
                            .map(|(m, _)| m)
                    })
                    .collect());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .map_err(from_api)
}

/// `POST /submissions?base64_encoded=&wait=&fields=`: 201 `{"token"}`, or with `wait=true` the
/// judged submission; 422 with field → messages for an invalid one.
async fn create(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Result<Response, Refusal> {
    create_inner(state, headers, query, body).await
}

async fn create_inner(
    state: Shared,
    headers: HeaderMap,
    query: HashMap<String, String>,
    body: Bytes,
) -> Result<Response, Refusal> {
    let caller = caller(&state, &headers)?;
    let base64 = flag(&query, "base64_encoded")?;
    let wait = flag(&query, "wait")?;
    let fields = fields(&query)?;
    let body = body_json(&body)?;
    let available = j0::languages(&state.languages);
    let request = j0::parse(&body, base64, &available)
        .map_err(|e| Refusal(StatusCode::UNPROCESSABLE_ENTITY, Value::Object(*e)))?;
    let token = store(&state, &caller, vec![request], base64)
        .await?
        .remove(0);
    if !wait {
        return Ok((StatusCode::CREATED, Json(json!({ "token": token }))).into_response());
    }
    let found = read(&state, &caller, vec![token], base64, true).await?;
    let one = found.into_iter().next().flatten().unwrap_or_default();
    Ok((StatusCode::CREATED, Json(j0::select(&one, &fields))).into_response())
}

/// Queues `requests` in one go each; their tokens.
async fn store(
    state: &Shared,
    caller: &Caller,
    requests: Vec<Request>,
    base64: bool,
) -> Result<Vec<String>, Refusal> {
    let by = submitter(caller);
    db(state, move |client| {
        let waiting = j0::waiting(client)?;
        if waiting + requests.len() as i64 > j0::MAX_QUEUE {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the queue is full: {waiting} Judge0 submissions wait, at most {} may; try again later",
                    j0::MAX_QUEUE
                ),
            ));
        }
        requests
            .iter()
            .map(|r| j0::submit(client, r, by.as_deref(), base64).map_err(ApiError::from))
            .collect()
    })
    .await
    .map_err(from_api)
}

/// `POST /submissions/batch` `{"submissions": […]}`: 201 with one `{"token"}` or one
/// field → messages object per submission, in order; the valid ones are queued.
async fn create_batch(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Result<Response, Refusal> {
    let run = async {
        let caller = caller(&state, &headers)?;
        let base64 = flag(&query, "base64_encoded")?;
        let body = body_json(&body)?;
        let Some(list) = body.get("submissions").and_then(Value::as_array) else {
            return Err(error(
                StatusCode::BAD_REQUEST,
                "the body must be {\"submissions\": [ … ]}",
            ));
        };
        if list.is_empty() || list.len() > j0::MAX_BATCH {
            return Err(error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "a batch holds 1 to {} submissions, not {}",
                    j0::MAX_BATCH,
                    list.len()
                ),
            ));
        }
        let available = j0::languages(&state.languages);
        let parsed: Vec<_> = list
            .iter()
            .map(|s| j0::parse(s, base64, &available))
            .collect();
        let valid: Vec<Request> = parsed.iter().filter_map(|p| p.clone().ok()).collect();
        let mut tokens = store(&state, &caller, valid, base64).await?.into_iter();
        let answer: Vec<Value> = parsed
            .into_iter()
            .map(|p| match p {
                Ok(_) => json!({ "token": tokens.next() }),
                Err(e) => Value::Object(*e),
            })
            .collect();
        Ok((StatusCode::CREATED, Json(Value::Array(answer))).into_response())
    };
    run.await
}

/// `GET /submissions/batch?tokens=t1,t2&base64_encoded=&fields=`: `{"submissions": […]}`, null
/// for a token that is none.
async fn show_batch(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, Refusal> {
    let run = async {
        let caller = caller(&state, &headers)?;
        let base64 = flag(&query, "base64_encoded")?;
        let fields = fields(&query)?;
        let tokens: Vec<String> = query
            .get("tokens")
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if tokens.is_empty() || tokens.len() > j0::MAX_BATCH {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!(
                    "`tokens` must name 1 to {} tokens separated by commas",
                    j0::MAX_BATCH
                ),
            ));
        }
        let found = read(&state, &caller, tokens, base64, false).await?;
        let list: Vec<Value> = found
            .iter()
            .map(|f| f.as_ref().map_or(Value::Null, |m| j0::select(m, &fields)))
            .collect();
        Ok(Json(json!({ "submissions": list })).into_response())
    };
    run.await
}

/// `GET /submissions/{token}?base64_encoded=&fields=`.
async fn show(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(token): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, Refusal> {
    let run = async {
        let caller = caller(&state, &headers)?;
        let base64 = flag(&query, "base64_encoded")?;
        let fields = fields(&query)?;
        let found = read(&state, &caller, vec![token.clone()], base64, false).await?;
        match found.into_iter().next().flatten() {
            Some(m) => Ok(Json(j0::select(&m, &fields)).into_response()),
            None => Err(error(
                StatusCode::NOT_FOUND,
                format!("no submission with the token {token}"),
            )),
        }
    };
    run.await
}

fn language_json(l: &j0::Language) -> Value {
    json!({ "id": l.id, "name": l.name })
}

/// `GET /languages`: `[{id, name}]`, the ones this server runs.
async fn languages(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Refusal> {
    caller(&state, &headers)?;
    let list: Vec<Value> = j0::languages(&state.languages)
        .iter()
        .map(language_json)
        .collect();
    Ok(Json(Value::Array(list)).into_response())
}

/// `GET /languages/{id}`: `{id, name, is_archived, source_file, compile_cmd, run_cmd}`.
async fn language(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, Refusal> {
    caller(&state, &headers)?;
    let found = id.parse::<i32>().ok().and_then(|id| {
        j0::languages(&state.languages)
            .into_iter()
            .find(|l| l.id == id)
    });
    let Some(l) = found else {
        return Err(error(
            StatusCode::NOT_FOUND,
            format!("no language with the id {id}; GET /judge0/languages lists them"),
        ));
    };
    let entry = state.languages.all().iter().find(|t| t.name == l.ours);
    let words = |c: Option<&Vec<String>>| c.filter(|c| !c.is_empty()).map(|c| c.join(" "));
    Ok(Json(json!({
        "id": l.id,
        "name": l.name,
        "is_archived": false,
        "source_file": l.file,
        "compile_cmd": words(entry.map(|e| &e.compile)),
        "run_cmd": words(entry.map(|e| &e.run)),
    }))
    .into_response())
}

/// `GET /statuses`: `[{id, description}]`.
async fn statuses(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Refusal> {
    caller(&state, &headers)?;
    let list: Vec<Value> = j0::STATUSES.iter().map(|(id, _)| j0::status(*id)).collect();
    Ok(Json(Value::Array(list)).into_response())
}

/// `GET /about`.
async fn about(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Refusal> {
    caller(&state, &headers)?;
    // `version` is the Judge0 CE API version whose shape this serves (clients pick their
    // language-id table by it); `judge_version` is this judge's own.
    Ok(Json(json!({
        "version": j0::API_VERSION,
        "judge_version": env!("CARGO_PKG_VERSION"),
        "homepage": "judge serve: a Judge0-compatible API over the judging service",
        "source_code": "",
        "maintainer": "the organisers of this judge",
    }))
    .into_response())
}

/// `GET /config_info`.
async fn config_info(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, Refusal> {
    caller(&state, &headers)?;
    Ok(Json(j0::config_info()).into_response())
}

/// `POST /authenticate`: 200 when the token is one the server accepts, else 401.
async fn authenticate(
    State(state): State<Shared>,
    headers: HeaderMap,
) -> Result<StatusCode, Refusal> {
    caller(&state, &headers).map(|_| StatusCode::OK)
}

/// Sends the callbacks (`PUT callback_url` with the submission, its default fields) of
/// Judge0 submissions as they are judged, until the process ends: a thread that LISTENs on
/// `judge_done` and also looks every second (a notification missed while the database was
/// away). Each callback is claimed in the database first (`pending` → `sending`), so two
/// servers never send one twice; it is tried [`j0::CALLBACK_TRIES`] times and ends `sent` or
/// `failed`.
pub fn start_callbacks(state: Shared) {
    std::thread::Builder::new()
        .name("judge0-callbacks".into())
        .spawn(move || loop {
            if let Ok(mut client) = crate::connect(state.url()) {
                if client.listen(&[crate::queue::DONE]).is_ok() {
                    while send_callbacks(&mut client).is_ok() {
                        let _ = client.wait(Duration::from_secs(1));
                    }
                }
            }
            std::thread::sleep(Duration::from_secs(1));
        })
        .expect("a thread for the Judge0 callbacks");
}

fn send_callbacks(client: &mut Db) -> Result<(), crate::Error> {
    // A read through the partial index first: the claim below is a write, and on a SQLite file
    // every write waits for the judging slots' writes (and they for it), after every judging.
    let pending: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM judge0_submissions WHERE callback_state = 'pending')",
            &[],
        )?
        .get(0);
    if !pending {
        return Ok(());
    }
    let due = client.query(
        "UPDATE judge0_submissions AS j SET callback_state = 'sending'
         FROM submissions s
         WHERE s.id = j.submission AND s.state = 'done' AND j.callback_state = 'pending'
         RETURNING token, callback_url, callback_base64",
        &[],
    )?;
    for row in due {
        let (token, url, base64): (String, String, bool) = (row.get(0), row.get(1), row.get(2));
        let found = j0::read(client, std::slice::from_ref(&token), base64)?;
        let Some((m, _)) = found.into_iter().next().flatten() else {
            continue;
        };
        let body = j0::select(&m, &j0::DEFAULT_FIELDS).to_string();
        let sent = (0..j0::CALLBACK_TRIES).any(|_| put(&url, &body).is_ok());
        client.execute(
            "UPDATE judge0_submissions SET callback_state = $2 WHERE token = $1",
            &[&token, &if sent { "sent" } else { "failed" }],
        )?;
    }
    Ok(())
}

/// One `PUT url` with a JSON body; Ok when the answer is a 2xx.
fn put(url: &str, body: &str) -> Result<(), String> {
    use std::io::{Read, Write};
    use std::net::ToSocketAddrs;
    let (host, path) = j0::callback_target(url)?;
    let timeout = Duration::from_secs(j0::CALLBACK_TIMEOUT_S);
    let addr = host
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no address")?;
    let mut stream =
        std::net::TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "PUT {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&head);
    match text.split(' ').nth(1) {
        Some(code) if code.starts_with('2') => Ok(()),
        _ => Err(format!("the callback answered {text:?}")),
    }
}
