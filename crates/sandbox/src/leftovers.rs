//! What judges that are gone left behind.
//!
//! A judge killed with SIGKILL cannot clean up: its work folders in `$TMPDIR`, its run cgroups
//! and its uid lease file stay. So every folder a judge makes in a shared place is *held*: the
//! judge keeps an `flock` on it for as long as the folder exists, and the kernel drops the lock
//! when the judge dies, however it dies. At start, a judge tries the lock of each folder named
//! like its own; one whose lock it can take belongs to a judge that is gone and is removed. A live
//! judge's folders are never touched: their locks are held (a lock works across PID namespaces,
//! where a pid would not).
//!
//! Making a held folder takes three steps (mkdir, open, flock), and a sweeping judge may take the
//! lock of a folder made a moment ago, before its maker does, and remove it. The maker then finds
//! that its path no longer leads to the folder it locked, and makes another.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A folder this judge made, locked for as long as the value lives. Dropping it unlocks the
/// folder; it does not remove it (its owner does, first).
#[derive(Debug)]
pub struct Held {
    path: PathBuf,
    fd: OwnedFd,
}

impl Held {
    /// Makes `path` with `mkdir` and locks it. Fails with [`io::ErrorKind::AlreadyExists`] when
    /// the name is taken, and with [`io::ErrorKind::Interrupted`] when a sweeping judge removed
    /// the new folder before it was locked: the caller tries another name.
    pub fn make(path: PathBuf, mkdir: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<Held> {
        mkdir(&path)?;
        let fd = match open_folder(&path) {
            // Removed at once by a sweeping judge that took its lock first.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(swept(&path)),
            other => other?,
        };
        lock_new(path, fd)
    }

    /// A new folder `<parent>/<prefix><16 hex digits>` (mode 0700), made and locked.
    pub fn make_temp(parent: &Path, prefix: &str) -> io::Result<Held> {
        use std::os::unix::fs::DirBuilderExt;
        let mut last = None;
        for _ in 0..8 {
            let path = parent.join(format!("{prefix}{:016x}", crate::random_u64()));
            match Held::make(path, |p| std::fs::DirBuilder::new().mode(0o700).create(p)) {
                Ok(held) => return Ok(held),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::AlreadyExists | io::ErrorKind::Interrupted
                    ) =>
                {
                    last = Some(e)
                }
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot create a folder in {}: {e}", parent.display()),
                    ))
                }
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no name left")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder, open for reading (files in it can be opened relative to it).
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }
}

/// Locks a folder just made and opened, and checks that its path still leads to it.
fn lock_new(path: PathBuf, fd: OwnedFd) -> io::Result<Held> {
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        // A sweeping judge holds it: it is about to be removed.
        return Err(swept(&path));
    }
    let (here, ours) = (std::fs::symlink_metadata(&path), std::fs::File::from(fd));
    match (here, ours.metadata()) {
        (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino() => Ok(Held {
            path,
            fd: ours.into(),
        }),
        _ => Err(swept(&path)),
    }
}

fn swept(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::Interrupted,
        format!(
            "{} was removed by a judge cleaning up leftovers",
            path.display()
        ),
    )
}

fn open_folder(path: &Path) -> io::Result<OwnedFd> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map(Into::into)
}

/// Whether `name` is `<prefix><16 hex digits>`: the names of held folders. Older judges named
/// their folders otherwise and held no lock; those are never touched.
pub fn is_held_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == 16
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Removes the folders in `parent` whose names `ours` accepts, that this user owns and whose
/// makers are gone (their lock can be taken). `remove` removes one, locked; it returns whether
/// it could. Returns the folders removed.
pub fn sweep(
    parent: &Path,
    ours: impl Fn(&str) -> bool,
    remove: impl Fn(&Held) -> bool,
) -> Vec<PathBuf> {
    sweep_with(parent, ours, |_, take| Some(take()), remove)
}

/// [`sweep`], with each folder's lock taken through `guard(path, take)`, which may decline
/// (return None without calling `take`).
pub fn sweep_with(
    parent: &Path,
    ours: impl Fn(&str) -> bool,
    guard: impl Fn(&Path, &mut dyn FnMut() -> Option<Held>) -> Option<Option<Held>>,
    remove: impl Fn(&Held) -> bool,
) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return removed;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(&ours) {
            continue;
        }
        let path = entry.path();
        let mut take = || {
            let file = std::fs::File::from(open_folder(&path).ok()?);
            if file.metadata().map_or(true, |m| m.uid() != me) {
                return None;
            }
            // SAFETY: flock on a descriptor we own.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                return None;
            }
            Some(Held {
                path: path.clone(),
                fd: file.into(),
            })
        };
        let Some(Some(held)) = guard(&path, &mut take) else {
            continue;
        };
        if remove(&held) {
            removed.push(held.path.clone());
        }
    }
    removed
}

