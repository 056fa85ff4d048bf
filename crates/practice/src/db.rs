//! The history: one SQLite file, `DIR/history.sqlite`. Every submission (problem, language,
//! source text and its SHA-256, the watched path if any, when it came, the verdict, the compile
//! report, every test's result as the judge's JSON, the largest CPU time and memory) and every
//! contest (its problems, start, duration, freeze). Times are milliseconds since the epoch.
//! A submission still judging when the server stopped has no verdict; the next server judges
//! it again ([`Db::unfinished`]).

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Mutex;

pub struct Db {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
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

fn err(e: rusqlite::Error) -> String {
    format!("the history database: {e}")
}

impl Db {
    pub fn open(path: &Path) -> Result<Db> {
        let conn = Connection::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
        // WAL keeps readers (the API) and the writers (the judging engines) out of each other's way.
        let _: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        conn.execute_batch(SCHEMA)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        add_started_at(&conn).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Db {
            conn: Mutex::new(conn),
        })
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        f(&conn).map_err(err)
    }

    pub fn insert(&self, s: &NewSubmission) -> Result<i64> {
        let sha = super::store::hex_sha(s.source.as_bytes());
        self.with(|c| {
            c.execute(
                "INSERT INTO submissions (problem, language, source, source_sha256, file_name, path, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![s.problem, s.language, s.source, sha, s.file_name, s.path, s.created_at],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    /// A judging engine took submission `id` (queued until then); a judging that starts again
    /// after a restart starts afresh.
    pub fn start(&self, id: i64, at: i64) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET started_at = ?2, tests = '[]' WHERE id = ?1",
                params![id, at],
            )
            .map(drop)
        })
    }

