//! Each step of the queue (`judge_service::queue`) on both engines: a real PostgreSQL
//! (`judge_service::testdb`, one server per test process, a database per test) and a SQLite
//! file in a folder of the test's own. Leases are expired by setting them in the past, never by
//! waiting. Here rather than beside the code: starting PostgreSQL would double the unit suite's
//! time.

use judge_service::db::{Db, Engine, Sql};
use judge_service::queue::*;
use judge_service::store::{self, NewSubmission};
use std::time::Duration;
use test_case::test_case;

const LEASE: Duration = Duration::from_secs(60);
const NOW: Duration = Duration::ZERO;

/// A database of its own on `engine` (its address, and the folder of a SQLite file, removed
/// when the test ends).
fn url(engine: Engine) -> (String, Option<tempfile::TempDir>) {
    match engine {
        Engine::Postgres => (
            judge_service::testdb::shared().expect("a throwaway PostgreSQL"),
            None,
        ),
        Engine::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite:{}", dir.path().join("judge.db").display());
            (url, Some(dir))
        }
    }
}

/// A connection to a database of its own with the problem `sum`.
struct Store {
    db: Db,
    _dir: Option<tempfile::TempDir>,
}

impl std::ops::Deref for Store {
    type Target = Db;
    fn deref(&self) -> &Db {
        &self.db
    }
}

impl std::ops::DerefMut for Store {
    fn deref_mut(&mut self) -> &mut Db {
        &mut self.db
    }
}

fn db(engine: Engine) -> Store {
    let (url, dir) = url(engine);
    let mut db = judge_service::connect(&url).unwrap();
    store::put_problem(&mut db, "sum", b"not a real package").unwrap();
    Store { db, _dir: dir }
}

fn submit(client: &mut Db, max_attempts: Option<i32>) -> i64 {
    let new = NewSubmission {
        problem: "sum",
        filename: "a.c",
        source: b"int main() {}",
        language: None,
        max_attempts,
        submitter: None,
    };
    store::submit(client, &new).unwrap()
}

/// The lease of `job` ran out (as if its worker stopped renewing it long ago).
fn expire(client: &mut Db, job: i64) {
    client
        .execute(
            "UPDATE jobs SET lease_until = '2000-01-01 00:00:00.000' WHERE id = $1",
            &[&job],
        )
        .unwrap();
}

fn result(verdict: &str, tests: usize) -> Final {
    Final {
        verdict: verdict.into(),
        time_ms: Some(3),
        memory_kib: Some(1024),
        tests: (0..tests)
            .map(|i| TestRow {
                name: format!("t{i}"),
                verdict: verdict.into(),
                time_ms: 3,
                memory_kib: 1024,
                message: String::new(),
                ..TestRow::default()
            })
            .collect(),
        ..Final::default()
    }
}

