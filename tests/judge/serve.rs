//! `judge serve`, the service's HTTP API, as a client meets it: a real server process on a
//! free 127.0.0.1 port over a throwaway PostgreSQL, real `judge worker` processes judging
//! what it queues, and hostile requests that must get a 4xx with the reason and store
//! nothing. Every wait polls with a deadline.

use crate::chaos::Worker;
use crate::harness::{fixture_problem, judge, program};
use judge_service::db::{Engine, Sql};
use serde_json::{json, Value};
use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const DEADLINE: Duration = Duration::from_secs(90);
pub(crate) const ORGANISER: &str = "organiser-token-0123456789";
pub(crate) const ALICE: &str = "submitter-token-alice-0123";
const BOB: &str = "submitter-token-bob-012345";

/// An HTTP/1.1 answer read to its end: its status and its body as JSON (Null when empty).
pub(crate) fn http_answer(answer: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"))
    };
    (status, body)
}

/// Waits up to `deadline` for a line from `lines` (the stderr of the process `name`)
/// containing `text`; returns it, or fails with every line seen.
pub(crate) fn wait_for_line(
    lines: &std::sync::mpsc::Receiver<String>,
    name: &str,
    text: &str,
    deadline: Duration,
) -> String {
    let end = Instant::now() + deadline;
    let mut seen = Vec::new();
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(text) => return line,
            Ok(line) => seen.push(line),
            Err(_) => panic!(
                "{name} printed no line with {text:?} in {deadline:?}; it printed:\n{}",
                seen.join("\n")
            ),
        }
    }
}

