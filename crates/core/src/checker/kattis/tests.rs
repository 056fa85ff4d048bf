use super::*;
use crate::checker::Judgement::{Accepted as AC, WrongAnswer as WA};

fn run(flags: &Flags, output: &[u8], answer: &[u8]) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
    std::fs::write(&o, output).unwrap();
    std::fs::write(&a, answer).unwrap();
    check(flags, &o, &a).unwrap()
}

fn v(flags: &Flags, output: &str, answer: &str) -> Judgement {
    run(flags, output.as_bytes(), answer.as_bytes()).judgement
}

fn message(flags: &Flags, output: &str, answer: &str) -> String {
    run(flags, output.as_bytes(), answer.as_bytes()).message
}

const DEFAULT: Flags = Flags {
    case_sensitive: false,
    space_change_sensitive: false,
    float_absolute_tolerance: None,
    float_relative_tolerance: None,
};

fn with(f: impl FnOnce(&mut Flags)) -> Flags {
    let mut flags = DEFAULT;
    f(&mut flags);
    flags
}

#[test]
fn case_insensitive_by_default() {
    assert_eq!(v(&DEFAULT, "yes\nPossible", "YES\npossible\n"), AC);
    assert_eq!(v(&DEFAULT, "Straße", "STRAßE"), AC, "ASCII letters only…");
    assert_eq!(v(&DEFAULT, "STRASSE", "straße"), WA, "…no Unicode folding");
    let cs = with(|f| f.case_sensitive = true);
    assert_eq!(v(&cs, "yes", "YES"), WA);
    assert_eq!(v(&cs, "YES", "YES"), AC);
    assert_eq!(
        message(&cs, "1 yes", "1 YES"),
        "line 1, column 3: expected `YES`, found `yes` (letter case counts: case_sensitive)"
    );
    assert_eq!(
        message(&DEFAULT, "1 no", "1 YES"),
        "line 1, column 3: expected `YES`, found `no`"
    );
}

#[test]
fn white_space_only_separates_by_default() {
    assert_eq!(v(&DEFAULT, "  1\t2\r\n\x0b3\x0c\n\n", "1 2 3"), AC);
    assert_eq!(v(&DEFAULT, "", ""), AC);
    assert_eq!(v(&DEFAULT, "\n", ""), AC);
    assert_eq!(v(&DEFAULT, "", "1"), WA, "empty output");
    assert_eq!(v(&DEFAULT, "1 2", "1 2 3"), WA);
    assert_eq!(v(&DEFAULT, "1 2 3 4", "1 2 3"), WA);
    assert_eq!(v(&DEFAULT, "12", "1 2"), WA);
    assert_eq!(
        message(&DEFAULT, "1\n2", "1\n2\n3\n"),
        "line 2, column 2: the output ends, but the answer continues with `3`"
    );
    assert_eq!(
        message(&DEFAULT, "1 2 3", "1 2"),
        "line 1, column 5: extra output `3` after the answer ended"
    );
}

#[test]
fn space_change_sensitive_matches_every_blank() {
    let s = with(|f| f.space_change_sensitive = true);
    assert_eq!(v(&s, "hello\n world\n", "hello\n world\n"), AC);
    assert_eq!(v(&s, "hello\nworld\n", "hello\n world\n"), WA);
    assert_eq!(v(&s, "hello\n world\n", "hello\nworld\n"), WA);
    assert_eq!(v(&s, "1  2\n", "1 2\n"), WA);
    assert_eq!(v(&s, "1 2", "1 2\n"), WA, "the final newline too");
    assert_eq!(v(&s, "1 2\n\n", "1 2\n"), WA, "trailing blank line");
    assert_eq!(v(&s, " 1 2\n", "1 2\n"), WA, "leading space");
    assert_eq!(v(&s, "1\r\n", "1\n"), WA);
    assert_eq!(v(&s, "A b\n", "a B\n"), AC, "case is still ignored");
    assert_eq!(
        message(&s, "1  2\n", "1 2\n"),
        "line 1, column 3: the white space differs (space_change_sensitive): expected `2`, found a space"
    );
    assert_eq!(
        message(&s, "1 2", "1 2\n"),
        "line 1, column 4: the white space differs (space_change_sensitive): expected a line break, found (end of the output)"
    );
}

