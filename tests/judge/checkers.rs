//! Built-in checkers of the world's formats, end to end: the Kattis default validator with its
//! flags, and testlib's standard checkers named in problem.toml.

use crate::harness::judge;

/// The message of the first test that was not accepted.
fn first_failure(doc: &serde_json::Value) -> String {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["verdict"] != "AC")
        .map(|t| t["message"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn kattis_default_validator_ignores_case_unless_case_sensitive() {
    for prog in ["parity-ac.py", "parity-lowercase.py", "parity-spaced.py"] {
        judge()
            .run_fixture("parity-kattis", prog)
            .expect_verdict("AC");
    }
    judge()
        .run_fixture("parity-kattis-case", "parity-ac.py")
        .expect_verdict("AC");
    let doc = judge()
        .run_fixture("parity-kattis-case", "parity-lowercase.py")
        .expect_verdict("WA");
    assert_eq!(
        first_failure(&doc),
        "line 1, column 1: expected `EVEN`, found `even` (letter case counts: case_sensitive)",
        "{doc}"
    );
    assert_eq!(doc["tests"][0]["mismatch"]["expected"], "EVEN", "{doc}");
}

#[test]
fn testlib_wcmp_is_case_sensitive() {
    judge()
        .run_fixture("parity-wcmp", "parity-ac.py")
        .expect_verdict("AC");
    judge()
        .run_fixture("parity-wcmp", "parity-spaced.py")
        .expect_verdict("AC");
    let doc = judge()
        .run_fixture("parity-wcmp", "parity-lowercase.py")
        .expect_verdict("WA");
    assert_eq!(
        first_failure(&doc),
        "line 1, column 1: the 1st word differs: expected `EVEN`, found `even`",
        "{doc}"
    );
}

#[test]
fn testlib_rcmp9_by_name() {
    judge()
        .run_fixture("divide-rcmp9", "divide-ac.py")
        .expect_verdict("AC");
    // 4e-7 off: accepted by the `float` fixture's 1e-6, rejected by rcmp9's 1e-9.
    let doc = judge()
        .run_fixture("divide-rcmp9", "divide-close.py")
        .expect_verdict("WA");
    let message = first_failure(&doc);
    assert!(
        message.starts_with("line 1, column 1: the 1st number differs: expected `0.333333333333`, found `0.333333733`"),
        "{doc}"
    );
}

#[test]
fn an_answer_the_testlib_checker_cannot_read_is_a_judge_error() {
    let doc = judge()
        .run_fixture("parity-ncmp-broken", "parity-ac.py")
        .expect_verdict("JE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "sample-1.ans:1:1 is not what the checker reads: expected an integer, found `EVEN`"
        ) && message.contains("testlib's ncmp would FAIL"),
        "{doc}"
    );
}
