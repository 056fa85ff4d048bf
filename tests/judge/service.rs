//! The judging service under failure: real `judge worker` processes on a throwaway PostgreSQL
//! (`judge_service::testdb`), killed with SIGKILL, frozen with SIGSTOP past their lease, and
//! given a job that kills every worker that takes it. Every wait is for an event — a
//! PostgreSQL notification (a claim, a final verdict, sent only on commit) or a line a worker
//! prints — with a deadline; nothing sleeps in the hope that something happened.
//!
//! Each asserts the invariants: every submission reaches exactly one final verdict, the one
//! an undisturbed judging gives, with one row per test and every attempt recorded.

use crate::chaos::Worker;
use crate::harness::{fixture_problem, program};
use judge_service::db::Sql;
use judge_service::queue::{CLAIMED, DONE};
use judge_service::store::{self, Submission};
use std::time::{Duration, Instant};

/// Long enough for any step on a loaded 2-core machine, short enough to fail a hang quickly.
const DEADLINE: Duration = Duration::from_secs(90);
/// The workers' lease in these tests: a frozen or killed worker's job comes back in seconds.
const LEASE: &str = "2";

fn database() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)")
}

/// The queue's notifications: claims and final verdicts, as they commit.
struct Events {
    client: judge_service::db::Db,
}

#[derive(Debug, PartialEq)]
struct Claim {
    job: i64,
    attempt: i32,
    worker: String,
}

impl Events {
    fn listen(url: &str) -> Events {
        let mut client = judge_service::connect(url).unwrap();
        client.listen(&[CLAIMED, DONE]).unwrap();
        Events { client }
    }

    /// The next notification on `channel` whose payload `accept` takes.
    fn wait<T>(&mut self, channel: &str, mut accept: impl FnMut(&str) -> Option<T>) -> T {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {channel} notification in {DEADLINE:?}");
            if let Some((name, payload)) = self.client.wait(left).unwrap() {
                if name == channel {
                    if let Some(found) = accept(&payload) {
                        return found;
                    }
                }
            }
        }
    }

    fn claimed(&mut self) -> Claim {
        self.wait(CLAIMED, |p| {
            let mut parts = p.splitn(3, ':');
            Some(Claim {
                job: parts.next()?.parse().ok()?,
                attempt: parts.next()?.parse().ok()?,
                worker: parts.next()?.to_string(),
            })
        })
    }

    fn done(&mut self, submission: i64) {
        let want = submission.to_string();
        self.wait(DONE, |p| (p == want).then_some(()))
    }
}

/// Queues `file` (under the fixtures' programs) on the `sum-patient` fixture (`sum` with a
/// 5 s limit, so that ac-sleepy-sum.c stays AC on a busy machine); returns its id.
fn submit(url: &str, file: &str, max_attempts: u32) -> i64 {
    crate::chaos::submit_db(
        url,
        &fixture_problem("sum-patient"),
        &program(file),
        max_attempts,
    )
}

fn stored(url: &str, id: i64) -> Submission {
    let mut client = judge_service::connect(url).unwrap();
    store::submission(&mut client, id).unwrap().unwrap()
}

/// The invariants of a finished submission: done, one row per test of `sum`, and its verdict
/// and tests' verdicts those of `undisturbed`.
fn assert_judged_like(s: &Submission, undisturbed: &Submission) {
    assert_eq!(s.state, "done", "{s:#?}");
    assert_eq!(s.verdict, undisturbed.verdict, "{s:#?}");
    let tests = |s: &Submission| -> Vec<(String, String)> {
        s.tests
            .iter()
            .map(|t| (t.name.clone(), t.verdict.clone()))
            .collect()
    };
    assert_eq!(tests(s), tests(undisturbed));
    assert_eq!(
        s.tests.len(),
        3,
        "one row per test of sum, none twice: {s:#?}"
    );
}

fn outcomes(s: &Submission) -> Vec<(i32, &str, Option<&str>)> {
    s.judgings
        .iter()
        .map(|j| (j.attempt, j.worker.as_str(), j.outcome.as_deref()))
        .collect()
}

