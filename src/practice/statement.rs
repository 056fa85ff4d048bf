//! A statement's Markdown as HTML (placeholder: `practice-page` replaces this file with the
//! real renderer, Markdown with TeX math as MathML). Here: the text escaped, in a `<pre>`.

/// Safe HTML for a statement's Markdown.
pub fn render(markdown: &str) -> String {
    let mut out = String::from("<pre>");
    for c in markdown.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out.push_str("</pre>");
    out
}
