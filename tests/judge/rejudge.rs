//! Rejudge sets and stale results on a real `judge serve`, judged for real: 200 submissions
//! rejudged after one test changed (the exact matrix, nothing published until applied, a
//! cancel that leaves everything as it was), and on PostgreSQL with worker processes: a
//! worker killed inside a rejudge's finish still gives exactly one shadow result per
//! submission, and `--stale` lists exactly what used a changed checker or language entry.

use crate::harness::fixture_problem;
use crate::serve::{upload, Judged, Server, DEADLINE, ORGANISER};
use judge_service::db::{Engine, Sql};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

/// A C program that sums the numbers it reads, with `twist` applied to the sum `s` of `n`
/// numbers before printing it.
fn sum_c(twist: &str) -> String {
    format!(
        "#include <stdio.h>\nint main(void) {{\n  int n; long long s = 0, x;\n  if (scanf(\"%d\", &n) != 1) return 1;\n  for (int i = 0; i < n; i++) {{ scanf(\"%lld\", &x); s += x; }}\n  {twist}\n  printf(\"%lld\\n\", s);\n  return 0;\n}}\n"
    )
}

/// Right on every test.
const GOOD: &str = "";
/// Wrong on a test of one number (the fixture's test 2), right on the others.
const ONE: &str = "if (n == 1) s = 0;";
/// Wrong on a test of two numbers (none in the fixture), right on the others.
const TWO: &str = "if (n == 2) s = 999;";
/// Wrong on a test of four numbers (the fixture's test 10).
const FOUR: &str = "if (n == 4) s = 0;";
const CE: &str = "this does not compile";

/// The `sum` fixture in a folder of the test's own, to change.
fn sum_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixture_problem("sum");
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    for rel in ["problem.toml", "statement.md"] {
        std::fs::copy(from.join(rel), dir.path().join(rel)).unwrap();
    }
    for entry in std::fs::read_dir(from.join("tests")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(
            entry.path(),
            dir.path().join("tests").join(entry.file_name()),
        )
        .unwrap();
    }
    dir
}

fn pack(dir: &Path) -> Vec<u8> {
    judge_service::store::pack(dir).unwrap()
}

fn submit(server: &Server, filename: &str, source: &str) -> i64 {
    let (status, body) = server.post_json(
        "/api/v1/submissions",
        Some(ORGANISER),
        &json!({"problem": "sum", "filename": filename, "source": source}),
    );
    assert_eq!(status, 201, "{body}");
    body["id"].as_i64().unwrap()
}

