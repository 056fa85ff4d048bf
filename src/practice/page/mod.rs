//! The practice web page (placeholder: the page itself comes with `practice-page`'s work, which
//! replaces this file). The server answers `/` and every other path outside `/api/` through
//! [`asset`].

const INDEX: &[u8] = b"<!doctype html><meta charset=utf-8><title>judge practice</title>\
<p>The practice page is not built into this judge yet; the API under /api/ works (README, \"Practice\").</p>";

/// The content type and bytes of the page's file at `path` (`/` is the page itself); `None`
/// for anything else.
pub fn asset(path: &str) -> Option<(&'static str, &'static [u8])> {
    match path {
        "/" | "/index.html" => Some(("text/html; charset=utf-8", INDEX)),
        _ => None,
    }
}
