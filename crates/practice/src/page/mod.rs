//! The practice web page, embedded in the binary (no CDN, no build step, works offline): one
//! HTML file, its script and its style sheet. The server answers `/` and every asset path
//! through [`asset`]; everything the page shows it fetches from the HTTP API with the token
//! cookie the server set when the page was opened with `?token=…`.

const INDEX: &[u8] = include_bytes!("index.html");
const SCRIPT: &[u8] = include_bytes!("app.js");
const STYLE: &[u8] = include_bytes!("style.css");
const ICON: &[u8] = include_bytes!("icon.svg");
const LOCKED: &[u8] = include_bytes!("locked.html");

/// The page shown in place of the page at `/` to a browser without the token (a bookmark, a
/// browser restarted since): how to get in, instead of the API's JSON 401.
pub fn locked() -> &'static [u8] {
    LOCKED
}

/// The content type and bytes of the page's file at `path` (`/` is the page itself; a query
/// string is ignored); `None` for anything else.
pub fn asset(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    Some(match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", INDEX),
        "/app.js" => ("text/javascript; charset=utf-8", SCRIPT),
        "/style.css" => ("text/css; charset=utf-8", STYLE),
        "/favicon.svg" | "/icon.svg" => ("image/svg+xml", ICON),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_and_its_assets_are_served_by_path() {
        let (kind, page) = asset("/").unwrap();
        assert_eq!(kind, "text/html; charset=utf-8");
        let page = std::str::from_utf8(page).unwrap();
        assert!(page.contains("<script src=\"app.js\""), "{page}");
        assert!(page.contains("href=\"style.css\""), "{page}");
        assert_eq!(asset("/?token=abc").unwrap().1, asset("/").unwrap().1);
        assert_eq!(
            asset("/app.js").unwrap().0,
            "text/javascript; charset=utf-8"
        );
        assert_eq!(asset("/style.css").unwrap().0, "text/css; charset=utf-8");
        assert!(asset("/favicon.svg").is_some());
        assert!(asset("/../Cargo.toml").is_none());
        assert!(asset("/api/problems").is_none());
        assert!(asset("").is_none());
    }

    #[test]
    fn the_page_loads_nothing_from_elsewhere() {
        for (path, bytes) in ["/", "/app.js", "/style.css"]
            .map(|p| (p, asset(p).unwrap().1))
            .into_iter()
            .chain([("locked", locked())])
        {
            let text = std::str::from_utf8(bytes).unwrap();
            for far in ["http://", "https://", "//cdn", "@import"] {
                assert!(!text.contains(far), "{path} mentions {far}");
            }
        }
    }
}
