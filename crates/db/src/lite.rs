//! The SQLite side of [`super::Db`]: one file, opened in WAL mode by every connection of the
//! process; statements translated from the service's PostgreSQL dialect; notifications passed
//! between the connections of this process (a [`Hub`] per file).
//!
//! Times are stored as text in UTC, `YYYY-MM-DD HH:MM:SS.SSS` (what SQLite's `strftime` writes
//! and compares in order), so the queue's comparisons of leases and back-offs hold as text.

use super::{Param, Row};
use crate::Error;
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

/// How long a statement waits for another connection's write lock before it fails.
const BUSY: Duration = Duration::from_secs(30);

/// The current time as the tables store it.
const NOW: &str = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

/// A connection to a SQLite file.
pub struct Lite {
    conn: Connection,
    hub: Arc<Hub>,
    inbox: Option<mpsc::Receiver<(String, String)>>,
    listening: Vec<String>,
}

impl Lite {
    /// Opens (creating it when missing) the database file `path`.
    pub fn open(path: &Path) -> Result<Lite, Error> {
        let named = |e: rusqlite::Error| {
            Error::Io(format!(
                "the SQLite database {}: {e}\n  hint: the folder must exist and be writable",
                path.display()
            ))
        };
        let conn = Connection::open(path).map_err(named)?;
        conn.busy_timeout(BUSY).map_err(named)?;
        // WAL: readers never wait for the writer. NORMAL: a commit survives a crash of the
        // process (not of the machine's power, which a contest on one machine accepts).
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(named)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Io(format!(
                "the SQLite database {}: cannot use a write-ahead log (journal mode {mode})",
                path.display()
            )));
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(named)?;
        // The hub's checkpointer copies the log into the file (see `Checkpointer`); a commit
        // does it itself only when the log has grown far beyond that.
        conn.execute_batch(&format!("PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES};"))
            .map_err(named)?;
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Ok(Lite {
            conn,
            hub: Hub::of(key),
            inbox: None,
            listening: Vec::new(),
        })
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// `BEGIN IMMEDIATE`: the write lock now (waiting up to [`BUSY`] for it). Within this
    /// process, writers queue on the file's mutex first: SQLite's own wait for a lock sleeps
    /// (1 ms, then longer), which would make two slots of one server take turns slowly.
    pub fn begin(&mut self) -> Result<LiteTx<'_>, Error> {
        let hub: &Hub = &self.hub;
        let writing = hub.writer();
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(LiteTx {
            conn: &self.conn,
            hub,
            pending: Vec::new(),
            open: true,
            _writing: writing,
        })
    }

    /// Runs `work` on the connection, as this process's only writer of the file unless `sql`
    /// only reads (a `SELECT`).
    pub fn run<T>(&self, sql: &str, work: impl FnOnce(&Connection) -> T) -> T {
        let reads = sql
            .trim_start()
            .get(..6)
            .is_some_and(|w| w.eq_ignore_ascii_case("select"));
        let writing = (!reads).then(|| self.hub.writer());
        let done = work(&self.conn);
        if writing.is_some() {
            drop(writing);
            self.hub.checkpoints.committed();
        }
        done
    }

    /// Hears `channels` from now on (as well as those listened to before).
    pub fn listen(&mut self, channels: &[&str]) {
        // A new subscription for them all; the old one's receiver goes with it, and the hub
        // forgets it at its next send.
        let (tx, rx) = mpsc::channel();
        self.listening
            .extend(channels.iter().map(|c| c.to_string()));
        self.hub.subscribe(self.listening.clone(), tx);
        self.inbox = Some(rx);
    }

    /// The next notification heard, waiting at most `timeout`.
    pub fn wait(&mut self, timeout: Duration) -> Option<(String, String)> {
        match &self.inbox {
            Some(rx) => rx.recv_timeout(timeout).ok(),
            None => {
                std::thread::sleep(timeout);
                None
            }
        }
    }
}

/// A transaction on a [`Lite`] connection: rolled back when dropped uncommitted; its
/// notifications are sent when it commits, never when it rolls back.
pub struct LiteTx<'a> {
    conn: &'a Connection,
    hub: &'a Hub,
    pending: Vec<(String, String)>,
    open: bool,
    /// Held until the transaction ends (dropped after `Drop::drop` rolls back).
    _writing: std::sync::MutexGuard<'a, ()>,
}

impl LiteTx<'_> {
    pub fn conn(&self) -> &Connection {
        self.conn
    }

    pub fn notify(&mut self, channel: &str, payload: &str) {
        self.pending
            .push((channel.to_string(), payload.to_string()));
    }

    pub fn commit(mut self) -> Result<(), Error> {
        self.conn.execute_batch("COMMIT")?;
        self.open = false;
        self.hub.checkpoints.committed();
        for (channel, payload) in std::mem::take(&mut self.pending) {
            self.hub.send(&channel, &payload);
        }
        Ok(())
    }
}

