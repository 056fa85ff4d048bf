//! `judge serve` on one machine with nothing to install: no `--db`, so everything is kept in
//! `judge.sqlite` in the folder it runs in and its own slots judge. Driven as an organiser
//! would after the README's set-up: the server, `judge submit --wait`, `judge status`, the
//! events stream, a restart on the same file.

use crate::harness::{copy_dir, fixture_problem, judge, program};
use crate::serve::{stderr_lines, wait_for_line, Events, DEADLINE};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// A `judge serve` started in `dir` without `--db`: its address and generated token.
struct Alone {
    child: Child,
    addr: String,
    token: String,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Alone {
    fn start(dir: &Path, problems: &Path) -> Alone {
        Alone::start_with(dir, problems, &[])
    }

    /// [`Alone::start`] with more arguments to `judge serve`.
    fn start_with(dir: &Path, problems: &Path, more: &[&str]) -> Alone {
        let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(["serve", "--listen", "127.0.0.1:0", "--problems"])
            .arg(problems)
            .args(more)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = stderr_lines(child.stderr.take().unwrap());
        let kept = wait_for_line(&lines, "judge serve", "keeping everything in", DEADLINE);
        assert!(kept.contains("judge.sqlite"), "{kept}");
        let token = wait_for_line(&lines, "judge serve", "organiser token: ", DEADLINE);
        let token = token.rsplit(' ').next().unwrap().to_string();
        let slots = wait_for_line(&lines, "judge serve", "slot(s)", DEADLINE);
        assert!(!slots.contains(" 0 slot"), "{slots}");
        let listening = wait_for_line(&lines, "judge serve", "listening on http://", DEADLINE);
        let addr = listening.rsplit("http://").next().unwrap().to_string();
        Alone {
            child,
            addr,
            token,
            lines,
        }
    }

    /// `judge ARGS` as a client of this server (its token in `JUDGE_TOKEN`).
    fn client(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_judge"))
            .args(args)
            .env("JUDGE_TOKEN", &self.token)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `judge submit SERVER PROBLEM SOURCE --wait --json`.
    fn submit_to(&self, problem: &str, source: &Path) -> Output {
        self.client(&[
            "submit",
            &self.base(),
            problem,
            source.to_str().unwrap(),
            "--wait",
            "--json",
        ])
    }

    /// `judge submit SERVER sum FILE --wait --json`: its document.
    fn submit_wait(&self, file: &str) -> Value {
        let out = self.submit_to("sum", &program(file));
        let stderr = String::from_utf8_lossy(&out.stderr);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
    }

    /// Stops it as an operator does (one SIGTERM) and waits for its exit status.
    fn stop(mut self) -> Option<i32> {
        // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        wait_for_line(&self.lines, "judge serve", "stopped", DEADLINE);
        self.child.wait().unwrap().code()
    }
}

impl Drop for Alone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next `done` event of an events stream opened on `addr` with `token`, as its data.
fn first_done(addr: &str, token: &str) -> std::sync::mpsc::Receiver<Value> {
    let mut events = Events::open(addr, token);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(events.next("done"));
    });
    rx
}

