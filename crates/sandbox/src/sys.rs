//! Thin wrappers over the Linux calls the sandbox needs and libc does not wrap.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::Path;

pub const OPEN_TREE_CLONE: libc::c_uint = 1;
pub const AT_RECURSIVE: libc::c_uint = 0x8000;
pub const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
pub const MOUNT_ATTR_RDONLY: u64 = 0x1;
pub const MOUNT_ATTR_NOSUID: u64 = 0x2;
pub const MOUNT_ATTR_NODEV: u64 = 0x4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

pub fn cstr(path: &Path) -> CString {
    CString::new(path.as_os_str().as_encoded_bytes()).expect("paths hold no NUL byte")
}

pub fn check(r: libc::c_long, what: impl FnOnce() -> String) -> io::Result<libc::c_long> {
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{}: {e}", what())));
    }
    Ok(r)
}

/// A detached copy of the mount tree at `path` (a bind mount not attached anywhere yet), made
/// read-only unless `writable`. It can be attached inside another mount namespace.
pub fn detached_bind(path: &Path, writable: bool) -> io::Result<OwnedFd> {
    let c = cstr(path);
    // SAFETY: c is a valid C string; the flags are documented open_tree flags.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            c.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | AT_RECURSIVE,
        )
    };
    let fd = check(fd, || format!("open_tree {}", path.display()))? as RawFd;
    // SAFETY: open_tree returned a new descriptor that nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if !writable {
        set |= MOUNT_ATTR_RDONLY;
    }
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let empty = c"";
    // SAFETY: attr is a valid mount_attr of the size passed; fd is an open_tree descriptor.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            std::os::fd::AsRawFd::as_raw_fd(&fd),
            empty.as_ptr(),
            libc::AT_EMPTY_PATH as libc::c_uint | AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(r, || format!("mount_setattr {}", path.display()))?;
    Ok(fd)
}

/// Attaches a detached mount at `target`.
pub fn attach(fd: RawFd, target: &CStr) -> io::Result<()> {
    let empty = c"";
    // SAFETY: both strings are valid; fd is a detached mount from open_tree.
    let r = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            fd,
            empty.as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    check(r, || format!("move_mount to {}", target.to_string_lossy())).map(|_| ())
}

/// `mount(2)` with optional source, type and data.
pub fn mount(
    source: Option<&CStr>,
    target: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> io::Result<()> {
    let p = |s: Option<&CStr>| s.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: every pointer is null or a valid C string.
    let r = unsafe { libc::mount(p(source), target.as_ptr(), p(fstype), flags, p(data).cast()) };
    check(r as libc::c_long, || {
        format!(
            "mount {} on {}",
            source.map_or("-".into(), |s| s.to_string_lossy().into_owned()),
            target.to_string_lossy()
        )
    })
    .map(|_| ())
}

pub fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall with integer arguments.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = check(fd, || format!("pidfd_open {pid}"))?;
    // SAFETY: a new descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

pub fn pidfd_kill(pidfd: RawFd) {
    // SAFETY: plain syscall; a stale pidfd just fails with ESRCH.
    unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd,
            libc::SIGKILL,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
}

/// A pipe with both ends close-on-exec: (read, write).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid out-array.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    check(r as libc::c_long, || "pipe2".into())?;
    // SAFETY: two new descriptors owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Closes every descriptor from 3 up except `keep`: a process forked from a worker holding
/// other runs' descriptors (their stdio pipes, standbys' sockets) keeps only its own. A copy
/// of a pipe's write end left in some process would keep the reader from ever seeing its end.
pub fn close_all_but(keep: &[RawFd]) {
    let mut keep: Vec<RawFd> = keep.iter().copied().filter(|&f| f >= 3).collect();
    keep.sort_unstable();
    keep.dedup();
    let mut from = 3u32;
    for fd in keep.into_iter().map(|f| f as u32) {
        if fd > from {
            // SAFETY: closing descriptors this process does not use.
            unsafe { libc::syscall(libc::SYS_close_range, from, fd - 1, 0u32) };
        }
        from = fd + 1;
    }
    // SAFETY: as above.
    unsafe { libc::syscall(libc::SYS_close_range, from, u32::MAX, 0u32) };
}

pub fn errno() -> i32 {
    // SAFETY: reading the thread's errno.
    unsafe { *libc::__errno_location() }
}

/// 64 random bits for names that must not collide between judges (zero if the kernel has no
/// entropy to give without blocking: callers add their pid and a counter).
pub fn random_u64() -> u64 {
    let mut random = 0u64;
    // SAFETY: getrandom fills at most the 8 bytes of `random`.
    unsafe { libc::getrandom((&mut random as *mut u64).cast(), 8, libc::GRND_NONBLOCK) };
    random
}
