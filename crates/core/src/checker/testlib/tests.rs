//! Each standard checker against testlib's rules. (During development these were also compared
//! with the real testlib checkers on tens of thousands of random files; see the report.)

use super::*;
use crate::checker::Judgement::{Accepted as AC, PresentationError as PE, WrongAnswer as WA};
use test_case::test_case;

/// The verdict, or "FAIL" when the answer is malformed (a judge error).
#[derive(Debug, PartialEq)]
enum V {
    J(Judgement),
    Fail,
}

fn run(which: &str, output: &[u8], answer: &[u8]) -> std::io::Result<Outcome> {
    let dir = tempfile::tempdir().unwrap();
    let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
    std::fs::write(&o, output).unwrap();
    std::fs::write(&a, answer).unwrap();
    check(Standard::from_name(which).unwrap(), &o, &a)
}

fn v(which: &str, output: &str, answer: &str) -> V {
    match run(which, output.as_bytes(), answer.as_bytes()) {
        Ok(o) => V::J(o.judgement),
        Err(e) => {
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
            V::Fail
        }
    }
}

fn message(which: &str, output: &str, answer: &str) -> String {
    run(which, output.as_bytes(), answer.as_bytes())
        .unwrap()
        .message
}

const A: V = V::J(AC);
const W: V = V::J(WA);
const P: V = V::J(PE);

#[test]
fn names_with_or_without_std_and_cpp() {
    assert_eq!(Standard::from_name("std::rcmp6.cpp"), Some(Standard::Rcmp6));
    assert_eq!(Standard::from_name("rcmp6"), Some(Standard::Rcmp6));
    assert_eq!(Standard::from_name("std::wcmp"), Some(Standard::Wcmp));
    assert_eq!(
        Standard::from_name("casewcmp.cpp"),
        Some(Standard::Casewcmp)
    );
    assert_eq!(Standard::from_name("rcmp7"), None);
    assert_eq!(Standard::from_name("pointscmp"), None);
    for (name, s) in NAMES {
        assert_eq!(s.name(), name);
        assert_eq!(Standard::from_name(&format!("std::{name}.cpp")), Some(s));
    }
}

#[test_case(1 => "1st")]
#[test_case(2 => "2nd")]
#[test_case(3 => "3rd")]
#[test_case(4 => "4th")]
#[test_case(11 => "11th")]
#[test_case(12 => "12th")]
#[test_case(13 => "13th")]
#[test_case(21 => "21st")]
#[test_case(22 => "22nd")]
#[test_case(101 => "101st")]
#[test_case(111 => "111th")]
#[test_case(112 => "112th")]
fn ordinals(n: u64) -> String {
    ordinal(n)
}

#[test]
fn wcmp_compares_words_exactly() {
    assert_eq!(v("wcmp", "a  b\n\nc \r\n", "a b c"), A);
    assert_eq!(v("wcmp", "", ""), A);
    assert_eq!(v("wcmp", " \n\t", ""), A);
    assert_eq!(v("wcmp", "Yes", "YES"), W, "case-sensitive");
    assert_eq!(v("wcmp", "a b", "a b c"), W, "missing word");
    assert_eq!(v("wcmp", "a b c", "a b"), W, "extra word is WA, not PE");
    assert_eq!(v("wcmp", "", "a"), W, "empty output");
    // Only space, tab, LF and CR are blanks: a vertical tab is part of a word.
    assert_eq!(v("wcmp", "a\x0bb", "a b"), W);
    assert_eq!(v("wcmp", "a\x0bb", "a\x0bb"), A);
    // A UTF-8 byte-order mark before the output is skipped (not before the answer).
    assert_eq!(v("wcmp", "\u{feff}a b", "a b"), A);
    assert_eq!(
        message("wcmp", "1 2\n3 5\n", "1 2 3 4"),
        "line 2, column 3: the 4th word differs: expected `4`, found `5`"
    );
    assert_eq!(
        message("wcmp", "1 2", "1 2 3"),
        "line 1, column 4: the output ends after 2 words, but the answer continues with `3`"
    );
    assert_eq!(
        message("wcmp", "1 2 3", "1 2"),
        "line 1, column 5: extra output `3` after the answer's 2 words"
    );
}

#[test]
fn wcmp_words_of_any_length() {
    let long = "7".repeat(3_000_000);
    let mut other = long.clone();
    other.replace_range(2_999_999.., "8");
    assert_eq!(v("wcmp", &long, &long), A);
    let o = run("wcmp", other.as_bytes(), long.as_bytes()).unwrap();
    assert_eq!(o.judgement, WA);
    assert!(o.mismatch.unwrap().found.chars().count() <= 61);
}