/// A process's stderr, line by line, read on a thread of its own.
pub(crate) fn stderr_lines(stderr: std::process::ChildStderr) -> std::sync::mpsc::Receiver<String> {
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The address a `judge serve` child prints ("listening on http://ADDR"; the lines before it
/// are skipped); the rest of its stderr is read and dropped.
pub(crate) fn listening_address(child: &mut Child) -> String {
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut before = Vec::new();
    let addr = loop {
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(
            !line.is_empty(),
            "judge serve ended its stderr before listening:\n{}",
            before.join("")
        );
        match line.trim().strip_prefix("listening on http://") {
            Some(addr) => break addr.to_string(),
            None => before.push(line),
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    addr
}

/// A database of its own on `engine`: PostgreSQL's throwaway server, or a SQLite file in a
/// folder removed with the returned guard.
pub(crate) fn database_on(engine: Engine) -> (String, Option<tempfile::TempDir>) {
    match engine {
        Engine::Postgres => (
            judge_service::testdb::shared()
                .expect("a throwaway PostgreSQL (apt-get install postgresql)"),
            None,
        ),
        Engine::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite:{}", dir.path().join("judge.sqlite").display());
            (url, Some(dir))
        }
    }
}

/// A server whose submissions are judged: on PostgreSQL by `judge worker` processes (one per
/// name), on SQLite by as many slots in the server's own process.
pub(crate) struct Judged {
    pub(crate) server: Server,
    _workers: Vec<Worker>,
    _dir: Option<tempfile::TempDir>,
}

impl Judged {
    pub(crate) fn start(engine: Engine, workers: &[&str]) -> Judged {
        let (url, dir) = database_on(engine);
        let (server, workers) = match engine {
            Engine::Postgres => (
                Server::start(&url),
                workers
                    .iter()
                    .map(|name| Worker::start(&url, name, "10"))
                    .collect(),
            ),
            Engine::Sqlite => {
                let n = workers.len().to_string();
                let options: [&std::ffi::OsStr; 2] = ["--workers".as_ref(), n.as_ref()];
                (Server::start_with(&url, &options), Vec::new())
            }
        };
        Judged {
            server,
            _workers: workers,
            _dir: dir,
        }
    }
}

impl std::ops::Deref for Judged {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

/// A `judge serve` process and the address it took.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: String,
    lines: std::sync::mpsc::Receiver<String>,
    _tokens: tempfile::NamedTempFile,
}

impl Server {
    pub(crate) fn start(url: &str) -> Server {
        Server::start_with(url, &[])
    }

    /// With more options of `judge serve` (`--problems DIR`, `--pin-digest D`).
    pub(crate) fn start_with(url: &str, options: &[&std::ffi::OsStr]) -> Server {
        let mut tokens = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            tokens,
            "# the jury\norganiser {ORGANISER} jury\nsubmitter {ALICE} alice\nsubmitter {BOB} bob"
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(["serve", "--db", url, "--listen", "127.0.0.1:0", "--tokens"])
            .arg(tokens.path())
            .args(options)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A line names the port (lines before it, e.g. of `--problems`, are kept); a server
        // that fails to start ends its stderr.
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        let addr = loop {
            let mut line = String::new();
            stderr.read_line(&mut line).unwrap();
            assert!(
                !line.is_empty(),
                "judge serve ended its stderr before listening"
            );
            match line.trim().strip_prefix("listening on http://") {
                Some(addr) => break addr.to_string(),
                None => tx.send(line.trim_end().to_string()).unwrap(),
            }
        };
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            addr,
            lines,
            _tokens: tokens,
        }
    }

    /// The lines of its stderr not read yet (for a failure's message).
    pub(crate) fn rest(&self) -> String {
        std::thread::sleep(Duration::from_millis(200));
        self.lines.try_iter().collect::<Vec<_>>().join("\n")
    }

    /// Waits for a line of the server's stderr containing `text`; returns it.
    pub(crate) fn wait_line(&self, text: &str) -> String {
        crate::serve::wait_for_line(&self.lines, "judge serve", text, DEADLINE)
    }

    /// One request; the status and the body as JSON (Null when empty).
    pub(crate) fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: &[u8],
    ) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        // The server may answer (413) before reading all of a large body.
        let _ = stream.write_all(body);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        crate::serve::http_answer(&answer)
    }

    pub(crate) fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        self.request("GET", path, token, "application/json", b"")
    }

    pub(crate) fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        self.request("POST", path, token, "application/json", body.as_bytes())
    }

    fn submit(&self, token: &str, file: &str) -> i64 {
        let source = std::fs::read_to_string(program(file)).unwrap();
        let (status, body) = self.post_json(
            "/api/v1/submissions",
            Some(token),
            &json!({"problem": "sum", "filename": file, "source": source}),
        );
        assert_eq!(status, 201, "{body}");
        body["id"].as_i64().unwrap()
    }

    /// Polls the submission until it is done.
    pub(crate) fn wait_done(&self, id: i64) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let (status, body) = self.get(&format!("/api/v1/submissions/{id}"), Some(ORGANISER));
            assert_eq!(status, 200, "{body}");
            if body["state"] == "done" {
                return body;
            }
            assert!(
                Instant::now() < deadline,
                "submission {id} not done in {DEADLINE:?}: {body}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// An open `GET /api/v1/events` stream.
pub(crate) struct Events {
    lines: std::io::BufReader<TcpStream>,
}

impl Events {
    /// Reads until the stream ends (the server closed it); panics past the read deadline.
    pub(crate) fn wait_end(&mut self) {
        let mut rest = String::new();
        self.lines
            .read_to_string(&mut rest)
            .expect("the stream ends within the deadline");
    }

    /// The next event: its name and data.
    pub(crate) fn next_any(&mut self) -> (String, Value) {
        let mut name = String::new();
        loop {
            let mut line = String::new();
            let n = self
                .lines
                .read_line(&mut line)
                .expect("an event within the deadline");
            assert!(n > 0, "the events stream ended");
            let line = line.trim_end();
            if let Some(event) = line.strip_prefix("event: ") {
                name = event.to_string();
            } else if let Some(data) = line.strip_prefix("data: ").filter(|_| !name.is_empty()) {
                return (name, serde_json::from_str(data).unwrap());
            }
        }
    }

    /// The data of the next event named `name` (other events are skipped).
    pub(crate) fn next(&mut self, name: &str) -> Value {
        let mut named = false;
        loop {
            let mut line = String::new();
            let n = self
                .lines
                .read_line(&mut line)
                .expect("an event within the deadline");
            assert!(n > 0, "the events stream ended");
            let line = line.trim_end();
            if let Some(data) = line.strip_prefix("data: ").filter(|_| named) {
                return serde_json::from_str(data).unwrap();
            }
            named = line == format!("event: {name}");
        }
    }
}

impl Server {
    pub(crate) fn events(&self) -> Events {
        Events::open(&self.addr, ORGANISER)
    }
}

impl Events {
    /// The events stream of the server at `addr`, as `token` sees it.
    pub(crate) fn open(addr: &str, token: &str) -> Events {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        write!(
            stream,
            "GET /api/v1/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n"
        )
        .unwrap();
        let mut lines = std::io::BufReader::new(stream);
        let mut status = String::new();
        lines.read_line(&mut status).unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        // The stream listens once its answer's head is sent: read the head through.
        loop {
            let mut line = String::new();
            lines.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
        }
        Events { lines }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `judge run sum FILE --all --json`'s document: what a served judging of FILE must equal.
pub(crate) fn run_sum(file: &str) -> Value {
    judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program(file))
        .args(["--all", "--json"])
        .output()
        .json()
}

/// The `sum` fixture as a tar of its folder's contents.
pub(crate) fn sum_package() -> Vec<u8> {
    judge_service::store::pack(&fixture_problem("sum")).unwrap()
}

pub(crate) fn upload(server: &Server, name: &str, token: &str, archive: &[u8]) -> (u16, Value) {
    server.request(
        "POST",
        &format!("/api/v1/problems?name={name}"),
        Some(token),
        "application/x-tar",
        archive,
    )
}

pub(crate) fn count(url: &str, table: &str) -> i64 {
    let mut client = judge_service::connect(url).unwrap();
    client
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// A tar whose one entry is named `name` (written by hand: the tar crate refuses `..`).
pub(crate) fn tar_with(name: &str, kind: tar::EntryType, data: &[u8]) -> Vec<u8> {
    let mut header = tar::Header::new_old();
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_entry_type(kind);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512 + 1024, 0);
    out
}

#[test]
fn submissions_posted_to_the_api_are_judged_by_workers_as_judge_run_judges_them() {
    // A database of its own: counts and lists below see only this test's rows.
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);
    let (status, body) = upload(&server, "sum", ORGANISER, &sum_package());
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], "sum");
    let (status, body) = server.get("/api/v1/problems", Some(ALICE));
    assert_eq!(
        (status, body["problems"][0]["name"].clone()),
        (200, json!("sum"))
    );

    let _a = Worker::start(&url, "a", "10");
    let _b = Worker::start(&url, "b", "10");
    let files = ["ac.c", "wa.py", "ce.c"];
    let ids: Vec<i64> = files.iter().map(|f| server.submit(ALICE, f)).collect();
    for (file, id) in files.iter().zip(&ids) {
        let served = server.wait_done(*id);
        // The worker judges every test, as `judge run --all` does.
        let run = run_sum(file);
        assert_eq!(served["verdict"], run["verdict"], "{file}: {served:#}");
        assert_eq!(served["problem"], "sum");
        let tests = |doc: &Value| -> Vec<(Value, Value)> {
            doc["tests"]
                .as_array()
                .map(|t| {
                    t.iter()
                        .map(|t| (t["name"].clone(), t["verdict"].clone()))
                        .collect()
                })
                .unwrap_or_default()
        };
        if run["verdict"] != "CE" {
            assert_eq!(tests(&served), tests(&run), "{file}");
        }
        let judgings = served["judgings"].as_array().unwrap();
        assert_eq!(judgings.len(), 1, "{served:#}");
        assert_eq!(judgings[0]["outcome"], "done");
        assert!(judgings[0]["finished_at"].is_string(), "{served:#}");
    }
    let verdicts: Vec<Value> = ids
        .iter()
        .map(|id| {
            server
                .get(&format!("/api/v1/submissions/{id}"), Some(ALICE))
                .1["verdict"]
                .clone()
        })
        .collect();
    assert_eq!(verdicts, [json!("AC"), json!("WA"), json!("CE")]);

    // A submitter lists and reads only their own; an organiser sees everything.
    let bobs = server.submit(BOB, "ac.c");
    let (status, body) = server.get(&format!("/api/v1/submissions/{bobs}"), Some(ALICE));
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["detail"], format!("submission {bobs} is not alice's"));
    let listed = |token: &str, query: &str| -> Vec<i64> {
        let (status, body) = server.get(&format!("/api/v1/submissions{query}"), Some(token));
        assert_eq!(status, 200, "{body}");
        body["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_i64().unwrap())
            .collect()
    };
    let mut alices = ids.clone();
    alices.reverse();
    assert_eq!(listed(ALICE, "?state=done"), alices);
    assert_eq!(listed(BOB, ""), [bobs]);
    assert_eq!(listed(ORGANISER, "?problem=sum").len(), 4);
    assert_eq!(listed(ORGANISER, "?problem=other"), Vec::<i64>::new());
}

