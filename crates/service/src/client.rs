//! A small blocking HTTP/1.1 client for `judge submit SERVER` and `judge status`: one request
//! a connection (`Connection: close`), JSON in and out, `http://` only (put a TLS proxy in
//! front of `judge serve` for anything else), every wait bounded.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// An answer: the status and the body as JSON (Null when empty or not JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    /// An error answer's reason: a JSON problem's `detail`, else the status.
    pub fn reason(&self) -> String {
        match self.body["detail"].as_str() {
            Some(detail) => format!("{} ({})", detail, self.status),
            None => format!("the server answered {}", self.status),
        }
    }
}

/// `host:port` of `http://host:port[/]`.
fn authority(server: &str) -> Result<&str, String> {
    if server.starts_with("https://") {
        return Err(format!(
            "{server}: https is not supported by this client\n  hint: reach judge serve over http:// (a TLS proxy in front of it for remote submitters)"
        ));
    }
    let rest = server.strip_prefix("http://").unwrap_or(server);
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() || rest.contains('/') {
        return Err(format!(
            "{server}: not a server address like http://host:8080"
        ));
    }
    Ok(rest)
}

/// One request to `server` (`http://host:port`).
pub fn request(
    server: &str,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Result<Answer, String> {
    let host = authority(server)?;
    let addr = host
        .to_socket_addrs()
        .map_err(|e| format!("{server}: {e}"))?
        .next()
        .ok_or_else(|| format!("{server}: no address"))?;
    let mut stream =
        TcpStream::connect_timeout(&addr, TIMEOUT).map_err(|e| format!("{server}: {e}"))?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .map_err(|e| e.to_string())?;
    stream
        .set_write_timeout(Some(TIMEOUT))
        .map_err(|e| e.to_string())?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| format!("{server}: {e}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|e| format!("{server}: {e}"))?;
    parse(&answer).ok_or_else(|| format!("{server}: not an HTTP answer"))
}

fn parse(answer: &[u8]) -> Option<Answer> {
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&answer[..split]).ok()?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let raw = &answer[split + 4..];
    let body = if chunked { dechunk(raw)? } else { raw.to_vec() };
    Some(Answer {
        status,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = raw.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&raw[..line_end]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        raw = &raw[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(..size)?);
        raw = raw.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_plain_and_chunked_and_addresses() {
        let plain = parse(b"HTTP/1.1 201 Created\r\ncontent-length: 8\r\n\r\n{\"id\":7}").unwrap();
        assert_eq!((plain.status, plain.body["id"].as_i64()), (201, Some(7)));
        let chunked = parse(
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"de\r\nd\r\ntail\":\"gone\"}\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(chunked.reason(), "gone (404)");
        assert_eq!(authority("http://127.0.0.1:8080/"), Ok("127.0.0.1:8080"));
        assert_eq!(authority("localhost:1"), Ok("localhost:1"));
        assert!(authority("https://x")
            .unwrap_err()
            .contains("https is not supported"));
        assert!(authority("http://x/api").is_err());
    }
}