#[test]
fn lcmp_compares_lines_as_words() {
    assert_eq!(v("lcmp", "1  2 \n3\n", "1 2\n3\n"), A);
    assert_eq!(v("lcmp", "1 2\r\n3", "1 2\n3\n"), A);
    assert_eq!(
        v("lcmp", "1 2\n3\n\n\n", "1 2\n3\n"),
        A,
        "blank lines after: no dirt"
    );
    assert_eq!(
        v("lcmp", "1 2 3\n", "1 2\n3\n"),
        W,
        "words moved to another line"
    );
    assert_eq!(v("lcmp", "1\n\n2\n", "1\n2\n"), W);
    assert_eq!(v("lcmp", "1\n2\n3\n", "1\n2\n"), P, "an extra line is dirt");
    assert_eq!(
        v("lcmp", "1\n", "1\n2\n"),
        W,
        "a missing line reads as empty"
    );
    assert_eq!(v("lcmp", "1\n\n", "1\n\n"), A);
    // The answer's empty last line ends it; an empty line before the last one counts.
    assert_eq!(v("lcmp", "1\nx\n", "1\n\n"), P);
    assert_eq!(v("lcmp", "1\nx\n", "1\n\n\n"), W);
    // Within a line, words split at C's white space (vertical tab and form feed too).
    assert_eq!(v("lcmp", "a\x0bb\n", "a b\n"), A);
    assert_eq!(
        message("lcmp", "1 2\n3 4 6\n", "1 2\n3 4 5\n"),
        "line 2, column 5: the 2nd line differs (as words): expected `5`, found `6`"
    );
}

#[test]
fn fcmp_compares_lines_exactly() {
    assert_eq!(v("fcmp", "a b\nc\n", "a b\nc\n"), A);
    assert_eq!(
        v("fcmp", "a b\nc", "a b\nc\n"),
        A,
        "a final newline is optional"
    );
    assert_eq!(
        v("fcmp", "a b\r\nc\r\n", "a b\nc\n"),
        A,
        "CR LF ends a line"
    );
    assert_eq!(v("fcmp", "a  b\nc\n", "a b\nc\n"), W);
    assert_eq!(
        v("fcmp", "a b \nc\n", "a b\nc\n"),
        W,
        "trailing space counts"
    );
    assert_eq!(
        v("fcmp", "a b\nc\nd\n", "a b\nc\n"),
        P,
        "extra line is dirt"
    );
    assert_eq!(
        v("fcmp", "a b\nc\n\n \n", "a b\nc\n"),
        A,
        "blank extra lines are not"
    );
    // testlib's lone-CR reading: dropped, the next byte kept.
    assert_eq!(v("fcmp", "a\rb\n", "ab\n"), A);
    assert_eq!(v("fcmp", "a\r\rb\n", "a\r\rb\n"), A);
    assert_eq!(v("fcmp", "a\r\rb\n", "ab\n"), W);
    assert_eq!(
        message("fcmp", "abc\nxyz\n", "abc\nxyw\n"),
        "line 2, column 3: the 2nd line differs: expected `w`, found `z`"
    );
}

#[test]
fn ncmp_compares_64_bit_integers() {
    assert_eq!(v("ncmp", "1 -2\n3", "1 -2 3\n"), A);
    assert_eq!(
        v(
            "ncmp",
            "9223372036854775807 -9223372036854775808",
            "9223372036854775807 -9223372036854775808"
        ),
        A
    );
    assert_eq!(v("ncmp", "1 2 4", "1 2 3"), W);
    assert_eq!(v("ncmp", "-0", "0"), P, "-0 is not an integer to testlib");
    assert_eq!(v("ncmp", "01", "1"), P, "leading zero");
    assert_eq!(v("ncmp", "+1", "1"), P);
    assert_eq!(v("ncmp", "1.0", "1"), P);
    assert_eq!(v("ncmp", "9223372036854775808", "1"), P, "overflow");
    assert_eq!(v("ncmp", "1 2", "1 2 3"), W, "shorter");
    assert_eq!(v("ncmp", "1 2 3", "1 2"), W, "longer");
    assert_eq!(
        v("ncmp", "1 2 x", "1 2"),
        P,
        "extra output is still read as integers"
    );
    assert_eq!(v("ncmp", "", ""), A);
    assert_eq!(
        v("ncmp", "1", "x"),
        V::Fail,
        "a bad answer is a checker failure"
    );
    assert_eq!(v("ncmp", "x", "y"), V::Fail, "the answer is read first");
    assert_eq!(v("ncmp", "x", "1 y"), P, "… a number at a time");
    assert_eq!(
        message("ncmp", "1 5", "1 4"),
        "line 1, column 3: the 2nd number differs: expected `4`, found `5`"
    );
    assert_eq!(
        message("ncmp", "1 2 3 4", "1 2"),
        "line 1, column 5: the output has 4 numbers, the answer only 2: `3` is one too many"
    );
}

