//! Scored problems (groups with points, in every format) and Kattis multi-pass problems: the
//! score per group and the total of `judge run`, the scores `judge verify` checks, and the
//! passes of a multi-pass test.

use crate::harness::{fixture_problem, judge, program, root};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn package(name: &str) -> PathBuf {
    root().join("tests/fixtures/packages").join(name)
}

/// `judge run DIR PROGRAM --json`: the document, with the verdict asserted.
fn run(dir: &Path, prog: &str, verdict: &str) -> Value {
    judge()
        .arg("run")
        .arg(dir)
        .arg(program(prog))
        .arg("--json")
        .output()
        .expect_verdict(verdict)
}

/// `(name, score, max_score, verdict)` of each group.
fn groups(doc: &Value) -> Vec<(String, f64, Option<f64>, String)> {
    doc["groups"]
        .as_array()
        .unwrap_or_else(|| panic!("no groups: {doc}"))
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap().to_string(),
                g["score"].as_f64().unwrap(),
                g["max_score"].as_f64(),
                g["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The solution of a `verify --json` document whose file ends with `suffix`.
fn solution(doc: &Value, suffix: &str) -> Value {
    doc["problems"][0]["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no solution {suffix}: {doc}"))
        .clone()
}

fn g(name: &str, score: f64, max: f64, verdict: &str) -> (String, f64, Option<f64>, String) {
    (name.to_string(), score, Some(max), verdict.to_string())
}

#[test]
fn native_groups_score_all_or_nothing_per_test_and_after_their_dependency() {
    let dir = fixture_problem("subtasks");
    let doc = run(&dir, "double.py", "AC");
    assert_eq!(
        (doc["score"].as_f64(), doc["max_score"].as_f64()),
        (Some(100.0), Some(100.0))
    );
    // Small passes, large passes one test of three, huge fails.
    let doc = run(&dir, "double-upto-1000.py", "WA");
    assert_eq!(doc["score"], 50.0, "{doc}");
    assert_eq!(
        groups(&doc),
        [
            g("small", 30.0, 30.0, "AC"),
            g("large", 20.0, 60.0, "WA"),
            g("huge", 0.0, 10.0, "WA")
        ]
    );
    // Every test is judged although the first failure comes early.
    assert_eq!(doc["tests"].as_array().unwrap().len(), 7);
    // Small fails: huge, which requires it, scores nothing although its test passes.
    let doc = run(&dir, "double-but-3.py", "WA");
    assert_eq!(doc["score"], 60.0);
    let huge = &doc["groups"][2];
    assert_eq!(
        (huge["name"].as_str(), huge["score"].as_f64()),
        (Some("huge"), Some(0.0))
    );
    assert!(
        huge["note"]
            .as_str()
            .unwrap()
            .contains("`small` is not passed"),
        "{doc}"
    );
}

#[test]
fn run_shows_each_group_and_the_total() {
    let f = judge()
        .arg("run")
        .arg(fixture_problem("subtasks"))
        .arg(program("double-upto-1000.py"))
        .output();
    f.expect_code(1);
    let out = f.stdout();
    assert!(out.contains("score 50 of 100"), "{out}");
    let lines: Vec<String> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for want in ["small 30 of 30 AC", "large 20 of 60 WA", "huge 0 of 10 WA"] {
        assert!(
            lines.iter().any(|l| l == want),
            "no line {want:?} in\n{out}"
        );
    }
}

#[test]
fn kattis_2025_groups_sum_and_pass_fail_with_require_pass() {
    let dir = package("kattis-2025-scoring");
    let doc = run(&dir, "double-upto-1000.py", "WA");
    assert_eq!(doc["score"], 60.0);
    assert_eq!(
        groups(&doc),
        [
            g("secret", 60.0, 100.0, "WA"),
            g("secret/group1", 40.0, 40.0, "AC"),
            g("secret/group2", 20.0, 60.0, "WA")
        ]
    );
    let doc = run(&dir, "double-but-3.py", "WA");
    assert_eq!(doc["score"], 0.0, "group2 requires group1: {doc}");
}

#[test]
fn kattis_legacy_grader_flags_and_scores_from_the_validator() {
    let dir = package("kattis-legacy-scoring");
    // The validator gives 4 of 10 for n alone in subtask b; the sample is ignored.
    let doc = run(&dir, "double-half-above-1000.py", "AC");
    assert_eq!(doc["score"], 48.0, "{doc}");
    assert_eq!(doc["tests"][4]["checker_score"]["score"], 4.0, "{doc}");
    // Subtask b fails, but secret accepts if any subtask is accepted.
    let doc = run(&dir, "double-upto-1000.py", "AC");
    assert_eq!(doc["score"], 40.0);
    let b = groups(&doc)
        .into_iter()
        .find(|x| x.0 == "secret/b")
        .unwrap();
    assert_eq!(b, g("secret/b", 10.0, 30.0, "WA"));
    // Nothing accepted: the worst error, no score.
    let doc = run(&dir, "wa.py", "WA");
    assert_eq!(doc["score"], 0.0);
}

#[test]
fn polygon_groups_with_both_policies_dependencies_and_checker_points() {
    let dir = package("polygon-points");
    // Group 2 per test: 20 + 8 + 8 (the checker's points for n alone, testlib exit 7).
    let doc = run(&dir, "double-half-above-1000.py", "AC");
    assert_eq!(doc["score"], 76.0, "{doc}");
    assert_eq!(doc["tests"][4]["message"], "points 8 half of it");
    assert_eq!(groups(&doc)[2], g("2", 36.0, 60.0, "AC"));
    // Group 1 (complete-group) fails: group 3, which depends on it, scores nothing.
    let doc = run(&dir, "double-but-3.py", "WA");
    assert_eq!(doc["score"], 60.0);
    assert_eq!(
        groups(&doc)[1..],
        [
            g("1", 0.0, 30.0, "WA"),
            g("2", 60.0, 60.0, "AC"),
            g("3", 0.0, 10.0, "WA")
        ]
    );
}

#[test]
fn verify_checks_the_expected_scores() {
    for name in [
        "kattis-2025-scoring",
        "kattis-legacy-scoring",
        "polygon-points",
    ] {
        let f = judge()
            .arg("verify")
            .arg(package(name))
            .arg("--json")
            .output();
        f.expect_code(0);
        let doc = f.json();
        for s in doc["problems"][0]["solutions"].as_array().unwrap() {
            assert_eq!(s["ok"], true, "{s}");
            assert!(s["score"].is_number(), "{s}");
        }
    }
    // A score the package does not allow fails verify, naming both.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("double");
    crate::harness::copy_dir(&package("kattis-2025-scoring"), &dir);
    let yaml = dir.join("submissions/submissions.yaml");
    let text = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("score: 60", "score: [70, 80]");
    std::fs::write(&yaml, text).unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(1);
    f.expect_stdout_contains("upto1000.py: expected score in [70, 80] but got score 60 of 100");
    let f = judge().arg("verify").arg(&dir).arg("--json").output();
    let doc = f.json();
    let s = solution(&doc, "upto1000.py");
    assert_eq!(
        (s["ok"].as_bool(), s["score"].as_f64()),
        (Some(false), Some(60.0)),
        "{s}"
    );
    assert_eq!(
        s["expected_score"]["between"],
        serde_json::json!([70.0, 80.0])
    );
    // Requirements on a group's tests: upto1000.py must fail some test of group2 with a WA
    // whose message says "expected"; permitting only AC there fails verify, naming the test.
    let text = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("score: [70, 80]", "score: 60")
        .replace("    required: [WA]", "    permitted: [AC]");
    std::fs::write(&yaml, text).unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(1);
    f.expect_stdout_contains(
        "upto1000.py: submissions.yaml `wrong_answer/upto1000.py` › `secret/group{2, 3}`: permits AC but test secret/group2/2 got WA",
    );
    let doc = judge()
        .arg("verify")
        .arg(&dir)
        .arg("--json")
        .output()
        .json();
    let s = solution(&doc, "upto1000.py");
    assert_eq!(s["ok"], false, "{s}");
    // Every test was judged: a solution with such rules runs to the end.
    assert_eq!(s["tests"], 6, "{s}");
    assert!(
        s["rule_failures"][0]
            .as_str()
            .unwrap()
            .ends_with("permits AC but test secret/group2/2 got WA"),
        "{s}"
    );
}

#[test]
fn multi_pass_runs_the_solution_again_on_the_validators_next_input() {
    let dir = package("kattis-multipass");
    let doc = run(&dir, "double.py", "AC");
    let passes: Vec<u64> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["passes"].as_u64().unwrap())
        .collect();
    assert_eq!(passes, [2, 2, 3]);
    // 700 doubles to 1400 in pass 1; the second pass gets 1400 and prints 0.
    let doc = run(&dir, "double-upto-1000.py", "WA");
    assert_eq!(doc["tests"][1]["passes"], 2);
    assert_eq!(doc["tests"][1]["message"], "pass 2: expected 2800, got 0");
    // More passes than the problem allows is a judge error.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("multi");
    crate::harness::copy_dir(&dir, &copy);
    let yaml = copy.join("problem.yaml");
    let text = std::fs::read_to_string(&yaml)
        .unwrap()
        .replace("validation_passes: 3", "validation_passes: 2");
    std::fs::write(&yaml, text).unwrap();
    let doc = run(&copy, "double.py", "JE");
    let message = doc["tests"][2]["message"].as_str().unwrap();
    assert!(
        message.contains("asks for pass 3 but the problem allows 2"),
        "{doc}"
    );
}

