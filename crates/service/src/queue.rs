//! The job queue: claim, heartbeat, finish, release and the reaper, each one transaction.
//!
//! A claim bumps the job's `attempt`, the fencing token: every later write of the worker is an
//! UPDATE conditional on (job, attempt, worker, state 'running'), so a worker that lost the
//! job — its lease expired and the reaper requeued it, or another worker holds a later
//! attempt — changes nothing (0 rows, the transaction rolled back). A finish writes the
//! verdict and the per-test rows in the same transaction as that fenced change. The reaper
//! requeues expired leases with a back-off, and ends a job whose `max_attempts` are spent as a
//! judge error naming each attempt's reason: never lost, never retried forever.
//!
//! Notifications (sent on commit only, so a rolled-back write announces nothing):
//! [`QUEUED`] when work may be claimable, [`CLAIMED`] with `job:attempt:worker`, [`DONE`] with
//! the submission id when it reaches its final verdict.

use crate::db::{Db, Engine, Sql, Tx};
use crate::digest::Environment;
use crate::Error;
use std::time::Duration;

pub use crate::rows::{TestRow, CLAIMED, DONE, EVENT, QUEUED};

/// A job a worker holds: the fence its writes carry, and the submission to judge.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub fence: Fence,
    pub submission: i64,
    /// The problem's name, as submitted.
    pub problem: String,
    pub max_attempts: i32,
    /// The package blob's hash, the source blob's hash, the file name and the language asked
    /// for (none: guessed from the file name).
    pub package: String,
    pub source: String,
    pub filename: String,
    pub language: Option<String>,
}

/// What a worker's write is conditional on: the job, the attempt it claimed, and itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub job: i64,
    pub attempt: i32,
    pub worker: String,
}

/// A submission's final result, as a finish writes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Final {
    pub verdict: String,
    pub score: Option<f64>,
    pub time_ms: Option<i64>,
    pub memory_kib: Option<i64>,
    /// Why the judge could not judge it (a JE's message).
    pub error: Option<String>,
    pub tests: Vec<TestRow>,
    /// What the first test printed and the compiler said (kept for the Judge0 API's runs).
    pub output: Option<crate::judge0::RunOutput>,
    /// The judging as `judge run --json` gives it (its document, with the problem's and the
    /// file's names as submitted); none when the worker could not judge.
    pub report: Option<String>,
    /// What it was judged on (none: the package could not be read).
    pub inputs: Option<crate::provenance::Provenance>,
}

/// Whether a fenced write took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fenced {
    Done,
    /// The job is no longer this worker's attempt: nothing was written.
    Lost,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Takes the next claimable job (queued, its back-off over; by priority, then age) for
/// `worker`, with a lease of `lease`. Workers never wait for each other: a row another
/// transaction is claiming is skipped.
pub fn claim(client: &mut Db, worker: &str, lease: Duration) -> Result<Option<Claimed>, Error> {
    claim_as(client, worker, lease, None)
}

/// [`claim`] by a worker of environment `env`, recorded in its judging. While the organiser
/// pins a digest ([`set_pin`]), only a worker of that digest claims (one without an
/// environment never does).
pub fn claim_as(
    client: &mut Db,
    worker: &str,
    lease: Duration,
    env: Option<&Environment>,
) -> Result<Option<Claimed>, Error> {
    let digest = env.map(|e| e.digest.as_str());
    let mut tx = client.transaction()?;
    let row = tx.query_opt(
        "UPDATE jobs SET state = 'running', attempt = attempt + 1, worker = $1,
                lease_until = now() + make_interval(secs => $2)
         WHERE id = (SELECT id FROM jobs WHERE state = 'queued' AND not_before <= now()
                     ORDER BY priority, id FOR UPDATE SKIP LOCKED LIMIT 1)
           AND NOT EXISTS (SELECT 1 FROM settings
                           WHERE key = 'pin_digest' AND value IS DISTINCT FROM $3)
         RETURNING id, attempt, submission, max_attempts",
        &[&worker, &secs(lease), &digest],
    )?;
    let Some(row) = row else {
        return Ok(None);
    };
    let (job, attempt, submission, max_attempts): (i64, i32, i64, i32) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    tx.execute(
        "INSERT INTO judgings (job, attempt, worker, digest, environment)
         VALUES ($1, $2, $3, $4, $5)",
        &[
            &job,
            &attempt,
            &worker,
            &digest,
            &env.map(|e| e.description.as_str()),
        ],
    )?;
    let sub = tx.query_one(
        "UPDATE submissions SET state = 'judging' WHERE id = $1
         RETURNING package, source, filename, language, problem",
        &[&submission],
    )?;
    let payload = format!("{job}:{attempt}:{worker}");
    tx.notify(CLAIMED, &payload)?;
    tx.commit()?;
    Ok(Some(Claimed {
        fence: Fence {
            job,
            attempt,
            worker: worker.to_string(),
        },
        submission,
        max_attempts,
        package: sub.get(0),
        source: sub.get(1),
        filename: sub.get(2),
        language: sub.get(3),
        problem: sub.get(4),
    }))
}

