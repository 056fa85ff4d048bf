//! The build cache: what a compiler made (and a compile error it reported) kept between judges,
//! so an unchanged program is never compiled twice.
//!
//! An entry is keyed by a SHA-256 of everything that shapes a build: the source's bytes, the
//! language entry (commands, paths, source name), the compiler's identity (its resolved file:
//! path, device, inode, size, modification and change times) and that of each path the compile
//! step may read, the compile limits and environment, and the judge's version. A changed
//! compiler is a new key, so an old entry is never trusted across it.
//!
//! Layout under the cache folder (0700, refused when another user owns it or others may write
//! it): `v1/entries/<key>/` holds the build folder's files and `meta.json` (the compiler's
//! message, and each file's size, mode and hash); `v1/tmp/` holds entries being written. An
//! entry is written in `tmp/` and renamed into place whole, so a reader never sees half of one;
//! two judges building the same program both compile and the first rename wins. Reading checks
//! every file against its hash: a damaged entry is removed and the program rebuilt. The folder is
//! bounded (`JUDGE_CACHE_SIZE`, default 1 GiB): after each store the least recently used entries
//! (a hit touches `meta.json`) are removed until it fits.
//!
//! Nothing here is fatal: a cache that cannot be read or written only means compiling again.

use crate::lang::Language;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// Bumped whenever what a build leaves or how an entry is laid out changes: older entries are
/// then never looked at (they age out through eviction).
const FORMAT: u32 = 1;
/// The folder of this format inside the cache folder.
const FORMAT_DIR: &str = "v1";
/// Size bound when `JUDGE_CACHE_SIZE` does not say otherwise.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// An entry being written longer ago than this belongs to a judge that died: removed.
const STALE_STAGING: Duration = Duration::from_secs(3600);
/// `meta.json` larger than this is not ours.
const META_CAP: u64 = 1 << 20;

/// Why the cache is not used (printed as a warning by the command line; judging goes on).
#[derive(Debug, thiserror::Error)]
pub enum CacheWarning {
    #[error("no folder for the build cache (none of JUDGE_CACHE_DIR, XDG_CACHE_HOME, HOME is set); building without it\n  hint: set JUDGE_CACHE_DIR=FOLDER, or pass --no-cache")]
    NoFolder,
    #[error("cannot use the build cache {path}: {source}; building without it\n  hint: fix the folder, set JUDGE_CACHE_DIR to another one, or pass --no-cache")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the build cache {path} belongs to another user (uid {owner}; you are uid {me}); building without it\n  hint: its programs would run as yours: remove it, or set JUDGE_CACHE_DIR to a folder of your own")]
    Owner { path: PathBuf, owner: u32, me: u32 },
    #[error("the build cache {path} is writable by others (mode {mode:o}); building without it\n  hint: anyone could plant programs there: `chmod 700 {path}`, or remove it")]
    Writable { path: PathBuf, mode: u32 },
    #[error("JUDGE_CACHE_SIZE={value}: not a size; using {default}\n  hint: a number of bytes with an optional unit: 500M, 2G, 0 (keep nothing)")]
    Size { value: String, default: String },
}

/// An open cache folder. Shared by every build of the process.
#[derive(Debug)]
pub struct Cache {
    /// `<cache folder>/v1`.
    root: PathBuf,
    max_bytes: u64,
    /// Identities of files already looked at, by the path asked for (once per process).
    identities: Mutex<HashMap<PathBuf, Option<String>>>,
    /// Makes staging folder names unique within the process.
    counter: AtomicU64,
}

/// The cache in force for this process (none unless the command line installs one).
static INSTALLED: Mutex<Option<Arc<Cache>>> = Mutex::new(None);

/// Makes `cache` the one every build uses (`None`: build without a cache).
pub fn install(cache: Option<Cache>) {
    if let Ok(mut c) = INSTALLED.lock() {
        *c = cache.map(Arc::new);
    }
}

/// The cache builds use, if any.
pub fn installed() -> Option<Arc<Cache>> {
    INSTALLED.lock().ok().and_then(|c| c.clone())
}

