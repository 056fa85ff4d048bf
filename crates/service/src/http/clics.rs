//! `/api/v1/contests/…`: the results in the shapes of the ICPC Contest API (CLICS), so that
//! scoreboards and shadow judges can read them.
//!
//! The server serves one contest, `default`: it started when `judge serve` first ran on this
//! database (the `settings` row `contest_start`, written once) and has no end, so its
//! `duration` is how long it has run so far. A judgement is one judging attempt of a
//! submission (id `SUBMISSION-ATTEMPT`); its runs are the final judging's test results (id
//! `SUBMISSION-ATTEMPT-ORDINAL`). Verdicts become judgement types through
//! `Verdict::judgement_type`, the one mapping. A submitter sees only their own submissions'
//! judgements and runs, as in `/api/v1/submissions`.

use super::auth::{Caller, Role};
use super::{db, ApiError, Shared};
use crate::db::{Db, Sql};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use judge_model::{JudgementType, Verdict};
use serde_json::{json, Value};

/// The one contest's id.
pub const CONTEST: &str = "default";

/// A TIME of the spec, in UTC with milliseconds, from a `timestamptz` column.
const TIME: &str = "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"+00:00\"'";

/// Records when the contest started, once: the first `judge serve` on this database.
pub(super) fn start(client: &mut Db) -> Result<(), crate::Error> {
    client.execute(
        "INSERT INTO settings (key, value) VALUES ('contest_start', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'))
         ON CONFLICT (key) DO NOTHING",
        &[],
    )?;
    Ok(())
}

/// A RELTIME of the spec (`h:mm:ss.uuu`, negative with a leading `-`) from milliseconds.
pub fn reltime(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    format!(
        "{sign}{}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Seconds with millisecond precision, as the spec's run times are.
fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

fn not_found(what: String) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, what)
}

fn check_contest(id: &str) -> Result<(), ApiError> {
    if id == CONTEST {
        Ok(())
    } else {
        Err(not_found(format!(
            "no contest `{id}`; this server serves one, `{CONTEST}`"
        )))
    }
}

/// The contest's start as a TIME and how long ago it was (ms).
fn contest_start(client: &mut Db) -> Result<(String, i64), ApiError> {
    let row = client.query_one(
        &format!(
            "SELECT to_char(s AT TIME ZONE 'UTC', {TIME}),
                    (extract(epoch FROM now() - s) * 1000)::bigint
             FROM (SELECT value::timestamptz AS s FROM settings WHERE key = 'contest_start') t"
        ),
        &[],
    )?;
    Ok((row.get(0), row.get(1)))
}

fn contest_object(client: &mut Db) -> Result<Value, ApiError> {
    let (start, elapsed) = contest_start(client)?;
    Ok(json!({
        "id": CONTEST,
        "name": "judge serve",
        "formal_name": "judge serve",
        "start_time": start,
        "duration": reltime(elapsed.max(0)),
        "scoreboard_type": "pass-fail",
    }))
}

/// `GET /api/v1/contests`.
pub async fn contests(
    _caller: Caller,
    State(state): State<Shared>,
) -> Result<Json<Value>, ApiError> {
    let contest = db(&state, contest_object).await?;
    Ok(Json(json!([contest])))
}

/// `GET /api/v1/contests/{id}`.
pub async fn contest(
    _caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    Ok(Json(db(&state, contest_object).await?))
}

fn type_object(t: JudgementType) -> Value {
    json!({"id": t.id, "name": t.name, "penalty": t.penalty, "solved": t.solved})
}

/// `GET /api/v1/contests/{id}/judgement-types`: every type a verdict of this judge becomes.
pub async fn judgement_types(
    _caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    let types: Vec<Value> = Verdict::ALL
        .iter()
        .map(|v| type_object(v.judgement_type()))
        .collect();
    Ok(Json(Value::Array(types)))
}

/// `GET /api/v1/contests/{id}/judgement-types/{jt}`.
pub async fn judgement_type(
    _caller: Caller,
    Path((id, jt)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    Verdict::ALL
        .iter()
        .map(|v| v.judgement_type())
        .find(|t| t.id == jt)
        .map(|t| Json(type_object(t)))
        .ok_or_else(|| not_found(format!("no judgement type `{jt}`")))
}

/// The judgement type id of a stored verdict code.
fn type_id(verdict: Option<String>) -> Option<&'static str> {
    verdict
        .as_deref()
        .and_then(Verdict::from_code)
        .map(|v| v.judgement_type().id)
}

