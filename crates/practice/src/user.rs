//! Reading a file the way the user who started the server would.
//!
//! The judge runs as root (for its sandbox), usually through `sudo`, so a submission by `path`
//! must not let the page read what that user cannot: the file is opened on a short-lived thread
//! whose file-system uid, gid and groups are the user's (`setfsuid`, `setfsgid` and the raw
//! `setgroups` system call all change only the calling thread on Linux), so the kernel checks
//! every folder on the way and the file itself as it would for the user. The user is
//! `SUDO_UID`/`SUDO_GID` when root was reached through sudo, else the real uid and gid.
//! Errors name the path and the reason, never a byte of the file.

use std::io::Read;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<u32>,
}

impl User {
    /// The user who started the server.
    pub fn invoking() -> User {
        // SAFETY: getuid/getgid/geteuid have no preconditions.
        let (uid, gid, euid) = unsafe { (libc::getuid(), libc::getgid(), libc::geteuid()) };
        let from_env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok());
        let (uid, gid) = match (euid, from_env("SUDO_UID"), from_env("SUDO_GID")) {
            (0, Some(u), Some(g)) => (u, g),
            _ => (uid, gid),
        };
        User {
            uid,
            gid,
            groups: groups_of(uid, gid),
        }
    }

    pub fn describe(&self) -> String {
        format!("uid {}", self.uid)
    }
}

/// The supplementary groups of `uid` from the user database (just `gid` when it has no entry).
fn groups_of(uid: u32, gid: u32) -> Vec<u32> {
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: a zeroed passwd is a valid out-parameter for getpwuid_r.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local of the stated size.
    let r = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut found) };
    if r != 0 || found.is_null() {
        return vec![gid];
    }
    let mut groups = vec![0 as libc::gid_t; 256];
    let mut n = groups.len() as libc::c_int;
    // SAFETY: pw_name points into `buf`, alive here; `groups` holds `n` entries.
    let r = unsafe { libc::getgrouplist(pw.pw_name, gid, groups.as_mut_ptr(), &mut n) };
    if r < 0 || n < 0 {
        return vec![gid];
    }
    groups.truncate(n as usize);
    groups
}

/// Reads at most `cap` bytes of `path` as `user`; an error when it is larger, not a regular
/// file, or the user may not read it.
pub fn read_as(user: &User, path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let owned = path.to_path_buf();
    as_user(user, path, move || read_capped(&owned, cap))
}

/// Runs `read` (which reads `path`) with `user`'s file-system identity: on a thread of its own
/// when the judge runs as root for another user, else here.
pub fn as_user<T: Send + 'static>(
    user: &User,
    path: &Path,
    read: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root || user.uid == 0 {
        return read();
    }
    let user = user.clone();
    let reader = std::thread::Builder::new()
        .name("read-as-user".into())
        .spawn(move || {
            become_user_on_this_thread(&user)?;
            read()
        })
        .map_err(|e| format!("{}: cannot start a reader: {e}", path.display()))?;
    reader
        .join()
        .unwrap_or_else(|_| Err(format!("{}: the reader failed", path.display())))
}

/// Takes the user's file-system identity on the calling thread only (it ends with the thread).
fn become_user_on_this_thread(user: &User) -> Result<(), String> {
    let groups: Vec<libc::gid_t> = user.groups.clone();
    // SAFETY: the raw system call (not glibc's wrapper, which changes every thread) with a
    // pointer to `groups.len()` gids.
    let r = unsafe { libc::syscall(libc::SYS_setgroups, groups.len(), groups.as_ptr()) };
    if r != 0 {
        return Err(format!(
            "cannot take the groups of {}: {}",
            user.describe(),
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: setfsgid/setfsuid take plain ids and change only this thread.
    unsafe {
        libc::setfsgid(user.gid);
        libc::setfsuid(user.uid);
    }
    // Each returns the previous value: asking again tells whether the change took.
    // SAFETY: as above.
    let (fsuid, fsgid) = unsafe { (libc::setfsuid(user.uid), libc::setfsgid(user.gid)) };
    if fsuid as u32 != user.uid || fsgid as u32 != user.gid {
        return Err(format!("cannot read files as {}", user.describe()));
    }
    Ok(())
}

/// Reads at most `cap` bytes of the regular file `path` with this thread's identity (inside
/// [`as_user`]).
pub fn read_capped_as_caller(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    read_capped(path, cap)
}

fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > cap {
        return Err(format!(
            "{}: {} bytes, more than the {} KiB read at most",
            path.display(),
            meta.len(),
            cap / 1024
        ));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{}: larger than {} KiB",
            path.display(),
            cap / 1024
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_only_when_its_user_may() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::set_permissions(
            tmp.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let secret = tmp.path().join("secret.cpp");
        std::fs::write(&secret, "int main(){}").unwrap();
        let me = User::invoking();
        assert_eq!(read_as(&me, &secret, 100).unwrap(), b"int main(){}");
        let err = read_as(&me, &secret, 5).unwrap_err();
        assert!(
            err.contains("more than") && !err.contains("int main"),
            "{err}"
        );
        assert!(read_as(&me, tmp.path(), 100)
            .unwrap_err()
            .contains("not a regular file"));
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        std::os::unix::fs::chown(&secret, Some(0), Some(0)).unwrap();
        std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .unwrap();
        let nobody = User {
            uid: 65534,
            gid: 65534,
            groups: vec![65534],
        };
        let err = read_as(&nobody, &secret, 100).unwrap_err();
        assert!(err.contains("Permission denied"), "{err}");
        assert!(!err.contains("int main"), "{err}");
        // The thread's identity did not leak into this one.
        assert_eq!(read_capped(&secret, 100).unwrap(), b"int main(){}");
        std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .unwrap();
        assert_eq!(read_as(&nobody, &secret, 100).unwrap(), b"int main(){}");
    }
}