#[test]
fn expected_score_marks_in_sources_are_checked_in_any_format() {
    // DOMjudge's `@EXPECTED_SCORE@` in a native package's solutions (which have no other way to
    // say a score).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("subtasks");
    crate::harness::copy_dir(&fixture_problem("subtasks"), &dir);
    let solutions = dir.join("solutions");
    std::fs::create_dir_all(solutions.join("accepted")).unwrap();
    std::fs::create_dir_all(solutions.join("wrong_answer")).unwrap();
    std::fs::copy(program("double.py"), solutions.join("accepted/double.py")).unwrap();
    let partial = solutions.join("wrong_answer/upto1000.py");
    let source = std::fs::read_to_string(program("double-upto-1000.py")).unwrap();
    let mark = |m: &str| std::fs::write(&partial, format!("# @EXPECTED_SCORE@: {m}\n{source}"));
    mark("50").unwrap();
    let f = judge().arg("verify").arg(&dir).arg("--json").output();
    f.expect_code(0);
    let doc = f.json();
    let s = solution(&doc, "upto1000.py");
    assert_eq!(
        (s["ok"].as_bool(), s["score"].as_f64()),
        (Some(true), Some(50.0)),
        "{s}"
    );
    mark("60").unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(1);
    f.expect_stdout_contains("upto1000.py: expected score 60 but got score 50 of 100");
    mark("lots").unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_stdout_contains("upto1000.py:1:3: @EXPECTED_SCORE@ holds `lots`, not a score");
    assert_ne!(f.code(), Some(0), "{}", f.describe());
}

