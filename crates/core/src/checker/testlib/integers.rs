//! `ncmp` (64-bit integers in order), `icmp` (one 32-bit integer), `uncmp` (64-bit integers in
//! any order) and `hcmp` (one integer of any size).

use super::stream::{CanonicalInteger, In, R};
use super::{at, here, ordinal, show, word_pair, wrong};

pub(super) fn ncmp(ans: &mut In, ouf: &mut In) -> R<()> {
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

pub(super) fn icmp(ans: &mut In, ouf: &mut In) -> R<()> {
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

pub(super) fn uncmp(ans: &mut In, ouf: &mut In) -> R<()> {
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

pub(super) fn hcmp(ans: &mut In, ouf: &mut In) -> R<()> {
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
