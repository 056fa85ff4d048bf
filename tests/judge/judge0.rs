//! The Judge0-compatible API (`/judge0/` on `judge serve`) as Judge0 clients meet it: a real
//! server on a free 127.0.0.1 port over a throwaway PostgreSQL, real `judge worker`s judging
//! what it queues, the requests and answers the Judge0 CE documentation gives, a callback
//! received on a loopback listener, and the official Python client (`judge0` from PyPI) with
//! only its base URL and auth header changed. Every wait polls with a deadline.

use crate::chaos::Worker;
use judge_service::db::{Engine, Sql};
use serde_json::{json, Value};
use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(180);
const ORGANISER: &str = "organiser-token-judge0-0123";
const ALICE: &str = "submitter-token-judge0-alice";

/// A `judge serve` process and the address it took.
struct Server {
    child: Child,
    addr: String,
    _tokens: tempfile::NamedTempFile,
}

/// How a request authenticates.
#[derive(Clone, Copy)]
enum Auth<'a> {
    None,
    /// Judge0's header.
    Judge0(&'a str),
    /// Ours.
    Bearer(&'a str),
}

impl Server {
    fn start(url: &str) -> Server {
        let mut tokens = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            tokens,
            "organiser {ORGANISER} jury\nsubmitter {ALICE} alice"
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(["serve", "--db", url, "--listen", "127.0.0.1:0", "--tokens"])
            .arg(tokens.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let addr = crate::serve::listening_address(&mut child);
        Server {
            child,
            addr,
            _tokens: tokens,
        }
    }

    /// One request; the status and the body as JSON (Null when empty).
    fn request(&self, method: &str, path: &str, auth: Auth<'_>, body: &str) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        let auth = match auth {
            Auth::None => String::new(),
            Auth::Judge0(t) => format!("X-Auth-Token: {t}\r\n"),
            Auth::Bearer(t) => format!("Authorization: Bearer {t}\r\n"),
        };
        write!(
            stream,
            "{method} /judge0{path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        crate::serve::http_answer(&answer)
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.request("GET", path, Auth::Judge0(ORGANISER), "")
    }

    /// `POST /submissions` with `query`; the token.
    fn submit(&self, query: &str, body: Value) -> String {
        let (status, answer) = self.request(
            "POST",
            &format!("/submissions{query}"),
            Auth::Judge0(ORGANISER),
            &body.to_string(),
        );
        assert_eq!(status, 201, "{body}: {answer}");
        answer["token"].as_str().unwrap().to_string()
    }

    /// Polls the submission (every field) until its status is past Processing.
    fn wait_done(&self, token: &str) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let (status, body) = self.get(&format!("/submissions/{token}?fields=*"));
            assert_eq!(status, 200, "{body}");
            if body["status"]["id"].as_i64().unwrap() > 2 {
                return body;
            }
            assert!(
                Instant::now() < deadline,
                "submission {token} not done in {DEADLINE:?}: {body}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The status id and description, and the fields a test names.
fn status(s: &Value) -> (i64, &str) {
    (
        s["status"]["id"].as_i64().unwrap(),
        s["status"]["description"].as_str().unwrap(),
    )
}

#[test]
fn judge0_endpoints_answer_in_judge0_shapes_and_refuse_as_judge0_does() {
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);

    // Authentication: X-Auth-Token or our Bearer; none or a wrong one is 401.
    let (code, body) = server.request("GET", "/languages", Auth::None, "");
    assert_eq!(code, 401, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("X-Auth-Token"),
        "{body}"
    );
    let (code, _) = server.request("GET", "/languages", Auth::Judge0("not-a-token-at-all"), "");
    assert_eq!(code, 401);
    let (code, _) = server.request("POST", "/submissions", Auth::None, "{}");
    assert_eq!(code, 401);
    let (code, _) = server.request("POST", "/authenticate", Auth::Judge0(ORGANISER), "");
    assert_eq!(code, 200);

    let (code, langs) = server.request("GET", "/languages", Auth::Bearer(ALICE), "");
    assert_eq!(code, 200, "{langs}");
    let ids: Vec<i64> = langs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect();
    for id in [50, 54, 62, 71] {
        assert!(ids.contains(&id), "{id} in {langs}");
    }
    assert!(langs
        .as_array()
        .unwrap()
        .contains(&json!({"id": 50, "name": "C (GCC 9.2.0)"})));
    let (code, python) = server.get("/languages/71");
    assert_eq!(code, 200);
    assert_eq!(python["name"], "Python (3.8.1)");
    assert_eq!(python["source_file"], "script.py");
    assert!(
        python["run_cmd"].as_str().unwrap().contains("python3"),
        "{python}"
    );
    let (code, body) = server.get("/languages/9999");
    assert_eq!(code, 404, "{body}");
    assert!(body["error"].is_string());

    let (code, statuses) = server.get("/statuses");
    assert_eq!(code, 200);
    let statuses = statuses.as_array().unwrap();
    assert_eq!(statuses.len(), 14);
    assert_eq!(statuses[0], json!({"id": 1, "description": "In Queue"}));
    assert_eq!(
        statuses[5],
        json!({"id": 6, "description": "Compilation Error"})
    );
    assert_eq!(
        statuses[10],
        json!({"id": 11, "description": "Runtime Error (NZEC)"})
    );
    assert_eq!(
        statuses[13],
        json!({"id": 14, "description": "Exec Format Error"})
    );

    let (code, about) = server.get("/about");
    assert_eq!(code, 200);
    assert_eq!(about["version"], "1.13.1");
    let (code, config) = server.get("/config_info");
    assert_eq!(code, 200);
    assert_eq!(config["cpu_time_limit"], json!(2));
    assert_eq!(config["max_cpu_time_limit"], json!(15));
    assert_eq!(config["memory_limit"], json!(128000));
    assert_eq!(config["max_memory_limit"], json!(256000));
    assert_eq!(config["max_submission_batch_size"], json!(20));

    // Validation errors: 422 with field → messages; nothing is stored.
    let (code, body) = server.request(
        "POST",
        "/submissions",
        Auth::Judge0(ORGANISER),
        &json!({"source_code": "print(1)"}).to_string(),
    );
    assert_eq!(code, 422, "{body}");
    assert_eq!(body, json!({"language_id": ["can't be blank"]}));
    let (code, body) = server.request(
        "POST",
        "/submissions",
        Auth::Judge0(ORGANISER),
        &json!({"source_code": "x", "language_id": 71, "memory_limit": 999999999,
                "wall_time_limit": 0.5, "cpu_time_limit": 1})
        .to_string(),
    );
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["memory_limit"],
        json!(["must be less than or equal to 256000"])
    );
    assert!(body["wall_time_limit"][0]
        .as_str()
        .unwrap()
        .contains("cpu_time_limit"));
    let (code, body) = server.request("POST", "/submissions", Auth::Judge0(ORGANISER), "not json");
    assert_eq!(code, 400, "{body}");
    let (code, body) = server.get("/submissions/00000000-0000-4000-8000-000000000000");
    assert_eq!(code, 404, "{body}");
    assert!(body["error"].as_str().unwrap().contains("no submission"));
    let mut client = judge_service::connect(&url).unwrap();
    let stored: i64 = client
        .query_one("SELECT count(*) FROM judge0_submissions", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored, 0, "a refused submission stores nothing");

    // With no worker, the queue fills: past max_queue_size a create is a 503 storing nothing.
    let one = json!({"language_id": 71, "source_code": "print(1)"});
    let batch = json!({ "submissions": vec![one.clone(); 20] }).to_string();
    for _ in 0..5 {
        let (code, body) = server.request(
            "POST",
            "/submissions/batch",
            Auth::Judge0(ORGANISER),
            &batch,
        );
        assert_eq!(code, 201, "{body}");
        assert_eq!(body.as_array().unwrap().len(), 20);
    }
    let (code, body) = server.request(
        "POST",
        "/submissions",
        Auth::Judge0(ORGANISER),
        &one.to_string(),
    );
    assert_eq!(code, 503, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("queue is full"),
        "{body}"
    );
    let stored: i64 = client
        .query_one("SELECT count(*) FROM judge0_submissions", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored, 100);
}

#[test_case::test_case(Engine::Postgres; "postgres")]
#[test_case::test_case(Engine::Sqlite; "sqlite")]
fn judge0_submissions_are_judged_by_workers_with_judge0_statuses_and_outputs(engine: Engine) {
    let (url, _dir) = crate::serve::database_on(engine);
    // On SQLite the server's own slots judge (one per CPU).
    let server = Server::start(&url);
    let _workers: Vec<Worker> = match engine {
        Engine::Postgres => vec![
            Worker::start(&url, "a", "10"),
            Worker::start(&url, "b", "10"),
        ],
        Engine::Sqlite => Vec::new(),
    };

    // A callback receiver on loopback.
    let callbacks = TcpListener::bind("127.0.0.1:0").unwrap();
    let callback_url = format!("http://{}/done?x=1", callbacks.local_addr().unwrap());

    let c_hello = "#include <stdio.h>\nint main(void) { printf(\"hello, world\\n\"); return 0; }\n";
    let cases: Vec<(&str, Value)> = vec![
        ("c", json!({"language_id": 50, "source_code": c_hello})),
        (
            "cpp",
            json!({"language_id": 54, "source_code": "#include <iostream>\nint main() { std::cout << \"hello, world\" << std::endl; }\n"}),
        ),
        (
            "echo",
            json!({"language_id": 71, "source_code": "import sys\nsys.stdout.write(sys.stdin.read())\n",
                   "stdin": "abc 42\nline two\n", "callback_url": callback_url}),
        ),
        (
            "wrong",
            json!({"language_id": 71, "source_code": "print(1)", "expected_output": "2\n"}),
        ),
        (
            "right",
            json!({"language_id": 71, "source_code": "print(3)", "expected_output": "3"}),
        ),
        (
            "tle",
            json!({"language_id": 71, "source_code": "while True:\n    pass\n",
                   "cpu_time_limit": 0.5, "wall_time_limit": 3}),
        ),
        (
            "ce",
            json!({"language_id": 50, "source_code": "int main( {\n"}),
        ),
        (
            "nzec",
            json!({"language_id": 71, "source_code": "import sys\nprint('bye')\nsys.exit(3)\n"}),
        ),
        (
            "long",
            json!({"language_id": 71, "source_code": "print('x' * 10000)", "max_file_size": 64}),
        ),
        (
            "segv",
            json!({"language_id": 50, "source_code": "int main(void) { volatile int *p = 0; *p = 1; return 0; }\n"}),
        ),
    ];
    let tokens: Vec<(&str, String)> = cases
        .iter()
        .map(|(name, body)| (*name, server.submit("", body.clone())))
        .collect();
    // base64: the source and stdin encoded, the answers encoded when asked.
    let b64 = server.submit(
        "?base64_encoded=true",
        json!({"language_id": 71,
               "source_code": judge_service::judge0::encode_base64(b"print(input()[::-1])\n"),
               "stdin": judge_service::judge0::encode_base64(b"stressed\n")}),
    );

    let done: std::collections::HashMap<&str, Value> = tokens
        .iter()
        .map(|(name, token)| (*name, server.wait_done(token)))
        .collect();
    let c = &done["c"];
    assert_eq!(status(c), (3, "Accepted"), "{c:#}");
    assert_eq!(c["stdout"], "hello, world\n");
    assert_eq!(c["exit_code"], 0);
    assert_eq!(c["exit_signal"], Value::Null);
    assert_eq!(c["language_id"], 50);
    assert_eq!(c["cpu_time_limit"], json!(2));
    assert_eq!(c["memory_limit"], json!(128000));
    let time: f64 = c["time"].as_str().unwrap().parse().unwrap();
    assert!((0.0..2.0).contains(&time), "{c:#}");
    let wall: f64 = c["wall_time"].as_str().unwrap().parse().unwrap();
    assert!(wall >= 0.0, "{c:#}");
    assert!(c["memory"].as_i64().unwrap() > 0, "{c:#}");
    assert!(c["created_at"].as_str().unwrap().ends_with('Z'), "{c:#}");
    assert!(c["finished_at"].is_string(), "{c:#}");
    assert_eq!(c["token"], tokens[0].1);
    assert_eq!(status(&done["cpp"]).0, 3, "{:#}", done["cpp"]);
    assert_eq!(done["cpp"]["stdout"], "hello, world\n");
    let echo = &done["echo"];
    assert_eq!(status(echo).0, 3, "{echo:#}");
    assert_eq!(echo["stdout"], "abc 42\nline two\n");
    assert_eq!(echo["stdin"], "abc 42\nline two\n");
    assert_eq!(status(&done["wrong"]), (4, "Wrong Answer"));
    assert_eq!(done["wrong"]["stdout"], "1\n");
    assert_eq!(status(&done["right"]), (3, "Accepted"));
    assert_eq!(status(&done["tle"]), (5, "Time Limit Exceeded"));
    let ce = &done["ce"];
    assert_eq!(status(ce), (6, "Compilation Error"), "{ce:#}");
    assert!(
        ce["compile_output"].as_str().unwrap().contains("error"),
        "{ce:#}"
    );
    assert_eq!(ce["stdout"], Value::Null);
    assert_eq!(ce["time"], Value::Null);
    let nzec = &done["nzec"];
    assert_eq!(status(nzec), (11, "Runtime Error (NZEC)"), "{nzec:#}");
    assert_eq!(nzec["exit_code"], 3);
    assert_eq!(nzec["stdout"], "bye\n");
    // The whole output comes back (past the 4 KiB a test result keeps elsewhere).
    let long = &done["long"];
    assert_eq!(status(long).0, 3, "{long:#}");
    let stdout = long["stdout"].as_str().unwrap();
    assert_eq!(stdout.len(), 10001, "the output was cut");
    assert_eq!(stdout, format!("{}\n", "x".repeat(10000)));
    let segv = &done["segv"];
    assert_eq!(status(segv), (7, "Runtime Error (SIGSEGV)"), "{segv:#}");
    assert_eq!(segv["exit_signal"], 11);

    // base64: encoded when asked, plain otherwise.
    let decoded = server.wait_done(&b64);
    assert_eq!(decoded["stdout"], "desserts\n");
    let (_, encoded) = server.get(&format!(
        "/submissions/{b64}?base64_encoded=true&fields=stdout,stdin,source_code"
    ));
    assert_eq!(
        encoded,
        json!({
            "stdout": judge_service::judge0::encode_base64(b"desserts\n"),
            "stdin": judge_service::judge0::encode_base64(b"stressed\n"),
            "source_code": judge_service::judge0::encode_base64(b"print(input()[::-1])\n"),
        })
    );

    // fields: the defaults, the named ones only, all, or a 400 naming the unknown.
    let token = &tokens[0].1;
    let (_, default) = server.get(&format!("/submissions/{token}"));
    let mut keys: Vec<&str> = default
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "compile_output",
            "memory",
            "message",
            "status",
            "stderr",
            "stdout",
            "time",
            "token"
        ]
    );
    let (_, two) = server.get(&format!("/submissions/{token}?fields=stdout,status_id"));
    assert_eq!(two, json!({"stdout": "hello, world\n", "status_id": 3}));
    let (code, body) = server.get(&format!("/submissions/{token}?fields=stdout,bogus"));
    assert_eq!(code, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("bogus"));

    // wait=true answers the judged submission.
    let (code, waited) = server.request(
        "POST",
        "/submissions?wait=true",
        Auth::Judge0(ORGANISER),
        &json!({"language_id": 71, "source_code": "print(6 * 7)"}).to_string(),
    );
    assert_eq!(code, 201, "{waited}");
    assert_eq!(status(&waited).0, 3, "{waited}");
    assert_eq!(waited["stdout"], "42\n");

    // A batch: one token or one error object per submission, in order.
    let (code, batch) = server.request(
        "POST",
        "/submissions/batch",
        Auth::Judge0(ORGANISER),
        &json!({"submissions": [
            {"language_id": 71, "source_code": "print('a')"},
            {"source_code": "print('b')"},
            {"language_id": 71, "source_code": "print('c')"},
        ]})
        .to_string(),
    );
    assert_eq!(code, 201, "{batch}");
    assert_eq!(batch[1], json!({"language_id": ["can't be blank"]}));
    let (first, third) = (
        batch[0]["token"].as_str().unwrap(),
        batch[2]["token"].as_str().unwrap(),
    );
    server.wait_done(first);
    server.wait_done(third);
    let (code, read) = server.get(&format!(
        "/submissions/batch?tokens={first},00000000-0000-4000-8000-000000000000,{third}&fields=stdout,status_id"
    ));
    assert_eq!(code, 200, "{read}");
    assert_eq!(
        read,
        json!({"submissions": [
            {"stdout": "a\n", "status_id": 3},
            null,
            {"stdout": "c\n", "status_id": 3},
        ]})
    );

    // A submitter cannot read the jury's submissions by token.
    let (code, _) = server.request(
        "GET",
        &format!("/submissions/{token}"),
        Auth::Judge0(ALICE),
        "",
    );
    assert_eq!(code, 404);

    // The callback: PUT to callback_url with the judged submission.
    callbacks.set_nonblocking(false).unwrap();
    let (mut conn, _) = callbacks.accept().unwrap();
    conn.set_read_timeout(Some(DEADLINE)).unwrap();
    let mut reader = std::io::BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert_eq!(line, "PUT /done?x=1 HTTP/1.1\r\n");
    let mut length = 0;
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        if h == "\r\n" {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    let sent: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(sent["token"], tokens[2].1);
    assert_eq!(sent["status"]["id"], 3);
    assert_eq!(sent["stdout"], "abc 42\nline two\n");
}

/// The Python interpreter with the official client (`pip install judge0`): `JUDGE0_PYTHON`,
/// else the venv `.ci/run` makes under target/.
fn judge0_python() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("JUDGE0_PYTHON") {
        return p.into();
    }
    let venv = crate::harness::root().join("target/judge0-venv/bin/python3");
    assert!(
        venv.exists(),
        "the Judge0 Python client is not installed\n  hint: python3 -m venv target/judge0-venv && target/judge0-venv/bin/pip install judge0==0.0.8 (.ci/run does it), or set JUDGE0_PYTHON"
    );
    venv
}

