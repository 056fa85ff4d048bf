//! The practice history's statements on PostgreSQL: `judge practice` keeps its history in a
//! SQLite file, but its tables and statements are written in PostgreSQL's dialect for the one
//! storage layer (`judge-db`); here they run on a throwaway PostgreSQL server as they are, so
//! the dialect is PostgreSQL's indeed and not only what the SQLite translation accepts.

use judge_practice::db::{Attempt, Contest, Db, NewSubmission};
use judge_service::db::{self as storage, Sql};
use serde_json::json;

fn postgres() -> String {
    judge_service::testdb::shared().expect("a throwaway PostgreSQL")
}

#[test]
fn practice_history_statements_run_on_postgres_as_written() {
    let url = postgres();
    let db = Db::on(storage::Db::open(&url).unwrap()).unwrap();
    let at = 1_795_766_030_424_i64; // milliseconds since the epoch: a bigint
    let new = |problem, source, path, created_at| NewSubmission {
        problem,
        language: "Python 3",
        source,
        file_name: "sum.py",
        path,
        created_at,
    };
    let wa = db.insert(&new("sum", "print(1)", None, at)).unwrap();
    let ac = db
        .insert(&new("sum", "print(3)", Some("/home/u/sum.py"), at + 10))
        .unwrap();
    let refused = db.insert(&new("max", "x", None, at + 20)).unwrap();
    assert_eq!((wa, ac, refused), (1, 2, 3));
    db.start(wa, at + 1).unwrap();
    assert_eq!(db.get(wa, false).unwrap().unwrap()["state"], "judging");
    db.progress(wa, &json!([{"name": "1", "verdict": "AC"}]))
        .unwrap();
    db.finish(
        wa,
        "WA",
        None,
        Some(&json!({"ok": true})),
        &json!([{"name": "1"}, {"name": "2"}]),
        Some(12),
        Some(3072),
        at + 5,
    )
    .unwrap();
    db.finish(
        refused,
        "JE",
        Some("not judged yet"),
        None,
        &json!([]),
        None,
        None,
        at + 21,
    )
    .unwrap();
    let s = db.get(wa, true).unwrap().unwrap();
    assert_eq!(s["state"], "done", "{s}");
    assert_eq!(s["finished_at"], at + 5);
    assert_eq!(s["tests"][1]["name"], "2");
    assert_eq!(s["compile"]["ok"], true);
    assert_eq!(s["source"], "print(1)");
    assert!(db.get(99, false).unwrap().is_none());
    let all: Vec<i64> = db
        .list(None, 10)
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(all, [3, 2, 1]);
    assert_eq!(db.list(Some("sum"), 1).unwrap()[0]["id"], 2);
    assert_eq!(
        db.source(ac).unwrap(),
        Some(("sum".into(), "sum.py".into(), "print(3)".into()))
    );
    assert_eq!(db.unfinished().unwrap(), [ac]);
    let stats = db.problem_stats().unwrap();
    assert_eq!(stats["sum"], (2, at, None));
    assert!(
        !stats.contains_key("max"),
        "a refusal is no attempt: {stats:?}"
    );
    assert_eq!(db.attempts_before_ac("sum").unwrap(), 2);
    db.finish(ac, "AC", None, None, &json!([]), Some(1), Some(1), at + 11)
        .unwrap();
    assert_eq!(db.attempts_before_ac("sum").unwrap(), 1);
    assert_eq!(db.problem_stats().unwrap()["sum"], (2, at, Some(at + 10)));
    assert_eq!(
        db.attempts(&["sum".into()], at + 5, at + 100).unwrap(),
        [Attempt {
            problem: "sum".into(),
            created_at: at + 10,
            verdict: Some("AC".into()),
        }]
    );

    let w = db.add_watch("sum", "/home/u/sum.py").unwrap();
    assert_eq!(db.add_watch("sum", "/home/u/sum.py").unwrap(), w);
    let sha = db.get(ac, false).unwrap().unwrap()["source_sha256"].clone();
    assert_eq!(
        db.watches().unwrap(),
        [(
            w,
            "sum".into(),
            "/home/u/sum.py".into(),
            sha.as_str().map(String::from)
        )]
    );
    assert!(db.remove_watch(w).unwrap());
    assert!(!db.remove_watch(w).unwrap());

    let round = db
        .create_contest(&Contest {
            id: 0,
            name: "Round".into(),
            batch: None,
            batch_size: None,
            created_at: at,
            start_at: Some(at),
            duration_min: 60,
            freeze_min: Some(10),
            problems: vec!["sum".into(), "max".into()],
        })
        .unwrap();
    let batch = db
        .add_to_batch("uuid", 2, "Site - Round 2", "b", at)
        .unwrap();
    assert_eq!(
        db.add_to_batch("uuid", 2, "Site - Round 2", "a", at)
            .unwrap(),
        batch
    );
    assert_eq!(
        db.add_to_batch("uuid", 2, "Site - Round 2", "b", at)
            .unwrap(),
        batch
    );
    assert!(db.start_contest(batch, at + 1000, 90, None).unwrap());
    assert!(!db.start_contest(batch, at + 2000, 90, None).unwrap());
    let contests = db.contests().unwrap();
    assert_eq!(
        contests.iter().map(|c| c.id).collect::<Vec<_>>(),
        [batch, round]
    );
    assert_eq!(contests[0].problems, ["b", "a"]);
    assert_eq!(contests[0].start_at, Some(at + 1000));
    assert_eq!(contests[0].name, "Site - Round 2");
    assert_eq!(db.contest(round).unwrap().unwrap().freeze_min, Some(10));
    drop(db);

    // A table from before a column was added gains it on PostgreSQL too (`has_column`'s
    // PostgreSQL side), and keeps its rows.
    let mut raw = storage::Db::open(&url).unwrap();
    raw.batch_execute("ALTER TABLE submissions DROP COLUMN started_at")
        .unwrap();
    assert!(!storage::has_column(&mut raw, "submissions", "started_at").unwrap());
    let db = Db::on(raw).unwrap();
    let s = db.get(wa, false).unwrap().unwrap();
    assert!(s["started_at"].is_null(), "{s}");
    assert_eq!(s["verdict"], "WA");
    db.start(ac, at + 50).unwrap();
    assert_eq!(db.get(ac, false).unwrap().unwrap()["started_at"], at + 50);
}