/// The cache folder the environment names: `JUDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/judge`,
/// else `$HOME/.cache/judge` (relative values are ignored, as the XDG rules say).
pub fn default_folder() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var("JUDGE_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|p| p.join("judge")))
        .or_else(|| var("HOME").map(|p| p.join(".cache/judge")))
}

/// Opens the cache the environment names, with the size bound of `JUDGE_CACHE_SIZE`.
/// The warnings say why it is not used, or what was ignored.
pub fn open_default() -> (Option<Cache>, Vec<CacheWarning>) {
    let mut warnings = Vec::new();
    let max_bytes = match std::env::var("JUDGE_CACHE_SIZE") {
        Ok(value) => parse_size(&value).unwrap_or_else(|| {
            warnings.push(CacheWarning::Size {
                value,
                default: crate::report::mib(DEFAULT_MAX_BYTES),
            });
            DEFAULT_MAX_BYTES
        }),
        Err(_) => DEFAULT_MAX_BYTES,
    };
    let Some(folder) = default_folder() else {
        warnings.push(CacheWarning::NoFolder);
        return (None, warnings);
    };
    match Cache::open(&folder, max_bytes) {
        Ok(cache) => (Some(cache), warnings),
        Err(w) => {
            warnings.push(w);
            (None, warnings)
        }
    }
}

/// `1048576`, `512K`, `500M`, `2G`, `1GiB`, `1.5G` (units are powers of 1024).
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let bytes = number * (1u64 << shift) as f64;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// What a build left: the compiler's message as it printed it, and whether it succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Whether the build produced a program.
    pub ok: bool,
    /// Why the compiler failed, in the judge's words (`the compiler failed (exit code 1)`).
    pub stopped: Option<String>,
    /// The compiler's messages (capped), naming the source copy `src`.
    pub message: String,
    /// Where the source copy was when it was compiled (messages name it; rewritten on reuse).
    pub src: PathBuf,
}

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

/// What goes into a key besides the source and the language entry.
pub struct KeyInputs<'a> {
    pub source: &'a [u8],
    pub language: &'a Language,
    /// The compiler as resolved (first word of the compile command).
    pub compiler: &'a Path,
    /// Host paths the compile step may read (the language's), besides the build folder.
    pub compile_paths: &'a [PathBuf],
    /// Anything else that shapes the build (limits, environment), as text.
    pub settings: &'a str,
}

