//! What `judge serve`'s workers do with a submission beyond its verdict: the language given
//! at submit time, the per-test events of the stream, the environment digest, and a job
//! taken away or a worker stopped mid-judging. A real server, real workers, a throwaway
//! PostgreSQL; every wait has a deadline.

use crate::chaos::Worker;
use crate::harness::program;
use crate::serve::{sum_package, upload, Server, ALICE, ORGANISER};
use judge_service::db::Sql;
use serde_json::{json, Value};

fn database() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)")
}

fn post(server: &Server, body: &Value) -> (u16, Value) {
    server.post_json("/api/v1/submissions", Some(ALICE), body)
}

#[test]
fn the_language_given_at_submit_time_is_the_one_the_worker_builds_with() {
    let url = database();
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let _worker = Worker::start(&url, "lang", "10");
    let c = std::fs::read_to_string(program("ac.c")).unwrap();
    let py = std::fs::read_to_string(program("ac.py")).unwrap();

    // A name that tells no language, and a name that tells the wrong one: the given language
    // wins (a Python source built as C would be a CE), spelled as the table spells it.
    let mut ids = Vec::new();
    for (filename, language, source) in [
        ("solution.txt", "c", &c),
        ("a.c", "PYTHON 3", &py),
        ("a.py", "C", &c),
    ] {
        let (status, body) = post(
            &server,
            &json!({"problem": "sum", "filename": filename, "language": language, "source": source}),
        );
        assert_eq!(status, 201, "{filename}: {body}");
        ids.push(body["id"].as_i64().unwrap());
    }
    for (id, language) in ids.iter().zip(["C", "Python 3", "C"]) {
        let done = server.wait_done(*id);
        assert_eq!(done["language"], language, "{done:#}");
        assert_eq!(done["verdict"], "AC", "{done:#}");
    }
    // Without a language the file name tells it, as before: C source named .py is Python.
    let (status, body) = post(
        &server,
        &json!({"problem": "sum", "filename": "a.py", "source": c}),
    );
    assert_eq!(status, 201, "{body}");
    let done = server.wait_done(body["id"].as_i64().unwrap());
    assert_eq!(done["language"], Value::Null);
    assert_ne!(done["verdict"], "AC", "C judged as Python: {done:#}");

    // A language no entry builds is refused at submit time, storing nothing.
    let before = crate::serve::count(&url, "submissions");
    for language in ["Scala", "Kattis run script"] {
        let (status, body) = post(
            &server,
            &json!({"problem": "sum", "filename": "a.c", "language": language, "source": c}),
        );
        assert_eq!(status, 422, "{body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.starts_with(&format!(
                "unknown language `{language}`; the judge knows C++, C"
            )),
            "{detail}"
        );
    }
    assert_eq!(crate::serve::count(&url, "submissions"), before);
}

