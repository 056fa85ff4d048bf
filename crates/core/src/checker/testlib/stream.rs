//! testlib's way of reading a file, for the standard checkers: what a blank is, what a word,
//! a line, an integer and a real number are, and what happens when the file does not hold one.
//!
//! Facts from testlib.h (MikeMirzayanov/testlib), rewritten here from the rules:
//! - blanks are only space, tab, LF and CR (a vertical tab or form feed belongs to a word);
//! - a word longer than 32 MiB, or a file over 128 MiB, is a format error;
//! - a bad read of the contestant's output is a presentation error (testlib's `_pe`, also for an
//!   unexpected end of file), a bad read of the answer a checker failure (`_fail`);
//! - the output may start with a UTF-8 byte-order mark, which is skipped;
//! - a line ends at LF or CR LF; a lone CR is dropped and the byte after it kept as it is (a CR
//!   at the very end of the file stands for the byte 0xFF): testlib's own reading, kept so that
//!   `fcmp` and `lcmp` agree with it on every file.

use super::super::scan::Token;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// testlib's `maxTokenLength`.
pub const MAX_WORD: u64 = 32 * 1024 * 1024;
/// testlib's `maxFileSize`.
pub const MAX_FILE: u64 = 128 * 1024 * 1024;
/// Bytes of a word kept for parsing and messages (the rest is compared in lockstep or counted).
pub const KEEP: usize = super::super::scan::KEEP;

const BUFFER: usize = 64 * 1024;

/// Which file a stream reads: its read errors mean different things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The contestant's output: a read error is a presentation error.
    Output,
    /// The jury's answer: a read error is a checker failure (a judge error).
    Answer,
}

/// Why a checker stopped before accepting.
#[derive(Debug)]
pub enum Stop {
    /// A judgement about the output (WA or PE) at a place in it.
    Judged(Found),
    /// The answer file is not what the checker reads (testlib's FAIL): a judge error.
    Fail(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

pub type R<T> = Result<T, Stop>;

/// A rejection of the output, with where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub presentation: bool,
    /// 0 when the fault is the whole file (no place, no diff).
    pub line: u64,
    pub column: u64,
    /// What is wrong, without the position (added when the outcome is made).
    pub message: String,
    pub expected: String,
    pub found: String,
}

/// One of the checker's two files, read testlib's way through a fixed buffer.
pub struct In {
    file: File,
    path: PathBuf,
    role: Role,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    eof: bool,
    /// 1-based line and column (in bytes) of the next byte.
    pub line: u64,
    pub column: u64,
}

impl In {
    /// Opens a file; an oversized one is a read error of its role (checked by the caller with
    /// [`In::size_check`], after both files are open, in testlib's order).
    pub fn open(path: &Path, role: Role) -> std::io::Result<In> {
        let mut s = In {
            file: File::open(path)?,
            path: path.to_path_buf(),
            role,
            buf: vec![0; BUFFER].into_boxed_slice(),
            pos: 0,
            len: 0,
            eof: false,
            line: 1,
            column: 1,
        };
        if role == Role::Output
            && s.peek_at(0)? == Some(0xEF)
            && s.peek_at(1)? == Some(0xBB)
            && s.peek_at(2)? == Some(0xBF)
        {
            s.pos += 3;
        }
        Ok(s)
    }

    /// testlib refuses files over 128 MiB.
    pub fn size_check(&self) -> R<()> {
        let size = self.file.metadata()?.len();
        if size > MAX_FILE {
            return Err(self.error(
                0,
                0,
                format!("the file is {size} bytes, over testlib's limit of 128 MiB"),
                "at most 128 MiB".into(),
                format!("{size} bytes"),
            ));
        }
        Ok(())
    }

    /// The byte `k` places ahead (0 = the next one), reading more as needed.
    #[inline]
    pub fn peek_at(&mut self, k: usize) -> std::io::Result<Option<u8>> {
        if self.pos + k < self.len {
            return Ok(Some(self.buf[self.pos + k]));
        }
        self.fill(k)
    }

