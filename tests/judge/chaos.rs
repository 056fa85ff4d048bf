//! The judging service under the failures `service.rs` leaves out: PostgreSQL crashed and
//! restarted mid-run (chaos 4), and a seeded loop of workers killed at chosen points of claim,
//! heartbeat, finish and the reaper (chaos 6). The helpers here (a worker process, a
//! `judge serve` process and its HTTP client, the queue's notifications, the invariants) are
//! shared with `netns.rs` and the other service tests (the worker process with all of them).
//!
//! Every wait is for an event with a deadline: a PostgreSQL notification (sent on commit
//! only), a process's exit, a line a worker prints; the state is read after LISTEN, so no
//! notification falls between the two. A worker's registration notifies nothing: that one
//! wait reads the `workers` table every 50 ms (`wait_registered`).

use crate::harness::{fixture_problem, program};
use judge_service::db::Sql;
use judge_service::queue::{CLAIMED, DONE};
use judge_service::store::{self, Submission};
use judge_service::testdb;
use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Long enough for any step on a loaded 2-core machine, short enough to fail a hang quickly.
pub(crate) const DEADLINE: Duration = Duration::from_secs(120);
pub(crate) const ORGANISER: &str = "organiser-token-chaos-0123456789";
pub(crate) const SUBMITTER: &str = "submitter-token-chaos-alice-0123";

