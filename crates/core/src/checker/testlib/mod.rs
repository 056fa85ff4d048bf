//! testlib's standard checkers (`checkers/*.cpp` of MikeMirzayanov/testlib), built in: no
//! compiler is needed, and each streams both files like the other built-ins. Each follows its
//! `.cpp` rule and testlib's reading ([`stream`]): what it reads, in which order, and which
//! file's fault a bad read is — a bad read of the output is a presentation error (PE), of the
//! answer a checker failure (a judge error, never a verdict about the solution); output left
//! over after a checker accepted is a PE ("extra information in the output file").
//!
//! Messages say what differs in our own words, with the place in the output.

mod stream;

use super::diff::{self, Spot};
use super::scan::Token;
use super::{show, Judgement, Mismatch, Outcome};
use std::path::Path;
use stream::{is, CanonicalInteger, Found, In, Role, Stop, R};

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

fn wrong(at: (u64, u64), message: String, expected: String, found: String) -> Stop {
    Stop::Judged(Found {
        presentation: false,
        line: at.0,
        column: at.1,
        message,
        expected,
        found,
    })
}

fn at(t: &Token) -> (u64, u64) {
    (t.line, t.column)
}

fn here(s: &In) -> (u64, u64) {
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
fn word_pair(
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

fn wcmp(ans: &mut In, ouf: &mut In) -> R<()> {
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
fn lines(ans: &mut In, ouf: &mut In, exact: bool) -> R<()> {
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
                if let Some(b) = b.filter(|_| w.len() < super::SHOW) {
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
        if bytes.len() >= super::SHOW {
            bytes.extend_from_slice("…".as_bytes());
            break;
        }
        bytes.push(b);
        s.line_bump()?;
    }
    Ok(String::from_utf8_lossy(&bytes).escape_debug().to_string())
}

fn ncmp(ans: &mut In, ouf: &mut In) -> R<()> {
    let mut n: u64 = 0;
    while !ans.seek_eof()? && !ouf.seek_eof()? {
        n += 1;
        let (jt, j) = ans.read_long()?;
        let (pt, p) = ouf.read_long()?;
        if j != p {
            return Err(wrong(
                at(&pt),
                format!(
                    "the {} number differs: expected `{}`, found `{}`",
                    ordinal(n),
                    show(&jt),
                    show(&pt)
                ),
                show(&jt),
                show(&pt),
            ));
        }
    }
    let mut extra_answer = 0u64;
    let mut first_missing = None;
    while !ans.seek_eof()? {
        let (t, _) = ans.read_long()?;
        first_missing.get_or_insert(t);
        extra_answer += 1;
    }
    let end = here(ouf);
    let mut extra_output = 0u64;
    let mut first_extra = None;
    while !ouf.seek_eof()? {
        let (t, _) = ouf.read_long()?;
        first_extra.get_or_insert(t);
        extra_output += 1;
    }
    if let Some(j) = first_missing {
        return Err(wrong(
            end,
            format!(
                "the output has {n} numbers, the answer {} (next: `{}`)",
                n + extra_answer,
                show(&j)
            ),
            show(&j),
            "(end of the output)".into(),
        ));
    }
    if let Some(p) = first_extra {
        return Err(wrong(
            at(&p),
            format!(
                "the output has {} numbers, the answer only {n}: `{}` is one too many",
                n + extra_output,
                show(&p)
            ),
            "(end of the answer)".into(),
            show(&p),
        ));
    }
    Ok(())
}

fn icmp(ans: &mut In, ouf: &mut In) -> R<()> {
    let (jt, j) = ans.read_int()?;
    let (pt, p) = ouf.read_int()?;
    if j != p {
        return Err(wrong(
            at(&pt),
            format!("expected `{j}`, found `{p}`"),
            show(&jt),
            show(&pt),
        ));
    }
    Ok(())
}

fn uncmp(ans: &mut In, ouf: &mut In) -> R<()> {
    // The answer's numbers (bounded by the answer's size), counted per value.
    let mut values = Vec::new();
    while !ans.seek_eof()? {
        values.push(ans.read_long()?.1);
    }
    values.sort_unstable();
    let mut left: Vec<(i64, u64)> = Vec::new();
    for v in &values {
        match left.last_mut() {
            Some((last, count)) if last == v => *count += 1,
            _ => left.push((*v, 1)),
        }
    }
    let expected = values.len() as u64;
    drop(values);
    let mut found = 0u64;
    let mut stray = None;
    while !ouf.seek_eof()? {
        let (t, v) = ouf.read_long()?;
        found += 1;
        if stray.is_none() {
            match left.binary_search_by_key(&v, |(value, _)| *value) {
                Ok(i) if left[i].1 > 0 => left[i].1 -= 1,
                _ => stray = Some(t),
            }
        }
    }
    if found != expected {
        return Err(wrong(
            here(ouf),
            format!("expected {expected} numbers, found {found}"),
            format!("{expected} numbers"),
            format!("{found} numbers"),
        ));
    }
    if let Some(t) = stray {
        return Err(wrong(
            at(&t),
            format!(
                "the numbers differ from the answer's (in any order): `{}` is not among the answer's remaining numbers",
                show(&t)
            ),
            "the answer's numbers in any order".into(),
            show(&t),
        ));
    }
    Ok(())
}

fn hcmp(ans: &mut In, ouf: &mut In) -> R<()> {
    let (mut jn, mut pn) = (CanonicalInteger::default(), CanonicalInteger::default());
    let (j, p, equal) = word_pair(ans, ouf, "an integer", &mut |b| jn.push(b), &mut |b| {
        pn.push(b)
    })?;
    // testlib reads both words before looking at either.
    let p = p?;
    if !jn.accepts() {
        return Err(ans.bad(&j, "an integer without leading zeros"));
    }
    if !ans.seek_eof()? {
        let extra = ans.skip_word("")?;
        return Err(ans.error(
            extra.line,
            extra.column,
            "the answer holds more than one word".into(),
            "one integer".into(),
            show(&extra),
        ));
    }
    if !pn.accepts() {
        return Err(ouf.bad(&p, "an integer without leading zeros"));
    }
    if !equal {
        return Err(wrong(
            at(&p),
            format!("expected `{}`, found `{}`", show(&j), show(&p)),
            show(&j),
            show(&p),
        ));
    }
    Ok(())
}

/// `rcmp`, `acmp`, `dcmp`: one real number each.
fn one_real(ans: &mut In, ouf: &mut In, close: fn(f64, f64) -> bool) -> R<()> {
    let (jt, j) = ans.read_double()?;
    let (pt, p) = ouf.read_double()?;
    if !close(j, p) {
        return Err(real_differs(None, &jt, &pt, j, p));
    }
    Ok(())
}

/// `rcmp4/6/9`, `rncmp`: as many real numbers as the answer has.
fn reals(ans: &mut In, ouf: &mut In, close: fn(f64, f64) -> bool) -> R<()> {
    let mut n = 0;
    while !ans.seek_eof()? {
        n += 1;
        let (jt, j) = ans.read_double()?;
        let (pt, p) = ouf.read_double()?;
        if !close(j, p) {
            return Err(real_differs(Some(n), &jt, &pt, j, p));
        }
    }
    Ok(())
}

fn real_differs(n: Option<u64>, jt: &Token, pt: &Token, j: f64, p: f64) -> Stop {
    let which = n.map_or(String::new(), |n| {
        format!("the {} number differs: ", ordinal(n))
    });
    wrong(
        at(pt),
        format!(
            "{which}expected `{}`, found `{}` (error {:.3e})",
            show(jt),
            show(pt),
            double_delta(j, p)
        ),
        show(jt),
        show(pt),
    )
}

/// `rcmp`, `acmp`, `rncmp`: rejected only if `|j - p| > eps + 1e-15`, so two infinities of the
/// same sign (whose difference is NaN) are accepted.
fn abs_close(j: f64, p: f64, eps: f64) -> bool {
    (j - p).abs().partial_cmp(&(eps + 1e-15)) != Some(std::cmp::Ordering::Greater)
}

/// testlib's `doubleCompare`: within `eps` (plus 1e-15) absolutely or relatively; testlib counts
/// any magnitude over 1e300 as infinite, equal to an "infinity" of the same sign.
pub fn double_compare(expected: f64, result: f64, eps: f64) -> bool {
    let eps = eps + 1e-15;
    let infinite = |x: f64| !(-1e300..=1e300).contains(&x) && !x.is_nan();
    if expected.is_nan() {
        return result.is_nan();
    }
    if infinite(expected) {
        return infinite(result) && (result > 0.0) == (expected > 0.0);
    }
    if result.is_nan() || infinite(result) {
        return false;
    }
    if (result - expected).abs() <= eps {
        return true;
    }
    let (a, b) = (expected * (1.0 - eps), expected * (1.0 + eps));
    result >= a.min(b) && result <= a.max(b)
}

/// testlib's `doubleDelta`: the smaller of the absolute and relative error.
fn double_delta(expected: f64, result: f64) -> f64 {
    let absolute = (result - expected).abs();
    if expected.abs() > 1e-9 {
        absolute.min((absolute / expected).abs())
    } else {
        absolute
    }
}

/// `YES` or `NO` (ASCII letters in any case), else `None`.
fn yes_no(t: &Token) -> Option<&'static str> {
    if !t.complete() {
        return None;
    }
    match t.prefix.to_ascii_uppercase().as_slice() {
        b"YES" => Some("YES"),
        b"NO" => Some("NO"),
        _ => None,
    }
}

fn yesno(ans: &mut In, ouf: &mut In) -> R<()> {
    let (j, p, _) = word_pair(ans, ouf, "YES or NO", &mut |_| {}, &mut |_| {})?;
    let p = p?;
    let Some(ja) = yes_no(&j) else {
        return Err(ans.bad(&j, "YES or NO"));
    };
    let Some(pa) = yes_no(&p) else {
        return Err(ouf.bad(&p, "YES or NO"));
    };
    if ja != pa {
        return Err(wrong(
            at(&p),
            format!("expected {ja}, found {pa}"),
            ja.into(),
            show(&p),
        ));
    }
    Ok(())
}

fn nyesno(ans: &mut In, ouf: &mut In) -> R<()> {
    let mut n = 0;
    while !ans.seek_eof()? && !ouf.seek_eof()? {
        n += 1;
        let (j, p, _) = word_pair(ans, ouf, "YES or NO", &mut |_| {}, &mut |_| {})?;
        let p = p?;
        let what = format!("YES or NO (the {} word)", ordinal(n));
        let Some(ja) = yes_no(&j) else {
            return Err(ans.bad(&j, &what));
        };
        let Some(pa) = yes_no(&p) else {
            return Err(ouf.bad(&p, &what));
        };
        if ja != pa {
            return Err(wrong(
                at(&p),
                format!(
                    "the {} answer differs: expected {ja}, found {pa}",
                    ordinal(n)
                ),
                ja.into(),
                show(&p),
            ));
        }
    }
    let mut extra_answer = 0;
    while !ans.seek_eof()? {
        ans.skip_word("")?;
        extra_answer += 1;
    }
    let end = here(ouf);
    let mut extra_output = 0;
    let mut first_extra = None;
    while !ouf.seek_eof()? {
        let t = ouf.skip_word("")?;
        first_extra.get_or_insert(t);
        extra_output += 1;
    }
    if extra_answer > 0 {
        return Err(wrong(
            end,
            format!("the output has {n} words, the answer {}", n + extra_answer),
            format!("{} words", n + extra_answer),
            "(end of the output)".into(),
        ));
    }
    if let Some(p) = first_extra {
        return Err(wrong(
            at(&p),
            format!(
                "the output has {} words, the answer only {n}",
                n + extra_output
            ),
            "(end of the answer)".into(),
            show(&p),
        ));
    }
    Ok(())
}

/// Reads `Case <i>:` (the `Case` word unless already read).
fn case_header(s: &mut In, i: u64, case_read: bool) -> R<()> {
    if !case_read {
        let t = s.skip_word("`Case`")?;
        if !is(&t, "Case") {
            return Err(s.bad(&t, &format!("`Case` (test case {i})")));
        }
    }
    let t = s.skip_word(&format!("`{i}:`"))?;
    if !is(&t, &format!("{i}:")) {
        return Err(s.bad(&t, &format!("`{i}:` (test case {i})")));
    }
    Ok(())
}

/// `caseicmp`: `Case i: <integer>` for i = 1, 2, …; testlib reads the whole answer, then the
/// whole output, then compares: the first differing case is WA, a different number of cases PE.
fn caseicmp(ans: &mut In, ouf: &mut In) -> R<()> {
    fn next(s: &mut In, i: u64) -> R<Option<(Token, i64)>> {
        if s.seek_eof()? {
            return Ok(None);
        }
        case_header(s, i, false)?;
        s.read_long().map(Some)
    }
    let (mut na, mut no) = (0u64, 0u64);
    let mut output_live = true;
    let mut output_error = None;
    let mut first_diff = None;
    while let Some((jt, j)) = next(ans, na + 1)? {
        na += 1;
        if !output_live {
            continue;
        }
        match next(ouf, no + 1) {
            Ok(Some((pt, p))) => {
                no += 1;
                if p != j && first_diff.is_none() {
                    first_diff = Some((no, jt, pt));
                }
            }
            Ok(None) => output_live = false,
            Err(Stop::Judged(f)) => {
                output_error = Some(f);
                output_live = false;
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(f) = output_error {
        return Err(Stop::Judged(f));
    }
    let end = here(ouf);
    if output_live {
        while next(ouf, no + 1)?.is_some() {
            no += 1;
        }
    }
    if let Some((i, jt, pt)) = first_diff {
        return Err(wrong(
            at(&pt),
            format!(
                "test case {i} differs: expected `{}`, found `{}`",
                show(&jt),
                show(&pt)
            ),
            show(&jt),
            show(&pt),
        ));
    }
    if na != no {
        return Err(Stop::Judged(Found {
            presentation: true,
            line: end.0,
            column: end.1,
            message: format!("expected {na} test cases, found {no}"),
            expected: format!("{na} test cases"),
            found: format!("{no} test cases"),
        }));
    }
    Ok(())
}

/// One item of a `Case i:` list (a word, and its value for `casencmp`), or `None` at the end
/// of the file or at the next `Case` (which is consumed, as testlib does).
type Item = Option<(Token, Option<i64>)>;

fn case_item(s: &mut In, numbers: bool, case_read: &mut bool) -> R<Item> {
    if s.seek_eof()? {
        return Ok(None);
    }
    let t = s.skip_word("")?;
    if numbers && !is(&t, "Case") {
        return match stream::parse_long(&t) {
            Some(v) => Ok(Some((t, Some(v)))),
            None => Err(s.bad(&t, "an integer")),
        };
    }
    Ok(end_or_word(t, case_read))
}

fn end_or_word(t: Token, case_read: &mut bool) -> Item {
    if is(&t, "Case") {
        *case_read = true;
        return None;
    }
    Some((t, None))
}

/// An output error to report once the answer's part has been read (testlib reads the answer's
/// case whole before the output's).
fn deferred(r: R<()>) -> R<Option<Found>> {
    match r {
        Ok(()) => Ok(None),
        Err(Stop::Judged(f)) => Ok(Some(f)),
        Err(e) => Err(e),
    }
}

/// `casewcmp` (words) and `casencmp` (64-bit integers): `Case i: <items>` for i = 1, 2, …;
/// the i-th case of the output must list the same items as the answer's.
fn cases(ans: &mut In, ouf: &mut In, numbers: bool) -> R<()> {
    let (mut ans_case, mut ouf_case) = (false, false);
    let mut i = 0;
    while !ans.seek_eof()? {
        i += 1;
        case_header(ans, i, ans_case)?;
        ans_case = false;
        let mut output_error = deferred(case_header(ouf, i, ouf_case))?;
        ouf_case = false;
        let (mut a_live, mut o_live) = (true, output_error.is_none());
        let (mut na, mut no) = (0u64, 0u64);
        let mut first_diff: Option<(u64, String, String, (u64, u64))> = None;
        while a_live || o_live {
            // Words are compared in lockstep when both sides have one (any length, exactly);
            // numbers are short and read one side at a time.
            let (a, o, differ) =
                if !numbers && a_live && o_live && !ans.seek_eof()? && !ouf.seek_eof()? {
                    let (j, p, equal) = word_pair(ans, ouf, "", &mut |_| {}, &mut |_| {})?;
                    let o = match p {
                        Ok(p) => end_or_word(p, &mut ouf_case),
                        Err(e) => {
                            output_error = deferred(Err(e))?;
                            None
                        }
                    };
                    (end_or_word(j, &mut ans_case), o, !equal)
                } else {
                    let a = if a_live {
                        case_item(ans, numbers, &mut ans_case)?
                    } else {
                        None
                    };
                    let o = if o_live {
                        match case_item(ouf, numbers, &mut ouf_case) {
                            Ok(o) => o,
                            Err(e) => {
                                output_error = deferred(Err(e))?;
                                None
                            }
                        }
                    } else {
                        None
                    };
                    let differ = matches!((&a, &o), (Some((_, x)), Some((_, y))) if x != y);
                    (a, o, differ)
                };
            let mut record = |k: u64, expected: String, found: String, place: (u64, u64)| {
                first_diff.get_or_insert((k, expected, found, place));
            };
            match (&a, &o) {
                (Some((j, _)), Some((p, _))) if differ => record(na + 1, show(j), show(p), at(p)),
                (Some((j, _)), None) if output_error.is_none() => {
                    record(na + 1, show(j), "(nothing)".into(), here(ouf))
                }
                (None, Some((p, _))) => record(no + 1, "(nothing)".into(), show(p), at(p)),
                _ => {}
            }
            a_live &= a.is_some();
            o_live &= o.is_some() && output_error.is_none();
            na += u64::from(a.is_some());
            no += u64::from(o.is_some());
        }
        if let Some(f) = output_error {
            return Err(Stop::Judged(f));
        }
        if let Some((k, expected, found, place)) = first_diff {
            let unit = if numbers { "number" } else { "word" };
            return Err(wrong(
                place,
                format!(
                    "test case {i} differs at its {} {unit}: expected `{expected}`, found `{found}` (the answer lists {na}, the output {no})",
                    ordinal(k)
                ),
                expected,
                found,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