    #[cold]
    fn fill(&mut self, k: usize) -> std::io::Result<Option<u8>> {
        while self.pos + k >= self.len && !self.eof {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.len, 0);
                self.len -= self.pos;
                self.pos = 0;
            }
            match self.file.read(&mut self.buf[self.len..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.len += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok((self.pos + k < self.len).then(|| self.buf[self.pos + k]))
    }

    pub fn peek(&mut self) -> std::io::Result<Option<u8>> {
        self.peek_at(0)
    }

    /// Moves past the next byte (which must have been peeked).
    pub fn bump(&mut self) {
        let b = self.buf[self.pos];
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
    }

    pub fn at_eof(&mut self) -> std::io::Result<bool> {
        Ok(self.peek()?.is_none())
    }

    pub fn skip_blanks(&mut self) -> std::io::Result<()> {
        while self.peek()?.is_some_and(is_blank) {
            self.bump();
        }
        Ok(())
    }

    /// testlib's `seekEof`: skips blanks and tells whether the file ends there.
    pub fn seek_eof(&mut self) -> std::io::Result<bool> {
        self.skip_blanks()?;
        self.at_eof()
    }

    /// The next byte if it belongs to a word.
    pub fn word_byte(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.peek()?.filter(|&b| !is_blank(b)))
    }

    /// A token starting at the current place, empty so far.
    pub fn start(&self) -> Token {
        Token {
            line: self.line,
            column: self.column,
            ..Token::default()
        }
    }

    /// testlib's `readWord`: skips blanks, then reads up to the next blank or the end. Every
    /// byte of the word goes through `sink`; the first [`KEEP`] are kept in the token.
    pub fn read_word(&mut self, what: &str, sink: &mut dyn FnMut(u8)) -> R<Token> {
        self.skip_blanks()?;
        if self.at_eof()? {
            return Err(self.eof_error(what));
        }
        self.finish_word(self.start(), sink)
    }

    /// Reads the rest of a word into `t`.
    pub fn finish_word(&mut self, mut t: Token, sink: &mut dyn FnMut(u8)) -> R<Token> {
        while let Some(b) = self.word_byte()? {
            self.bump();
            push(&mut t, b);
            sink(b);
            if t.len > MAX_WORD {
                return Err(self.too_long(&t));
            }
        }
        Ok(t)
    }

    /// Reads a word and ignores it (testlib's `readToken` whose value is unused).
    pub fn skip_word(&mut self, what: &str) -> R<Token> {
        self.read_word(what, &mut |_| {})
    }

    /// testlib's `readLong`: a signed 64-bit integer written canonically (`0|-?[1-9][0-9]*`).
    pub fn read_long(&mut self) -> R<(Token, i64)> {
        let t = self.read_word("an integer", &mut |_| {})?;
        match parse_long(&t) {
            Some(v) => Ok((t, v)),
            None => Err(self.bad(&t, "an integer")),
        }
    }

    /// testlib's `readInt`: as `readLong`, within 32 bits.
    pub fn read_int(&mut self) -> R<(Token, i64)> {
        let t = self.read_word("a 32-bit integer", &mut |_| {})?;
        match parse_long(&t).filter(|v| i32::try_from(*v).is_ok()) {
            Some(v) => Ok((t, v)),
            None => Err(self.bad(&t, "a 32-bit integer")),
        }
    }

    /// testlib's `readDouble` (see [`RealParser`]).
    pub fn read_double(&mut self) -> R<(Token, f64)> {
        let mut p = RealParser::default();
        let t = self.read_word("a real number", &mut |b| p.push(b))?;
        match p.finish() {
            Some(v) => Ok((t, v)),
            None => Err(self.bad(&t, "a real number")),
        }
    }

    /// The next byte of the current line as testlib's `readString` sees it; `None` at the end
    /// of the line (LF, CR LF or the end of the file).
    pub fn line_peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(match self.peek_at(0)? {
            None | Some(b'\n') => None,
            Some(b'\r') => match self.peek_at(1)? {
                Some(b'\n') => None,
                // testlib appends its end-of-file marker, the byte 0xFF.
                None => Some(0xFF),
                Some(b) => Some(b),
            },
            Some(b) => Some(b),
        })
    }

    /// Moves past the byte [`In::line_peek`] returned.
    pub fn line_bump(&mut self) -> std::io::Result<()> {
        if self.peek_at(0)? == Some(b'\r') {
            self.bump();
            if self.peek()?.is_some() {
                self.bump();
            }
        } else {
            self.bump();
        }
        Ok(())
    }

    /// Moves past the end of the current line (LF or CR LF; nothing at the end of the file).
    pub fn end_line(&mut self) -> std::io::Result<()> {
        while self.line_peek()?.is_some() {
            self.line_bump()?;
        }
        if self.peek()? == Some(b'\r') {
            self.bump();
        }
        if self.peek()? == Some(b'\n') {
            self.bump();
        }
        Ok(())
    }