/// A process started in a network namespace (`netns`: an open `/proc/PID/ns/net`) or in
/// ours; it is killed if the thread that started it (the test's) ends first.
pub(crate) fn command_in(program: &str, netns: Option<&std::fs::File>) -> Command {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    let fd = netns.map(|ns| ns.as_raw_fd());
    // SAFETY: setns and prctl are async-signal-safe; the descriptor is open until the spawn
    // returns.
    unsafe {
        command.pre_exec(move || {
            if let Some(fd) = fd {
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// A `judge worker` process, the lines it prints on stderr, and its cache (a folder of its own
/// unless given).
pub(crate) struct Worker {
    pub(crate) child: Child,
    pub(crate) name: String,
    lines: mpsc::Receiver<String>,
    _own_cache: Option<tempfile::TempDir>,
}

impl Worker {
    /// Starts `judge worker --db url --name name --lease lease` with a cache of its own.
    pub(crate) fn start(url: &str, name: &str, lease: &str) -> Worker {
        let cache = tempfile::tempdir().unwrap();
        let mut worker = Worker::start_with(url, name, lease, cache.path(), &[], None);
        worker._own_cache = Some(cache);
        worker
    }

    /// Starts `judge worker --db url --name name --lease lease` with `env` added, in `netns`
    /// when given, its packages and builds cached in `cache`.
    pub(crate) fn start_with(
        url: &str,
        name: &str,
        lease: &str,
        cache: &std::path::Path,
        env: &[(&str, &str)],
        netns: Option<&std::fs::File>,
    ) -> Worker {
        let mut child = command_in(env!("CARGO_BIN_EXE_judge"), netns)
            .args(["worker", "--db", url, "--name", name, "--lease", lease])
            .args(["--retry-delay", "0.2", "--cache"])
            .arg(cache.join("packages"))
            // The builds are cached there too: a host's workers share them.
            .env("JUDGE_CACHE_DIR", cache)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = crate::serve::stderr_lines(child.stderr.take().unwrap());
        Worker {
            child,
            name: name.to_string(),
            lines,
            _own_cache: None,
        }
    }

    /// Sends `signal` to the worker (SIGSTOP to freeze it, SIGKILL to kill it mid-job).
    pub(crate) fn signal(&self, signal: i32) {
        // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// Waits for a line of the worker's stderr containing `text`; returns it.
    pub(crate) fn wait_line(&self, text: &str) -> String {
        crate::serve::wait_for_line(&self.lines, &self.name, text, DEADLINE)
    }

    /// Every line printed so far.
    pub(crate) fn lines_so_far(&self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// Waits for the worker to exit; its status.
    pub(crate) fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            // The stderr reader ends when the process does: wait on it rather than sleep.
            match self.lines.recv_timeout(Duration::from_millis(200)) {
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return self.child.wait().unwrap();
                }
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit in {DEADLINE:?}",
                self.name
            );
        }
    }

    /// Whether the worker is still running.
    pub(crate) fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Stopped as an operator stops one (woken if frozen; SIGTERM twice: its job given back
        // now), so that it removes its work folders; killed only if it has not exited in 10 s.
        let pid = self.child.id() as i32;
        for signal in [libc::SIGCONT, libc::SIGTERM, libc::SIGTERM] {
            // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
            unsafe { libc::kill(pid, signal) };
            std::thread::sleep(Duration::from_millis(20));
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A `judge serve` process and the address it took.
pub(crate) struct Serve {
    child: Child,
    pub(crate) addr: String,
    _tokens: tempfile::NamedTempFile,
}

impl Serve {
    /// Starts `judge serve --db url --listen listen` in `netns` when given.
    pub(crate) fn start(url: &str, listen: &str, netns: Option<&std::fs::File>) -> Serve {
        let mut tokens = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            tokens,
            "organiser {ORGANISER} jury\nsubmitter {SUBMITTER} alice"
        )
        .unwrap();
        let mut child = command_in(env!("CARGO_BIN_EXE_judge"), netns)
            .args(["serve", "--db", url, "--listen", listen, "--tokens"])
            .arg(tokens.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let addr = crate::serve::listening_address(&mut child);
        Serve {
            child,
            addr,
            _tokens: tokens,
        }
    }

    /// One request as the organiser; the status and the body as JSON (Null when empty). The
    /// connection is made from the calling thread's network namespace.
    pub(crate) fn request(
        &self,
        method: &str,
        path: &str,
        kind: &str,
        body: &[u8],
    ) -> (u16, Value) {
        let mut stream = std::net::TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(DEADLINE)).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {ORGANISER}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        crate::serve::http_answer(&answer)
    }

    /// Uploads the package folder `dir` as problem `name`.
    pub(crate) fn upload(&self, name: &str, dir: &std::path::Path) {
        let tar = store::pack(dir).unwrap();
        let (status, body) = self.request(
            "POST",
            &format!("/api/v1/problems?name={name}"),
            "application/x-tar",
            &tar,
        );
        assert_eq!(status, 201, "uploading {name}: {body}");
    }

    /// `POST /api/v1/submissions`: the status and the body.
    pub(crate) fn try_submit(&self, problem: &str, file: &std::path::Path) -> (u16, Value) {
        let source = std::fs::read_to_string(file).unwrap();
        let filename = file.file_name().unwrap().to_str().unwrap();
        let body = json!({"problem": problem, "filename": filename, "source": source});
        self.request(
            "POST",
            "/api/v1/submissions",
            "application/json",
            body.to_string().as_bytes(),
        )
    }

    /// Submits `file` to `problem`; its id.
    pub(crate) fn submit(&self, problem: &str, file: &std::path::Path) -> i64 {
        let (status, body) = self.try_submit(problem, file);
        assert_eq!(status, 201, "submitting {}: {body}", file.display());
        body["id"].as_i64().unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The queue's notifications, on a connection of the test's own.
pub(crate) struct Events {
    url: String,
    client: Client,
}

/// A claim as its notification tells it.
#[derive(Debug, PartialEq)]
pub(crate) struct Claim {
    pub(crate) job: i64,
    pub(crate) attempt: i32,
    pub(crate) worker: String,
}

impl Events {
    pub(crate) fn listen(url: &str) -> Events {
        Events {
            url: url.to_string(),
            client: Self::connect(url),
        }
    }

    fn connect(url: &str) -> Client {
        // The tables made, then a PostgreSQL connection of its own to listen on.
        drop(judge_service::connect(url).unwrap());
        let mut client = Client::connect(url, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("LISTEN {CLAIMED}; LISTEN {DONE};"))
            .unwrap();
        client
    }

    /// The next notification on `channel` whose payload `accept` takes.
    pub(crate) fn wait<T>(
        &mut self,
        channel: &str,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {channel} notification in {DEADLINE:?}");
            let mut notes = self.client.notifications();
            let next = notes.timeout_iter(left).next().unwrap();
            if let Some(n) = next {
                if n.channel() == channel {
                    if let Some(found) = accept(n.payload()) {
                        return found;
                    }
                }
            }
        }
    }

    pub(crate) fn claimed(&mut self) -> Claim {
        self.wait(CLAIMED, |p| {
            let mut parts = p.splitn(3, ':');
            Some(Claim {
                job: parts.next()?.parse().ok()?,
                attempt: parts.next()?.parse().ok()?,
                worker: parts.next()?.to_string(),
            })
        })
    }

    /// Waits until every submission of `ids` is done: listening first, then reading which
    /// are not, then waiting for their `judge_done`.
    pub(crate) fn all_done(&mut self, ids: &[i64]) {
        // A fresh LISTEN: the database may have restarted since the last one.
        self.client = Self::connect(&self.url);
        let rows = self
            .client
            .query(
                "SELECT id FROM submissions WHERE id = ANY($1) AND state <> 'done'",
                &[&ids],
            )
            .unwrap();
        let mut left: BTreeSet<i64> = rows.iter().map(|r| r.get(0)).collect();
        while !left.is_empty() {
            let id = self.wait(DONE, |p| {
                p.parse::<i64>().ok().filter(|id| left.contains(id))
            });
            left.remove(&id);
        }
    }
}

pub(crate) fn stored(url: &str, id: i64) -> Submission {
    let mut client = judge_service::connect(url).unwrap();
    store::submission(&mut client, id).unwrap().unwrap()
}

/// The tests' (name, verdict) of a submission.
fn tests_of(s: &Submission) -> Vec<(String, String)> {
    s.tests
        .iter()
        .map(|t| (t.name.clone(), t.verdict.clone()))
        .collect()
}

/// The invariants after chaos: each submission of `ids` is done with one final verdict and
/// the tests of `undisturbed[its file]`; each test once; every attempt ended, exactly one
/// of them `done` (the job's last), the job `done`.
pub(crate) fn assert_invariants(
    url: &str,
    ids: &[(i64, String)],
    undisturbed: &BTreeMap<String, Submission>,
) {
    let mut client = judge_service::connect(url).unwrap();
    for (id, file) in ids {
        let s = stored(url, *id);
        let calm = &undisturbed[file];
        assert_eq!(s.state, "done", "{file}: {s:#?}");
        assert_eq!(
            (s.verdict.as_deref(), tests_of(&s)),
            (calm.verdict.as_deref(), tests_of(calm)),
            "{file}, submission {id}, judged as undisturbed: {s:#?}"
        );
        let names: BTreeSet<&str> = s.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), s.tests.len(), "a test twice: {s:#?}");
        assert!(
            s.judgings.iter().all(|j| j.finished && j.outcome.is_some()),
            "an attempt left open: {s:#?}"
        );
        let done: Vec<_> = s
            .judgings
            .iter()
            .filter(|j| j.outcome.as_deref() == Some("done"))
            .collect();
        assert_eq!(done.len(), 1, "one finish per submission: {s:#?}");
        let row = client
            .query_one(
                "SELECT state, attempt FROM jobs WHERE submission = $1",
                &[id],
            )
            .unwrap();
        let (state, attempt): (String, i32) = (row.get(0), row.get(1));
        assert_eq!(
            (state.as_str(), attempt),
            ("done", done[0].attempt),
            "the job's last attempt is the one that finished: {s:#?}"
        );
    }
}

/// Judges each file of `files` once on a calm queue (the workers running now) and returns
/// the results by file name: the undisturbed verdicts.
pub(crate) fn undisturbed(
    submit: impl Fn(&std::path::Path) -> i64,
    url: &str,
    events: &mut Events,
    files: &BTreeSet<std::path::PathBuf>,
) -> BTreeMap<String, Submission> {
    let ids: Vec<(i64, &std::path::PathBuf)> = files.iter().map(|f| (submit(f), f)).collect();
    let just: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    events.all_done(&just);
    ids.into_iter()
        .map(|(id, f)| {
            let s = stored(url, id);
            assert!(
                s.judgings.len() == 1 && s.verdict.as_deref() != Some("JE"),
                "the calm run of {} was disturbed: {s:#?}",
                f.display()
            );
            (key(f), s)
        })
        .collect()
}

/// Waits until every one of `names` has registered with the queue (connected, and so able to
/// see the database go): a worker still starting when PostgreSQL restarts never sees it.
pub(crate) fn wait_registered(url: &str, names: &[&str]) {
    let mut client = Client::connect(url, postgres::NoTls).unwrap();
    let deadline = Instant::now() + DEADLINE;
    loop {
        let rows = client.query("SELECT name FROM workers", &[]).unwrap();
        let seen: BTreeSet<String> = rows.iter().map(|r| r.get(0)).collect();
        if names.iter().all(|n| seen.contains(*n)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "only {seen:?} of {names:?} registered"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn key(file: &std::path::Path) -> String {
    file.display().to_string()
}

#[test]
fn postgresql_crashed_and_restarted_mid_run_loses_nothing_and_judges_each_once() {
    // A server of its own, crashed below; commits wait for the WAL (PostgreSQL's default), so
    // the crash loses no acknowledged commit.
    let mut pg = testdb::Server::start_with(testdb::Options {
        synchronous_commit: true,
        ..Default::default()
    })
    .expect("a throwaway PostgreSQL (apt-get install postgresql)");
    let url = pg.fresh_db().unwrap();
    let server = Serve::start(&url, "127.0.0.1:0", None);
    // `sum` with a 5 s limit: ac-sleepy-sum.c stays AC on a busy machine.
    server.upload("sum", &fixture_problem("sum-patient"));
    let cache = tempfile::tempdir().unwrap();
    let mut workers = [
        Worker::start_with(&url, "w1", "4", cache.path(), &[], None),
        Worker::start_with(&url, "w2", "4", cache.path(), &[], None),
    ];
    wait_registered(&url, &["w1", "w2"]);
    let mut events = Events::listen(&url);
    let files = [
        "ac-sleepy-sum.c",
        "wa.c",
        "ac.c",
        "ac-sleepy-sum.c",
        "re-exit.c",
        "ce.c",
    ];
    let mut ids: Vec<(i64, String)> = files
        .iter()
        .map(|f| (server.submit("sum", &program(f)), key(&program(f))))
        .collect();
    // Requests at once leave several connections in the server's pool, all to die below.
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..5 {
                    let (status, body) = server.request("GET", "/api/v1/submissions", "", b"");
                    assert_eq!(status, 200, "{body}");
                }
            });
        }
    });
    // Mid-run: a worker holds a job.
    events.claimed();
    pg.stop();
    // Down: the API answers 503 with the reason, and keeps running.
    let (status, body) =
        server.request("GET", &format!("/api/v1/submissions/{}", ids[0].0), "", b"");
    assert_eq!(status, 503, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("database"),
        "{body}"
    );
    let (status, _) = server.try_submit("sum", &program("wa.c"));
    assert_eq!(status, 503);
    pg.resume().unwrap();
    // Back: the first requests succeed (the pool's dead connections are replaced).
    for f in ["ac.c", "wa.c", "ac-sleepy-sum.c"] {
        ids.push((server.submit("sum", &program(f)), key(&program(f))));
    }
    let (status, body) =
        server.request("GET", &format!("/api/v1/submissions/{}", ids[0].0), "", b"");
    assert_eq!(status, 200, "{body}");
    let all: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    events.all_done(&all);
    for w in &mut workers {
        let lines = w.lines_so_far();
        eprintln!("{}: {lines:#?}", w.name);
        assert!(w.running(), "{} ended: {lines:#?}", w.name);
        // It saw the database go, and came back to judge.
        assert!(
            lines.iter().any(|l| l.contains("reconnecting")
                || l.contains("retrying")
                || l.contains("heartbeat:")),
            "{}: {lines:#?}",
            w.name
        );
    }
    // The workers carry on: the same files judged on the restarted database are the
    // undisturbed verdicts.
    let distinct: BTreeSet<_> = files.iter().map(|f| program(f)).collect();
    let calm = undisturbed(|f| server.submit("sum", f), &url, &mut events, &distinct);
    assert_invariants(&url, &ids, &calm);
    assert_eq!(
        calm[&key(&program("ac-sleepy-sum.c"))].verdict.as_deref(),
        Some("AC")
    );
    assert_eq!(calm[&key(&program("wa.c"))].verdict.as_deref(), Some("WA"));
}

/// Queues `file` on the package `package` with `judge submit --db` (which takes
/// `--max-attempts`); its id.
pub(crate) fn submit_db(
    url: &str,
    package: &std::path::Path,
    file: &std::path::Path,
    max_attempts: u32,
) -> i64 {
    let out = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["submit", "--db", url])
        .arg(package)
        .arg(file)
        .args(["--max-attempts", &max_attempts.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A small seeded generator (splitmix64): the same seed, the same kill plan.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// Chaos 6: twenty workers in a row, each killed (SIGKILL, by the worker's test-only
/// `JUDGE_TEST_KILL_AT` hook) at a point drawn from a seeded generator — after its claim
/// commits, after reading the job, at its first or second heartbeat, before its finish,
/// inside the finish's transaction before the commit, after the finish commits, inside the
/// reaper's transaction. `CHAOS_SEED=N` replays a plan; the seed is printed first.
#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn workers_killed_at_twenty_seeded_random_points_leave_one_verdict_each() {
    let seed: u64 = match std::env::var("CHAOS_SEED") {
        Ok(seed) => seed.parse().expect("CHAOS_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    };
    eprintln!("chaos 6: seed {seed} (replay: CHAOS_SEED={seed} cargo test --test judge -- chaos::workers_killed)");
    let mut rng = Rng(seed);
    let url = testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)");
    let mut events = Events::listen(&url);
    let cache = tempfile::tempdir().unwrap();
    let package = fixture_problem("sum-patient");
    let fast = ["ac.c", "wa.c", "re-exit.c", "ac-sleepy-sum.c"];
    let points = [
        "claimed",
        "fetched",
        "heartbeat:1",
        "heartbeat:2",
        "judged",
        "finishing",
        "finished",
        "reaping",
    ];
    let mut client = judge_service::connect(&url).unwrap();
    let mut ids: Vec<(i64, String)> = Vec::new();
    let mut plan = Vec::new();
    for round in 0..20 {
        // The reaper's point needs a dead worker's job: one is running now, or none is.
        let running: i64 = client
            .query_one("SELECT count(*) FROM jobs WHERE state = 'running'", &[])
            .unwrap()
            .get(0);
        let point = loop {
            let point = *rng.pick(&points);
            if point != "reaping" || running > 0 {
                break point;
            }
        };
        // A heartbeat comes every lease/3: the slow program is judged for over 1.5 s.
        let file = if point.starts_with("heartbeat") {
            "ac-sleepy-sum.c"
        } else {
            *rng.pick(&fast)
        };
        let file = program(file);
        ids.push((submit_db(&url, &package, &file, 30), key(&file)));
        plan.push(format!(
            "{round}: {point} ({})",
            file.file_name().unwrap().to_string_lossy()
        ));
        let name = format!("victim{round}");
        let mut victim = Worker::start_with(
            &url,
            &name,
            "1",
            cache.path(),
            &[("JUDGE_TEST_KILL_AT", point)],
            None,
        );
        let status = victim.wait_exit();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "seed {seed}: {name} was to die at {point}: {status:?}; it printed {:#?}",
            victim.lines_so_far()
        );
    }
    eprintln!("chaos 6 plan:\n{}", plan.join("\n"));
    let _closer = Worker::start_with(&url, "closer", "1", cache.path(), &[], None);
    let all: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    events.all_done(&all);
    let distinct: BTreeSet<_> = fast.iter().map(|f| program(f)).collect();
    let calm = undisturbed(
        |f| submit_db(&url, &package, f, 1),
        &url,
        &mut events,
        &distinct,
    );
    assert_invariants(&url, &ids, &calm);
}
