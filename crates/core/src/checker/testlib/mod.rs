//! testlib's standard checkers (`checkers/*.cpp` of MikeMirzayanov/testlib), built in: no
//! compiler is needed, and each streams both files like the other built-ins. Each follows its
//! `.cpp` rule and testlib's reading ([`stream`]): what it reads, in which order, and which
//! file's fault a bad read is — a bad read of the output is a presentation error (PE), of the
//! answer a checker failure (a judge error, never a verdict about the solution); output left
//! over after a checker accepted is a PE ("extra information in the output file").
//!
//! Messages say what differs in our own words, with the place in the output.
//!
//! One function per `checkers/<name>.cpp`, in files by family: `words.rs` (wcmp, lcmp, fcmp),
//! `integers.rs` (ncmp, icmp, uncmp, hcmp), `reals.rs` (rcmp, rcmp4/6/9, rncmp, acmp, dcmp),
//! `yesno.rs` (yesno, nyesno), `cases.rs` (caseicmp, casencmp, casewcmp); this file holds the
//! names, the dispatch, the verdict and what the families share.

mod cases;
mod integers;
mod reals;
mod stream;
mod words;
mod yesno;

pub use reals::double_compare;

use super::diff::{self, Spot};
use super::scan::Token;
use super::{show, Judgement, Mismatch, Outcome};
use cases::{caseicmp, cases};
use integers::{hcmp, icmp, ncmp, uncmp};
use reals::{abs_close, one_real, reals};
use std::path::Path;
use stream::{Found, In, Role, Stop, R};
use words::{lines, wcmp};
use yesno::{nyesno, yesno};

/// A standard testlib checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standard {
    /// Words (blank-separated tokens), compared exactly.
    Wcmp,
    /// Lines compared as sequences of words.
    Lcmp,
    /// Lines compared exactly.
    Fcmp,
    /// Signed 64-bit integers in order.
    Ncmp,
    /// One signed 32-bit integer.
    Icmp,
    /// Signed 64-bit integers in any order (the same multiset).
    Uncmp,
    /// One integer of any size, without leading zeros.
    Hcmp,
    /// One real number, absolute error 1.5e-6.
    Rcmp,
    /// Real numbers, absolute or relative error 1e-4.
    Rcmp4,
    /// Real numbers, absolute or relative error 1e-6.
    Rcmp6,
    /// Real numbers, absolute or relative error 1e-9.
    Rcmp9,
    /// Real numbers, absolute error 1.5e-5.
    Rncmp,
    /// One real number, absolute error 1.5e-6.
    Acmp,
    /// One real number, absolute or relative error 1e-6.
    Dcmp,
    /// One YES or NO, in any letter case.
    Yesno,
    /// YES/NO words in any letter case.
    Nyesno,
    /// `Case i: <integer>` lines.
    Caseicmp,
    /// `Case i: <integers>` lines.
    Casencmp,
    /// `Case i: <words>` lines.
    Casewcmp,
}

/// Every standard checker by its testlib name.
pub const NAMES: [(&str, Standard); 19] = [
    ("wcmp", Standard::Wcmp),
    ("lcmp", Standard::Lcmp),
    ("fcmp", Standard::Fcmp),
    ("ncmp", Standard::Ncmp),
    ("icmp", Standard::Icmp),
    ("uncmp", Standard::Uncmp),
    ("hcmp", Standard::Hcmp),
    ("rcmp", Standard::Rcmp),
    ("rcmp4", Standard::Rcmp4),
    ("rcmp6", Standard::Rcmp6),
    ("rcmp9", Standard::Rcmp9),
    ("rncmp", Standard::Rncmp),
    ("acmp", Standard::Acmp),
    ("dcmp", Standard::Dcmp),
    ("yesno", Standard::Yesno),
    ("nyesno", Standard::Nyesno),
    ("caseicmp", Standard::Caseicmp),
    ("casencmp", Standard::Casencmp),
    ("casewcmp", Standard::Casewcmp),
];

/// testlib's example checkers that give points rather than a verdict.
pub const SCORING: [&str; 2] = ["pointscmp", "pointsinfo"];

impl Standard {
    /// A checker by name, as Polygon writes it (`std::rcmp6.cpp`) or bare (`rcmp6`).
    pub fn from_name(name: &str) -> Option<Standard> {
        let bare = bare_name(name);
        NAMES.iter().find(|(n, _)| *n == bare).map(|(_, s)| *s)
    }

    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("?", |(n, _)| n)
    }
}

/// `std::rcmp6.cpp` → `rcmp6`.
pub fn bare_name(name: &str) -> &str {
    let name = name.trim();
    let name = name.strip_prefix("std::").unwrap_or(name);
    name.strip_suffix(".cpp").unwrap_or(name)
}

/// Runs a standard checker on `output` against `answer`. A malformed answer is an `Err`
/// (`InvalidData`), which the engine reports as a judge error.
pub fn check(which: Standard, output: &Path, answer: &Path) -> std::io::Result<Outcome> {
    let mut ouf = In::open(output, Role::Output)?;
    let mut ans = In::open(answer, Role::Answer)?;
    let result = ouf
        .size_check()
        .and_then(|()| ans.size_check())
        .and_then(|()| run(which, &mut ans, &mut ouf))
        .and_then(|()| dirt(&mut ouf));
    match result {
        Ok(()) => Ok(Outcome::accepted()),
        Err(Stop::Judged(f)) => outcome(f, output, answer, ans.line),
        Err(Stop::Fail(why)) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{why} (testlib's {} would FAIL)", which.name()),
        )),
        Err(Stop::Io(e)) => Err(e),
    }
}

