//! Who may use the server. Loopback ports are open to every local user and to every web page
//! the user visits, so each request to the page's port passes three checks, in this order:
//! its `Host` must be `127.0.0.1:P` or `localhost:P` (a page that rebinds its own name to
//! 127.0.0.1 sends its own name: 403); an `Origin`, when present, must be this server's own
//! (another site's script: 403); and it must carry the token, as the `judge_token` cookie (set
//! by `/?token=…`) or `Authorization: Bearer …` (else 401). The competitive-companion port
//! takes no token (the extension cannot know it): it checks `Host`, refuses `Origin`s of web
//! pages (the extension's own are `chrome-extension://…` / `moz-extension://…`) and accepts
//! only a JSON POST, which a web page cannot send across sites without a CORS preflight that
//! this server never answers.

use super::http::Request;

/// The cookie that carries the token.
pub const COOKIE: &str = "judge_token";
/// How long the cookie lasts (it survives a browser restart; `--rotate-token` ends it early).
pub const COOKIE_MAX_AGE_S: u64 = 30 * 24 * 3600;
/// The token kept in the practice folder between starts (0600).
pub const TOKEN_FILE: &str = "token";

/// Where the server's token comes from.
pub enum TokenSource {
    /// `--token` or `JUDGE_PRACTICE_TOKEN` (checked by the caller; nothing is saved).
    Given(String),
    /// The folder's saved token, made and saved at the first start; a new one replaces it when
    /// `rotate` (the old one is refused from then on).
    Saved { rotate: bool },
}

/// The `Set-Cookie` value that carries `token`: persistent (a browser restart keeps it),
/// HttpOnly, SameSite=Strict.
pub fn cookie(token: &str) -> String {
    format!("{COOKIE}={token}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Strict")
}

/// The token of folder `dir` (see [`TokenSource::Saved`]).
pub fn saved_token(dir: &std::path::Path, rotate: bool) -> Result<String, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(TOKEN_FILE);
    if !rotate {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let token = text.trim();
                check_token(token).map_err(|e| {
                    format!(
                        "{}: {e}\n  hint: remove it, or start with --rotate-token for a new one",
                        path.display()
                    )
                })?;
                return Ok(token.to_string());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    let token = random_token().map_err(|e| format!("cannot make a token (/dev/urandom): {e}"))?;
    // Written aside and renamed over the old one: never half a token.
    let aside = dir.join(format!("{TOKEN_FILE}.new"));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&aside)
        .and_then(|mut f| {
            f.write_all(format!("{token}\n").as_bytes())?;
            f.sync_all()
        })
        .and_then(|_| std::fs::rename(&aside, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&aside);
        return Err(format!("{}: cannot save the token: {e}", path.display()));
    }
    Ok(token)
}

/// A token of 32 random bytes, hex (from the kernel's random source).
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    let mut file = std::fs::File::open("/dev/urandom")?;
    std::io::Read::read_exact(&mut file, &mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A token given with `--token`: printable ASCII without spaces, quotes, `;` or `,` (it goes
/// into a cookie and a URL), 16 to 256 characters.
pub fn check_token(token: &str) -> Result<(), String> {
    if token.len() < 16 || token.len() > 256 {
        return Err(format!(
            "the token has {} characters; use 16 to 256",
            token.len()
        ));
    }
    if !token
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b))
    {
        return Err("the token may hold only letters, digits and - _ . ~".into());
    }
    Ok(())
}

/// Whether the `Host` header names this server: `127.0.0.1:P` or `localhost:P`.
pub fn host_ok(request: &Request, port: u16) -> bool {
    match request.header("host") {
        Some(host) => {
            let host = host.to_ascii_lowercase();
            host == format!("127.0.0.1:{port}") || host == format!("localhost:{port}")
        }
        None => false,
    }
}

/// Whether the `Origin`, if any, is this server itself.
pub fn origin_ok(request: &Request, port: u16) -> bool {
    match request.header("origin") {
        None => true,
        Some(origin) => {
            let origin = origin.to_ascii_lowercase();
            origin == format!("http://127.0.0.1:{port}")
                || origin == format!("http://localhost:{port}")
        }
    }
}

/// Whether the `Origin`, if any, is a browser extension's (the competitive-companion port).
pub fn extension_origin_ok(request: &Request) -> bool {
    match request.header("origin") {
        None => true,
        Some(origin) => {
            let origin = origin.to_ascii_lowercase();
            origin.starts_with("chrome-extension://") || origin.starts_with("moz-extension://")
        }
    }
}

