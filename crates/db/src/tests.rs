use super::lite::translate;
use super::*;

#[test]
fn placeholders_casts_and_row_locks_become_sqlites() {
    assert_eq!(
        translate("SELECT id FROM jobs WHERE ($1::text IS NULL OR a = $1) AND b = $12 FOR UPDATE SKIP LOCKED"),
        "SELECT id FROM jobs WHERE (?1 IS NULL OR a = ?1) AND b = ?12"
    );
    // Inside a quoted string nothing changes.
    assert_eq!(
        translate("SELECT '$1::text' FROM t FOR UPDATE"),
        "SELECT '$1::text' FROM t"
    );
}

#[test]
fn times_become_strftime_and_unixepoch() {
    assert_eq!(
        translate("UPDATE jobs SET lease_until = now() + make_interval(secs => $2) WHERE not_before <= now()"),
        "UPDATE jobs SET lease_until = strftime('%Y-%m-%d %H:%M:%f', 'now', printf('%.6f seconds', ?2)) \
         WHERE not_before <= strftime('%Y-%m-%d %H:%M:%f', 'now')"
    );
    assert_eq!(
        translate(
            "SELECT to_char(j.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        ),
        "SELECT strftime('%Y-%m-%dT%H:%M:%fZ', j.started_at)"
    );
    assert_eq!(
        translate("SELECT (extract(epoch FROM j.finished_at - c.s) * 1000)::bigint FROM c"),
        "SELECT CAST(round((unixepoch(j.finished_at, 'subsec') - unixepoch(c.s, 'subsec')) * 1000) AS INTEGER) FROM c"
    );
}

/// A SQLite database in a folder of its own, with one table (`settings`, as the service's).
fn lite() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{SQLITE}{}", dir.path().join("t.db").display());
    let mut db = Db::open(&url).unwrap();
    db.batch_execute(&translate_ddl(
        "CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL)",
    ))
    .unwrap();
    (dir, db)
}