    /// Whether the rest of the file is one empty last line ("\n" or "\r\n"): testlib's line
    /// checkers stop there instead of comparing an empty line.
    pub fn only_final_newline(&mut self) -> std::io::Result<bool> {
        Ok(match self.peek_at(0)? {
            Some(b'\n') => self.peek_at(1)?.is_none(),
            Some(b'\r') => self.peek_at(1)? == Some(b'\n') && self.peek_at(2)?.is_none(),
            _ => false,
        })
    }

    /// A read error at a place: PE for the output, FAIL for the answer.
    pub fn error(
        &self,
        line: u64,
        column: u64,
        message: String,
        expected: String,
        found: String,
    ) -> Stop {
        match self.role {
            Role::Output => Stop::Judged(Found {
                presentation: true,
                line,
                column,
                message,
                expected,
                found,
            }),
            Role::Answer if line == 0 => Stop::Fail(format!(
                "the answer file {} is not what the checker reads: {message}",
                self.path.display()
            )),
            Role::Answer => Stop::Fail(format!(
                "the answer file {}:{line}:{column} is not what the checker reads: {message}",
                self.path.display()
            )),
        }
    }

    /// The file ends where `what` was expected.
    pub fn eof_error(&self, what: &str) -> Stop {
        self.error(
            self.line,
            self.column,
            format!("the file ends where {what} was expected"),
            what.to_string(),
            "(end of the file)".into(),
        )
    }

    /// A word that is not `what`.
    pub fn bad(&self, t: &Token, what: &str) -> Stop {
        self.error(
            t.line,
            t.column,
            format!("expected {what}, found `{}`", super::super::show(t)),
            what.to_string(),
            super::super::show(t),
        )
    }

    /// A word over testlib's length limit.
    pub fn too_long(&self, t: &Token) -> Stop {
        self.error(
            t.line,
            t.column,
            "a word longer than 32 MiB (testlib's limit)".into(),
            "a word of at most 32 MiB".into(),
            super::super::show(t),
        )
    }
}

pub fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Appends a byte to a token, keeping at most [`KEEP`] of them.
pub fn push(t: &mut Token, b: u8) {
    if t.prefix.len() < KEEP {
        t.prefix.push(b);
    }
    t.len += 1;
}

/// Whether a whole token is exactly `text`.
pub fn is(t: &Token, text: &str) -> bool {
    t.complete() && t.prefix == text.as_bytes()
}

/// testlib's `stringToLongLong`: at most 20 bytes, `0` or an optional minus and a digit string
/// without leading zeros (so `-0`, `00`, `+1` are not integers), within 64 bits.
pub fn parse_long(t: &Token) -> Option<i64> {
    if !t.complete() || t.len == 0 || t.len > 20 || !canonical_integer(&t.prefix) {
        return None;
    }
    std::str::from_utf8(&t.prefix).ok()?.parse().ok()
}

/// `0|-?[1-9][0-9]*` (hcmp's pattern, and the shape `stringToLongLong` accepts).
pub fn canonical_integer(s: &[u8]) -> bool {
    let digits = s.strip_prefix(b"-").unwrap_or(s);
    match digits {
        [b'0'] => s.len() == 1,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
        [] => false,
    }
}

/// Checks `0|-?[1-9][0-9]*` one byte at a time (for big integers compared in lockstep).
#[derive(Debug, Default, Clone, Copy)]
pub struct CanonicalInteger {
    state: u8,
}

impl CanonicalInteger {
    // 0 start, 1 after '-', 2 after a lone "0", 3 in digits after [1-9], 4 rejected.
    pub fn push(&mut self, b: u8) {
        self.state = match (self.state, b) {
            (0, b'-') => 1,
            (0, b'0') => 2,
            (0 | 1, b'1'..=b'9') => 3,
            (3, b'0'..=b'9') => 3,
            _ => 4,
        };
    }

    pub fn accepts(self) -> bool {
        matches!(self.state, 2 | 3)
    }
}

