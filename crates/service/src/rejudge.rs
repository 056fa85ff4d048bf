//! Rejudge sets: published submissions judged again, each into a *shadow* result, then shown
//! as an old → new verdict matrix, applied (published) or cancelled.
//!
//! A shadow is a row of `submissions` of its own (`rejudge`, `shadow_of`, `run`) on the
//! problem's *current* package, with a job of its own (priority 1: after new submissions), so
//! it is claimed, fenced, reaped and finished as any job: exactly one result per shadow, its
//! tests and events under its own id. Nothing of the published submission changes until
//! [`apply`], which copies run 1's result (verdict, score, time, memory, error, compiler
//! output, tests and inputs) onto it in one transaction and keeps what it replaced in
//! `rejudge_items.replaced`; [`cancel`] deletes the shadows and their jobs (a worker judging
//! one finds its fence gone: nothing it writes lands). Shadows never appear as submissions
//! (the lists, the event stream and the Contest API leave them out).
//!
//! [`stale`] lists the published results whose recorded inputs (`provenance`) differ from the
//! problem's current package and the current language table.

use crate::db::{Db, Engine, Sql};
use crate::provenance::{self, Recorded};
use crate::rows::{DONE, QUEUED};
use crate::Error;
use judge_core::lang::Languages;
use judge_core::package::{Inputs, Problem};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The most runs of each submission a set may ask for.
pub const MAX_RUNS: i32 = 10;
/// The priority of a shadow's job (new submissions have 0 and go first).
const PRIORITY: i32 = 1;

/// Which published submissions a set judges again; every field given must hold.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submissions: Option<Vec<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<Vec<String>>,
    /// Submitted at or after (`YYYY-MM-DDTHH:MM:SS[.fff]Z`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Submitted before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Only those whose inputs changed since they were judged ([`stale`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

/// A time of the filter as the engine compares it with `created_at`; Err: why it is not one.
fn time_param(engine: Engine, what: &str, text: &str) -> Result<String, Error> {
    let bad = || {
        Error::Invalid(format!(
            "`{what}` is {text:?}, not a time in UTC like 2026-03-01T09:00:00Z (seconds may have a fraction)"
        ))
    };
    let t = text.strip_suffix('Z').ok_or_else(bad)?;
    let (date, clock) = t.split_once('T').ok_or_else(bad)?;
    let (whole, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let digits = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_digit());
    let d: Vec<&str> = date.split('-').collect();
    let c: Vec<&str> = whole.split(':').collect();
    let fine = d.len() == 3
        && digits(d[0], 4)
        && digits(d[1], 2)
        && digits(d[2], 2)
        && c.len() == 3
        && c.iter().all(|p| digits(p, 2))
        && !fraction.is_empty()
        && fraction.len() <= 6
        && fraction.chars().all(|ch| ch.is_ascii_digit());
    if !fine {
        return Err(bad());
    }
    Ok(match engine {
        Engine::Postgres => text.to_string(),
        // SQLite keeps `YYYY-MM-DD HH:MM:SS.SSS` text: compared as text.
        Engine::Sqlite => format!("{date} {whole}.{:0<3}", &fraction[..fraction.len().min(3)]),
    })
}

/// The published, judged submissions the filter names (without `stale`), by id. Judge0 API
/// runs are never rejudged (their one-test package is their own).
fn matching(client: &mut Db, filter: &Filter) -> Result<Vec<(i64, Option<String>)>, Error> {
    let engine = client.engine();
    let since = filter
        .since
        .as_deref()
        .map(|t| time_param(engine, "since", t))
        .transpose()?;
    let until = filter
        .until
        .as_deref()
        .map(|t| time_param(engine, "until", t))
        .transpose()?;
    let rows = client.query(
        "SELECT s.id, s.verdict FROM submissions s
         WHERE s.shadow_of IS NULL AND s.state = 'done'
           AND NOT EXISTS (SELECT 1 FROM judge0_submissions j WHERE j.submission = s.id)
           AND ($1::text IS NULL OR s.problem = $1)
           AND ($2::text IS NULL OR s.created_at >= $2::timestamptz)
           AND ($3::text IS NULL OR s.created_at < $3::timestamptz)
         ORDER BY s.id",
        &[&filter.problem, &since, &until],
    )?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, i64>(0), r.get::<_, Option<String>>(1)))
        .filter(|(id, verdict)| {
            filter
                .submissions
                .as_ref()
                .is_none_or(|ids| ids.contains(id))
                && filter.verdicts.as_ref().is_none_or(|vs| {
                    vs.iter().any(|v| {
                        verdict
                            .as_deref()
                            .is_some_and(|w| w.eq_ignore_ascii_case(v))
                    })
                })
        })
        .collect())
}