#[test]
fn without_db_judge_serve_keeps_a_sqlite_file_and_judges_in_its_own_process() {
    let problems = tempfile::tempdir().unwrap();
    copy_dir(&fixture_problem("sum"), &problems.path().join("sum"));
    let here = tempfile::tempdir().unwrap();
    let server = Alone::start(here.path(), problems.path());
    assert!(here.path().join("judge.sqlite").is_file());

    let done = first_done(&server.addr, &server.token);
    let mut ids = Vec::new();
    for file in ["ac.c", "wa.py", "ce.c", "tle-loop.c", "re-segv.c"] {
        let served = server.submit_wait(file);
        let run = crate::serve::run_sum(file);
        assert_eq!(served["verdict"], run["verdict"], "{file}: {served:#}");
        assert_eq!(served["state"], "done");
        // `judge run --json`'s document, with the submission's id, state and judgings.
        for key in run.as_object().unwrap().keys() {
            assert!(served.get(key).is_some(), "{file}: no {key} in {served:#}");
        }
        assert_eq!(
            (&served["schema"], &served["problem"], &served["solution"]),
            (&json!(1), &json!("sum"), &json!(file))
        );
        assert_eq!(served["compile"]["ok"], run["compile"]["ok"], "{file}");
        let judgings = served["judgings"].as_array().unwrap();
        assert_eq!(judgings.len(), 1, "{served:#}");
        assert_eq!(judgings[0]["outcome"], "done", "{served:#}");
        if run["verdict"] == "CE" {
            // The compiler's reason is the submission's, as `judge run` gives it.
            let said = served["compile"]["message"].as_str().unwrap_or_default();
            assert!(said.contains("error"), "{served:#}");
            let id = served["id"].to_string();
            let out = server.client(&["status", &server.base(), &id]);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains(said.lines().next().unwrap()), "{text}");
        } else {
            let names = |doc: &Value| -> Vec<Value> {
                doc["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["verdict"].clone())
                    .collect()
            };
            assert_eq!(names(&served), names(&run), "{file}");
        }
        ids.push(served["id"].as_i64().unwrap());
    }
    // The events stream heard the first verdict from the slots in the same process.
    let event = done.recv_timeout(DEADLINE).expect("a done event");
    assert_eq!(event["id"].as_i64(), Some(ids[0]), "{event}");
    assert_eq!(event["verdict"], "AC");

    // One SIGTERM: a clean exit; the file keeps everything for the next start.
    assert_eq!(server.stop(), Some(0));
    let again = Alone::start(here.path(), problems.path());
    let out = again.client(&["status", &again.base()]);
    let listed = String::from_utf8_lossy(&out.stdout);
    for (id, verdict) in ids.iter().zip(["AC", "WA", "CE", "TLE", "RE"]) {
        let line = listed
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
            .unwrap_or_else(|| panic!("submission {id} is not listed after a restart:\n{listed}"));
        assert!(line.contains(verdict), "{line}");
    }
    // A new submission after the restart is judged too, with the next id.
    let next = again.submit_wait("ac.c");
    assert_eq!(next["verdict"], "AC");
    assert_eq!(next["id"].as_i64(), Some(ids.last().unwrap() + 1));
    assert_eq!(again.stop(), Some(0));
}