/// The work-folder prefixes in `$TMPDIR`: a session's work folder (see `cli::Session`) and a
/// sandbox worker's folder (see `sandbox::isolated`).
pub const TEMP_PREFIXES: [&str; 2] = ["judge-work-", "judge-sandbox-"];

/// Removes the work folders of judges that are gone from `$TMPDIR`.
pub fn sweep_temp() -> Vec<PathBuf> {
    sweep(
        &std::env::temp_dir(),
        |name| TEMP_PREFIXES.iter().any(|p| is_held_name(name, p)),
        |held| {
            let _ = std::fs::remove_dir_all(held.path());
            !held.path().exists()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_names_are_told_apart_from_others() {
        assert!(is_held_name("judge-work-0123456789abcdef", "judge-work-"));
        assert!(!is_held_name("judge-work-0123456789ABCDEF", "judge-work-"));
        assert!(!is_held_name("judge-work-0123456789abcde", "judge-work-"));
        assert!(!is_held_name("judge-uids", "judge-work-"));
        assert!(!is_held_name("judge-x3Fa9Q", "judge-work-"));
    }

    /// A folder whose maker is gone is removed; one whose maker lives (holds the lock) stays,
    /// and so do folders with other names.
    #[test]
    fn a_sweep_removes_only_folders_nobody_holds() {
        let parent = tempfile::tempdir().unwrap();
        let live = Held::make_temp(parent.path(), "judge-work-").unwrap();
        // A folder whose maker is gone: named like a held one, with nobody holding its lock.
        // (Making it with `Held` and dropping that would race with other tests' forks: a child
        // forked meanwhile holds the locked descriptor until it execs.)
        let gone_path = parent.path().join("judge-work-00000000deadbeef");
        std::fs::create_dir(&gone_path).unwrap();
        std::fs::write(gone_path.join("left.txt"), "x").unwrap();
        let other = parent.path().join("judge-uids");
        std::fs::create_dir(&other).unwrap();
        let removed = sweep(
            parent.path(),
            |n| is_held_name(n, "judge-work-"),
            |h| std::fs::remove_dir_all(h.path()).is_ok(),
        );
        assert_eq!(removed, std::slice::from_ref(&gone_path));
        assert!(!gone_path.exists());
        assert!(live.path().is_dir());
        assert!(other.is_dir());
    }

    /// A folder a sweep took or removed between its mkdir and its lock is not taken for held,
    /// and the maker is told to try another name.
    #[test]
    fn a_folder_swept_before_it_was_locked_is_refused() {
        let parent = tempfile::tempdir().unwrap();
        let sweep_all = || {
            sweep(
                parent.path(),
                |n| is_held_name(n, "judge-work-"),
                |h| std::fs::remove_dir(h.path()).is_ok(),
            )
        };
        // The sweep removed it after our open.
        let path = parent.path().join("judge-work-0000000000000001");
        std::fs::create_dir(&path).unwrap();
        let fd = open_folder(&path).unwrap();
        assert_eq!(sweep_all(), std::slice::from_ref(&path));
        let err = lock_new(path.clone(), fd).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Interrupted, "{err}");
        // The sweep holds it while we try.
        std::fs::create_dir(&path).unwrap();
        let theirs = open_folder(&path).unwrap();
        // SAFETY: flock on a descriptor we own.
        assert_eq!(unsafe { libc::flock(theirs.as_raw_fd(), libc::LOCK_EX) }, 0);
        let err = lock_new(path.clone(), open_folder(&path).unwrap()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Interrupted, "{err}");
        drop(theirs);
        // A child another test forked while `theirs` was open holds its lock until it execs.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let held = loop {
            match lock_new(path.clone(), open_folder(&path).unwrap()) {
                Err(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                other => break other.unwrap(),
            }
        };
        assert!(sweep_all().is_empty(), "a held folder is not swept");
        assert!(held.path().is_dir());
        // The sweep removed it before our open.
        let other = parent.path().join("judge-work-0000000000000002");
        let err = Held::make(other.clone(), |p| {
            std::fs::create_dir(p)?;
            sweep_all();
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Interrupted, "{err}");
    }
}
