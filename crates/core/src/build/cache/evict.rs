//! The size bound: the least recently used entries (a hit touches `meta.json`) go first, and
//! staging folders of judges that died go too.

use super::Cache;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// An entry being written longer ago than this belongs to a judge that died: removed.
pub(super) const STALE_STAGING: Duration = Duration::from_secs(3600);

impl Cache {
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
