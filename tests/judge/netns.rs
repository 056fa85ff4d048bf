//! Many machines on one machine: PostgreSQL (on TCP) and `judge serve` in one network
//! namespace, workers in two others, joined by veth pairs; the hosts talk only over the
//! addresses of those links (10.231.0.0/16, on the test's own links, which exist in no other
//! namespace). Chaos 5 takes a worker's link down mid-job; the acceptance test judges 200
//! submissions on the shipped problems with three workers in two namespaces.
//!
//! The namespaces are anonymous: each is held by a `sleep` process that unshared it, with a
//! parent-death signal, and by an open descriptor; the links live inside them. Dropping the
//! [`Net`] (or the test process dying) ends every process in them and the holders, and the
//! namespaces and their links vanish with them: nothing is left on the host, nothing of the
//! host's network is touched. These tests need root and iproute2's `ip`; they fail, never
//! skip, without them (`.ci/run` installs iproute2).

use crate::chaos::{
    assert_invariants, command_in, key, stored, undisturbed, Events, Serve, Worker,
};
use judge_service::testdb;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A network namespace of the test's own.
pub(crate) struct Netns {
    holder: Child,
    pub(crate) file: File,
}

impl Netns {
    fn new() -> Netns {
        let mut sleep = Command::new("sleep");
        sleep.arg("infinity").stdin(Stdio::null());
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: unshare and prctl are async-signal-safe.
            unsafe {
                sleep.pre_exec(|| {
                    if libc::unshare(libc::CLONE_NEWNET) != 0
                        || libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        // spawn returns once the child has exec'd: the namespace exists.
        let holder = sleep
            .spawn()
            .unwrap_or_else(|e| panic!("a network namespace (needs root): {e}"));
        let file = File::open(format!("/proc/{}/ns/net", holder.id())).unwrap();
        Netns { holder, file }
    }

    /// The `/proc/PID/ns/net` of the namespace.
    fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/ns/net", self.holder.id()))
    }

    /// Runs `ip ARGS` in the namespace; panics with its message when it fails.
    fn ip(&self, args: &[&str]) {
        let out = command_in("ip", Some(&self.file))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("ip: {e}\n  hint: apt-get install iproute2"));
        assert!(
            out.status.success(),
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs `work` on a thread inside the namespace (its sockets are the namespace's).
    pub(crate) fn run<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        use std::os::fd::AsRawFd;
        let fd = self.file.as_raw_fd();
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    // SAFETY: setns on this thread only; the descriptor is open.
                    assert_eq!(unsafe { libc::setns(fd, libc::CLONE_NEWNET) }, 0);
                    work()
                })
                .join()
                .unwrap()
        })
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// The hub (the database and the server) and two worker hosts, `a` on 10.231.1.0/24 and `b`
/// on 10.231.2.0/24, each joined to the hub by a veth pair (`eth0` on the host's side).
pub(crate) struct Net {
    pub(crate) hub: Netns,
    pub(crate) a: Netns,
    pub(crate) b: Netns,
}

/// The hub's address on each worker's link.
const HUB_A: &str = "10.231.1.1";
const HUB_B: &str = "10.231.2.1";

impl Net {
    pub(crate) fn new() -> Net {
        assert!(
            Command::new("ip")
                .arg("-V")
                .output()
                .is_ok_and(|o| o.status.success()),
            "iproute2's `ip` is needed to make the test's links\n  hint: apt-get install iproute2"
        );
        let net = Net {
            hub: Netns::new(),
            a: Netns::new(),
            b: Netns::new(),
        };
        net.hub.ip(&["link", "set", "lo", "up"]);
        for (host, hub_side, subnet) in [(&net.a, "to-a", "1"), (&net.b, "to-b", "2")] {
            let pid = host.holder.id().to_string();
            net.hub.ip(&[
                "link", "add", hub_side, "type", "veth", "peer", "name", "eth0", "netns", &pid,
            ]);
            net.hub.ip(&[
                "addr",
                "add",
                &format!("10.231.{subnet}.1/24"),
                "dev",
                hub_side,
            ]);
            net.hub.ip(&["link", "set", hub_side, "up"]);
            host.ip(&["link", "set", "lo", "up"]);
            host.ip(&[
                "addr",
                "add",
                &format!("10.231.{subnet}.2/24"),
                "dev",
                "eth0",
            ]);
            host.ip(&["link", "set", "eth0", "up"]);
        }
        net
    }

