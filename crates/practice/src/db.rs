//! The history: one SQLite file, `DIR/history.sqlite`. Every submission (problem, language,
//! source text and its SHA-256, the watched path if any, when it came, the verdict, the compile
//! report, every test's result as the judge's JSON, the largest CPU time and memory) and every
//! contest (its problems, start, duration, freeze). Times are milliseconds since the epoch.
//! A submission still judging when the server stopped has no verdict; the next server judges
//! it again ([`Db::unfinished`]).
//!
//! It goes through the storage layer the judging service uses (`judge_db`): the tables and
//! statements are written in PostgreSQL's dialect and translated for SQLite there. The tables
//! translate to those the history had before (`bigint` is SQLite's INTEGER affinity, `bigserial
//! PRIMARY KEY` its `INTEGER PRIMARY KEY AUTOINCREMENT`), so a history written by an older judge
//! opens as it is; a column added since is added when missing.

use judge_db::{Row, Sql};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Mutex;

pub struct Db {
    conn: Mutex<judge_db::Db>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS submissions (
    id bigserial PRIMARY KEY,
    problem text NOT NULL,
    language text NOT NULL,
    source text NOT NULL,
    source_sha256 text NOT NULL,
    file_name text NOT NULL,
    path text,
    created_at bigint NOT NULL,
    started_at bigint,
    finished_at bigint,
    verdict text,
    error text,
    compile text,
    tests text NOT NULL DEFAULT '[]',
    time_ms bigint,
    memory_kib bigint
);
CREATE INDEX IF NOT EXISTS submissions_problem ON submissions (problem, id);
CREATE TABLE IF NOT EXISTS contests (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    batch text UNIQUE,
    batch_size bigint,
    created_at bigint NOT NULL,
    start_at bigint,
    duration_min bigint NOT NULL,
    freeze_min bigint
);
CREATE TABLE IF NOT EXISTS watches (
    id bigserial PRIMARY KEY,
    problem text NOT NULL,
    path text NOT NULL,
    UNIQUE (problem, path)
);
CREATE TABLE IF NOT EXISTS contest_problems (
    contest bigint NOT NULL,
    position bigint NOT NULL,
    problem text NOT NULL,
    PRIMARY KEY (contest, position)
);
";

/// Columns added to a table after the history's first release, as (table, column, type):
/// added when missing.
const ADDED: &[(&str, &str, &str)] = &[("submissions", "started_at", "bigint")];

/// A new submission, before judging.
pub struct NewSubmission<'a> {
    pub problem: &'a str,
    pub language: &'a str,
    pub source: &'a str,
    /// The name the source is judged under (`main.cpp`, or the watched file's name).
    pub file_name: &'a str,
    pub path: Option<&'a str>,
    pub created_at: i64,
}

/// A contest as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Contest {
    pub id: i64,
    pub name: String,
    pub batch: Option<String>,
    pub batch_size: Option<i64>,
    pub created_at: i64,
    pub start_at: Option<i64>,
    pub duration_min: i64,
    pub freeze_min: Option<i64>,
    pub problems: Vec<String>,
}

/// What the scoreboard needs of a submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub problem: String,
    pub created_at: i64,
    /// `None` while judging.
    pub verdict: Option<String>,
}

type Result<T> = std::result::Result<T, String>;

/// A watch as kept: id, problem, path, the SHA-256 of the last source submitted from it.
pub type SavedWatch = (i64, String, String, Option<String>);

/// Per problem: submissions, the first one's time, the first accepted one's time.
pub type Stats = std::collections::HashMap<String, (i64, i64, Option<i64>)>;

fn err(e: judge_db::Error) -> String {
    match e {
        judge_db::Error::Lite(e) => format!("the history database: {e}"),
        judge_db::Error::Pg(e) => format!("the history database: {e}"),
        other => format!("the history database: {other}"),
    }
}

