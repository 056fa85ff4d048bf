//! A run's private mounts, made by its init in its own mount namespace: /proc, /tmp, the
//! readable paths and the working folder (detached mounts from the judge, or binds of the host
//! in a user namespace), and the mount points they need ([`MountPoints`]).

use super::root::{bind, OLD_ROOT};
use super::standby::MountSpec;
use super::userns;
use crate::sys::{self, cstr};
use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The run's private mounts, in the init's new mount namespace.
pub(super) fn setup_mounts(spec: &MountSpec, mounts: &[OwnedFd]) -> io::Result<()> {
    sys::mount(
        Some(c"proc"),
        c"/proc",
        Some(c"proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(c"hidepid=2"),
    )?;
    let tmpfs_opts = |extra: &str| {
        CString::new(format!(
            "size={},nr_inodes={}{extra}",
            spec.tmpfs_bytes.max(4096),
            spec.tmpfs_inodes
        ))
        .unwrap()
    };
    sys::mount(
        Some(c"tmpfs"),
        c"/tmp",
        Some(c"tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&tmpfs_opts(",mode=1777")),
    )?;
    let workdir = PathBuf::from(OsStr::from_bytes(&spec.workdir));
    let mut points = MountPoints::default();
    if userns() {
        let host = |p: &Path| Path::new(OLD_ROOT).join(p.strip_prefix("/").unwrap_or(p));
        for path in &spec.readable {
            let target = PathBuf::from(OsStr::from_bytes(path));
            points.make(&target, host(&target).is_dir())?;
            bind(&host(&target), &target, false)?;
        }
        points.make(&workdir, true)?;
        if !spec.scratch_workdir {
            bind(&host(&workdir), &workdir, true)?;
        }
        // SAFETY: umount2 on a valid path; the host disappears from this run's view.
        let r = unsafe { libc::umount2(cstr(Path::new(OLD_ROOT)).as_ptr(), libc::MNT_DETACH) };
        sys::check(r as libc::c_long, || format!("detach {OLD_ROOT}"))?;
    } else {
        for (path, fd) in spec.readable.iter().zip(mounts) {
            let target = PathBuf::from(OsStr::from_bytes(path));
            points.make(&target, is_dir(fd.as_raw_fd()))?;
            sys::attach(fd.as_raw_fd(), &cstr(&target))?;
        }
        points.make(&workdir, true)?;
    }
    if spec.scratch_workdir {
        sys::mount(
            Some(c"tmpfs"),
            &cstr(&workdir),
            Some(c"tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
            Some(&tmpfs_opts(&format!(
                ",mode=0700,uid={},gid={}",
                spec.uid, spec.gid
            ))),
        )?;
    } else if !userns() {
        sys::attach(mounts[mounts.len() - 1].as_raw_fd(), &cstr(&workdir))?;
    }
    points.seal()?;
    sys::mount(
        None,
        c"/",
        None,
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
        None,
    )
}

pub(super) fn is_dir(fd: RawFd) -> bool {
    // SAFETY: stat is plain data filled by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open; st is a valid out-parameter.
    unsafe { libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR }
}

/// The top-level names of the prepared root (the system view, /etc, /dev, /proc, /tmp), set
/// once the worker has made it; the run inits, forked from the worker, inherit it.
pub(super) static PREPARED_TOP: std::sync::OnceLock<Vec<std::ffi::OsString>> =
    std::sync::OnceLock::new();

/// Makes the mount points of a run's paths, in the run init's own mount namespace.
///
/// The prepared root is one tmpfs shared by every run of the worker: a folder or file made
/// there stays for later runs to see (a checker's answer file as an empty file named `1.ans`,
/// a compiler's toolchain folder). So below a top-level folder the prepared root does not have
/// (/root, /work, /opt...), mount points are made in a private tmpfs of the run's, mounted on
/// that folder, and only the top-level folder itself (empty) stays in the shared root. Paths
/// under /tmp land in the run's private /tmp. Mount points under /etc stay (the names of the
/// paths languages list there).
#[derive(Default)]
pub(super) struct MountPoints {
    /// The private tmpfs mounted by this run, to make read-only once every mount is attached.
    private: Vec<PathBuf>,
}

impl MountPoints {
    /// Makes `path` (a folder, or an empty file) and its parents as root-owned,
    /// world-traversable mount points, unless it already exists.
    fn make(&mut self, path: &Path, dir: bool) -> io::Result<()> {
        if path.symlink_metadata().is_ok() {
            return Ok(());
        }
        let err = |e: io::Error| {
            io::Error::new(
                e.kind(),
                format!("create mount point {}: {e}", path.display()),
            )
        };
        let prepared = PREPARED_TOP
            .get()
            .ok_or_else(|| err(io::Error::other("the root is not prepared")))?;
        let top = match path.components().nth(1) {
            Some(std::path::Component::Normal(name)) => Path::new("/").join(name),
            _ => return Err(err(io::Error::other("not an absolute path"))),
        };
        let private = top != path
            && !prepared
                .iter()
                .any(|p| top.as_os_str() == Path::new("/").join(p))
            && !self.private.contains(&top);
        if private {
            exclusive(std::fs::create_dir(&top)).map_err(err)?;
            sys::mount(
                Some(c"tmpfs"),
                &cstr(&top),
                Some(c"tmpfs"),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                Some(c"size=64k,nr_inodes=1024,mode=0755"),
            )
            .map_err(err)?;
            self.private.push(top);
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(err)?;
        }
        let made = if dir {
            std::fs::create_dir(path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .map(drop)
        };
        exclusive(made).map_err(err)
    }

    /// Makes the private tmpfs read-only (the mounts attached below them keep their own flags).
    fn seal(&self) -> io::Result<()> {
        for top in &self.private {
            sys::mount(
                None,
                &cstr(top),
                None,
                libc::MS_REMOUNT
                    | libc::MS_BIND
                    | libc::MS_RDONLY
                    | libc::MS_NOSUID
                    | libc::MS_NODEV
                    | libc::MS_NOEXEC,
                None,
            )?;
        }
        Ok(())
    }
}

/// Another init (a standby being prepared) may make the same mount point at the same time.
pub(super) fn exclusive(made: io::Result<()>) -> io::Result<()> {
    match made {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}