    /// The tests judged so far (while judging).
    pub fn progress(&self, id: i64, tests: &Value) -> Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET tests = ?2 WHERE id = ?1",
                params![id, tests.to_string()],
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
                "UPDATE submissions SET verdict = ?2, error = ?3, compile = ?4, tests = ?5, time_ms = ?6,
                 memory_kib = ?7, finished_at = ?8 WHERE id = ?1",
                params![
                    id,
                    verdict,
                    error,
                    compile.map(|c| c.to_string()),
                    tests.to_string(),
                    time_ms,
                    memory_kib,
                    finished_at
                ],
            )
            .map(drop)
        })
    }

    /// Submission `id` as the API shows it (with the source when `source`).
    pub fn get(&self, id: i64, source: bool) -> Result<Option<Value>> {
        self.with(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM submissions WHERE id = ?1"),
                [id],
                |r| row(r, source),
            )
            .optional()
        })
    }

    /// The history, newest first (of one problem, or all), at most `limit`.
    pub fn list(&self, problem: Option<&str>, limit: i64) -> Result<Vec<Value>> {
        self.with(|c| {
            let mut st = c.prepare(&format!(
                "SELECT {COLUMNS} FROM submissions WHERE (?1 IS NULL OR problem = ?1) ORDER BY id DESC LIMIT ?2"
            ))?;
            let rows = st.query_map(params![problem, limit], |r| row(r, false))?;
            rows.collect()
        })
    }

    /// The file name and source of submission `id` (to judge it).
    pub fn source(&self, id: i64) -> Result<Option<(String, String, String)>> {
        self.with(|c| {
            c.query_row(
                "SELECT problem, file_name, source FROM submissions WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
        })
    }

    /// Submissions without a verdict (the server stopped while they waited or were judged),
    /// oldest first; all of them are queued again (none is judging now).
    pub fn unfinished(&self) -> Result<Vec<i64>> {
        self.with(|c| {
            c.execute(
                "UPDATE submissions SET started_at = NULL WHERE verdict IS NULL",
                [],
            )?;
            let mut st =
                c.prepare("SELECT id FROM submissions WHERE verdict IS NULL ORDER BY id")?;
            let rows = st.query_map([], |r| r.get(0))?;
            rows.collect()
        })
    }

    /// Per problem: submissions, and the time of the first and of the first accepted one.
    /// Per problem: its attempts (refusals left out), the first one's time and the first
    /// accepted one's.
    pub fn problem_stats(&self) -> Result<Stats> {
        self.with(|c| {
            let mut st = c.prepare(&format!(
                "SELECT problem, COUNT(*), MIN(created_at),
                            MIN(CASE WHEN verdict = 'AC' THEN created_at END)
                     FROM submissions WHERE {ATTEMPT} GROUP BY problem"
            ))?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?;
            rows.collect()
        })
    }

    /// Submissions made before the first accepted one, per problem (all when none is accepted).
    pub fn attempts_before_ac(&self, problem: &str) -> Result<i64> {
        self.with(|c| {
            c.query_row(
                &format!(
                    "SELECT COUNT(*) FROM submissions WHERE problem = ?1 AND {ATTEMPT} AND id < COALESCE(
                        (SELECT MIN(id) FROM submissions WHERE problem = ?1 AND verdict = 'AC'), 1 << 62)"
                ),
                [problem],
                |r| r.get(0),
            )
        })
    }

    /// Every submission to these problems made in `[from, to]`, oldest first.
    pub fn attempts(&self, problems: &[String], from: i64, to: i64) -> Result<Vec<Attempt>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT problem, created_at, verdict FROM submissions
                 WHERE created_at >= ?1 AND created_at <= ?2 ORDER BY created_at, id",
            )?;
            let rows = st.query_map(params![from, to], |r| {
                Ok(Attempt {
                    problem: r.get(0)?,
                    created_at: r.get(1)?,
                    verdict: r.get(2)?,
                })
            })?;
            let all: Vec<Attempt> = rows.collect::<rusqlite::Result<_>>()?;
            Ok(all
                .into_iter()
                .filter(|a| problems.contains(&a.problem))
                .collect())
        })
    }

    /// Watches `path` for `problem` (the same id when it is watched already).
    pub fn add_watch(&self, problem: &str, path: &str) -> Result<i64> {
        self.with(|c| {
            c.execute(
                "INSERT OR IGNORE INTO watches (problem, path) VALUES (?1, ?2)",
                params![problem, path],
            )?;
            c.query_row(
                "SELECT id FROM watches WHERE problem = ?1 AND path = ?2",
                params![problem, path],
                |r| r.get(0),
            )
        })
    }

    pub fn remove_watch(&self, id: i64) -> Result<bool> {
        self.with(|c| {
            c.execute("DELETE FROM watches WHERE id = ?1", [id])
                .map(|n| n == 1)
        })
    }

    /// Every watch with the SHA-256 of the last source submitted from its file.
    pub fn watches(&self) -> Result<Vec<SavedWatch>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT w.id, w.problem, w.path,
                    (SELECT s.source_sha256 FROM submissions s WHERE s.problem = w.problem AND s.path = w.path ORDER BY s.id DESC LIMIT 1)
                 FROM watches w ORDER BY w.id",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        })
    }

    /// A new contest; returns its id.
    pub fn create_contest(&self, c: &Contest) -> Result<i64> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn.transaction().map_err(err)?;
        tx.execute(
            "INSERT INTO contests (name, batch, batch_size, created_at, start_at, duration_min, freeze_min)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![c.name, c.batch, c.batch_size, c.created_at, c.start_at, c.duration_min, c.freeze_min],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        for (i, p) in c.problems.iter().enumerate() {
            tx.execute(
                "INSERT INTO contest_problems (contest, position, problem) VALUES (?1, ?2, ?3)",
                params![id, i as i64, p],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(id)
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
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn.transaction().map_err(err)?;
        let existing: Option<i64> = tx
            .query_row("SELECT id FROM contests WHERE batch = ?1", [batch], |r| {
                r.get(0)
            })
            .optional()
            .map_err(err)?;
        let id = match existing {
            Some(id) => id,
            None => {
                let name = if group.is_empty() { "Contest" } else { group };
                tx.execute(
                    "INSERT INTO contests (name, batch, batch_size, created_at, start_at, duration_min)
                     VALUES (?1, ?2, ?3, ?4, NULL, 120)",
                    params![name, batch, size, now],
                )
                .map_err(err)?;
                tx.last_insert_rowid()
            }
        };
        let known: i64 = tx
            .query_row(
                "SELECT COUNT(*) FROM contest_problems WHERE contest = ?1 AND problem = ?2",
                params![id, problem],
                |r| r.get(0),
            )
            .map_err(err)?;
        if known == 0 {
            tx.execute(
                "INSERT INTO contest_problems (contest, position, problem)
                 VALUES (?1, (SELECT COALESCE(MAX(position), -1) + 1 FROM contest_problems WHERE contest = ?1), ?2)",
                params![id, problem],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(id)
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
                "UPDATE contests SET start_at = ?2, duration_min = ?3, freeze_min = ?4 WHERE id = ?1 AND start_at IS NULL",
                params![id, start, duration_min, freeze_min],
            )
            .map(|n| n == 1)
        })
    }

    pub fn contests(&self) -> Result<Vec<Contest>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT id, name, batch, batch_size, created_at, start_at, duration_min, freeze_min FROM contests ORDER BY id DESC",
            )?;
            let rows = st.query_map([], |r| {
                Ok(Contest {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    batch: r.get(2)?,
                    batch_size: r.get(3)?,
                    created_at: r.get(4)?,
                    start_at: r.get(5)?,
                    duration_min: r.get(6)?,
                    freeze_min: r.get(7)?,
                    problems: Vec::new(),
                })
            })?;
            let mut all: Vec<Contest> = rows.collect::<rusqlite::Result<_>>()?;
            let mut st = c.prepare("SELECT problem FROM contest_problems WHERE contest = ?1 ORDER BY position")?;
            for contest in &mut all {
                contest.problems = st
                    .query_map([contest.id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?;
            }
            Ok(all)
        })
    }

    pub fn contest(&self, id: i64) -> Result<Option<Contest>> {
        Ok(self.contests()?.into_iter().find(|c| c.id == id))
    }
}

