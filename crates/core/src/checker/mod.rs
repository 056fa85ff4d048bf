//! Built-in output checkers (exact, lines, tokens, float) and the testlib exit-code protocol of
//! custom checkers. Built-in checkers stream both files, so memory stays constant whatever the size:
//! tokens are compared in lockstep byte by byte, and only a window around the first difference is
//! re-read for the message and the diff.

pub mod crash;
pub mod diff;
pub mod kattis;
mod scan;
pub mod testlib;

use diff::Spot;
pub use judge_model::result::Mismatch;
use scan::{read_token, read_token_pair, ByteSource, FileBytes, Normalised, Scanner, Token};
use std::path::Path;

/// A built-in comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Builtin {
    /// Byte for byte (same tokens with different spacing is a presentation error).
    Exact,
    /// Line by line; trailing spaces on a line and trailing blank lines are ignored.
    Lines,
    /// Whitespace-separated tokens, case-sensitive.
    Tokens,
    /// Tokens; where the answer's token is a number, the output's must be a number within either
    /// tolerance.
    Float { absolute: f64, relative: f64 },
    /// A standard testlib checker (`wcmp`, `rcmp6`, …) with testlib's own reading rules.
    Testlib(testlib::Standard),
    /// The Kattis default output validator with its flags.
    Kattis(kattis::Flags),
}

/// The checker's judgement of one output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Accepted,
    WrongAnswer,
    PresentationError,
}

impl Judgement {
    /// The test's verdict.
    pub fn verdict(self) -> judge_model::Verdict {
        match self {
            Judgement::Accepted => judge_model::Verdict::AC,
            Judgement::WrongAnswer => judge_model::Verdict::WA,
            Judgement::PresentationError => judge_model::Verdict::PE,
        }
    }
}

/// The first line of `text` that says something, trimmed.
pub fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(String::from)
}

/// The last line of `text` that says something, trimmed (a program's reason after its
/// progress).
pub fn last_line(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(String::from)
}

/// A checker's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub judgement: Judgement,
    /// One-line human explanation, e.g. "line 3, column 5: expected `42`, found `41`".
    pub message: String,
    pub mismatch: Option<Mismatch>,
    /// The checker's own score for the test (testlib `points`, Kattis `score.txt`).
    pub score: Option<judge_model::score::Reported>,
}

impl Outcome {
    fn accepted() -> Outcome {
        Outcome {
            judgement: Judgement::Accepted,
            score: None,
            message: String::new(),
            mismatch: None,
        }
    }
}

/// Characters of a token or line shown in messages.
const SHOW: usize = 60;

/// Compares `output` with `answer` using a built-in checker.
pub fn check(kind: &Builtin, output: &Path, answer: &Path) -> std::io::Result<Outcome> {
    match kind {
        Builtin::Tokens => tokens(output, answer, None),
        Builtin::Float { absolute, relative } => {
            tokens(output, answer, Some((*absolute, *relative)))
        }
        Builtin::Testlib(which) => testlib::check(*which, output, answer),
        Builtin::Kattis(flags) => kattis::check(flags, output, answer),
        Builtin::Exact => {
            let mut o = Scanner::new(FileBytes::open(output)?);
            let mut a = Scanner::new(FileBytes::open(answer)?);
            bytewise(&mut o, &mut a, output, answer, "")
        }
        Builtin::Lines => {
            let mut o = Scanner::new(Normalised::new(FileBytes::open(output)?));
            let mut a = Scanner::new(Normalised::new(FileBytes::open(answer)?));
            bytewise(
                &mut o,
                &mut a,
                output,
                answer,
                " (trailing spaces and blank lines aside)",
            )
        }
    }
}

