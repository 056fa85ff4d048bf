//! `--format`: JSON Lines streams as tests finish, JUnit XML reads in a real parser.

use crate::harness::{fixture_problem, judge, program};
use std::io::Write;
use std::process::{Command, Stdio};

/// Answers the sample at once and sleeps on every other test (TLE at sum's wall-clock limit,
/// 3 x 0.25 s + 1 s, with no CPU burnt).
const SLOW_AFTER_SAMPLE: &str = "import sys, time\n\
v = list(map(int, sys.stdin.read().split()))\n\
if v[0] != 3:\n    time.sleep(60)\n\
print(sum(v[1:]))\n";

#[test]
fn jsonl_prints_the_first_result_while_later_tests_still_run() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("slow.py");
    std::fs::write(&source, SLOW_AFTER_SAMPLE).unwrap();
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .args(["--all", "--format", "jsonl"])
        .stamp_stdout()
        .output();
    f.expect_code(1);
    let out = f.stdout();
    let mut first_result = None;
    let mut exit = None;
    let mut events = Vec::new();
    for line in out.lines() {
        let (at, rest) = line.split_once(' ').expect("stamped line");
        let at: f64 = at.parse().unwrap();
        if rest == "HARNESS-EXIT" {
            exit = Some(at);
            continue;
        }
        let e: serde_json::Value =
            serde_json::from_str(rest).unwrap_or_else(|e| panic!("{e}: {rest}"));
        assert_eq!(e["schema"], 1, "{rest}");
        let name = e["event"].as_str().unwrap().to_string();
        if name == "test_finished" && first_result.is_none() {
            assert_eq!(e["test"]["name"], "sample-1");
            assert_eq!(e["result"]["verdict"], "AC");
            first_result = Some(at);
        }
        // With several jobs (the default), the TLEs judged side by side are judged again alone.
        if name != "rejudged" {
            events.push(name);
        }
    }
    assert_eq!(
        events,
        [
            "started",
            "problem_started",
            "compile_started",
            "compile_finished",
            "test_started",
            "test_finished",
            "test_started",
            "test_finished",
            "test_started",
            "test_finished",
            "solution_finished",
            "problem_finished",
            "finished"
        ],
        "{out}"
    );
    let (first, exit) = (first_result.unwrap(), exit.unwrap());
    // A test that sleeps to the 1.75 s wall-clock limit ends after the first result.
    assert!(
        exit - first >= 1.5,
        "the first result came {first} s in, the judge exited at {exit} s: not streamed\n{out}"
    );
}

/// Parses JUnit XML with Python's `xml.etree` and lists `suite|case|outcome|type` per case
/// (`outcome` is `pass`, `failure`, `error` or `skipped`); also checks the counts.
fn junit_cases(xml: &str) -> Vec<String> {
    const SCRIPT: &str = r#"
import sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
assert root.tag == "testsuites", root.tag
for suite in root.findall("testsuite"):
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases), suite.get("name")
    for kind in ("failures", "errors", "skipped"):
        tag = {"failures": "failure", "errors": "error", "skipped": "skipped"}[kind]
        assert int(suite.get(kind)) == sum(1 for c in cases if c.find(tag) is not None), kind
    float(suite.get("time"))
    for case in cases:
        assert case.get("classname") and case.get("name") is not None
        float(case.get("time"))
        outcome, kind = "pass", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome, kind = tag, el.get("type") or ""
                assert el.get("message") is not None
        print(f"{suite.get('name')}|{case.get('name')}|{outcome}|{kind}")
"#;
    let mut child = Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not JUnit XML: {}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn run_junit_has_a_case_per_test_and_fails_the_wrong_ones() {
    let source = program("wa.py");
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .args(["--format", "junit"])
        .output();
    f.expect_code(1);
    let suite = source.display().to_string();
    assert_eq!(
        junit_cases(&f.stdout()),
        [
            format!("{suite}|sample-1|failure|WA"),
            format!("{suite}|2|skipped|"),
            format!("{suite}|10|skipped|"),
        ]
    );
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("ac.c"))
        .args(["--format", "junit"])
        .output();
    f.expect_code(0);
    let cases = junit_cases(&f.stdout());
    assert_eq!(cases.len(), 3, "{cases:?}");
    assert!(cases.iter().all(|c| c.ends_with("|pass|")), "{cases:?}");
}

