//! Watched source files: a submission by `path` is watched from then on, and every save makes a
//! new submission, judged at once. The watcher polls each file's size and modification time
//! every [`POLL`]; a change is submitted once the file has stayed the same for one more poll
//! (an editor writing in several steps makes one submission), and only when its content differs
//! from the last one submitted (a save without changes makes none). Watches are kept in the
//! history and resumed when the server starts again (a file saved meanwhile is submitted then).

use super::Practice;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

pub const POLL: Duration = Duration::from_millis(250);
/// Watched files at once.
pub const MAX_WATCHES: usize = 64;

#[derive(Debug, Clone)]
pub struct Watch {
    pub id: u64,
    pub problem: String,
    pub path: PathBuf,
    /// The size and modification time last seen, and whether it has been submitted.
    seen: Option<(u64, SystemTime)>,
    settled: bool,
    /// The SHA-256 of the content last submitted.
    last: String,
}

#[derive(Default)]
pub struct Watches {
    list: Mutex<Vec<Watch>>,
}

fn stamp(path: &std::path::Path) -> Option<(u64, SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl Watches {
    /// Watches `path` for `problem` under `id` (the history's), the content whose SHA-256 is
    /// `submitted` being the last one submitted. `fresh`: the file was just read and
    /// submitted; else (a watch resumed at start) a file saved meanwhile is submitted at once.
    pub fn add(
        &self,
        id: u64,
        problem: &str,
        path: PathBuf,
        submitted: String,
        fresh: bool,
    ) -> Result<u64, String> {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.id != id);
        if list.len() >= MAX_WATCHES {
            return Err(format!(
                "{MAX_WATCHES} files are watched already; stop watching one first"
            ));
        }
        let seen = if fresh { stamp(&path) } else { None };
        list.push(Watch {
            id,
            problem: problem.to_string(),
            path,
            seen,
            settled: true,
            last: submitted,
        });
        Ok(id)
    }

    pub fn remove(&self, id: u64) -> bool {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let before = list.len();
        list.retain(|w| w.id != id);
        list.len() < before
    }

    pub fn json(&self) -> Value {
        let list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        Value::Array(
            list.iter()
                .map(|w| json!({"id": w.id, "problem": w.problem, "path": w.path.display().to_string()}))
                .collect(),
        )
    }

    /// The watches whose file has changed and then stayed the same since the last poll.
    fn due(&self) -> Vec<Watch> {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let mut due = Vec::new();
        for w in list.iter_mut() {
            let now = stamp(&w.path);
            if now != w.seen {
                w.seen = now;
                w.settled = false;
            } else if !w.settled && now.is_some() {
                w.settled = true;
                due.push(w.clone());
            }
        }
        due
    }

    fn submitted(&self, id: u64, sha: String) {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = list.iter_mut().find(|w| w.id == id) {
            w.last = sha;
        }
    }
}

/// The watcher's loop (its own thread).
pub fn run(practice: &Practice) {
    loop {
        std::thread::sleep(POLL);
        for w in practice.watches.due() {
            let source = match practice.from_path(&w.path) {
                Ok(s) => s,
                Err(message) => {
                    practice.hub.publish(&json!({
                        "event": "watch_failed",
                        "watch": w.id,
                        "problem": w.problem,
                        "message": message,
                    }));
                    continue;
                }
            };
            let sha = super::store::hex_sha(source.text.as_bytes());
            if sha == w.last {
                continue;
            }
            match practice.submit(&w.problem, &source) {
                Ok(id) => {
                    practice.watches.submitted(w.id, sha);
                    practice.hub.publish(&json!({
                        "event": "watch_submitted",
                        "watch": w.id,
                        "problem": w.problem,
                        "submission": id,
                    }));
                }
                Err(message) => practice.hub.publish(&json!({
                    "event": "watch_failed",
                    "watch": w.id,
                    "problem": w.problem,
                    "message": message,
                })),
            }
        }
    }
}