impl Db {
    pub fn open(path: &Path) -> Result<Db> {
        // WAL (the storage layer's mode) keeps readers (the API) and the writers (the judging
        // engines) out of each other's way.
        let conn = judge_db::Db::open_sqlite(path).map_err(|e| e.to_string())?;
        Db::on(conn).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The history on an open connection, its tables made when missing. [`Db::open`] is the
    /// server's (a SQLite file); the statements are both engines', and a test runs them on
    /// PostgreSQL too.
    pub fn on(mut conn: judge_db::Db) -> Result<Db> {
        create(&mut conn).map_err(err)?;
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut judge_db::Db) -> std::result::Result<T, judge_db::Error>,
    ) -> Result<T> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut conn).map_err(err)
    }

    pub fn insert(&self, s: &NewSubmission) -> Result<i64> {
        let sha = super::store::hex_sha(s.source.as_bytes());
        self.with(|c| {
            c.query_one(
                "INSERT INTO submissions (problem, language, source, source_sha256, file_name, path, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                &[&s.problem, &s.language, &s.source, &sha, &s.file_name, &s.path, &s.created_at],
            )?
            .try_get(0)
        })
    }

    /// A judging engine took submission `id` (queued until then); a judging that starts again
    /// after a restart starts afresh.
    pub fn start(&self, id: i64, at: i64) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET started_at = $2, tests = '[]' WHERE id = $1",
                &[&id, &at],
            )
            .map(drop)
        })
    }

    /// The tests judged so far (while judging).
    pub fn progress(&self, id: i64, tests: &Value) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET tests = $2 WHERE id = $1",
                &[&id, &tests.to_string()],
            )
            .map(drop)
        })
    }

    /// The end of judging: the verdict (or the error that kept it from being judged).
    #[expect(clippy::too_many_arguments, reason = "one row's columns")]
    pub fn finish(
        &self,
        id: i64,
        verdict: &str,
        error: Option<&str>,
        compile: Option<&Value>,
        tests: &Value,
        time_ms: Option<i64>,
        memory_kib: Option<i64>,
        finished_at: i64,
    ) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET verdict = $2, error = $3, compile = $4, tests = $5, time_ms = $6,
                 memory_kib = $7, finished_at = $8 WHERE id = $1",
                &[
                    &id,
                    &verdict,
                    &error,
                    &compile.map(|c| c.to_string()),
                    &tests.to_string(),
                    &time_ms,
                    &memory_kib,
                    &finished_at,
                ],
            )
            .map(drop)
        })
    }

    /// Submission `id` as the API shows it (with the source when `source`).
    pub fn get(&self, id: i64, source: bool) -> Result<Option<Value>> {
        self.with(|c| {
            c.query_opt(
                &format!("SELECT {COLUMNS} FROM submissions WHERE id = $1"),
                &[&id],
            )?
            .map(|r| row(&r, source))
            .transpose()
        })
    }

    /// The history, newest first (of one problem, or all), at most `limit`.
    pub fn list(&self, problem: Option<&str>, limit: i64) -> Result<Vec<Value>> {
        self.with(|c| {
            c.query(
                &format!(
                    "SELECT {COLUMNS} FROM submissions WHERE ($1::text IS NULL OR problem = $1)
                     ORDER BY id DESC LIMIT $2"
                ),
                &[&problem, &limit],
            )?
            .iter()
            .map(|r| row(r, false))
            .collect()
        })
    }

    /// The file name and source of submission `id` (to judge it).
    pub fn source(&self, id: i64) -> Result<Option<(String, String, String)>> {
        self.with(|c| {
            c.query_opt(
                "SELECT problem, file_name, source FROM submissions WHERE id = $1",
                &[&id],
            )?
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
            .transpose()
        })
    }

    /// Submissions without a verdict (the server stopped while they waited or were judged),
    /// oldest first; all of them are queued again (none is judging now).
    pub fn unfinished(&self) -> Result<Vec<i64>> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET started_at = NULL WHERE verdict IS NULL",
                &[],
            )?;
            c.query(
                "SELECT id FROM submissions WHERE verdict IS NULL ORDER BY id",
                &[],
            )?
            .iter()
            .map(|r| r.try_get(0))
            .collect()
        })
    }

    /// Per problem: its attempts (refusals left out), the first one's time and the first
    /// accepted one's.
    pub fn problem_stats(&self) -> Result<Stats> {
        self.with(|c| {
            c.query(
                &format!(
                    "SELECT problem, COUNT(*), MIN(created_at),
                            MIN(CASE WHEN verdict = 'AC' THEN created_at END)
                     FROM submissions WHERE {ATTEMPT} GROUP BY problem"
                ),
                &[],
            )?
            .iter()
            .map(|r| Ok((r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?, r.try_get(3)?))))
            .collect()
        })
    }

    /// Submissions made before the first accepted one, per problem (all when none is accepted).
    pub fn attempts_before_ac(&self, problem: &str) -> Result<i64> {
        self.with(|c| {
            c.query_one(
                &format!(
                    "SELECT COUNT(*) FROM submissions WHERE problem = $1 AND {ATTEMPT} AND id < COALESCE(
                        (SELECT MIN(id) FROM submissions WHERE problem = $1 AND verdict = 'AC'),
                        9223372036854775807)"
                ),
                &[&problem],
            )?
            .try_get(0)
        })
    }

    /// Every submission to these problems made in `[from, to]`, oldest first.
    pub fn attempts(&self, problems: &[String], from: i64, to: i64) -> Result<Vec<Attempt>> {
        self.with(|c| {
            let mut all = Vec::new();
            for r in c.query(
                "SELECT problem, created_at, verdict FROM submissions
                 WHERE created_at >= $1 AND created_at <= $2 ORDER BY created_at, id",
                &[&from, &to],
            )? {
                let attempt = Attempt {
                    problem: r.try_get(0)?,
                    created_at: r.try_get(1)?,
                    verdict: r.try_get(2)?,
                };
                if problems.contains(&attempt.problem) {
                    all.push(attempt);
                }
            }
            Ok(all)
        })
    }

    /// Watches `path` for `problem` (the same id when it is watched already).
    pub fn add_watch(&self, problem: &str, path: &str) -> Result<i64> {
        self.with(|c| {
            c.execute(
                "INSERT INTO watches (problem, path) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                &[&problem, &path],
            )?;
            c.query_one(
                "SELECT id FROM watches WHERE problem = $1 AND path = $2",
                &[&problem, &path],
            )?
            .try_get(0)
        })
    }

    pub fn remove_watch(&self, id: i64) -> Result<bool> {
        self.with(|c| {
            c.execute("DELETE FROM watches WHERE id = $1", &[&id])
                .map(|n| n == 1)
        })
    }

    /// Every watch with the SHA-256 of the last source submitted from its file.
    pub fn watches(&self) -> Result<Vec<SavedWatch>> {
        self.with(|c| {
            c.query(
                "SELECT w.id, w.problem, w.path,
                    (SELECT s.source_sha256 FROM submissions s WHERE s.problem = w.problem AND s.path = w.path ORDER BY s.id DESC LIMIT 1)
                 FROM watches w ORDER BY w.id",
                &[],
            )?
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
            .collect()
        })
    }

    /// A new contest; returns its id.
    pub fn create_contest(&self, c: &Contest) -> Result<i64> {
        self.with(|conn| {
            let mut tx = conn.transaction()?;
            let id: i64 = tx
                .query_one(
                    "INSERT INTO contests (name, batch, batch_size, created_at, start_at, duration_min, freeze_min)
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                    &[&c.name, &c.batch, &c.batch_size, &c.created_at, &c.start_at, &c.duration_min, &c.freeze_min],
                )?
                .try_get(0)?;
            for (i, p) in c.problems.iter().enumerate() {
                tx.execute(
                    "INSERT INTO contest_problems (contest, position, problem) VALUES ($1, $2, $3)",
                    &[&id, &(i as i64), p],
                )?;
            }
            tx.commit()?;
            Ok(id)
        })
    }

    /// Adds a problem of a competitive-companion batch to its contest (made by the batch's
    /// first problem, named after its group).
    pub fn add_to_batch(
        &self,
        batch: &str,
        size: i64,
        group: &str,
        problem: &str,
        now: i64,
    ) -> Result<i64> {
        self.with(|conn| {
            let mut tx = conn.transaction()?;
            let existing = tx.query_opt("SELECT id FROM contests WHERE batch = $1", &[&batch])?;
            let id: i64 = match existing {
                Some(r) => r.try_get(0)?,
                None => {
                    let name = if group.is_empty() { "Contest" } else { group };
                    tx.query_one(
                        "INSERT INTO contests (name, batch, batch_size, created_at, start_at, duration_min)
                         VALUES ($1, $2, $3, $4, NULL, 120) RETURNING id",
                        &[&name, &batch, &size, &now],
                    )?
                    .try_get(0)?
                }
            };
            let known: i64 = tx
                .query_one(
                    "SELECT COUNT(*) FROM contest_problems WHERE contest = $1 AND problem = $2",
                    &[&id, &problem],
                )?
                .try_get(0)?;
            if known == 0 {
                tx.execute(
                    "INSERT INTO contest_problems (contest, position, problem)
                     VALUES ($1, (SELECT COALESCE(MAX(position), -1) + 1 FROM contest_problems WHERE contest = $1), $2)",
                    &[&id, &problem],
                )?;
            }
            tx.commit()?;
            Ok(id)
        })
    }

    /// Starts a contest that has not started (a batch's): now, for `duration_min`.
    pub fn start_contest(
        &self,
        id: i64,
        start: i64,
        duration_min: i64,
        freeze_min: Option<i64>,
    ) -> Result<bool> {
        self.with(|c| {
            c.execute(
                "UPDATE contests SET start_at = $2, duration_min = $3, freeze_min = $4 WHERE id = $1 AND start_at IS NULL",
                &[&id, &start, &duration_min, &freeze_min],
            )
            .map(|n| n == 1)
        })
    }

    pub fn contests(&self) -> Result<Vec<Contest>> {
        self.with(|c| {
            let mut all = c
                .query(
                    "SELECT id, name, batch, batch_size, created_at, start_at, duration_min, freeze_min
                     FROM contests ORDER BY id DESC",
                    &[],
                )?
                .iter()
                .map(|r| {
                    Ok(Contest {
                        id: r.try_get(0)?,
                        name: r.try_get(1)?,
                        batch: r.try_get(2)?,
                        batch_size: r.try_get(3)?,
                        created_at: r.try_get(4)?,
                        start_at: r.try_get(5)?,
                        duration_min: r.try_get(6)?,
                        freeze_min: r.try_get(7)?,
                        problems: Vec::new(),
                    })
                })
                .collect::<std::result::Result<Vec<_>, judge_db::Error>>()?;
            for contest in &mut all {
                contest.problems = c
                    .query(
                        "SELECT problem FROM contest_problems WHERE contest = $1 ORDER BY position",
                        &[&contest.id],
                    )?
                    .iter()
                    .map(|r| r.try_get(0))
                    .collect::<std::result::Result<_, _>>()?;
            }
            Ok(all)
        })
    }

    pub fn contest(&self, id: i64) -> Result<Option<Contest>> {
        Ok(self.contests()?.into_iter().find(|c| c.id == id))
    }
}

