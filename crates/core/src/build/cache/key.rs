//! A build's key: a SHA-256 of everything that shapes the build, the compiler and the paths
//! it may read by their identity (resolved path, device, inode, size, times), looked at once
//! per process.

use super::{hex, Cache, FORMAT};
use crate::lang::Language;
use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

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
}

/// A file name for what identifies `path` now (a SHA-256 of [`identity_now`]): notes about a
/// program, such as its version line, are kept under it.
pub fn identity_name(path: &Path) -> Option<String> {
    Some(hex(&Sha256::digest(identity_now(path)?.as_bytes())))
}

pub(super) fn identity_now(path: &Path) -> Option<String> {
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
