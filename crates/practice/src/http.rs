//! The practice server's HTTP, on the project's one HTTP stack: axum over hyper on a tokio
//! runtime of its own (per listener), as `judge serve`. Hyper reads and writes HTTP/1.1; this
//! module turns each request into a [`Request`] (the path and query percent-decoded, header
//! names in lower case, the body whole) for the synchronous handler of `api.rs`, which runs on
//! a blocking thread (it reads SQLite and files, and a stress run waits), and its [`Response`]
//! back into axum's.
//!
//! Bounded everywhere: at most [`MAX_CONNECTIONS`] connections at once (when all are taken, the
//! one that has been reading its request head the longest is dropped to make room, so clients
//! that trickle their requests cannot keep a real one out); the head within
//! [`Limits::deadline`] (hyper's header read timeout) and [`MAX_HEAD`] bytes (431); the body
//! within what is left of the deadline (408) and at most a cap per listener (413, before it is
//! read when `Content-Length` says so); one request per connection (`Connection: close`). A
//! long-lived response (Server-Sent Events) is written by its handler on a blocking thread
//! into a small channel; a write that stalls for [`WRITE_TIMEOUT`] (the client stopped
//! reading, its buffers are full) ends it.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use futures_util::StreamExt;
use std::collections::VecDeque;
use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower::Service;

/// The request line and headers together (hyper's read buffer: at least 8 KiB).
pub const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once per listener.
pub const MAX_CONNECTIONS: usize = 64;
/// The whole request (head and body) must arrive within this.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// A long-lived response whose writes stall this long (its client stopped reading) ends.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// What one listener allows.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_body: usize,
    pub deadline: Duration,
    pub max_connections: usize,
}

impl Limits {
    pub fn new(max_body: usize) -> Limits {
        Limits {
            max_body,
            deadline: REQUEST_DEADLINE,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path, percent-decoded, without the query.
    pub path: String,
    /// The query's pairs, percent-decoded.
    pub query: Vec<(String, String)>,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of cookie `name`.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n == "cookie")
            .flat_map(|(_, v)| v.split(';'))
            .find_map(|pair| {
                let (k, v) = pair.trim().split_once('=')?;
                (k == name).then_some(v)
            })
    }

    /// A request from its method, target (`/path?query`) and headers, decoded as the server
    /// decodes them; `Err` with the status and why.
    pub fn new(
        method: &str,
        target: &str,
        headers: Vec<(String, String)>,
    ) -> Result<Request, (u16, &'static str)> {
        let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
        let path = percent_decode(raw_path).ok_or((400, "malformed path"))?;
        if !path.starts_with('/') || path.contains('\0') {
            return Err((400, "malformed path"));
        }
        let mut query = Vec::new();
        for pair in raw_query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = percent_decode(&k.replace('+', " ")).ok_or((400, "malformed query"))?;
            let v = percent_decode(&v.replace('+', " ")).ok_or((400, "malformed query"))?;
            query.push((k, v));
        }
        // Two Host headers would let the check of `access` read one and a proxy the other.
        if headers.iter().filter(|(n, _)| n == "host").count() > 1 {
            return Err((400, "more than one Host header"));
        }
        Ok(Request {
            method: method.to_string(),
            path,
            query,
            headers,
            body: Vec::new(),
        })
    }
}

/// Writes a long-lived response's body.
pub type StreamFn = dyn FnOnce(&mut dyn Write) + Send;

/// What a handler answers.
pub enum Response {
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// A long-lived `text/event-stream`: the function writes to the connection until it fails
    /// or decides to stop.
    Stream(Box<StreamFn>),
}

impl Response {
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response::Full {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    /// `{"error": message}` with the status.
    pub fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(status, &serde_json::json!({ "error": message.into() }))
    }

    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Response {
        Response::Full {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body,
        }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Response {
        if let Response::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    pub fn status(&self) -> u16 {
        match self {
            Response::Full { status, .. } => *status,
            Response::Stream(_) => 200,
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

struct Shared {
    handle: Box<Handler>,
    limits: Limits,
}

/// Serves `listener` until the process ends, `handle` called with each request on a blocking
/// thread. Never panics on what a client sends; a panic in `handle` (a bug) answers 500.
pub fn serve<H>(listener: TcpListener, max_body: usize, handle: H)
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    serve_with(listener, Limits::new(max_body), handle)
}

/// [`serve`] with other [`Limits`] (the tests' shorter deadlines).
pub fn serve_with<H>(listener: TcpListener, limits: Limits, handle: H)
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("practice-http")
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => panic!("cannot start the HTTP runtime: {e}"),
    };
    let shared = Arc::new(Shared {
        handle: Box::new(handle),
        limits,
    });
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(shared.clone());
    runtime.block_on(accept(listener, app, limits));
}

/// The connections still reading their request head, oldest first: (id, its task).
#[derive(Default)]
struct Reading(Mutex<VecDeque<(u64, tokio::task::AbortHandle)>>);

impl Reading {
    /// Starts connection `id`'s task and counts it as reading; the lock is held meanwhile, so
    /// the task cannot say it read its head before it is counted.
    fn start(&self, id: u64, task: impl std::future::Future<Output = ()> + Send + 'static) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let task = tokio::spawn(task);
        all.push_back((id, task.abort_handle()));
    }

    fn remove(&self, id: u64) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(i, _)| *i != id);
    }

