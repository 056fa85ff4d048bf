//! The Kattis default output validator (problem package format, "Default output validator
//! specification"; problemtools' `default_validator`), built in.
//!
//! - Tokens are split at space, tab, LF, CR, vertical tab and form feed; the output must have
//!   as many tokens as the answer.
//! - Letter case is ignored (ASCII `A`–`Z` = `a`–`z`) unless `case_sensitive`.
//! - White space only separates tokens unless `space_change_sensitive`: then every run of white
//!   space, leading and trailing ones included, must be the answer's byte for byte.
//! - With a float tolerance, every answer token that is a number in the spec's grammar
//!   (`[+-]? (digits? . digits | digits .? ) ([eE] [+-]? digits)?`; integers too) is compared
//!   as a number: the output's token must be one, within the absolute or the relative tolerance
//!   (either suffices). Like problemtools, a number too large for a double is compared as a word.

use super::diff::{self, Spot};
use super::scan::{is_space, FileBytes, Scanner, Token, KEEP};
use super::{show, Judgement, Mismatch, Outcome};
use std::path::Path;

/// The validator's flags (`validator_flags` / `output_validator_args`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    pub case_sensitive: bool,
    pub space_change_sensitive: bool,
    /// Unset = no absolute tolerance (`float_tolerance` sets both).
    pub float_absolute_tolerance: Option<f64>,
    pub float_relative_tolerance: Option<f64>,
}

impl Flags {
    fn floats(&self) -> bool {
        self.float_absolute_tolerance.is_some() || self.float_relative_tolerance.is_some()
    }

    fn within(&self, answer: f64, output: f64) -> bool {
        let diff = (output - answer).abs();
        self.float_absolute_tolerance.is_some_and(|e| diff <= e)
            || self
                .float_relative_tolerance
                .is_some_and(|e| diff <= e * answer.abs())
    }
}

/// Compares `output` with `answer` as the default validator does.
pub fn check(flags: &Flags, output: &Path, answer: &Path) -> std::io::Result<Outcome> {
    let mut o = Scanner::new(FileBytes::open(output)?);
    let mut a = Scanner::new(FileBytes::open(answer)?);
    let difference = loop {
        if flags.space_change_sensitive {
            if let Some(d) = spaces_differ(&mut o, &mut a)? {
                break d;
            }
        } else {
            a.skip_space()?;
            o.skip_space()?;
        }
        match (o.peek()?, a.peek()?) {
            (None, None) => return Ok(Outcome::accepted()),
            (Some(_), None) => {
                let extra = super::scan::read_token(&mut o)?;
                let message = format!("extra output `{}` after the answer ended", show(&extra));
                break Difference {
                    line: extra.line,
                    column: extra.column,
                    answer_line: a.line,
                    message,
                    expected: "(end of the answer)".into(),
                    found: show(&extra),
                };
            }
            (None, Some(_)) => {
                let (line, column) = (o.line, o.column);
                let missing = super::scan::read_token(&mut a)?;
                let message = format!(
                    "the output ends, but the answer continues with `{}`",
                    show(&missing)
                );
                break Difference {
                    line,
                    column,
                    answer_line: missing.line,
                    message,
                    expected: show(&missing),
                    found: "(end of the output)".into(),
                };
            }
            (Some(_), Some(_)) => {
                if let Some(d) = tokens_differ(flags, &mut o, &mut a)? {
                    break d;
                }
            }
        }
    };
    difference.outcome(output, answer)
}

/// Where the output first differs from the answer, and how.
struct Difference {
    line: u64,
    column: u64,
    /// The answer's line at that point (where its side of the window is).
    answer_line: u64,
    message: String,
    expected: String,
    found: String,
}

impl Difference {
    /// The wrong answer, with the window of both files around the difference.
    fn outcome(self, output: &Path, answer: &Path) -> std::io::Result<Outcome> {
        let Difference {
            line,
            column,
            answer_line,
            message,
            expected,
            found,
        } = self;
        Ok(Outcome {
            judgement: Judgement::WrongAnswer,
            score: None,
            message: format!("line {line}, column {column}: {message}"),
            mismatch: Some(Mismatch {
                line,
                column,
                expected,
                found,
                window: diff::window(
                    output,
                    Spot { line, column },
                    answer,
                    answer_spot(line, column, answer_line),
                )?,
            }),
        })
    }
}

/// `space_change_sensitive`: the answer's white space before its next token must be the
/// output's byte for byte, and the output may have no more.
fn spaces_differ(
    o: &mut Scanner<FileBytes>,
    a: &mut Scanner<FileBytes>,
) -> std::io::Result<Option<Difference>> {
    while let Some(x) = a.peek()?.filter(|&b| is_space(b)) {
        let y = o.peek()?;
        if y != Some(x) {
            let (line, column, answer_line) = (o.line, o.column, a.line);
            let (found, shown) = match y {
                Some(b) if is_space(b) => (space_name(b).to_string(), space_name(b).into()),
                Some(_) => {
                    let t = show(&super::scan::read_token(o)?);
                    (t.clone(), format!("`{t}`"))
                }
                None => (
                    "(end of the output)".to_string(),
                    "(end of the output)".into(),
                ),
            };
            let message = format!(
                "the white space differs (space_change_sensitive): expected {}, found {shown}",
                space_name(x)
            );
            return Ok(Some(Difference {
                line,
                column,
                answer_line,
                message,
                expected: space_name(x).into(),
                found,
            }));
        }
        a.bump()?;
        o.bump()?;
    }
    if let Some(y) = o.peek()?.filter(|&b| is_space(b)) {
        let (expected, shown) = match a.peek()? {
            Some(_) => {
                let t = show(&super::scan::read_token(a)?);
                (t.clone(), format!("`{t}`"))
            }
            None => (
                "(end of the answer)".to_string(),
                "(end of the answer)".into(),
            ),
        };
        let message = format!(
            "the white space differs (space_change_sensitive): expected {shown}, found {}",
            space_name(y)
        );
        return Ok(Some(Difference {
            line: o.line,
            column: o.column,
            answer_line: a.line,
            message,
            expected,
            found: space_name(y).into(),
        }));
    }
    Ok(None)
}

