//! A deliberately small HTTP/1.1 server on `std::net`: one thread per connection (at most
//! [`MAX_CONNECTIONS`] at once, the rest answered 503 at once), one request per connection
//! (`Connection: close`), bounded everywhere: the head ([`MAX_HEAD`]), the body (a cap per
//! listener), and the time a client may take to send them ([`REQUEST_DEADLINE`]), so a slow or
//! hostile client holds one thread for a few seconds and nothing else. Request bodies need a
//! `Content-Length` (no chunked uploads). Long-lived responses (Server-Sent Events) keep their
//! thread and write with a timeout.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The request line and headers together.
pub const MAX_HEAD: usize = 16 * 1024;
/// Connections served at once per listener; more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 64;
/// The whole request (head and body) must arrive within this.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// A write that makes no progress for this long ends the connection.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Why a request could not be read; each maps to a status.
#[derive(Debug, PartialEq)]
pub enum ReadError {
    /// The connection closed or timed out before a whole request arrived: answer nothing.
    Gone,
    Bad(u16, &'static str),
}

/// Serves `listener` until the process ends: each connection on its own thread, `handle` called
/// with each request. Never panics on what a client sends; a panic in `handle` (a bug) ends that
/// connection only. When every slot is taken, the connection that has been reading its request
/// the longest is closed to make room (a client that trickles its request cannot keep others
/// out: a real request arrives at once); when none is reading, the new one gets 503.
pub fn serve<H>(listener: TcpListener, max_body: usize, handle: H)
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    let handle = Arc::new(handle);
    let active = Arc::new(AtomicUsize::new(0));
    let reading = Arc::new(Reading::default());
    for (n, stream) in listener.incoming().enumerate() {
        let Ok(mut stream) = stream else {
            // EMFILE and the like: wait a little rather than spin.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS && !reading.evict_oldest() {
            let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
            let _ = write_full(&mut stream, 503, &[], b"too many connections\n");
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let handle = handle.clone();
        let slot = Slot(active.clone());
        let reading = reading.clone();
        let id = n as u64;
        if let Ok(clone) = stream.try_clone() {
            reading.add(id, clone);
        }
        let spawned = std::thread::Builder::new()
            .name("practice-http".into())
            .spawn(move || {
                let _slot = slot;
                connection(stream, max_body, &*handle, &|| reading.remove(id));
            });
        // Could not start a thread: the slot was moved into the closure and dropped with it.
        let _ = spawned;
    }
}

/// The connections still reading their request, oldest first.
#[derive(Default)]
struct Reading(std::sync::Mutex<Vec<(u64, TcpStream)>>);

impl Reading {
    fn add(&self, id: u64, stream: TcpStream) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, stream));
    }

    fn remove(&self, id: u64) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(i, _)| *i != id);
    }

    /// Closes the oldest connection still reading; false when there is none.
    fn evict_oldest(&self) -> bool {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if all.is_empty() {
            return false;
        }
        let (_, stream) = all.remove(0);
        let _ = stream.shutdown(std::net::Shutdown::Both);
        true
    }
}