#[test]
fn icmp_one_32_bit_integer() {
    assert_eq!(v("icmp", " 5\n", "5"), A);
    assert_eq!(v("icmp", "4", "5"), W);
    assert_eq!(v("icmp", "2147483648", "5"), P, "beyond 32 bits");
    assert_eq!(v("icmp", "-2147483648", "-2147483648"), A);
    assert_eq!(v("icmp", "5 6", "5"), P, "extra output is dirt");
    assert_eq!(v("icmp", "", "5"), P, "empty output");
    assert_eq!(v("icmp", "5", ""), V::Fail);
}

#[test]
fn uncmp_compares_multisets() {
    assert_eq!(v("uncmp", "3 1 2 1", "1 1 2 3"), A);
    assert_eq!(v("uncmp", "3 1 2 2", "1 1 2 3"), W);
    assert_eq!(v("uncmp", "3 1 2", "1 1 2 3"), W);
    assert_eq!(v("uncmp", "1 1 2 3 3", "1 1 2 3"), W);
    assert_eq!(
        v("uncmp", "1 2 z", "1 2"),
        P,
        "the whole output is read as integers"
    );
    assert_eq!(v("uncmp", "", ""), A);
    assert_eq!(
        message("uncmp", "1 2 2", "2 1 1"),
        "line 1, column 5: the numbers differ from the answer's (in any order): `2` is not among the answer's remaining numbers"
    );
    assert_eq!(
        message("uncmp", "1 2", "2 1 1"),
        "line 1, column 4: expected 3 numbers, found 2"
    );
}

#[test]
fn hcmp_big_integers_without_leading_zeros() {
    let big = "1234567890".repeat(1000);
    assert_eq!(v("hcmp", &big, &big), A);
    assert_eq!(v("hcmp", &format!("-{big}"), &format!("-{big}")), A);
    assert_eq!(v("hcmp", &format!("{big}1"), &big), W);
    assert_eq!(v("hcmp", "0", "0"), A);
    assert_eq!(v("hcmp", "-0", "0"), P, "-0 is not allowed");
    assert_eq!(v("hcmp", "007", "7"), P, "leading zeros");
    assert_eq!(v("hcmp", "7 8", "7"), P, "dirt");
    assert_eq!(v("hcmp", "", "7"), P);
    assert_eq!(v("hcmp", "7", "07"), V::Fail);
    assert_eq!(
        v("hcmp", "7", "7 8"),
        V::Fail,
        "the answer must be one word"
    );
    // testlib reads both words before checking either: a missing output beats a bad answer.
    assert_eq!(v("hcmp", "", "07"), P);
}

