//! The judging service's throughput, on a throwaway PostgreSQL (`testdb`, fsync off):
//!
//! - **queue**: claim + finish cycles per second alone (no judging), with 1, 2 and 4 threads
//!   each holding a connection, over `--jobs` queued submissions;
//! - **judging**: submissions judged per second by one `judge worker --slots N` (N = 1, 2, 4)
//!   on a trivial program (`tests/fixtures/programs/ac.c` on the `sum` fixture: 3 tests;
//!   `--program NAME` takes another file of that folder, e.g. `ac-slow-sum.c`, 0.5 s of CPU
//!   a test),
//!   its builds cached (one submission judged first, untimed), rounds interleaved so that a
//!   load that comes and goes hits each alike. The span is read from the database: the first
//!   measured claim to the last finish.
//!
//! ```text
//! cargo build --release
//! cargo run --release -p judge-service --example service_bench -- target/release/judge
//! cargo run --release -p judge-service --example service_bench -- target/release/judge --rounds 3 --submissions 60 --jobs 5000
//! cargo run --release -p judge-service --example service_bench -- target/release/judge --program ac-slow-sum.c --submissions 8
//! ```
//!
//! Defaults: `--rounds 5 --submissions 300 --jobs 1000` (medians of 5 rounds; about two
//! minutes on 2 CPUs). `--slots 1,2`: other slot (and thread) counts than 1, 2 and 4.
//!
//! `--sqlite`: the same on a SQLite file, judged by `judge serve --workers N` (the one-machine
//! mode) instead of `judge worker --slots N`.
//!
//! Run it as root (the sandbox needs it) on a quiet machine; the load average is printed.

#![expect(clippy::print_stdout, reason = "a benchmark prints its numbers")]

use judge_service::db::Sql;
use judge_service::queue::{self, Final, TestRow};
use judge_service::store::{self, NewSubmission};
use judge_service::testdb;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The program judged (`--program NAME`, a file of `tests/fixtures/programs`).
static PROGRAM: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Where the databases are made: a throwaway PostgreSQL, or SQLite files in a folder.
enum Backend {
    Pg(testdb::Server),
    Sqlite(tempfile::TempDir),
}

impl Backend {
    /// A fresh database's address.
    fn fresh_db(&self) -> Result<String, String> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        match self {
            Backend::Pg(pg) => pg.fresh_db(),
            Backend::Sqlite(dir) => {
                let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(format!(
                    "sqlite:{}",
                    dir.path().join(format!("{n}.db")).display()
                ))
            }
        }
    }
}

/// A fresh database with the `sum` fixture and `n` submissions of the program queued.
fn queued(pg: &Backend, n: usize) -> (String, judge_service::db::Db) {
    let url = pg.fresh_db().expect("a database");
    let mut client = judge_service::connect(&url).expect("connect");
    let package = store::pack(&root().join("tests/fixtures/problems/sum")).expect("pack");
    store::put_problem(&mut client, "sum", &package).expect("problem");
    submit(&mut client, n);
    (url, client)
}

fn submit(client: &mut judge_service::db::Db, n: usize) {
    let name = PROGRAM.get().expect("the program is set");
    let source = std::fs::read(root().join("tests/fixtures/programs").join(name)).expect(name);
    for _ in 0..n {
        store::submit(
            client,
            &NewSubmission {
                problem: "sum",
                filename: name,
                source: &source,
                language: None,
                max_attempts: None,
                submitter: None,
            },
        )
        .expect("submit");
    }
}