#[test]
fn hostile_requests_get_a_4xx_with_the_reason_and_store_nothing() {
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let (mut blobs, mut submissions) = (count(&url, "blobs"), count(&url, "submissions"));
    let submission =
        |source: String| json!({"problem": "sum", "filename": "a.c", "source": source});
    let detail =
        |(status, body): (u16, Value)| (status, body["detail"].as_str().unwrap_or("").to_string());

    // Tokens.
    let (status, why) = detail(server.get("/api/v1/problems", None));
    assert_eq!(
        (status, why.as_str()),
        (
            401,
            "no Authorization header; send `Authorization: Bearer TOKEN`"
        )
    );
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some("wrong-token-0123456789"),
        &submission("x".into()),
    ));
    assert_eq!(
        (status, why.as_str()),
        (401, "this token is not one the server accepts")
    );
    let (status, why) = detail(upload(&server, "sum", ALICE, &sum_package()));
    assert_eq!(status, 403);
    assert!(why.contains("needs an organiser token"), "{why}");

    // Submissions.
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "nope", "filename": "a.c", "source": "int main(){}"}),
    ));
    assert_eq!(status, 404);
    assert!(why.starts_with("no problem named nope"), "{why}");
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &submission("x".repeat((1 << 20) + 1)),
    ));
    assert_eq!(status, 413, "{why}");
    assert!(why.contains("at most 1048576 (1 MiB)"), "{why}");
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &submission("x".repeat(10 << 20)),
    ));
    assert_eq!(
        (status, why.as_str()),
        (413, "the request's body is too large")
    );
    let (status, why) = detail(server.request(
        "POST",
        "/api/v1/submissions",
        Some(ALICE),
        "application/json",
        b"{\"problem\": \"sum\",",
    ));
    assert_eq!(status, 400);
    assert!(
        why.starts_with("the body is not a submission: EOF"),
        "{why}"
    );
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "sum", "language": "Brainfuck", "filename": "a.b", "source": "+"}),
    ));
    assert_eq!(status, 422);
    assert!(
        why.starts_with("unknown language `Brainfuck`; the judge knows "),
        "{why}"
    );
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "sum", "filename": "a.zzz", "source": "+"}),
    ));
    assert_eq!(status, 422);
    assert!(why.contains("a.zzz"), "{why}");
    let (status, body) = server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "sum", "language": "c", "filename": "a.c", "source": "int main(){}"}),
    );
    assert_eq!(status, 201, "{body}");
    submissions += 1;
    blobs += 1; // its source
    let (status, why) = detail(server.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "sum", "source": ""}),
    ));
    assert_eq!(status, 400);
    assert!(why.contains("missing field `filename`"), "{why}");
    let (status, _) = server.get("/api/v1/submissions/12x", Some(ORGANISER));
    assert_eq!(status, 400);
    let (status, _) = server.get("/api/v1/submissions/999999", Some(ORGANISER));
    assert_eq!(status, 404);
    let (status, why) = detail(server.get("/api/v1/submissions?state=lost", Some(ORGANISER)));
    assert_eq!(
        (status, why.as_str()),
        (400, "`lost` is not a state: queued, judging or done")
    );

    let (status, why) = detail(server.request(
        "DELETE",
        "/api/v1/problems",
        Some(ORGANISER),
        "application/json",
        b"",
    ));
    assert_eq!(status, 405);
    assert!(
        why.starts_with("this endpoint does not take this method"),
        "{why}"
    );
    let (status, _) = server.get("/api/v2/anything", Some(ORGANISER));
    assert_eq!(status, 404);

    // Packages.
    let (status, why) = detail(upload(
        &server,
        "evil",
        ORGANISER,
        &tar_with("../x", tar::EntryType::Regular, b"x"),
    ));
    assert_eq!(status, 422);
    assert!(why.contains("leaves its folder"), "{why}");
    let (status, why) = detail(upload(
        &server,
        "evil",
        ORGANISER,
        &tar_with("link", tar::EntryType::Symlink, b""),
    ));
    assert_eq!(status, 422);
    assert!(why.contains("neither a file nor a folder"), "{why}");
    let (status, why) = detail(upload(
        &server,
        "evil",
        ORGANISER,
        &tar_with("readme.txt", tar::EntryType::Regular, b"hi"),
    ));
    assert_eq!(status, 422);
    assert!(why.starts_with("the package does not load"), "{why}");
    let (status, _) = upload(&server, "..", ORGANISER, &sum_package());
    assert_eq!(status, 400);
    let (status, why) = detail(upload(&server, "evil", ORGANISER, b""));
    assert_eq!(status, 400, "{why}");
    let (status, why) = detail(upload(&server, "big", ORGANISER, &vec![0; 65 << 20]));
    assert_eq!(status, 413, "{why}");

    assert_eq!(
        (count(&url, "blobs"), count(&url, "submissions")),
        (blobs, submissions)
    );
    let (_, body) = server.get("/api/v1/problems", Some(ORGANISER));
    assert_eq!(body["problems"].as_array().unwrap().len(), 1, "{body}");
    // The document needs no token, and every answer above was a JSON problem.
    let (status, doc) = server.get("/api/v1/openapi.json", None);
    assert_eq!((status, doc["openapi"].clone()), (200, json!("3.1.0")));
}