impl Drop for LiteTx<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// The notifications of one database file within this process.
#[derive(Default)]
pub struct Hub {
    listeners: Mutex<Vec<Listener>>,
    /// Taken by a connection of this process while it writes the file.
    write: Mutex<()>,
    /// Copies the write-ahead log into the file, off the writers' path.
    checkpoints: Checkpointer,
}

/// Pages the write-ahead log may hold before a commit copies it into the file itself
/// (SQLite's `wal_autocheckpoint`; its default is 1000): a backstop for when the hub's
/// checkpointer falls behind.
const BACKSTOP_PAGES: u32 = 20_000;
/// How often the checkpointer looks for commits to copy into the file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// A thread per file and process that runs `PRAGMA wal_checkpoint(PASSIVE)` on a connection of
/// its own after commits, at most every [`CHECKPOINT_EVERY`]. A checkpoint syncs the file to
/// disk (with `synchronous = NORMAL` a commit does not); done by the committing connection, as
/// SQLite does by default every 1000 pages, it held the process's write mutex (see
/// [`Lite::begin`]) through that sync, and every judging slot of the server waited for it. A
/// passive checkpoint takes no write lock: writers go on meanwhile. The thread starts at the
/// first commit and ends, closing its connection, when the hub is dropped (its file's last
/// connection in this process closed); the drop waits for it.
#[derive(Default)]
struct Checkpointer {
    path: PathBuf,
    state: Arc<(Mutex<CheckpointState>, std::sync::Condvar)>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Default)]
struct CheckpointState {
    /// Commits since the last checkpoint.
    commits: u64,
    closed: bool,
}

impl Checkpointer {
    /// Counts a commit; the first one starts the thread.
    fn committed(&self) {
        let (lock, _) = &*self.state;
        lock.lock().unwrap_or_else(|e| e.into_inner()).commits += 1;
        let mut thread = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        if thread.is_none() {
            let (path, state) = (self.path.clone(), self.state.clone());
            // Without the thread, commits checkpoint at the backstop.
            *thread = std::thread::Builder::new()
                .name("sqlite-checkpoint".into())
                .spawn(move || Checkpointer::run(&path, &state))
                .ok();
        }
    }

    fn run(path: &Path, shared: &(Mutex<CheckpointState>, std::sync::Condvar)) {
        let (lock, changed) = shared;
        let mut conn: Option<Connection> = None;
        loop {
            let commits = {
                let state = lock.lock().unwrap_or_else(|e| e.into_inner());
                let (mut state, _) = changed
                    .wait_timeout_while(state, CHECKPOINT_EVERY, |s| !s.closed)
                    .unwrap_or_else(|e| e.into_inner());
                if state.closed {
                    return;
                }
                std::mem::take(&mut state.commits)
            };
            if commits == 0 {
                continue;
            }
            if conn.is_none() {
                conn = Connection::open(path).ok();
            }
            let done = conn
                .as_ref()
                .map(|c| c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())));
            if !matches!(done, Some(Ok(()))) {
                // Opened afresh next time; meanwhile the backstop holds the log's size.
                conn = None;
            }
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (lock, changed) = &*self.state;
        lock.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        changed.notify_all();
        let thread = self
            .thread
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

struct Listener {
    channels: Vec<String>,
    to: mpsc::Sender<(String, String)>,
}

impl Hub {
    /// The hub of the file `key` (its canonical path), shared by every connection to it.
    fn of(key: PathBuf) -> Arc<Hub> {
        static HUBS: OnceLock<Mutex<HashMap<PathBuf, Weak<Hub>>>> = OnceLock::new();
        let mut hubs = HUBS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(hub) = hubs.get(&key).and_then(Weak::upgrade) {
            return hub;
        }
        hubs.retain(|_, hub| hub.strong_count() > 0);
        let hub = Arc::new(Hub {
            checkpoints: Checkpointer {
                path: key.clone(),
                state: Arc::default(),
                thread: Mutex::new(None),
            },
            ..Hub::default()
        });
        hubs.insert(key, Arc::downgrade(&hub));
        hub
    }

    fn writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.write.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn subscribe(&self, channels: Vec<String>, to: mpsc::Sender<(String, String)>) {
        let mut all = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        all.push(Listener { channels, to });
    }

    /// Tells every listener of `channel`; those gone are forgotten.
    pub fn send(&self, channel: &str, payload: &str) {
        let mut all = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|l| {
            !l.channels.iter().any(|c| c == channel)
                || l.to
                    .send((channel.to_string(), payload.to_string()))
                    .is_ok()
        });
    }
}