/// Parses `S-A` (a judgement) or `S-A-O` (a run) into its numbers.
fn parse_id(id: &str, parts: usize) -> Option<Vec<i64>> {
    let numbers: Vec<i64> = id
        .split('-')
        .map(|p| {
            p.parse()
                .ok()
                .filter(|n: &i64| *n >= 0 && !p.starts_with('+'))
        })
        .collect::<Option<_>>()?;
    (numbers.len() == parts).then_some(numbers)
}

/// The judgements, of one submission and attempt when `one` names them; a submitter's own
/// only.
fn judgements_of(
    client: &mut Db,
    mine: Option<&str>,
    one: Option<(i64, i32)>,
) -> Result<Vec<Value>, ApiError> {
    let (sub, attempt) = one.unzip();
    let rows = client.query(
        &format!(
            "WITH c AS (SELECT value::timestamptz AS s FROM settings WHERE key = 'contest_start')
             SELECT s.id, j.attempt, j.outcome, s.verdict,
                    to_char(j.started_at AT TIME ZONE 'UTC', {TIME}),
                    (extract(epoch FROM j.started_at - c.s) * 1000)::bigint,
                    to_char(j.finished_at AT TIME ZONE 'UTC', {TIME}),
                    (extract(epoch FROM j.finished_at - c.s) * 1000)::bigint,
                    (SELECT max(time_ms) FROM test_results t WHERE t.submission = s.id),
                    j.attempt = (SELECT max(attempt) FROM judgings k WHERE k.job = j.job),
                    jobs.state
             FROM judgings j JOIN jobs ON jobs.id = j.job
                  JOIN submissions s ON s.id = jobs.submission CROSS JOIN c
             WHERE ($1::text IS NULL OR s.submitter = $1) AND s.shadow_of IS NULL
               AND ($2::bigint IS NULL OR s.id = $2) AND ($3::int IS NULL OR j.attempt = $3)
             ORDER BY s.id, j.attempt"
        ),
        &[&mine, &sub, &attempt],
    )?;
    Ok(rows
        .iter()
        .map(|r| {
            let id: i64 = r.get(0);
            let attempt: i32 = r.get(1);
            let outcome: Option<String> = r.get(2);
            // Only the attempt that ended the judging has the verdict: the one that finished,
            // or the last of a job that ran out of attempts (the queue's JE); a lost one has
            // none.
            let current: bool = r.get(9);
            let failed = r.get::<_, String>(10) == "failed";
            let decided = outcome.as_deref() == Some("done") || (current && failed);
            let judgement_type = if decided { type_id(r.get(3)) } else { None };
            let end_ms: Option<i64> = r.get(7);
            let max_ms: Option<i64> = r.get(8);
            json!({
                "id": format!("{id}-{attempt}"),
                "submission_id": id.to_string(),
                "judgement_type_id": judgement_type,
                "current": current,
                "start_time": r.get::<_, String>(4),
                "start_contest_time": reltime(r.get(5)),
                "end_time": r.get::<_, Option<String>>(6),
                "end_contest_time": end_ms.map(reltime),
                "max_run_time": if outcome.as_deref() == Some("done") { max_ms.map(seconds) } else { None },
            })
        })
        .collect())
}

fn mine(caller: &Caller) -> Option<String> {
    match caller.role {
        Role::Organiser => None,
        Role::Submitter => Some(caller.name.clone()),
    }
}

/// `GET /api/v1/contests/{id}/judgements`.
pub async fn judgements(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    let mine = mine(&caller);
    let all = db(&state, move |client| {
        judgements_of(client, mine.as_deref(), None)
    })
    .await?;
    Ok(Json(Value::Array(all)))
}

