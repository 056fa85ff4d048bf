//! The world every run of a worker shares, made once at the worker's start: the namespaces
//! (mount, network, IPC, UTS), a tmpfs root with read-only binds of the system folders
//! ([`SystemView`]), a /etc and /dev of its own, `pivot_root` into it; and the kernel's
//! `favordynmods` mode when asked.

use super::mounts::PREPARED_TOP;
use super::userns;
use crate::sys::{self, cstr};
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// System folders shown to every program (read-only) when they exist: the system's programs
/// and libraries. Nothing else of the host is shown but a run's own paths (a language's
/// toolchain, the build folder, a checker's files).
pub(super) const SYSTEM_DIRS: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
/// Files of the host's /etc shown to every program: the dynamic loader's cache (measured with
/// `strace -f -e trace=%file`, it is the only file of /etc that gcc, g++, rustc, python3 and the
/// programs they make open and need).
pub(super) const ETC_FILES: [&str; 1] = ["/etc/ld.so.cache"];
/// Debian's alternatives: /usr/bin/cc (rustc's linker), c++, java... are links through this
/// folder. Its links that point into the system folders are made again (but manual pages);
/// nothing else of it is shown.
pub(super) const ALTERNATIVES: &str = "/etc/alternatives";

/// What every program sees of the host, read-only, besides the paths of its run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemView {
    /// System folders, or links to them (such as /bin -> usr/bin).
    pub dirs: Vec<PathBuf>,
    /// Single files.
    pub files: Vec<PathBuf>,
    /// Links made again: (link, target).
    pub links: Vec<(PathBuf, PathBuf)>,
    /// Device nodes (/dev holds nothing else).
    pub devices: Vec<PathBuf>,
}

impl SystemView {
    /// The view on this machine.
    pub fn of_host() -> SystemView {
        let existing = |paths: &[&str]| -> Vec<PathBuf> {
            paths
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.symlink_metadata().is_ok())
                .collect()
        };
        SystemView {
            dirs: existing(&SYSTEM_DIRS),
            files: existing(&ETC_FILES),
            links: links_into(Path::new(ALTERNATIVES), &SYSTEM_DIRS),
            devices: DEVICES.iter().map(|d| Path::new("/dev").join(d)).collect(),
        }
    }
}

/// The links in `dir` that point into one of `folders`, with their targets, by name; manual
/// pages (`*.gz`) left out. A link is judged by its text alone. Measured on this machine's 387
/// alternatives, 320 of them manual pages (median wall time of `judge doctor`, which starts a
/// worker): following every link to its end added 5.6 ms to the worker's start, reading and
/// making them all 3.3 ms, the 67 others 0.6 to 1.1 ms.
pub(super) fn links_into(dir: &Path, folders: &[&str]) -> Vec<(PathBuf, PathBuf)> {
    let mut links: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.file_name().as_bytes().ends_with(b".gz"))
        .filter_map(|e| {
            let target = std::fs::read_link(e.path()).ok()?;
            let inside = target.is_absolute()
                && !target
                    .components()
                    .any(|c| c == std::path::Component::ParentDir)
                && folders.iter().any(|f| target.starts_with(f));
            inside.then(|| (e.path(), target))
        })
        .collect();
    links.sort();
    links
}
/// Device nodes made visible.
pub(super) const DEVICES: [&str; 5] = ["null", "zero", "full", "random", "urandom"];

/// Where the host's root stays reachable (root-only) in user-namespace mode, until each run init
/// has bound what it needs and detaches it.
pub(super) const OLD_ROOT: &str = "/.judge/old";