/// Gives back a connection slot when the connection's thread ends (also by a panic).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn connection(
    mut stream: TcpStream,
    max_body: usize,
    handle: &dyn Fn(&Request) -> Response,
    read: &dyn Fn(),
) {
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let request = read_request(&mut stream, max_body, REQUEST_DEADLINE);
    read();
    let request = match request {
        Ok(r) => r,
        Err(ReadError::Gone) => return,
        Err(ReadError::Bad(status, message)) => {
            let _ = write_full(&mut stream, status, &[], format!("{message}\n").as_bytes());
            return;
        }
    };
    let response = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(&request)))
    {
        Ok(r) => r,
        Err(_) => Response::error(500, "internal error"),
    };
    match response {
        Response::Full {
            status,
            headers,
            body,
        } => {
            let _ = write_full(&mut stream, status, &headers, &body);
        }
        Response::Stream(write) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
            if stream.write_all(head.as_bytes()).is_ok() {
                let _ =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(&mut stream)));
            }
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Reads one request within `deadline`. The head ends at the first blank line and may not
/// exceed [`MAX_HEAD`]; the body is exactly `Content-Length` bytes, at most `max_body`.
pub fn read_request(
    stream: &mut TcpStream,
    max_body: usize,
    deadline: Duration,
) -> Result<Request, ReadError> {
    let until = Instant::now() + deadline;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = find_blank_line(&buf) {
            break end;
        }
        if buf.len() > MAX_HEAD {
            return Err(ReadError::Bad(431, "request head too large"));
        }
        let n = read_some(stream, &mut chunk, until)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    if head_end > MAX_HEAD {
        return Err(ReadError::Bad(431, "request head too large"));
    }
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| ReadError::Bad(400, "request head is not UTF-8"))?;
    let mut request = parse_head(head)?;
    let length = content_length(&request)?;
    if length > max_body {
        return Err(ReadError::Bad(413, "request body too large"));
    }
    let mut body = buf[head_end + 4..].to_vec();
    // curl and others wait for this before sending a larger body.
    let expects = request
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"));
    if expects && body.len() < length {
        stream
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .map_err(|_| ReadError::Gone)?;
    }
    if body.len() > length {
        return Err(ReadError::Bad(400, "more bytes than Content-Length"));
    }
    while body.len() < length {
        let n = read_some(stream, &mut chunk, until)?;
        body.extend_from_slice(&chunk[..n]);
        if body.len() > length {
            return Err(ReadError::Bad(400, "more bytes than Content-Length"));
        }
    }
    request.body = body;
    Ok(request)
}

fn read_some(stream: &mut TcpStream, chunk: &mut [u8], until: Instant) -> Result<usize, ReadError> {
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(ReadError::Bad(408, "request not received in time"));
    }
    stream
        .set_read_timeout(Some(left))
        .map_err(|_| ReadError::Gone)?;
    match stream.read(chunk) {
        Ok(0) => Err(ReadError::Gone),
        Ok(n) => Ok(n),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Err(ReadError::Bad(408, "request not received in time"))
        }
        Err(_) => Err(ReadError::Gone),
    }
}

fn find_blank_line(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n")
}

/// The request line and headers (no body yet).
pub fn parse_head(head: &str) -> Result<Request, ReadError> {
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Bad(400, "malformed request line"));
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0") {
        return Err(ReadError::Bad(505, "only HTTP/1.0 and 1.1"));
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ReadError::Bad(400, "malformed method"));
    }
    if !target.starts_with('/') {
        return Err(ReadError::Bad(400, "the target must be a path"));
    }
    let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
    let path = percent_decode(raw_path).ok_or(ReadError::Bad(400, "malformed path"))?;
    if path.contains('\0') {
        return Err(ReadError::Bad(400, "malformed path"));
    }
    let mut query = Vec::new();
    for pair in raw_query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k =
            percent_decode(&k.replace('+', " ")).ok_or(ReadError::Bad(400, "malformed query"))?;
        let v =
            percent_decode(&v.replace('+', " ")).ok_or(ReadError::Bad(400, "malformed query"))?;
        query.push((k, v));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Bad(400, "malformed header"));
        };
        if name.is_empty() || name.bytes().any(|b| b <= b' ' || b >= 0x7f) {
            return Err(ReadError::Bad(400, "malformed header name"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        if headers.len() > 100 {
            return Err(ReadError::Bad(431, "too many headers"));
        }
    }
    let request = Request {
        method: method.to_string(),
        path,
        query,
        headers,
        body: Vec::new(),
    };
    // Two Host headers would let the check below read one and a proxy the other.
    if request.headers.iter().filter(|(n, _)| n == "host").count() > 1 {
        return Err(ReadError::Bad(400, "more than one Host header"));
    }
    Ok(request)
}

fn content_length(request: &Request) -> Result<usize, ReadError> {
    if request.header("transfer-encoding").is_some() {
        return Err(ReadError::Bad(
            411,
            "chunked bodies are not accepted: send Content-Length",
        ));
    }
    let lengths: Vec<&str> = request
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.as_str())
        .collect();
    match lengths.as_slice() {
        [] => Ok(0),
        [one] if !one.is_empty() && one.bytes().all(|b| b.is_ascii_digit()) && one.len() <= 12 => {
            one.parse()
                .map_err(|_| ReadError::Bad(400, "bad Content-Length"))
        }
        _ => Err(ReadError::Bad(400, "bad Content-Length")),
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

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        303 => "See Other",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Status",
    }
}