/// The Kattis output validator protocol: exit 42 AC, 43 WA; any other code (0 included) or a
/// signal is a validator failure (`Err`, a judge error). `message` is the validator's first line
/// of `judgemessage.txt` (or stderr).
pub fn kattis_exit(code: Option<i32>, message: &str) -> Result<Outcome, String> {
    let message = cap_chars(message, 300);
    let judgement = match code {
        Some(42) => Judgement::Accepted,
        Some(43) => Judgement::WrongAnswer,
        Some(0) => {
            return Err(format!(
                "the output validator exited with 0, which is not a verdict (42 accepts, 43 rejects): {message}"
            ))
        }
        Some(c) => {
            return Err(format!(
                "the output validator exited with code {c} (42 accepts, 43 rejects): {message}"
            ))
        }
        None => return Err(format!("the output validator was killed: {message}")),
    };
    let message = if message.is_empty() && judgement == Judgement::WrongAnswer {
        "the output validator rejected the output (exit 43) without a message".to_string()
    } else {
        message
    };
    Ok(Outcome {
        judgement,
        score: None,
        message,
        mismatch: None,
    })
}

/// The testlib protocol: exit 0 AC, 1 WA, 2 PE, 7 points (accepted with the score on stderr:
/// `points <value> <message>`); 3, any other code or a signal is a checker failure (`Err`, a
/// judge error). The message is the first line of the checker's stderr.
pub fn testlib_exit(code: Option<i32>, stderr: &str) -> Result<Outcome, String> {
    let first = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let message = cap_chars(first, 300);
    let judgement = match code {
        Some(0) => Judgement::Accepted,
        Some(1) => Judgement::WrongAnswer,
        Some(2) => Judgement::PresentationError,
        Some(3) => return Err(format!("the checker reports a failure: {message}")),
        // testlib's `quitp`: stderr `points <value> <message>`.
        Some(7) => {
            let rest = first.strip_prefix("points").unwrap_or(first).trim_start();
            let (value, said) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let points: f64 = value.parse().map_err(|_| {
                format!("the checker gave points (exit 7) but no number: {message}")
            })?;
            return Ok(Outcome {
                judgement: Judgement::Accepted,
                message: cap_chars(&format!("points {value} {}", said.trim()), 300)
                    .trim_end()
                    .to_string(),
                mismatch: None,
                score: Some(judge_model::score::Reported::Score(points)),
            });
        }
        Some(c) => {
            return Err(format!(
                "the checker exited with code {c} (testlib codes are 0-3): {message}"
            ))
        }
        None => return Err(format!("the checker was killed: {message}")),
    };
    Ok(Outcome {
        judgement,
        score: None,
        message,
        mismatch: None,
    })
}

fn tokens(output: &Path, answer: &Path, float: Option<(f64, f64)>) -> std::io::Result<Outcome> {
    let mut o = Scanner::new(FileBytes::open(output)?);
    let mut a = Scanner::new(FileBytes::open(answer)?);
    loop {
        o.skip_space()?;
        a.skip_space()?;
        match (o.peek()?, a.peek()?) {
            (None, None) => return Ok(Outcome::accepted()),
            (Some(_), None) => {
                let extra = read_token(&mut o)?;
                let msg = format!(
                    "line {}, column {}: extra output `{}` after the answer ended",
                    extra.line,
                    extra.column,
                    show(&extra)
                );
                let expected = "(end of the answer)".to_string();
                let answer_end = Spot {
                    line: a.line,
                    column: a.column,
                };
                return wrong(
                    msg,
                    &extra,
                    output,
                    answer,
                    answer_end,
                    expected,
                    show(&extra),
                );
            }
            (None, Some(_)) => {
                let (line, column) = (o.line, o.column);
                let missing = read_token(&mut a)?;
                let msg = format!(
                    "line {line}, column {column}: the output ends, but the answer continues with `{}`",
                    show(&missing)
                );
                let at = Token {
                    line,
                    column,
                    ..Token::default()
                };
                let found = "(end of the output)".to_string();
                return wrong(
                    msg,
                    &at,
                    output,
                    answer,
                    spot(&missing),
                    show(&missing),
                    found,
                );
            }
            (Some(_), Some(_)) => {
                let (ot, at, equal) = read_token_pair(&mut o, &mut a)?;
                if equal {
                    continue;
                }
                let mut note = String::new();
                if let Some((abs, rel)) = float {
                    if let Some(expected) = parse_number(&at) {
                        match parse_number(&ot) {
                            Some(found) if within(found, expected, abs, rel) => continue,
                            Some(found) => {
                                note = format!(
                                    " (difference {:.3e} exceeds the tolerance)",
                                    (found - expected).abs()
                                );
                            }
                            None => note = " (not a number)".into(),
                        }
                    }
                }
                let msg = format!(
                    "line {}, column {}: expected `{}`, found `{}`{note}",
                    ot.line,
                    ot.column,
                    show(&at),
                    show(&ot)
                );
                return wrong(msg, &ot, output, answer, spot(&at), show(&at), show(&ot));
            }
        }
    }
}

