//! A problem statement (`statement.md` of a native package) as HTML for the practice page:
//! Markdown through pulldown-cmark, TeX math (`$…$`, `$$…$$`) converted here to MathML, so the
//! page needs no JavaScript math library and works offline.
//!
//! A statement is untrusted (a package from anywhere): raw HTML in it is shown as text, link and
//! image addresses keep only `http`, `https`, `mailto` and relative ones, and every piece of text
//! that reaches the MathML goes through [`escape`]. The TeX converter covers what statements use
//! (fractions, binomials, roots, scripts, relations and their negations, Greek letters, `\text`,
//! big operators, delimiters, `cases` and matrices, spacing, accents); a command it does not know
//! is shown literally, marked with the class `tex-unknown`, rather than dropped. Groups nested
//! deeper than `MAX_DEPTH` (64) are shown as TeX text, so no statement can overflow the stack.
//!
//! `tex.rs` is the TeX converter (`tex/tokens.rs` its tokens, `tex/symbols.rs` the commands it
//! knows as symbols); this file is the Markdown around it.

mod tex;

pub use tex::tex_to_mathml;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// The statement's Markdown as safe HTML with MathML.
pub fn render(markdown: &str) -> String {
    let options = Options::ENABLE_MATH
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::InlineMath(tex) => Event::InlineHtml(tex_to_mathml(&tex, false).into()),
        Event::DisplayMath(tex) => Event::InlineHtml(tex_to_mathml(&tex, true).into()),
        // Raw HTML is shown as the text it is.
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::Paragraph),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::Paragraph),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// The address itself when it is relative or `http`, `https` or `mailto`; else `#`
/// (`javascript:`, `data:`, `vbscript:` and the like never reach the page).
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let scheme_end = url.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if url[i..].starts_with(':') => {
            let scheme = url[..i].trim().to_ascii_lowercase();
            if matches!(scheme.as_str(), "http" | "https" | "mailto") {
                url
            } else {
                CowStr::Borrowed("#")
            }
        }
        // No scheme at all, but a browser ignores tabs and newlines in one: keep only clean
        // relative addresses.
        _ if url.chars().any(|c| c.is_control()) => CowStr::Borrowed("#"),
        _ => url,
    }
}

/// Text made safe for HTML and MathML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_with_inline_and_display_math() {
        let html =
            render("On the first line the minimum number of moves $k$.\n\n$$\\sum_i a_i$$\n");
        assert!(
            html.starts_with("<p>On the first line the minimum number of moves <math><semantics><mrow><mi>k</mi></mrow>"),
            "{html}"
        );
        assert!(html.contains("<math display=\"block\">"), "{html}");
        assert!(
            html.contains("<annotation encoding=\"application/x-tex\">\\sum_i a_i</annotation>")
        );
    }

    #[test]
    fn code_blocks_keep_dollars_and_headings_render() {
        let html = render("## Input\n\n```\n$5 $6\n```\n\nA `$x$` in code.\n");
        assert!(html.contains("<h2>Input</h2>"), "{html}");
        assert!(html.contains("<pre><code>$5 $6\n</code></pre>"), "{html}");
        assert!(html.contains("<code>$x$</code>"), "{html}");
        assert!(!html.contains("<math"), "{html}");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html =
            render("Hello <img src=x onerror=alert(1)> world\n\n<script>alert(1)</script>\n");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
    }

    #[test]
    fn dangerous_link_addresses_are_dropped() {
        let html = render(
            "[a](javascript:alert(1)) [b](JavaScript:x) [c](https://example.org/p?q=1) \
             [d](tests/1.in) ![e](data:image/png;base64,AAAA) [f](mailto:x@y.z)\n",
        );
        assert!(!html.to_ascii_lowercase().contains("javascript"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(
            html.contains("href=\"https://example.org/p?q=1\""),
            "{html}"
        );
        assert!(html.contains("href=\"tests/1.in\""), "{html}");
        assert!(html.contains("href=\"mailto:x@y.z\""), "{html}");
        assert_eq!(html.matches("href=\"#\"").count(), 2, "{html}");
        // Entities and control characters do not smuggle a scheme through.
        for sneaky in [
            "[x](javascript&colon;alert(1))",
            "[x](java&#x09;script:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "<javascript:alert(1)>",
            "[x]: javascript:alert(1)\n\n[x]",
        ] {
            let html = render(sneaky);
            assert!(
                !html.to_ascii_lowercase().contains("href=\"java"),
                "{sneaky}: {html}"
            );
        }
    }

    #[test]
    fn every_shipped_statement_renders_without_unknown_commands() {
        let problems =
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("problems");
        let mut rendered = 0;
        for entry in std::fs::read_dir(&problems).unwrap() {
            let path = entry.unwrap().path().join("statement.md");
            let Ok(markdown) = std::fs::read_to_string(&path) else {
                continue;
            };
            let html = render(&markdown);
            let dollars_outside_code = markdown
                .split("```")
                .step_by(2)
                .map(|s| s.matches('$').count())
                .sum::<usize>();
            assert!(html.contains("<math>"), "{}: no math", path.display());
            assert!(!html.contains("tex-unknown"), "{}: {html}", path.display());
            // Every `$` outside code blocks became math (none is left over as text).
            let left = html
                .split("<pre>")
                .map(|s| s.split("</pre>").last().unwrap_or(""))
                .map(|s| {
                    s.split("<annotation")
                        .map(|p| p.split("</annotation>").last().unwrap_or(""))
                        .map(|p| p.matches('$').count())
                        .sum::<usize>()
                })
                .sum::<usize>();
            assert!(dollars_outside_code > 0, "{}", path.display());
            assert_eq!(left, 0, "{}: {html}", path.display());
            rendered += 1;
        }
        assert_eq!(rendered, 4, "the four shipped problems have statements");
    }
}