/// Pins the environment digest workers must have to claim (`None`: any worker claims).
pub fn set_pin(client: &mut Db, digest: Option<&str>) -> Result<(), Error> {
    match digest {
        Some(d) => client.execute(
            "INSERT INTO settings (key, value) VALUES ('pin_digest', $1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&d],
        )?,
        None => client.execute("DELETE FROM settings WHERE key = 'pin_digest'", &[])?,
    };
    // Workers idle on a pin that changed look again.
    client.notify(QUEUED, "")?;
    Ok(())
}

/// The pinned environment digest, if any.
pub fn pinned(client: &mut Db) -> Result<Option<String>, Error> {
    Ok(client
        .query_opt("SELECT value FROM settings WHERE key = 'pin_digest'", &[])?
        .map(|r| r.get(0)))
}

/// Renews the lease. [`Fenced::Lost`]: the job is no longer ours; stop and drop the work.
pub fn heartbeat(client: &mut Db, fence: &Fence, lease: Duration) -> Result<Fenced, Error> {
    let n = client.execute(
        "UPDATE jobs SET lease_until = now() + make_interval(secs => $4)
         WHERE id = $1 AND attempt = $2 AND worker = $3 AND state = 'running'",
        &[&fence.job, &fence.attempt, &fence.worker, &secs(lease)],
    )?;
    if n == 1 {
        seen(client, &fence.worker, "judging")?;
    }
    Ok(if n == 1 { Fenced::Done } else { Fenced::Lost })
}

/// A worker slot starts: its row in `workers` (made, or renewed for a name seen before: its
/// counts are kept), idle.
pub fn register(
    client: &mut Db,
    worker: &str,
    env: Option<&Environment>,
    lease: Duration,
) -> Result<(), Error> {
    client.execute(
        "INSERT INTO workers (name, digest, environment, state, lease_ms)
         VALUES ($1, $2, $3, 'idle', $4)
         ON CONFLICT (name) DO UPDATE SET digest = excluded.digest,
             environment = excluded.environment, state = 'idle', lease_ms = excluded.lease_ms,
             started_at = now(), last_seen = now()",
        &[
            &worker,
            &env.map(|e| e.digest.as_str()),
            &env.map(|e| e.description.as_str()),
            &(lease.as_millis() as i64),
        ],
    )?;
    Ok(())
}

/// A worker slot is alive, in `state` ('idle', 'judging' or 'stopped').
pub fn seen(client: &mut Db, worker: &str, state: &str) -> Result<(), Error> {
    client.execute(
        "UPDATE workers SET state = $2, last_seen = now() WHERE name = $1",
        &[&worker, &state],
    )?;
    Ok(())
}