fn spot(t: &Token) -> Spot {
    Spot {
        line: t.line,
        column: t.column,
    }
}

fn wrong(
    message: String,
    at: &Token,
    output: &Path,
    answer: &Path,
    answer_spot: Spot,
    expected: String,
    found: String,
) -> std::io::Result<Outcome> {
    Ok(Outcome {
        judgement: Judgement::WrongAnswer,
        score: None,
        message,
        mismatch: Some(Mismatch {
            line: at.line,
            column: at.column,
            expected,
            found,
            window: diff::window(output, spot(at), answer, answer_spot)?,
        }),
    })
}

/// Byte-for-byte comparison of two (possibly normalised) streams; PE when the tokens agree.
fn bytewise<A: ByteSource, B: ByteSource>(
    o: &mut Scanner<A>,
    a: &mut Scanner<B>,
    output: &Path,
    answer: &Path,
    what: &str,
) -> std::io::Result<Outcome> {
    loop {
        let (x, y) = (o.peek()?, a.peek()?);
        if x == y {
            if x.is_none() {
                return Ok(Outcome::accepted());
            }
            o.bump()?;
            a.bump()?;
            continue;
        }
        let (line, column) = (o.line, o.column);
        let answer_spot = Spot {
            line: a.line,
            column: a.column,
        };
        let expected = rest_of_line(a)?;
        let found = rest_of_line(o)?;
        let same_tokens = tokens(output, answer, None)?.judgement == Judgement::Accepted;
        let (judgement, message) = if same_tokens {
            (
                Judgement::PresentationError,
                format!("line {line}, column {column}: the tokens are right but the spacing differs{what}"),
            )
        } else {
            (
                Judgement::WrongAnswer,
                format!("line {line}, column {column}: expected `{expected}`, found `{found}`"),
            )
        };
        return Ok(Outcome {
            judgement,
            score: None,
            message,
            mismatch: Some(Mismatch {
                line,
                column,
                expected,
                found,
                window: diff::window(output, Spot { line, column }, answer, answer_spot)?,
            }),
        });
    }
}

/// The rest of the current line (capped), with the end of the line or file made visible.
fn rest_of_line<S: ByteSource>(s: &mut Scanner<S>) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    let mut ended = None;
    while bytes.len() < SHOW {
        match s.peek()? {
            None => {
                ended = Some("(end of file)");
                break;
            }
            Some(b'\n') => {
                ended = Some("(end of line)");
                break;
            }
            Some(b) => {
                bytes.push(b);
                s.bump()?;
            }
        }
    }
    let mut text = String::from_utf8_lossy(&bytes).escape_debug().to_string();
    if let Some(end) = ended {
        if text.is_empty() {
            text = end.to_string();
        }
    } else {
        text.push('…');
    }
    Ok(text)
}

fn parse_number(t: &Token) -> Option<f64> {
    if !t.complete() || t.prefix.len() > 400 {
        return None;
    }
    let s = std::str::from_utf8(&t.prefix).ok()?;
    let lower = s.to_ascii_lowercase();
    if lower.contains("inf") || lower.contains("nan") {
        return None;
    }
    s.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn within(found: f64, expected: f64, abs: f64, rel: f64) -> bool {
    let diff = (found - expected).abs();
    diff <= abs || diff <= rel * expected.abs()
}

fn show(t: &Token) -> String {
    let text = String::from_utf8_lossy(&t.prefix);
    let mut s = cap_chars(&text, SHOW);
    if !t.complete() && !s.ends_with('…') {
        s.push('…');
    }
    s
}

fn cap_chars(text: &str, cap: usize) -> String {
    if text.chars().count() > cap {
        format!("{}…", text.chars().take(cap).collect::<String>())
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests;
