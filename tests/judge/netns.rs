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
use crate::harness::fixture_problem;
use judge_service::testdb;
use std::collections::BTreeSet;
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
        Worker::start(&url, name, lease, cache, &[], Some(&host.file))
    }
}

/// Chaos 5: the link of the worker holding a job goes down mid-job. Its lease expires, the
/// worker on the other host takes the job and judges it; when the link comes back, the cut
/// worker's heartbeat or finish is fenced out: it commits nothing and says it lost the job.
#[test]
fn a_worker_cut_off_mid_job_loses_it_to_another_host_and_its_late_writes_commit_nothing() {
    let net = Net::new();
    let site = Site::new(&net);
    net.hub
        .run(|| site.server.upload("sum", &fixture_problem("sum")));
    let (cache_a, cache_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let workers = [
        site.worker(&net.a, HUB_A, "host-a", "2", cache_a.path()),
        site.worker(&net.b, HUB_B, "host-b", "2", cache_b.path()),
    ];
    let mut events = Events::listen(&site.url);
    let slow = crate::harness::program("ac-slow-sum.c");
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
    // Both hosts judge on: two more, then the undisturbed verdict of the same file.
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