#[test]
fn the_official_judge0_python_client_runs_code_with_only_its_base_url_changed() {
    let python = judge0_python();
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);
    let _a = Worker::start(&url, "a", "10");
    let script = crate::harness::root().join("tests/judge0_client.py");
    let out = Command::new(python)
        .arg(&script)
        .env(
            "JUDGE0_CE_ENDPOINT",
            format!("http://{}/judge0", server.addr),
        )
        .env(
            "JUDGE0_CE_AUTH_HEADERS",
            json!({"X-Auth-Token": ORGANISER}).to_string(),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "Accepted hello from python\nAccepted hello, world\nWrong Answer 1\nAccepted 3\nCompilation Error\nok\n",
        "{stderr}"
    );
}

/// Beyond Judge0, opt in: `"problem": NAME` judges the source against that problem's tests
/// with its checker, under its limits; the status is its verdict's.
#[test]
fn a_judge0_submission_naming_a_problem_is_judged_on_its_tests_with_its_checker() {
    use crate::serve::{sum_package, upload, Judged, ORGANISER};
    let server = Judged::start(Engine::Sqlite, &["a"]);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let post = |body: Value| {
        server.request(
            "POST",
            "/judge0/submissions?wait=true&fields=status,stdout,token",
            Some(ORGANISER),
            "application/json",
            body.to_string().as_bytes(),
        )
    };
    let source = |file: &str| std::fs::read_to_string(crate::harness::program(file)).unwrap();
    let (code, ac) =
        post(json!({"language_id": 50, "source_code": source("ac.c"), "problem": "sum"}));
    assert_eq!((code, status(&ac)), (201, (3, "Accepted")), "{ac}");
    let (code, wa) =
        post(json!({"language_id": 50, "source_code": source("wa.c"), "problem": "sum"}));
    assert_eq!((code, status(&wa)), (201, (4, "Wrong Answer")), "{wa}");
    // Our own API shows them as submissions of the problem, every test judged.
    let token = ac["token"].as_str().unwrap();
    let (_, listed) = server.get("/api/v1/submissions?problem=sum", Some(ORGANISER));
    assert_eq!(
        listed["submissions"].as_array().unwrap().len(),
        2,
        "{listed} ({token})"
    );

    let (code, refused) =
        post(json!({"language_id": 50, "source_code": "x", "problem": "sum", "stdin": "1"}));
    assert_eq!(code, 422, "{refused}");
    assert!(
        refused["stdin"][0]
            .as_str()
            .unwrap()
            .contains("cannot be given with problem"),
        "{refused}"
    );
    let (code, refused) = post(json!({"language_id": 50, "source_code": "x", "problem": "nope"}));
    assert_eq!(code, 404, "{refused}");
}
