//! A judge's work folder kept in memory, seen by this judge alone.
//!
//! A judging service makes and removes a handful of files for every test (the run's folder, its
//! output and error files, a build folder per submission). On a disk filesystem each costs an
//! inode allocation and, when removed, the freeing of its blocks: on ext4 mounted with
//! `discard`, a synchronous discard. On a tmpfs none of that happens.
//!
//! [`mount`] gives the calling thread a mount namespace of its own (a copy of the host's, which
//! goes on receiving the host's mounts) and mounts a tmpfs on the work folder there. The threads
//! and processes that thread starts afterwards (the judging slots, the sandbox workers) share it;
//! nothing else on the machine sees the tmpfs, and it goes when the last of them ends, however
//! they end: a judge killed with SIGKILL leaves an empty folder (removed by the next judge's
//! sweep, see `crate::leftovers`), never a mount. Needs root (`CAP_SYS_ADMIN`); without it the
//! folder stays on disk.

use crate::sys;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A tmpfs mounted on a work folder, in this judge's own mount namespace.
#[derive(Debug)]
pub struct MemoryFolder {
    path: PathBuf,
    /// The tmpfs's root, locked: in this namespace the folder's path leads to it, not to the
    /// held folder under it, and a sweep of leftovers run from here (a sandbox worker starting)
    /// must find it held too.
    _lock: std::fs::File,
}

/// Mounts a tmpfs (mode 0700) on `dir`, in a mount namespace of the calling thread's own. Call
/// it before the thread starts the threads and processes that use `dir`. `Err(why)` when this
/// process may not (not root) or the kernel refuses; the folder is then left as it was.
pub fn mount(dir: &Path) -> Result<MemoryFolder, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("only root may mount a tmpfs".into());
    }
    // SAFETY: unshare with a constant flag; it changes this thread's namespaces only.
    let r = unsafe { libc::unshare(libc::CLONE_NEWNS) };
    sys::check(r as libc::c_long, || "unshare a mount namespace".into())
        .map_err(|e| e.to_string())?;
    let root = sys::cstr(Path::new("/"));
    // Our mounts stay ours; the host's still reach us (a package folder mounted later, say).
    // SAFETY: mount with valid C strings and null data.
    let r = unsafe {
        libc::mount(
            std::ptr::null(),
            root.as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        )
    };
    sys::check(r as libc::c_long, || {
        "make / a slave mount in the new namespace".into()
    })
    .map_err(|e| e.to_string())?;
    let (source, kind, target) = (c"judge-work", c"tmpfs", sys::cstr(dir));
    // SAFETY: mount with valid C strings.
    let r = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            kind.as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            c"mode=0700".as_ptr().cast(),
        )
    };
    sys::check(r as libc::c_long, || {
        format!("mount a tmpfs on {}", dir.display())
    })
    .map_err(|e| e.to_string())?;
    let lock = std::fs::File::open(dir)
        .and_then(|f| {
            // SAFETY: flock on a descriptor we own.
            match unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
                0 => Ok(f),
                _ => Err(io::Error::last_os_error()),
            }
        })
        .map_err(|e| format!("lock the tmpfs on {}: {e}", dir.display()));
    let lock = match lock {
        Ok(lock) => lock,
        Err(why) => {
            // SAFETY: umount2 with a valid C string.
            unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
            return Err(why);
        }
    };
    Ok(MemoryFolder {
        path: dir.to_path_buf(),
        _lock: lock,
    })
}

impl MemoryFolder {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Unmounts the tmpfs (freeing what is in it), leaving the empty folder under it.
    pub fn unmount(self) -> io::Result<()> {
        let target = sys::cstr(&self.path);
        // SAFETY: umount2 with a valid C string.
        sys::check(
            unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) } as libc::c_long,
            || format!("unmount the tmpfs on {}", self.path.display()),
        )
        .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a thread of its own (the namespace is the thread's): files written under the folder
    /// are in the tmpfs, invisible from the host's namespace, and gone once unmounted.
    #[test]
    fn the_folder_is_in_memory_and_seen_by_this_thread_alone() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            // Without root nothing is mounted, and the caller keeps the folder on disk.
            let dir = tempfile::tempdir().unwrap();
            assert!(mount(dir.path()).unwrap_err().contains("root"));
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let inside = path.clone();
        let (mounted, seen_inside) = std::thread::spawn(move || {
            let folder = mount(&inside).unwrap();
            std::fs::write(inside.join("stdout"), "42\n").unwrap();
            // A sweep of leftovers run from this namespace finds the folder held.
            let parent = inside.parent().unwrap();
            let name = inside.file_name().unwrap().to_str().unwrap().to_string();
            let swept = crate::leftovers::sweep(parent, |n| n == name, |_| true);
            assert!(swept.is_empty(), "{swept:?}");
            let fs_type = statfs_type(&inside);
            // A thread started from here shares the namespace.
            let child = inside.clone();
            let seen = std::thread::spawn(move || std::fs::read_to_string(child.join("stdout")))
                .join()
                .unwrap()
                .unwrap();
            // The host's namespace (this test's other threads) does not see the file.
            (fs_type, (seen, folder))
        })
        .join()
        .unwrap();
        assert_eq!(mounted, libc::TMPFS_MAGIC, "a tmpfs is mounted there");
        assert_eq!(seen_inside.0, "42\n");
        assert!(
            !path.join("stdout").exists(),
            "the host's namespace sees the folder empty"
        );
        assert_ne!(statfs_type(&path), libc::TMPFS_MAGIC);
        // The namespace ended with its thread; unmounting from here finds no mount.
        assert!(seen_inside.1.unmount().is_err());
    }

    fn statfs_type(path: &Path) -> libc::c_long {
        let c = sys::cstr(path);
        // SAFETY: statfs is plain data filled by the call.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: valid C string and out-parameter.
        assert_eq!(unsafe { libc::statfs(c.as_ptr(), &mut st) }, 0);
        st.f_type as libc::c_long
    }
}
