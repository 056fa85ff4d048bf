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
//!
//! The files: `open.rs` the folder and its settings (where it is, its size bound, whose it is),
//! `key.rs` what a build's key is made of, `entry.rs` an entry written aside, renamed in and
//! restored hash-checked, `evict.rs` the size bound kept by evicting the least recently used.

mod entry;
mod evict;
mod key;
mod open;
#[cfg(test)]
mod tests;

pub use key::{identity_name, KeyInputs};
pub use open::{default_folder, open_default, parse_size, CacheWarning};

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Bumped whenever what a build leaves or how an entry is laid out changes: older entries are
/// then never looked at (they age out through eviction).
const FORMAT: u32 = 1;
/// The folder of this format inside the cache folder.
const FORMAT_DIR: &str = "v1";
/// Size bound when `JUDGE_CACHE_SIZE` does not say otherwise.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

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

impl Cache {
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
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
