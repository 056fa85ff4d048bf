//! The cache folder: where the environment puts it, its size bound (`JUDGE_CACHE_SIZE`), and
//! opening it (made private, refused when another user owns it or others may write it).

use super::{Cache, DEFAULT_MAX_BYTES, FORMAT_DIR};
use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
