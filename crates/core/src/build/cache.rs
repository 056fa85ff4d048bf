//! The build cache: what a compiler made (and a compile error it reported) kept between judges,
//! so an unchanged program is never compiled twice.
//!
//! An entry is keyed by a SHA-256 of everything that shapes a build: the source's bytes, the
//! files given beside it (helpers such as `testlib.h`, by name and bytes; not kept in the entry),
//! the language entry (commands, paths, source name), the compiler's identity (its resolved file:
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
//! Not cached: a compiler stopped by a limit or a signal (that depends on the load), and a build
//! with anything but plain files, or with a text file naming its build folder (reused, the files
//! sit in another folder).
//!
//! Nothing here is fatal: a cache that cannot be read or written only means compiling again.

use crate::lang::Language;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
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
                default: judge_model::units::mib(DEFAULT_MAX_BYTES),
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
    /// The files beside the source in the build folder (headers such as `testlib.h`, a
    /// multi-file program's other files, a Kattis `include/`), by name with their bytes.
    pub helpers: &'a [(String, Vec<u8>)],
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
        })
    }

    /// The folder holding the entries (for tests and messages).
    pub fn entries(&self) -> PathBuf {
        self.root.join("entries")
    }

    /// A small text kept under `notes/<kind>/<key>` (a measured time limit), if there is one.
    pub fn read_note(&self, kind: &str, key: &str) -> Option<String> {
        std::fs::read_to_string(self.root.join("notes").join(kind).join(key)).ok()
    }

    /// Keeps `text` as the note `kind`/`key`, written aside and renamed into place (another
    /// judge writing the same note at once leaves one whole). Failures only lose the note.
    pub fn write_note(&self, kind: &str, key: &str, text: &str) {
        let dir = self.root.join("notes").join(kind);
        if std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .is_err()
        {
            return;
        }
        let aside = dir.join(format!(".{key}.{}", std::process::id()));
        if std::fs::write(&aside, text).is_ok() && std::fs::rename(&aside, dir.join(key)).is_err() {
            let _ = std::fs::remove_file(&aside);
        }
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
        field(&(inputs.helpers.len() as u64).to_le_bytes());
        for (name, bytes) in inputs.helpers {
            field(name.as_bytes());
            field(bytes);
        }
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
    fn remove(&self, entry: &Path) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Languages;
    use test_case::test_case;

    fn cache(max_bytes: u64) -> (tempfile::TempDir, Cache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("judge"), max_bytes).unwrap();
        (dir, cache)
    }

    fn language(name: &str) -> Language {
        let all = Languages::load(None).unwrap();
        all.all().iter().find(|l| l.name == name).unwrap().clone()
    }

    #[test]
    fn the_key_changes_with_everything_that_shapes_a_build() {
        let (dir, c) = cache(DEFAULT_MAX_BYTES);
        let compiler = dir.path().join("cc");
        std::fs::write(&compiler, "compiler v1").unwrap();
        let other_compiler = dir.path().join("cc2");
        std::fs::write(&other_compiler, "compiler v1").unwrap();
        let header = dir.path().join("include");
        std::fs::create_dir(&header).unwrap();
        let cpp = language("C++");
        let mut cpp_o1 = cpp.clone();
        cpp_o1.compile[1] = "-O1".into();
        let base = KeyInputs {
            source: b"int main() {}",
            language: &cpp,
            compiler: &compiler,
            compile_paths: &[],
            settings: "limits",
            helpers: &[],
        };
        let header_h = [("testlib.h".to_string(), b"// v1".to_vec())];
        let header_h2 = [("testlib.h".to_string(), b"// v2".to_vec())];
        let other_name = [("other.h".to_string(), b"// v1".to_vec())];
        let key = c.key(&base).unwrap();
        assert_eq!(key.len(), 64);
        assert_eq!(c.key(&base).unwrap(), key, "the same inputs, the same key");
        let variants = [
            KeyInputs {
                source: b"int main() { }",
                ..base
            },
            KeyInputs {
                language: &cpp_o1,
                ..base
            },
            KeyInputs {
                compiler: &other_compiler,
                ..base
            },
            KeyInputs {
                compile_paths: std::slice::from_ref(&header),
                ..base
            },
            KeyInputs {
                settings: "other limits",
                ..base
            },
            KeyInputs {
                helpers: &header_h,
                ..base
            },
        ];
        // A helper's bytes and its name are in the key.
        let with = |helpers| c.key(&KeyInputs { helpers, ..base }).unwrap();
        assert_ne!(with(&header_h), with(&header_h2));
        assert_ne!(with(&header_h), with(&other_name));
        assert_eq!(with(&header_h), with(&header_h));
        for v in &variants {
            assert_ne!(c.key(v).unwrap(), key);
        }
        // A compiler that cannot be identified: nothing is cached.
        let missing = dir.path().join("missing");
        assert!(c
            .key(&KeyInputs {
                compiler: &missing,
                ..base
            })
            .is_none());
        // Fields are delimited: moving bytes between two fields is another key.
        let h1 = c.key(&KeyInputs {
            settings: "ab",
            source: b"c",
            ..base
        });
        let h2 = c.key(&KeyInputs {
            settings: "a",
            source: b"bc",
            ..base
        });
        assert_ne!(h1, h2);
    }

    #[test]
    fn a_changed_compiler_file_is_another_identity() {
        let dir = tempfile::tempdir().unwrap();
        let compiler = dir.path().join("cc");
        std::fs::write(&compiler, "compiler v1").unwrap();
        let before = identity_now(&compiler).unwrap();
        // Same size, new contents: the times (and the change time) move.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&compiler, "compiler v2").unwrap();
        assert_ne!(identity_now(&compiler).unwrap(), before);
        // Replaced by another file (an upgrade renames a new file into place).
        let new = dir.path().join("cc.new");
        std::fs::write(&new, "compiler v2").unwrap();
        let replaced = identity_now(&compiler).unwrap();
        std::fs::rename(&new, &compiler).unwrap();
        assert_ne!(identity_now(&compiler).unwrap(), replaced);
        // A link is its target.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&compiler, &link).unwrap();
        assert_eq!(identity_now(&link), identity_now(&compiler));
    }

    fn outcome(ok: bool) -> Outcome {
        Outcome {
            ok,
            stopped: (!ok).then(|| "the compiler failed (exit code 1)".into()),
            message: "main.c:1:1: warning".into(),
            src: "/tmp/judge-x/build-1/main.c".into(),
        }
    }

    /// A build folder with a program of `size` bytes.
    fn built(size: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.c"), "int main(){}").unwrap();
        std::fs::write(dir.path().join("prog"), vec![7u8; size]).unwrap();
        std::fs::set_permissions(
            dir.path().join("prog"),
            std::os::unix::fs::PermissionsExt::from_mode(0o775),
        )
        .unwrap();
        dir
    }

    #[test]
    fn an_entry_comes_back_whole() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(1000);
        let key = "a".repeat(64);
        c.store(&key, from.path(), &outcome(true), &[]);
        let to = tempfile::tempdir().unwrap();
        assert_eq!(c.fetch(&key, to.path()), Some(outcome(true)));
        assert_eq!(
            std::fs::read(to.path().join("prog")).unwrap(),
            vec![7u8; 1000]
        );
        let mode = std::fs::metadata(to.path().join("prog")).unwrap().mode();
        assert_eq!(mode & 0o111, 0o111, "still executable: {mode:o}");
        assert_eq!(mode & 0o022, 0, "writable by nobody else: {mode:o}");
        // A failed build keeps no files.
        let key2 = "b".repeat(64);
        c.store(&key2, from.path(), &outcome(false), &[]);
        let to = tempfile::tempdir().unwrap();
        assert_eq!(c.fetch(&key2, to.path()), Some(outcome(false)));
        assert_eq!(std::fs::read_dir(to.path()).unwrap().count(), 0);
        assert!(c.fetch(&"c".repeat(64), to.path()).is_none());
    }

    /// A build with helper files keeps what the compiler made, not the helpers it was given
    /// (unchanged): restored into a folder that holds them again, nothing collides.
    #[test]
    fn the_helpers_given_are_not_stored_and_a_restore_goes_beside_them() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(100);
        std::fs::write(from.path().join("testlib.h"), "// header").unwrap();
        let helpers = [("testlib.h".to_string(), b"// header".to_vec())];
        let key = "a".repeat(64);
        c.store(&key, from.path(), &outcome(true), &helpers);
        assert!(!c.entries().join(&key).join("testlib.h").exists());
        assert!(c.entries().join(&key).join("prog").exists());
        let to = tempfile::tempdir().unwrap();
        std::fs::write(to.path().join("testlib.h"), "// header").unwrap();
        assert_eq!(c.fetch(&key, to.path()), Some(outcome(true)));
        assert_eq!(
            std::fs::read(to.path().join("prog")).unwrap(),
            vec![7u8; 100]
        );
        // A helper the compiler changed is the build's own file: kept.
        std::fs::write(from.path().join("testlib.h"), "// rewritten").unwrap();
        let key = "b".repeat(64);
        c.store(&key, from.path(), &outcome(true), &helpers);
        assert!(c.entries().join(&key).join("testlib.h").exists());
    }

    #[test]
    fn builds_stored_at_once_leave_one_whole_entry() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(200_000);
        let key = "a".repeat(64);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..5 {
                        c.store(&key, from.path(), &outcome(true), &[]);
                        let to = tempfile::tempdir().unwrap();
                        // Whenever an entry is there, it is whole.
                        if let Some(o) = c.fetch(&key, to.path()) {
                            assert_eq!(o, outcome(true));
                            assert_eq!(
                                std::fs::read(to.path().join("prog")).unwrap().len(),
                                200_000
                            );
                        }
                    }
                });
            }
        });
        assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 1);
        assert_eq!(std::fs::read_dir(c.root.join("tmp")).unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_entry_is_removed_and_its_files_not_left_behind() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(1000);
        let key = "a".repeat(64);
        c.store(&key, from.path(), &outcome(true), &[]);
        std::fs::write(c.entries().join(&key).join("prog"), vec![8u8; 1000]).unwrap();
        let to = tempfile::tempdir().unwrap();
        assert!(c.fetch(&key, to.path()).is_none());
        assert!(!c.entries().join(&key).exists());
        assert_eq!(std::fs::read_dir(to.path()).unwrap().count(), 0);
    }

    #[test]
    fn what_is_not_a_plain_file_of_the_build_is_not_cached() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(10);
        std::os::unix::fs::symlink("/etc/passwd", from.path().join("leak")).unwrap();
        c.store(&"a".repeat(64), from.path(), &outcome(true), &[]);
        let from = built(10);
        std::fs::hard_link(from.path().join("prog"), from.path().join("prog2")).unwrap();
        c.store(&"b".repeat(64), from.path(), &outcome(true), &[]);
        assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 0);
    }

    #[test]
    fn a_text_file_naming_its_build_folder_is_not_cached() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let from = built(10);
        let script = format!(
            "#!/bin/sh\nexec /usr/bin/java -cp {} Main\n",
            from.path().display()
        );
        std::fs::write(from.path().join("prog"), script).unwrap();
        c.store(&"a".repeat(64), from.path(), &outcome(true), &[]);
        assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 0);
        // A program (not text) that names it, as Rust's panic locations do, is kept.
        let from = built(10);
        let mut program = b"\x7fELF\0".to_vec();
        program.extend_from_slice(from.path().join("main.rs").as_os_str().as_encoded_bytes());
        std::fs::write(from.path().join("prog"), program).unwrap();
        c.store(&"b".repeat(64), from.path(), &outcome(true), &[]);
        assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 1);
    }

    #[test]
    fn the_least_recently_used_entries_go_first() {
        let (_d, c) = cache(12_000);
        let from = built(3000);
        let keys: Vec<String> = (0..3).map(|i| format!("{i}").repeat(64)).collect();
        let meta = |k: &str| c.entries().join(k).join("meta.json");
        let past = |secs| SystemTime::now() - Duration::from_secs(secs);
        for (i, k) in keys.iter().enumerate() {
            c.store(k, from.path(), &outcome(true), &[]);
            // Stored one after the other, the first the oldest.
            let f = std::fs::OpenOptions::new()
                .append(true)
                .open(meta(k))
                .unwrap();
            f.set_modified(past(100 - i as u64)).unwrap();
        }
        // Using the oldest makes it the newest.
        let to = tempfile::tempdir().unwrap();
        assert!(c.fetch(&keys[0], to.path()).is_some());
        // A fourth entry does not fit: the least recently used one (keys[1]) goes.
        let key = "x".repeat(64);
        c.store(&key, from.path(), &outcome(true), &[]);
        let mut left: Vec<String> = std::fs::read_dir(c.entries())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec![keys[0].clone(), keys[2].clone(), key];
        want.sort();
        assert_eq!(left, want);
        // An entry too large for the cache is not kept at all.
        let big = built(6000);
        c.store(&"y".repeat(64), big.path(), &outcome(true), &[]);
        assert!(!c.entries().join("y".repeat(64)).exists());
    }

    #[test]
    fn staging_folders_of_dead_judges_are_removed() {
        let (_d, c) = cache(DEFAULT_MAX_BYTES);
        let tmp = c.root.join("tmp");
        let old = tmp.join("dead-judge");
        let young = tmp.join("busy-judge");
        std::fs::create_dir(&old).unwrap();
        std::fs::create_dir(&young).unwrap();
        std::fs::File::open(&old)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE_STAGING)
            .unwrap();
        c.evict();
        assert!(!old.exists());
        assert!(young.exists());
    }

    #[test]
    fn folders_others_may_write_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777))
            .unwrap();
        let e = Cache::open(&open, 1).unwrap_err();
        assert!(
            matches!(e, CacheWarning::Writable { mode: 0o777, .. }),
            "{e}"
        );
        assert!(!open.join(FORMAT_DIR).exists());
        // A new folder is made private.
        let new = dir.path().join("a/b");
        Cache::open(&new, 1).unwrap();
        for d in [dir.path().join("a"), new.clone(), new.join(FORMAT_DIR)] {
            assert_eq!(
                std::fs::metadata(&d).unwrap().mode() & 0o777,
                0o700,
                "{d:?}"
            );
        }
    }

    #[test_case("1048576" => Some(1 << 20) ; "bytes")]
    #[test_case("512K" => Some(512 << 10) ; "kibibytes")]
    #[test_case("500M" => Some(500 << 20) ; "mebibytes")]
    #[test_case("2G" => Some(2 << 30) ; "gibibytes")]
    #[test_case("1GiB" => Some(1 << 30) ; "with iB")]
    #[test_case("1.5g" => Some(3 << 29) ; "a fraction in lower case")]
    #[test_case("0" => Some(0) ; "zero")]
    #[test_case(" 10 mb " => Some(10 << 20) ; "spaces around and b")]
    #[test_case("" => None ; "empty")]
    #[test_case("G" => None ; "a unit alone")]
    #[test_case("-1G" => None ; "negative")]
    #[test_case("1X" => None ; "an unknown unit")]
    #[test_case("1e9" => None ; "an exponent")]
    fn sizes(text: &str) -> Option<u64> {
        parse_size(text)
    }
}