/// The token the request carries (cookie, `Authorization: Bearer`, or the `token` query of
/// the page's address), if it is `token`.
pub fn token_ok(request: &Request, token: &str) -> bool {
    let bearer = request
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let offered = [request.cookie(COOKIE), bearer];
    offered.into_iter().flatten().any(|t| same(t, token))
}

/// Compares without stopping at the first difference.
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What the page's port answers a request before routing it: `None` to go on, else the status
/// and why (403 wrong host or origin, 401 no token).
pub fn gate(request: &Request, port: u16, token: &str) -> Option<(u16, &'static str)> {
    if !host_ok(request, port) {
        return Some((
            403,
            "the Host header does not name this server (127.0.0.1 or localhost with its port)",
        ));
    }
    if !origin_ok(request, port) {
        return Some((403, "requests from other sites are refused"));
    }
    // `/?token=…` opens the page and sets the cookie (checked by the caller).
    if request.method == "GET" && request.path == "/" {
        if let Some(t) = request.query("token") {
            if same(t, token) {
                return None;
            }
        }
    }
    if !token_ok(request, token) {
        return Some((401, "this server needs its token: open the address `judge practice` printed (it carries ?token=…), or send Authorization: Bearer TOKEN"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request from its head as a client sends it (`METHOD TARGET HTTP/1.1`, then headers).
    fn request(head: &str) -> Request {
        let mut lines = head.split("\r\n");
        let mut first = lines.next().unwrap().split(' ');
        let (method, target) = (first.next().unwrap(), first.next().unwrap());
        let headers = lines
            .map(|l| {
                let (n, v) = l.split_once(':').unwrap();
                (n.to_ascii_lowercase(), v.trim().to_string())
            })
            .collect();
        Request::new(method, target, headers).unwrap()
    }

    const T: &str = "0123456789abcdef0123";

    #[test]
    fn a_request_needs_the_right_host_origin_and_token() {
        let ok = |h: &str| gate(&request(h), 8000, T);
        assert_eq!(
            ok("GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAuthorization: Bearer 0123456789abcdef0123"),
            None
        );
        assert_eq!(
            ok("GET /api/problems HTTP/1.1\r\nHost: localhost:8000\r\nCookie: judge_token=0123456789abcdef0123\r\nOrigin: http://localhost:8000"),
            None
        );
        assert_eq!(
            ok("GET /?token=0123456789abcdef0123 HTTP/1.1\r\nHost: localhost:8000"),
            None
        );
        // No token, a wrong one, one in the query of the API.
        for head in [
            "GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8000",
            "GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAuthorization: Bearer 0123456789abcdef0124",
            "GET /api/problems?token=0123456789abcdef0123 HTTP/1.1\r\nHost: 127.0.0.1:8000",
            "GET /?token=x HTTP/1.1\r\nHost: 127.0.0.1:8000",
        ] {
            assert_eq!(ok(head).map(|x| x.0), Some(401), "{head}");
        }
        // The right token from a rebound name, another port, or another site.
        for head in [
            "GET /api/problems HTTP/1.1\r\nHost: evil.example:8000\r\nAuthorization: Bearer 0123456789abcdef0123",
            "GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8001\r\nAuthorization: Bearer 0123456789abcdef0123",
            "GET /api/problems HTTP/1.1\r\nAuthorization: Bearer 0123456789abcdef0123",
            "GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nOrigin: https://evil.example\r\nAuthorization: Bearer 0123456789abcdef0123",
            "GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nOrigin: null\r\nAuthorization: Bearer 0123456789abcdef0123",
        ] {
            assert_eq!(ok(head).map(|x| x.0), Some(403), "{head}");
        }
    }

    #[test]
    fn the_receiver_accepts_extensions_but_not_web_pages() {
        let r = |h: &str| extension_origin_ok(&request(h));
        assert!(r("POST / HTTP/1.1"));
        assert!(r("POST / HTTP/1.1\r\nOrigin: chrome-extension://abc"));
        assert!(r("POST / HTTP/1.1\r\nOrigin: moz-extension://abc"));
        assert!(!r("POST / HTTP/1.1\r\nOrigin: https://codeforces.com"));
        assert!(!r("POST / HTTP/1.1\r\nOrigin: null"));
    }

    #[test]
    fn tokens_given_by_hand_are_checked_and_random_ones_are_long() {
        assert!(check_token("short").is_err());
        assert!(check_token("has space in it 0123456").is_err());
        assert!(check_token("semi;colon0123456789").is_err());
        assert!(check_token("Good-token_0123456789").is_ok());
        let a = random_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, random_token().unwrap());
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