fn count(client: &mut Db, sql: &str) -> i64 {
    client.query_one(sql, &[]).unwrap().get(0)
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn each_job_is_claimed_once_in_order_with_attempt_one(engine: Engine) {
    let mut c = db(engine);
    let first = submit(&mut c, None);
    let second = submit(&mut c, None);
    let a = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    let b = claim(&mut c, "w2", LEASE).unwrap().unwrap();
    assert_eq!(
        (a.submission, a.fence.attempt, a.fence.worker.as_str()),
        (first, 1, "w1")
    );
    assert_eq!(
        (b.submission, b.fence.attempt, b.fence.worker.as_str()),
        (second, 1, "w2")
    );
    assert_eq!((a.filename.as_str(), a.max_attempts), ("a.c", 3));
    assert!(claim(&mut c, "w3", LEASE).unwrap().is_none());
    let s = store::submission(&mut c, first).unwrap().unwrap();
    assert_eq!(s.state, "judging");
    assert_eq!(s.judgings.len(), 1);
    assert_eq!(s.judgings[0].outcome, None);
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn a_heartbeat_renews_only_the_holders_attempt(engine: Engine) {
    let mut c = db(engine);
    submit(&mut c, None);
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    assert_eq!(heartbeat(&mut c, &job.fence, LEASE).unwrap(), Fenced::Done);
    let other_worker = Fence {
        worker: "w2".into(),
        ..job.fence.clone()
    };
    assert_eq!(
        heartbeat(&mut c, &other_worker, LEASE).unwrap(),
        Fenced::Lost
    );
    let old_attempt = Fence {
        attempt: 0,
        ..job.fence.clone()
    };
    assert_eq!(
        heartbeat(&mut c, &old_attempt, LEASE).unwrap(),
        Fenced::Lost
    );
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn a_late_finish_commits_nothing_and_the_new_holder_writes_once(engine: Engine) {
    let mut c = db(engine);
    let id = submit(&mut c, None);
    let frozen = claim(&mut c, "frozen", LEASE).unwrap().unwrap();
    expire(&mut c, frozen.fence.job);
    let reaped = reap(&mut c, NOW).unwrap();
    assert_eq!(
        reaped,
        vec![Reaped {
            job: frozen.fence.job,
            attempt: 1,
            worker: "frozen".into(),
            failed: false
        }]
    );
    let alive = claim(&mut c, "alive", LEASE).unwrap().unwrap();
    assert_eq!(alive.fence.attempt, 2);
    // The frozen worker wakes: its heartbeat and its finish change nothing.
    assert_eq!(
        heartbeat(&mut c, &frozen.fence, LEASE).unwrap(),
        Fenced::Lost
    );
    assert_eq!(
        finish(&mut c, &frozen.fence, &result("WA", 3)).unwrap(),
        Fenced::Lost
    );
    assert_eq!(count(&mut c, "SELECT count(*) FROM test_results"), 0);
    assert_eq!(
        store::submission(&mut c, id).unwrap().unwrap().verdict,
        None
    );
    assert_eq!(
        finish(&mut c, &alive.fence, &result("AC", 3)).unwrap(),
        Fenced::Done
    );
    // A second finish of the same attempt (a retry after an unseen commit) changes nothing.
    assert_eq!(
        finish(&mut c, &alive.fence, &result("AC", 3)).unwrap(),
        Fenced::Lost
    );
    let s = store::submission(&mut c, id).unwrap().unwrap();
    assert_eq!(
        (s.state.as_str(), s.verdict.as_deref()),
        ("done", Some("AC"))
    );
    assert_eq!(s.tests.len(), 3);
    let outcomes: Vec<_> = s
        .judgings
        .iter()
        .map(|j| (j.attempt, j.worker.as_str(), j.outcome.as_deref()))
        .collect();
    assert_eq!(
        outcomes,
        [(1, "frozen", Some("lost")), (2, "alive", Some("done"))]
    );
    assert!(s.judgings[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("lease expired"));
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn the_reaper_leaves_live_leases_alone(engine: Engine) {
    let mut c = db(engine);
    submit(&mut c, None);
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    assert!(reap(&mut c, NOW).unwrap().is_empty());
    assert_eq!(
        finish(&mut c, &job.fence, &result("AC", 1)).unwrap(),
        Fenced::Done
    );
    expire(&mut c, job.fence.job);
    assert!(
        reap(&mut c, NOW).unwrap().is_empty(),
        "a finished job is never reaped"
    );
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn after_max_attempts_the_submission_is_a_judge_error_naming_each_attempt(engine: Engine) {
    let mut c = db(engine);
    let id = submit(&mut c, Some(2));
    for (n, worker) in [(1, "w1"), (2, "w2")] {
        let job = claim(&mut c, worker, LEASE).unwrap().unwrap();
        assert_eq!(job.fence.attempt, n);
        expire(&mut c, job.fence.job);
        let reaped = reap(&mut c, NOW).unwrap();
        assert_eq!(reaped.len(), 1);
        assert_eq!(reaped[0].failed, n == 2);
    }
    assert!(
        claim(&mut c, "w3", LEASE).unwrap().is_none(),
        "no third attempt"
    );
    let s = store::submission(&mut c, id).unwrap().unwrap();
    assert_eq!(
        (s.state.as_str(), s.verdict.as_deref()),
        ("done", Some("JE"))
    );
    let error = s.error.unwrap();
    assert!(error.starts_with("no verdict after 2 attempts:"), "{error}");
    assert!(
        error.contains("attempt 1 on w1: its lease expired"),
        "{error}"
    );
    assert!(
        error.contains("attempt 2 on w2: its lease expired"),
        "{error}"
    );
    assert_eq!(
        count(&mut c, "SELECT count(*) FROM jobs WHERE state = 'failed'"),
        1
    );
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn a_release_requeues_after_the_back_off_then_fails(engine: Engine) {
    let mut c = db(engine);
    let id = submit(&mut c, Some(2));
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    let back_off = Duration::from_secs(3600);
    assert_eq!(
        release(&mut c, &job.fence, "the package does not unpack", back_off).unwrap(),
        Fenced::Done
    );
    assert!(
        claim(&mut c, "w2", LEASE).unwrap().is_none(),
        "not before its back-off"
    );
    c.execute("UPDATE jobs SET not_before = now()", &[])
        .unwrap();
    let again = claim(&mut c, "w2", LEASE).unwrap().unwrap();
    assert_eq!(
        release(&mut c, &job.fence, "late", NOW).unwrap(),
        Fenced::Lost
    );
    assert_eq!(
        release(&mut c, &again.fence, "the package does not unpack", NOW).unwrap(),
        Fenced::Done
    );
    let s = store::submission(&mut c, id).unwrap().unwrap();
    assert_eq!(s.verdict.as_deref(), Some("JE"));
    assert!(s
        .error
        .unwrap()
        .contains("attempt 2 on w2: the package does not unpack"));
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn claims_from_many_connections_never_take_a_job_twice(engine: Engine) {
    let (url, _dir) = url(engine);
    let mut c = judge_service::connect(&url).unwrap();
    store::put_problem(&mut c, "sum", b"p").unwrap();
    for _ in 0..200 {
        submit(&mut c, None);
    }
    let claimed: Vec<Vec<i64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|w| {
                let url = &url;
                s.spawn(move || {
                    let mut c = judge_service::connect(url).unwrap();
                    let mut mine = Vec::new();
                    while let Some(job) = claim(&mut c, &format!("w{w}"), LEASE).unwrap() {
                        assert_eq!(
                            finish(&mut c, &job.fence, &result("AC", 1)).unwrap(),
                            Fenced::Done
                        );
                        mine.push(job.fence.job);
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<i64> = claimed.concat();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 200);
    assert_eq!(count(&mut c, "SELECT count(*) FROM test_results"), 200);
    assert_eq!(count(&mut c, "SELECT count(*) FROM judgings"), 200);
}

#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn the_schema_is_created_once_and_a_newer_one_refused(engine: Engine) {
    let (url, _dir) = url(engine);
    let mut c = judge_service::connect(&url).unwrap();
    judge_service::schema::ensure(&mut c).unwrap();
    assert_eq!(count(&mut c, "SELECT count(*) FROM schema_version"), 1);
    c.execute("UPDATE schema_version SET version = 99", &[])
        .unwrap();
    let Err(e) = judge_service::connect(&url) else {
        panic!("a newer schema was accepted")
    };
    let e = e.to_string();
    assert!(e.contains("version 99, newer than this judge's 1"), "{e}");
}

/// Engine events older than what is kept are pruned; newer ones, and everything else about
/// their submission, stay.
#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn the_pruning_removes_only_old_events(engine: Engine) {
    let mut c = db(engine);
    let id = submit(&mut c, None);
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    for name in ["old", "new"] {
        let one = [(name.to_string(), "{}".to_string())];
        assert_eq!(events(&mut c, &job.fence, id, &one).unwrap(), Fenced::Done);
    }
    c.execute(
        "UPDATE events SET created_at = '2000-01-01 00:00:00.000' WHERE name = 'old'",
        &[],
    )
    .unwrap();
    assert_eq!(prune_events(&mut c, EVENTS_KEPT).unwrap(), 1);
    let left: Vec<String> = c
        .query("SELECT name FROM events ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(left, ["new"]);
    assert_eq!(prune_events(&mut c, EVENTS_KEPT).unwrap(), 0);
    assert_eq!(count(&mut c, "SELECT count(*) FROM jobs"), 1);
}

/// A worker's events are written together, in their order, each announced; a write whose job
/// is no longer this attempt's writes none of them.
#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn a_workers_events_are_written_in_order_and_fenced(engine: Engine) {
    let (url, _dir) = url(engine);
    let mut c = judge_service::connect(&url).unwrap();
    store::put_problem(&mut c, "sum", b"not a real package").unwrap();
    let id = submit(&mut c, None);
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    let mut listener = judge_service::connect(&url).unwrap();
    listener.listen(&[EVENT]).unwrap();
    let batch: Vec<(String, String)> = ["c", "a", "b", "a"]
        .iter()
        .enumerate()
        .map(|(i, name)| (name.to_string(), format!("{{\"n\":{i}}}")))
        .collect();
    assert_eq!(
        events(&mut c, &job.fence, id, &batch).unwrap(),
        Fenced::Done
    );
    let rows: Vec<(String, String)> = c
        .query("SELECT name, data FROM events ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(rows, batch);
    let mut heard = 0;
    while listener.wait(Duration::from_secs(2)).unwrap().is_some() {
        heard += 1;
        if heard == batch.len() {
            break;
        }
    }
    assert_eq!(heard, batch.len(), "one notification an event");
    let stale = Fence {
        attempt: job.fence.attempt + 1,
        ..job.fence.clone()
    };
    assert_eq!(events(&mut c, &stale, id, &batch).unwrap(), Fenced::Lost);
    assert_eq!(count(&mut c, "SELECT count(*) FROM events"), 4);
    assert_eq!(events(&mut c, &job.fence, id, &[]).unwrap(), Fenced::Done);
}

/// A finish writes every test row, in order, however many a statement holds.
#[test_case(Engine::Postgres; "postgres")]
#[test_case(Engine::Sqlite; "sqlite")]
fn a_finish_writes_every_test_row_in_order(engine: Engine) {
    let mut c = db(engine);
    let id = submit(&mut c, None);
    let job = claim(&mut c, "w1", LEASE).unwrap().unwrap();
    let mut many = result("AC", 250);
    many.tests[137].message = "the 138th".into();
    assert_eq!(finish(&mut c, &job.fence, &many).unwrap(), Fenced::Done);
    let rows: Vec<(i32, String, String)> = c
        .query(
            "SELECT ordinal, name, message FROM test_results WHERE submission = $1 ORDER BY ordinal",
            &[&id],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(rows.len(), 250);
    for (i, (ordinal, name, _)) in rows.iter().enumerate() {
        assert_eq!(
            (*ordinal, name.as_str()),
            (i as i32 + 1, format!("t{i}").as_str())
        );
    }
    assert_eq!(rows[137].2, "the 138th");
}
