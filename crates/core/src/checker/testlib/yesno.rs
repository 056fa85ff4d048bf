//! `yesno` (one YES or NO) and `nyesno` (YES/NO words), in any letter case.

use super::stream::{In, R};
use super::{at, here, ordinal, show, word_pair, wrong};
use crate::checker::scan::Token;

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

pub(super) fn yesno(ans: &mut In, ouf: &mut In) -> R<()> {
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

pub(super) fn nyesno(ans: &mut In, ouf: &mut In) -> R<()> {
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
