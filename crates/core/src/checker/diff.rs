//! The lines around the first difference of an output and its answer, aligned by line number,
//! for the reports to render. The files are read once each through a fixed buffer and only a
//! bounded slice of each wanted line is kept, so a 40 MB line costs no memory.
//!
//! A line that differs is shown twice (expected, then found); the token where the checker found
//! the first difference is marked on each side. Long lines are cut around the mark, and the two
//! sides of a line start at the same column where they can, so that they read one above the other.

use judge_model::diff::{width, LinePair, Row, Shown, Window, WIDTH};
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::Path;

/// Lines shown before and after the first difference.
pub const BEFORE: u64 = 2;
pub const AFTER: u64 = 3;
/// Bytes of a line kept around its mark (enough for [`WIDTH`] characters of any kind).
const KEEP: u64 = 1024;

/// Where the checker found the first difference in one file: 1-based line and byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spot {
    pub line: u64,
    pub column: u64,
}

/// The window around `found` in the output and `expected` in the answer (the same spot for
/// byte-wise checkers; the two tokens' own spots for token-wise ones).
pub fn window(
    output: &Path,
    found: Spot,
    answer: &Path,
    expected: Spot,
) -> std::io::Result<Window> {
    let numbers = line_numbers(found.line, expected.line);
    // Each file keeps the line holding its spot around the spot, and other lines from their start.
    let keep = |spot: Spot| {
        move |n: u64| {
            if n == spot.line {
                spot.column.saturating_sub(1).saturating_sub(KEEP / 2)
            } else {
                0
            }
        }
    };
    let out = capture(output, &numbers, keep(found))?;
    let ans = capture(answer, &numbers, keep(expected))?;

    let mut rows = Vec::new();
    let mut previous = None;
    for (&n, (o, a)) in numbers.iter().zip(out.iter().zip(&ans)) {
        if o.is_none() && a.is_none() {
            continue;
        }
        if previous.is_some_and(|p| p + 1 != n) {
            rows.push(Row::Gap);
        }
        previous = Some(n);
        let focus_found = (n == found.line).then(|| found.column.saturating_sub(1));
        let focus_expected = (n == expected.line).then(|| expected.column.saturating_sub(1));
        let same = focus_found.is_none()
            && focus_expected.is_none()
            && matches!((o, a), (Some(o), Some(a)) if o == a);
        let found_mark = o.as_ref().zip(focus_found).map(|(l, c)| l.token_at(c));
        let expected_mark = a.as_ref().zip(focus_expected).map(|(l, c)| l.token_at(c));
        // Both sides start where the earlier mark needs them to; a side whose own mark (or kept
        // bytes) would not fit from there gets its own start.
        let anchor = [&found_mark, &expected_mark]
            .into_iter()
            .flatten()
            .map(|m| m.start)
            .min();
        let start = anchor.map_or(0, view_start);
        let show = |line: &Option<Captured>, mark: Option<Range<u64>>| {
            line.as_ref().map(|l| l.show(start, mark))
        };
        rows.push(Row::Line(LinePair {
            number: n,
            expected: show(a, expected_mark),
            found: show(o, found_mark),
            same,
        }));
    }
    Ok(Window { rows })
}