/// Creates the tables that are missing and the columns added since (one transaction: a
/// history is never left half-made).
fn create(conn: &mut judge_db::Db) -> std::result::Result<(), judge_db::Error> {
    let mut tx = conn.transaction()?;
    let ddl = match tx.engine() {
        judge_db::Engine::Postgres => SCHEMA.to_string(),
        judge_db::Engine::Sqlite => judge_db::translate_ddl(SCHEMA),
    };
    tx.batch_execute(&ddl)?;
    for (table, column, kind) in ADDED {
        if !judge_db::has_column(&mut tx, table, column)? {
            tx.batch_execute(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind}"))?;
        }
    }
    tx.commit()
}

/// A submission the contestant attempted: any but one the judge refused or could not judge (a
/// JE with the judge's reason, e.g. an interactive problem it cannot judge yet), which is the
/// judge's failure, not a rejected attempt.
const ATTEMPT: &str = "NOT (COALESCE(verdict, '') = 'JE' AND error IS NOT NULL)";

const COLUMNS: &str = "id, problem, language, source_sha256, path, created_at, finished_at, verdict, error, compile, tests, time_ms, memory_kib, file_name, started_at, source";

fn row(r: &Row, source: bool) -> std::result::Result<Value, judge_db::Error> {
    let parse = |text: Option<String>| -> Value {
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let mut v = json!({
        "id": r.try_get::<_, i64>(0)?,
        "problem": r.try_get::<_, String>(1)?,
        "language": r.try_get::<_, String>(2)?,
        "source_sha256": r.try_get::<_, String>(3)?,
        "path": r.try_get::<_, Option<String>>(4)?,
        "created_at": r.try_get::<_, i64>(5)?,
        "finished_at": r.try_get::<_, Option<i64>>(6)?,
        "verdict": r.try_get::<_, Option<String>>(7)?,
        "error": r.try_get::<_, Option<String>>(8)?,
        "compile": parse(r.try_get(9)?),
        "tests": parse(r.try_get(10)?),
        "time_ms": r.try_get::<_, Option<i64>>(11)?,
        "memory_kib": r.try_get::<_, Option<i64>>(12)?,
        "file_name": r.try_get::<_, String>(13)?,
        "started_at": r.try_get::<_, Option<i64>>(14)?,
    });
    // Waiting for an engine, on one, or judged.
    v["state"] = json!(match (&v["verdict"], &v["started_at"]) {
        (Value::String(_), _) => "done",
        (_, Value::Number(_)) => "judging",
        _ => "queued",
    });
    if source {
        v["source"] = Value::String(r.try_get(15)?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    /// The tables as the history had them before it used the storage layer (its own SQLite
    /// statements), word for word: the files users have were made by this.
    const OLD_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    problem TEXT NOT NULL,
    language TEXT NOT NULL,
    source TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    file_name TEXT NOT NULL,
    path TEXT,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    verdict TEXT,
    error TEXT,
    compile TEXT,
    tests TEXT NOT NULL DEFAULT '[]',
    time_ms INTEGER,
    memory_kib INTEGER
);
CREATE INDEX IF NOT EXISTS submissions_problem ON submissions(problem, id);
CREATE TABLE IF NOT EXISTS contests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    batch TEXT UNIQUE,
    batch_size INTEGER,
    created_at INTEGER NOT NULL,
    start_at INTEGER,
    duration_min INTEGER NOT NULL,
    freeze_min INTEGER
);
CREATE TABLE IF NOT EXISTS watches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    problem TEXT NOT NULL,
    path TEXT NOT NULL,
    UNIQUE (problem, path)
);
CREATE TABLE IF NOT EXISTS contest_problems (
    contest INTEGER NOT NULL,
    position INTEGER NOT NULL,
    problem TEXT NOT NULL,
    PRIMARY KEY (contest, position)
);
";

    /// A column's type affinity by SQLite's rules (section 3.1 of its datatype page).
    fn affinity(declared: &str) -> &'static str {
        let t = declared.to_ascii_uppercase();
        if t.contains("INT") {
            "INTEGER"
        } else if ["CHAR", "CLOB", "TEXT"].iter().any(|w| t.contains(w)) {
            "TEXT"
        } else if t.is_empty() || t.contains("BLOB") {
            "BLOB"
        } else if ["REAL", "FLOA", "DOUB"].iter().any(|w| t.contains(w)) {
            "REAL"
        } else {
            "NUMERIC"
        }
    }

    /// Every table's columns (name, affinity, not null, default, key position), its indexes'
    /// columns and whether its key is a never-reused `AUTOINCREMENT` rowid, as SQLite reports
    /// them for the file `path`.
    fn shape(path: &Path) -> Vec<String> {
        let conn = Connection::open(path).unwrap();
        let mut tables: Vec<(String, String)> = conn
            .prepare(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'
                 AND name NOT LIKE 'sqlite_%' ORDER BY name",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        tables.retain(|(name, _)| !name.starts_with("sqlite_"));
        let mut out = Vec::new();
        for (table, sql) in tables {
            out.push(format!(
                "{table} autoincrement={}",
                sql.to_ascii_uppercase()
                    .contains("INTEGER PRIMARY KEY AUTOINCREMENT")
            ));
            let columns = conn
                .prepare(
                    "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)",
                )
                .unwrap()
                .query_map([&table], |r| {
                    Ok(format!(
                        "{table}.{} {} notnull={} default={:?} pk={}",
                        r.get::<_, String>(0)?,
                        affinity(&r.get::<_, String>(1)?),
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                })
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            out.extend(columns);
            let indexes = conn
                .prepare(
                    "SELECT il.\"unique\", il.origin,
                        (SELECT group_concat(name, ',') FROM pragma_index_info(il.name))
                     FROM pragma_index_list(?1) il ORDER BY 3",
                )
                .unwrap()
                .query_map([&table], |r| {
                    Ok(format!(
                        "{table} index unique={} origin={} on {}",
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            out.extend(indexes);
        }
        out
    }

    #[test]
    fn submissions_and_contests_survive_reopening() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("history.sqlite");
        let db = Db::open(&path).unwrap();
        let new = |problem, at| NewSubmission {
            problem,
            language: "C++",
            source: "int main(){}",
            file_name: "main.cpp",
            path: None,
            created_at: at,
        };
        let a = db.insert(&new("a", 10)).unwrap();
        let b = db.insert(&new("a", 20)).unwrap();
        let c = db.insert(&new("b", 30)).unwrap();
        db.finish(a, "WA", None, None, &json!([]), Some(5), Some(100), 11)
            .unwrap();
        db.finish(
            b,
            "AC",
            None,
            None,
            &json!([{"name": "1"}]),
            Some(7),
            Some(200),
            21,
        )
        .unwrap();
        let contest = db
            .create_contest(&Contest {
                id: 0,
                name: "Round".into(),
                batch: None,
                batch_size: None,
                created_at: 1,
                start_at: Some(5),
                duration_min: 60,
                freeze_min: None,
                problems: vec!["a".into(), "b".into()],
            })
            .unwrap();
        drop(db);
        let db = Db::open(&path).unwrap();
        let list = db.list(Some("a"), 100).unwrap();
        assert_eq!(
            list.iter()
                .map(|s| s["id"].as_i64().unwrap())
                .collect::<Vec<_>>(),
            [b, a]
        );
        assert_eq!(list[0]["verdict"], "AC");
        assert_eq!(list[0]["tests"][0]["name"], "1");
        assert!(list[0].get("source").is_none());
        assert_eq!(db.get(b, true).unwrap().unwrap()["source"], "int main(){}");
        assert_eq!(db.get(c, false).unwrap().unwrap()["state"], "queued");
        db.start(c, 31).unwrap();
        assert_eq!(db.get(c, false).unwrap().unwrap()["state"], "judging");
        assert_eq!(db.get(b, false).unwrap().unwrap()["state"], "done");
        // After a restart it waits again.
        assert_eq!(db.unfinished().unwrap(), [c]);
        assert_eq!(db.get(c, false).unwrap().unwrap()["state"], "queued");
        assert_eq!(db.attempts_before_ac("a").unwrap(), 1);
        assert_eq!(db.attempts_before_ac("b").unwrap(), 1);
        let stats = db.problem_stats().unwrap();
        assert_eq!(stats["a"], (2, 10, Some(20)));
        assert_eq!(db.contest(contest).unwrap().unwrap().problems, ["a", "b"]);
        // A batch collects its problems once each, in arrival order.
        let x = db
            .add_to_batch("uuid", 2, "Codeforces - Round 1", "p2", 50)
            .unwrap();
        assert_eq!(
            db.add_to_batch("uuid", 2, "Codeforces - Round 1", "p1", 51)
                .unwrap(),
            x
        );
        assert_eq!(
            db.add_to_batch("uuid", 2, "Codeforces - Round 1", "p1", 52)
                .unwrap(),
            x
        );
        let batch = db.contest(x).unwrap().unwrap();
        assert_eq!(batch.problems, ["p2", "p1"]);
        assert_eq!(batch.start_at, None);
        assert!(db.start_contest(x, 100, 90, Some(30)).unwrap());
        assert!(
            !db.start_contest(x, 200, 90, None).unwrap(),
            "started once only"
        );
        assert_eq!(db.attempts(&["a".into()], 15, 100).unwrap().len(), 1);
        // A refusal by the judge is no attempt: neither counted nor a problem's first try.
        let refused = db.insert(&new("r", 60)).unwrap();
        let refusal = "interactive problems are not judged yet";
        db.finish(
            refused,
            "JE",
            Some(refusal),
            None,
            &json!([]),
            None,
            None,
            61,
        )
        .unwrap();
        assert_eq!(db.attempts_before_ac("r").unwrap(), 0);
        assert!(!db.problem_stats().unwrap().contains_key("r"));
        let judged = db.insert(&new("r", 70)).unwrap();
        db.finish(judged, "WA", None, None, &json!([]), Some(1), Some(1), 71)
            .unwrap();
        assert_eq!(db.attempts_before_ac("r").unwrap(), 1);
        assert_eq!(db.problem_stats().unwrap()["r"], (1, 70, None));
        // Watches, with the last source submitted from their file.
        let w = db.add_watch("a", "/x/a.py").unwrap();
        assert_eq!(db.add_watch("a", "/x/a.py").unwrap(), w);
        assert_eq!(
            db.watches().unwrap(),
            [(w, "a".into(), "/x/a.py".into(), None)]
        );
        let mut from_file = new("a", 40);
        from_file.path = Some("/x/a.py");
        from_file.source = "print(1)";
        db.insert(&from_file).unwrap();
        let sha = crate::store::hex_sha(b"print(1)");
        assert_eq!(db.watches().unwrap()[0].3, Some(sha));
        assert!(db.remove_watch(w).unwrap());
        assert!(db.watches().unwrap().is_empty());
    }

    #[test]
    fn a_new_history_has_the_tables_of_an_old_one() {
        let tmp = tempfile::tempdir().unwrap();
        let old = tmp.path().join("old.sqlite");
        Connection::open(&old)
            .unwrap()
            .execute_batch(OLD_SCHEMA)
            .unwrap();
        let new = tmp.path().join("history.sqlite");
        drop(Db::open(&new).unwrap());
        let (old, new) = (shape(&old), shape(&new));
        // Not a vacuous comparison: every table, column and index is there.
        assert_eq!(
            old.iter()
                .filter(|l| l.contains("autoincrement=true"))
                .count(),
            3,
            "{old:#?}"
        );
        assert_eq!(
            old.iter().filter(|l| l.contains(" index ")).count(),
            4,
            "{old:#?}"
        );
        assert_eq!(old.len(), 4 + 16 + 8 + 3 + 3 + 4, "{old:#?}");
        assert_eq!(new, old);
    }

    #[test]
    fn a_history_written_by_the_previous_judge_opens_with_its_data() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("history.sqlite");
        {
            // Made as the previous judge made it: its statements, its journal mode.
            let old = Connection::open(&path).unwrap();
            let _: String = old
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
                .unwrap();
            old.execute_batch(OLD_SCHEMA).unwrap();
            old.execute_batch(
                "INSERT INTO submissions (problem, language, source, source_sha256, file_name, path,
                    created_at, started_at, finished_at, verdict, error, compile, tests, time_ms, memory_kib)
                 VALUES ('sum', 'C++', 'int main(){}', 'abc', 'main.cpp', NULL, 1764220800123, 1764220800200,
                    1764220801456, 'WA', NULL, '{\"ok\":true}', '[{\"name\":\"1\",\"verdict\":\"WA\"}]',
                    15, 3072);
                 INSERT INTO submissions (problem, language, source, source_sha256, file_name, path, created_at)
                 VALUES ('sum', 'Python 3', 'print(3)', 'def', 'sum.py', '/home/u/sum.py', 1764220900000);
                 INSERT INTO contests (name, batch, batch_size, created_at, start_at, duration_min, freeze_min)
                 VALUES ('Round 1', 'uuid-1', 2, 1764220000000, 1764220100000, 120, 30);
                 INSERT INTO contest_problems (contest, position, problem) VALUES (1, 0, 'sum'), (1, 1, 'max');
                 INSERT INTO watches (problem, path) VALUES ('sum', '/home/u/sum.py');
                 DELETE FROM watches WHERE id = 1;
                 INSERT INTO watches (problem, path) VALUES ('sum', '/home/u/sum.py');",
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        let judged = db.get(1, true).unwrap().unwrap();
        assert_eq!(judged["state"], "done", "{judged}");
        assert_eq!(judged["verdict"], "WA");
        assert_eq!(judged["created_at"], 1764220800123_i64);
        assert_eq!(judged["started_at"], 1764220800200_i64);
        assert_eq!(judged["finished_at"], 1764220801456_i64);
        assert_eq!(judged["compile"]["ok"], true);
        assert_eq!(judged["tests"][0]["verdict"], "WA");
        assert_eq!(
            (judged["time_ms"].as_i64(), judged["memory_kib"].as_i64()),
            (Some(15), Some(3072))
        );
        assert_eq!(judged["source"], "int main(){}");
        let list = db.list(Some("sum"), 10).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0]["path"], "/home/u/sum.py");
        assert_eq!(list[0]["state"], "queued");
        assert_eq!(db.unfinished().unwrap(), [2]);
        assert_eq!(
            db.source(2).unwrap(),
            Some(("sum".into(), "sum.py".into(), "print(3)".into()))
        );
        assert_eq!(db.problem_stats().unwrap()["sum"], (2, 1764220800123, None));
        assert_eq!(db.attempts_before_ac("sum").unwrap(), 2);
        let contest = db.contest(1).unwrap().unwrap();
        assert_eq!(
            contest,
            Contest {
                id: 1,
                name: "Round 1".into(),
                batch: Some("uuid-1".into()),
                batch_size: Some(2),
                created_at: 1764220000000,
                start_at: Some(1764220100000),
                duration_min: 120,
                freeze_min: Some(30),
                problems: vec!["sum".into(), "max".into()],
            }
        );
        // The watch made again got a new id (2), as the old file's keys never reuse one.
        assert_eq!(
            db.watches().unwrap(),
            [(2, "sum".into(), "/home/u/sum.py".into(), Some("def".into()))]
        );
        assert_eq!(db.add_watch("sum", "/home/u/sum.py").unwrap(), 2);
        // New rows continue the old file's keys; the batch's contest gains a problem.
        let next = db
            .insert(&NewSubmission {
                problem: "max",
                language: "C++",
                source: "int main(){}",
                file_name: "main.cpp",
                path: None,
                created_at: 1764221000000,
            })
            .unwrap();
        assert_eq!(next, 3);
        assert_eq!(
            db.add_to_batch("uuid-1", 2, "Round 1", "min", 1764221000001)
                .unwrap(),
            1
        );
        assert_eq!(
            db.contest(1).unwrap().unwrap().problems,
            ["sum", "max", "min"]
        );
        // Ids are never reused (AUTOINCREMENT as before): not 1, removed, and not 3, which the
        // ignored insert of the watch made twice took (as `INSERT OR IGNORE` did).
        let w = db.add_watch("max", "/home/u/max.cpp").unwrap();
        assert_eq!(w, 4);
        drop(db);
        // The file's tables are still the old statements' (nothing was rewritten).
        let conn = Connection::open(&path).unwrap();
        let sql: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'submissions'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(sql.contains("created_at INTEGER NOT NULL"), "{sql}");
    }

    #[test]
    fn a_history_from_before_started_at_opens_and_gains_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("history.sqlite");
        {
            let old = Connection::open(&path).unwrap();
            let before = OLD_SCHEMA.replace("    started_at INTEGER,\n", "");
            assert!(!before.contains("started_at"));
            old.execute_batch(&before).unwrap();
            old.execute(
                "INSERT INTO submissions (problem, language, source, source_sha256, file_name, created_at)
                 VALUES ('a', 'C++', 'x', 'h', 'main.cpp', 5)",
                [],
            )
            .unwrap();
        }
        let db = Db::open(&path).unwrap();
        let s = db.get(1, false).unwrap().unwrap();
        assert_eq!(s["state"], "queued", "{s}");
        assert!(s["started_at"].is_null(), "{s}");
        db.start(1, 6).unwrap();
        assert_eq!(db.get(1, false).unwrap().unwrap()["state"], "judging");
        drop(db);
        // Opening again changes nothing more.
        let db = Db::open(&path).unwrap();
        assert_eq!(db.get(1, false).unwrap().unwrap()["started_at"], 6);
    }

    #[test]
    fn a_history_that_cannot_be_opened_is_named_with_the_fix() {
        let Err(e) = Db::open(Path::new("/nonexistent-folder-of-judge/history.sqlite")) else {
            panic!("opened a history in a missing folder");
        };
        assert!(
            e.contains("/nonexistent-folder-of-judge/history.sqlite"),
            "{e}"
        );
        assert!(e.contains("hint:"), "{e}");
        // A file that is not a database is refused, not overwritten.
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("history.sqlite");
        std::fs::write(
            &path,
            "not a database, but some notes of mine\n".repeat(200),
        )
        .unwrap();
        let Err(e) = Db::open(&path) else {
            panic!("opened a file that is not a database");
        };
        assert!(e.contains("history.sqlite"), "{e}");
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with("not a database"),
            "the file was changed"
        );
    }

    #[test]
    fn the_history_uses_the_storage_layer_not_the_service() {
        let manifest: toml::Table = toml::from_str(include_str!("../Cargo.toml")).unwrap();
        let deps = manifest["dependencies"].as_table().unwrap();
        assert!(deps.contains_key("judge-db"), "{deps:?}");
        assert!(!deps.contains_key("judge-service"), "{deps:?}");
        assert!(
            !deps.contains_key("rusqlite"),
            "SQL goes through judge-db: {deps:?}"
        );
    }
}
