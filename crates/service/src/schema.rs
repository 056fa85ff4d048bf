//! The database's tables, created idempotently when a worker (or `judge serve`) connects.
//!
//! One `schema_version` row says which shape the tables have; a database made by a newer judge
//! is refused rather than misread. On PostgreSQL, creation runs under a transaction-scoped
//! advisory lock, so workers starting together do not race on `CREATE TABLE IF NOT EXISTS`; on
//! SQLite, under the transaction's write lock. The tables are written once, in PostgreSQL's
//! dialect; SQLite's are translated from them (`db::translate_ddl`). Columns added after
//! the first release are added when missing ([`ADDED`]).

use crate::db::{Db, Engine, Sql};
use crate::Error;

/// The shape of the tables this judge reads and writes.
pub const VERSION: i32 = 1;

/// The advisory lock key that serialises schema creation (any constant of our own).
const LOCK: i64 = 0x6a75_6467_6500_0001;

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL);
-- Packages (a tar of the package folder) and sources, by the SHA-256 of their bytes.
CREATE TABLE IF NOT EXISTS blobs (
    hash text PRIMARY KEY,
    data bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- A problem's name and its current package; a submission keeps the package it was made on.
CREATE TABLE IF NOT EXISTS problems (
    name text PRIMARY KEY,
    package text NOT NULL REFERENCES blobs (hash),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS submissions (
    id bigserial PRIMARY KEY,
    problem text NOT NULL REFERENCES problems (name),
    package text NOT NULL REFERENCES blobs (hash),
    language text,
    filename text NOT NULL,
    source text NOT NULL REFERENCES blobs (hash),
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'judging', 'done')),
    verdict text,
    score double precision,
    time_ms bigint,
    memory_kib bigint,
    error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
-- One job per submission. `attempt` is the fencing token: every write a worker makes names
-- (id, attempt, worker) and changes nothing once the job was taken from it.
CREATE TABLE IF NOT EXISTS jobs (
    id bigserial PRIMARY KEY,
    submission bigint NOT NULL UNIQUE REFERENCES submissions (id),
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
    priority integer NOT NULL DEFAULT 0,
    attempt integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
    worker text,
    lease_until timestamptz,
    not_before timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS jobs_queued ON jobs (priority, id) WHERE state = 'queued';
CREATE INDEX IF NOT EXISTS jobs_running ON jobs (lease_until) WHERE state = 'running';
-- One row per attempt: who judged, when, and how it ended ('done', 'lost', 'failed').
CREATE TABLE IF NOT EXISTS judgings (
    job bigint NOT NULL REFERENCES jobs (id),
    attempt integer NOT NULL,
    worker text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    outcome text,
    reason text,
    PRIMARY KEY (job, attempt)
);
-- What the engine told while judging (the events of `--format jsonl`), each written by the
-- attempt that holds the job (fenced) and announced on `judge_event` with its id: the event
-- itself may exceed a notification's 8000 bytes, its id never does.
CREATE TABLE IF NOT EXISTS events (
    id bigserial PRIMARY KEY,
    submission bigint NOT NULL REFERENCES submissions (id),
    attempt integer NOT NULL,
    name text NOT NULL,
    data text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS events_submission ON events (submission, id);
-- Each worker slot as it last told (`judge serve`'s jury page and `GET /api/v1/workers`):
-- its environment, 'idle', 'judging' or 'stopped', when it was last heard (a live slot renews
-- it at least every second while idle and at each heartbeat while judging), its lease, and
-- what it finished: jobs done and, of them, judge errors (counted in the fenced finish).
CREATE TABLE IF NOT EXISTS workers (
    name text PRIMARY KEY,
    digest text,
    environment text,
    state text NOT NULL DEFAULT 'idle',
    lease_ms bigint NOT NULL DEFAULT 10000,
    started_at timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now(),
    jobs_done bigint NOT NULL DEFAULT 0,
    judge_errors bigint NOT NULL DEFAULT 0
);
-- The organiser's settings: `pin_digest` (only workers of that environment digest claim).
CREATE TABLE IF NOT EXISTS settings (key text PRIMARY KEY, value text NOT NULL);
-- The final judging's tests; the key makes a duplicate row impossible.
CREATE TABLE IF NOT EXISTS test_results (
    submission bigint NOT NULL REFERENCES submissions (id),
    ordinal integer NOT NULL,
    name text NOT NULL,
    verdict text NOT NULL,
    time_ms bigint NOT NULL,
    memory_kib bigint NOT NULL,
    message text NOT NULL,
    PRIMARY KEY (submission, ordinal)
);
-- A rejudge set: its filter (JSON, as asked), how many times each submission is judged, and
-- its state ('judging' until applied or cancelled; done when no shadow waits). Its results are
-- shadow submissions (`submissions.rejudge`, `shadow_of`, `run`): rows of their own, judged
-- through the same jobs, never shown as submissions.
CREATE TABLE IF NOT EXISTS rejudges (
    id bigserial PRIMARY KEY,
    filter text NOT NULL,
    runs integer NOT NULL DEFAULT 1 CHECK (runs >= 1),
    state text NOT NULL DEFAULT 'judging' CHECK (state IN ('judging', 'applied', 'cancelled')),
    created_at timestamptz NOT NULL DEFAULT now(),
    ended_at timestamptz
);
-- Each submission of a set: its published result when the set was made (the matrix's old
-- verdict) and, once applied, everything the new result replaced (its tests and inputs as
-- JSON).
CREATE TABLE IF NOT EXISTS rejudge_items (
    rejudge bigint NOT NULL REFERENCES rejudges (id),
    submission bigint NOT NULL REFERENCES submissions (id),
    verdict text,
    score double precision,
    time_ms bigint,
    memory_kib bigint,
    error text,
    replaced text,
    PRIMARY KEY (rejudge, submission)
);
";

/// Columns added to a table after it was first made, as (table, column, type): added when
/// missing. Only then: `ALTER TABLE` locks the table even when it changes nothing, which would
/// deadlock with claims running while another process connects.
const ADDED: &[(&str, &str, &str)] = &[
    // Who submitted through `judge serve` (a submitter token's name); none: an organiser or
    // the CLI.
    ("submissions", "submitter", "text"),
    // Each attempt's worker environment (`digest`: what its verdicts depend on, described in
    // `environment`).
    ("judgings", "digest", "text"),
    ("judgings", "environment", "text"),
    // What the compiler said when the source was built (a CE's reason, a build's warnings).
    ("submissions", "compile_output", "text"),
    // A test's time limit, and its time beside other jobs when it was judged again alone.
    ("test_results", "limit_ms", "bigint"),
    ("test_results", "beside_ms", "bigint"),
    // The judging as `judge run --json` gives it (JSON text).
    ("submissions", "report", "text"),
    // What the result was judged on (`provenance`): the package, checker, validators and
    // language entry by hash, the language's version line and the judging's environment
    // digest; each test's input and answer by hash.
    ("submissions", "judged_package", "text"),
    ("submissions", "checker_hash", "text"),
    ("submissions", "validator_hash", "text"),
    ("submissions", "language_used", "text"),
    ("submissions", "language_hash", "text"),
    ("submissions", "language_version", "text"),
    ("submissions", "judged_digest", "text"),
    ("test_results", "input_hash", "text"),
    ("test_results", "answer_hash", "text"),
    // A rejudge's shadow: the set, the published submission it judges again, which of the
    // set's runs (1..=runs).
    ("submissions", "rejudge", "bigint"),
    ("submissions", "shadow_of", "bigint"),
    ("submissions", "run", "integer"),
];

/// Indexes added after the tables were first made (on added columns, or for later queries), as
/// (name, definition): made after the columns, when missing (only then,
/// as with [`ADDED`]: `CREATE INDEX` locks its table against writes even when the index is
/// there already, and two such locks taken by a connecting process deadlock with a submit).
const INDEXES: &[(&str, &str)] = &[
    (
        "submissions_rejudge",
        "CREATE INDEX submissions_rejudge ON submissions (rejudge, shadow_of)",
    ),
    // The reaper's pruning of old events (`queue::prune_events`).
    (
        "events_created",
        "CREATE INDEX events_created ON events (created_at)",
    ),
    // The Judge0 callbacks still to send, looked for after every judging
    // (`http::judge0::start_callbacks`).
    (
        "judge0_callbacks_pending",
        "CREATE INDEX judge0_callbacks_pending ON judge0_submissions (submission) WHERE callback_state = 'pending'",
    ),
];

/// Whether the index `name` exists.
fn has_index(tx: &mut impl Sql, name: &str) -> Result<bool, Error> {
    let found = match tx.engine() {
        Engine::Postgres => tx.query_opt(
            "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1",
            &[&name],
        )?,
        Engine::Sqlite => tx.query_opt(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = $1",
            &[&name],
        )?,
    };
    Ok(found.is_some())
}

/// Creates the tables that are missing and checks the schema's version.
pub fn ensure(client: &mut Db) -> Result<(), Error> {
    let mut tx = client.transaction()?;
    match tx.engine() {
        Engine::Postgres => {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])?;
            tx.batch_execute(TABLES)?;
            tx.batch_execute(crate::judge0::TABLE)?;
        }
        Engine::Sqlite => {
            tx.batch_execute(&crate::db::translate_ddl(TABLES))?;
            tx.batch_execute(&crate::db::translate_ddl(crate::judge0::TABLE))?;
        }
    }
    for (table, column, kind) in ADDED {
        if !crate::db::has_column(&mut tx, table, column)? {
            tx.batch_execute(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind}"))?;
        }
    }
    for (name, definition) in INDEXES {
        if !has_index(&mut tx, name)? {
            tx.batch_execute(definition)?;
        }
    }
    let found: Option<i32> = tx
        .query_opt("SELECT max(version) FROM schema_version", &[])?
        .and_then(|row| row.get(0));
    match found {
        None => {
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[&VERSION])?;
        }
        Some(v) if v > VERSION => {
            return Err(Error::Schema(format!(
                "the database's schema is version {v}, newer than this judge's {VERSION}\n  hint: upgrade this judge to the version the other workers run"
            )))
        }
        Some(_) => {}
    }
    tx.commit()?;
    Ok(())
}