/// A slot builds every submission in one folder, emptied first (so that the sandbox's kept run
/// init serves the next submission too): a submission's program finds only its own build there,
/// never what the one before left (a Python submission's source, a C program's binary).
#[test]
fn a_submission_finds_nothing_of_the_one_before_in_its_build_folder() {
    let problems = tempfile::tempdir().unwrap();
    copy_dir(&fixture_problem("sum"), &problems.path().join("sum"));
    let here = tempfile::tempdir().unwrap();
    // One slot: every submission is built in the same folder.
    let server = Alone::start_with(here.path(), problems.path(), &["--workers", "1"]);
    for file in [
        "wa.py",
        "ac.c",
        "ac-alone-in-build.c",
        "ac.cpp",
        "ac-alone-in-build.c",
    ] {
        let served = server.submit_wait(file);
        let expected = if file.starts_with("wa") { "WA" } else { "AC" };
        assert_eq!(served["verdict"], expected, "{file}: {served:#}");
    }
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_worker_of_its_own_on_a_sqlite_file_is_refused_with_the_way_out() {
    let here = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", here.path().join("judge.sqlite").display());
    let out = judge().args(["worker", "--db", &db]).output();
    let stderr = out.stderr();
    assert_ne!(out.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("a SQLite database is judged only by `judge serve --workers N`"),
        "{stderr}"
    );
    assert!(stderr.contains("use PostgreSQL"), "{stderr}");
}

#[test]
fn a_server_killed_mid_judging_restarts_on_its_file_and_judges_each_submission_once() {
    let problems = tempfile::tempdir().unwrap();
    copy_dir(&fixture_problem("sum"), &problems.path().join("sum"));
    let here = tempfile::tempdir().unwrap();
    // A 2 s lease: the restarted server judges again what the killed one held 2 s on.
    let lease = ["--lease", "2"];
    let server = Alone::start_with(here.path(), problems.path(), &lease);
    let ids: Vec<i64> = (0..4)
        .map(|_| {
            let out = server.client(&[
                "submit",
                &server.base(),
                "sum",
                program("ac-sleepy-sum.c").to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("no id in {out:?}"))
        })
        .collect();
    // Killed (not stopped) while its slots judge: no chance to write anything more.
    wait_for_line(&server.lines, "judge serve", "submission", DEADLINE);
    let mut server = server;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    drop(server);

    // Started again on the same file: the dead slots' leases run out, and each submission is
    // judged to exactly one verdict.
    let again = Alone::start_with(here.path(), problems.path(), &lease);
    let url = format!("sqlite:{}", here.path().join("judge.sqlite").display());
    let deadline = std::time::Instant::now() + DEADLINE;
    let mut db = judge_service::connect(&url).unwrap();
    for id in &ids {
        loop {
            let s = judge_service::store::submission(&mut db, *id)
                .unwrap()
                .unwrap();
            if s.state == "done" {
                assert_eq!(s.verdict.as_deref(), Some("AC"), "{s:?}");
                let done = s
                    .judgings
                    .iter()
                    .filter(|j| j.outcome.as_deref() == Some("done"));
                assert_eq!(done.count(), 1, "{s:?}");
                assert_eq!(s.tests.len(), 3, "{s:?}");
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{s:?}");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    use judge_service::db::Sql;
    let rows: i64 = db
        .query_one("SELECT count(*) FROM test_results", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, 3 * ids.len() as i64, "no duplicate result rows");
    let lost: i64 = db
        .query_one("SELECT count(*) FROM judgings WHERE outcome = 'lost'", &[])
        .unwrap()
        .get(0);
    assert!(lost >= 1, "the killed slots' judgings end lost");
    assert_eq!(again.stop(), Some(0));
}

/// With its stderr gone (the terminal closed, a `| head` that ended), SIGTERM still ends the
/// server: the message it can no longer write does not swallow the signal.
#[test]
fn a_server_whose_stderr_is_closed_still_ends_on_sigterm() {
    use std::io::BufRead;
    let here = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["serve", "--listen", "127.0.0.1:0", "--workers", "0"])
        .current_dir(here.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening on http://") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no address line");
    }
    drop(stderr);
    // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = std::time::Instant::now() + DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("judge serve did not end on SIGTERM with its stderr closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.code().is_some(), "ended by a signal: {status}");
}

/// The CPUs the calling thread may run on (what a process it starts inherits).
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is the empty set, filled in by the kernel.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: set is a cpu_set_t of the size given.
    let r = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    assert_eq!(r, 0, "sched_getaffinity");
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// A slot runs on a CPU that no other slot of the machine holds, while one is free, and says
/// which: its programs run there, and cannot move off it. With `--no-pin` they may run on any
/// CPU the server may. (When other tests' slots hold every CPU, the slot says it runs on any
/// CPU, and its programs must then see every one.)
#[test]
fn a_slot_runs_its_programs_on_a_cpu_of_its_own() {
    let anywhere = allowed_cpus();
    for pin in [true, false] {
        let problems = tempfile::tempdir().unwrap();
        let here = tempfile::tempdir().unwrap();
        let mut more = vec!["--workers", "1", "--problems-poll", "0.1"];
        if !pin {
            more.push("--no-pin");
        }
        let server = Alone::start_with(here.path(), problems.path(), &more);
        let expected = if pin {
            let said = wait_for_line(&server.lines, "judge serve", " runs on ", DEADLINE);
            match said.split("runs on CPU ").nth(1) {
                Some(rest) => {
                    let cpu = rest.split(',').next().unwrap().trim();
                    vec![cpu
                        .parse::<usize>()
                        .unwrap_or_else(|e| panic!("{said}: {e}"))]
                }
                None => {
                    assert!(said.contains("runs on any CPU"), "{said}");
                    anywhere.clone()
                }
            }
        } else {
            anywhere.clone()
        };
        // A problem whose one answer is that list, served once the folder is looked at again.
        let package = problems.path().join("cpus");
        std::fs::create_dir_all(package.join("tests")).unwrap();
        let toml = std::fs::read(fixture_problem("sum").join("problem.toml")).unwrap();
        std::fs::write(package.join("problem.toml"), toml).unwrap();
        std::fs::write(package.join("tests/1.in"), "").unwrap();
        let answer: String = expected.iter().map(|c| format!("{c}\n")).collect();
        std::fs::write(package.join("tests/1.ans"), answer).unwrap();
        let source = program("cpus.c");
        let end = std::time::Instant::now() + DEADLINE;
        let served: Value = loop {
            let out = server.submit_to("cpus", &source);
            // Judged (whatever the verdict: a verdict other than AC exits 1), or not served yet.
            if let Ok(doc) = serde_json::from_slice::<Value>(&out.stdout) {
                break doc;
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(std::time::Instant::now() < end, "never served: {stderr}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        assert_eq!(
            served["verdict"], "AC",
            "pinned: {pin}, expected the CPUs {expected:?}: {served:#}"
        );
        assert_eq!(server.stop(), Some(0));
    }
}