#[test]
fn verify_junit_passes_met_expectations_and_fails_the_others() {
    let r = crate::verify::repo(&[
        ("accepted", "ac.c"),
        ("wrong_answer", "wa.c"),
        ("accepted", "wa.py"),
        ("time_limit_exceeded", "ac.py"),
    ]);
    let f = judge()
        .args(["verify", "--format", "junit"])
        .current_dir(r.path())
        .output();
    f.expect_code(1);
    let cases = junit_cases(&f.stdout());
    let of = |solution: &str| -> Vec<String> {
        cases
            .iter()
            .filter(|c| {
                c.starts_with(&format!("solutions/sum/{solution}|"))
                    || c.contains(&format!("/solutions/sum/{solution}|"))
            })
            .map(|c| c.split_once('|').unwrap().1.to_string())
            .collect()
    };
    assert_eq!(
        of("accepted/ac.c"),
        [
            "sample-1|pass|",
            "2|pass|",
            "10|pass|",
            "expected verdict|pass|"
        ]
    );
    // Gets the WA it expects (on the last test): every case passes, the WA included.
    assert_eq!(
        of("wrong_answer/wa.c"),
        [
            "sample-1|pass|",
            "2|pass|",
            "10|pass|",
            "expected verdict|pass|"
        ]
    );
    assert_eq!(
        of("accepted/wa.py"),
        [
            "sample-1|failure|WA",
            "2|skipped|",
            "10|skipped|",
            "expected verdict|failure|WA"
        ]
    );
    // Expected to be too slow, yet passes every test: only the expectation fails.
    assert_eq!(
        of("time_limit_exceeded/ac.py"),
        [
            "sample-1|pass|",
            "2|pass|",
            "10|pass|",
            "expected verdict|failure|AC"
        ]
    );
    assert!(
        cases.contains(&"sum (package)|package|pass|".to_string()),
        "{cases:?}"
    );
}

#[test]
fn verify_jsonl_tells_each_expectation_and_ends_with_the_exit_status() {
    let r = crate::verify::repo(&[("accepted", "ac.c"), ("accepted", "wa.py")]);
    let f = judge()
        .args(["verify", "--format", "jsonl"])
        .current_dir(r.path())
        .output();
    f.expect_code(1);
    let events: Vec<serde_json::Value> = f
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let finished: Vec<(&str, &str, bool)> = events
        .iter()
        .filter(|e| e["event"] == "solution_finished")
        .map(|e| {
            (
                e["solution"].as_str().unwrap(),
                e["verdict"].as_str().unwrap(),
                e["matches"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        finished,
        [
            ("solutions/sum/accepted/ac.c", "AC", true),
            ("solutions/sum/accepted/wa.py", "WA", false)
        ]
    );
    // Every solution's events carry its own run id.
    let runs: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|e| e["event"] == "test_finished")
        .map(|e| e["run"].as_u64().unwrap())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    let last = events.last().unwrap();
    assert_eq!(last["event"], "finished");
    assert_eq!(last["exit"], 1);
    assert!(
        f.stderr().is_empty() || !f.stderr().contains("Judging"),
        "{}",
        f.describe()
    );
}

#[test]
fn gen_and_stress_write_json_and_junit() {
    let root = crate::setter::new_package("fmt");
    let f = judge()
        .args(["gen", "fmt", "--format", "json"])
        .current_dir(root.path())
        .output();
    f.expect_code(0);
    let doc = f.json();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["command"], "gen");
    assert_eq!(doc["event"], "generated");
    assert_eq!(doc["exit"], 0);
    assert!(doc["inputs_written"].is_array(), "{doc}");
    let f = judge()
        .args(["gen", "fmt", "--format", "junit"])
        .current_dir(root.path())
        .output();
    f.expect_code(0)
        .expect_stdout_contains("<testsuite name=\"gen\" tests=\"1\" failures=\"0\"");
    let f = judge()
        .args([
            "stress",
            "fmt",
            "solutions/fmt/accepted/reference.py",
            "--gen",
            "{seed} {size}",
            "--seconds",
            "1",
            "--format",
            "junit",
        ])
        .current_dir(root.path())
        .output();
    f.expect_code(0).expect_stdout_contains(
        "<testcase name=\"solutions/fmt/accepted/reference.py\" classname=\"fmt\"",
    );
}

#[test]
fn two_formats_at_once_are_a_usage_error() {
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("ac.c"))
        .args(["--json", "--format", "jsonl"])
        .output();
    f.expect_code(2)
        .expect_stderr_contains("cannot be used with");
}