#[test]
fn the_events_stream_carries_each_tests_result_as_it_is_judged() {
    let url = database();
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let mut events = server.events();
    let _worker = Worker::start(&url, "events", "10");
    let wa = std::fs::read_to_string(program("wa.py")).unwrap();
    let (status, body) = post(
        &server,
        &json!({"problem": "sum", "filename": "wa.py", "source": wa}),
    );
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();

    // In order: claimed, built, each test started and finished, the solution, done.
    let mut names = Vec::new();
    let mut finished = Vec::new();
    loop {
        let (name, data) = events.next_any();
        if name == "done" {
            assert_eq!(data["id"], id);
            break;
        }
        if name == "judging" {
            assert_eq!((&data["id"], &data["attempt"]), (&json!(id), &json!(1)));
        } else {
            assert_eq!(data["event"], name.as_str(), "{data}");
            assert_eq!(data["submission"], id, "{data}");
            assert_eq!(data["attempt"], 1, "{data}");
            assert_eq!(data["schema"], 1, "{data}");
            assert_eq!(data["problem"], "sum", "the name, not a path: {data}");
            assert_eq!(data["solution"], "wa.py", "the name, not a path: {data}");
        }
        if name == "test_finished" {
            finished.push((
                data["test"]["name"].clone(),
                data["result"]["verdict"].clone(),
            ));
        }
        names.push(name);
    }
    let position = |n: &str| names.iter().position(|x| x == n);
    assert_eq!(position("judging"), Some(0), "{names:?}");
    assert!(
        position("compile_finished") < position("test_started")
            && position("test_started") < position("test_finished")
            && position("test_finished") < position("solution_finished"),
        "{names:?}"
    );
    // The same tests and verdicts as the stored result.
    let done = server.wait_done(id);
    let stored: Vec<(Value, Value)> = done["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].clone(), t["verdict"].clone()))
        .collect();
    assert_eq!(finished, stored, "{done:#}");
    assert!(finished.iter().any(|(_, v)| v == "WA"), "{finished:?}");

    // An event larger than a notification's 8000 bytes: a compiler's message of 8 KiB, its
    // echoed quotes and backslashes doubled in JSON.
    let quotes = r#"\""#.repeat(100);
    let noisy: String = (0..400)
        .map(|i| format!("int f{i}(void) {{ return undefined_{i} + \"{quotes}\"[0]; }}\n"))
        .collect();
    let (status, body) = post(
        &server,
        &json!({"problem": "sum", "filename": "noisy.c", "source": noisy}),
    );
    assert_eq!(status, 201, "{body}");
    let data = events.next("compile_finished");
    assert_eq!(data["submission"], body["id"]);
    let message = data["compile"]["message"].as_str().unwrap();
    assert!(
        message.contains("\nnoisy.c: In function") && !message.contains("/jobs/"),
        "the file's name, not the worker's path: {message}"
    );
    assert!(
        data.to_string().len() > 8000,
        "{} bytes: {message}",
        data.to_string().len()
    );
    assert_eq!(events.next("done")["verdict"], "CE");
}

#[test]
fn a_pinned_environment_digest_lets_only_matching_workers_claim_and_each_judging_records_its_own() {
    let url = database();
    let other = "0123456789abcdef";
    let server = Server::start_with(&url, &["--pin-digest".as_ref(), other.as_ref()]);
    server.wait_line(&format!("only workers of environment digest {other} claim"));
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let c = std::fs::read_to_string(program("ac.c")).unwrap();
    let (status, body) = post(
        &server,
        &json!({"problem": "sum", "filename": "a.c", "source": c}),
    );
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();

    // Queued before the worker starts: its first turn finds it and may not claim it.
    let worker = Worker::start(&url, "pinned", "10");
    let line = worker.wait_line("environment digest ");
    let digest = line.rsplit(' ').next().unwrap().to_string();
    assert_eq!(digest.len(), 16, "{line}");
    assert_ne!(digest, other);
    worker.wait_line(&format!(
        "the organiser pinned environment digest {other}; this worker's is {digest}: it claims nothing until they match"
    ));
    let (_, queued) = server.get(&format!("/api/v1/submissions/{id}"), Some(ORGANISER));
    assert_eq!(queued["state"], "queued", "{queued:#}");
    assert_eq!(queued["judgings"], json!([]), "{queued:#}");

    // The pin set in the database to this worker's digest: it claims, and records it.
    let mut client = judge_service::connect(&url).unwrap();
    judge_service::queue::set_pin(&mut client, Some(&digest)).unwrap();
    let done = server.wait_done(id);
    assert_eq!(done["verdict"], "AC", "{done:#}");
    let judging = &done["judgings"][0];
    assert_eq!(judging["digest"], digest.as_str(), "{done:#}");
    let environment = judging["environment"].as_str().unwrap();
    assert!(environment.starts_with("judge: "), "{environment}");
    assert!(environment.contains("\nkernel: "), "{environment}");
    judge_service::queue::set_pin(&mut client, None).unwrap();

    // A digest that is not one is refused before anything starts.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["serve", "--db", &url, "--pin-digest", "fast-machines"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`fast-machines` is not an environment digest: 16 hex digits"),
        "{stderr}"
    );
}

/// Queues `file` on the package in `dir` with `judge submit --db`; its id.
fn submit_db(url: &str, dir: &std::path::Path, file: &str, attempts: &str) -> i64 {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["submit", "--db", url])
        .arg(dir)
        .arg(program(file))
        .args(["--max-attempts", attempts])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Polls until the submission `id` has an event named `name` (a worker published it).