fn write_full(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    let mut typed = false;
    for (name, value) in headers {
        typed |= name.eq_ignore_ascii_case("content-type");
        // A value with a line break would split the response; they come from this module's
        // callers, never from a client, but refuse them anyway.
        if !value.contains(['\r', '\n']) {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    if !typed {
        head.push_str("Content-Type: text/plain; charset=utf-8\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_head_parses_into_path_query_and_headers() {
        let r = parse_head("GET /api/submissions?problem=a%2Db&x HTTP/1.1\r\nHost: 127.0.0.1:9\r\nCookie: a=1; judge_token=xyz")
            .unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/api/submissions");
        assert_eq!(r.query("problem"), Some("a-b"));
        assert_eq!(r.query("x"), Some(""));
        assert_eq!(r.header("host"), Some("127.0.0.1:9"));
        assert_eq!(r.cookie("judge_token"), Some("xyz"));
        assert_eq!(r.cookie("b"), None);
    }

    #[test]
    fn malformed_heads_are_refused_with_a_status() {
        for (head, status) in [
            ("GET /\r\nHost: a", 400),
            ("GET / HTTP/2\r\nHost: a", 505),
            ("get / HTTP/1.1", 400),
            ("GET http://x/ HTTP/1.1", 400),
            ("GET /%zz HTTP/1.1", 400),
            ("GET /%ff HTTP/1.1", 400),
            ("GET /%00 HTTP/1.1", 400),
            ("GET / HTTP/1.1\r\nno colon", 400),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b", 400),
        ] {
            match parse_head(head) {
                Err(ReadError::Bad(s, _)) => assert_eq!(s, status, "{head:?}"),
                other => panic!("{head:?}: {:?}", other.map(|r| r.path)),
            }
        }
    }

    #[test]
    fn content_length_is_required_to_be_one_plain_number() {
        let with = |h: &str| {
            let r = parse_head(&format!("POST / HTTP/1.1\r\n{h}")).unwrap();
            content_length(&r)
        };
        assert_eq!(with("Content-Length: 12"), Ok(12));
        assert_eq!(with("X: y"), Ok(0));
        assert!(with("Content-Length: -1").is_err());
        assert!(with("Content-Length: 1\r\nContent-Length: 2").is_err());
        assert!(with("Content-Length: 99999999999999999999").is_err());
        assert!(matches!(
            with("Transfer-Encoding: chunked"),
            Err(ReadError::Bad(411, _))
        ));
    }

    #[test]
    fn clients_trickling_requests_on_every_slot_do_not_keep_a_real_request_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            serve(listener, 100, |_| {
                Response::json(200, &serde_json::json!({"ok": 1}))
            })
        });
        let slow: Vec<TcpStream> = (0..MAX_CONNECTIONS + 5)
            .map(|_| {
                let mut c = TcpStream::connect(addr).unwrap();
                c.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
                c
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut answer = String::new();
        c.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(slow);
    }

    #[test]
    fn a_slow_or_oversized_client_gets_an_error_not_a_hang() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // Sends half a head and waits: the deadline ends it.
        let slow = std::thread::spawn(move || {
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(b"GET / HTTP/1.1\r\nHo").unwrap();
            std::thread::sleep(Duration::from_millis(600));
        });
        let (mut s, _) = listener.accept().unwrap();
        let started = Instant::now();
        let r = read_request(&mut s, 100, Duration::from_millis(300));
        assert!(matches!(r, Err(ReadError::Bad(408, _))), "{r:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
        slow.join().unwrap();
        // A body over the cap is refused before it is read.
        let big = std::thread::spawn(move || {
            let mut c = TcpStream::connect(addr).unwrap();
            let _ = c.write_all(b"POST / HTTP/1.1\r\nContent-Length: 1000000\r\n\r\nxx");
        });
        let (mut s, _) = listener.accept().unwrap();
        let r = read_request(&mut s, 100, Duration::from_secs(5));
        assert!(matches!(r, Err(ReadError::Bad(413, _))), "{r:?}");
        big.join().unwrap();
    }
}