#[test]
fn real_number_checkers() {
    // rcmp9: absolute or relative 1e-9.
    assert_eq!(v("rcmp9", "1.0000000005", "1"), A);
    assert_eq!(v("rcmp9", "1.000000002", "1"), W);
    assert_eq!(v("rcmp9", "1000000000.5", "1000000000"), A, "relative");
    assert_eq!(v("rcmp9", "1e3", "1000"), A);
    assert_eq!(v("rcmp9", "-0", "0"), A, "negative zero is zero");
    assert_eq!(v("rcmp9", "-0.0", "0.0"), A);
    assert_eq!(v("rcmp9", "1e", "1"), A, "glibc reads `1e` as 1");
    assert_eq!(v("rcmp9", "1e+", "1"), A);
    assert_eq!(v("rcmp9", ".5", "0.5"), A);
    assert_eq!(v("rcmp9", "5.", "5"), A);
    assert_eq!(v("rcmp9", "nan", "1"), P, "letters are not a number");
    assert_eq!(v("rcmp9", "inf", "1"), P);
    assert_eq!(v("rcmp9", "0x10", "16"), P);
    assert_eq!(v("rcmp9", "1e5.5", "1"), P);
    assert_eq!(v("rcmp9", "--1", "1"), P);
    // Beyond 1e300 testlib counts a number as infinite.
    assert_eq!(v("rcmp9", "1e400", "1e301"), A);
    assert_eq!(v("rcmp9", "-1e400", "1e301"), W);
    assert_eq!(v("rcmp9", "5", "1e301"), W);
    assert_eq!(v("rcmp9", "1e301", "5"), W);
    // rcmp6 / rcmp4.
    assert_eq!(v("rcmp6", "3.1415936", "3.1415926"), A);
    assert_eq!(v("rcmp6", "3.14160", "3.1415926"), W);
    assert_eq!(v("rcmp4", "3.1416", "3.1415926"), A);
    assert_eq!(v("rcmp4", "3.1450", "3.1415926"), W);
    // Extra output after the answer's numbers is dirt (PE), a missing number too.
    assert_eq!(v("rcmp6", "1 2 3", "1 2"), P);
    assert_eq!(v("rcmp6", "1", "1 2"), P);
    assert_eq!(v("rcmp6", "", ""), A);
    assert_eq!(v("rcmp6", "1", "one"), V::Fail);
    // rncmp: absolute 1.5e-5 only; two infinities are accepted (their difference is NaN).
    assert_eq!(v("rncmp", "1000000.00001", "1000000"), A);
    assert_eq!(
        v("rncmp", "1000000.0001", "1000000"),
        W,
        "no relative error"
    );
    assert_eq!(v("rncmp", "1e400", "1e500"), A);
    // rcmp and acmp: one number, absolute 1.5e-6; dcmp: absolute or relative 1e-6.
    assert_eq!(v("rcmp", "0.0000015", "0"), A);
    assert_eq!(v("rcmp", "0.0000016", "0"), W);
    assert_eq!(v("acmp", "0.0000016", "0"), W);
    assert_eq!(v("acmp", "1 2", "1"), P, "dirt");
    assert_eq!(v("dcmp", "1000000.5", "1000000"), A);
    assert_eq!(v("dcmp", "1000002", "1000000"), W);
    let m = message("rcmp6", "1 2.5", "1 2");
    assert!(
        m.starts_with("line 1, column 3: the 2nd number differs: expected `2`, found `2.5` (error"),
        "{m}"
    );
}

#[test]
fn long_real_numbers_round_like_glibc() {
    // 0.1 with 2000 more zeros and a final 1: just above 0.1, still the double 0.1.
    let long = format!("0.1{}1", "0".repeat(2000));
    assert_eq!(v("rcmp9", &long, "0.1"), A);
    let mut p = stream::RealParser::default();
    long.bytes().for_each(|b| p.push(b));
    assert_eq!(p.finish(), Some(0.1));
    for text in [
        "123.456e-7",
        "-0.000001",
        "00012.5",
        "1.7976931348623157e308",
        "2.4e-324",
        "9007199254740993",
    ] {
        let mut p = stream::RealParser::default();
        text.bytes().for_each(|b| p.push(b));
        assert_eq!(p.finish(), text.parse::<f64>().ok(), "{text}");
    }
    // A halfway case decided by a digit far beyond the first 800.
    let halfway = format!("9007199254740993.{}1", "0".repeat(1000));
    let mut p = stream::RealParser::default();
    halfway.bytes().for_each(|b| p.push(b));
    assert_eq!(p.finish(), Some(9007199254740994.0));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Words longer than [`stream::SHORT`] are reduced to their significant digits on the fly;
    /// what they read as is still the correctly rounded double, as Rust's parser gives (glibc's
    /// rounding): long mantissas, leading zeros and exponents of any length.
    #[test]
    fn long_real_words_read_as_rust_reads_them(
        text in "[+-]?0{0,40}[0-9]{0,30}(\\.0{0,400}[0-9]{0,900})?([eE][+-]?0{0,30}[0-9]{1,25})?"
    ) {
        let mut p = stream::RealParser::default();
        text.bytes().for_each(|b| p.push(b));
        proptest::prop_assert_eq!(p.finish(), text.parse::<f64>().ok(), "{}", text);
    }
}

#[test]
fn yesno_and_nyesno() {
    assert_eq!(v("yesno", "yes", "YES"), A);
    assert_eq!(v("yesno", "yEs\n", "Yes"), A);
    assert_eq!(v("yesno", "NO", "YES"), W);
    assert_eq!(v("yesno", "Y", "YES"), P, "only YES or NO");
    assert_eq!(v("yesno", "YES!", "YES"), P);
    assert_eq!(v("yesno", "YES YES", "YES"), P, "dirt");
    assert_eq!(v("yesno", "", "YES"), P);
    assert_eq!(v("yesno", "YES", "maybe"), V::Fail);
    assert_eq!(v("nyesno", "yes no\nYES", "YES NO YES"), A);
    assert_eq!(v("nyesno", "yes yes", "YES NO"), W);
    assert_eq!(v("nyesno", "yes maybe", "YES NO"), P);
    assert_eq!(v("nyesno", "yes", "YES NO"), W, "shorter");
    assert_eq!(
        v("nyesno", "yes no maybe", "YES NO"),
        W,
        "longer, extra words unchecked"
    );
    assert_eq!(v("nyesno", "", ""), A);
    assert_eq!(
        message("nyesno", "yes\nyes", "YES NO"),
        "line 2, column 1: the 2nd answer differs: expected NO, found YES"
    );
}