#[test]
fn judge_submit_and_judge_status_are_clients_of_the_api() {
    let url = judge_service::testdb::shared().expect("a throwaway PostgreSQL");
    let server = Server::start(&url);
    assert_eq!(upload(&server, "sum", ORGANISER, &sum_package()).0, 201);
    let _worker = Worker::start(&url, "a", "10");
    let base = format!("http://{}", server.addr);
    let client = |args: &[&str], token: &str| {
        Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(args)
            .env("JUDGE_TOKEN", token)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let mut events = server.events();
    let wa = program("wa.c");
    let out = client(
        &[
            "submit",
            &base,
            "sum",
            wa.to_str().unwrap(),
            "--wait",
            "--json",
        ],
        ALICE,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["state"].clone(), doc["verdict"].clone()),
        (json!("done"), json!("WA"))
    );
    let id = doc["id"].as_i64().unwrap();
    // The jury's stream saw it claimed, then done with its verdict.
    let judging = events.next("judging");
    assert_eq!(
        (judging["id"].as_i64(), judging["worker"].as_str()),
        (Some(id), Some("a"))
    );
    let done = events.next("done");
    assert_eq!(
        (done["id"].as_i64(), done["verdict"].as_str()),
        (Some(id), Some("WA"))
    );
    let (status, body) = server.get("/api/v1/events", Some(ALICE));
    assert_eq!(status, 403, "{body}");

    let out = client(&["status", &base, &id.to_string()], ALICE);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("submission {id}  sum  done  WA")),
        "{text}"
    );
    assert!(text.contains("expected `4000000000`"), "{text}");
    let out = client(&["status", &base], BOB);
    assert_eq!(
        (out.status.code(), out.stdout.is_empty()),
        (Some(0), true),
        "bob sees none of alice's"
    );

    let out = client(&["status", &base, &id.to_string()], BOB);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("submission {id} is not bob's (403)")),
        "{stderr}"
    );
    let out = client(
        &["submit", &base, "nope", wa.to_str().unwrap()],
        "wrong-token-0123456789",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("this token is not one the server accepts (401)"),
        "{stderr}"
    );
}
