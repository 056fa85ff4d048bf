use super::*;

fn run(kind: &Builtin, output: &[u8], answer: &[u8]) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
    std::fs::write(&o, output).unwrap();
    std::fs::write(&a, answer).unwrap();
    check(kind, &o, &a).unwrap()
}

fn verdict(kind: &Builtin, output: &str, answer: &str) -> Judgement {
    run(kind, output.as_bytes(), answer.as_bytes()).judgement
}

use Judgement::{Accepted as AC, PresentationError as PE, WrongAnswer as WA};

#[test]
fn tokens_ignore_whitespace_but_not_case() {
    let t = Builtin::Tokens;
    assert_eq!(verdict(&t, "1 2\n3", "1\n2 3\n"), AC);
    assert_eq!(verdict(&t, "  1\r\n2\t3\n\n\n", "1 2 3"), AC);
    assert_eq!(verdict(&t, "", ""), AC);
    assert_eq!(verdict(&t, "\n \n", ""), AC);
    assert_eq!(verdict(&t, "Yes", "YES"), WA);
    assert_eq!(verdict(&t, "1 2", "1 2 3"), WA);
    assert_eq!(verdict(&t, "1 2 3 4", "1 2 3"), WA);
    assert_eq!(verdict(&t, "12", "1 2"), WA);
}

#[test]
fn tokens_say_where_and_what() {
    let o = run(&Builtin::Tokens, b"1 2\n3 41 5\n", b"1 2\n3 42 5\n");
    assert_eq!(o.message, "line 2, column 3: expected `42`, found `41`");
    let m = o.mismatch.unwrap();
    assert_eq!(
        (m.line, m.column, m.expected.as_str(), m.found.as_str()),
        (2, 3, "42", "41")
    );
    let pairs: Vec<&judge_model::diff::LinePair> = m
        .window
        .rows
        .iter()
        .filter_map(|r| match r {
            judge_model::diff::Row::Line(l) => Some(l),
            judge_model::diff::Row::Gap => None,
        })
        .collect();
    assert_eq!(pairs.len(), 2, "{:?}", m.window);
    assert!(pairs[0].same && pairs[0].found.as_ref().unwrap().text == "1 2");
    let (e, f) = (
        pairs[1].expected.as_ref().unwrap(),
        pairs[1].found.as_ref().unwrap(),
    );
    assert!(!pairs[1].same);
    assert_eq!((e.text.as_str(), e.mark.clone()), ("3 42 5", Some(2..4)));
    assert_eq!((f.text.as_str(), f.mark.clone()), ("3 41 5", Some(2..4)));

    let o = run(&Builtin::Tokens, b"1\n", b"1\n2\n");
    assert_eq!(
        o.message,
        "line 2, column 1: the output ends, but the answer continues with `2`"
    );
    let o = run(&Builtin::Tokens, b"1\n2\n", b"1\n");
    assert_eq!(
        o.message,
        "line 2, column 1: extra output `2` after the answer ended"
    );
}

#[test]
fn exact_is_bytewise_with_presentation_errors() {
    let e = Builtin::Exact;
    assert_eq!(verdict(&e, "1 2\n", "1 2\n"), AC);
    assert_eq!(verdict(&e, "1 2", "1 2\n"), PE);
    assert_eq!(verdict(&e, "1  2\n", "1 2\n"), PE);
    assert_eq!(verdict(&e, "1 3\n", "1 2\n"), WA);
    let o = run(&e, b"ab\ncd\n", b"ab\ncx\n");
    assert_eq!(o.message, "line 2, column 2: expected `x`, found `d`");
    let o = run(&e, b"ab", b"ab\n");
    assert!(o.message.contains("spacing differs"), "{}", o.message);
}

#[test]
fn lines_ignore_trailing_space_and_blank_lines() {
    let l = Builtin::Lines;
    assert_eq!(verdict(&l, "a b  \t\r\nc\n\n\n", "a b\nc"), AC);
    assert_eq!(verdict(&l, "a b\r\nc\r\n", "a b\nc\n"), AC);
    assert_eq!(verdict(&l, "", "\n\n"), AC);
    assert_eq!(verdict(&l, "a  b\nc\n", "a b\nc\n"), PE);
    assert_eq!(verdict(&l, " a b\nc\n", "a b\nc\n"), PE);
    assert_eq!(verdict(&l, "a b c\n", "a b\nc\n"), PE);
    assert_eq!(verdict(&l, "a\n\nb\n", "a\nb\n"), PE);
    assert_eq!(verdict(&l, "a b\nd\n", "a b\nc\n"), WA);
    let o = run(&l, b"x\ny  \nz\n", b"x\ny\nw\n");
    assert_eq!(o.message, "line 3, column 1: expected `w`, found `z`");
}

