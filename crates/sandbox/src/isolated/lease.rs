//! Sandbox uids: each judge (each job of a judge) runs its programs as a uid of its own, held
//! with an `flock` on a lock file per uid ([`UidLease`]) for as long as it lives; the folder
//! of those files, and the sweep of files left by judges that are gone.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// First uid/gid of sandboxed programs: a worker runs its programs as FIRST_UID + k, for the
/// first k that no other worker on this machine holds (see [`UidLease`]).
pub const FIRST_UID: u32 = 60000;
/// How many sandbox uids there are: as many workers can run at once on one machine.
pub const UIDS: u32 = 1000;
/// Where the uid leases live: one lock file per uid, shared by every judge on the machine.
pub(super) const LEASE_DIRS: [&str; 2] = ["/run/judge", "/tmp/judge-uids"];

/// A sandbox uid held by this worker alone: an exclusive `flock` on `<dir>/uid-<uid>.lock`,
/// released by the kernel when the file closes (also when the judge is killed). Two judges
/// running at the same time therefore never run programs under the same uid, so even a hole in
/// the other layers would not let one run signal, trace or read files of another.
///
/// The lock file is removed with the lease (by its holder, or by the next judge if the holder
/// was killed), always by a process that holds its lock; so a judge that locked a file checks
/// that the name still leads to it, else the lease was given up in between and it tries again.
pub struct UidLease {
    uid: u32,
    /// The lease folder (root's alone), also home of the favordynmods marker.
    pub(super) dir: PathBuf,
    _lock: File,
}

impl UidLease {
    /// A lease from the first lease folder that can be used. Only an unusable folder moves on to
    /// the next: with every uid of a usable folder taken, another folder would hand out the same
    /// uids again.
    pub fn take() -> Result<UidLease, String> {
        let mut why = Vec::new();
        for dir in LEASE_DIRS.map(Path::new) {
            match lease_dir(dir) {
                Ok(()) => return Self::take_in(dir),
                Err(e) => why.push(e),
            }
        }
        Err(format!(
            "no folder for sandbox uid leases: {}; hint: make /run writable for root",
            why.join("; ")
        ))
    }

    /// The first free uid whose lock file in `dir` (a folder made by [`lease_dir`]) this process
    /// can lock.
    pub fn take_in(dir: &Path) -> Result<UidLease, String> {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let mut k = 0;
        let mut retries = 0;
        while k < UIDS {
            let uid = FIRST_UID + k;
            let path = dir.join(format!("uid-{uid}.lock"));
            let lock = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .mode(0o600)
                .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
                .open(&path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                k += 1;
                continue;
            }
            let same = match (std::fs::symlink_metadata(&path), lock.metadata()) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            };
            if same {
                return Ok(UidLease {
                    uid,
                    dir: dir.to_path_buf(),
                    _lock: lock,
                });
            }
            // Removed by its last holder between our open and our lock: try the name again.
            retries += 1;
            if retries % 8 == 0 {
                k += 1;
            }
        }
        Err(format!(
            "all {UIDS} sandbox uids ({FIRST_UID}..{}) are in use by other judges (lock files in {})",
            FIRST_UID + UIDS - 1,
            dir.display()
        ))
    }

    pub fn uid(&self) -> u32 {
        self.uid
    }

    fn path(&self) -> PathBuf {
        self.dir.join(format!("uid-{}.lock", self.uid))
    }
}

impl Drop for UidLease {
    fn drop(&mut self) {
        // Removed while locked (see the type's documentation); the lock goes with the file.
        let _ = std::fs::remove_file(self.path());
    }
}

/// Removes the lock files of leases whose holders are gone (killed before they could remove
/// them) from `dir`; returns the uids freed so.
pub(super) fn sweep_leases(dir: &Path) -> Vec<u32> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut freed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return freed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(uid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("uid-")?.strip_suffix(".lock"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(lock) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .open(entry.path())
        else {
            continue;
        };
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            // Held by nobody: its judge is gone. Removed while we hold it.
            if std::fs::remove_file(entry.path()).is_ok() {
                freed.push(uid);
            }
        }
    }
    freed
}

/// Creates `dir` if needed and checks that only this user can change it: a real folder (not a
/// link), ours, writable by nobody else. The fallback lives in the shared /tmp, where someone
/// else could have made it first.
pub(super) fn lease_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let meta = dir
        .symlink_metadata()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{} is not a folder owned by uid {me} and writable by it alone",
            dir.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_leases_are_exclusive_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        lease_dir(dir.path()).unwrap();
        let first = UidLease::take_in(dir.path()).unwrap();
        let second = UidLease::take_in(dir.path()).unwrap();
        assert_eq!(first.uid(), FIRST_UID);
        assert_eq!(second.uid(), FIRST_UID + 1);
        drop(first);
        let again = UidLease::take_in(dir.path()).unwrap();
        assert_eq!(again.uid(), FIRST_UID, "a dropped lease is free again");
        assert_ne!(again.uid(), second.uid());
    }

    /// A lease's lock file goes with the lease; one left by a judge that was killed is removed by
    /// the next sweep, and a held one is not.
    #[test]
    fn lease_files_go_with_their_leases() {
        let dir = tempfile::tempdir().unwrap();
        lease_dir(dir.path()).unwrap();
        let held = UidLease::take_in(dir.path()).unwrap();
        let dropped = UidLease::take_in(dir.path()).unwrap();
        let dropped_file = dropped.path();
        drop(dropped);
        assert!(!dropped_file.exists(), "a lease removes its file");
        // What a killed judge leaves: the file, unlocked.
        let killed = dir.path().join(format!("uid-{}.lock", FIRST_UID + 7));
        std::fs::write(&killed, "").unwrap();
        assert_eq!(sweep_leases(dir.path()), [FIRST_UID + 7]);
        assert!(!killed.exists());
        assert!(held.path().exists(), "a held lease stays");
        let again = UidLease::take_in(dir.path()).unwrap();
        assert_eq!(again.uid(), FIRST_UID + 1);
    }

    #[test]
    fn a_lease_folder_others_can_write_to_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = lease_dir(dir.path()).unwrap_err();
        assert!(err.contains("writable by it alone"), "{err}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(lease_dir(&link).is_err(), "a link is not a lease folder");
    }
}