fn outcome(f: Found, output: &Path, answer: &Path, answer_line: u64) -> std::io::Result<Outcome> {
    let judgement = if f.presentation {
        Judgement::PresentationError
    } else {
        Judgement::WrongAnswer
    };
    if f.line == 0 {
        return Ok(Outcome {
            judgement,
            score: None,
            message: f.message,
            mismatch: None,
        });
    }
    Ok(Outcome {
        judgement,
        score: None,
        message: format!("line {}, column {}: {}", f.line, f.column, f.message),
        mismatch: Some(Mismatch {
            line: f.line,
            column: f.column,
            window: diff::window(
                output,
                Spot {
                    line: f.line,
                    column: f.column,
                },
                answer,
                Spot {
                    line: answer_line.max(1),
                    column: if answer_line == f.line { f.column } else { 1 },
                },
            )?,
            expected: f.expected,
            found: f.found,
        }),
    })
}

fn run(which: Standard, ans: &mut In, ouf: &mut In) -> R<()> {
    use Standard::*;
    match which {
        Wcmp => wcmp(ans, ouf),
        Lcmp => lines(ans, ouf, false),
        Fcmp => lines(ans, ouf, true),
        Ncmp => ncmp(ans, ouf),
        Icmp => icmp(ans, ouf),
        Uncmp => uncmp(ans, ouf),
        Hcmp => hcmp(ans, ouf),
        Rcmp | Acmp => one_real(ans, ouf, |j, p| abs_close(j, p, 1.5e-6)),
        Dcmp => one_real(ans, ouf, |j, p| double_compare(j, p, 1e-6)),
        Rcmp4 => reals(ans, ouf, |j, p| double_compare(j, p, 1e-4)),
        Rcmp6 => reals(ans, ouf, |j, p| double_compare(j, p, 1e-6)),
        Rcmp9 => reals(ans, ouf, |j, p| double_compare(j, p, 1e-9)),
        Rncmp => reals(ans, ouf, |j, p| abs_close(j, p, 1.5e-5)),
        Yesno => yesno(ans, ouf),
        Nyesno => nyesno(ans, ouf),
        Caseicmp => caseicmp(ans, ouf),
        Casencmp => cases(ans, ouf, true),
        Casewcmp => cases(ans, ouf, false),
    }
}

/// After an accepting checker: output left over (beyond blanks) is a presentation error.
fn dirt(ouf: &mut In) -> R<()> {
    if ouf.seek_eof()? {
        return Ok(());
    }
    let t = ouf.skip_word("")?;
    Err(Stop::Judged(Found {
        presentation: true,
        line: t.line,
        column: t.column,
        message: format!(
            "extra output `{}` after everything the checker reads",
            show(&t)
        ),
        expected: "(end of the output)".into(),
        found: show(&t),
    }))
}

pub(super) fn wrong(at: (u64, u64), message: String, expected: String, found: String) -> Stop {
    Stop::Judged(Found {
        presentation: false,
        line: at.0,
        column: at.1,
        message,
        expected,
        found,
    })
}

pub(super) fn at(t: &Token) -> (u64, u64) {
    (t.line, t.column)
}

pub(super) fn here(s: &In) -> (u64, u64) {
    (s.line, s.column)
}

/// 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st …
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The answer's and the output's next words, read together so that words of any length
/// compare exactly in constant memory. testlib reads the answer's word first: its errors come
/// first; an error in the output's word is returned in the middle slot once the answer's word
/// is read whole. Returns whether the two are byte-equal. Each byte also goes to its sink.
pub(super) fn word_pair(
    ans: &mut In,
    ouf: &mut In,
    what: &str,
    ans_sink: &mut dyn FnMut(u8),
    ouf_sink: &mut dyn FnMut(u8),
) -> R<(Token, Result<Token, Stop>, bool)> {
    ans.skip_blanks()?;
    ouf.skip_blanks()?;
    if ans.at_eof()? {
        return Err(ans.eof_error(what));
    }
    if ouf.at_eof()? {
        let j = ans.finish_word(ans.start(), ans_sink)?;
        return Ok((j, Err(ouf.eof_error(what)), false));
    }
    let (mut j, mut p) = (ans.start(), ouf.start());
    let mut equal = true;
    loop {
        let (a, o) = (ans.word_byte()?, ouf.word_byte()?);
        if a.is_none() && o.is_none() {
            return Ok((j, Ok(p), equal));
        }
        equal &= a == o;
        if let Some(b) = a {
            // Reads one byte more of the answer's word, failing if it grows too long.
            ans.bump();
            stream::push(&mut j, b);
            ans_sink(b);
            if j.len > stream::MAX_WORD {
                return Err(ans.too_long(&j));
            }
        }
        if let Some(b) = o {
            ouf.bump();
            stream::push(&mut p, b);
            ouf_sink(b);
            if p.len > stream::MAX_WORD {
                let j = ans.finish_word(j, ans_sink)?;
                return Ok((j, Err(ouf.too_long(&p)), false));
            }
        }
    }
}

#[cfg(test)]
mod tests;
