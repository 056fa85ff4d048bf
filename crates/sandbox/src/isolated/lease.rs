//! Sandbox uids: each judge (each job of a judge) runs its programs as a uid of its own, held
//! with an `flock` on a lock file per uid ([`UidLease`]) for as long as it lives; CPUs a
//! service slot runs on alone, held the same way ([`CpuLease`]); the folder of those files,
//! and the sweep of files left by judges that are gone.

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
        for k in 0..UIDS {
            let uid = FIRST_UID + k;
            if let Some(lock) = lock_named(dir, &format!("uid-{uid}.lock"))? {
                return Ok(UidLease {
                    uid,
                    dir: dir.to_path_buf(),
                    _lock: lock,
                });
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

/// Locks `dir/name` (made if missing) for this process alone: `Ok(None)` when another process
/// holds it. A lock file is removed by a process holding its lock, so after locking, the name
/// must still lead to the file locked; else it was removed in between, and the name is tried
/// again (a few times: a name removed over and over counts as held).
fn lock_named(dir: &Path, name: &str) -> Result<Option<File>, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let path = dir.join(name);
    for _ in 0..8 {
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
            return Ok(None);
        }
        let same = match (std::fs::symlink_metadata(&path), lock.metadata()) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        };
        if same {
            return Ok(Some(lock));
        }
    }
    Ok(None)
}

/// A CPU that one service slot of this machine runs on alone (its thread, its sandboxes and
/// every run in them): an exclusive `flock` on `<dir>/cpu-<n>.lock`, as [`UidLease`] holds a
/// uid, released when dropped or when its judge dies. Taken by `judge worker` and `judge
/// serve` for each slot while one is free, so that two slots never wait for each other's CPU,
/// and any number of judges on one machine share out its CPUs.
pub struct CpuLease {
    cpu: usize,
    dir: PathBuf,
    _lock: File,
}

impl CpuLease {
    /// The first CPU this thread may run on that no other slot on this machine holds; `None`
    /// when every one is held. `Err(why)` when there is nothing to choose (the thread may run
    /// on one CPU only) or no lease folder can be used.
    pub fn take() -> Result<Option<CpuLease>, String> {
        let allowed = allowed_cpus()
            .map_err(|e| format!("cannot read the CPUs this process may run on: {e}"))?;
        if allowed.len() < 2 {
            return Err("this process may run on one CPU only".into());
        }
        let mut why = Vec::new();
        for dir in LEASE_DIRS.map(Path::new) {
            match lease_dir(dir) {
                Ok(()) => return Self::take_in(dir, &allowed),
                Err(e) => why.push(e),
            }
        }
        Err(format!("no folder for CPU leases: {}", why.join("; ")))
    }

    /// The first CPU of `allowed` whose lock file in `dir` (a folder made by [`lease_dir`])
    /// this process can lock.
    pub fn take_in(dir: &Path, allowed: &[usize]) -> Result<Option<CpuLease>, String> {
        for &cpu in allowed {
            if let Some(lock) = lock_named(dir, &format!("cpu-{cpu}.lock"))? {
                return Ok(Some(CpuLease {
                    cpu,
                    dir: dir.to_path_buf(),
                    _lock: lock,
                }));
            }
        }
        Ok(None)
    }

    /// The CPU held.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for CpuLease {
    fn drop(&mut self) {
        // Removed while locked, as a uid lease's file.
        let _ = std::fs::remove_file(self.dir.join(format!("cpu-{}.lock", self.cpu)));
    }
}

/// The CPUs the calling thread may run on.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is the empty set, filled in by the kernel.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: set is a cpu_set_t of the size given.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Runs `pid` (a thread or process; 0: the calling thread) on `cpu` alone.
pub fn pin(pid: libc::pid_t, cpu: usize) -> std::io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: a zeroed cpu_set_t is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: cpu is below CPU_SETSIZE (checked above), so CPU_SET writes within the set.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: set is a cpu_set_t of the size given.
    if unsafe { libc::sched_setaffinity(pid, std::mem::size_of_val(&set), &set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs process `pid` and every process under it on `cpu` alone; processes that are gone by
/// then are skipped.
pub fn pin_tree(pid: libc::pid_t, cpu: usize) -> std::io::Result<()> {
    pin(pid, cpu)?;
    let mut todo = children(pid);
    while let Some(p) = todo.pop() {
        if pin(p, cpu).is_ok() {
            todo.extend(children(p));
        }
    }
    Ok(())
}

/// The children of every thread of process `pid`.
fn children(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|kids| {
            kids.split_whitespace()
                .filter_map(|k| k.parse().ok())
                .collect::<Vec<_>>()
        })
        .collect()
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
        let Some(name) = name.to_str() else {
            continue;
        };
        // A CPU lease's file too, though no uid is freed by it.
        let uid = name
            .strip_prefix("uid-")
            .and_then(|n| n.strip_suffix(".lock")?.parse::<u32>().ok());
        let cpu = name
            .strip_prefix("cpu-")
            .and_then(|n| n.strip_suffix(".lock")?.parse::<usize>().ok());
        if uid.is_none() && cpu.is_none() {
            continue;
        }
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
                freed.extend(uid);
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

    /// Each CPU goes to one holder at a time, the first free one first; a dropped lease frees its
    /// CPU and its file; a file left by a killed holder is swept, a held one is not.
    #[test]
    fn cpu_leases_are_exclusive_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        lease_dir(dir.path()).unwrap();
        let cpus = [2, 5];
        let first = CpuLease::take_in(dir.path(), &cpus).unwrap().unwrap();
        let second = CpuLease::take_in(dir.path(), &cpus).unwrap().unwrap();
        assert_eq!((first.cpu(), second.cpu()), (2, 5));
        assert!(
            CpuLease::take_in(dir.path(), &cpus).unwrap().is_none(),
            "every CPU is held"
        );
        drop(first);
        assert!(
            !dir.path().join("cpu-2.lock").exists(),
            "a lease removes its file"
        );
        let again = CpuLease::take_in(dir.path(), &cpus).unwrap().unwrap();
        assert_eq!(again.cpu(), 2, "a dropped lease is free again");
        // What a killed holder leaves: the file, unlocked.
        let killed = dir.path().join("cpu-9.lock");
        std::fs::write(&killed, "").unwrap();
        assert_eq!(sweep_leases(dir.path()), Vec::<u32>::new(), "no uid freed");
        assert!(!killed.exists());
        assert!(dir.path().join("cpu-5.lock").exists(), "a held lease stays");
        drop(second);
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