/// Checks what a filter names before anything is made: known verdicts, a problem that exists.
fn check(client: &mut Db, filter: &Filter, runs: i32) -> Result<(), Error> {
    if !(1..=MAX_RUNS).contains(&runs) {
        return Err(Error::Invalid(format!(
            "`repeat` is {runs}: each submission is judged 1 to {MAX_RUNS} times"
        )));
    }
    for v in filter.verdicts.iter().flatten() {
        let codes = judge_model::Verdict::ALL.map(|v| v.code());
        if !codes.iter().any(|c| c.eq_ignore_ascii_case(v)) {
            return Err(Error::Invalid(format!(
                "`{v}` is not a verdict: {}",
                codes.join(", ")
            )));
        }
    }
    if let Some(p) = &filter.problem {
        if client
            .query_opt("SELECT 1 FROM problems WHERE name = $1", &[p])?
            .is_none()
        {
            return Err(Error::Unknown(format!("no problem named {p}")));
        }
    }
    Ok(())
}

/// Makes a set of the submissions `filter` names, each judged `runs` times into shadows on its
/// problem's current package; returns its id and how many submissions it holds. Refused
/// (nothing made) when the filter names none.
pub fn create(
    client: &mut Db,
    languages: &Languages,
    filter: &Filter,
    runs: i32,
) -> Result<(i64, usize), Error> {
    check(client, filter, runs)?;
    let mut ids: Vec<i64> = matching(client, filter)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    if filter.stale {
        let stale: Vec<i64> = stale(client, languages, filter.problem.as_deref())?
            .into_iter()
            .map(|s| s.id)
            .collect();
        ids.retain(|id| stale.contains(id));
    }
    if ids.is_empty() {
        return Err(Error::Invalid(
            "no judged submission matches the filter: nothing to rejudge".into(),
        ));
    }
    let filter_json = serde_json::to_string(filter).expect("a filter serializes");
    let mut tx = client.transaction()?;
    let set: i64 = tx
        .query_one(
            "INSERT INTO rejudges (filter, runs) VALUES ($1, $2) RETURNING id",
            &[&filter_json, &runs],
        )?
        .get(0);
    for id in &ids {
        tx.execute(
            "INSERT INTO rejudge_items (rejudge, submission, verdict, score, time_ms, memory_kib, error)
             SELECT $1, id, verdict, score, time_ms, memory_kib, error FROM submissions WHERE id = $2",
            &[&set, id],
        )?;
        for run in 1..=runs {
            let shadow: i64 = tx
                .query_one(
                    "INSERT INTO submissions (problem, package, language, filename, source,
                                              rejudge, shadow_of, run)
                     SELECT s.problem, p.package, s.language, s.filename, s.source, $1, s.id, $3
                     FROM submissions s JOIN problems p ON p.name = s.problem
                     WHERE s.id = $2
                     RETURNING id",
                    &[&set, id, &run],
                )?
                .get(0);
            tx.execute(
                "INSERT INTO jobs (submission, priority) VALUES ($1, $2)",
                &[&shadow, &PRIORITY],
            )?;
        }
    }
    tx.notify(QUEUED, "")?;
    tx.commit()?;
    Ok((set, ids.len()))
}

/// A set's stored state and whether any shadow is still to judge: `judging`, `done`,
/// `applied` or `cancelled`.
fn state_of(client: &mut impl Sql, id: i64) -> Result<Option<(String, i64)>, Error> {
    let Some(row) = client.query_opt("SELECT state FROM rejudges WHERE id = $1", &[&id])? else {
        return Ok(None);
    };
    let stored: String = row.get(0);
    let waiting: i64 = client
        .query_one(
            "SELECT count(*) FROM submissions WHERE rejudge = $1 AND state <> 'done'",
            &[&id],
        )?
        .get(0);
    let state = if stored == "judging" && waiting == 0 {
        "done".to_string()
    } else {
        stored
    };
    Ok(Some((state, waiting)))
}

const TIME: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'";