/// Writes `events` (name, data), in their order, to the `events` table with a notification on
/// [`EVENT`] each, fenced by the job's attempt: all of them, or none once the job was taken
/// ([`Fenced::Lost`]). One statement on PostgreSQL; one transaction on SQLite
/// (each write of a SQLite file takes the process's write mutex, which the other slots wait
/// for).
pub fn events(
    client: &mut Db,
    fence: &Fence,
    submission: i64,
    events: &[(String, String)],
) -> Result<Fenced, Error> {
    if events.is_empty() {
        return Ok(Fenced::Done);
    }
    let fenced: [&dyn crate::db::Param; 4] =
        [&fence.job, &fence.attempt, &fence.worker, &submission];
    let n = match client.engine() {
        Engine::Postgres => {
            let rows: Vec<String> = (0..events.len())
                .map(|i| format!("(${}::text, ${}::text, {i})", 6 + 2 * i, 7 + 2 * i))
                .collect();
            let sql = format!(
                "WITH e AS (
                     INSERT INTO events (submission, attempt, name, data)
                     SELECT $4, $2, v.name, v.data
                     FROM jobs, (VALUES {}) AS v (name, data, ord)
                     WHERE jobs.id = $1 AND jobs.attempt = $2 AND jobs.worker = $3
                       AND jobs.state = 'running'
                     ORDER BY v.ord
                     RETURNING id)
                 SELECT pg_notify($5, id::text) FROM e",
                rows.join(", ")
            );
            let mut params: Vec<&dyn crate::db::Param> = fenced.to_vec();
            params.push(&EVENT);
            for (name, data) in events {
                params.push(name);
                params.push(data);
            }
            client.execute(&sql, &params)?
        }
        Engine::Sqlite => {
            const INSERT: &str = "INSERT INTO events (submission, attempt, name, data)
                 SELECT $4, $2, $5, $6 FROM jobs
                 WHERE id = $1 AND attempt = $2 AND worker = $3 AND state = 'running'
                 RETURNING id";
            let mut tx = client.transaction()?;
            let mut n = 0;
            for (name, data) in events {
                let params: [&dyn crate::db::Param; 6] =
                    [fenced[0], fenced[1], fenced[2], fenced[3], name, data];
                for id in tx.query(INSERT, &params)? {
                    tx.notify(EVENT, &id.get::<_, i64>(0).to_string())?;
                    n += 1;
                }
            }
            tx.commit()?;
            n
        }
    };
    Ok(if n == events.len() as u64 {
        Fenced::Done
    } else {
        Fenced::Lost
    })
}

/// Writes the final result, its tests and the judging's end in one transaction with the fenced
/// change of the job's state; [`Fenced::Lost`]: nothing was written.
pub fn finish(client: &mut Db, fence: &Fence, result: &Final) -> Result<Fenced, Error> {
    let mut tx = client.transaction()?;
    let row = tx.query_opt(
        "UPDATE jobs SET state = 'done', lease_until = NULL
         WHERE id = $1 AND attempt = $2 AND worker = $3 AND state = 'running'
         RETURNING submission",
        &[&fence.job, &fence.attempt, &fence.worker],
    )?;
    let Some(row) = row else {
        // Dropping the transaction rolls it back: nothing of this attempt is kept.
        return Ok(Fenced::Lost);
    };
    let submission: i64 = row.get(0);
    let inputs = result.inputs.as_ref();
    tx.execute(
        "UPDATE submissions SET state = 'done', verdict = $2, score = $3, time_ms = $4,
                memory_kib = $5, error = $6, compile_output = $7, report = $8,
                finished_at = now(), judged_package = package, checker_hash = $9,
                validator_hash = $10, language_used = $11, language_hash = $12,
                language_version = $13,
                judged_digest = (SELECT digest FROM judgings WHERE job = $14 AND attempt = $15)
         WHERE id = $1",
        &[
            &submission,
            &result.verdict,
            &result.score,
            &result.time_ms,
            &result.memory_kib,
            &result.error,
            &result
                .output
                .as_ref()
                .map(|o| o.compile_output.as_str())
                .filter(|c| !c.is_empty()),
            &result.report,
            &inputs.map(|p| p.checker.as_str()),
            &inputs.map(|p| p.validator.as_str()),
            &inputs
                .map(|p| p.language.as_str())
                .filter(|l| !l.is_empty()),
            &inputs
                .map(|p| p.language_hash.as_str())
                .filter(|l| !l.is_empty()),
            &inputs.and_then(|p| p.language_version.as_deref()),
            &fence.job,
            &fence.attempt,
        ],
    )?;
    test_rows(&mut tx, submission, result)?;
    crate::judge0::record(&mut tx, submission, result.output.as_ref())?;
    tx.execute(
        "UPDATE workers SET jobs_done = jobs_done + 1, last_seen = now(),
                judge_errors = judge_errors + CASE WHEN $2 = 'JE' THEN 1 ELSE 0 END
         WHERE name = $1",
        &[&fence.worker, &result.verdict],
    )?;
    tx.execute(
        "UPDATE judgings SET finished_at = now(), outcome = 'done', reason = $3
         WHERE job = $1 AND attempt = $2",
        &[&fence.job, &fence.attempt, &result.verdict],
    )?;
    tx.notify(DONE, &submission.to_string())?;
    crate::hooks::kill_point("finishing");
    tx.commit()?;
    Ok(Fenced::Done)
}

/// Test rows written by one statement, at most this many rows each.
const TEST_ROWS_AT_ONCE: usize = 100;

