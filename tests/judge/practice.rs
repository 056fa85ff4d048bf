//! `judge practice`: the server as a real process on free loopback ports (contained by the
//! harness, in the host's network namespace), real judging in the sandbox, a tiny HTTP client
//! over `TcpStream`. Its length is the server's routes and their refusals, one test each, over one
//! shared start-up.

use crate::harness::{judge, Serving};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

const TOKEN: &str = "test-token-0123456789abcdef";

/// A started server: its ports, and the process.
struct Server {
    serving: Serving,
    port: u16,
    cc_port: u16,
}

fn start(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args = vec!["--token", TOKEN];
    args.extend_from_slice(extra);
    let (server, token) = start_without_token(dir, &args, env);
    assert_eq!(token, TOKEN);
    server
}

/// [`start`] without `--token`: the server and the token its address carries.
fn start_without_token(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> (Server, String) {
    let mut j = judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir)
        .args(["--port", "0", "--cc-port", "0"])
        .args(extra.iter().copied());
    for (k, v) in env {
        j = j.env(*k, *v);
    }
    let mut serving = j.serve();
    let page = serving.line();
    let url = page.strip_prefix("page: ").expect(&page);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let token = url.split_once("/?token=").expect(url).1.to_string();
    let port: u16 = url["http://127.0.0.1:".len()..]
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let cc = serving.line();
    let cc_port: u16 = cc
        .strip_prefix("competitive-companion port: ")
        .expect(&cc)
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (
        Server {
            serving,
            port,
            cc_port,
        },
        token,
    )
}

/// An HTTP answer: status, headers (lower-case names), body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one raw request (the server closes each connection after its answer). It waits as
/// long as the slowest answer may take: `POST /api/stress` answers when its run is done, within
/// its seconds (60 in the stress test) and 120 s more.
fn raw(port: u16, request: &[u8]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(180))).unwrap();
    s.write_all(request).unwrap();
    let mut text = Vec::new();
    s.read_to_end(&mut text).unwrap();
    let text = String::from_utf8_lossy(&text).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// A request with `headers` (`Host` is added unless given) and a JSON body if any.