/// The set `id` as the API shows it: its state, filter, counts, the old → new verdict matrix
/// (run 1's verdict, what applying publishes), the submissions whose verdict or score changed,
/// and with several runs each submission's spread (verdicts seen, fastest and slowest time).
pub fn show(client: &mut Db, id: i64) -> Result<Option<Value>, Error> {
    let Some((state, waiting)) = state_of(client, id)? else {
        return Ok(None);
    };
    let head = client.query_one(
        &format!(
            "SELECT filter, runs, to_char(created_at AT TIME ZONE 'UTC', {TIME}),
                    to_char(ended_at AT TIME ZONE 'UTC', {TIME})
             FROM rejudges WHERE id = $1"
        ),
        &[&id],
    )?;
    let filter: Value = serde_json::from_str(&head.get::<_, String>(0)).unwrap_or(Value::Null);
    let runs: i32 = head.get(1);
    let items = client.query(
        "SELECT i.submission, s.problem, i.verdict, i.score, i.time_ms
         FROM rejudge_items i JOIN submissions s ON s.id = i.submission
         WHERE i.rejudge = $1 ORDER BY i.submission",
        &[&id],
    )?;
    let shadows = client.query(
        "SELECT shadow_of, run, id, state, verdict, score, time_ms, memory_kib, package
         FROM submissions WHERE rejudge = $1 ORDER BY shadow_of, run",
        &[&id],
    )?;
    struct Run {
        run: i32,
        id: i64,
        done: bool,
        verdict: Option<String>,
        score: Option<f64>,
        time_ms: Option<i64>,
        memory_kib: Option<i64>,
        package: String,
    }
    let mut by_item: HashMap<i64, Vec<Run>> = HashMap::new();
    for r in &shadows {
        by_item.entry(r.get(0)).or_default().push(Run {
            run: r.get(1),
            id: r.get(2),
            done: r.get::<_, String>(3) == "done",
            verdict: r.get(4),
            score: r.get(5),
            time_ms: r.get(6),
            memory_kib: r.get(7),
            package: r.get(8),
        });
    }
    let mut matrix: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut changed = Vec::new();
    let mut spread = Vec::new();
    let mut packages: BTreeMap<String, String> = BTreeMap::new();
    let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    for item in &items {
        let sub: i64 = item.get(0);
        let problem: String = item.get(1);
        let old_verdict: Option<String> = item.get(2);
        let old_score: Option<f64> = item.get(3);
        let old_time: Option<i64> = item.get(4);
        let runs_of = by_item.get(&sub).map(Vec::as_slice).unwrap_or_default();
        let Some(first) = runs_of.iter().find(|r| r.run == 1) else {
            continue;
        };
        packages.insert(problem.clone(), first.package.clone());
        if first.done {
            *matrix
                .entry((text(&old_verdict), text(&first.verdict)))
                .or_default() += 1;
            if first.verdict != old_verdict || first.score != old_score {
                changed.push(json!({
                    "id": sub,
                    "problem": problem,
                    "shadow": first.id,
                    "old": {"verdict": old_verdict, "score": old_score, "time_ms": old_time},
                    "new": {"verdict": first.verdict, "score": first.score,
                            "time_ms": first.time_ms, "memory_kib": first.memory_kib},
                }));
            }
        }
        if runs > 1 {
            let done: Vec<&Run> = runs_of.iter().filter(|r| r.done).collect();
            let mut seen: Vec<String> = done.iter().map(|r| text(&r.verdict)).collect();
            seen.sort();
            seen.dedup();
            let times = done.iter().filter_map(|r| r.time_ms);
            spread.push(json!({
                "id": sub,
                "runs_done": done.len(),
                "verdicts": seen,
                "min_time_ms": times.clone().min(),
                "max_time_ms": times.max(),
            }));
        }
    }
    let judged = shadows.len() as i64 - waiting;
    let mut answer = json!({
        "id": id,
        "state": state,
        "filter": filter,
        "repeat": runs,
        "created_at": head.get::<_, Option<String>>(2),
        "ended_at": head.get::<_, Option<String>>(3),
        "submissions": items.len(),
        "judgings": shadows.len(),
        "judged": judged,
        "packages": packages,
        "matrix": matrix
            .into_iter()
            .map(|((from, to), count)| json!({"from": from, "to": to, "count": count}))
            .collect::<Vec<_>>(),
        "changed": changed,
    });
    if runs > 1 {
        let unstable = spread
            .iter()
            .filter(|s| s["verdicts"].as_array().is_some_and(|v| v.len() > 1))
            .count();
        answer["spread"] = json!(spread);
        answer["unstable"] = json!(unstable);
    }
    Ok(Some(answer))
}