    /// Drops the connection that has been reading the longest; false when none is.
    fn evict_oldest(&self) -> bool {
        let oldest = self.0.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
        match oldest {
            Some((_, task)) => {
                task.abort();
                true
            }
            None => false,
        }
    }
}

async fn accept(listener: TcpListener, app: axum::Router, limits: Limits) {
    let listener = match listener
        .set_nonblocking(true)
        .and_then(|_| tokio::net::TcpListener::from_std(listener))
    {
        Ok(l) => l,
        Err(e) => panic!("cannot serve the listener: {e}"),
    };
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let reading = Arc::new(Reading::default());
    let ids = AtomicU64::new(0);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // EMFILE and the like: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) if reading.evict_oldest() => {
                // Its slot comes back as its task ends.
                match tokio::time::timeout(Duration::from_secs(1), slots.clone().acquire_owned())
                    .await
                {
                    Ok(Ok(slot)) => slot,
                    _ => continue,
                }
            }
            Err(_) => {
                // A fresh socket's buffer takes the whole answer at once.
                let busy = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\nConnection: close\r\n\r\ntoo many connections\n";
                let _ = stream.try_write(busy);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let id = ids.fetch_add(1, Ordering::SeqCst);
        let (app, headed) = (app.clone(), reading.clone());
        // Its head is read once hyper calls the service: from then on it is no longer reading.
        let service = hyper::service::service_fn(move |request| {
            headed.remove(id);
            let mut app = app.clone();
            async move { app.call(request).await }
        });
        let deadline = limits.deadline;
        let done = reading.clone();
        reading.start(id, async move {
            let _slot = slot;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(deadline)
                .max_buf_size(MAX_HEAD)
                .keep_alive(false);
            let _ = http
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            done.remove(id);
        });
    }
}

/// Every request: read whole, handled on a blocking thread, answered.
async fn answer(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let mut headers = Vec::new();
    for (name, value) in &parts.headers {
        let Ok(value) = value.to_str() else {
            return plain(400, "a header value is not visible ASCII");
        };
        headers.push((name.as_str().to_ascii_lowercase(), value.trim().to_string()));
    }
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let mut request = match Request::new(parts.method.as_str(), &target, headers) {
        Ok(r) => r,
        Err((status, why)) => return plain(status, why),
    };
    let max = shared.limits.max_body;
    let declared = request
        .header("content-length")
        .and_then(|l| l.parse::<u64>().ok());
    if declared.is_some_and(|l| l > max as u64) {
        return plain(
            413,
            &format!("request body too large (at most {max} bytes)"),
        );
    }
    let left = shared.limits.deadline.saturating_sub(started.elapsed());
    match tokio::time::timeout(left, read_body(body, max)).await {
        Err(_) => return plain(408, "request not received in time"),
        Ok(Err((status, why))) => return plain(status, &why),
        Ok(Ok(bytes)) => request.body = bytes,
    }
    let handler = shared.clone();
    let response = tokio::task::spawn_blocking(move || (handler.handle)(&request)).await;
    match response {
        Ok(response) => into_axum(response),
        Err(_) => into_axum(Response::error(500, "internal error")),
    }
}

async fn read_body(body: Body, max: usize) -> Result<Vec<u8>, (u16, String)> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| (400, format!("cannot read the request body: {e}")))?;
        if bytes.len() + chunk.len() > max {
            return Err((413, format!("request body too large (at most {max} bytes)")));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// A protocol error: its status and a line of text.
fn plain(status: u16, message: &str) -> axum::response::Response {
    into_axum(Response::bytes(
        status,
        "text/plain; charset=utf-8",
        format!("{message}\n").into_bytes(),
    ))
}

fn into_axum(response: Response) -> axum::response::Response {
    let (status, headers, body) = match response {
        Response::Full {
            status,
            headers,
            body,
        } => (status, headers, Body::from(body)),
        Response::Stream(write) => {
            let headers = vec![("Content-Type".to_string(), "text/event-stream".to_string())];
            (200, headers, stream_body(write))
        }
    };
    let mut out = axum::response::Response::new(body);
    *out.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = out.headers_mut();
    for (name, value) in headers {
        // A value with a line break is refused by `HeaderValue` (they come from this crate's
        // handlers, never from a client).
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            h.append(name, value);
        }
    }
    h.entry(header::CONTENT_TYPE)
        .or_insert(HeaderValue::from_static("text/plain; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    out
}

/// A long-lived body: `write` runs on a blocking thread and its writes become the body's
/// chunks; it ends when `write` returns, or its writes fail once the client is gone (or a
/// write has stalled for [`WRITE_TIMEOUT`]).
fn stream_body(write: Box<StreamFn>) -> Body {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    tokio::task::spawn_blocking(move || {
        let mut out = Channel(tx);
        write(&mut out);
    });
    let chunks = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    });
    Body::from_stream(chunks)
}

