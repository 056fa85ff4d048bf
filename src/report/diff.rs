//! Renders the window around a wrong answer's first difference (`checker::diff::Window`): one
//! row per line, its number and whose line it is in a gutter left of `│`, so that no marker can be
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

use super::human::Paint;
use crate::checker::diff::{width, Row, Shown, Window};
use std::ops::Range;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checker::{check, Builtin};

    /// The plain rendering of the window of `output` against `answer`.
    fn diff(kind: &Builtin, output: &[u8], answer: &[u8]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
        std::fs::write(&o, output).unwrap();
        std::fs::write(&a, answer).unwrap();
        let outcome = check(kind, &o, &a).unwrap();
        let m = outcome.mismatch.expect("a mismatch");
        render(&m.window, &Paint { on: false }, "")
    }

    #[test]
    fn negative_numbers_read_as_numbers() {
        let d = diff(&Builtin::Tokens, b"1\n1\n2\n", b"1\n-1\n2\n");
        let want = "         1 │ 1
           │ vv
expected 2 │ -1
   found 2 │ 1
           │ ^
         3 │ 2
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn a_changed_line_reads_as_changed_not_as_an_insertion() {
        let d = diff(&Builtin::Tokens, b"10\n41\n35\n35\n", b"10\n40\n35\n34\n");
        let want = "         1 │ 10
expected 2 │ 40
   found 2 │ 41
           │ ^^
         3 │ 35
expected 4 │ 34
   found 4 │ 35
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn an_extra_line_and_a_missing_line() {
        let d = diff(&Builtin::Tokens, b"1\n2\n3\n4\n", b"1\n2\n3\n");
        let want = "         2 │ 2
         3 │ 3
expected 4   (the answer ends before this line)
   found 4 │ 4
           │ ^
";
        assert_eq!(d, want, "\n{d}");
        let d = diff(&Builtin::Tokens, b"1\n2\n", b"1\n2\n3\n");
        let want = "         1 │ 1
         2 │ 2
           │ v
expected 3 │ 3
   found 3   (your output ends before this line)
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn tokens_on_other_lines_show_both_places() {
        let d = diff(
            &Builtin::Tokens,
            b"1 2 3 4 5 6 7 8 9 X",
            b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n",
        );
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[1], "   found  1 │ 1 2 3 4 5 6 7 8 9 X", "\n{d}");
        assert_eq!(lines[2], "            │                   ^", "\n{d}");
        assert!(
            lines.contains(&"          ⋮"),
            "a gap between lines 4 and 8:\n{d}"
        );
        let v = lines.iter().position(|l| l.ends_with("│ vv")).unwrap();
        assert_eq!(lines[v + 1], "expected 10 │ 10", "\n{d}");
        assert_eq!(
            lines.last(),
            Some(&"   found 13   (your output ends before this line)")
        );
    }

    #[test]
    fn different_tokens_at_different_columns_are_both_pointed_at() {
        let d = diff(&Builtin::Tokens, b"1  2 3", b"1 2 4");
        let want = "           │     v
expected 1 │ 1 2 4
   found 1 │ 1  2 3
           │      ^
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn line_ends_and_carriage_returns_are_visible() {
        let d = diff(&Builtin::Exact, b"1\r\n2\r\n", b"1\n2\n");
        let want = "           │  v
expected 1 │ 1↵
   found 1 │ 1\\r
           │  ^^
expected 2 │ 2
   found 2 │ 2\\r
";
        assert_eq!(d, want, "\n{d}");
        let d = diff(&Builtin::Exact, b"1 2", b"1 2\n");
        let want = "expected 1 │ 1 2↵
   found 1 │ 1 2
           │    ^
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn control_characters_and_bad_bytes_are_escaped() {
        let d = diff(&Builtin::Tokens, b"a\x1b[31mb\tc\xff", b"a");
        assert!(d.contains("found 1 │ a\\u{1b}[31mb\\tc\\xff\n"), "\n{d}");
        assert!(!d.contains('\x1b'), "\n{d}");
        let d = diff(
            &Builtin::Tokens,
            "héllo wörld".as_bytes(),
            "héllo world".as_bytes(),
        );
        assert!(
            d.ends_with("found 1 │ héllo wörld\n           │       ^^^^^\n"),
            "\n{d}"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_difference() {
        let right: Vec<String> = (1..20000).map(|i| i.to_string()).collect();
        let mut wrong = right.clone();
        wrong[15000] = "x".into();
        let d = diff(
            &Builtin::Tokens,
            wrong.join(" ").as_bytes(),
            right.join(" ").as_bytes(),
        );
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines.len(), 4, "\n{d}");
        let (expected, found) = (lines[1], lines[2]);
        assert!(
            expected.starts_with("expected 1 │ …") && expected.ends_with('…'),
            "\n{d}"
        );
        assert!(
            found.starts_with("   found 1 │ …") && found.ends_with('…'),
            "\n{d}"
        );
        for l in &lines {
            assert!(
                l.chars().count() <= 13 + crate::checker::diff::WIDTH + 2,
                "{l}"
            );
        }
        // The marks point at the two tokens, which sit one above the other.
        let at = |l: &str, s: &str| l[..l.find(s).unwrap()].chars().count();
        assert_eq!(at(lines[0], "vvvvv"), at(expected, " 15001 ") + 1, "\n{d}");
        assert_eq!(at(lines[3], "^"), at(found, " x ") + 1, "\n{d}");
        assert_eq!(at(expected, "15000 "), at(found, "15000 "), "aligned:\n{d}");
    }

    #[test]
    fn a_difference_deep_in_a_huge_token_is_shown_where_it_is() {
        let a = vec![b'7'; 3_000_000];
        let mut o = a.clone();
        o[2_999_999] = b'8';
        let d = diff(&Builtin::Exact, &o, &a);
        let lines: Vec<&str> = d.lines().collect();
        assert!(
            lines[1].starts_with("   found 1 │ …") && lines[1].ends_with("778"),
            "\n{d}"
        );
        assert_eq!(
            lines[2].chars().count(),
            lines[1].chars().count(),
            "the caret is under the 8:\n{d}"
        );
        assert!(lines[2].ends_with(" ^"), "\n{d}");
    }

    #[test]
    fn wide_characters_keep_the_marks_aligned() {
        let d = diff(
            &Builtin::Tokens,
            "第一行 答案 是".as_bytes(),
            "第一行 答案 否".as_bytes(),
        );
        let under = format!(
            "found 1 │ 第一行 答案 是\n           │ {}^^\n",
            " ".repeat(6 + 1 + 4 + 1)
        );
        assert!(d.ends_with(&under), "\n{d}");
    }

    #[test]
    fn many_lines_show_a_window_around_the_difference() {
        let many: String = (1..100_000).map(|i| format!("{i}\n")).collect();
        let wrong = many.replace("\n50000\n", "\n50001\n");
        let d = diff(&Builtin::Lines, wrong.as_bytes(), many.as_bytes());
        let want = "         49998 │ 49998
         49999 │ 49999
expected 50000 │ 50000
   found 50000 │ 50001
               │ ^^^^^
         50001 │ 50001
         50002 │ 50002
         50003 │ 50003
";
        assert_eq!(d, want, "\n{d}");
    }

    #[test]
    fn colour_paints_the_marked_tokens_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
        std::fs::write(&o, "1\n41 5\n").unwrap();
        std::fs::write(&a, "1\n40 5\n").unwrap();
        let m = check(&Builtin::Tokens, &o, &a).unwrap().mismatch.unwrap();
        let d = render(&m.window, &Paint { on: true }, "  ");
        assert!(d.contains("\x1b[1;4;31m41\x1b[0m 5"), "{d:?}");
        assert!(d.contains("\x1b[1;4;32m40\x1b[0m 5"), "{d:?}");
        assert!(d.contains("\x1b[31m   found\x1b[0m 2 │ "), "{d:?}");
        let plain = render(&m.window, &Paint { on: false }, "  ");
        assert!(!plain.contains('\x1b'), "{plain:?}");
        assert!(
            plain.starts_with("           1 │ 1\n  expected 2 │ 40 5\n"),
            "{plain:?}"
        );
    }
}