/// Publishes the set `id`'s results (each submission's run 1) in one transaction: verdict,
/// score, time, memory, error, compiler output, tests and inputs; what each replaced is kept
/// in `rejudge_items`, and each submission is announced on `judge_done`. Refused while a
/// shadow is still to judge, and once applied or cancelled. Returns how many it published.
pub fn apply(client: &mut Db, id: i64) -> Result<usize, Error> {
    let mut tx = client.transaction()?;
    // The set's row locked: an apply and a cancel of one set never interleave.
    tx.query_opt("SELECT id FROM rejudges WHERE id = $1 FOR UPDATE", &[&id])?;
    match state_of(&mut tx, id)? {
        None => return Err(Error::Unknown(format!("no rejudge {id}"))),
        Some((state, _)) if state == "applied" || state == "cancelled" => {
            return Err(Error::Conflict(format!(
                "rejudge {id} is {state}: nothing to apply"
            )))
        }
        Some((_, waiting)) if waiting > 0 => {
            return Err(Error::Conflict(format!(
                "rejudge {id} still has {waiting} judgings to finish\n  hint: apply once GET /api/v1/rejudges/{id} says done, or cancel it"
            )))
        }
        Some(_) => {}
    }
    let pairs = tx.query(
        "SELECT shadow_of, id FROM submissions WHERE rejudge = $1 AND run = 1 ORDER BY shadow_of",
        &[&id],
    )?;
    for pair in &pairs {
        let (published, shadow): (i64, i64) = (pair.get(0), pair.get(1));
        let old = tx.query_one(
            "SELECT verdict, score, time_ms, memory_kib, error, compile_output, judged_package,
                    checker_hash, validator_hash, language_used, language_hash, language_version,
                    judged_digest
             FROM submissions WHERE id = $1",
            &[&published],
        )?;
        let tests: Vec<Value> = tx
            .query(
                "SELECT name, verdict, time_ms, memory_kib, message, input_hash, answer_hash
                 FROM test_results WHERE submission = $1 ORDER BY ordinal",
                &[&published],
            )?
            .iter()
            .map(|r| {
                json!({
                    "name": r.get::<_, String>(0), "verdict": r.get::<_, String>(1),
                    "time_ms": r.get::<_, i64>(2), "memory_kib": r.get::<_, i64>(3),
                    "message": r.get::<_, String>(4),
                    "input_hash": r.get::<_, Option<String>>(5),
                    "answer_hash": r.get::<_, Option<String>>(6),
                })
            })
            .collect();
        let replaced = json!({
            "verdict": old.get::<_, Option<String>>(0),
            "score": old.get::<_, Option<f64>>(1),
            "time_ms": old.get::<_, Option<i64>>(2),
            "memory_kib": old.get::<_, Option<i64>>(3),
            "error": old.get::<_, Option<String>>(4),
            "compile_output": old.get::<_, Option<String>>(5),
            "inputs": {
                "package": old.get::<_, Option<String>>(6),
                "checker": old.get::<_, Option<String>>(7),
                "validator": old.get::<_, Option<String>>(8),
                "language": old.get::<_, Option<String>>(9),
                "language_hash": old.get::<_, Option<String>>(10),
                "language_version": old.get::<_, Option<String>>(11),
                "digest": old.get::<_, Option<String>>(12),
            },
            "tests": tests,
        });
        tx.execute(
            "UPDATE rejudge_items SET verdict = $3, score = $4, time_ms = $5, memory_kib = $6,
                    error = $7, replaced = $8
             WHERE rejudge = $1 AND submission = $2",
            &[
                &id,
                &published,
                &old.get::<_, Option<String>>(0),
                &old.get::<_, Option<f64>>(1),
                &old.get::<_, Option<i64>>(2),
                &old.get::<_, Option<i64>>(3),
                &old.get::<_, Option<String>>(4),
                &replaced.to_string(),
            ],
        )?;
        tx.execute(
            "UPDATE submissions AS o SET verdict = n.verdict, score = n.score, time_ms = n.time_ms,
                    memory_kib = n.memory_kib, error = n.error, compile_output = n.compile_output,
                    finished_at = n.finished_at, judged_package = n.judged_package,
                    checker_hash = n.checker_hash, validator_hash = n.validator_hash,
                    language_used = n.language_used, language_hash = n.language_hash,
                    language_version = n.language_version, judged_digest = n.judged_digest,
                    report = n.report
             FROM submissions AS n WHERE o.id = $1 AND n.id = $2",
            &[&published, &shadow],
        )?;
        tx.execute(
            "DELETE FROM test_results WHERE submission = $1",
            &[&published],
        )?;
        tx.execute(
            "INSERT INTO test_results (submission, ordinal, name, verdict, time_ms, memory_kib,
                                       message, input_hash, answer_hash, limit_ms, beside_ms)
             SELECT $1, ordinal, name, verdict, time_ms, memory_kib, message, input_hash, answer_hash,
                    limit_ms, beside_ms
             FROM test_results WHERE submission = $2",
            &[&published, &shadow],
        )?;
        tx.notify(DONE, &published.to_string())?;
    }
    tx.execute(
        "UPDATE rejudges SET state = 'applied', ended_at = now() WHERE id = $1",
        &[&id],
    )?;
    tx.commit()?;
    Ok(pairs.len())
}