#[test]
fn sqlite_times_compare_in_order_and_format_as_postgres_does() {
    let (_dir, mut db) = lite();
    let row = db
        .query_one(
            "SELECT now() + make_interval(secs => $1) > now(),
                    to_char('2026-11-27 05:01:02.345' AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"+00:00\"'),
                    to_char('2026-11-27 05:01:02.345' AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
                    (extract(epoch FROM '2026-11-27 05:01:02.345' - '2026-11-27T05:00:00.000Z') * 1000)::bigint",
            &[&0.5f64],
        )
        .unwrap();
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, String>(1), "2026-11-27T05:01:02.345+00:00");
    assert_eq!(row.get::<_, String>(2), "2026-11-27T05:01:02Z");
    assert_eq!(row.get::<_, i64>(3), 62_345);
}

#[test]
fn a_sqlite_transactions_notifications_arrive_on_commit_only() {
    let (dir, mut writer) = lite();
    let url = format!("{SQLITE}{}", dir.path().join("t.db").display());
    let mut listener = Db::open(&url).unwrap();
    listener.listen(&["a", "b"]).unwrap();

    let mut tx = writer.transaction().unwrap();
    tx.notify("a", "rolled back").unwrap();
    drop(tx);
    let mut tx = writer.transaction().unwrap();
    tx.notify("c", "not listened to").unwrap();
    tx.notify("b", "committed").unwrap();
    tx.commit().unwrap();
    writer.notify("a", "at once").unwrap();

    let short = Duration::from_millis(200);
    assert_eq!(
        listener.wait(short).unwrap(),
        Some(("b".into(), "committed".into()))
    );
    assert_eq!(
        listener.wait(short).unwrap(),
        Some(("a".into(), "at once".into()))
    );
    assert_eq!(listener.wait(short).unwrap(), None);
}

/// The log's pages reach the file without a commit copying them (SQLite's default does at
/// 1000 pages, and these are fewer): the hub's checkpointer does, off the writers' path.
#[test]
fn a_sqlite_write_ahead_log_is_copied_into_the_file_by_the_checkpointer() {
    let (dir, mut db) = lite();
    let file = dir.path().join("t.db");
    let before = std::fs::metadata(&file).unwrap().len();
    let value = "x".repeat(3000);
    for i in 0..100 {
        let mut tx = db.transaction().unwrap();
        tx.execute(
            "INSERT INTO settings (key, value) VALUES ($1, $2)",
            &[&i.to_string(), &value],
        )
        .unwrap();
        tx.commit().unwrap();
    }
    db.execute(
        "INSERT INTO settings (key, value) VALUES ($1, $2)",
        &[&"outside a transaction", &value],
    )
    .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let size = std::fs::metadata(&file).unwrap().len();
        if size >= before + 101 * 3000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the file holds {size} bytes after 10 s (was {before})"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_sqlite_transaction_dropped_uncommitted_keeps_nothing() {
    let (_dir, mut db) = lite();
    let mut tx = db.transaction().unwrap();
    tx.execute(
        "INSERT INTO settings (key, value) VALUES ($1, $2)",
        &[&"k", &"v"],
    )
    .unwrap();
    drop(tx);
    let n: i64 = db
        .query_one("SELECT count(*) FROM settings WHERE key = 'k'", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}

#[test]
fn a_sqlite_file_in_a_missing_folder_is_named_with_the_fix() {
    let Err(e) = Db::open("sqlite:/nonexistent-folder-of-judge/x.db") else {
        panic!("opened a file in a missing folder");
    };
    let e = e.to_string();
    assert!(e.contains("/nonexistent-folder-of-judge/x.db"), "{e}");
    assert!(e.contains("hint: the folder must exist"), "{e}");
}

#[test]
fn a_postgres_address_gets_timeouts_unless_it_gives_its_own() {
    let config = pg_config("host=/run/postgresql dbname=judge").unwrap();
    assert_eq!(config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
    assert_eq!(config.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
    // Both in seconds here (libpq reads tcp_user_timeout in milliseconds; this client does not).
    let config =
        pg_config("postgresql://judge@db/judge?connect_timeout=3&tcp_user_timeout=7").unwrap();
    assert_eq!(config.get_connect_timeout(), Some(&Duration::from_secs(3)));
    assert_eq!(config.get_tcp_user_timeout(), Some(&Duration::from_secs(7)));
    let Err(e) = Db::open("judge.sqlite") else {
        panic!("a file name was taken for a PostgreSQL address");
    };
    let e = e.to_string();
    assert!(
        e.contains("`judge.sqlite` is not a database address"),
        "{e}"
    );
    assert!(e.contains("sqlite:PATH"), "{e}");
}

#[test]
fn what_the_practice_history_says_runs_on_sqlite_as_written_for_postgres() {
    let (dir, mut db) = lite();
    db.batch_execute(&translate_ddl(
        "CREATE TABLE w (id bigserial PRIMARY KEY, p text NOT NULL UNIQUE, at bigint)",
    ))
    .unwrap();
    // `RETURNING` and `ON CONFLICT DO NOTHING` are both engines' own: nothing to translate.
    let insert = "INSERT INTO w (p, at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id";
    let first: i64 = db
        .query_one(insert, &[&"a", &1_795_766_030_424_i64])
        .unwrap()
        .get(0);
    assert_eq!(first, 1);
    assert!(db.query_opt(insert, &[&"a", &0_i64]).unwrap().is_none());
    let none: Option<&str> = None;
    let n: i64 = db
        .query_one(
            "SELECT count(*) FROM w WHERE ($1::text IS NULL OR p = $1)",
            &[&none],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    // A time in milliseconds since the epoch stays a 64-bit integer.
    let row = db.query_one("SELECT at, p FROM w", &[]).unwrap();
    assert_eq!(row.try_get::<_, i64>(0).unwrap(), 1_795_766_030_424);
    // A column of another type is an error naming it, not a panic.
    let e = row.try_get::<_, i64>(1).unwrap_err().to_string();
    assert!(e.contains("column 1"), "{e}");
    let e = row.try_get::<_, i64>(2).unwrap_err().to_string();
    assert!(e.contains("no column 2"), "{e}");

    assert!(has_column(&mut db, "w", "at").unwrap());
    assert!(!has_column(&mut db, "w", "started_at").unwrap());
    let mut tx = db.transaction().unwrap();
    tx.batch_execute("ALTER TABLE w ADD COLUMN started_at bigint")
        .unwrap();
    assert!(has_column(&mut tx, "w", "started_at").unwrap());
    tx.commit().unwrap();
    // A path, not an address: the same file.
    let mut again = Db::open_sqlite(&dir.path().join("t.db")).unwrap();
    assert!(has_column(&mut again, "w", "started_at").unwrap());
}

#[test]
fn the_storage_layer_depends_on_no_crate_of_the_project() {
    let manifest = include_str!("../Cargo.toml");
    let project: Vec<&str> = manifest
        .lines()
        .filter(|l| l.trim_start().starts_with("judge-"))
        .collect();
    assert!(
        project.is_empty(),
        "judge-db is the bottom layer of the service and the practice history: {project:?}"
    );
    assert!(manifest.contains("postgres.workspace"), "{manifest}");
}