#[test]
fn case_checkers() {
    let ans = "Case 1: 5\nCase 2: -3\n";
    assert_eq!(v("caseicmp", "Case 1: 5\nCase 2: -3", ans), A);
    assert_eq!(v("caseicmp", "Case 1: 5\nCase 2: 4\n", ans), W);
    assert_eq!(v("caseicmp", "Case 1: 5\n", ans), P, "fewer cases is PE");
    assert_eq!(v("caseicmp", "case 1: 5\nCase 2: -3\n", ans), P);
    assert_eq!(v("caseicmp", "Case 1: 5\nCase 3: -3\n", ans), P);
    assert_eq!(
        v("caseicmp", "Case 1: 5\nCase 2: -3\n", "Case 1: x\n"),
        V::Fail
    );
    // The whole output is read before comparing: a later format error beats an earlier WA.
    assert_eq!(v("caseicmp", "Case 1: 6\nCase 2: x\n", ans), P);

    let ans = "Case 1: 1 2 3\nCase 2:\nCase 3: 7\n";
    assert_eq!(v("casencmp", "Case 1: 1 2 3\nCase 2: Case 3: 7", ans), A);
    assert_eq!(v("casencmp", "Case 1: 1 2\nCase 2:\nCase 3: 7\n", ans), W);
    assert_eq!(
        v("casencmp", "Case 1: 1 2 3 4\nCase 2:\nCase 3: 7\n", ans),
        W
    );
    assert_eq!(
        v(
            "casencmp",
            "Case 1: 1 2 3\nCase 2:\nCase 3: 7\nCase 4: 1\n",
            ans
        ),
        P,
        "dirt"
    );
    assert_eq!(v("casencmp", "Case 1: 1 2 x\nCase 2:\nCase 3: 7\n", ans), P);
    assert_eq!(
        v("casencmp", "Case 1: 1 2 3\n", ans),
        P,
        "missing case header"
    );
    assert_eq!(
        message("casencmp", "Case 1: 1 5 3\nCase 2:\nCase 3: 7\n", ans),
        "line 1, column 11: test case 1 differs at its 2nd number: expected `2`, found `5` (the answer lists 3, the output 3)"
    );

    let ans = "Case 1: hello world\nCase 2: x\n";
    assert_eq!(v("casewcmp", "Case 1: hello\nworld Case 2: x", ans), A);
    assert_eq!(
        v("casewcmp", "Case 1: Hello world\nCase 2: x\n", ans),
        W,
        "case-sensitive"
    );
    assert_eq!(v("casewcmp", "Case 1: hello\nCase 2: x\n", ans), W);
    assert_eq!(v("casewcmp", "Case 1: hello world\n", ans), P);
    assert_eq!(v("casewcmp", "Case 2: hello world\nCase 2: x\n", ans), P);
}

#[test]
fn oversized_files() {
    let dir = tempfile::tempdir().unwrap();
    let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
    std::fs::write(&a, "1\n").unwrap();
    // A sparse file over testlib's 128 MiB limit.
    let f = std::fs::File::create(&o).unwrap();
    f.set_len(stream::MAX_FILE + 1).unwrap();
    let out = check(Standard::Wcmp, &o, &a).unwrap();
    assert_eq!(out.judgement, PE);
    assert!(out.message.contains("128 MiB"), "{}", out.message);
    let err = check(Standard::Wcmp, &a, &o).unwrap_err();
    assert!(err.to_string().contains("128 MiB"), "{err}");
}

#[test]
fn a_bad_answer_names_the_file_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let (o, a) = (dir.path().join("out"), dir.path().join("ans"));
    std::fs::write(&o, "1 2\n").unwrap();
    std::fs::write(&a, "1\nzz\n").unwrap();
    let err = check(Standard::Ncmp, &o, &a).unwrap_err().to_string();
    assert!(
        err.contains(&format!("{}:2:1", a.display()))
            && err.contains("expected an integer, found `zz`")
            && err.contains("testlib's ncmp would FAIL"),
        "{err}"
    );
}

// Constant memory on 16 MB of output: `tests/judge/checkers.rs` (too slow for the unit suite).