/// Cancels the set `id`: its shadows' jobs and results are deleted in one transaction (a
/// worker judging one finds its fence gone: its heartbeat stops the runs, its finish writes
/// nothing); the set stays, `cancelled`, with its submissions' verdicts as they were. Refused
/// once applied or cancelled. Returns how many shadow jobs were still to judge.
pub fn cancel(client: &mut Db, id: i64) -> Result<i64, Error> {
    let mut tx = client.transaction()?;
    tx.query_opt("SELECT id FROM rejudges WHERE id = $1 FOR UPDATE", &[&id])?;
    let waiting = match state_of(&mut tx, id)? {
        None => return Err(Error::Unknown(format!("no rejudge {id}"))),
        Some((state, _)) if state == "applied" || state == "cancelled" => {
            return Err(Error::Conflict(format!(
                "rejudge {id} is {state}: nothing to cancel"
            )))
        }
        Some((_, waiting)) => waiting,
    };
    let shadows = "(SELECT id FROM submissions WHERE rejudge = $1)";
    // The jobs first: locked by this transaction, no claim takes one meanwhile.
    tx.execute(
        &format!(
            "UPDATE jobs SET state = 'failed', lease_until = NULL WHERE submission IN {shadows}"
        ),
        &[&id],
    )?;
    for table in ["events", "test_results"] {
        tx.execute(
            &format!("DELETE FROM {table} WHERE submission IN {shadows}"),
            &[&id],
        )?;
    }
    tx.execute(
        &format!(
            "DELETE FROM judgings WHERE job IN (SELECT id FROM jobs WHERE submission IN {shadows})"
        ),
        &[&id],
    )?;
    tx.execute(
        &format!("DELETE FROM jobs WHERE submission IN {shadows}"),
        &[&id],
    )?;
    tx.execute("DELETE FROM submissions WHERE rejudge = $1", &[&id])?;
    tx.execute(
        "UPDATE rejudges SET state = 'cancelled', ended_at = now() WHERE id = $1",
        &[&id],
    )?;
    tx.commit()?;
    Ok(waiting)
}

/// Every set, newest first: id, state, counts.
pub fn list(client: &mut Db) -> Result<Vec<Value>, Error> {
    let ids: Vec<i64> = client
        .query("SELECT id FROM rejudges ORDER BY id DESC LIMIT 100", &[])?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut out = Vec::new();
    for id in ids {
        let Some((state, waiting)) = state_of(client, id)? else {
            continue;
        };
        let n: i64 = client
            .query_one(
                "SELECT count(*) FROM rejudge_items WHERE rejudge = $1",
                &[&id],
            )?
            .get(0);
        out.push(json!({"id": id, "state": state, "submissions": n, "waiting": waiting}));
    }
    Ok(out)
}

/// A published result whose inputs are not the current ones, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Stale {
    pub id: i64,
    pub problem: String,
    pub verdict: Option<String>,
    pub reasons: Vec<String>,
}

/// A package's inputs and its loaded problem (for the language entries), by package hash:
/// loaded once per process.
type Current = Arc<(Problem, Inputs)>;

fn current(client: &mut Db, package: &str) -> Result<Current, Error> {
    static LOADED: Mutex<Option<HashMap<String, Current>>> = Mutex::new(None);
    if let Some(found) = LOADED
        .lock()
        .ok()
        .and_then(|l| l.as_ref().and_then(|m| m.get(package).cloned()))
    {
        return Ok(found);
    }
    let data = crate::store::blob(client, package)?;
    let scratch = tempfile::tempdir().map_err(|e| Error::Io(format!("a scratch folder: {e}")))?;
    let dir = scratch.path().join("p");
    crate::store::unpack(&data, &dir)?;
    let problem = Problem::load(&dir)
        .map_err(|e| Error::Blob(format!("package {package} does not load: {e}")))?;
    let inputs = problem
        .inputs()
        .map_err(|e| Error::Io(format!("package {package}: {e}")))?;
    let loaded = Arc::new((problem, inputs));
    if let Ok(mut l) = LOADED.lock() {
        let map = l.get_or_insert_with(HashMap::new);
        if map.len() >= 64 {
            map.clear();
        }
        map.insert(package.to_string(), loaded.clone());
    }
    Ok(loaded)
}

