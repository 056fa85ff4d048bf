//! `judge serve`: the service's HTTP API (axum on a tokio runtime of its own).
//!
//! One router per resource (`problems`, `submissions`), one error type ([`ApiError`]) that
//! renders as a JSON problem (RFC 9457) with its status, bearer tokens (`auth`) checked by an
//! extractor, and the OpenAPI document kept beside the handlers (`openapi`), tested against
//! the router's route list. Database calls run on blocking threads over a small pool of
//! synchronous connections: the queue's code is the workers' code.

pub mod auth;
pub(crate) mod clics;
mod events;
pub mod judge0;
pub(crate) mod jury;
pub mod openapi;
mod problems;
mod rejudges;
mod submissions;
mod unzip;

use crate::db::Db;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use axum::Router;
use std::sync::{Arc, Mutex};

/// The largest request body anything accepts (a package upload); tower-http refuses more
/// before it is read.
pub const MAX_BODY: usize = 64 << 20;
/// The largest package archive once decompressed: a gzip bomb stops here.
pub const MAX_PACKAGE: u64 = 256 << 20;
/// The most files and folders a `.zip` package may hold.
pub const MAX_ENTRIES: usize = 10_000;
/// The largest source a submission may carry.
pub const MAX_SOURCE: usize = 1 << 20;
/// The largest submission request (a 1 MiB source escaped in JSON fits).
pub const MAX_SUBMISSION_BODY: usize = 8 << 20;

/// What every handler shares: the database, the tokens and the language table (to refuse a
/// submission no worker could build).
pub struct State {
    url: String,
    idle: Mutex<Vec<Db>>,
    pub tokens: auth::Tokens,
    pub languages: judge_core::lang::Languages,
    /// Event streams open now.
    streams: std::sync::atomic::AtomicUsize,
    /// The server is stopping: event streams end (so the graceful shutdown is not held up).
    stopping: std::sync::atomic::AtomicBool,
}

pub type Shared = Arc<State>;

impl State {
    fn url(&self) -> &str {
        &self.url
    }
}

impl State {
    /// Connects once (creating the tables that are missing) so a wrong URL fails at start.
    pub fn new(
        url: &str,
        tokens: auth::Tokens,
        languages: judge_core::lang::Languages,
    ) -> Result<Shared, crate::Error> {
        let mut client = crate::connect(url)?;
        clics::start(&mut client)?;
        Ok(Arc::new(State {
            url: url.to_string(),
            idle: Mutex::new(vec![client]),
            tokens,
            languages,
            streams: Default::default(),
            stopping: Default::default(),
        }))
    }
}

/// How long a pooled connection has to answer before it is replaced.
const POOLED_CHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `work` with a database connection on a blocking thread; the connection goes back to
/// the pool unless it broke.
pub(crate) async fn db<T: Send + 'static>(
    state: &Shared,
    work: impl FnOnce(&mut Db) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || {
        let taken = state.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        // A pooled connection may have died with the server (a restart) unnoticed: one
        // round trip tells, and a dead one is replaced.
        let live = taken
            .filter(|c| !c.is_closed())
            .and_then(|mut c| c.is_valid(POOLED_CHECK).then_some(c));
        let mut client = match live {
            Some(client) => client,
            None => Db::open(&state.url).map_err(ApiError::from)?,
        };
        let result = work(&mut client);
        if !client.is_closed() {
            state
                .idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(client);
        }
        result
    })
    .await
    .map_err(|e| ApiError::internal(format!("a database task failed: {e}")))?
}

/// An answer that is not a success: a status and the reason, rendered as
/// `application/problem+json` `{"type", "title", "status", "detail"}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub detail: String,
}

impl ApiError {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            detail: detail.into(),
        }
    }
    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, detail)
    }
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, detail)
    }
}

impl From<postgres::Error> for ApiError {
    fn from(e: postgres::Error) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("database: {e}"))
    }
}

impl From<crate::Error> for ApiError {
    fn from(e: crate::Error) -> ApiError {
        match e {
            crate::Error::Db(e) => e.into(),
            crate::Error::Lite(e) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("database: {e}"))
            }
            crate::Error::Unknown(m) => ApiError::new(StatusCode::NOT_FOUND, m),
            crate::Error::Invalid(m) => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, m),
            crate::Error::Conflict(m) => ApiError::new(StatusCode::CONFLICT, m),
            other => ApiError::internal(other.to_string()),
        }
    }
}

impl From<axum::extract::rejection::BytesRejection> for ApiError {
    fn from(e: axum::extract::rejection::BytesRejection) -> ApiError {
        let status = e.status();
        let detail = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "the request's body is too large".to_string()
        } else {
            e.body_text()
        };
        ApiError::new(status, detail)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "type": "about:blank",
            "title": self.status.canonical_reason().unwrap_or("Error"),
            "status": self.status.as_u16(),
            "detail": self.detail,
        });
        (
            self.status,
            [(header::CONTENT_TYPE, "application/problem+json")],
            body.to_string(),
        )
            .into_response()
    }
}