#[test]
fn a_worker_killed_holding_a_job_loses_it_to_another_that_judges_it_once() {
    let url = database();
    let mut events = Events::listen(&url);
    let a = Worker::start(&url, "a", LEASE);
    // Half a second of CPU per test: the job is held for a while.
    let id = submit(&url, "ac-sleepy-sum.c", 3);
    let claim = events.claimed();
    assert_eq!((claim.attempt, claim.worker.as_str()), (1, "a"));
    a.signal(libc::SIGKILL);
    let b = Worker::start(&url, "b", LEASE);
    events.done(id);
    b.wait_line(&format!(
        "job {} attempt 1 of a: lease expired, requeued",
        claim.job
    ));
    let chaos = stored(&url, id);
    // The same program, undisturbed, on the surviving worker.
    let calm = submit(&url, "ac-sleepy-sum.c", 3);
    events.done(calm);
    let calm = stored(&url, calm);
    assert_eq!(calm.verdict.as_deref(), Some("AC"), "{calm:#?}");
    assert_judged_like(&chaos, &calm);
    assert_eq!(
        outcomes(&chaos),
        [(1, "a", Some("lost")), (2, "b", Some("done"))]
    );
}

#[test]
fn a_worker_frozen_past_its_lease_commits_nothing_when_it_wakes() {
    let url = database();
    let mut events = Events::listen(&url);
    let a = Worker::start(&url, "frozen", LEASE);
    let id = submit(&url, "ac-sleepy-sum.c", 3);
    let claim = events.claimed();
    assert_eq!(claim.worker, "frozen");
    a.signal(libc::SIGSTOP);
    let b = Worker::start(&url, "alive", LEASE);
    events.done(id);
    let judged = stored(&url, id);
    assert_eq!(
        outcomes(&judged),
        [(1, "frozen", Some("lost")), (2, "alive", Some("done"))]
    );
    a.signal(libc::SIGCONT);
    // Its heartbeat or its finish finds the job taken: it says so and drops the result.
    let line = a.wait_line(&format!("job {} attempt 1: lost", claim.job));
    assert!(line.contains("another worker holds it"), "{line}");
    let after = stored(&url, id);
    assert_eq!(after, judged, "the frozen worker changed the submission");
    let calm = submit(&url, "ac-sleepy-sum.c", 3);
    events.done(calm);
    assert_judged_like(&after, &stored(&url, calm));
    drop(b);
}

#[test]
fn a_job_that_kills_every_worker_ends_as_a_judge_error_after_max_attempts() {
    let url = database();
    let mut events = Events::listen(&url);
    let id = submit(&url, "ac-sleepy-sum.c", 3);
    // The poison: each worker that takes the job dies with it.
    for attempt in 1..=3 {
        let name = format!("victim{attempt}");
        let w = Worker::start(&url, &name, "1");
        let claim = events.claimed();
        assert_eq!(
            (claim.attempt, claim.worker.as_str()),
            (attempt, name.as_str())
        );
        w.signal(libc::SIGKILL);
    }
    let survivor = Worker::start(&url, "survivor", "1");
    events.done(id);
    let s = stored(&url, id);
    assert_eq!(
        (s.state.as_str(), s.verdict.as_deref()),
        ("done", Some("JE")),
        "{s:#?}"
    );
    assert!(s.tests.is_empty(), "{s:#?}");
    assert_eq!(
        outcomes(&s),
        [
            (1, "victim1", Some("lost")),
            (2, "victim2", Some("lost")),
            (3, "victim3", Some("lost"))
        ]
    );
    let error = s.error.unwrap();
    assert!(error.starts_with("no verdict after 3 attempts:"), "{error}");
    assert!(
        error.contains("attempt 3 on victim3: its lease expired"),
        "{error}"
    );
    survivor.wait_line("lease expired, judge error, its attempts are spent");
    // No fourth attempt, and the queue goes on: the survivor judges the next submission.
    let next = submit(&url, "ac.c", 3);
    let claim = events.claimed();
    assert_eq!((claim.attempt, claim.worker.as_str()), (1, "survivor"));
    events.done(next);
    assert_eq!(stored(&url, next).verdict.as_deref(), Some("AC"));
    let mut client = judge_service::connect(&url).unwrap();
    let attempts: i64 = client
        .query_one(
            "SELECT count(*) FROM judgings WHERE job = $1",
            &[&claim.job],
        )
        .unwrap()
        .get(0);
    assert_eq!(attempts, 1);
    let poison: i32 = client
        .query_one("SELECT attempt FROM jobs WHERE submission = $1", &[&id])
        .unwrap()
        .get(0);
    assert_eq!(poison, 3);
}
