//! `wcmp` (words compared exactly), `lcmp` (lines as word sequences) and `fcmp` (lines byte for
//! byte).

use super::stream::{In, R};
use super::{at, here, ordinal, show, word_pair, wrong};
use crate::checker::SHOW;

pub(super) fn wcmp(ans: &mut In, ouf: &mut In) -> R<()> {
    let mut n = 0;
    while !ans.seek_eof()? && !ouf.seek_eof()? {
        n += 1;
        let (j, p, equal) = word_pair(ans, ouf, "a word", &mut |_| {}, &mut |_| {})?;
        let p = p?;
        if !equal {
            return Err(wrong(
                at(&p),
                format!(
                    "the {} word differs: expected `{}`, found `{}`",
                    ordinal(n),
                    show(&j),
                    show(&p)
                ),
                show(&j),
                show(&p),
            ));
        }
    }
    if ans.seek_eof()? && ouf.seek_eof()? {
        return Ok(());
    }
    if ans.seek_eof()? {
        let p = ouf.skip_word("a word")?;
        return Err(wrong(
            at(&p),
            format!("extra output `{}` after the answer's {n} words", show(&p)),
            "(end of the answer)".into(),
            show(&p),
        ));
    }
    let j = ans.skip_word("a word")?;
    Err(wrong(
        here(ouf),
        format!(
            "the output ends after {n} words, but the answer continues with `{}`",
            show(&j)
        ),
        show(&j),
        "(end of the output)".into(),
    ))
}

/// `fcmp` (lines equal byte for byte) and `lcmp` (lines equal as word sequences, words split
/// at C's white space). Every line of the answer is compared with the output's line of the same
/// number (a missing output line reads as empty); an empty last answer line ends the answer.
pub(super) fn lines(ans: &mut In, ouf: &mut In, exact: bool) -> R<()> {
    let mut n = 0;
    while !ans.at_eof()? {
        if ans.only_final_newline()? {
            break;
        }
        n += 1;
        let line = ouf.line;
        let same = if exact {
            same_line(ans, ouf)?
        } else {
            same_line_words(ans, ouf)?
        };
        if let Some((ocol, expected, found)) = same {
            let how = if exact { "" } else { " (as words)" };
            return Err(wrong(
                (line, ocol),
                format!(
                    "the {} line differs{how}: expected `{expected}`, found `{found}`",
                    ordinal(n)
                ),
                expected,
                found,
            ));
        }
        ans.end_line()?;
        ouf.end_line()?;
    }
    Ok(())
}

/// Compares the current lines byte for byte; on a difference returns the output's column and
/// what each line has from there.
fn same_line(ans: &mut In, ouf: &mut In) -> R<Option<(u64, String, String)>> {
    loop {
        let (a, o) = (ans.line_peek()?, ouf.line_peek()?);
        if a != o {
            let column = ouf.column;
            return Ok(Some((
                column,
                shown(&[], rest_of_line(ans)?),
                shown(&[], rest_of_line(ouf)?),
            )));
        }
        if a.is_none() {
            return Ok(None);
        }
        ans.line_bump()?;
        ouf.line_bump()?;
    }
}

/// Compares the current lines as word sequences.
fn same_line_words(ans: &mut In, ouf: &mut In) -> R<Option<(u64, String, String)>> {
    loop {
        skip_line_space(ans)?;
        skip_line_space(ouf)?;
        let (a, o) = (ans.line_peek()?, ouf.line_peek()?);
        if a.is_none() && o.is_none() {
            return Ok(None);
        }
        let column = ouf.column;
        if a.is_none() || o.is_none() {
            return Ok(Some((
                column,
                shown(&[], rest_of_line(ans)?),
                shown(&[], rest_of_line(ouf)?),
            )));
        }
        // Both at a word: compare it in lockstep.
        let mut equal = true;
        let (mut j, mut p) = (Vec::new(), Vec::new());
        loop {
            let a = ans.line_peek()?.filter(|b| !c_space(*b));
            let o = ouf.line_peek()?.filter(|b| !c_space(*b));
            if a.is_none() && o.is_none() {
                break;
            }
            equal &= a == o;
            if !equal {
                break;
            }
            for (b, s, w) in [(a, &mut *ans, &mut j), (o, &mut *ouf, &mut p)] {
                if b.is_some() {
                    s.line_bump()?;
                }
                if let Some(b) = b.filter(|_| w.len() < SHOW) {
                    w.push(b);
                }
            }
        }
        if !equal {
            let expected = shown(&j, rest_of_line(ans)?);
            let found = shown(&p, rest_of_line(ouf)?);
            return Ok(Some((column, expected, found)));
        }
    }
}

/// The part of a word already read and the rest of its line, for a message.
fn shown(read: &[u8], rest: String) -> String {
    let text = String::from_utf8_lossy(read).escape_debug().to_string() + &rest;
    if text.is_empty() {
        "(end of the line)".into()
    } else {
        text
    }
}

/// C's `isspace` (what a `stringstream` splits words at).
fn c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn skip_line_space(s: &mut In) -> R<()> {
    while s.line_peek()?.is_some_and(c_space) {
        s.line_bump()?;
    }
    Ok(())
}

/// The rest of the current line (capped), without consuming the end of the line.
fn rest_of_line(s: &mut In) -> R<String> {
    let mut bytes = Vec::new();
    while let Some(b) = s.line_peek()? {
        if bytes.len() >= SHOW {
            bytes.extend_from_slice("…".as_bytes());
            break;
        }
        bytes.push(b);
        s.line_bump()?;
    }
    Ok(String::from_utf8_lossy(&bytes).escape_debug().to_string())
}
