//! `GET /api/v1/events`: Server-Sent Events of submissions being judged, for the jury's
//! screens (organisers only). Each stream has a blocking thread that LISTENs on the queue's
//! notifications (sent on commit only) and turns them into `judging` and `done` events, and
//! into the workers' events of each test (the `events` table's rows, named by id in the
//! notification: an event may be larger than a notification can carry); the thread ends when
//! the client goes. A rejudge's shadows are not submissions: their judging is not told.

use super::auth::Caller;
use super::{ApiError, Shared};
use crate::db::{Db, Sql};
use crate::queue::{CLAIMED, DONE, EVENT};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::Stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Streams open at once: each holds a database connection.
const MAX_STREAMS: usize = 16;

/// Releases a stream's place when its thread ends.
struct Place<'a>(&'a AtomicUsize);

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The event a notification stands for: (name, data).
fn event(client: &mut Db, channel: &str, payload: &str) -> Option<(String, String)> {
    if channel == EVENT {
        let id: i64 = payload.parse().ok()?;
        let row = client
            .query_opt(
                "SELECT e.name, e.data FROM events e JOIN submissions s ON s.id = e.submission
                 WHERE e.id = $1 AND s.shadow_of IS NULL",
                &[&id],
            )
            .ok()??;
        return Some((row.get(0), row.get(1)));
    }
    let (name, data) = state_event(client, channel, payload)?;
    Some((name.to_string(), data.to_string()))
}

/// A submission's change of state: `judging` or `done`.
fn state_event(client: &mut Db, channel: &str, payload: &str) -> Option<(&'static str, Value)> {
    if channel == CLAIMED {
        let mut parts = payload.splitn(3, ':');
        let job: i64 = parts.next()?.parse().ok()?;
        let attempt: i32 = parts.next()?.parse().ok()?;
        let worker = parts.next()?;
        let row = client
            .query_opt(
                "SELECT jobs.submission FROM jobs JOIN submissions s ON s.id = jobs.submission
                 WHERE jobs.id = $1 AND s.shadow_of IS NULL",
                &[&job],
            )
            .ok()??;
        let id: i64 = row.get(0);
        Some((
            "judging",
            json!({"id": id, "attempt": attempt, "worker": worker}),
        ))
    } else if channel == DONE {
        let id: i64 = payload.parse().ok()?;
        let row = client
            .query_opt(
                "SELECT problem, verdict, time_ms, memory_kib FROM submissions
                 WHERE id = $1 AND shadow_of IS NULL",
                &[&id],
            )
            .ok()??;
        Some((
            "done",
            json!({
                "id": id,
                "problem": row.get::<_, String>(0),
                "verdict": row.get::<_, Option<String>>(1),
                "time_ms": row.get::<_, Option<i64>>(2),
                "memory_kib": row.get::<_, Option<i64>>(3),
            }),
        ))
    } else {
        None
    }
}

/// `GET /api/v1/events`.
pub async fn stream(
    caller: Caller,
    State(state): State<Shared>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    caller.organiser("the events stream")?;
    if state.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
        state.streams.fetch_sub(1, Ordering::SeqCst);
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{MAX_STREAMS} event streams are open already; try again later"),
        ));
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(256);
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<Result<(), ApiError>>();
    let thread_state = state.clone();
    tokio::task::spawn_blocking(move || {
        let _place = Place(&thread_state.streams);
        let listening = Db::open(thread_state.url()).and_then(|mut client| {
            client.listen(&[CLAIMED, DONE, EVENT])?;
            Ok(client)
        });
        let mut client = match listening {
            Ok(client) => {
                let _ = ready_tx.send(Ok(()));
                client
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e.into()));
                return;
            }
        };
        while !tx.is_closed() && !thread_state.stopping.load(Ordering::SeqCst) {
            let (channel, payload) = match client.wait(Duration::from_secs(1)) {
                Ok(Some(note)) => note,
                Ok(None) => continue,
                Err(_) => return,
            };
            if let Some((name, data)) = event(&mut client, &channel, &payload) {
                let sse = Event::default().event(name).data(data);
                if tx.blocking_send(sse).is_err() {
                    return;
                }
            }
        }
    });
    ready_rx
        .await
        .map_err(|_| ApiError::internal("the events stream did not start"))??;
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|event| (Ok(event), rx))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