/// The writing end of a streamed body.
struct Channel(tokio::sync::mpsc::Sender<Bytes>);

impl Write for Channel {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use tokio::sync::mpsc::error::TrySendError;
        let mut chunk = Bytes::copy_from_slice(buf);
        let since = Instant::now();
        loop {
            match self.0.try_send(chunk) {
                Ok(()) => return Ok(buf.len()),
                Err(TrySendError::Full(back)) if since.elapsed() < WRITE_TIMEOUT => {
                    chunk = back;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(_) => return Err(std::io::ErrorKind::BrokenPipe.into()),
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `%XX` decoding; `None` for a malformed escape or a result that is not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpStream;

    fn start(limits: Limits) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            serve_with(listener, limits, |r| {
                Response::json(
                    200,
                    &serde_json::json!({
                        "path": r.path, "q": r.query("q"), "host": r.header("host"),
                        "cookie": r.cookie("judge_token"), "body": r.body.len(),
                    }),
                )
            })
        });
        addr
    }

    fn exchange(addr: std::net::SocketAddr, request: &[u8]) -> String {
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let _ = c.write_all(request);
        let mut answer = Vec::new();
        let _ = c.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[test]
    fn a_request_reaches_the_handler_decoded_and_the_connection_closes() {
        let addr = start(Limits::new(100));
        let answer = exchange(
            addr,
            b"POST /api/a%2Db?q=x%20y+z HTTP/1.1\r\nHost: 127.0.0.1:9\r\nCookie: a=1; judge_token=xyz\r\nContent-Length: 3\r\n\r\nabc",
        );
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        assert!(answer.contains("connection: close"), "{answer}");
        assert!(answer.contains("x-frame-options: DENY"), "{answer}");
        let body: serde_json::Value =
            serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"path": "/api/a-b", "q": "x y z", "host": "127.0.0.1:9",
                "cookie": "xyz", "body": 3})
        );
    }

    #[test]
    fn malformed_requests_get_a_status_not_a_hang() {
        let addr = start(Limits::new(100));
        for (request, status) in [
            (&b"GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n"[..], "400"),
            (b"GET /%ff HTTP/1.1\r\nHost: a\r\n\r\n", "400"),
            (b"GET /%00 HTTP/1.1\r\nHost: a\r\n\r\n", "400"),
            (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400"),
            (
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
                "400",
            ),
            (
                b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\nxx",
                "413",
            ),
        ] {
            let answer = exchange(addr, request);
            assert!(
                answer.starts_with(&format!("HTTP/1.1 {status}")),
                "{:?}: {answer}",
                String::from_utf8_lossy(request)
            );
        }
        // A chunked body over the cap, whatever its head says.
        let chunked = format!(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n80\r\n{}\r\n0\r\n\r\n",
            "a".repeat(128)
        );
        let answer = exchange(addr, chunked.as_bytes());
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
        let huge = format!(
            "GET / HTTP/1.1\r\nHost: a\r\nX: {}\r\n\r\n",
            "a".repeat(MAX_HEAD)
        );
        let answer = exchange(addr, huge.as_bytes());
        assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    }

    #[test]
    fn a_slow_client_is_cut_off_at_the_deadline() {
        let addr = start(Limits {
            max_body: 100,
            deadline: Duration::from_millis(500),
            max_connections: 8,
        });
        let started = Instant::now();
        // Half a head: the connection is closed.
        let answer = exchange(addr, b"GET / HTTP/1.1\r\nHo");
        assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
        // A head and half its body: 408.
        let answer = exchange(
            addr,
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",
        );
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn clients_trickling_requests_on_every_slot_do_not_keep_a_real_request_out() {
        let addr = start(Limits::new(100));
        let slow: Vec<TcpStream> = (0..MAX_CONNECTIONS + 5)
            .map(|_| {
                let mut c = TcpStream::connect(addr).unwrap();
                c.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
                c
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        let answer = exchange(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(slow);
    }

    #[test]
    fn a_streamed_response_ends_when_its_client_goes() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (ended_tx, ended) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            serve(listener, 100, move |_| {
                let ended_tx = ended_tx.clone();
                Response::Stream(Box::new(move |out| {
                    let mut n = 0;
                    while out.write_all(b"data: x\n\n").is_ok() {
                        n += 1;
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    let _ = ended_tx.send(n);
                }))
            })
        });
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"GET /api/events HTTP/1.1\r\nHost: a\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 4096];
        let n = c.read(&mut buf).unwrap();
        let head = String::from_utf8_lossy(&buf[..n]);
        assert!(
            head.starts_with("HTTP/1.1 200") && head.contains("text/event-stream"),
            "{head}"
        );
        drop(c);
        let written = ended.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(written > 0);
    }
}