/// `GET /api/v1/contests/{id}/judgements/{jid}`: another submitter's is as unknown as a
/// missing one.
pub async fn judgement(
    caller: Caller,
    State(state): State<Shared>,
    Path((id, jid)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    let missing = || not_found(format!("no judgement `{jid}`"));
    let Some(n) = parse_id(&jid, 2) else {
        return Err(missing());
    };
    let Ok(attempt) = i32::try_from(n[1]) else {
        return Err(missing());
    };
    let mine = mine(&caller);
    let found = db(&state, move |client| {
        judgements_of(client, mine.as_deref(), Some((n[0], attempt)))
    })
    .await?;
    found.into_iter().next().map(Json).ok_or_else(missing)
}

/// The runs: the test results of each submission's final judging (the attempt that finished
/// it), of one when `one` names it.
fn runs_of(
    client: &mut Db,
    mine: Option<&str>,
    one: Option<(i64, i32, i32)>,
) -> Result<Vec<Value>, ApiError> {
    let (sub, attempt, ordinal) = match one {
        Some((s, a, o)) => (Some(s), Some(a), Some(o)),
        None => (None, None, None),
    };
    let rows = client.query(
        &format!(
            "WITH c AS (SELECT value::timestamptz AS s FROM settings WHERE key = 'contest_start')
             SELECT s.id, j.attempt, t.ordinal, t.verdict, t.time_ms,
                    to_char(j.finished_at AT TIME ZONE 'UTC', {TIME}),
                    (extract(epoch FROM j.finished_at - c.s) * 1000)::bigint
             FROM test_results t JOIN submissions s ON s.id = t.submission
                  JOIN jobs ON jobs.submission = s.id
                  JOIN judgings j ON j.job = jobs.id AND j.outcome = 'done' CROSS JOIN c
             WHERE ($1::text IS NULL OR s.submitter = $1) AND ($2::bigint IS NULL OR s.id = $2)
               AND s.shadow_of IS NULL
               AND ($3::int IS NULL OR j.attempt = $3) AND ($4::int IS NULL OR t.ordinal = $4)
             ORDER BY s.id, t.ordinal"
        ),
        &[&mine, &sub, &attempt, &ordinal],
    )?;
    Ok(rows
        .iter()
        .map(|r| {
            let id: i64 = r.get(0);
            let attempt: i32 = r.get(1);
            let ordinal: i32 = r.get(2);
            json!({
                "id": format!("{id}-{attempt}-{ordinal}"),
                "judgement_id": format!("{id}-{attempt}"),
                "ordinal": ordinal,
                "judgement_type_id": type_id(r.get(3)),
                "time": r.get::<_, String>(5),
                "contest_time": reltime(r.get(6)),
                "run_time": seconds(r.get(4)),
            })
        })
        .collect())
}

/// `GET /api/v1/contests/{id}/runs`.
pub async fn runs(
    caller: Caller,
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    let mine = mine(&caller);
    let all = db(&state, move |client| runs_of(client, mine.as_deref(), None)).await?;
    Ok(Json(Value::Array(all)))
}

/// `GET /api/v1/contests/{id}/runs/{rid}`.
pub async fn run(
    caller: Caller,
    State(state): State<Shared>,
    Path((id, rid)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    check_contest(&id)?;
    let missing = || not_found(format!("no run `{rid}`"));
    let Some(n) = parse_id(&rid, 3) else {
        return Err(missing());
    };
    let (Ok(attempt), Ok(ordinal)) = (i32::try_from(n[1]), i32::try_from(n[2])) else {
        return Err(missing());
    };
    let mine = mine(&caller);
    let found = db(&state, move |client| {
        runs_of(client, mine.as_deref(), Some((n[0], attempt, ordinal)))
    })
    .await?;
    found.into_iter().next().map(Json).ok_or_else(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reltimes_are_hours_minutes_seconds_and_milliseconds() {
        assert_eq!(reltime(0), "0:00:00.000");
        assert_eq!(reltime(1_234), "0:00:01.234");
        assert_eq!(reltime(3_723_004), "1:02:03.004");
        assert_eq!(reltime(-61_000), "-0:01:01.000");
        assert_eq!(reltime(100 * 3_600_000), "100:00:00.000");
    }

    #[test]
    fn ids_parse_only_whole() {
        assert_eq!(parse_id("12-3", 2), Some(vec![12, 3]));
        assert_eq!(parse_id("12-3-4", 3), Some(vec![12, 3, 4]));
        assert_eq!(parse_id("12-3", 3), None);
        assert_eq!(parse_id("12--3", 2), None);
        assert_eq!(parse_id("+1-2", 2), None);
        assert_eq!(parse_id("x-2", 2), None);
    }
}