/// A submission the contestant attempted: any but one the judge refused or could not judge (a
/// JE with the judge's reason, e.g. an interactive problem it cannot judge yet), which is the
/// judge's failure, not a rejected attempt.
const ATTEMPT: &str = "NOT (COALESCE(verdict, '') = 'JE' AND error IS NOT NULL)";

const COLUMNS: &str = "id, problem, language, source_sha256, path, created_at, finished_at, verdict, error, compile, tests, time_ms, memory_kib, file_name, started_at, source";

/// A history written before submissions had `started_at` gains it (empty: none is judging).
fn add_started_at(conn: &Connection) -> rusqlite::Result<()> {
    let has = conn
        .prepare("SELECT 1 FROM pragma_table_info('submissions') WHERE name = 'started_at'")?
        .exists([])?;
    if !has {
        conn.execute_batch("ALTER TABLE submissions ADD COLUMN started_at INTEGER")?;
    }
    Ok(())
}

fn row(r: &rusqlite::Row, source: bool) -> rusqlite::Result<Value> {
    let parse = |text: Option<String>| -> Value {
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    };
    let mut v = json!({
        "id": r.get::<_, i64>(0)?,
        "problem": r.get::<_, String>(1)?,
        "language": r.get::<_, String>(2)?,
        "source_sha256": r.get::<_, String>(3)?,
        "path": r.get::<_, Option<String>>(4)?,
        "created_at": r.get::<_, i64>(5)?,
        "finished_at": r.get::<_, Option<i64>>(6)?,
        "verdict": r.get::<_, Option<String>>(7)?,
        "error": r.get::<_, Option<String>>(8)?,
        "compile": parse(r.get(9)?),
        "tests": parse(r.get(10)?),
        "time_ms": r.get::<_, Option<i64>>(11)?,
        "memory_kib": r.get::<_, Option<i64>>(12)?,
        "file_name": r.get::<_, String>(13)?,
        "started_at": r.get::<_, Option<i64>>(14)?,
    });
    // Waiting for an engine, on one, or judged.
    v["state"] = json!(match (&v["verdict"], &v["started_at"]) {
        (Value::String(_), _) => "done",
        (_, Value::Number(_)) => "judging",
        _ => "queued",
    });
    if source {
        v["source"] = Value::String(r.get(15)?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_history_from_before_started_at_opens_and_gains_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("history.sqlite");
        {
            let old = Connection::open(&path).unwrap();
            let before = SCHEMA.replace("    started_at INTEGER,\n", "");
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
}