/// Compares the next token of both files: as numbers within the tolerances when the answer's is
/// one and floats are compared, else as words (letter case aside unless `case_sensitive`).
fn tokens_differ(
    flags: &Flags,
    o: &mut Scanner<FileBytes>,
    a: &mut Scanner<FileBytes>,
) -> std::io::Result<Option<Difference>> {
    let (ot, at, exact, folded) = token_pair(o, a)?;
    let differs = |message| {
        Some(Difference {
            line: ot.line,
            column: ot.column,
            answer_line: at.line,
            message,
            expected: show(&at),
            found: show(&ot),
        })
    };
    let expected_number = if flags.floats() { number(&at) } else { None };
    if let Some(x) = expected_number {
        return Ok(match number(&ot) {
            Some(y) if flags.within(x, y) => None,
            Some(y) => differs(format!(
                "expected `{}`, found `{}` (difference {:.3e}; {})",
                show(&at),
                show(&ot),
                (y - x).abs(),
                tolerances(flags)
            )),
            None => differs(format!(
                "expected the number `{}`, found `{}`, which is not a number",
                show(&at),
                show(&ot)
            )),
        });
    }
    if exact || (folded && !flags.case_sensitive) {
        return Ok(None);
    }
    let note = if folded {
        " (letter case counts: case_sensitive)"
    } else {
        ""
    };
    Ok(differs(format!(
        "expected `{}`, found `{}`{note}",
        show(&at),
        show(&ot)
    )))
}

/// Reads the next token of both files in lockstep (constant memory for tokens of any length).
/// Returns both, and whether they are equal byte for byte and equal up to ASCII letter case.
fn token_pair(
    o: &mut Scanner<FileBytes>,
    a: &mut Scanner<FileBytes>,
) -> std::io::Result<(Token, Token, bool, bool)> {
    let start = |s: &Scanner<FileBytes>| Token {
        line: s.line,
        column: s.column,
        ..Token::default()
    };
    let (mut ot, mut at) = (start(o), start(a));
    let (mut exact, mut folded) = (true, true);
    loop {
        let (x, y) = (o.peek_token_byte()?, a.peek_token_byte()?);
        if x.is_none() && y.is_none() {
            return Ok((ot, at, exact, folded));
        }
        exact &= x == y;
        folded &= x.map(|b| b.to_ascii_lowercase()) == y.map(|b| b.to_ascii_lowercase());
        for (byte, tok, s) in [(x, &mut ot, &mut *o), (y, &mut at, &mut *a)] {
            if let Some(b) = byte {
                if tok.prefix.len() < KEEP {
                    tok.prefix.push(b);
                }
                tok.len += 1;
                s.bump()?;
            }
        }
    }
}

/// A token's value if it is a number in the spec's grammar and fits a double.
pub fn number(t: &Token) -> Option<f64> {
    if !t.complete() || !is_float(&t.prefix) {
        return None;
    }
    std::str::from_utf8(&t.prefix)
        .ok()?
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// `[+-]? ( digit* "." digit+ | digit+ "." | digit+ ) ( [eE] [+-]? digit+ )?`
pub fn is_float(s: &[u8]) -> bool {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let s = s.strip_prefix(b"+").or(s.strip_prefix(b"-")).unwrap_or(s);
    let whole = digits(s);
    let mut rest = &s[whole..];
    let mut mantissa = whole;
    if let Some(r) = rest.strip_prefix(b".") {
        let fraction = digits(r);
        mantissa += fraction;
        rest = &r[fraction..];
    }
    if mantissa == 0 {
        return false;
    }
    if let Some(r) = rest.strip_prefix(b"e").or(rest.strip_prefix(b"E")) {
        let r = r.strip_prefix(b"+").or(r.strip_prefix(b"-")).unwrap_or(r);
        let exponent = digits(r);
        return exponent > 0 && exponent == r.len();
    }
    rest.is_empty()
}

fn tolerances(flags: &Flags) -> String {
    match (
        flags.float_absolute_tolerance,
        flags.float_relative_tolerance,
    ) {
        (Some(a), Some(r)) if a == r => format!("tolerance {a:e}"),
        (Some(a), Some(r)) => format!("absolute tolerance {a:e}, relative {r:e}"),
        (Some(a), None) => format!("absolute tolerance {a:e}"),
        (None, Some(r)) => format!("relative tolerance {r:e}"),
        (None, None) => String::new(),
    }
}

fn space_name(b: u8) -> &'static str {
    match b {
        b' ' => "a space",
        b'\t' => "a tab",
        b'\n' => "a line break",
        b'\r' => "a carriage return",
        0x0b => "a vertical tab",
        0x0c => "a form feed",
        _ => "a token",
    }
}

#[cfg(test)]
mod tests;

/// Where the answer's side of a difference is: the checkers know the answer's line; its column is
/// the output's when both are on the same line, else the line's start.
fn answer_spot(line: u64, column: u64, answer_line: u64) -> Spot {
    Spot {
        line: answer_line,
        column: if answer_line == line { column } else { 1 },
    }
}