fn lite_params<'a>(params: &'a [&'a dyn Param]) -> Vec<&'a dyn rusqlite::ToSql> {
    params.iter().map(|p| p.lite()).collect()
}

pub fn execute(conn: &Connection, sql: &str, params: &[&dyn Param]) -> Result<u64, Error> {
    let mut stmt = conn.prepare_cached(&translate(sql))?;
    let params = lite_params(params);
    if stmt.column_count() == 0 {
        return Ok(stmt.execute(params.as_slice())? as u64);
    }
    let mut rows = stmt.query(params.as_slice())?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}

pub fn query(conn: &Connection, sql: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
    let mut stmt = conn.prepare_cached(&translate(sql))?;
    let width = stmt.column_count();
    let params = lite_params(params);
    let mut rows = stmt.query(params.as_slice())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let values = (0..width)
            .map(|i| row.get::<_, rusqlite::types::Value>(i))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.push(Row::Lite(values));
    }
    Ok(out)
}

pub fn batch(conn: &Connection, sql: &str) -> Result<(), Error> {
    Ok(conn.execute_batch(&translate(sql))?)
}

/// A statement of the service's PostgreSQL dialect in SQLite's: `$N` → `?N`; casts (`::text`)
/// and row locks (`FOR UPDATE [SKIP LOCKED]`: a SQLite transaction holds the only write lock)
/// dropped; `now()`, `now() + make_interval(secs => $N)`, `extract(epoch FROM a - b)` in
/// milliseconds and `to_char(t AT TIME ZONE 'UTC', 'format')` as `strftime` and `unixepoch`.
pub fn translate(sql: &str) -> String {
    let mut s = outside_quotes(sql);
    for lock in [" FOR UPDATE SKIP LOCKED", " FOR UPDATE"] {
        s = s.replace(lock, "");
    }
    s = s.replace(" AT TIME ZONE 'UTC'", "");
    s = rewrite(&s, "now() + make_interval(secs => ", ")", |inner| {
        format!("strftime('%Y-%m-%d %H:%M:%f', 'now', printf('%.6f seconds', {inner}))")
    });
    s = rewrite(&s, "(extract(epoch FROM ", " * 1000)", |inner| {
        let inner = inner.strip_suffix(')').unwrap_or(inner);
        let (a, b) = inner.split_once(" - ").unwrap_or((inner, "0"));
        format!(
            "CAST(round((unixepoch({a}, 'subsec') - unixepoch({b}, 'subsec')) * 1000) AS INTEGER)"
        )
    });
    s = rewrite(&s, "to_char(", "')", |inner| {
        match inner.split_once(", '") {
            Some((t, format)) => format!("strftime('{}', {t})", strftime_format(format)),
            None => format!("to_char({inner}')"),
        }
    });
    s.replace("now()", NOW)
}

/// `$N` → `?N` and `::type` casts dropped, outside quoted strings.
fn outside_quotes(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '$' if !quoted && chars.peek().is_some_and(char::is_ascii_digit) => out.push('?'),
            ':' if !quoted && chars.peek() == Some(&':') => {
                chars.next();
                while chars.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every `start … end` in `s` replaced by `with(…)` (the text between them, the first `end`
/// after `start`).
fn rewrite(s: &str, start: &str, end: &str, with: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(start) {
        let after = &rest[at + start.len()..];
        let Some(stop) = after.find(end) else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(&with(&after[..stop]));
        rest = &after[stop + end.len()..];
    }
    out.push_str(rest);
    out
}

/// A PostgreSQL `to_char` format as `strftime`'s: `YYYY MM DD HH24 MI SS`, `SS.MS` and
/// `SS.US` (SQLite keeps milliseconds), and `"quoted"` text.
fn strftime_format(pg: &str) -> String {
    let mut out = String::new();
    let mut rest = pg;
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let (text, after) = quoted.split_once('"').unwrap_or((quoted, ""));
            out.push_str(&text.replace('%', "%%"));
            rest = after;
            continue;
        }
        let tokens = [
            ("YYYY", "%Y"),
            ("HH24", "%H"),
            ("SS.MS", "%f"),
            ("SS.US", "%f"),
            ("MM", "%m"),
            ("DD", "%d"),
            ("MI", "%M"),
            ("SS", "%S"),
        ];
        match tokens.iter().find(|(t, _)| rest.starts_with(t)) {
            Some((t, f)) => {
                out.push_str(f);
                rest = &rest[t.len()..];
            }
            None => {
                let c = rest.chars().next().unwrap_or_default();
                if c == '%' {
                    out.push('%');
                }
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// A table definition of the service's PostgreSQL dialect in SQLite's: `bigserial` keys as
/// `INTEGER PRIMARY KEY AUTOINCREMENT` (never reused), times as text defaulting to now,
/// `bytea` as `blob`, `double precision` as `real`.
pub fn translate_ddl(ddl: &str) -> String {
    ddl.replace("bigserial PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT")
        .replace("timestamptz", "text")
        .replace("DEFAULT now()", &format!("DEFAULT ({NOW})"))
        .replace("bytea", "blob")
        .replace("double precision", "real")
}
