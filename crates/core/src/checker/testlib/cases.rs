//! `caseicmp`, `casencmp` and `casewcmp`: `Case i: <items>` lines for i = 1, 2, ….

use super::stream::{self, is, Found, In, Stop, R};
use super::{at, here, ordinal, show, word_pair, wrong};
use crate::checker::scan::Token;

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
pub(super) fn caseicmp(ans: &mut In, ouf: &mut In) -> R<()> {
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
pub(super) fn cases(ans: &mut In, ouf: &mut In, numbers: bool) -> R<()> {
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