/// The published, judged submissions (of `problem`, or all) whose recorded inputs differ from
/// their problem's current package (a test's input or answer they were judged on, a test
/// added or removed, the checker, the validators) or from the entry `languages` builds them
/// with now (its commands, its toolchain's version line): each with why, by id.
pub fn stale(
    client: &mut Db,
    languages: &Languages,
    problem: Option<&str>,
) -> Result<Vec<Stale>, Error> {
    const PUBLISHED: &str = "s.shadow_of IS NULL AND s.state = 'done'
           AND NOT EXISTS (SELECT 1 FROM judge0_submissions j WHERE j.submission = s.id)
           AND ($1::text IS NULL OR s.problem = $1)";
    let rows = client.query(
        &format!(
            "SELECT s.id, s.problem, s.verdict, s.filename, s.language, s.checker_hash,
                    s.validator_hash, s.language_hash, s.language_version, p.package
             FROM submissions s JOIN problems p ON p.name = s.problem
             WHERE {PUBLISHED} ORDER BY s.id"
        ),
        &[&problem],
    )?;
    let mut tests: HashMap<i64, Vec<provenance::RecordedTest>> = HashMap::new();
    for t in client.query(
        &format!(
            "SELECT t.submission, t.name, t.input_hash, t.answer_hash
             FROM test_results t JOIN submissions s ON s.id = t.submission
             WHERE {PUBLISHED} ORDER BY t.submission, t.ordinal"
        ),
        &[&problem],
    )? {
        tests
            .entry(t.get(0))
            .or_default()
            .push((t.get(1), t.get(2), t.get(3)));
    }
    // By (package, file name, language asked for): the entry the current table builds it with.
    type Key = (String, String, Option<String>);
    let mut entries: HashMap<Key, Option<provenance::CurrentLanguage>> = HashMap::new();
    let mut out = Vec::new();
    for r in &rows {
        let id: i64 = r.get(0);
        let package: String = r.get(9);
        let now = current(client, &package)?;
        let filename: String = r.get(3);
        let language: Option<String> = r.get(4);
        let entry = entries
            .entry((package, filename.clone(), language.clone()))
            .or_insert_with(|| {
                let mut table = languages.clone();
                provenance::entry_for(&mut table, &now.0, &filename, language.as_deref())
                    .ok()
                    .map(|l| {
                        let (_, hash, version) = provenance::language_of(l);
                        (hash, version)
                    })
            });
        let recorded = Recorded {
            checker: r.get(5),
            validator: r.get(6),
            language_hash: r.get(7),
            language_version: r.get(8),
            tests: tests.remove(&id).unwrap_or_default(),
        };
        let reasons = provenance::stale(&recorded, &now.1, entry.as_ref());
        if !reasons.is_empty() {
            out.push(Stale {
                id,
                problem: r.get(1),
                verdict: r.get(2),
                reasons,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_times_are_utc_and_compare_as_each_engine_stores_them() {
        let t = |engine, text: &str| time_param(engine, "since", text);
        assert_eq!(
            t(Engine::Sqlite, "2026-03-01T09:00:00Z").unwrap(),
            "2026-03-01 09:00:00.000"
        );
        assert_eq!(
            t(Engine::Sqlite, "2026-03-01T09:00:00.123456Z").unwrap(),
            "2026-03-01 09:00:00.123"
        );
        assert_eq!(
            t(Engine::Postgres, "2026-03-01T09:00:00.5Z").unwrap(),
            "2026-03-01T09:00:00.5Z"
        );
        for bad in [
            "2026-03-01",
            "2026-03-01T09:00:00",
            "2026-03-01T09:00:00+01:00",
            "2026-3-01T09:00:00Z",
            "2026-03-01T09:00:00.Z",
            "yesterday",
        ] {
            let e = t(Engine::Sqlite, bad).unwrap_err().to_string();
            assert!(e.contains("2026-03-01T09:00:00Z"), "{bad}: {e}");
        }
    }
}