/// testlib's `stringToDouble`, a byte at a time in constant memory. testlib takes a word made
/// only of digits, `.`, `e`, `E`, `+` and `-` that glibc's `sscanf("%lf")` reads whole: an
/// optional sign, digits with at most one point (at least one digit), then optionally `e` or `E`,
/// an optional sign and digits — where glibc takes `1e`, `1e+` as `1` (it consumes the `e` and
/// the sign and finds no exponent). Never NaN (no letters); a value beyond the double range
/// is an infinity, as glibc gives.
///
/// Short words (the usual case) are kept and parsed as they are; a longer one is reduced on the
/// fly to its first [`SIGNIFICANT`] significant digits, a sticky digit and a decimal exponent.
#[derive(Debug)]
pub struct RealParser {
    state: RealState,
    any_digit: bool,
    short: [u8; SHORT],
    len: usize,
    negative: bool,
    /// Significant digits (no leading zeros), at most [`SIGNIFICANT`]; only for long words.
    digits: String,
    /// A non-zero digit was dropped beyond [`SIGNIFICANT`].
    sticky: bool,
    /// The value is 0.`digits` × 10^`point` × 10^exponent.
    point: i64,
    exponent_negative: bool,
    exponent: i64,
}

impl Default for RealParser {
    fn default() -> Self {
        RealParser {
            state: RealState::Start,
            any_digit: false,
            short: [0; SHORT],
            len: 0,
            negative: false,
            digits: String::new(),
            sticky: false,
            point: 0,
            exponent_negative: false,
            exponent: 0,
        }
    }
}

/// Words up to this length are parsed as written.
const SHORT: usize = 64;
/// Enough significant digits to round any decimal to the nearest double (the exact decimal
/// expansion of a double has at most 767), with one "sticky" digit for the rest.
const SIGNIFICANT: usize = 800;
/// Exponents beyond this give 0 or infinity for any number of digits under testlib's limits.
const EXPONENT_CAP: i64 = 1 << 40;

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum RealState {
    #[default]
    Start,
    Sign,
    Integer,
    Fraction,
    E,
    ExponentSign,
    Exponent,
    Bad,
}

impl RealParser {
    pub fn push(&mut self, b: u8) {
        if self.len < SHORT {
            self.short[self.len] = b;
        } else if self.len == SHORT {
            // Long after all: read the kept bytes again, now collecting digits.
            let kept = self.short;
            *self = RealParser {
                len: SHORT,
                ..RealParser::default()
            };
            for c in kept {
                self.step(c, true);
            }
        }
        self.step(b, self.len >= SHORT);
        self.len += 1;
    }

    fn step(&mut self, b: u8, long: bool) {
        use RealState::*;
        self.state = match (self.state, b) {
            (Start, b'+' | b'-') => {
                self.negative = b == b'-';
                Sign
            }
            (Start | Sign | Integer, b'0'..=b'9') => {
                self.digit(b, true, long);
                Integer
            }
            (Start | Sign | Integer, b'.') => Fraction,
            (Fraction, b'0'..=b'9') => {
                self.digit(b, false, long);
                Fraction
            }
            (Integer | Fraction, b'e' | b'E') if self.any_digit => E,
            (E, b'+' | b'-') => {
                self.exponent_negative = b == b'-';
                ExponentSign
            }
            (E | ExponentSign | Exponent, b'0'..=b'9') => {
                self.exponent = (self.exponent * 10 + i64::from(b - b'0')).min(EXPONENT_CAP);
                Exponent
            }
            _ => Bad,
        };
    }

    fn digit(&mut self, b: u8, integer_part: bool, long: bool) {
        self.any_digit = true;
        if !long {
            return;
        }
        if self.digits.is_empty() && b == b'0' {
            if !integer_part {
                self.point -= 1;
            }
            return;
        }
        if integer_part {
            self.point += 1;
        }
        if self.digits.len() < SIGNIFICANT {
            self.digits.push(b as char);
        } else if b != b'0' {
            self.sticky = true;
        }
    }

    pub fn finish(self) -> Option<f64> {
        if self.state == RealState::Bad || !self.any_digit {
            return None;
        }
        if self.len <= SHORT {
            let mut text = &self.short[..self.len];
            if matches!(self.state, RealState::E | RealState::ExponentSign) {
                // `1e` and `1e+` are 1 to glibc.
                let e = text.iter().position(|&c| c == b'e' || c == b'E')?;
                text = &text[..e];
            }
            return std::str::from_utf8(text).ok()?.parse().ok();
        }
        let sign = if self.negative { "-" } else { "" };
        if self.digits.is_empty() {
            return format!("{sign}0").parse().ok();
        }
        let exponent = if self.exponent_negative {
            -self.exponent
        } else {
            self.exponent
        };
        let sticky = if self.sticky { "1" } else { "" };
        format!(
            "{sign}0.{}{sticky}e{}",
            self.digits,
            self.point.saturating_add(exponent)
        )
        .parse()
        .ok()
    }
}
