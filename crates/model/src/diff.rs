//! The window around a wrong answer's first difference: the data the checker finds (rows by
//! line number, expected and found, the differing token marked) and its rendering as text.
//!
//! Rendered as one row per line, its number and whose line it is in a gutter left of `│`, so that no marker can be
//! read as output (a line holding `-1` shows `-1`). A line that differs is shown as `expected`
//! above `found`, the differing token marked with `^` below (and with `v` above the expected line
//! when its token sits elsewhere); in colour the marked tokens are painted too. The plain
//! rendering is also the JSON's `diff` field.
//!
//! ```text
//!            3 │ 30
//!   expected 4 │ 40
//!      found 4 │ 41
//!              │ ^^
//!            5 │ 35
//! ```

use crate::paint::Paint;
use std::ops::Range;

/// Terminal columns of a line shown (escapes such as `\r` take two, Chinese characters two).
pub const WIDTH: usize = 60;

/// The lines around the first difference.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Window {
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// One line number: the same line in both files, or the two versions of it.
    Line(LinePair),
    /// Lines left out between two parts of the window.
    Gap,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinePair {
    /// 1-based line number.
    pub number: u64,
    /// The answer's line (`None`: the answer ends before it).
    pub expected: Option<Shown>,
    /// The output's line (`None`: the output ends before it).
    pub found: Option<Shown>,
    /// Both lines are the same, and neither holds the first difference: shown once.
    pub same: bool,
}

/// A line as shown: escaped, cut to [`WIDTH`] columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub text: String,
    /// Characters before (after) the text were cut off.
    pub cut_before: bool,
    pub cut_after: bool,
    /// The characters of `text` that hold the first difference. It may end one past the text:
    /// the difference is the end of the line.
    pub mark: Option<Range<usize>>,
}

/// Terminal columns that `text` takes: 2 for wide (East Asian, emoji) characters, 0 for
/// combining marks, 1 otherwise (an approximation of Unicode's East Asian Width that covers
/// the common scripts).
pub fn width(text: &str) -> usize {
    text.chars()
        .map(|c| match c as u32 {
            0x0300..=0x036f | 0x200b..=0x200f => 0,
            0x1100..=0x115f
            | 0x2e80..=0x303e
            | 0x3041..=0x33ff
            | 0x3400..=0x4dbf
            | 0x4e00..=0x9fff
            | 0xa000..=0xa4cf
            | 0xac00..=0xd7a3
            | 0xf900..=0xfaff
            | 0xfe30..=0xfe4f
            | 0xff00..=0xff60
            | 0xffe0..=0xffe6
            | 0x1f300..=0x1f64f
            | 0x1f900..=0x1f9ff
            | 0x20000..=0x3fffd => 2,
            _ => 1,
        })
        .sum()
}

const EXPECTED: &str = "expected";

const FOUND: &str = "found";

const GREEN: &str = "32";

const RED: &str = "31";

/// The window as lines of text, each starting with `indent`.
pub fn render(window: &Window, paint: &Paint, indent: &str) -> String {
    let digits = window
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Line(l) => Some(l.number.to_string().len()),
            Row::Gap => None,
        })
        .max()
        .unwrap_or(1);
    let head = |label: &str, colour: Option<&str>, number: &str| {
        let label = format!("{label:>width$}", width = EXPECTED.len());
        let label = colour.map_or(label.clone(), |c| paint.wrap(c, &label));
        let number = format!("{number:>digits$}");
        let number = if colour.is_some() {
            number
        } else {
            paint.dim(&number)
        };
        format!("{indent}{label} {number}")
    };
    let blank = head("", None, "");
    let mut lines = Vec::new();
    for row in &window.rows {
        let pair = match row {
            Row::Gap => {
                lines.push(head("", None, "⋮"));
                continue;
            }
            Row::Line(pair) => pair,
        };
        let number = pair.number.to_string();
        if pair.same {
            let text = pair.found.as_ref().map(|s| content(s, None, paint));
            lines.push(format!(
                "{} │ {}",
                head("", None, &number),
                paint.dim(&text.unwrap_or_default())
            ));
            continue;
        }
        let expected_mark = pair.expected.as_ref().and_then(marked);
        let found_mark = pair.found.as_ref().and_then(marked);
        if let Some(m) = &expected_mark {
            if found_mark.as_ref() != Some(m) {
                lines.push(format!("{blank} │ {}", pointer(m, 'v', GREEN, paint)));
            }
        }
        for (label, colour, side, whose) in [
            (EXPECTED, GREEN, &pair.expected, "the answer"),
            (FOUND, RED, &pair.found, "your output"),
        ] {
            let head = head(label, Some(colour), &number);
            lines.push(match side {
                Some(s) => format!("{head} │ {}", content(s, Some(colour), paint)),
                None => format!(
                    "{head}   {}",
                    paint.dim(&format!("({whose} ends before this line)"))
                ),
            });
        }
        if let Some(m) = &found_mark {
            lines.push(format!("{blank} │ {}", pointer(m, '^', RED, paint)));
        }
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A row of `c` under (or over) the marked cells.
fn pointer(m: &Range<usize>, c: char, colour: &str, paint: &Paint) -> String {
    let marks: String = std::iter::repeat_n(c, m.len().max(1)).collect();
    format!("{}{}", " ".repeat(m.start), paint.wrap(colour, &marks))
}

/// A shown line with its cuts as `…` and, in colour, its mark painted.
fn content(s: &Shown, colour: Option<&str>, paint: &Paint) -> String {
    let mut out = String::new();
    if s.cut_before {
        out.push_str(&paint.dim("…"));
    }
    match (&s.mark, colour) {
        (Some(m), Some(colour)) if paint.on => {
            let chars: Vec<char> = s.text.chars().collect();
            let end = m.end.min(chars.len());
            let start = m.start.min(end);
            out.extend(&chars[..start]);
            let token: String = chars[start..end].iter().collect();
            out.push_str(&paint.wrap(&format!("1;4;{colour}"), &token));
            out.extend(&chars[end..]);
        }
        _ => out.push_str(&s.text),
    }
    if s.cut_after {
        out.push_str(&paint.dim("…"));
    }
    out
}

/// The terminal columns of a shown line that its mark covers, counting the leading `…`.
fn marked(s: &Shown) -> Option<Range<usize>> {
    let m = s.mark.as_ref()?;
    let chars: Vec<char> = s.text.chars().collect();
    let columns = |r: Range<usize>| -> usize {
        let piece: String = chars[r.start.min(chars.len())..r.end.min(chars.len())]
            .iter()
            .collect();
        width(&piece) + r.end.saturating_sub(chars.len().max(r.start))
    };
    let start = usize::from(s.cut_before) + columns(0..m.start);
    Some(start..start + columns(m.clone()).max(1))
}