/// Turns on the kernel's `favordynmods` cgroup mode (Linux 6.0+) by mounting, and at once
/// unmounting, an empty named cgroup v1 hierarchy with that option, in the worker's own mount
/// namespace (on a folder in the future root, before the root's tmpfs covers it).
///
/// Every run moves its program into the run's cgroups. In the kernel's default mode, such a move
/// takes a lock whose write side waits for an RCU grace period (7 to 15 ms measured here) when no
/// move happened in the last few milliseconds: the first run after any pause, and a few in a
/// hundred otherwise. With the mode on, moves never wait. The mode is kernel-wide and lasts until
/// reboot (the kernel cannot turn it off); it makes fork and exit slightly dearer. The judge asks
/// for it only when the user does (JUDGE_CGROUP_FAVORDYNMODS=1, or `judge doctor --tune`, which
/// calls this on a thread in a mount namespace of its own).
pub(crate) fn favor_dynmods(root: &Path) -> Result<(), String> {
    let dir = root.join(".favordynmods");
    std::fs::create_dir(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let options = CString::new(format!(
        "none,name=judge-{}-{:016x},favordynmods",
        std::process::id(),
        sys::random_u64()
    ))
    .expect("no NUL");
    let target = cstr(&dir);
    let mounted = sys::mount(Some(c"none"), &target, Some(c"cgroup"), 0, Some(&options));
    if mounted.is_ok() {
        // SAFETY: umount2 on the folder just mounted; the hierarchy, empty, then goes away.
        unsafe { libc::umount2(target.as_ptr(), 0) };
    }
    let _ = std::fs::remove_dir(&dir);
    mounted.map_err(|e| e.to_string())
}

/// Prepares the root; returns the layers in force and, if asked, how turning `favordynmods`
/// on went.
pub(super) type Prepared = (Vec<(String, String)>, Option<Result<(), String>>);

pub(super) fn prepare(root: &Path, favordynmods: bool) -> io::Result<Prepared> {
    let mut layers = Vec::new();
    // SAFETY: unshare/sethostname with constant arguments.
    unsafe {
        let flags =
            libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
        sys::check(libc::unshare(flags) as libc::c_long, || {
            "unshare mount, network, IPC and UTS namespaces".into()
        })?;
        let host = b"judge";
        libc::sethostname(host.as_ptr().cast(), host.len());
    }
    layers.push((
        "network namespace".into(),
        "no network: only a loopback device that is down".into(),
    ));
    layers.push((
        "ipc and uts namespaces".into(),
        "private System V IPC and POSIX queues; hostname `judge`".into(),
    ));
    sys::mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None)?;
    let favordynmods = favordynmods.then(|| favor_dynmods(root));
    let r = cstr(root);
    sys::mount(
        Some(c"tmpfs"),
        &r,
        Some(c"tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(c"size=16m,nr_inodes=4096,mode=0755"),
    )?;
    let view = SystemView::of_host();
    let inside = |host: &Path| root.join(host.strip_prefix("/").unwrap_or(host));
    for host in &view.dirs {
        let meta = std::fs::symlink_metadata(host)?;
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(host)?, inside(host))?;
        } else if meta.is_dir() {
            std::fs::create_dir(inside(host))?;
            bind_read_only(host, &inside(host))?;
        }
    }
    // A /etc of its own: the few files every program needs and the alternatives' links.
    std::fs::create_dir_all(inside(Path::new(ALTERNATIVES)))?;
    for host in &view.files {
        std::fs::File::create(inside(host))?;
        bind_read_only(host, &inside(host))?;
    }
    for (link, target) in &view.links {
        std::os::unix::fs::symlink(target, inside(link))?;
    }
    // A minimal /dev: the harmless devices only.
    let dev = root.join("dev");
    std::fs::create_dir(&dev)?;
    sys::mount(
        Some(c"tmpfs"),
        &cstr(&dev),
        Some(c"tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some(c"size=64k,nr_inodes=64,mode=0755"),
    )?;
    for d in DEVICES {
        let inside = dev.join(d);
        std::fs::File::create(&inside)?;
        sys::mount(
            Some(&cstr(&Path::new("/dev").join(d))),
            &cstr(&inside),
            None,
            libc::MS_BIND,
            None,
        )?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(name))?;
    }
    sys::mount(
        None,
        &cstr(&dev),
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NOEXEC,
        None,
    )?;
    std::fs::create_dir(root.join("proc"))?;
    std::fs::create_dir(root.join("tmp"))?;
    if userns() {
        // The judge cannot hand over detached mounts without privileges: keep the host reachable
        // for the run inits (mode 0700), which bind what they need and then detach it.
        let hidden = root.join(OLD_ROOT.trim_start_matches('/'));
        std::fs::create_dir_all(&hidden)?;
        std::fs::set_permissions(
            hidden.parent().unwrap(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )?;
    }
    // SAFETY: chdir/pivot_root/umount2 on valid C strings.
    unsafe {
        sys::check(libc::chdir(r.as_ptr()) as libc::c_long, || {
            "chdir to the new root".into()
        })?;
        let dot = c".";
        if userns() {
            let old = cstr(Path::new(OLD_ROOT.trim_start_matches('/')));
            sys::check(
                libc::syscall(libc::SYS_pivot_root, dot.as_ptr(), old.as_ptr()),
                || "pivot_root".into(),
            )?;
        } else {
            sys::check(
                libc::syscall(libc::SYS_pivot_root, dot.as_ptr(), dot.as_ptr()),
                || "pivot_root".into(),
            )?;
            sys::check(
                libc::umount2(dot.as_ptr(), libc::MNT_DETACH) as libc::c_long,
                || "detach the old root".into(),
            )?;
        }
        sys::check(libc::chdir(c"/".as_ptr()) as libc::c_long, || {
            "chdir /".into()
        })?;
    }
    let top = std::fs::read_dir("/")?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<io::Result<Vec<_>>>()?;
    let _ = PREPARED_TOP.set(top);
    layers.push((
        "mount namespace and read-only root".into(),
        format!(
            "pivot_root into a tmpfs holding read-only {}, {}, {} links of {ALTERNATIVES}, /dev with {}, a private /proc and /tmp per run; nothing else of the host but each run's own paths",
            view.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(" "),
            view.files.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(" "),
            view.links.len(),
            DEVICES.join(" ")
        ),
    ));
    Ok((layers, favordynmods))
}