fn wait_event(client: &mut judge_service::db::Db, id: i64, name: &str) {
    let deadline = std::time::Instant::now() + crate::serve::DEADLINE;
    loop {
        let n: i64 = client
            .query_one(
                "SELECT count(*) FROM events WHERE submission = $1 AND name = $2",
                &[&id, &name],
            )
            .unwrap()
            .get(0);
        if n > 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no {name} event for {id}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_worker_whose_job_is_taken_kills_its_runs_at_once_instead_of_judging_to_the_end() {
    let url = database();
    // Three tests of a program that never ends, under a 60 s limit: judged to the end, the
    // attempt would take minutes, past the deadline of every wait below.
    let package = crate::harness::sum_with_time_limit(60.0);
    let worker = Worker::start(&url, "cancel", "2");
    let id = submit_db(&url, &package.path().join("sum"), "tle-loop.c", "1");
    worker.wait_line(&format!("submission {id} (tle-loop.c)"));
    let mut client = judge_service::connect(&url).unwrap();
    wait_event(&mut client, id, "test_started");

    // The job taken from it while its first test runs: its lease ended, the reaper ends it
    // (its only attempt: a judge error).
    client
        .execute(
            "UPDATE jobs SET lease_until = now() - interval '1 second' WHERE submission = $1",
            &[&id],
        )
        .unwrap();
    let reaped = judge_service::queue::reap(&mut client, std::time::Duration::ZERO).unwrap();
    assert_eq!(reaped.len(), 1, "{reaped:?}");
    assert!(reaped[0].failed);
    let line = worker.wait_line("lost");
    assert!(
        line.ends_with("attempt 1: lost (its lease was taken: another worker holds it, or it ended): judging stopped, its runs killed, nothing written"),
        "{line}"
    );
    // Nothing of the lost attempt was kept: no test row, no event after the loss, and the
    // worker is free for the next submission.
    let sub = judge_service::store::submission(&mut client, id)
        .unwrap()
        .unwrap();
    assert_eq!(sub.verdict.as_deref(), Some("JE"));
    assert_eq!(sub.tests, vec![]);
    let finished: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE submission = $1 AND name = 'test_finished'",
            &[&id],
        )
        .unwrap()
        .get(0);
    assert_eq!(finished, 0, "no test was judged to its end");
    let next = submit_db(&url, &package.path().join("sum"), "ac.c", "1");
    worker.wait_line(&format!("submission {next} (ac.c)"));
    worker.wait_line("attempt 1: done");
}

#[test]
fn sigterm_stops_a_worker_after_its_job_and_twice_gives_the_job_back_now() {
    // Once: the job under way is finished and written, then the worker exits 0.
    let url = database();
    let sum = crate::harness::fixture_problem("sum");
    let id = submit_db(&url, &sum, "ac.c", "3");
    let mut worker = Worker::start(&url, "graceful", "10");
    worker.wait_line(&format!("submission {id} (ac.c)"));
    worker.signal(libc::SIGTERM);
    assert_eq!(worker.wait_exit().code(), Some(0));
    let mut client = judge_service::connect(&url).unwrap();
    let sub = judge_service::store::submission(&mut client, id)
        .unwrap()
        .unwrap();
    assert_eq!(
        (sub.state.as_str(), sub.verdict.as_deref()),
        ("done", Some("AC"))
    );
    assert_eq!(sub.judgings.len(), 1, "{sub:?}");

    // Twice: the job is given back at once (its runs killed), requeued for another worker.
    let url = database();
    let package = crate::harness::sum_with_time_limit(60.0);
    let id = submit_db(&url, &package.path().join("sum"), "tle-loop.c", "3");
    let mut worker = Worker::start(&url, "impatient", "10");
    worker.wait_line(&format!("submission {id} (tle-loop.c)"));
    let mut client = judge_service::connect(&url).unwrap();
    wait_event(&mut client, id, "test_started");
    worker.signal(libc::SIGTERM);
    worker.wait_line("stopping: the jobs under way finish first");
    assert!(worker.running(), "still judging");
    worker.signal(libc::SIGTERM);
    let line = worker.wait_line("given back (stopped)");
    assert!(
        line.ends_with("attempt 1: given back (stopped): its runs killed"),
        "{line}"
    );
    assert_eq!(worker.wait_exit().code(), Some(0));
    let sub = judge_service::store::submission(&mut client, id)
        .unwrap()
        .unwrap();
    assert_eq!(sub.state, "queued", "{sub:?}");
    let judging = &sub.judgings[0];
    assert_eq!(judging.outcome.as_deref(), Some("failed"));
    assert_eq!(
        judging.reason.as_deref(),
        Some("worker impatient was stopped before it finished")
    );
    // Given back, not failed: the job keeps its three attempts for the workers that judge it.
    let allowed: i32 = client
        .query_one(
            "SELECT max_attempts - attempt FROM jobs WHERE submission = $1",
            &[&id],
        )
        .unwrap()
        .get(0);
    assert_eq!(allowed, 3);
}

#[test]
fn sigterm_stops_the_server_ending_its_event_streams_and_exits_0() {
    let url = database();
    let mut server = Server::start(&url);
    let mut events = server.events();
    let pid = server.child.id() as i32;
    // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
    let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(sent, 0);
    server.wait_line("stopping: answering the requests under way");
    events.wait_end();
    let deadline = std::time::Instant::now() + crate::serve::DEADLINE;
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "judge serve did not exit"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0), "{}", server.rest());
}

#[test]
fn judge_submit_language_names_the_language_and_refuses_an_unknown_one() {
    let url = database();
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("solution.txt");
    std::fs::copy(program("ac.c"), &source).unwrap();
    let submit = |language: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(["submit", "--db", &url])
            .arg(crate::harness::fixture_problem("sum"))
            .arg(&source)
            .args(["--language", language])
            .output()
            .unwrap()
    };
    let out = submit("Scala");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown language `Scala`\n  hint: the judge knows C++, C, Rust"),
        "{stderr}"
    );
    let out = submit("c");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let worker = Worker::start(&url, "cli-lang", "10");
    worker.wait_line(&format!("submission {id} (solution.txt)"));
    worker.wait_line("attempt 1: done");
    let mut client = judge_service::connect(&url).unwrap();
    let sub = judge_service::store::submission(&mut client, id)
        .unwrap()
        .unwrap();
    assert_eq!(sub.verdict.as_deref(), Some("AC"), "{sub:?}");
    let language: Option<String> = client
        .query_one("SELECT language FROM submissions WHERE id = $1", &[&id])
        .unwrap()
        .get(0);
    assert_eq!(language.as_deref(), Some("C"));
}