    /// PostgreSQL in the hub, on TCP on both links (and its Unix socket, for the test).
    fn database(&self) -> testdb::Server {
        testdb::Server::start_with(testdb::Options {
            listen: vec![HUB_A.into(), HUB_B.into()],
            netns: Some(self.hub.path()),
            ..Default::default()
        })
        .expect("a throwaway PostgreSQL (apt-get install postgresql)")
    }
}

/// The worker side of a link: `up` or `down`.
fn link(host: &Netns, state: &str) {
    host.ip(&["link", "set", "eth0", state]);
}

/// The database and the server in the hub, the `sum` fixture uploaded.
struct Site {
    /// The Unix-socket URL (the test's own view of the database).
    url: String,
    db: String,
    server: Serve,
    _pg: testdb::Server,
}

impl Site {
    fn new(net: &Net) -> Site {
        let pg = net.database();
        let db = pg.fresh_db_name().unwrap();
        let url = pg.url(&db);
        // The server reaches the database over TCP, as a server on another machine would.
        let server = Serve::start(
            &testdb::Server::tcp_url(HUB_A, &db),
            &format!("{HUB_A}:0"),
            Some(&net.hub.file),
        );
        Site {
            url,
            db,
            server,
            _pg: pg,
        }
    }

    /// A worker in `host`, reaching the database over `host`'s link.
    fn worker(&self, host: &Netns, hub: &str, name: &str, lease: &str, cache: &Path) -> Worker {
        let url = testdb::Server::tcp_url(hub, &self.db);
        Worker::start_with(&url, name, lease, cache, &[], Some(&host.file))
    }
}

/// Chaos 5: the link of the worker holding a job goes down mid-job. Its lease expires, the
/// worker on the other host takes the job and judges it; when the link comes back, the cut
/// worker's heartbeat or finish is fenced out: it commits nothing and says it lost the job.
#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn a_worker_cut_off_mid_job_loses_it_to_another_host_and_its_late_writes_commit_nothing() {
    let net = Net::new();
    let site = Site::new(&net);
    let sum = crate::harness::fixture_problem("sum-patient");
    net.hub.run(|| site.server.upload("sum", &sum));
    let (cache_a, cache_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let workers = [
        site.worker(&net.a, HUB_A, "host-a", "2", cache_a.path()),
        site.worker(&net.b, HUB_B, "host-b", "2", cache_b.path()),
    ];
    let mut events = Events::listen(&site.url);
    let slow = crate::harness::program("ac-sleepy-sum.c");
    let id = net.hub.run(|| site.server.submit("sum", &slow));
    let claim = events.claimed();
    assert_eq!(claim.attempt, 1);
    let (cut, other, cut_host) = if claim.worker == "host-a" {
        (&workers[0], &workers[1], &net.a)
    } else {
        (&workers[1], &workers[0], &net.b)
    };
    link(cut_host, "down");
    // The other host reaps the expired lease and judges the job.
    let second = events.claimed();
    assert_eq!(
        (second.job, second.attempt, second.worker.as_str()),
        (claim.job, 2, other.name.as_str())
    );
    let mut left = vec![id];
    events.all_done(&left);
    let judged = stored(&site.url, id);
    assert_eq!(
        judged
            .judgings
            .iter()
            .map(|j| (j.attempt, j.worker.as_str(), j.outcome.as_deref()))
            .collect::<Vec<_>>(),
        [
            (1, cut.name.as_str(), Some("lost")),
            (2, other.name.as_str(), Some("done"))
        ]
    );
    link(cut_host, "up");
    // Its late heartbeat or finish reaches the database and changes nothing.
    let line = cut.wait_line(&format!("job {} attempt 1: lost", claim.job));
    assert!(line.contains("another worker holds it"), "{line}");
    assert_eq!(
        stored(&site.url, id),
        judged,
        "the cut worker changed the submission"
    );
    // The service judges on: two more, then the undisturbed verdict of the same file.
    for _ in 0..2 {
        left.push(net.hub.run(|| site.server.submit("sum", &slow)));
    }
    events.all_done(&left);
    let files = BTreeSet::from([slow.clone()]);
    let calm = undisturbed(
        |f| net.hub.run(|| site.server.submit("sum", f)),
        &site.url,
        &mut events,
        &files,
    );
    let ids: Vec<(i64, String)> = left.iter().map(|id| (*id, key(&slow))).collect();
    assert_invariants(&site.url, &ids, &calm);
    assert_eq!(calm[&key(&slow)].verdict.as_deref(), Some("AC"));
}

/// A copy of the shipped problem `name` keeping only its sample tests (the generator recipe
/// and the other tests left out), so that 200 judgings take minutes: the verdicts compared
/// are those of the same package either way.
fn samples_only(name: &str, into: &Path) -> PathBuf {
    let dir = into.join(name);
    crate::harness::copy_dir(&crate::harness::root().join("problems").join(name), &dir);
    for extra in ["tests.toml", "gen", "brute.py"] {
        let path = dir.join(extra);
        if path.is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        } else if path.exists() {
            std::fs::remove_file(path).unwrap();
        }
    }
    for e in std::fs::read_dir(dir.join("tests")).unwrap().flatten() {
        if !e.file_name().to_string_lossy().starts_with("sample-") {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    dir
}

/// The acceptance test of the service: 200 submissions (AC, WA, TLE, MLE, RE and CE over the
/// four shipped problems, from `solutions/` and `tests/fixtures/service/`) posted to the API
/// of a server in one namespace, judged by three workers in two others, each reaching one
/// final verdict, with the tests' verdicts `judge run --all` gives the same file. The
/// problems keep their sample tests only (2 or 3 each); the TLE file is 4 of the 200.
#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn two_hundred_submissions_judged_by_three_workers_on_two_hosts_match_judge_run() {
    let solution = |p: &str, f: &str| crate::harness::root().join("solutions").join(p).join(f);
    let own = |f: &str| {
        crate::harness::root()
            .join("tests/fixtures/service")
            .join(f)
    };
    let (bwb, hr, mah, snake) = (
        "black-white-board",
        "huarong-road",
        "morning-after-halloween",
        "snake",
    );
    let files: Vec<(&str, PathBuf)> = vec![
        (bwb, solution(bwb, "accepted/bfs-parents.rs")),
        (bwb, solution(bwb, "accepted/brute-bfs-strings.py")),
        (
            bwb,
            solution(bwb, "runtime_error/eight-lines-without-separator.rs"),
        ),
        (bwb, solution(bwb, "wrong_answer/count-only.rs")),
        (bwb, own("re-abort.c")),
        (hr, solution(hr, "accepted/state-graph-dijkstra.rs")),
        (hr, solution(hr, "runtime_error/unchecked-border.rs")),
        (hr, solution(hr, "wrong_answer/same-cell-not-zero.rs")),
        (mah, solution(mah, "accepted/bfs-numbered-cells.rs")),
        (
            mah,
            solution(mah, "memory_limit_exceeded/uncompressed-coordinates.rs"),
        ),
        (mah, solution(mah, "runtime_error/no-stay-move.rs")),
        (mah, solution(mah, "wrong_answer/swaps-allowed.rs")),
        (mah, own("wa-zero.py")),
        (snake, solution(snake, "accepted/bfs-bitset.rs")),
        (
            snake,
            solution(snake, "wrong_answer/tail-cell-forbidden.rs"),
        ),
        (snake, own("ce-undeclared.cpp")),
    ];
    let tle = (hr, own("tle-spin.c"));
    let mut plan: Vec<&(&str, PathBuf)> = (0..196).map(|i| &files[i % files.len()]).collect();
    for at in [10, 60, 110, 160] {
        plan.insert(at, &tle);
    }
    assert_eq!(plan.len(), 200);
    let packages = tempfile::tempdir().unwrap();
    let dirs: BTreeMap<&str, PathBuf> = [bwb, hr, mah, snake]
        .into_iter()
        .map(|p| (p, samples_only(p, packages.path())))
        .collect();
    // `judge run --all` on each distinct file: the verdicts the service must give.
    let mut distinct: Vec<&(&str, PathBuf)> = files.iter().collect();
    distinct.push(&tle);
    let reference: BTreeMap<String, serde_json::Value> = std::thread::scope(|scope| {
        let runs: Vec<_> = distinct
            .chunks(distinct.len().div_ceil(2))
            .map(|chunk| {
                let dirs = &dirs;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(problem, file)| {
                            let doc = crate::harness::judge()
                                .arg("run")
                                .arg(&dirs[problem])
                                .arg(file)
                                .args(["--all", "--json"])
                                .output()
                                .json();
                            (key(file), doc)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    });
    let verdicts: BTreeSet<&str> = reference
        .values()
        .map(|d| d["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        BTreeSet::from(["AC", "CE", "MLE", "RE", "TLE", "WA"]),
        "{reference:#?}"
    );

    let net = Net::new();
    let site = Site::new(&net);
    let (cache_a, cache_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _workers = [
        site.worker(&net.a, HUB_A, "a1", "30", cache_a.path()),
        site.worker(&net.a, HUB_A, "a2", "30", cache_a.path()),
        site.worker(&net.b, HUB_B, "b1", "30", cache_b.path()),
    ];
    let mut events = Events::listen(&site.url);
    let ids: Vec<(i64, &(&str, PathBuf))> = net.hub.run(|| {
        for (name, dir) in &dirs {
            site.server.upload(name, dir);
        }
        plan.iter()
            .map(|entry| (site.server.submit(entry.0, &entry.1), *entry))
            .collect()
    });
    let all: Vec<i64> = ids.iter().map(|(id, _)| *id).collect();
    events.all_done(&all);
    let tests = |doc: &serde_json::Value| -> Vec<(String, String)> {
        doc["tests"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|t| {
                        let s = |k: &str| t[k].as_str().unwrap_or_default().to_string();
                        (s("name"), s("verdict"))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut by_worker: BTreeMap<String, usize> = BTreeMap::new();
    for (id, (problem, file)) in &ids {
        let s = stored(&site.url, *id);
        let run = &reference[&key(file)];
        assert_eq!(s.state, "done", "{s:#?}");
        assert_eq!(s.problem, *problem);
        assert_eq!(
            s.verdict.as_deref(),
            run["verdict"].as_str(),
            "{}: {s:#?}",
            file.display()
        );
        let served: Vec<(String, String)> = s
            .tests
            .iter()
            .map(|t| (t.name.clone(), t.verdict.clone()))
            .collect();
        if run["verdict"] != "CE" {
            assert_eq!(served, tests(run), "{}: {s:#?}", file.display());
        }
        let done: Vec<_> = s
            .judgings
            .iter()
            .filter(|j| j.outcome.as_deref() == Some("done"))
            .collect();
        assert_eq!(done.len(), 1, "one final judging: {s:#?}");
        *by_worker.entry(done[0].worker.clone()).or_default() += 1;
    }
    // Both hosts judged: the work spread over the namespaces.
    assert!(
        by_worker.keys().any(|w| w.starts_with('a')) && by_worker.contains_key("b1"),
        "{by_worker:?}"
    );
    eprintln!("judged by: {by_worker:?}");
}