/// Claim + finish cycles per second with `threads` threads until the queue is empty.
fn queue_rate(pg: &Backend, jobs: usize, threads: usize) -> f64 {
    let (url, _client) = queued(pg, jobs);
    let result = Final {
        verdict: "AC".into(),
        tests: (1..=3)
            .map(|i| TestRow {
                name: format!("{i}"),
                verdict: "AC".into(),
                time_ms: 1,
                memory_kib: 1024,
                message: String::new(),
                ..TestRow::default()
            })
            .collect(),
        ..Final::default()
    };
    let start = Instant::now();
    let done: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (url, result) = (&url, &result);
                scope.spawn(move || {
                    let mut client = judge_service::connect(url).expect("connect");
                    let name = format!("bench{t}");
                    let mut n = 0;
                    while let Some(job) =
                        queue::claim(&mut client, &name, Duration::from_secs(60)).expect("claim")
                    {
                        let written = queue::finish(&mut client, &job.fence, result);
                        assert_eq!(written.expect("finish"), queue::Fenced::Done);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(done, jobs, "every job claimed and finished once");
    done as f64 / start.elapsed().as_secs_f64()
}

/// Submissions judged per second by `judge worker --slots slots` (on SQLite, `judge serve
/// --workers slots`) over `n` submissions.
fn judging_rate(pg: &Backend, judge: &Path, slots: usize, n: usize) -> f64 {
    let (url, mut client) = queued(pg, 1);
    let cache = tempfile::tempdir().expect("a cache folder");
    let mut command = Command::new(judge);
    match pg {
        Backend::Pg(_) => command
            .args(["worker", "--db", &url, "--lease", "60", "--name", "bench"])
            .args(["--slots", &slots.to_string(), "--cache"])
            .arg(cache.path().join("packages")),
        Backend::Sqlite(_) => command
            .args(["serve", "--db", &url, "--listen", "127.0.0.1:0"])
            .args(["--workers", &slots.to_string()]),
    };
    let mut worker = command
        .env("JUDGE_CACHE_DIR", cache.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("judge worker");
    // Polled through the jobs' partial indexes, and not often: a count over the submissions
    // every 50 ms took about 2.5 % of the machine's CPU beside one slot, off the slot's path,
    // which lowered what more slots could gain. The span is read from the database anyway.
    let wait_done = |client: &mut judge_service::db::Db, total: i64| {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let busy: bool = client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued')
                         OR EXISTS (SELECT 1 FROM jobs WHERE state = 'running')",
                    &[],
                )
                .expect("jobs left")
                .get(0);
            if !busy {
                let done: i64 = client
                    .query_one("SELECT count(*) FROM submissions WHERE state = 'done'", &[])
                    .expect("count")
                    .get(0);
                assert_eq!(done, total, "every submission judged");
                return;
            }
            assert!(Instant::now() < deadline, "not judged in 10 minutes");
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    // The build and the package cached first, untimed.
    wait_done(&mut client, 1);
    let (machine0, judge0) = (machine_busy_ms(), process_cpu_ms(worker.id()));
    submit(&mut client, n);
    wait_done(&mut client, 1 + n as i64);
    let (machine1, judge1) = (machine_busy_ms(), process_cpu_ms(worker.id()));
    CPU.with(|c| {
        c.borrow_mut().push((
            (machine1 - machine0) / n as f64,
            (judge1 - judge0) / n as f64,
            0.0,
        ))
    });
    // SIGTERM: the worker (or server) stops as an operator stops it, removing its work folders
    // and cgroups (SIGKILL would leave them to the next judge).
    // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
    unsafe { libc::kill(worker.id() as libc::pid_t, libc::SIGTERM) };
    let _ = worker.wait();
    let verdicts: i64 = client
        .query_one("SELECT count(*) FROM submissions WHERE verdict = 'AC'", &[])
        .expect("verdicts")
        .get(0);
    assert_eq!(verdicts, 1 + n as i64, "every submission judged AC");
    let span_ms: i64 = client
        .query_one(
            "SELECT (extract(epoch FROM max(j.finished_at) - min(j.started_at)) * 1000)::bigint
             FROM judgings j JOIN jobs ON jobs.id = j.job WHERE jobs.submission > 1",
            &[],
        )
        .expect("span")
        .get(0);
    let spans = client
        .query_one(
            "SELECT sum((extract(epoch FROM j.finished_at - j.started_at) * 1000)::bigint)::bigint, count(*)
             FROM judgings j JOIN jobs ON jobs.id = j.job WHERE jobs.submission > 1",
            &[],
        )
        .expect("judging time");
    let (total, count): (i64, i64) = (spans.get(0), spans.get(1));
    let judging_ms = total as f64 / count as f64;
    CPU.with(|c| c.borrow_mut().last_mut().expect("pushed above").2 = judging_ms);
    n as f64 / (span_ms as f64 / 1000.0)
}

thread_local! {
    /// (machine busy ms, judge process ms incl. its children) per submission and the mean
    /// judging's span in ms (claim to finish), each judging run.
    static CPU: std::cell::RefCell<Vec<(f64, f64, f64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// CPU time all CPUs spent busy since boot, in ms (`/proc/stat`).
fn machine_busy_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").expect("/proc/stat");
    let cpu: Vec<f64> = stat
        .lines()
        .next()
        .expect("a cpu line")
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    let busy: f64 = cpu.iter().take(8).sum::<f64>() - cpu[3] - cpu[4];
    busy * 1000.0 / ticks_per_second()
}

/// CPU time of a process and of the children it waited for, in ms (`/proc/PID/stat`).
fn process_cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    let after_name = &stat[stat.rfind(')').expect("a name") + 2..];
    let fields: Vec<f64> = after_name
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    // Fields 14-17 (utime stime cutime cstime); after the name, field 3 is index 0.
    fields[11..15].iter().sum::<f64>() * 1000.0 / ticks_per_second()
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    (unsafe { libc::sysconf(libc::_SC_CLK_TCK) }) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut judge = None;
    // The defaults are the measurements of the docs: fewer submissions a round (40 judge in a
    // third of a second) or fewer rounds swing the ratios by a tenth and more on a shared machine.
    let (mut rounds, mut submissions, mut jobs) = (5usize, 300usize, 1000usize);
    let mut program = "ac.c".to_string();
    let mut sqlite = false;
    let mut threads = vec![1, 2, 4];
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} takes a number"))
        };
        match arg.as_str() {
            "--rounds" => rounds = number("--rounds"),
            "--submissions" => submissions = number("--submissions"),
            "--jobs" => jobs = number("--jobs"),
            "--program" => program = args.next().expect("--program takes a file name"),
            "--sqlite" => sqlite = true,
            "--slots" => {
                threads = args
                    .next()
                    .expect("--slots takes a list")
                    .split(',')
                    .map(|n| n.parse().expect("--slots takes numbers, as 1,2,4"))
                    .collect()
            }
            path => judge = Some(PathBuf::from(path)),
        }
    }
    PROGRAM.set(program.clone()).expect("set once");
    let judge = judge.unwrap_or_else(|| root().join("target/release/judge"));
    assert!(
        judge.is_file(),
        "{}: no judge binary\n  hint: cargo build --release",
        judge.display()
    );
    let pg = if sqlite {
        println!("on SQLite files (judge serve --workers N)");
        Backend::Sqlite(tempfile::tempdir().expect("a folder for the databases"))
    } else {
        Backend::Pg(testdb::Server::start().expect("a throwaway PostgreSQL"))
    };
    println!("load average at start: {}", load());
    let mut queue_rates = vec![Vec::new(); threads.len()];
    let mut judge_rates = vec![Vec::new(); threads.len()];
    for round in 0..rounds {
        // Interleaved, the order turned each round.
        let mut order: Vec<usize> = (0..threads.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for &i in &order {
            queue_rates[i].push(queue_rate(&pg, jobs, threads[i]));
        }
        for &i in &order {
            judge_rates[i].push(judging_rate(&pg, &judge, threads[i], submissions));
        }
        println!("round {} done, load average {}", round + 1, load());
    }
    let q: Vec<f64> = queue_rates.into_iter().map(median).collect();
    let j: Vec<f64> = judge_rates.into_iter().map(median).collect();
    println!("queue alone ({jobs} jobs, claim + finish of 3 test rows), median of {rounds}:");
    for (i, t) in threads.iter().enumerate() {
        println!(
            "  {t} thread(s): {:7.0} cycles/s  ({:.2}x of 1)",
            q[i],
            q[i] / q[0]
        );
    }
    println!(
        "judging ({submissions} submissions of {program} on sum, 3 tests each), median of {rounds}:"
    );
    let cpu = CPU.with(|c| c.borrow().clone());
    for (i, s) in threads.iter().enumerate() {
        // Runs were pushed in the order of each round; pick this slot count's.
        let mine: Vec<(f64, f64, f64)> = (0..rounds)
            .map(|round| {
                let at = if round % 2 == 1 {
                    threads.len() - 1 - i
                } else {
                    i
                };
                cpu[round * threads.len() + at]
            })
            .collect();
        println!(
            "  {s} slot(s):   {:7.2} submissions/s  ({:.2}x of 1); a submission: machine CPU {:.1} ms, judge CPU {:.1} ms, judging {:.1} ms",
            j[i],
            j[i] / j[0],
            median(mine.iter().map(|c| c.0).collect()),
            median(mine.iter().map(|c| c.1).collect()),
            median(mine.iter().map(|c| c.2).collect()),
        );
    }
    println!("load average at end: {}", load());
}