pub(super) fn bind_read_only(host: &Path, inside: &Path) -> io::Result<()> {
    bind(host, inside, false)
}

/// Binds `host` at `inside`, read-only unless `writable`, never setuid or devices. Flags the
/// source mount already has (noexec...) are kept: a user namespace may not drop them.
pub(super) fn bind(host: &Path, inside: &Path, writable: bool) -> io::Result<()> {
    let (h, i) = (cstr(host), cstr(inside));
    sys::mount(Some(&h), &i, None, libc::MS_BIND | libc::MS_REC, None)?;
    // SAFETY: statvfs is plain data filled by the call.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: i is a valid path; st a valid out-parameter.
    let kept = if unsafe { libc::statvfs(i.as_ptr(), &mut st) } == 0 {
        let f = st.f_flag;
        [
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ]
        .iter()
        .filter(|(st_flag, _)| f & st_flag != 0)
        .fold(0, |acc, (_, ms)| acc | ms)
    } else {
        0
    };
    let ro = if writable { 0 } else { libc::MS_RDONLY };
    sys::mount(
        None,
        &i,
        None,
        libc::MS_REMOUNT | libc::MS_BIND | ro | libc::MS_NOSUID | libc::MS_NODEV | kept,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys;

    /// The judge turns the cgroup mode on through a named v1 hierarchy, mounted and unmounted at
    /// once in a private mount namespace (this test's own thread's), leaving no folder behind.
    #[test]
    #[ignore = "turns on a kernel-wide cgroup mode until reboot; run with --ignored on a machine where that is wanted"]
    fn favordynmods_is_turned_on_without_leaving_a_mount_or_folder() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: mounting a cgroup hierarchy needs root");
            return;
        }
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        if release.split('.').next().unwrap().parse::<u32>().unwrap() < 6 {
            eprintln!("skipped: favordynmods needs Linux 6.0");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let result = std::thread::spawn(move || {
            // SAFETY: unshare of this thread's mount namespace (a thread has its own fs context).
            let r = unsafe { libc::unshare(libc::CLONE_NEWNS) };
            assert_eq!(r, 0, "unshare: {}", io::Error::last_os_error());
            sys::mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None).unwrap();
            favor_dynmods(&root)
        })
        .join()
        .unwrap();
        assert_eq!(result, Ok(()));
        assert!(!tmp.path().join(".favordynmods").exists());
    }

    /// Only alternatives' links into the system folders are made again, manual pages left out;
    /// a file or a link elsewhere (or climbing out with `..`) is not.
    #[test]
    fn alternatives_links_into_the_system_folders_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let link = |name: &str, target: &str| {
            std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
        };
        link("cc", "/usr/bin/gcc");
        link("java", "/usr/lib/jvm/java-17/bin/java");
        link("awk.1.gz", "/usr/share/man/man1/mawk.1.gz");
        link("secret", "/opt/x/secret");
        link("climb", "/usr/../etc/shadow");
        link("relative", "../../usr/bin/gcc");
        link("usrx", "/usrx/bin/tool");
        std::fs::write(dir.join("README"), "a file").unwrap();
        let found = links_into(dir, &["/usr", "/lib"]);
        let expected = vec![
            (dir.join("cc"), PathBuf::from("/usr/bin/gcc")),
            (
                dir.join("java"),
                PathBuf::from("/usr/lib/jvm/java-17/bin/java"),
            ),
        ];
        assert_eq!(found, expected);
    }

    /// The view never holds /etc, /opt or other host folders wholesale: only the system
    /// folders and single files of /etc.
    #[test]
    fn the_system_view_shows_no_host_folder_but_the_system_ones() {
        let view = SystemView::of_host();
        for d in &view.dirs {
            assert!(
                SYSTEM_DIRS.contains(&d.to_str().unwrap()),
                "{}",
                d.display()
            );
        }
        assert!(view.dirs.contains(&PathBuf::from("/usr")));
        for f in &view.files {
            assert!(f.starts_with("/etc") && !f.is_dir(), "{}", f.display());
        }
        for (l, _) in &view.links {
            assert!(l.starts_with(ALTERNATIVES), "{}", l.display());
        }
    }
}