/// Every route: its path, its method and its handler. The router is made from this list and
/// the OpenAPI document is tested against it, so neither can miss a route.
pub fn routes() -> Vec<(&'static str, Method, MethodRouter<Shared>)> {
    use axum::routing::{get, post};
    vec![
        ("/api/v1/problems", Method::GET, get(problems::list)),
        ("/api/v1/problems", Method::POST, post(problems::upload)),
        ("/api/v1/submissions", Method::GET, get(submissions::list)),
        (
            "/api/v1/submissions",
            Method::POST,
            post(submissions::create)
                .layer(axum::extract::DefaultBodyLimit::max(MAX_SUBMISSION_BODY)),
        ),
        (
            "/api/v1/submissions/{id}",
            Method::GET,
            get(submissions::show),
        ),
        ("/api/v1/events", Method::GET, get(events::stream)),
        ("/api/v1/workers", Method::GET, get(jury::workers)),
        ("/api/v1/queue", Method::GET, get(jury::queue)),
        ("/api/v1/rejudges", Method::GET, get(rejudges::list)),
        ("/api/v1/rejudges", Method::POST, post(rejudges::create)),
        ("/api/v1/rejudges/stale", Method::GET, get(rejudges::stale)),
        ("/api/v1/rejudges/{id}", Method::GET, get(rejudges::show)),
        (
            "/api/v1/rejudges/{id}/apply",
            Method::POST,
            post(rejudges::apply),
        ),
        (
            "/api/v1/rejudges/{id}/cancel",
            Method::POST,
            post(rejudges::cancel),
        ),
        ("/api/v1/contests", Method::GET, get(clics::contests)),
        ("/api/v1/contests/{id}", Method::GET, get(clics::contest)),
        (
            "/api/v1/contests/{id}/judgement-types",
            Method::GET,
            get(clics::judgement_types),
        ),
        (
            "/api/v1/contests/{id}/judgement-types/{jt}",
            Method::GET,
            get(clics::judgement_type),
        ),
        (
            "/api/v1/contests/{id}/judgements",
            Method::GET,
            get(clics::judgements),
        ),
        (
            "/api/v1/contests/{id}/judgements/{jid}",
            Method::GET,
            get(clics::judgement),
        ),
        ("/api/v1/contests/{id}/runs", Method::GET, get(clics::runs)),
        (
            "/api/v1/contests/{id}/runs/{rid}",
            Method::GET,
            get(clics::run),
        ),
        ("/api/v1/openapi.json", Method::GET, get(openapi::document)),
    ]
}

/// The API's router over `state`.
pub fn router(state: Shared) -> Router {
    let mut by_path: Vec<(&'static str, MethodRouter<Shared>)> = Vec::new();
    for (path, _, handler) in routes() {
        match by_path.iter_mut().find(|(p, _)| *p == path) {
            Some((_, existing)) => *existing = std::mem::take(existing).merge(handler),
            None => by_path.push((path, handler)),
        }
    }
    let mut router = Router::new();
    for (path, handler) in by_path {
        router = router.route(path, handler);
    }
    router
        .fallback(|| async {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "no such endpoint; see /api/v1/openapi.json",
            )
        })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(MAX_BODY))
        .layer(axum::middleware::map_response(as_problem))
        .with_state(state.clone())
        .route("/jury", axum::routing::get(jury::page))
        .route("/jury/app.js", axum::routing::get(jury::script))
        .route("/jury/style.css", axum::routing::get(jury::style))
        .nest("/judge0", judge0::router(state))
}

/// An error answered by a layer or by axum itself (tower-http's 413, a 405) as a JSON
/// problem too: every error a client sees has one shape.
async fn as_problem(response: Response) -> Response {
    let status = response.status();
    let problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t == "application/problem+json");
    if !(status.is_client_error() || status.is_server_error()) || problem {
        return response;
    }
    let detail = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "the request's body is too large",
        StatusCode::METHOD_NOT_ALLOWED => {
            "this endpoint does not take this method; see /api/v1/openapi.json"
        }
        _ => status.canonical_reason().unwrap_or("error"),
    };
    let allow = response.headers().get(header::ALLOW).cloned();
    let mut answer = ApiError::new(status, detail).into_response();
    if let Some(allow) = allow {
        answer.headers_mut().insert(header::ALLOW, allow);
    }
    answer
}

/// Stops [`serve`] from any thread (a signal handler's).
#[derive(Clone, Default)]
pub struct Stop(Arc<tokio::sync::Notify>);

impl Stop {
    pub fn new() -> Stop {
        Stop::default()
    }

    /// The server stops (at once if it already waits, else as soon as it starts).
    pub fn stop(&self) {
        self.0.notify_one();
    }
}

/// Serves the API on `listener` until `shutdown` is told to stop: then no new connection is
/// taken, event streams end, the requests under way are answered, and it returns.
pub fn serve(
    listener: std::net::TcpListener,
    state: Shared,
    shutdown: Stop,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    judge0::start_callbacks(state.clone());
    let stopping = state.clone();
    // The pool's connections close by blocking on a runtime of their own: the last reference
    // to the state must go outside this one.
    let kept = state.clone();
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        axum::serve(listener, router(state))
            .with_graceful_shutdown(async move {
                shutdown.0.notified().await;
                stopping
                    .stopping
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            })
            .await
    });
    drop(runtime);
    drop(kept);
    served
}