fn call(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Answer {
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (n, v) in headers {
        request.push_str(&format!("{n}: {v}\r\n"));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    if !body.is_empty() {
        request.push_str("Content-Type: application/json\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    raw(port, request.as_bytes())
}

const BEARER: (&str, &str) = ("Authorization", "Bearer test-token-0123456789abcdef");

fn get(port: u16, path: &str) -> Value {
    let a = call(port, "GET", path, &[BEARER], None);
    assert_eq!(a.status, 200, "GET {path}: {a:?}");
    a.json()
}

fn post(port: u16, path: &str, body: Value) -> Value {
    let a = call(port, "POST", path, &[BEARER], Some(&body));
    assert_eq!(a.status, 200, "POST {path}: {a:?}");
    a.json()
}

/// A competitive-companion body.
fn problem_json(name: &str, url: &str, batch: Option<(&str, u64)>) -> Value {
    let mut v = json!({
        "name": name,
        "group": "Practice Site - Round 1",
        "url": url,
        "interactive": false,
        "memoryLimit": 64,
        "timeLimit": 1500,
        "tests": [
            {"input": "1 2\n", "output": "3\n"},
            {"input": "10 -4\n", "output": "6\n"},
            {"input": "100 200\n", "output": "300\n"}
        ],
        "testType": "single",
        "input": {"type": "stdin"},
        "output": {"type": "stdout"},
        "languages": {"java": {"mainClass": "Main", "taskClass": "Task"}}
    });
    if let Some((id, size)) = batch {
        v["batch"] = json!({"id": id, "size": size});
    }
    v
}

fn cc_post(port: u16, body: &Value) -> Answer {
    let body = body.to_string();
    raw(
        port,
        format!(
            "POST / HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Type: application/json\r\nOrigin: chrome-extension://abcdef\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

const AC: &str = "a, b = map(int, input().split())\nprint(a + b)\n";
const WA: &str = "a, b = map(int, input().split())\nprint(a + b if a < 50 else a - b)\n";
const CE: &str = "print(\n";

/// Waits until submission `id` has a verdict; returns it.
fn judged(port: u16, id: i64) -> Value {
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        let s = get(port, &format!("/api/submissions/{id}"));
        if !s["verdict"].is_null() {
            return s;
        }
        assert!(Instant::now() < until, "submission {id} not judged: {s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn submit(port: u16, problem: &str, source: &str) -> i64 {
    post(
        port,
        "/api/submissions",
        json!({"problem": problem, "source": source, "language": "Python 3"}),
    )["id"]
        .as_i64()
        .unwrap()
}

#[test]
fn competitive_companion_problems_and_a_batch_appear_within_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[], &[]);
    let (port, cc) = (server.port, server.cc_port);
    let sent = Instant::now();
    let a = cc_post(
        cc,
        &problem_json("A. Single", "https://example.org/p/1", None),
    );
    assert_eq!(a.status, 200, "{a:?}");
    for (i, letter) in ["A", "B", "C"].iter().enumerate() {
        let body = problem_json(
            &format!("{letter}. Batch {letter}"),
            &format!("https://example.org/c/7/{i}"),
            Some(("0b7d7a38-1d1f-4c1e-9e39-3d5f8a2c7e11", 3)),
        );
        assert_eq!(cc_post(cc, &body).status, 200);
    }
    let problems = loop {
        let list = get(port, "/api/problems");
        if list.as_array().unwrap().len() == 4 {
            break list;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(1),
            "the problems did not appear within a second: {list}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let single = problems
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "a-single")
        .unwrap_or_else(|| panic!("{problems}"));
    assert_eq!(single["name"], "A. Single");
    assert_eq!(single["group"], "Practice Site - Round 1");
    assert_eq!(single["url"], "https://example.org/p/1");
    assert_eq!(single["time_limit_ms"], 1500);
    assert_eq!(single["memory_mib"], 64);
    assert_eq!(single["tests"], 3);
    // A native package in the folder.
    let toml = std::fs::read_to_string(dir.path().join("problems/a-single/problem.toml")).unwrap();
    assert!(toml.contains("time_limit = 1.5"), "{toml}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("problems/a-single/tests/sample-2.ans")).unwrap(),
        "6\n"
    );
    // The batch is a contest of its three problems, in order, not started.
    let contests = get(port, "/api/contests");
    let contests = contests.as_array().unwrap();
    assert_eq!(contests.len(), 1, "{contests:?}");
    assert_eq!(contests[0]["name"], "Practice Site - Round 1");
    assert_eq!(
        contests[0]["problems"],
        json!(["a-batch-a", "b-batch-b", "c-batch-c"])
    );
    assert_eq!(contests[0]["state"], "not_started");
    // The receiver takes nothing else.
    let receiver = |request: String| raw(cc, request.as_bytes()).status;
    assert_eq!(
        receiver(format!("GET / HTTP/1.1\r\nHost: localhost:{cc}\r\n\r\n")),
        405
    );
    assert_eq!(
        receiver(format!("POST / HTTP/1.1\r\nHost: localhost:{cc}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{{}}")),
        415
    );
    assert_eq!(
        receiver(format!("POST / HTTP/1.1\r\nHost: localhost:{cc}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{{bad}}")),
        400
    );
    assert_eq!(
        receiver(format!("POST / HTTP/1.1\r\nHost: localhost:{cc}\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}")),
        403
    );
    assert_eq!(
        receiver(format!("POST / HTTP/1.1\r\nHost: evil.example:{cc}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}")),
        403
    );
    assert_eq!(
        receiver(format!("POST / HTTP/1.1\r\nHost: localhost:{cc}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n")),
        413
    );
    assert_eq!(get(port, "/api/problems").as_array().unwrap().len(), 4);
    // File input and output as the problem says; an interactive problem is not judged.
    let mut files = problem_json("Files", "https://example.org/files", None);
    files["input"] = json!({"type": "file", "fileName": "input.txt"});
    files["output"] = json!({"type": "file", "fileName": "output.txt"});
    assert_eq!(cc_post(cc, &files).status, 200);
    let mut interactive = problem_json("Guess", "https://example.org/guess", None);
    interactive["interactive"] = json!(true);
    assert_eq!(cc_post(cc, &interactive).status, 200);
    let until = Instant::now() + Duration::from_secs(10);
    while get(port, "/api/problems").as_array().unwrap().len() < 6 {
        assert!(Instant::now() < until);
        std::thread::sleep(Duration::from_millis(20));
    }
    let with_files = "a, b = map(int, open('input.txt').read().split())\nopen('output.txt', 'w').write(str(a + b) + '\\n')\n";
    let s = judged(port, submit(port, "files", with_files));
    assert_eq!(s["verdict"], "AC", "{s}");
    let s = judged(port, submit(port, "files", AC));
    assert_ne!(s["verdict"], "AC", "stdin is not the input: {s}");
    let s = judged(port, submit(port, "guess", AC));
    assert_eq!(s["verdict"], "JE", "{s}");
    assert!(s["error"].as_str().unwrap().contains("interactive"), "{s}");
    server.serving.stop().expect_code(130);
}

#[test]
fn bad_options_are_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .args(["--token", "short"])
        .output()
        .expect_code(2)
        .expect_stderr_contains("--token (or JUDGE_PRACTICE_TOKEN): the token has 5 characters");
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .env("JUDGE_PRACTICE_TOKEN", "bad token with spaces")
        .output()
        .expect_code(2)
        .expect_stderr_contains("may hold only letters");
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .args(["--port", "27300", "--cc-port", "27300"])
        .output()
        .expect_code(2)
        .expect_stderr_contains("--port and --cc-port are both 27300");
}

#[test]
fn ac_and_wa_through_the_api_with_times_memory_the_diff_and_the_history_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    let id = post(
        port,
        "/api/problems",
        problem_json("Sum", "https://example.org/sum", None),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(id, "sum");
    // The events stream sees the judging as it happens.
    let mut events = TcpStream::connect(("127.0.0.1", port)).unwrap();
    events
        .write_all(format!("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n").as_bytes())
        .unwrap();
    events
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("\"hello\"") {
        let n = events.read(&mut buf).unwrap();
        assert!(n > 0);
        seen.extend_from_slice(&buf[..n]);
    }
    let ac = submit(port, &id, AC);
    let wa = submit(port, &id, WA);
    let s = judged(port, ac);
    assert_eq!(s["verdict"], "AC", "{s}");
    let tests = s["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3, "{s}");
    for t in tests {
        assert_eq!(t["verdict"], "AC");
        assert!(t["time_ms"].as_f64().unwrap() >= 0.0, "{t}");
        assert!(t["memory_kib"].as_u64().unwrap() > 0, "{t}");
    }
    assert_eq!(tests[0]["name"], "sample-1");
    assert_eq!(s["language"], "Python 3");
    assert_eq!(s["source"], AC);
    let s = judged(port, wa);
    assert_eq!(s["verdict"], "WA", "{s}");
    let tests = s["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3, "every test is judged: {s}");
    assert_eq!(tests[0]["verdict"], "AC");
    assert_eq!(tests[2]["verdict"], "WA");
    let mismatch = &tests[2]["mismatch"];
    assert_eq!(mismatch["expected"], "300", "{s}");
    assert_eq!(mismatch["found"], "-100", "{s}");
    let diff = mismatch["diff"].as_str().unwrap();
    assert!(
        diff.contains("expected 1 │ 300") && diff.contains("found 1 │ -100"),
        "{diff}"
    );
    assert!(
        tests[2]["message"]
            .as_str()
            .unwrap()
            .contains("expected `300`"),
        "{s}"
    );
    // The stream carried the engine's events with the submission's id.
    while !String::from_utf8_lossy(&seen)
        .contains(&format!("\"submission_finished\",\"submission\":{wa}"))
        && !String::from_utf8_lossy(&seen).contains(&format!("\"submission\":{wa},\"verdict\""))
    {
        let n = events.read(&mut buf).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let stream = String::from_utf8_lossy(&seen);
    let finished: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &Value| v["event"] == "test_finished" && v["submission"] == wa)
        .collect();
    assert_eq!(finished.len(), 3, "{stream}");
    assert_eq!(finished[2]["result"]["verdict"], "WA");
    drop(events);
    // The history, newest first; then again after a restart.
    let history = get(port, &format!("/api/submissions?problem={id}"));
    let ids: Vec<i64> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [wa, ac]);
    let problem = &get(port, "/api/problems")[0];
    assert_eq!(problem["submissions"], 2);
    assert_eq!(problem["solved"], true);
    assert_eq!(problem["attempts"], 0);
    server.serving.stop().expect_code(130);

    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    let again = get(port, &format!("/api/submissions?problem={id}"));
    assert_eq!(again.as_array().unwrap().len(), 2, "{again}");
    assert_eq!(again[0]["verdict"], "WA");
    assert_eq!(again[1]["verdict"], "AC");
    assert_eq!(again[0]["tests"][2]["mismatch"]["expected"], "300");
    assert_eq!(get(port, &format!("/api/submissions/{ac}"))["source"], AC);
    server.serving.stop().expect_code(130);
}

/// The most submissions judged at the same moment: each is judged from an engine taking it
/// (`started_at`) to its verdict (`finished_at`).
fn most_at_once(done: &[Value]) -> usize {
    let span = |s: &Value| {
        (
            s["started_at"].as_i64().unwrap(),
            s["finished_at"].as_i64().unwrap(),
        )
    };
    done.iter()
        .map(|s| {
            let (start, _) = span(s);
            done.iter()
                .filter(|o| {
                    let (a, b) = span(o);
                    a <= start && start < b
                })
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn three_submissions_posted_at_once_are_judged_two_at_a_time_with_the_verdicts_of_one_at_a_time() {
    // Each takes over a second a test (asleep, no CPU time), so the ones judged at once overlap.
    let sleepy = |answer: &str| {
        format!("import time\na, b = map(int, input().split())\ntime.sleep(1)\nprint({answer})\n")
    };
    let sources = [
        "while True:\n    pass\n".to_string(),
        sleepy("a + b"),
        sleepy("a - b"),
    ];
    let judge_all = |jobs: &str| -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap();
        let mut server = start(dir.path(), &["--jobs", jobs], &[]);
        let port = server.port;
        assert!(server.serving.line().starts_with("folder: "));
        let told = server.serving.line();
        let expected = match jobs {
            "1" => "judging: one submission at a time (--jobs)".to_string(),
            n => format!("judging: {n} submissions at a time (--jobs)"),
        };
        assert_eq!(told, expected);
        let mut problem = problem_json("Sum", "https://example.org/sum", None);
        // Half a second of CPU (and 2.5 s of wall time: the sleepers fit).
        problem["timeLimit"] = json!(500);
        problem["tests"].as_array_mut().unwrap().truncate(2);
        post(port, "/api/problems", problem);
        let ids: Vec<i64> = sources.iter().map(|s| submit(port, "sum", s)).collect();
        // Right after: the last one waits for an engine (each takes seconds), and no more
        // than `jobs` are being judged.
        let listed = get(port, "/api/submissions");
        let states: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["state"].as_str().unwrap())
            .collect();
        assert_eq!(states.len(), 3, "{listed}");
        assert_eq!(states[0], "queued", "the newest first: {listed}");
        let judging = states.iter().filter(|s| **s == "judging").count();
        assert!(judging <= jobs.parse().unwrap(), "{listed}");
        let done: Vec<Value> = ids.iter().map(|&id| judged(port, id)).collect();
        server.serving.stop().expect_code(130);
        done
    };
    let two = judge_all("2");
    let one = judge_all("1");
    let verdicts = |done: &[Value]| -> Vec<String> {
        done.iter()
            .map(|s| s["verdict"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(verdicts(&two), ["TLE", "AC", "WA"], "{two:#?}");
    assert_eq!(verdicts(&two), verdicts(&one));
    for s in two.iter().chain(&one) {
        assert_eq!(s["state"], "done", "{s}");
        assert_eq!(s["tests"].as_array().unwrap().len(), 2, "{s}");
    }
    assert_eq!(most_at_once(&two), 2, "two engines: {two:#?}");
    assert_eq!(most_at_once(&one), 1, "one engine: {one:#?}");
    // Beside another submission, a TLE either ran on to 1.5 × the limit (a clear TLE, which
    // stands) or, killed sooner, was judged again alone; with one engine nothing is ever beside
    // it, and it stops at the limit.
    let rejudged = |s: &Value| {
        s["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["rejudged"].is_object())
            .count()
    };
    let time = |t: &Value| t["time_ms"].as_f64().unwrap();
    for t in two[0]["tests"].as_array().unwrap() {
        assert_eq!(t["verdict"], "TLE", "{t}");
        let clear = time(t) >= 725.0 && t["rejudged"].is_null();
        let again = t["rejudged"]["verdict"] == "TLE";
        assert!(clear || again, "{t}");
    }
    for t in one[0]["tests"].as_array().unwrap() {
        assert!(time(t) < 725.0, "one engine: stopped at the limit: {t}");
    }
    assert!(one.iter().all(|s| rejudged(s) == 0), "{one:#?}");
}

#[test]
fn a_watched_file_is_judged_again_after_each_save() {
    let dir = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let file = src.path().join("sum.py");
    std::fs::write(&file, WA).unwrap();
    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    post(
        port,
        "/api/problems",
        problem_json("Sum", "https://example.org/sum", None),
    );
    let first = post(
        port,
        "/api/submissions",
        json!({"problem": "sum", "path": file}),
    );
    let first_id = first["id"].as_i64().unwrap();
    assert!(first["watch"].is_u64(), "{first}");
    let s = judged(port, first_id);
    assert_eq!(s["verdict"], "WA");
    assert_eq!(s["path"], file.display().to_string());
    // Saved with the fix: a new submission, judged at once.
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(&file, AC).unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let newer = loop {
        let history = get(port, "/api/submissions?problem=sum");
        let list = history.as_array().unwrap();
        if list.len() >= 2 {
            assert_eq!(list.len(), 2, "one save, one submission: {history}");
            break list[0]["id"].as_i64().unwrap();
        }
        assert!(
            Instant::now() < until,
            "the save was not submitted: {history}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let s = judged(port, newer);
    assert_eq!(s["verdict"], "AC", "{s}");
    assert_eq!(s["source"], AC);
    // Touching the file without changing it submits nothing.
    std::fs::write(&file, AC).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        get(port, "/api/submissions?problem=sum")
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A file that is not a source is not read, a missing one is named.
    let notes = src.path().join("notes.txt");
    std::fs::write(&notes, "secret words").unwrap();
    let a = call(
        port,
        "POST",
        "/api/submissions",
        &[BEARER],
        Some(&json!({"problem": "sum", "path": notes})),
    );
    assert_eq!(a.status, 422, "{a:?}");
    assert!(
        a.body.contains("not a source file") && !a.body.contains("secret words"),
        "{a:?}"
    );
    server.serving.stop().expect_code(130);
    // Saved while the server was down: judged when it starts again, and the watch goes on.
    std::fs::write(&file, WA).unwrap();
    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    let watches = get(port, "/api/watches");
    assert_eq!(watches.as_array().unwrap().len(), 1, "{watches}");
    assert_eq!(watches[0]["path"], file.display().to_string());
    let until = Instant::now() + Duration::from_secs(60);
    let third = loop {
        let history = get(port, "/api/submissions?problem=sum");
        if history.as_array().unwrap().len() == 3 {
            break history[0]["id"].as_i64().unwrap();
        }
        assert!(
            Instant::now() < until,
            "not submitted after the restart: {history}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(judged(port, third)["verdict"], "WA");
    // Stopped: a save makes nothing.
    let id = watches[0]["id"].as_u64().unwrap();
    let a = call(
        port,
        "DELETE",
        &format!("/api/watches/{id}"),
        &[BEARER],
        None,
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(get(port, "/api/watches"), json!([]));
    std::fs::write(&file, AC).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        get(port, "/api/submissions?problem=sum")
            .as_array()
            .unwrap()
            .len(),
        3
    );
    server.serving.stop().expect_code(130);
}

#[test]
fn without_the_token_or_from_another_site_the_api_does_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // The server reads paths as uid 65534 (as if started through sudo by that user).
    let server = start(
        dir.path(),
        &[],
        &[("SUDO_UID", "65534"), ("SUDO_GID", "65534")],
    );
    let port = server.port;
    post(
        port,
        "/api/problems",
        problem_json("Sum", "https://example.org/sum", None),
    );
    let submission = json!({"problem": "sum", "source": AC, "language": "Python 3"});
    let contest = json!({"name": "x", "problems": ["sum"], "duration_min": 10});
    let problem = problem_json("Other", "https://example.org/other", None);
    let bearer = format!("Bearer {TOKEN}");
    let host = format!("127.0.0.1:{port}");
    let cases: Vec<(u16, Vec<(&str, &str)>)> = vec![
        (401, vec![]),
        (
            401,
            vec![("Authorization", "Bearer wrong-token-0123456789abcdef")],
        ),
        (401, vec![("Cookie", "judge_token=wrong")]),
        (
            403,
            vec![("Authorization", &bearer), ("Host", "evil.example")],
        ),
        (
            403,
            vec![("Authorization", &bearer), ("Host", "127.0.0.1:1")],
        ),
        (
            403,
            vec![
                ("Authorization", &bearer),
                ("Host", &host),
                ("Origin", "https://evil.example"),
            ],
        ),
    ];
    for (status, headers) in &cases {
        for (path, body) in [
            ("/api/submissions", &submission),
            ("/api/contests", &contest),
            ("/api/problems", &problem),
        ] {
            let a = call(port, "POST", path, headers, Some(body));
            assert_eq!(a.status, *status, "POST {path} with {headers:?}: {a:?}");
        }
        let a = call(port, "GET", "/api/problems", headers, None);
        assert_eq!(a.status, *status, "GET with {headers:?}: {a:?}");
    }
    // Nothing happened.
    assert_eq!(get(port, "/api/submissions").as_array().unwrap().len(), 0);
    assert_eq!(get(port, "/api/contests").as_array().unwrap().len(), 0);
    assert_eq!(get(port, "/api/problems").as_array().unwrap().len(), 1);
    // The page's address sets the cookie, which then opens the API.
    let a = call(port, "GET", &format!("/?token={TOKEN}"), &[], None);
    assert_eq!(a.status, 303, "{a:?}");
    let cookie = a.header("set-cookie").unwrap().to_string();
    // Persistent: it survives a browser restart (a session cookie has no Max-Age/Expires).
    assert!(
        cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Strict")
            && cookie.contains("Max-Age=2592000"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    assert_eq!(
        call(port, "GET", "/api/problems", &[("Cookie", pair)], None).status,
        200
    );
    let page = call(port, "GET", "/", &[("Cookie", pair)], None);
    assert_eq!(page.status, 200);
    let policy = page.header("content-security-policy").unwrap_or_default();
    assert!(
        policy.contains("script-src 'self'") && policy.contains("default-src 'none'"),
        "{page:?}"
    );
    assert_eq!(call(port, "GET", "/", &[], None).status, 401);
    // Without the token the page's address shows how to get in, not the API's JSON; the API
    // and the page's other files still answer JSON.
    for path in ["/", "/index.html", "/?token=wrong"] {
        let locked = call(port, "GET", path, &[], None);
        assert_eq!(locked.status, 401, "{path}");
        assert_eq!(
            locked.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert!(
            locked.body.contains("This page needs its token")
                && locked.body.contains("/?token=")
                && !locked.body.contains(TOKEN),
            "{path}: {locked:?}"
        );
        let policy = locked.header("content-security-policy").unwrap_or_default();
        assert!(policy.contains("script-src 'self'"), "{locked:?}");
    }
    assert_eq!(
        call(port, "GET", "/app.js", &[], None).header("content-type"),
        Some("application/json")
    );
    // A POST without JSON, a path out of the folder, a body over the cap, garbage.
    let form = raw(port, format!("POST /api/submissions HTTP/1.1\r\nHost: {host}\r\nAuthorization: {bearer}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=b").as_bytes());
    assert_eq!(form.status, 415);
    assert_eq!(
        call(port, "GET", "/api/problems/..%2F..%2Fetc", &[BEARER], None).status,
        404
    );
    assert_eq!(
        call(port, "GET", "/api/submissions/-1", &[BEARER], None).status,
        404
    );
    let big = raw(port, format!("POST /api/problems HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n").as_bytes());
    assert_eq!(big.status, 413);
    assert_eq!(
        raw(
            port,
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"
        )
        .status,
        400
    );
    let a = call(
        port,
        "POST",
        "/api/submissions",
        &[BEARER],
        Some(&json!({"problem": "sum", "source": 5})),
    );
    assert_eq!(a.status, 400, "{a:?}");
    // A client that sends half a request holds its own connection only.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"GET /api/problems HTTP/1.1\r\nHo").unwrap();
    let started = Instant::now();
    assert_eq!(
        call(port, "GET", "/api/problems", &[BEARER], None).status,
        200
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(slow);
    // A file the user who started the server cannot read is not read, and not quoted.
    let secret_dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        secret_dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let secret = secret_dir.path().join("secret.py");
    std::fs::write(&secret, "print('root only')\n").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let a = call(
        port,
        "POST",
        "/api/submissions",
        &[BEARER],
        Some(&json!({"problem": "sum", "path": secret})),
    );
    assert_eq!(a.status, 422, "{a:?}");
    assert!(
        a.body.contains("Permission denied") && !a.body.contains("root only"),
        "{a:?}"
    );
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let a = call(
        port,
        "POST",
        "/api/submissions",
        &[BEARER],
        Some(&json!({"problem": "sum", "path": secret})),
    );
    assert_eq!(a.status, 200, "readable by all now: {a:?}");
    server.serving.stop().expect_code(130);
}

/// Without `--token` the folder keeps its token (`DIR/token`, 0600) from one start to the next;
/// `--rotate-token` replaces it, and the old one is refused from then on.
#[test]
fn the_folders_token_is_kept_between_starts_and_rotate_token_replaces_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let with = |port: u16, token: &str| {
        let bearer = format!("Bearer {token}");
        call(
            port,
            "GET",
            "/api/problems",
            &[("Authorization", &bearer)],
            None,
        )
        .status
    };
    let (server, first) = start_without_token(dir.path(), &[], &[]);
    assert_eq!(first.len(), 64, "{first}");
    let file = dir.path().join("token");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), first);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(with(server.port, &first), 200);
    server.serving.stop().expect_code(130);
    let (server, again) = start_without_token(dir.path(), &[], &[]);
    assert_eq!(again, first, "the same token after a restart");
    server.serving.stop().expect_code(130);
    let (server, rotated) = start_without_token(dir.path(), &["--rotate-token"], &[]);
    assert_ne!(rotated, first);
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), rotated);
    assert_eq!(with(server.port, &first), 401, "the old token is refused");
    let old_cookie = format!("judge_token={first}");
    let locked = call(server.port, "GET", "/", &[("Cookie", &old_cookie)], None);
    assert_eq!(locked.status, 401);
    assert!(
        locked.body.contains("This page needs its token"),
        "{locked:?}"
    );
    assert_eq!(with(server.port, &rotated), 200);
    server.serving.stop().expect_code(130);
    // Rotating and giving a token at once: refused, nothing changed.
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .args(["--rotate-token", "--token", TOKEN])
        .output()
        .expect_code(2)
        .expect_stderr_contains("--rotate-token");
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .arg("--rotate-token")
        .env("JUDGE_PRACTICE_TOKEN", TOKEN)
        .output()
        .expect_code(2)
        .expect_stderr_contains("unset JUDGE_PRACTICE_TOKEN");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), rotated);
    // A damaged token file is named, with the fix.
    std::fs::write(&file, "not a token\n").unwrap();
    judge()
        .arg("practice")
        .arg("--dir")
        .arg(dir.path())
        .args(["--port", "0", "--cc-port", "0"])
        .output()
        .expect_code(2)
        .expect_stderr_contains(&format!("{}:", file.display()))
        .expect_stderr_contains("--rotate-token");
}

/// A problem sent without samples (`tests: []`) is stored as a package that loads; it takes no
/// submission (refused, nothing recorded) until a test is added, then is judged as any other.
#[test]
fn a_problem_received_without_samples_is_kept_and_judged_once_it_has_a_test() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    let mut bare = problem_json("Sum", "https://example.org/sum", None);
    bare["tests"] = json!([]);
    let a = cc_post(server.cc_port, &bare);
    assert_eq!(a.status, 200, "{a:?}");
    let until = Instant::now() + Duration::from_secs(30);
    let problem = loop {
        let list = get(port, "/api/problems");
        if let Some(p) = list.as_array().unwrap().first() {
            break p.clone();
        }
        assert!(Instant::now() < until, "not stored");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(problem["id"], "sum", "{problem}");
    assert!(
        problem["error"].is_null(),
        "a package that loads: {problem}"
    );
    assert_eq!(problem["tests"], 0, "{problem}");
    assert_eq!(problem["needs_tests"], true, "{problem}");
    assert_eq!(problem["time_limit_ms"], 1500, "{problem}");
    let refused = call(
        port,
        "POST",
        "/api/submissions",
        &[BEARER],
        Some(&json!({"problem": "sum", "source": AC, "language": "Python 3"})),
    );
    assert_eq!(refused.status, 409, "{refused:?}");
    assert!(
        refused.body.contains("has no tests yet")
            && refused.body.contains("/api/problems/sum/tests"),
        "{refused:?}"
    );
    assert_eq!(get(port, "/api/submissions").as_array().unwrap().len(), 0);
    post(
        port,
        "/api/problems/sum/tests",
        json!({"input": "2 2\n", "output": "4\n"}),
    );
    let problem = get(port, "/api/problems/sum");
    assert_eq!(problem["tests"], 1, "{problem}");
    assert_eq!(problem["needs_tests"], false, "{problem}");
    let s = judged(port, submit(port, "sum", AC));
    assert_eq!(s["verdict"], "AC", "{s}");
    let s = judged(port, submit(port, "sum", CE));
    assert_eq!(s["verdict"], "CE", "{s}");
    server.serving.stop().expect_code(130);
    // On disk: a native package `judge run` takes.
    let package = dir.path().join("problems/sum");
    let solution = dir.path().join("sum.py");
    std::fs::write(&solution, AC).unwrap();
    judge()
        .arg("run")
        .arg(&package)
        .arg(&solution)
        .output()
        .expect_code(0);
}

/// A zip of `files` (deflated), as an archiver makes it.
fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
    use std::io::Write;
    let mut bytes = Vec::new();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(&mut bytes));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in files {
        w.start_file(*name, deflated).unwrap();
        w.write_all(text.as_bytes()).unwrap();
    }
    w.finish().unwrap();
    bytes
}

/// Tests imported from a folder and from a zip by their path (read as the user who started the
/// server), all or none, and judged with the others.
#[test]
fn tests_are_imported_from_a_folder_or_a_zip_all_or_none() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The server reads paths as uid 65534 (as if started through sudo by that user).
    let server = start(
        dir.path(),
        &[],
        &[("SUDO_UID", "65534"), ("SUDO_GID", "65534")],
    );
    let port = server.port;
    post(
        port,
        "/api/problems",
        problem_json("Sum", "https://example.org/sum", None),
    );
    let files = tempfile::tempdir().unwrap();
    std::fs::set_permissions(files.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let folder = files.path().join("tests");
    std::fs::create_dir(&folder).unwrap();
    for (name, text) in [
        ("1.in", "5 6\n"),
        ("1.ans", "11\n"),
        ("10.in", "7 7\n"),
        ("10.out", "14\n"),
        ("notes.txt", "from the editorial\n"),
    ] {
        std::fs::write(folder.join(name), text).unwrap();
    }
    let import = |body: Value| {
        call(
            port,
            "POST",
            "/api/problems/sum/tests/import",
            &[BEARER],
            Some(&body),
        )
    };
    let a = import(json!({"path": folder}));
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(
        a.json(),
        json!({"added": [{"from": "1", "name": "custom-1"}, {"from": "10", "name": "custom-2"}],
            "skipped": ["notes.txt"]})
    );
    let zip = files.path().join("more.zip");
    std::fs::write(
        &zip,
        zip_of(&[("more/3.in", "1 1\n"), ("more/3.ans", "2\n")]),
    )
    .unwrap();
    let a = import(json!({"path": zip}));
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(
        a.json()["added"],
        json!([{"from": "more/3", "name": "custom-3"}])
    );
    let problem = get(port, "/api/problems/sum");
    assert_eq!(
        problem["tests"], 6,
        "three samples and three imported: {problem}"
    );
    let own: Vec<(&str, &str)> = problem["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["custom"] == true)
        .map(|t| (t["input"].as_str().unwrap(), t["output"].as_str().unwrap()))
        .collect();
    assert_eq!(
        own,
        [("5 6\n", "11\n"), ("7 7\n", "14\n"), ("1 1\n", "2\n")]
    );
    // A lone input: refused, nothing added; a folder the user may not read: refused, unread.
    std::fs::write(folder.join("4.in"), "4 4\n").unwrap();
    let a = import(json!({"path": folder}));
    assert_eq!(a.status, 422, "{a:?}");
    assert!(a.body.contains("4.in has no answer"), "{a:?}");
    std::fs::remove_file(folder.join("4.in")).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let a = import(json!({"path": folder}));
    assert_eq!(a.status, 422, "{a:?}");
    assert!(a.body.contains("Permission denied"), "{a:?}");
    let a = import(json!({"path": "relative/tests"}));
    assert_eq!(a.status, 400, "{a:?}");
    let a = import(json!({"zip": "not base64!"}));
    assert_eq!(a.status, 400, "{a:?}");
    assert_eq!(get(port, "/api/problems/sum")["tests"], 6);
    // Judged with the others: a solution right on the samples only fails an imported test.
    let s = judged(port, submit(port, "sum", WA));
    let verdicts: Vec<(&str, &str)> = s["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["verdict"].as_str().unwrap()))
        .collect();
    assert!(verdicts.contains(&("custom-3", "AC")), "{s}");
    assert!(verdicts.contains(&("sample-3", "WA")), "{s}");
    assert_eq!(judged(port, submit(port, "sum", AC))["verdict"], "AC");
    server.serving.stop().expect_code(130);
}

#[test]
fn a_scripted_contest_gets_icpc_solved_counts_and_penalty() {
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    let t0: i64 = 1_800_000_000_000;
    let at =
        |minute: i64| std::fs::write(&clock, (t0 + minute * 60_000 + 5_000).to_string()).unwrap();
    at(0);
    let server = start(dir.path(), &["--clock-file", clock.to_str().unwrap()], &[]);
    let port = server.port;
    for name in ["Alpha", "Beta", "Gamma"] {
        post(
            port,
            "/api/problems",
            problem_json(name, &format!("https://example.org/{name}"), None),
        );
    }
    std::fs::write(&clock, t0.to_string()).unwrap();
    let contest = post(
        port,
        "/api/contests",
        json!({"name": "Scripted", "problems": ["alpha", "beta", "gamma"], "duration_min": 300, "freeze_min": 60}),
    )["id"]
        .as_i64()
        .unwrap();
    // alpha: WA at 5, CE at 9 (free), AC at 17 → 17 + 20 = 37.
    // beta: WA at 30, WA at 41, AC at 62 → 62 + 40 = 102.
    // gamma: WA at 100, then AC at 250 during the freeze: hidden until the end.
    let script = [
        (5, "alpha", WA, "WA"),
        (9, "alpha", CE, "CE"),
        (17, "alpha", AC, "AC"),
        (30, "beta", WA, "WA"),
        (41, "beta", WA, "WA"),
        (62, "beta", AC, "AC"),
        (100, "gamma", WA, "WA"),
        (250, "gamma", AC, "AC"),
    ];
    for (minute, problem, source, verdict) in script {
        at(minute);
        let id = submit(port, problem, source);
        assert_eq!(
            judged(port, id)["verdict"],
            verdict,
            "{problem} at {minute}"
        );
    }
    at(260);
    let board = get(port, &format!("/api/contests/{contest}/scoreboard"));
    assert_eq!(board["state"], "frozen", "{board}");
    assert_eq!(board["solved"], 2, "{board}");
    assert_eq!(board["penalty"], 37 + 102, "{board}");
    let cells = board["problems"].as_array().unwrap();
    assert_eq!(cells[0]["time_min"], 17);
    assert_eq!(cells[0]["rejected"], 1);
    assert_eq!(cells[1]["rejected"], 2);
    assert_eq!(cells[1]["penalty"], 102);
    assert_eq!(cells[2]["solved"], false);
    assert_eq!(cells[2]["rejected"], 1);
    assert_eq!(cells[2]["frozen"], 1);
    // After the end the freeze lifts: gamma 250 + 20.
    at(301);
    let board = get(port, &format!("/api/contests/{contest}/scoreboard"));
    assert_eq!(board["state"], "over", "{board}");
    assert_eq!(board["solved"], 3, "{board}");
    assert_eq!(board["penalty"], 37 + 102 + 270, "{board}");
    // A submission after the end does not count.
    let late = submit(port, "alpha", WA);
    judged(port, late);
    let board = get(port, &format!("/api/contests/{contest}/scoreboard"));
    assert_eq!(board["penalty"], 37 + 102 + 270, "{board}");
    server.serving.stop().expect_code(130);
}

#[test]
fn stress_finds_a_counterexample_that_becomes_a_test_of_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[], &[]);
    let port = server.port;
    post(
        port,
        "/api/problems",
        problem_json("Sum", "https://example.org/sum", None),
    );
    let gen = "import random, sys\nr = random.Random(int(sys.argv[1]))\nn = int(sys.argv[2]) if len(sys.argv) > 2 else 100\nprint(r.randint(0, 10 * n), r.randint(0, 10 * n))\n";
    let found = post(
        port,
        "/api/stress",
        json!({
            "problem": "sum",
            "source": WA,
            "language": "Python 3",
            "generator": {"source": gen, "language": "Python 3"},
            "brute": {"source": AC, "language": "Python 3"},
            "seconds": 60,
        }),
    );
    assert_eq!(found["state"], "done", "{found}");
    let c = &found["found"];
    assert_eq!(c["verdict"], "WA", "{found}");
    let input = c["input"].as_str().unwrap();
    let answer = c["answer"].as_str().unwrap();
    let a: i64 = input.split_whitespace().next().unwrap().parse().unwrap();
    assert!(a >= 50, "only inputs with a >= 50 fail: {input:?}");
    assert_eq!(
        get(port, &format!("/api/stress/{}", found["id"]))["state"],
        "done"
    );
    // Added as a test of the user's: the problem has 4 tests, and the WA solution fails it.
    let name = post(
        port,
        "/api/problems/sum/tests",
        json!({"input": input, "output": answer}),
    )["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(name, "custom-1");
    let detail = get(port, "/api/problems/sum");
    assert_eq!(detail["tests"], 4, "{detail}");
    assert_eq!(detail["samples"][3]["custom"], true, "{detail}");
    let s = judged(port, submit(port, "sum", WA));
    assert_eq!(s["tests"][3]["name"], "custom-1", "{s}");
    assert_eq!(s["tests"][3]["verdict"], "WA", "{s}");
    // Only the user's own tests can be removed.
    assert_eq!(
        call(
            port,
            "DELETE",
            "/api/problems/sum/tests/sample-1",
            &[BEARER],
            None
        )
        .status,
        404
    );
    assert_eq!(
        call(
            port,
            "DELETE",
            "/api/problems/sum/tests/custom-1",
            &[BEARER],
            None
        )
        .status,
        200
    );
    assert_eq!(get(port, "/api/problems/sum")["tests"], 3);
    server.serving.stop().expect_code(130);
}
