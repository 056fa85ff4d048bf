//! One entry on disk: written in `tmp/` and renamed into place whole with its `meta.json`
//! last, restored file by file against each file's size and hash, removed by a rename out of
//! `entries/` first.

use super::{hex, Cache, Outcome, FORMAT};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// `meta.json` larger than this is not ours.
const META_CAP: u64 = 1 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    format: u32,
    key: String,
    outcome: Outcome,
    files: Vec<FileMeta>,
}

#[derive(Debug, Serialize, Deserialize)]
struct FileMeta {
    /// Relative to the build folder, `/`-separated.
    path: String,
    mode: u32,
    size: u64,
    sha256: String,
}

impl Cache {
    /// Restores the entry `key` into the empty folder `dir` and returns its outcome; `None` when
    /// there is none or it is damaged (then it is removed and `dir` left empty).
    pub fn fetch(&self, key: &str, dir: &Path) -> Option<Outcome> {
        let entry = self.entries().join(key);
        let meta_path = entry.join("meta.json");
        let meta = match read_meta(&meta_path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !entry.exists() => return None,
            Err(_) => {
                self.remove(&entry);
                return None;
            }
        };
        if meta.format != FORMAT || meta.key != key || restore(&entry, &meta, dir).is_err() {
            self.remove(&entry);
            // The compiler starts from nothing after a failed restore.
            let _ = crate::build::empty_folder(dir);
            return None;
        }
        // Recently used: eviction goes by this time.
        if let Ok(f) = std::fs::OpenOptions::new().append(true).open(&meta_path) {
            let _ = f.set_modified(SystemTime::now());
        }
        Some(meta.outcome)
    }

    /// Stores what the build in `dir` left (every regular file but the `helpers` it was given,
    /// unchanged; none for a failed build) under `key`, then evicts what exceeds the size bound.
    /// Best effort: a failure stores nothing.
    pub fn store(&self, key: &str, dir: &Path, outcome: &Outcome, helpers: &[(String, Vec<u8>)]) {
        let mut files = Vec::new();
        if outcome.ok && list_files(dir, Path::new(""), &mut files).is_err() {
            return;
        }
        let Some(staging) = self.aside(key) else {
            return;
        };
        judge_sandbox::interrupt::register(staging.clone());
        let written = write_entry(&staging, key, dir, &files, helpers, outcome, self.max_bytes);
        let placed = written.is_ok() && std::fs::rename(&staging, self.entries().join(key)).is_ok();
        if !placed {
            // Not written, or another judge placed the same entry first.
            let _ = std::fs::remove_dir_all(&staging);
        }
        judge_sandbox::interrupt::unregister(&staging);
        if placed {
            self.evict();
        }
    }

    /// A new empty folder (0700) in `tmp/` with a unique name (judges in other PID namespaces may
    /// have the same process id).
    fn aside(&self, prefix: &str) -> Option<PathBuf> {
        tempfile::Builder::new()
            .prefix(&format!("{prefix}."))
            .tempdir_in(self.root.join("tmp"))
            .ok()
            .map(tempfile::TempDir::keep)
    }

    /// Removes an entry: renamed out of `entries/` first, so it vanishes at once for readers.
    pub(super) fn remove(&self, entry: &Path) {
        // Renamed over an empty folder of a unique name (rename replaces an empty folder).
        let Some(dead) = self.aside("dead") else {
            return;
        };
        if std::fs::rename(entry, &dead).is_ok() {
            let _ = std::fs::remove_dir_all(&dead);
        } else {
            let _ = std::fs::remove_dir(&dead);
        }
    }
}

fn read_meta(path: &Path) -> std::io::Result<Meta> {
    let mut text = String::new();
    open_nofollow(path)?
        .take(META_CAP)
        .read_to_string(&mut text)?;
    serde_json::from_str(&text).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Opens a file for reading without following a symbolic link at its last component.
fn open_nofollow(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// A relative path of an entry that stays inside its folder.
fn safe_relative(path: &str) -> Option<&Path> {
    let p = Path::new(path);
    let ok = !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then_some(p)
}

/// Copies every file of the entry into `dir`, checking each against its size and hash.
fn restore(entry: &Path, meta: &Meta, dir: &Path) -> std::io::Result<()> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    for f in &meta.files {
        let rel = safe_relative(&f.path).ok_or_else(|| bad("bad path"))?;
        let mut bytes = Vec::new();
        open_nofollow(&entry.join(rel))?
            .take(f.size + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 != f.size || hex(&Sha256::digest(&bytes)) != f.sha256 {
            return Err(bad("damaged file"));
        }
        let target = dir.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(f.mode & 0o755)
            .open(&target)?
            .write_all(&bytes)?;
    }
    Ok(())
}

/// Lists the regular files under `dir` (relative paths). Anything else (a link, a file with
/// several names, a device) makes the build uncacheable: it might not be the build's own file.
fn list_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut names: Vec<_> = std::fs::read_dir(dir.join(rel))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()?;
    names.sort();
    for name in names {
        let r = rel.join(name);
        let m = std::fs::symlink_metadata(dir.join(&r))?;
        if m.is_dir() {
            list_files(dir, &r, out)?;
        } else if m.is_file() && m.nlink() == 1 {
            out.push(r);
        } else {
            return Err(std::io::Error::other("not a plain file"));
        }
    }
    Ok(())
}

fn write_entry(
    staging: &Path,
    key: &str,
    dir: &Path,
    files: &[PathBuf],
    helpers: &[(String, Vec<u8>)],
    outcome: &Outcome,
    max_bytes: u64,
) -> std::io::Result<()> {
    let mut metas = Vec::new();
    let mut total = 0u64;
    for rel in files {
        let mut f = open_nofollow(&dir.join(rel))?;
        let m = f.metadata()?;
        if !m.is_file() || m.nlink() != 1 {
            return Err(std::io::Error::other("not a plain file"));
        }
        total += m.size();
        // An entry that alone would fill the cache is not kept.
        if total > max_bytes / 2 {
            return Err(std::io::Error::other("too large"));
        }
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        // The helpers are the build's input, already in a restored build's folder.
        if helpers
            .iter()
            .any(|(name, given)| Path::new(name) == rel && *given == bytes)
        {
            continue;
        }
        // Reused, the files sit in another build folder: a text file that names this one (a
        // wrapper script) would lead the program to a folder that is gone. (Compiled programs
        // name it too, in panic messages, harmlessly: they are not text.)
        let folder = dir.as_os_str().as_encoded_bytes();
        if !bytes.contains(&0) && bytes.windows(folder.len()).any(|w| w == folder) {
            return Err(std::io::Error::other("names its build folder"));
        }
        let target = staging.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)?;
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&target)?
            .write_all(&bytes)?;
        let path = rel
            .to_str()
            .ok_or_else(|| std::io::Error::other("a file name that is not UTF-8"))?;
        metas.push(FileMeta {
            path: path.to_string(),
            mode: m.mode() & 0o777,
            size: bytes.len() as u64,
            sha256: hex(&Sha256::digest(&bytes)),
        });
    }
    let meta = Meta {
        format: FORMAT,
        key: key.to_string(),
        outcome: outcome.clone(),
        files: metas,
    };
    // Written last: an entry is whole once it has its meta.json (and only then renamed in).
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(staging.join("meta.json"))?
        .write_all(serde_json::to_string(&meta)?.as_bytes())
}
