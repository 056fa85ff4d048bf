//! `judge serve --problems DIR`: every folder of `DIR` is a package, served as the problem
//! named by the folder (as `judge run` names it), loaded at start and again when its files
//! change. A package that does not load is reported and skipped (the problem keeps its last
//! good package, if it had one); the others are served all the same.

use crate::db::Db;
use crate::worker::Log;
use crate::{store, Error};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// What a folder's files look like: each file's path, size, change time and mode. A change
/// of any is a change of the package.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>, u32)>;

/// The packages of one folder and what was last seen of each.
pub struct Folder {
    dir: PathBuf,
    seen: BTreeMap<String, Fingerprint>,
}

fn fingerprint(dir: &Path) -> std::io::Result<Fingerprint> {
    fn walk(root: &Path, rel: &Path, out: &mut Fingerprint) -> std::io::Result<()> {
        for entry in std::fs::read_dir(root.join(rel))? {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            let meta = std::fs::metadata(root.join(&path))?;
            if meta.is_dir() {
                walk(root, &path, out)?;
            } else {
                use std::os::unix::fs::PermissionsExt;
                let mode = meta.permissions().mode();
                out.push((path, meta.len(), meta.modified().ok(), mode));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, Path::new(""), &mut out)?;
    out.sort();
    Ok(out)
}

impl Folder {
    pub fn new(dir: &Path) -> Folder {
        Folder {
            dir: dir.to_path_buf(),
            seen: BTreeMap::new(),
        }
    }

    /// Loads every package that is new or changed since the last call and stores it as its
    /// problem's current package; says on `log` what it stored and what it refused. `Err`:
    /// the folder itself cannot be read, or the database failed (nothing is marked seen then,
    /// so the next call tries again).
    pub fn sync(&mut self, client: &mut Db, log: &dyn Log) -> Result<(), Error> {
        let io = |e: std::io::Error| Error::Io(format!("{}: {e}", self.dir.display()));
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(io)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        folders.sort();
        for folder in folders {
            let Some(name) = folder
                .file_name()
                .and_then(|n| n.to_str())
                .map(String::from)
            else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let Ok(print) = fingerprint(&folder) else {
                // Changing under our feet: looked at again next time.
                continue;
            };
            if self.seen.get(&name) == Some(&print) {
                continue;
            }
            match load(&name, &folder) {
                Ok(package) => {
                    let hash = store::put_problem(client, &name, &package)?;
                    log.line(&format!(
                        "problem {name}: loaded from {} (package {})",
                        folder.display(),
                        &hash[..12]
                    ));
                }
                Err(why) => log.line(&format!(
                    "problem {name}: {} is not served: {why}",
                    folder.display()
                )),
            }
            self.seen.insert(name, print);
        }
        Ok(())
    }

    /// Syncs every `every` until `stop` is set, reconnecting when the database is lost.
    pub fn watch(&mut self, url: &str, every: Duration, log: &dyn Log, stop: &AtomicBool) {
        let mut client = None;
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(every);
            if client.is_none() {
                client = crate::connect(url).ok();
            }
            let Some(c) = client.as_mut() else {
                continue;
            };
            if let Err(e) = self.sync(c, log) {
                log.line(&format!("--problems: {e}"));
                if c.is_closed() {
                    client = None;
                }
            }
        }
    }
}

/// The package in `folder` checked as an upload is (a name the API accepts, it loads, its
/// tests are complete) and packed: the bytes to store.
fn load(name: &str, folder: &Path) -> Result<Vec<u8>, String> {
    store::check_problem_name(name)?;
    let problem = judge_core::package::Problem::load(folder)
        .map_err(|e| format!("the package does not load: {e}"))?;
    if problem
        .tests
        .iter()
        .any(|t| t.answer_missing || t.generate.is_some())
    {
        return Err("it lacks some tests or answers\n  hint: run `judge gen` on it".into());
    }
    store::pack(folder).map_err(|e| e.to_string())
}