/// Writes a result's test rows, [`TEST_ROWS_AT_ONCE`] to a statement: one round trip for a
/// problem's usual tests, where a statement a row cost one each.
fn test_rows(tx: &mut impl Sql, submission: i64, result: &Final) -> Result<(), Error> {
    const COLUMNS: usize = 11;
    let inputs = result.inputs.as_ref();
    let rows: Vec<_> = result.tests.iter().enumerate().collect();
    for chunk in rows.chunks(TEST_ROWS_AT_ONCE) {
        let values: Vec<String> = (0..chunk.len())
            .map(|r| {
                let marks: Vec<String> = (1..=COLUMNS)
                    .map(|c| format!("${}", r * COLUMNS + c))
                    .collect();
                format!("({})", marks.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO test_results (submission, ordinal, name, verdict, time_ms, memory_kib,
                                       message, input_hash, answer_hash, limit_ms, beside_ms)
             VALUES {}",
            values.join(", ")
        );
        let ordinals: Vec<i32> = chunk.iter().map(|(i, _)| *i as i32 + 1).collect();
        let hashes: Vec<_> = chunk
            .iter()
            .map(|(_, t)| inputs.and_then(|p| p.tests.iter().find(|(name, _, _)| *name == t.name)))
            .collect();
        let inputs_of: Vec<Option<&str>> = hashes
            .iter()
            .map(|h| h.map(|(_, input, _)| input.as_str()))
            .collect();
        let answers_of: Vec<Option<&str>> = hashes
            .iter()
            .map(|h| h.map(|(_, _, answer)| answer.as_str()))
            .collect();
        let mut params: Vec<&dyn crate::db::Param> = Vec::with_capacity(chunk.len() * COLUMNS);
        for (k, (_, t)) in chunk.iter().enumerate() {
            params.extend([
                &submission as &dyn crate::db::Param,
                &ordinals[k],
                &t.name,
                &t.verdict,
                &t.time_ms,
                &t.memory_kib,
                &t.message,
                &inputs_of[k],
                &answers_of[k],
                &t.limit_ms,
                &t.beside_ms,
            ]);
        }
        tx.execute(&sql, &params)?;
    }
    Ok(())
}

/// Whether this attempt's finish committed (its judging ended `done`): a finish retried after
/// a lost connection tells its own commit from another worker's.
pub fn finished(client: &mut Db, fence: &Fence) -> Result<bool, Error> {
    let row = client.query_opt(
        "SELECT 1 FROM judgings
         WHERE job = $1 AND attempt = $2 AND worker = $3 AND outcome = 'done'",
        &[&fence.job, &fence.attempt, &fence.worker],
    )?;
    Ok(row.is_some())
}

/// The worker gives the job back because it could not judge it (`reason`: the package does not
/// unpack, …): requeued after a back-off, or a judge error once its attempts are spent.
pub fn release(
    client: &mut Db,
    fence: &Fence,
    reason: &str,
    retry_delay: Duration,
) -> Result<Fenced, Error> {
    end_fenced(
        client,
        fence,
        "SELECT max_attempts, submission FROM jobs
         WHERE id = $1 AND attempt = $2 AND worker = $3 AND state = 'running' FOR UPDATE",
        reason,
        retry_delay,
    )
}

/// Ends the attempt `fence` holds as `failed` with `reason` ([`give_back`]), in one
/// transaction with `fenced`: a statement on the job (id, attempt, worker: `$1`, `$2`, `$3`)
/// that gives its `max_attempts` and submission while the attempt still holds it.
fn end_fenced(
    client: &mut Db,
    fence: &Fence,
    fenced: &str,
    reason: &str,
    retry_delay: Duration,
) -> Result<Fenced, Error> {
    let mut tx = client.transaction()?;
    let row = tx.query_opt(fenced, &[&fence.job, &fence.attempt, &fence.worker])?;
    let Some(row) = row else {
        return Ok(Fenced::Lost);
    };
    let attempt = Attempt {
        job: fence.job,
        attempt: fence.attempt,
        max_attempts: row.get(0),
        submission: row.get(1),
    };
    give_back(&mut tx, &attempt, "failed", reason, retry_delay)?;
    tx.commit()?;
    Ok(Fenced::Done)
}

/// The worker gives the job back unjudged because it is being stopped (a second SIGTERM): the
/// attempt ends `failed` with `reason` but is not counted against `max_attempts` (the job gets
/// one more), and the job is claimable at once. [`Fenced::Lost`]: nothing was written.
pub fn hand_back(client: &mut Db, fence: &Fence, reason: &str) -> Result<Fenced, Error> {
    end_fenced(
        client,
        fence,
        "UPDATE jobs SET max_attempts = max_attempts + 1
         WHERE id = $1 AND attempt = $2 AND worker = $3 AND state = 'running'
         RETURNING max_attempts, submission",
        reason,
        Duration::ZERO,
    )
}

/// A job whose attempt the reaper or a release ends.
struct Attempt {
    job: i64,
    attempt: i32,
    max_attempts: i32,
    submission: i64,
}

/// What the reaper did with an expired lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reaped {
    pub job: i64,
    pub attempt: i32,
    pub worker: String,
    /// The job's attempts are spent: its submission is now a judge error.
    pub failed: bool,
}

/// Requeues every job whose lease has expired (its worker died, froze or lost the database),
/// or ends it as a judge error when that was its last attempt. Any worker may run it; two
/// reapers never take the same job (SKIP LOCKED).
/// How long an engine event is kept: it exists to be read once by the event streams open when
/// its notification comes (a stream that reconnects reads the submissions' state, not old
/// events), so an hour is ample.
pub const EVENTS_KEPT: Duration = Duration::from_secs(3600);

/// Removes the engine events older than `kept`; returns how many.
pub fn prune_events(client: &mut Db, kept: Duration) -> Result<u64, Error> {
    Ok(client.execute(
        "DELETE FROM events WHERE created_at < now() + make_interval(secs => $1)",
        &[&-kept.as_secs_f64()],
    )?)
}

pub fn reap(client: &mut Db, retry_delay: Duration) -> Result<Vec<Reaped>, Error> {
    let mut tx = client.transaction()?;
    let rows = tx.query(
        "SELECT id, attempt, max_attempts, submission, worker FROM jobs
         WHERE state = 'running' AND lease_until < now()
         ORDER BY id FOR UPDATE SKIP LOCKED",
        &[],
    )?;
    let mut reaped = Vec::new();
    for row in rows {
        let attempt = Attempt {
            job: row.get(0),
            attempt: row.get(1),
            max_attempts: row.get(2),
            submission: row.get(3),
        };
        let worker: String = row.get::<_, Option<String>>(4).unwrap_or_default();
        let reason = format!("its lease expired: worker {worker} stopped renewing it");
        let failed = give_back(&mut tx, &attempt, "lost", &reason, retry_delay)?;
        reaped.push(Reaped {
            job: attempt.job,
            attempt: attempt.attempt,
            worker,
            failed,
        });
    }
    if !reaped.is_empty() {
        crate::hooks::kill_point("reaping");
    }
    tx.commit()?;
    Ok(reaped)
}

/// Ends an attempt with `outcome` and `reason`; requeues the job after `retry_delay` × the
/// attempts made, or, when they are spent, makes its submission a judge error that lists every
/// attempt's reason. Returns whether the job failed.
fn give_back(
    tx: &mut Tx<'_>,
    a: &Attempt,
    outcome: &str,
    reason: &str,
    retry_delay: Duration,
) -> Result<bool, Error> {
    tx.execute(
        "UPDATE judgings SET finished_at = now(), outcome = $3, reason = $4
         WHERE job = $1 AND attempt = $2",
        &[&a.job, &a.attempt, &outcome, &reason],
    )?;
    if a.attempt < a.max_attempts {
        let delay = secs(retry_delay) * f64::from(a.attempt);
        tx.execute(
            "UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL,
                    not_before = now() + make_interval(secs => $2)
             WHERE id = $1",
            &[&a.job, &delay],
        )?;
        tx.execute(
            "UPDATE submissions SET state = 'queued' WHERE id = $1",
            &[&a.submission],
        )?;
        tx.notify(QUEUED, "")?;
        return Ok(false);
    }
    let attempts = tx.query(
        "SELECT attempt, worker, coalesce(reason, outcome, 'no reason recorded') FROM judgings
         WHERE job = $1 ORDER BY attempt",
        &[&a.job],
    )?;
    let mut error = format!("no verdict after {} attempts:", a.max_attempts);
    for row in attempts {
        let (n, worker, why): (i32, String, String) = (row.get(0), row.get(1), row.get(2));
        error.push_str(&format!("\n  attempt {n} on {worker}: {why}"));
    }
    tx.execute(
        "UPDATE jobs SET state = 'failed', worker = NULL, lease_until = NULL WHERE id = $1",
        &[&a.job],
    )?;
    tx.execute(
        "UPDATE submissions SET state = 'done', verdict = 'JE', error = $2, finished_at = now()
         WHERE id = $1",
        &[&a.submission, &error],
    )?;
    tx.notify(DONE, &a.submission.to_string())?;
    Ok(true)
}
