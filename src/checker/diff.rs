//! The lines around the first difference of an output and its answer, aligned by line number,
//! for the reports to render. The files are read once each through a fixed buffer and only a
//! bounded slice of each wanted line is kept, so a 40 MB line costs no memory.
//!
//! A line that differs is shown twice (expected, then found); the token where the checker found
//! the first difference is marked on each side. Long lines are cut around the mark, and the two
//! sides of a line start at the same column where they can, so that they read one above the other.

use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::Path;

/// Lines shown before and after the first difference.
pub const BEFORE: u64 = 2;
pub const AFTER: u64 = 3;
/// Terminal columns of a line shown (escapes such as `\r` take two, Chinese characters two).
pub const WIDTH: usize = 60;
/// Bytes of a line kept around its mark (enough for [`WIDTH`] characters of any kind).
const KEEP: u64 = 1024;

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
