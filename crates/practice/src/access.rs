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
    use crate::http::parse_head;

    fn request(head: &str) -> Request {
        parse_head(head).unwrap()
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