/// The line numbers of the window: a few around each spot, in order, without repeats.
fn line_numbers(a: u64, b: u64) -> Vec<u64> {
    let around = |l: u64| l.saturating_sub(BEFORE).max(1)..=l + AFTER;
    let mut numbers: Vec<u64> = around(a).chain(around(b)).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// Where to start showing a line whose mark starts at byte `mark` (0-based).
fn view_start(mark: u64) -> u64 {
    let lead = WIDTH as u64 / 3;
    if mark < WIDTH as u64 - lead {
        0
    } else {
        mark - lead
    }
}

/// The kept part of one line of a file.
#[derive(Debug, Clone, PartialEq)]
struct Captured {
    /// 0-based byte offset of `bytes` in the line.
    from: u64,
    bytes: Vec<u8>,
    /// The line's length in bytes (without its newline).
    len: u64,
    /// The line ends with a newline (the last line of a file may not).
    newline: bool,
}

impl Captured {
    /// The byte range of the token at byte `col` (0-based) of the line, within the kept bytes; a
    /// single byte where there is no token (a space, or the end of the line).
    fn token_at(&self, col: u64) -> Range<u64> {
        let byte = |i: u64| {
            i.checked_sub(self.from)
                .and_then(|i| self.bytes.get(i as usize).copied())
        };
        if byte(col).is_none_or(super::scan::is_space) {
            return col..col + 1;
        }
        let token = |i: u64| byte(i).is_some_and(|b| !super::scan::is_space(b));
        // The token, but no more than a few bytes before the spot (a 3 MB token that differs in
        // its last byte is shown around that byte).
        let mut start = col;
        while start > 0 && col - start < 8 && token(start - 1) {
            start -= 1;
        }
        if start > 0 && token(start - 1) {
            start = col;
        }
        let mut end = col + 1;
        while end - col < WIDTH as u64 && token(end) {
            end += 1;
        }
        start..end
    }

    /// The line as shown from byte `start` (or from where its own mark needs it), with its mark.
    fn show(&self, start: u64, mark: Option<Range<u64>>) -> Shown {
        let kept_end = self.from + self.bytes.len() as u64;
        let fits = |s: u64| {
            s >= self.from
                && s <= kept_end
                && match &mark {
                    Some(m) => m.start >= s && m.start < s + WIDTH as u64 * 2 / 3,
                    None => s == 0 || s < self.len,
                }
        };
        let mut start = if fits(start) {
            start
        } else {
            mark.as_ref()
                .map_or(self.from, |m| view_start(m.start).max(self.from))
        };
        // Never start inside a UTF-8 sequence.
        while start > self.from
            && start < kept_end
            && (0x80..0xc0).contains(&self.bytes[(start - self.from) as usize])
        {
            start += 1;
        }
        let slice = &self.bytes[(start.min(kept_end) - self.from) as usize..];
        let (mut text, offsets) = escape(slice, WIDTH);
        let shown_end = start + offsets.last().map_or(0, |&(b, _)| b as u64);
        let chars = text.chars().count();
        // A byte offset in the line to a character position in `text`.
        let char_at = |byte: u64| -> usize {
            let rel = byte.saturating_sub(start) as usize;
            offsets
                .iter()
                .take_while(|&&(b, _)| b <= rel)
                .last()
                .map_or(0, |&(_, c)| c)
        };
        let mark = mark.map(|m| {
            let at_end = m.start >= self.len;
            if at_end && self.newline && shown_end >= self.len {
                // Make the end of the line visible where it is the difference.
                text.push('↵');
            }
            let from = char_at(m.start.max(start));
            let to = if m.end < shown_end {
                char_at(m.end)
            } else if at_end {
                chars + 1
            } else {
                chars
            };
            from..to.max(from + 1)
        });
        Shown {
            text,
            cut_before: start > 0,
            cut_after: shown_end < self.len,
            mark,
        }
    }
}

/// `bytes` as text of at most `columns` columns: control characters and bytes that are not
/// UTF-8 escaped (`\r`, `\u{1b}`, `\xff`), so nothing in an output can move the terminal's
/// cursor or pass for a marker. Also returns (byte offset, character position) at each piece's
/// start, ending with the first byte not shown.
fn escape(bytes: &[u8], columns: usize) -> (String, Vec<(usize, usize)>) {
    let mut text = String::new();
    let (mut used, mut chars, mut at) = (0, 0, 0);
    let mut offsets = Vec::new();
    let mut push = |piece: &str, len: usize, text: &mut String| -> bool {
        let n = width(piece);
        if used + n > columns {
            return false;
        }
        offsets.push((at, chars));
        text.push_str(piece);
        used += n;
        chars += piece.chars().count();
        at += len;
        true
    };
    'chunks: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let piece = if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            };
            if !push(&piece, c.len_utf8(), &mut text) {
                break 'chunks;
            }
        }
        for b in chunk.invalid() {
            if !push(&format!("\\x{b:02x}"), 1, &mut text) {
                break 'chunks;
            }
        }
    }
    offsets.push((at, chars));
    (text, offsets)
}

/// The wanted lines of a file (`numbers`, ascending), each kept from byte `keep_from(n)`; `None`
/// for a line the file does not have.
fn capture(
    path: &Path,
    numbers: &[u64],
    keep_from: impl Fn(u64) -> u64,
) -> std::io::Result<Vec<Option<Captured>>> {
    let mut lines: Vec<Option<Captured>> = vec![None; numbers.len()];
    let Some(&last) = numbers.last() else {
        return Ok(lines);
    };
    let mut reader = BufReader::with_capacity(64 * 1024, std::fs::File::open(path)?);
    let mut line = 1u64;
    let mut col = 0u64;
    let mut slot = numbers.iter().position(|&n| n == line);
    let start_line = |lines: &mut Vec<Option<Captured>>, slot: Option<usize>, n: u64| {
        if let Some(i) = slot {
            lines[i] = Some(Captured {
                from: keep_from(n),
                bytes: Vec::new(),
                len: 0,
                newline: false,
            });
        }
    };
    let mut started = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let mut i = 0;
        while i < buf.len() {
            if !started {
                start_line(&mut lines, slot, line);
                started = true;
            }
            let end = buf[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(buf.len(), |p| i + p);
            if let Some(Some(l)) = slot.map(|s| &mut lines[s]) {
                // Keep the part of buf[i..end] that falls in [from, from + KEEP).
                let (a, b) = (col, col + (end - i) as u64);
                let (lo, hi) = (a.max(l.from), b.min(l.from + KEEP));
                if lo < hi {
                    l.bytes
                        .extend_from_slice(&buf[i + (lo - a) as usize..i + (hi - a) as usize]);
                }
                l.len = b;
                l.newline = end < buf.len();
            }
            col += (end - i) as u64;
            i = end;
            if i < buf.len() {
                // A newline: the next line starts.
                i += 1;
                line += 1;
                col = 0;
                started = false;
                if line > last {
                    break;
                }
                slot = numbers.iter().position(|&n| n == line);
            }
        }
        let consumed = i;
        reader.consume(consumed);
        if line > last {
            break;
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod render_tests {
    use crate::checker::{check, Builtin};
    use judge_model::diff::*;
    use judge_model::paint::Paint;

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
                l.chars().count() <= 13 + judge_model::diff::WIDTH + 2,
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