#[test]
fn tests_that_cannot_change_the_score_are_not_judged() {
    // but3.py fails the first test of group1 (pass-fail): the second cannot count, and
    // group2 requires group1, so none of its tests can. One job or two, the same report.
    let dir = package("kattis-2025-scoring");
    let source = dir.join("submissions/wrong_answer/but3.py");
    let judged = |extra: &[&str]| {
        let doc = judge()
            .arg("run")
            .arg(&dir)
            .arg(&source)
            .arg("--json")
            .args(extra)
            .output()
            .expect_verdict("WA");
        let names = |key: &str| -> Vec<String> {
            doc[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|t| t["name"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        (
            names("tests"),
            names("skipped"),
            doc["score"].clone(),
            doc["groups"].clone(),
        )
    };
    let (tests, skipped, score, groups) = judged(&["-j", "1"]);
    assert_eq!(tests, ["sample/1", "secret/group1/1"]);
    assert_eq!(
        skipped,
        [
            "secret/group1/2",
            "secret/group2/1",
            "secret/group2/2",
            "secret/group2/3"
        ]
    );
    assert_eq!(
        judged(&["-j", "2"]),
        (tests, skipped, score.clone(), groups.clone())
    );
    // --all judges every test; the score and the groups are the same.
    let (tests, skipped, all_score, all_groups) = judged(&["--all"]);
    assert_eq!((tests.len(), skipped.len()), (6, 0));
    assert_eq!((all_score, all_groups), (score, groups));
    let out = judge().arg("run").arg(&dir).arg(&source).output();
    out.expect_stdout_contains(
        "not judged: 3 tests from secret/group2/1: group `secret/group2` requires group `secret/group1`, which failed, so they cannot change the score",
    );
}

#[test]
fn a_legacy_packages_own_grader_runs_in_the_sandbox_and_its_scores_are_checked() {
    // graders/grader.c: subtask a the smallest score, b the sum, secret the sum, accepted if
    // any subtask is.
    let dir = package("kattis-legacy-grader");
    let doc = run(&dir, "double-upto-1000.py", "AC");
    assert_eq!(doc["score"], 50.0, "{doc}");
    assert_eq!(
        groups(&doc)[1..],
        [
            g("secret", 50.0, 75.0, "AC"),
            g("secret/a", 25.0, 25.0, "AC"),
            g("secret/b", 25.0, 50.0, "WA")
        ]
    );
    let f = judge().arg("verify").arg(&dir).arg("--json").output();
    f.expect_code(0);
    let doc = f.json();
    let scores: Vec<(f64, bool)> = ["double.py", "upto1000.py", "zero.py"]
        .iter()
        .map(|s| {
            let s = solution(&doc, s);
            (s["score"].as_f64().unwrap(), s["ok"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(scores, [(75.0, true), (50.0, true), (0.0, true)]);
    // A score the grader gives that the package does not expect fails verify: the full
    // solution as a partial one.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("double");
    crate::harness::copy_dir(&dir, &copy);
    std::fs::copy(
        copy.join("submissions/accepted/double.py"),
        copy.join("submissions/partially_accepted/full.py"),
    )
    .unwrap();
    let f = judge().arg("verify").arg(&copy).output();
    f.expect_code(1);
    f.expect_stdout_contains(
        "full.py: expected a partial score (below the maximum) but got score 75 of 75",
    );
}

#[test]
fn a_grader_that_crashes_or_prints_no_result_is_a_judge_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("double");
    crate::harness::copy_dir(&package("kattis-legacy-grader"), &dir);
    std::fs::remove_file(dir.join("graders/grader.c")).unwrap();
    let grader = dir.join("graders/grader.py");
    std::fs::write(
        &grader,
        "import sys\nlines = sys.stdin.read().splitlines()\nraise ValueError(f'cannot grade {len(lines)} lines')\n",
    )
    .unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(2);
    f.expect_stdout_contains(
        "double.py: judge error in group secret/a: the grader `graders/grader.py` crashed (exit code 1): ValueError: cannot grade 2 lines",
    );
    let f = judge()
        .arg("run")
        .arg(&dir)
        .arg(program("double.py"))
        .output();
    f.expect_code(2);
    f.expect_stdout_contains("JE (judge error)");
    f.expect_stdout_contains("raise ValueError(f'cannot grade {len(lines)} lines')");
    // A C grader that aborts, and one that prints a word where its result is due.
    std::fs::remove_file(&grader).unwrap();
    let c = dir.join("graders/grader.c");
    std::fs::write(
        &c,
        "#include <assert.h>\n#include <stdio.h>\nint main(void) { char v[8]; double s; int n = scanf(\"%7s %lf\", v, &s); assert(n == 3); return 0; }\n",
    )
    .unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(2);
    f.expect_stdout_contains("the grader `graders/grader.c` crashed (killed by signal 6 (SIGABRT)): Assertion `n == 3' failed.");
    std::fs::write(
        &c,
        "#include <stdio.h>\nint main(void) { puts(\"fine\"); return 0; }\n",
    )
    .unwrap();
    let f = judge().arg("verify").arg(&dir).output();
    f.expect_code(2);
    f.expect_stdout_contains(
        "the grader `graders/grader.c` printed `fine` where one line `VERDICT SCORE` was due",
    );
}