impl Cache {
    /// Opens (creating, mode 0700) the cache folder `folder`, refusing one that another user
    /// owns or others may write.
    pub fn open(folder: &Path, max_bytes: u64) -> Result<Cache, CacheWarning> {
        let root = folder.join(FORMAT_DIR);
        let create = |dir: &Path| {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| CacheWarning::Io {
                    path: dir.to_path_buf(),
                    source,
                })
        };
        // Each folder is checked before anything is made inside it.
        create(folder)?;
        check_owner(folder)?;
        create(&root)?;
        check_owner(&root)?;
        create(&root.join("entries"))?;
        create(&root.join("tmp"))?;
        Ok(Cache {
            root,
            max_bytes,
            identities: Mutex::new(HashMap::new()),
            counter: AtomicU64::new(0),
        })
    }

    /// The folder holding the entries (for tests and messages).
    pub fn entries(&self) -> PathBuf {
        self.root.join("entries")
    }

    /// The key of a build, or `None` when the compiler cannot be identified (then nothing is
    /// cached).
    pub fn key(&self, inputs: &KeyInputs) -> Option<String> {
        let mut h = Sha256::new();
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(b"judge build cache");
        field(&FORMAT.to_le_bytes());
        field(env!("CARGO_PKG_VERSION").as_bytes());
        field(format!("{:?}", inputs.language).as_bytes());
        field(inputs.settings.as_bytes());
        field(self.identity(inputs.compiler)?.as_bytes());
        for p in inputs.compile_paths {
            field(self.identity(p)?.as_bytes());
        }
        field(inputs.source);
        Some(hex(&h.finalize()))
    }

    /// What identifies a file (or folder) as it is now: the path it resolves to, device, inode,
    /// size, modification and change times. A reinstalled or upgraded compiler differs in some.
    fn identity(&self, path: &Path) -> Option<String> {
        let mut known = self.identities.lock().ok()?;
        if let Some(id) = known.get(path) {
            return id.clone();
        }
        let id = identity_now(path);
        known.insert(path.to_path_buf(), id.clone());
        id
    }

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
            empty_folder(dir);
            return None;
        }
        // Recently used: eviction goes by this time.
        if let Ok(f) = std::fs::OpenOptions::new().append(true).open(&meta_path) {
            let _ = f.set_modified(SystemTime::now());
        }
        Some(meta.outcome)
    }

    /// Stores what the build in `dir` left (every regular file; none for a failed build) under
    /// `key`, then evicts what exceeds the size bound. Best effort: a failure stores nothing.
    pub fn store(&self, key: &str, dir: &Path, outcome: &Outcome) {
        let mut files = Vec::new();
        if outcome.ok && list_files(dir, Path::new(""), &mut files).is_err() {
            return;
        }
        let staging = self.root.join("tmp").join(format!(
            "{key}.{}.{}",
            std::process::id(),
            self.counter.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&staging)
            .is_err()
        {
            return;
        }
        crate::interrupt::register(staging.clone());
        let written = write_entry(&staging, key, dir, &files, outcome, self.max_bytes);
        let placed = written.is_ok() && std::fs::rename(&staging, self.entries().join(key)).is_ok();
        if !placed {
            // Not written, or another judge placed the same entry first.
            let _ = std::fs::remove_dir_all(&staging);
        }
        crate::interrupt::unregister(&staging);
        if placed {
            self.evict();
        }
    }

    /// Removes the least recently used entries until the cache fits its bound, and staging
    /// folders of judges that died.
    pub fn evict(&self) {
        let now = SystemTime::now();
        if let Ok(rd) = std::fs::read_dir(self.root.join("tmp")) {
            for e in rd.flatten() {
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|age| age > STALE_STAGING);
                if old {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        if let Ok(rd) = std::fs::read_dir(self.entries()) {
            for e in rd.flatten() {
                let path = e.path();
                // An entry without its meta.json is broken: its time is the oldest.
                let used = std::fs::metadata(path.join("meta.json"))
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                entries.push((used, tree_size(&path), path));
            }
        }
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        entries.sort();
        for (_, size, path) in entries {
            if total <= self.max_bytes {
                break;
            }
            self.remove(&path);
            total = total.saturating_sub(size);
        }
    }

    /// Removes an entry: renamed out of `entries/` first, so it vanishes at once for readers.
    fn remove(&self, entry: &Path) {
        let dead = self.root.join("tmp").join(format!(
            "dead.{}.{}",
            std::process::id(),
            self.counter.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::rename(entry, &dead).is_ok() {
            let _ = std::fs::remove_dir_all(&dead);
        }
    }
}

/// Refuses a folder that another user owns or others may write: its programs would run as ours.
fn check_owner(dir: &Path) -> Result<(), CacheWarning> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let meta = std::fs::metadata(dir).map_err(|source| CacheWarning::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    if meta.uid() != me {
        return Err(CacheWarning::Owner {
            path: dir.to_path_buf(),
            owner: meta.uid(),
            me,
        });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(CacheWarning::Writable {
            path: dir.to_path_buf(),
            mode: meta.mode() & 0o7777,
        });
    }
    Ok(())
}

fn identity_now(path: &Path) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    let m = std::fs::metadata(&real).ok()?;
    Some(format!(
        "{}|{}|{}|{}|{}.{}|{}.{}|{:o}",
        real.display(),
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.mode()
    ))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

/// Total size of the files under `path`.
fn tree_size(path: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(path) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => tree_size(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}

/// Empties a build folder after a failed restore, so the compiler starts from nothing.
fn empty_folder(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            let _ = if e.file_type().is_ok_and(|t| t.is_dir()) {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
        }
    }
}