#[test]
fn floats_within_either_tolerance() {
    let both = with(|f| {
        f.float_absolute_tolerance = Some(1e-6);
        f.float_relative_tolerance = Some(1e-6);
    });
    assert_eq!(v(&both, "0.3333334", "0.333333333"), AC);
    assert_eq!(v(&both, "1000000.5", "1000000"), AC, "relative");
    assert_eq!(v(&both, "1e3", "1000"), AC, "integers compare as floats");
    assert_eq!(v(&both, "1000", "1e3"), AC);
    assert_eq!(v(&both, "3.14000000e-2", "0.0314"), AC);
    assert_eq!(v(&both, "-0", "0"), AC);
    assert_eq!(v(&both, "-0.0000001", "0.0"), AC);
    assert_eq!(v(&both, ".5", "0.5"), AC);
    assert_eq!(v(&both, "5.", "5"), AC);
    assert_eq!(v(&both, "0.0002", "0.0001"), WA);
    assert_eq!(v(&both, "nan", "0.5"), WA, "not a number");
    assert_eq!(v(&both, "inf", "1e308"), WA);
    assert_eq!(
        v(&both, "0x10", "16"),
        WA,
        "hexadecimal is not in the grammar"
    );
    assert_eq!(v(&both, "1e", "1"), WA);
    assert_eq!(v(&both, "YES 1.0", "yes 1"), AC, "words still ignore case");
    // A number too large for a double is a word.
    assert_eq!(v(&both, "1e400", "1e400"), AC);
    assert_eq!(v(&both, "1E400", "1e400"), AC);
    assert_eq!(v(&both, "2e400", "1e400"), WA);
    assert_eq!(
        v(&both, "inf", "inf"),
        AC,
        "an answer word `inf` is compared as a word"
    );
    let m = message(&both, "0.5", "0.25");
    assert!(
        m.starts_with(
            "line 1, column 1: expected `0.25`, found `0.5` (difference 2.500e-1; tolerance 1e-6)"
        ),
        "{m}"
    );
    let m = message(&both, "x", "0.25");
    assert_eq!(
        m,
        "line 1, column 1: expected the number `0.25`, found `x`, which is not a number"
    );

    let abs = with(|f| f.float_absolute_tolerance = Some(0.5));
    assert_eq!(v(&abs, "100.4", "100"), AC);
    assert_eq!(v(&abs, "100.6", "100"), WA);
    let rel = with(|f| f.float_relative_tolerance = Some(0.01));
    assert_eq!(v(&rel, "100.9", "100"), AC);
    assert_eq!(v(&rel, "101.1", "100"), WA);
    assert_eq!(v(&rel, "0.0000001", "0"), WA, "relative to zero is exact");
    // Without a tolerance numbers are words.
    assert_eq!(v(&DEFAULT, "1.0", "1"), WA);
    assert_eq!(v(&DEFAULT, "1E3", "1e3"), AC, "…in any case");
}

#[test]
fn the_float_grammar() {
    for yes in [
        "0", "-1", "+1", "1.", ".5", "1.5", "1e5", "1E+5", "1.5e-3", ".5e1", "007",
    ] {
        assert!(is_float(yes.as_bytes()), "{yes}");
    }
    for no in [
        "", ".", "+", "-.", "e5", "1e", "1e+", "1.5.2", "1e5.5", "0x1", "inf", "nan", "1,5", "--1",
        "1 ",
    ] {
        assert!(!is_float(no.as_bytes()), "{no}");
    }
}

// Constant memory on 16 MB of output: `tests/judge/checkers.rs` (too slow for the unit suite).