#[test]
fn floats_within_either_tolerance() {
    let f = Builtin::Float {
        absolute: 1e-6,
        relative: 1e-6,
    };
    assert_eq!(verdict(&f, "0.3333334", "0.333333333"), AC);
    assert_eq!(verdict(&f, "1000000.5", "1000000"), AC, "relative");
    assert_eq!(verdict(&f, "0.0001", "0.0002"), WA);
    assert_eq!(verdict(&f, "-1e-7", "0"), AC);
    assert_eq!(verdict(&f, "3", "3.0000000"), AC);
    assert_eq!(verdict(&f, "2.5e3", "2500"), AC);
    assert_eq!(verdict(&f, "nan", "0.5"), WA);
    assert_eq!(verdict(&f, "inf", "1e308"), WA);
    assert_eq!(verdict(&f, "YES 1.0", "YES 1"), AC);
    assert_eq!(verdict(&f, "yes 1.0", "YES 1"), WA, "words compare exactly");
    let o = run(&f, b"0.5", b"0.25");
    assert!(o.message.contains("exceeds the tolerance"), "{}", o.message);
    let only_abs = Builtin::Float {
        absolute: 0.5,
        relative: 0.0,
    };
    assert_eq!(verdict(&only_abs, "100.4", "100"), AC);
    assert_eq!(verdict(&only_abs, "100.6", "100"), WA);
}

#[test]
fn odd_bytes_never_panic() {
    let o = run(&Builtin::Tokens, b"\xff\xfe 1", b"\xff\xfd 1");
    assert_eq!(o.judgement, WA);
    assert!(o.message.contains('\u{fffd}'));
    let o = run(
        &Builtin::Tokens,
        "héllo wörld".as_bytes(),
        "héllo world".as_bytes(),
    );
    assert_eq!(o.mismatch.unwrap().found, "wörld");
}

#[test]
fn a_huge_token_compares_exactly_and_is_shown_capped() {
    let mut a = vec![b'7'; 3_000_000];
    let mut o = a.clone();
    assert_eq!(run(&Builtin::Tokens, &o, &a).judgement, AC);
    o[2_999_999] = b'8';
    let out = run(&Builtin::Tokens, &o, &a);
    assert_eq!(out.judgement, WA);
    assert!(out.mismatch.as_ref().unwrap().found.chars().count() <= SHOW + 1);
    a.push(b'7');
    assert_eq!(run(&Builtin::Tokens, &a[..a.len() - 1], &a).judgement, WA);
}

// Constant memory on 16 MB of output: `tests/judge/checkers.rs` (too slow for the unit suite).

#[test]
fn testlib_exit_codes() {
    assert_eq!(testlib_exit(Some(0), "ok\n").unwrap().judgement, AC);
    let o = testlib_exit(Some(1), "\nwrong sum 5\nmore").unwrap();
    assert_eq!((o.judgement, o.message.as_str()), (WA, "wrong sum 5"));
    assert_eq!(testlib_exit(Some(2), "").unwrap().judgement, PE);
    assert!(testlib_exit(Some(3), "bad answer file")
        .unwrap_err()
        .contains("bad answer file"));
    assert!(testlib_exit(Some(101), "panicked").is_err());
    assert!(testlib_exit(None, "").is_err());
    // quitp: accepted with the points as the test's score.
    let p = testlib_exit(Some(7), "points 2.5 two of four\n").unwrap();
    assert_eq!(p.judgement, AC);
    assert_eq!(p.score, Some(judge_model::score::Reported::Score(2.5)));
    assert_eq!(p.message, "points 2.5 two of four");
    assert!(testlib_exit(Some(7), "points_info=abc")
        .unwrap_err()
        .contains("no number"));
}

#[test]
fn a_kattis_rejection_without_a_message_says_so() {
    let o = kattis_exit(Some(43), "").unwrap();
    assert_eq!(o.judgement, WA);
    assert!(o.message.contains("without a message"), "{}", o.message);
    assert_eq!(
        kattis_exit(Some(43), "too short").unwrap().message,
        "too short"
    );
    assert_eq!(kattis_exit(Some(42), "").unwrap().message, "");
    assert!(kattis_exit(Some(0), "").is_err());
}