/// Every submission of the list, once all `n` are done: id → verdict.
fn all_done(server: &Server, n: usize) -> BTreeMap<i64, String> {
    let deadline = Instant::now() + DEADLINE * 3;
    loop {
        let (status, body) = server.get("/api/v1/submissions?problem=sum", Some(ORGANISER));
        assert_eq!(status, 200, "{body}");
        let list = body["submissions"].as_array().unwrap();
        assert_eq!(list.len(), n, "shadows are never listed: {body}");
        if list.iter().all(|s| s["state"] == "done") {
            return list
                .iter()
                .map(|s| {
                    (
                        s["id"].as_i64().unwrap(),
                        s["verdict"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
        }
        assert!(Instant::now() < deadline, "not judged in time: {body}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every submission as `GET /api/v1/submissions/{id}` shows it.
fn details(server: &Server, ids: impl IntoIterator<Item = i64>) -> BTreeMap<i64, Value> {
    ids.into_iter()
        .map(|id| {
            let (status, body) = server.get(&format!("/api/v1/submissions/{id}"), Some(ORGANISER));
            assert_eq!(status, 200, "{body}");
            (id, body)
        })
        .collect()
}

/// The set once nothing of it is left to judge.
fn wait_set(server: &Server, id: i64) -> Value {
    let deadline = Instant::now() + DEADLINE * 3;
    loop {
        let (status, set) = server.get(&format!("/api/v1/rejudges/{id}"), Some(ORGANISER));
        assert_eq!(status, 200, "{set}");
        if set["state"] != "judging" {
            return set;
        }
        assert!(Instant::now() < deadline, "rejudge {id} not judged: {set}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The matrix as (from, to) → count.
fn matrix(set: &Value) -> BTreeMap<(String, String), i64> {
    set["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                (
                    c["from"].as_str().unwrap().to_string(),
                    c["to"].as_str().unwrap().to_string(),
                ),
                c["count"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn cells(list: &[(&str, &str, i64)]) -> BTreeMap<(String, String), i64> {
    list.iter()
        .map(|(f, t, n)| ((f.to_string(), t.to_string()), *n))
        .collect()
}

/// The stale results: id → reasons.
fn stale(server: &Server) -> BTreeMap<i64, Vec<String>> {
    let (status, body) = server.get("/api/v1/rejudges/stale?problem=sum", Some(ORGANISER));
    assert_eq!(status, 200, "{body}");
    body["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let reasons = s["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            (s["id"].as_i64().unwrap(), reasons)
        })
        .collect()
}

fn sha256(text: &str) -> String {
    judge_core::package::sha256(text.as_bytes())
}

#[test]
fn a_rejudge_of_200_after_one_changed_test_shows_the_exact_matrix_and_changes_nothing_until_applied(
) {
    let server = Judged::start(Engine::Sqlite, &["a", "b"]);
    let package = sum_copy();
    let (status, body) = upload(&server, "sum", ORGANISER, &pack(package.path()));
    assert_eq!(status, 201, "{body}");
    let kinds = [
        (GOOD, 80, "AC", "AC"),
        (ONE, 40, "WA", "AC"),
        (TWO, 40, "AC", "WA"),
        (FOUR, 30, "WA", "WA"),
        (CE, 10, "CE", "CE"),
    ];
    let mut expected: BTreeMap<i64, (&str, &str)> = BTreeMap::new();
    for (twist, n, before, after) in kinds {
        let source = if twist == CE {
            CE.to_string()
        } else {
            sum_c(twist)
        };
        for _ in 0..n {
            expected.insert(submit(&server, "sum.c", &source), (before, after));
        }
    }
    assert_eq!(expected.len(), 200);
    let verdicts = all_done(&server, 200);
    let wanted: BTreeMap<i64, String> = expected
        .iter()
        .map(|(id, (before, _))| (*id, before.to_string()))
        .collect();
    assert_eq!(verdicts, wanted);
    let published = details(&server, expected.keys().copied());
    let one = &published[expected.keys().next().unwrap()];
    assert_eq!(one["inputs"]["package"], body["package"], "{one}");
    assert_eq!(one["inputs"]["language"], "C", "{one}");
    let test2 = &one["tests"][1];
    assert_eq!(
        (&test2["name"], &test2["answer_hash"]),
        (&json!("2"), &json!(sha256("-5\n")))
    );
    assert!(stale(&server).is_empty(), "nothing changed yet");

    // Test 2 becomes two numbers: ONE passes it now, TWO fails it.
    std::fs::write(package.path().join("tests/2.in"), "2\n-5 7\n").unwrap();
    std::fs::write(package.path().join("tests/2.ans"), "2\n").unwrap();
    let (status, changed) = upload(&server, "sum", ORGANISER, &pack(package.path()));
    assert_eq!(status, 201, "{changed}");
    // Exactly the submissions judged on test 2 (all but the CEs, which ran no test).
    let stale_now = stale(&server);
    let tested: BTreeSet<i64> = expected
        .iter()
        .filter(|(_, (before, _))| *before != "CE")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(stale_now.keys().copied().collect::<BTreeSet<_>>(), tested);
    assert!(
        stale_now
            .values()
            .all(|r| r == &["test 2 input", "test 2 answer"]),
        "{stale_now:?}"
    );

    let (status, set) = server.post_json(
        "/api/v1/rejudges",
        Some(crate::serve::ALICE),
        &json!({"problem": "sum"}),
    );
    assert_eq!(status, 403, "a submitter makes no rejudge: {set}");
    let (status, set) = server.post_json(
        "/api/v1/rejudges",
        Some(ORGANISER),
        &json!({"problem": "sum", "verdicts": ["XX"]}),
    );
    assert_eq!(status, 422, "{set}");
    let (status, set) = server.post_json(
        "/api/v1/rejudges",
        Some(ORGANISER),
        &json!({"problem": "sum"}),
    );
    assert_eq!(status, 201, "{set}");
    let id = set["id"].as_i64().unwrap();
    assert_eq!(
        (set["submissions"].as_i64(), set["judgings"].as_i64()),
        (Some(200), Some(200))
    );
    let (status, early) = server.post_json(
        &format!("/api/v1/rejudges/{id}/apply"),
        Some(ORGANISER),
        &json!({}),
    );
    // Applying waits for every judging: refused unless the set was judged already.
    if early["state"] != "applied" {
        assert_eq!(status, 409, "{early}");
    }
    let set = wait_set(&server, id);
    assert_eq!(set["state"], "done", "{set}");
    assert_eq!(set["packages"]["sum"], changed["package"], "{set}");
    assert_eq!(
        matrix(&set),
        cells(&[
            ("AC", "AC", 80),
            ("WA", "AC", 40),
            ("AC", "WA", 40),
            ("WA", "WA", 30),
            ("CE", "CE", 10),
        ]),
        "{set}"
    );
    let changed_ids: BTreeSet<i64> = set["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let id = c["id"].as_i64().unwrap();
            let (before, after) = expected[&id];
            assert_eq!(
                (&c["old"]["verdict"], &c["new"]["verdict"]),
                (&json!(before), &json!(after))
            );
            assert!(c["new"]["time_ms"].is_i64(), "{c}");
            id
        })
        .collect();
    let flipped: BTreeSet<i64> = expected
        .iter()
        .filter(|(_, (before, after))| before != after)
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(changed_ids, flipped);
    assert_eq!(flipped.len(), 80);
    // Nothing published changed: every submission reads as before, tests and all.
    assert_eq!(details(&server, expected.keys().copied()), published);
    assert_eq!(all_done(&server, 200), wanted);

    let (status, applied) = server.post_json(
        &format!("/api/v1/rejudges/{id}/apply"),
        Some(ORGANISER),
        &json!({}),
    );
    assert_eq!(status, 200, "{applied}");
    assert_eq!(applied["state"], "applied");
    assert_eq!(
        matrix(&applied),
        matrix(&set),
        "the matrix stays as it was judged"
    );
    let now: BTreeMap<i64, String> = expected
        .iter()
        .map(|(id, (_, after))| (*id, after.to_string()))
        .collect();
    assert_eq!(all_done(&server, 200), now);
    let after = details(&server, expected.keys().copied());
    for (id, sub) in &after {
        assert_eq!(
            sub["judgings"], published[id]["judgings"],
            "its own judgings stay"
        );
        if expected[id].0 != "CE" {
            assert_eq!(sub["tests"][1]["answer_hash"], sha256("2\n"), "{sub}");
            assert_eq!(sub["inputs"]["package"], changed["package"], "{sub}");
        }
    }
    assert!(stale(&server).is_empty(), "the new results are current");
    for action in ["apply", "cancel"] {
        let (status, body) = server.post_json(
            &format!("/api/v1/rejudges/{id}/{action}"),
            Some(ORGANISER),
            &json!({}),
        );
        assert_eq!(status, 409, "{action} of an applied set: {body}");
    }

    let (status, none) = server.post_json(
        "/api/v1/rejudges",
        Some(ORGANISER),
        &json!({"until": "2000-01-01T00:00:00Z"}),
    );
    assert_eq!(status, 422, "nothing was submitted before 2000: {none}");
    // A set cancelled at once leaves every published result as it was, and no shadow.
    let (status, set) = server.post_json(
        "/api/v1/rejudges",
        Some(ORGANISER),
        &json!({"verdicts": ["WA"], "since": "2000-01-01T00:00:00Z", "repeat": 2}),
    );
    assert_eq!(status, 201, "{set}");
    assert_eq!(
        (set["submissions"].as_i64(), set["judgings"].as_i64()),
        (Some(70), Some(140))
    );
    let cancel = set["id"].as_i64().unwrap();
    let (status, cancelled) = server.post_json(
        &format!("/api/v1/rejudges/{cancel}/cancel"),
        Some(ORGANISER),
        &json!({}),
    );
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(
        (&cancelled["state"], &cancelled["judgings"]),
        (&json!("cancelled"), &json!(0))
    );
    assert_eq!(details(&server, expected.keys().copied()), after);
    let (status, list) = server.get("/api/v1/rejudges", Some(ORGANISER));
    assert_eq!(status, 200);
    let states: Vec<(i64, String)> = list["rejudges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap(),
                s["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            (cancel, "cancelled".to_string()),
            (id, "applied".to_string())
        ]
    );
}

/// The default language table with one more flag for C.
fn c_flagged() -> tempfile::NamedTempFile {
    let table = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/core/src/lang/languages.toml"),
    )
    .unwrap();
    let c = r#"compile = ["gcc", "-O2", "-std=gnu11", "-pipe", "-o", "{exe}", "{sources}", "-lm"]"#;
    assert!(
        table.contains(c),
        "the table's C entry changed: update this test"
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        file.path(),
        table.replace(c, &c.replace(r#""-lm"]"#, r#""-lm", "-DJURY"]"#)),
    )
    .unwrap();
    file
}

/// `judge rejudge SERVER ARGS…` with the organiser's token.
fn cli(server: &Server, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("rejudge")
        .arg(format!("http://{}", server.addr))
        .args(args)
        .env("JUDGE_TOKEN", ORGANISER)
        .output()
        .unwrap()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
    unsafe { libc::kill(child.id() as i32, sig) };
}

#[test]
fn a_worker_killed_in_a_rejudge_leaves_one_shadow_result_each_and_stale_names_checker_and_language()
{
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);
    let cache = tempfile::tempdir().unwrap();
    let steady = crate::chaos::Worker::start_with(&url, "steady", "10", cache.path(), &[], None);
    let package = sum_copy();
    let (status, body) = upload(&server, "sum", ORGANISER, &pack(package.path()));
    assert_eq!(status, 201, "{body}");
    let python = "n = int(input())\nprint(sum(map(int, input().split())))\n";
    let mut c_ids = BTreeSet::new();
    for source in [
        sum_c(GOOD),
        sum_c(GOOD),
        sum_c(ONE),
        sum_c(ONE),
        CE.to_string(),
    ] {
        c_ids.insert(submit(&server, "sum.c", &source));
    }
    let py_ids: BTreeSet<i64> = (0..2).map(|_| submit(&server, "sum.py", python)).collect();
    let ce = *c_ids.last().unwrap();
    let verdicts = all_done(&server, 7);
    assert_eq!(
        verdicts.values().filter(|v| *v == "AC").count(),
        4,
        "{verdicts:?}"
    );
    assert!(stale(&server).is_empty());

    // Another checker: every result judged with it is stale, a CE (no test run) is not.
    let toml = std::fs::read_to_string(package.path().join("problem.toml")).unwrap();
    std::fs::write(
        package.path().join("problem.toml"),
        toml.replace(r#"kind = "tokens""#, r#"kind = "lines""#),
    )
    .unwrap();
    let (status, body) = upload(&server, "sum", ORGANISER, &pack(package.path()));
    assert_eq!(status, 201, "{body}");
    let found = stale(&server);
    let tested: BTreeSet<i64> = c_ids
        .iter()
        .chain(&py_ids)
        .copied()
        .filter(|id| *id != ce)
        .collect();
    assert_eq!(found.keys().copied().collect::<BTreeSet<_>>(), tested);
    assert!(found.values().all(|r| r == &["checker"]), "{found:?}");

    // The steady worker paused, a worker that dies inside its first finish takes a shadow.
    signal(&steady.child, libc::SIGSTOP);
    let mut crasher = crate::chaos::Worker::start_with(
        &url,
        "crasher",
        "1",
        cache.path(),
        &[("JUDGE_TEST_KILL_AT", "finishing")],
        None,
    );
    let (status, set) = server.post_json(
        "/api/v1/rejudges",
        Some(ORGANISER),
        &json!({"stale": true, "repeat": 2, "since": "2000-01-01T00:00:00Z"}),
    );
    assert_eq!(status, 201, "{set}");
    let id = set["id"].as_i64().unwrap();
    assert_eq!(
        (set["submissions"].as_i64(), set["judgings"].as_i64()),
        (Some(6), Some(12))
    );
    crasher.wait_line("attempt 1: submission");
    let deadline = Instant::now() + DEADLINE;
    while crasher.running() {
        assert!(Instant::now() < deadline, "the crasher was not killed");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&steady.child, libc::SIGCONT);
    let set = wait_set(&server, id);
    assert_eq!(
        (set["state"].as_str(), set["judged"].as_i64()),
        (Some("done"), Some(12)),
        "{set}"
    );
    assert_eq!(
        matrix(&set),
        cells(&[("AC", "AC", 4), ("WA", "WA", 2)]),
        "{set}"
    );
    assert_eq!(set["changed"], json!([]));
    assert_eq!(set["unstable"], 0, "{set}");
    for s in set["spread"].as_array().unwrap() {
        assert_eq!(s["runs_done"], 2, "{s}");
        assert!(
            s["min_time_ms"].as_i64() <= s["max_time_ms"].as_i64(),
            "{s}"
        );
    }
    let mut db = judge_service::connect(&url).unwrap();
    // One result per shadow: its three tests once, one judging done; the crasher's attempt
    // lost and judged again by the steady worker.
    let per_shadow = db
        .query(
            "SELECT s.id, s.state,
                    (SELECT count(*) FROM test_results t WHERE t.submission = s.id),
                    (SELECT count(*) FROM judgings j JOIN jobs ON jobs.id = j.job
                     WHERE jobs.submission = s.id AND j.outcome = 'done')
             FROM submissions s WHERE s.rejudge = $1",
            &[&id],
        )
        .unwrap();
    assert_eq!(per_shadow.len(), 12);
    for r in &per_shadow {
        let row: (i64, String, i64, i64) = (r.get(0), r.get(1), r.get(2), r.get(3));
        assert_eq!((row.1.as_str(), row.2, row.3), ("done", 3, 1), "{row:?}");
    }
    let crashed: Vec<(String, Option<String>)> = db
        .query(
            "SELECT j.worker, j.outcome FROM judgings j JOIN jobs ON jobs.id = j.job
             JOIN submissions s ON s.id = jobs.submission
             WHERE s.rejudge = $1 AND j.attempt = 1 AND j.worker = 'crasher'",
            &[&id],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(crashed, [("crasher".to_string(), Some("lost".to_string()))]);
    let (status, applied) = server.post_json(
        &format!("/api/v1/rejudges/{id}/apply"),
        Some(ORGANISER),
        &json!({}),
    );
    assert_eq!(status, 200, "{applied}");
    assert!(stale(&server).is_empty(), "judged with the new checker");
    drop(db);

    // Another C compile flag: exactly the C results are stale (the CE too), not Python's.
    let table = c_flagged();
    drop(server);
    let server = Server::start_with(&url, &["--languages".as_ref(), table.path().as_os_str()]);
    let found = stale(&server);
    assert_eq!(found.keys().copied().collect::<BTreeSet<_>>(), c_ids);
    assert!(found.values().all(|r| r == &["language"]), "{found:?}");
    let out = cli(&server, &["--stale", "--list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: BTreeSet<i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            assert!(l.ends_with("language"), "{l}");
            l.split_whitespace().next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(listed, c_ids);
    // The CLI makes a set of them and prints its matrix once judged.
    let out = cli(&server, &["--stale", "--wait"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("done  5 submissions  5/5 judged"), "{text}");
    for cell in [
        "AC  → AC        2",
        "WA  → WA        2",
        "CE  → CE        1",
    ] {
        assert!(text.contains(cell), "{cell}: {text}");
    }
    drop(steady);
}
