//! Concurrent runs: two sandboxed programs talking through pipes (`judge __sandbox-pair`, A's
//! stdout to B's stdin and back), each in a sandbox of its own. They talk, each is measured
//! alone, one ending badly takes the other down, and hostile partners (never reading, flooding,
//! closing early, waiting forever) end within the wall limit; the harness checks that nothing
//! is left behind.

use crate::harness;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Runs the pair A, B (shell snippets) with a wall limit; their two outcomes, and how long the
/// whole judge took.
fn pair(wall_ms: u64, a: &str, b: &str) -> (Value, Value, Duration) {
    let folder = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let doc = harness::judge()
        .arg("__sandbox-pair")
        .arg(folder.path())
        .arg(wall_ms.to_string())
        .args([a, b])
        .output()
        .expect_code(0)
        .json();
    let runs = doc["runs"].as_array().unwrap();
    (runs[0].clone(), runs[1].clone(), start.elapsed())
}

fn exited(run: &Value, code: i64) {
    assert_eq!(run["exit"], code, "{run}");
}

fn killed(run: &Value) {
    assert_eq!(run["signal"], 9, "{run}");
}

/// A writer whose partner went first: killed with it, or (when the partner's end closed before
/// the kill reached the writer) ended by SIGPIPE on its next write.
fn killed_or_broken_pipe(run: &Value) {
    assert!(run["signal"] == 9 || run["signal"] == 13, "{run}");
}

/// A reader whose partner went first: killed with it, or (when the partner's end closed before
/// the kill reached the reader) ended by itself at the end of its input.
fn killed_or_read_to_the_end(run: &Value, code: i64) {
    assert!(run["signal"] == 9 || run["exit"] == code, "{run}");
}

/// One of the two reached its wall limit (the first to be checked; the other then goes with it).
fn at_the_wall_limit(a: &Value, b: &Value) {
    assert!(
        a["wall_limit"] == true || b["wall_limit"] == true,
        "neither at its wall limit: {a} {b}"
    );
}

#[test]
fn an_echo_pair_talks_and_each_is_measured_alone() {
    // A asks, B answers, A checks the answer (and says what it got on stderr), then burns CPU
    // time that B, waiting for its end of the pipe, must not be charged with.
    let a = r#"echo ping; read x; echo "got $x" >&2; [ "$x" = "pong:ping" ] || exit 9
        i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"#;
    let b = r#"read x; echo "pong:$x"; read y; echo "then ${y:-eof}" >&2"#;
    let (a, b, _) = pair(20_000, a, b);
    exited(&a, 0);
    exited(&b, 0);
    assert_eq!(a["stderr"], "got pong:ping\n", "{a}");
    assert_eq!(
        b["stderr"], "then eof\n",
        "B sees the end of A's output: {b}"
    );
    let (a_cpu, b_cpu) = (a["cpu_ms"].as_f64().unwrap(), b["cpu_ms"].as_f64().unwrap());
    assert!(a_cpu > 20.0, "A's loop is A's: {a_cpu} ms");
    assert!(
        b_cpu < a_cpu / 2.0,
        "B is charged A's time: A {a_cpu} ms, B {b_cpu} ms"
    );
}

#[test]
fn one_ending_badly_takes_the_other_down() {
    let (a, b, took) = pair(20_000, "exit 3", "sleep 30");
    exited(&a, 3);
    killed(&b);
    assert_eq!(
        b["wall_limit"], false,
        "killed for its partner, not at its limit: {b}"
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
    // A crash of the second one takes the first one down just the same.
    let (a, b, _) = pair(20_000, "sleep 30", "kill -SEGV $$");
    killed(&a);
    assert_eq!(b["signal"], 11, "{b}");
}

#[test]
fn hostile_partners_end_within_the_wall_limit() {
    let wall = 1500;
    // Bounded: the wall limit, and slack for starting two sandboxes on a busy machine.
    let bound = Duration::from_secs(15);
    // A floods a partner that never reads: A blocks on the full pipe until its wall limit,
    // and its partner goes with it.
    let (a, b, took) = pair(wall, "yes", "sleep 30");
    at_the_wall_limit(&a, &b);
    killed_or_broken_pipe(&a);
    killed(&b);
    assert!(took < bound, "took {took:?}");
    // A floods a partner that reads everything: both run until the wall limit.
    let (a, b, took) = pair(wall, "yes", "cat > /dev/null");
    at_the_wall_limit(&a, &b);
    killed_or_broken_pipe(&a);
    killed_or_read_to_the_end(&b, 0);
    assert!(took < bound, "took {took:?}");
    // A closes its ends at once: B reads the end of its input and finishes.
    let (a, b, _) = pair(wall, "exec 0<&- 1>&-; exit 0", "read x || echo eof >&2");
    exited(&a, 0);
    exited(&b, 0);
    assert_eq!(b["stderr"], "eof\n", "{b}");
    // Both wait for input that never comes: idleness ends at the wall limit.
    // The first one checked is killed at the limit; the other may see the end of its input
    // before the kill reaches it (`read` then fails with 1).
    let (a, b, took) = pair(wall, "read x", "read y");
    at_the_wall_limit(&a, &b);
    killed_or_read_to_the_end(&a, 1);
    killed_or_read_to_the_end(&b, 1);
    assert!(
        a["signal"] == 9 || b["signal"] == 9,
        "neither killed: {a} {b}"
    );
    assert!(took < bound, "took {took:?}");
}

#[test]
fn runs_given_up_at_their_start_die_and_leave_the_sandbox_as_good_as_new() {
    // Both runs are dropped as soon as they started (the programs may not even have joined
    // their cgroups yet); the next run in the first sandbox then gets its own report.
    let folder = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let doc = harness::judge()
        .arg("__sandbox-pair")
        .arg("--abandon")
        .arg(folder.path())
        .arg("20000")
        .args(["sleep 30", "sleep 30", "echo next >&2; exit 4"])
        .output()
        .expect_code(0)
        .json();
    assert_eq!(doc["runs"], serde_json::json!([]), "{doc}");
    let then = &doc["then"];
    exited(then, 4);
    assert_eq!(then["stderr"], "next\n", "{then}");
    assert!(then["wall_ms"].as_f64().unwrap() < 5000.0, "{then}");
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "took {:?}",
        start.elapsed()
    );
}
