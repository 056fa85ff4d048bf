//! The real-number checkers: `rcmp`, `acmp`, `dcmp` (one number), `rcmp4/6/9`, `rncmp` (as many
//! as the answer has), with testlib's `doubleCompare` and `doubleDelta`.

use super::stream::{In, Stop, R};
use super::{at, ordinal, show, wrong};
use crate::checker::scan::Token;

/// `rcmp`, `acmp`, `dcmp`: one real number each.
pub(super) fn one_real(ans: &mut In, ouf: &mut In, close: fn(f64, f64) -> bool) -> R<()> {
    let (jt, j) = ans.read_double()?;
    let (pt, p) = ouf.read_double()?;
    if !close(j, p) {
        return Err(real_differs(None, &jt, &pt, j, p));
    }
    Ok(())
}

/// `rcmp4/6/9`, `rncmp`: as many real numbers as the answer has.
pub(super) fn reals(ans: &mut In, ouf: &mut In, close: fn(f64, f64) -> bool) -> R<()> {
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
pub(super) fn abs_close(j: f64, p: f64, eps: f64) -> bool {
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
