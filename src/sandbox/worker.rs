//! The sandbox worker: a separate process (`judge __sandbox-worker ROOT`) that prepares an
//! isolated world once and then starts runs in it on request.
//!
//! Once, at start: new mount, network, IPC and UTS namespaces; a tmpfs at ROOT holding read-only
//! bind mounts of the system directories (/usr, /bin, /sbin, /lib*), a /etc of its own (the
//! loader's cache and the alternatives' links, see [`SystemView`]), a minimal /dev and empty
//! /proc and /tmp; `pivot_root` into it. This is the expensive part (~15 ms) and is done once per
//! worker, not per run.
//!
//! Per run (cheap): a run init, cloned with a new PID, mount and IPC namespace, mounts a private
//! /proc and /tmp, attaches the run's working directory and readable paths (detached mounts
//! prepared by the judge), makes its root read-only, and locks itself down (default signals, an
//! empty capability bounding set, `no_new_privs`, the seccomp filter). Then it waits for its
//! run: it forks the program and reaps everything until the program ends. The program joins
//! the run's cgroup, gets its stdio and rlimits, drops to an unprivileged uid/gid and execs;
//! it inherits the rest from the init. When the init exits, the kernel kills whatever is left
//! in its PID namespace, and the mount namespace with its tmpfs mounts disappears.
//!
//! A standby goes further: it starts the program's process ahead of time too (sharing the
//! init's memory, posix_spawn-style), which joins the cgroup of the run it is meant for (the judge
//! sends that cgroup along with the run before) and then waits for its request itself. Moving a
//! process into a cgroup may wait for an RCU grace period (10 ms or more) in the kernel's default
//! mode: it happens then while the previous run goes on. What that process does in the run's
//! cgroup before its exec (receiving and reading the request, stdio, rlimits, ids) counts as the
//! run's CPU time, as its start did when it joined right after the clone: some tens of
//! microseconds more. Its memory is the init's until the exec, as before (charged outside the
//! run), and the init itself stays outside the run's cgroup, so its exit, which tears its
//! namespaces down, is never the run's.
//!
//! Inits are made ahead of time (as root): while a run goes on, the worker clones the init of
//! the next run with the same mounts (a "standby"); a request with the same mounts only hands
//! it the program, so namespaces, mounts and the seccomp filter cost nothing on the run's path.
//! The judge sends the detached mounts of each run for the next standby; the worker uses a
//! standby only if the mounts are the very same folders (same device and inode, which cannot be
//! reused while the standby holds the old ones), and otherwise starts an init for the run. It
//! keeps the standbys of the last two kinds of runs (a solution's tests and a custom checker take
//! turns), and makes one only for a kind of run it saw lately (each checker run reads other
//! files, so a standby for it would never serve).

use super::seccomp;
use super::sys::{self, cstr};
use super::wire::{self, Reply, Request};
use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// System folders shown to every program (read-only) when they exist: the system's programs
/// and libraries. Nothing else of the host is shown but a run's own paths (a language's
/// toolchain, the build folder, a checker's files).
const SYSTEM_DIRS: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
/// Files of the host's /etc shown to every program: the dynamic loader's cache (measured with
/// `strace -f -e trace=%file`, it is the only file of /etc that gcc, g++, rustc, python3 and the
/// programs they make open and need).
const ETC_FILES: [&str; 1] = ["/etc/ld.so.cache"];
/// Debian's alternatives: /usr/bin/cc (rustc's linker), c++, java... are links through this
/// folder. Its links that point into the system folders are made again (but manual pages);
/// nothing else of it is shown.
const ALTERNATIVES: &str = "/etc/alternatives";

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
fn links_into(dir: &Path, folders: &[&str]) -> Vec<(PathBuf, PathBuf)> {
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
const DEVICES: [&str; 5] = ["null", "zero", "full", "random", "urandom"];
/// The worker's socket, moved here from stdin at start.
const SOCKET_FD: RawFd = 3;
/// Where the host's root stays reachable (root-only) in user-namespace mode, until each run init
/// has bound what it needs and detaches it.
const OLD_ROOT: &str = "/.judge/old";

/// Without root, the worker makes its own user namespace (the invoking user becomes root inside,
/// mapped to itself outside): namespaces and mounts work, but there is no other uid to drop to
/// and no cgroup.
static USERNS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn userns() -> bool {
    USERNS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Enters a new user namespace mapping the invoking user and group to root inside.
fn enter_userns() -> io::Result<()> {
    // SAFETY: getuid/getgid/unshare with constant arguments.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: unshare with a constant flag.
    let r = unsafe { libc::unshare(libc::CLONE_NEWUSER) };
    sys::check(r as libc::c_long, || {
        "unshare a user namespace (unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces)".into()
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|e| io::Error::new(e.kind(), format!("{file}: {e}")))
    };
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("0 {uid} 1"))?;
    write("/proc/self/gid_map", format!("0 {gid} 1"))?;
    Ok(())
}

/// Entry point of `judge __sandbox-worker ROOT`. The socket to the judge is stdin.
pub fn main(args: &[String]) -> i32 {
    // SAFETY: fd juggling at start-up, before any other descriptor exists.
    unsafe {
        if libc::dup3(0, SOCKET_FD, libc::O_CLOEXEC) < 0 {
            return 2;
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::close(null);
        }
        // The judge going away takes the worker with it.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    // SAFETY: SOCKET_FD was just created above and belongs to this function.
    let sock = unsafe { OwnedFd::from_raw_fd(SOCKET_FD) };
    let flag = |f: &str| args.iter().skip(1).any(|a| a == f);
    if flag("--userns") {
        USERNS.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Err(e) = enter_userns() {
            let _ = wire::send_json(&sock, &Reply::Unavailable { why: e.to_string() }, &[]);
            return 1;
        }
    }
    let Some(root) = args.first() else {
        let _ = wire::send_json(
            &sock,
            &Reply::Unavailable {
                why: "no root folder given".into(),
            },
            &[],
        );
        return 2;
    };
    match prepare(Path::new(root), flag("--favordynmods")) {
        Ok((layers, favordynmods)) => {
            let ready = Reply::Ready {
                layers,
                favordynmods,
            };
            if wire::send_json(&sock, &ready, &[]).is_err() {
                return 1;
            }
        }
        Err(e) => {
            let _ = wire::send_json(&sock, &Reply::Unavailable { why: e.to_string() }, &[]);
            return 1;
        }
    }
    let filter = if flag("--no-memory-cgroup") {
        // The watchdog counts processes: refuse memory that no process would hold.
        let mut deny = seccomp::denied();
        deny.extend(seccomp::uncounted_memory());
        seccomp::program_denying(&deny)
    } else {
        seccomp::program()
    };
    let mut stack = vec![0u8; CHILD_STACK];
    serve(&sock, &filter, &mut stack);
    0
}

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
pub(super) fn favor_dynmods(root: &Path) -> Result<(), String> {
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
type Prepared = (Vec<(String, String)>, Option<Result<(), String>>);

fn prepare(root: &Path, favordynmods: bool) -> io::Result<Prepared> {
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

fn bind_read_only(host: &Path, inside: &Path) -> io::Result<()> {
    bind(host, inside, false)
}

/// Binds `host` at `inside`, read-only unless `writable`, never setuid or devices. Flags the
/// source mount already has (noexec...) are kept: a user namespace may not drop them.
fn bind(host: &Path, inside: &Path, writable: bool) -> io::Result<()> {
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

/// Serves requests until the judge closes the socket.
///
/// Every run gets a fresh init, but inits are made ahead of time: while a run goes on, the
/// worker starts a standby init with the same mounts, which sets them up and installs the
/// seccomp filter; the next request with the same mounts only has to hand it the program. A
/// request with other mounts starts an init of its own. The worker keeps the standbys of the
/// last [`STANDBYS`] kinds of runs: a solution's tests and a custom checker take turns.
fn serve(sock: &OwnedFd, filter: &[seccomp::Insn], stack: &mut [u8]) {
    let mut standbys: Vec<RunInit> = Vec::new();
    let mut recent = Recent::default();
    loop {
        reap();
        let (req, fds) = match wire::recv_json::<Request>(sock) {
            Ok(Some(m)) => m,
            Ok(None) | Err(_) => return,
        };
        let reply = start(&req, fds, filter, stack, sock, &mut standbys, &mut recent);
        if wire::send_json(sock, &reply, &[]).is_err() {
            return;
        }
    }
}

/// Collects finished run inits without blocking.
fn reap() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on any child, non-blocking.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if r <= 0 {
            return;
        }
    }
}

/// What the run init tells the worker through its result pipe.
#[derive(serde::Serialize, serde::Deserialize)]
enum InitReport {
    Finished {
        status: i32,
        wall_nanos: u64,
        cpu_nanos: u64,
        max_rss: u64,
        watched: Option<super::watch::Watched>,
    },
    Failed {
        why: String,
    },
}

/// What a run init mounts: two runs with equal specs (and the same folders behind their detached
/// mounts) can use the same kind of init.
#[derive(Clone, PartialEq, Eq)]
struct MountSpec {
    readable: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    scratch_workdir: bool,
    tmpfs_bytes: u64,
    tmpfs_inodes: u64,
    uid: u32,
    gid: u32,
    /// (device, inode) behind each detached mount. The standby holds its mounts open, so a
    /// folder removed and made again under the same name cannot have the same inode.
    sources: Vec<(u64, u64)>,
}

/// (device, inode) of the folder or file behind each mount.
fn sources(mounts: &[OwnedFd]) -> Vec<(u64, u64)> {
    mounts
        .iter()
        .map(|f| {
            // SAFETY: stat is plain data filled by fstat.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: f is open; st is a valid out-parameter.
            if unsafe { libc::fstat(f.as_raw_fd(), &mut st) } == 0 {
                (st.st_dev, st.st_ino)
            } else {
                (u64::MAX, u64::MAX)
            }
        })
        .collect()
}

impl MountSpec {
    /// The same mounts, whatever folders are behind them.
    fn same_kind(&self, other: &MountSpec) -> bool {
        let (mut a, mut b) = (self.clone(), other.clone());
        a.sources.clear();
        b.sources.clear();
        a == b
    }

    fn of(req: &Request, mounts: &[OwnedFd]) -> MountSpec {
        let sources = sources(mounts);
        MountSpec {
            readable: req.readable.clone(),
            workdir: req.workdir.clone(),
            scratch_workdir: req.scratch_workdir,
            tmpfs_bytes: req.tmpfs_bytes,
            tmpfs_inodes: req.tmpfs_inodes,
            uid: req.uid,
            gid: req.gid,
            sources,
        }
    }
}

/// The kinds of the last few runs (their mounts, whatever folders are behind them).
#[derive(Default)]
struct Recent(Vec<MountSpec>);

/// How many kinds of runs [`Recent`] remembers (the judge keeps the same list).
pub const RECENT: usize = 4;

impl Recent {
    const KEPT: usize = RECENT;

    /// Whether a run of this kind came lately; remembers this one.
    fn saw(&mut self, spec: &MountSpec) -> bool {
        let mut kind = spec.clone();
        kind.sources.clear();
        let seen = self.0.contains(&kind);
        self.0.retain(|k| *k != kind);
        self.0.push(kind);
        if self.0.len() > Self::KEPT {
            self.0.remove(0);
        }
        seen
    }
}

/// A run init with its mounts in place, waiting for its program: the run's own, or a standby
/// kept for a run to come.
struct RunInit {
    pidfd: OwnedFd,
    /// The request and the run's descriptors go to the init through this socket.
    control: OwnedFd,
    /// The init's one-line report.
    result: OwnedFd,
    spec: MountSpec,
    /// The detached mounts the init attached, held so that `spec.sources` stay unique.
    _mounts: Vec<OwnedFd>,
}

/// (device, inode) of the file behind each descriptor (cgroup.procs files tell cgroups apart
/// so: kernfs gives every cgroup file an inode number of its own).
fn identities(fds: &[OwnedFd]) -> Vec<(u64, u64)> {
    sources(fds)
}

impl RunInit {
    /// Clones an init with a new PID, mount and IPC namespace; it sets up `spec`, then waits for
    /// its program on the control socket. A standby (`join` given: the `cgroup.procs` files of
    /// the run it is meant for, when known) forks the program's process at once, which joins
    /// them.
    fn spawn(
        spec: MountSpec,
        mounts: Vec<OwnedFd>,
        join: Option<Vec<OwnedFd>>,
        filter: &[seccomp::Insn],
        stack: &mut [u8],
    ) -> io::Result<RunInit> {
        let (result_r, result_w) = sys::pipe()?;
        let (control, control_init) = wire::socket_pair()?;
        // SAFETY: the worker is single-threaded, so the child may allocate. The raw clone
        // behaves like fork (no new stack) with a new PID, mount and IPC namespace for the
        // child: System V IPC objects live in the namespace, not in a process, so a run's own
        // namespace is what keeps one run's shared memory, queues and semaphores from the next.
        let pid = unsafe {
            libc::syscall(
                libc::SYS_clone,
                (libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::SIGCHLD)
                    as libc::c_ulong,
                0usize,
                0usize,
                0usize,
                0usize,
            )
        };
        if pid < 0 {
            return Err(io::Error::other(format!(
                "clone a run: {}",
                io::Error::last_os_error()
            )));
        }
        if pid == 0 {
            drop(result_r);
            drop(control);
            // SAFETY: the init does not talk to the judge.
            unsafe { libc::close(SOCKET_FD) };
            let report = init(&spec, &mounts, join, control_init, filter, stack);
            if let Some(report) = report {
                let mut bytes = serde_json::to_vec(&report).unwrap_or_default();
                bytes.push(b'\n');
                // SAFETY: writing a small message to our pipe.
                unsafe { libc::write(result_w.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
            }
            // SAFETY: leaving without running destructors.
            unsafe { libc::_exit(0) };
        }
        let pid = pid as libc::pid_t;
        drop(result_w);
        drop(control_init);
        drop(join);
        let pidfd = match sys::pidfd_open(pid) {
            Ok(fd) => fd,
            Err(e) => {
                // SAFETY: killing our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                return Err(e);
            }
        };
        Ok(RunInit {
            pidfd,
            control,
            result: result_r,
            spec,
            _mounts: mounts,
        })
    }

    /// Hands the run to the init. False if the init is gone (its report, if any, is still in
    /// the result pipe).
    fn hand_over(&self, req: &Request, fds: &[OwnedFd]) -> bool {
        let raw: Vec<RawFd> = fds.iter().map(|f| f.as_raw_fd()).collect();
        wire::send_json(&self.control, req, &raw).is_ok()
    }

    /// Why an init that would not take its run ended.
    fn ended_early(&self) -> EndedEarly {
        match self.report() {
            Reply::Failed { why } => EndedEarly::SetUpFailed(why),
            _ => EndedEarly::Killed,
        }
    }

    /// Reads the init's report until it exits.
    fn report(&self) -> Reply {
        // One line; the init may still be tearing down its namespaces after writing it.
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while !buf.ends_with(b"\n") {
            // SAFETY: reading into a local buffer from our pipe.
            let n = unsafe {
                libc::read(
                    self.result.as_raw_fd(),
                    chunk.as_mut_ptr().cast(),
                    chunk.len(),
                )
            };
            match n {
                0 => break,
                n if n > 0 => buf.extend_from_slice(&chunk[..n as usize]),
                _ if sys::errno() == libc::EINTR => {}
                _ => break,
            }
        }
        match serde_json::from_slice::<InitReport>(&buf) {
            Ok(InitReport::Finished {
                status,
                wall_nanos,
                cpu_nanos,
                max_rss,
                watched,
            }) => Reply::Finished {
                status,
                wall_nanos,
                cpu_nanos,
                max_rss,
                standby: false,
                watched,
            },
            Ok(InitReport::Failed { why }) => Reply::Failed { why },
            // The init was killed (by the judge, for a limit): so was everything in its namespace.
            Err(_) => Reply::Finished {
                status: libc::SIGKILL,
                wall_nanos: 0,
                cpu_nanos: 0,
                max_rss: 0,
                standby: false,
                watched: None,
            },
        }
    }
}

/// An init that ended before its run.
enum EndedEarly {
    /// Its mounts or lock-down failed (the same run would fail again).
    SetUpFailed(String),
    /// It was killed from outside.
    Killed,
}

impl From<EndedEarly> for Reply {
    fn from(e: EndedEarly) -> Reply {
        let why = match e {
            EndedEarly::SetUpFailed(why) => why,
            EndedEarly::Killed => "the run's init was killed before the run".into(),
        };
        Reply::Failed { why }
    }
}

impl Drop for RunInit {
    fn drop(&mut self) {
        // Through the pidfd: the init may have ended and been reaped, and its pid reused.
        sys::pidfd_kill(self.pidfd.as_raw_fd());
    }
}

/// How many standby inits a worker keeps, for as many kinds of runs (by their mounts).
pub const STANDBYS: usize = 2;

/// Runs one request, and leaves a standby init for the next one when it can.
///
/// The request's detached mounts come in `mount_sets` equal sets: the first for this run when
/// the standby does not match, the last for the next run's standby (root only: in a user
/// namespace the init binds host paths by name, and a name may mean another folder by then).
fn start(
    req: &Request,
    mut fds: Vec<OwnedFd>,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
    sock: &OwnedFd,
    standbys: &mut Vec<RunInit>,
    recent: &mut Recent,
) -> Reply {
    let fixed = 3 + req.cgroup_fds;
    let per_set = if userns() {
        0
    } else {
        req.readable.len() + usize::from(!req.scratch_workdir)
    };
    let sets = req.mount_sets;
    let expected = fixed + req.next_cgroup_fds + per_set * sets;
    if fds.len() != expected || userns() != (sets == 0) || sets > 2 {
        let why = format!(
            "expected {expected} descriptors in 1 or 2 mount sets (0 in a user namespace), got {} descriptors and {sets} sets",
            fds.len()
        );
        return Reply::Failed { why };
    }
    let mut mounts = fds.split_off(fixed + req.next_cgroup_fds);
    let next_cgroups = fds.split_off(fixed);
    let mut sets: Vec<Vec<OwnedFd>> = (0..sets)
        .map(|_| {
            let rest = mounts.split_off(per_set);
            std::mem::replace(&mut mounts, rest)
        })
        .collect();
    let first = sets.first().map(Vec::as_slice).unwrap_or_default();
    let spec = MountSpec::of(req, first);
    // Whether runs like this one repeat (a custom checker's runs each read other files: a
    // standby for them would never serve).
    let repeats = recent.saw(&spec);
    let matched = standbys.iter().position(|s| s.spec == spec);
    let mut init = match matched {
        Some(i) => standbys.remove(i),
        None => {
            // A standby of this kind with other folders behind its mounts never serves (and it
            // may sit in the cgroup the judge gave this run): it goes.
            standbys.retain(|s| !s.spec.same_kind(&spec));
            let set = if sets.is_empty() {
                Vec::new()
            } else {
                sets.remove(0)
            };
            match RunInit::spawn(spec, set, None, filter, stack) {
                Ok(s) => s,
                Err(e) => return Reply::Failed { why: e.to_string() },
            }
        }
    };
    if !init.hand_over(req, &fds) {
        // The init ended before its run: a failed set-up says why. A standby that ended with
        // nothing to say was killed from outside: the run gets a fresh init from its own set.
        let ended = init.ended_early();
        if matched.is_none() || sets.is_empty() || matches!(ended, EndedEarly::SetUpFailed(_)) {
            return ended.into();
        }
        let spec = MountSpec::of(req, &sets[0]);
        init = match RunInit::spawn(spec, sets.remove(0), None, filter, stack) {
            Ok(s) => s,
            Err(e) => return Reply::Failed { why: e.to_string() },
        };
        if !init.hand_over(req, &fds) {
            return init.ended_early().into();
        }
    }
    // The program alone holds its stdio now.
    drop(fds);
    if let Err(e) = wire::send_json(sock, &Reply::Started, &[init.pidfd.as_raw_fd()]) {
        let why = format!("report the start of a run: {e}");
        return Reply::Failed { why };
    }
    // While the program runs, the next run's init gets ready.
    let mut ready = false;
    if let Some(set) = sets.pop().filter(|_| repeats) {
        let spec = MountSpec::of(req, &set);
        if let Ok(s) = RunInit::spawn(spec, set, Some(next_cgroups), filter, stack) {
            // One standby per kind of run (one left with other folders behind its mounts
            // would never serve), the judge keeps the same list.
            standbys.retain(|old| !old.spec.same_kind(&s.spec));
            standbys.push(s);
            ready = true;
            if standbys.len() > STANDBYS {
                // The least recently made goes (the judge keeps the same list).
                standbys.remove(0);
            }
        }
    }
    // Sets left unused close here; the new standby holds copies, so closing them does not
    // wait for the kernel to dissolve a detached mount.
    drop(sets);
    let reply = init.report();
    match reply {
        Reply::Finished {
            status,
            wall_nanos,
            cpu_nanos,
            max_rss,
            watched,
            ..
        } => Reply::Finished {
            status,
            wall_nanos,
            cpu_nanos,
            max_rss,
            standby: ready,
            watched,
        },
        other => other,
    }
}

/// The run's init (PID 1 of the run's namespace): sets up the mounts, then waits for the run
/// on `control`. Returns what to report (nothing when the worker dropped it unused). `join` is
/// `Some` for a standby: its program's process is forked at once and joins those cgroups.
fn init(
    spec: &MountSpec,
    mounts: &[OwnedFd],
    join: Option<Vec<OwnedFd>>,
    control: OwnedFd,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
) -> Option<InitReport> {
    // SAFETY: plain prctl; if the worker is already gone, leave.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    if let Err(e) = setup_mounts(spec, mounts) {
        return Some(InitReport::Failed { why: e.to_string() });
    }
    if let Err(why) = lock_down(filter) {
        return Some(InitReport::Failed { why });
    }
    if let Some(join) = join {
        return run_ahead(join, control, stack);
    }
    let (req, fds) = match wire::recv_json::<Request>(&control) {
        Ok(Some(m)) => m,
        Ok(None) | Err(_) => return None,
    };
    if fds.len() != 3 + req.cgroup_fds {
        return Some(InitReport::Failed {
            why: format!("the run init got {} descriptors", fds.len()),
        });
    }
    Some(run(&req, fds, stack))
}

/// Moves the calling process into the cgroup whose `cgroup.procs` is open as `fd`.
fn join_cgroup(fd: RawFd) -> io::Result<()> {
    // SAFETY: writing one byte from a constant to a descriptor we hold.
    if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } == 1 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What the init can do for the program before it is asked to: everything it inherits that
/// does not depend on the run. Default signal dispositions and an empty mask (the worker ignores
/// SIGPIPE); an empty capability bounding set (no exec can gain a capability; the init keeps
/// the ones it has); `no_new_privs`; the seccomp filter (the init needs no denied call after its
/// mounts, and the program inherits the filter).
fn lock_down(filter: &[seccomp::Insn]) -> Result<(), String> {
    // SAFETY: plain signal, prctl and sigprocmask calls.
    unsafe {
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                match sys::errno() {
                    libc::EINVAL => break,
                    e => {
                        let e = io::Error::from_raw_os_error(e);
                        return Err(format!("empty the capability bounding set: {e}"));
                    }
                }
            }
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(format!("set no_new_privs: {}", io::Error::last_os_error()));
        }
    }
    seccomp::install(filter).map_err(|errno| {
        let e = io::Error::from_raw_os_error(errno);
        format!("install the seccomp filter: {e}")
    })
}

/// The program, its arguments, environment and working folder as C strings.
type Strings = (CString, Vec<CString>, Vec<CString>, CString);

fn strings(req: &Request) -> Result<Strings, String> {
    let cstring = |b: &[u8]| {
        CString::new(b.to_vec()).map_err(|_| "a NUL byte in a path or argument".to_string())
    };
    let program = cstring(&req.program)?;
    let mut argv = vec![program.clone()];
    for a in &req.args {
        argv.push(cstring(a)?);
    }
    let env = req
        .env
        .iter()
        .map(|e| cstring(e))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((program, argv, env, cstring(&req.workdir)?))
}

/// NULL-terminated pointer arrays over `strings`.
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    let mut p: Vec<*const libc::c_char> = strings.iter().map(|a| a.as_ptr()).collect();
    p.push(std::ptr::null());
    p
}

/// Starts the program and reaps everything until it ends. Its process joins the run's cgroups
/// right after the fork.
fn run(req: &Request, fds: Vec<OwnedFd>, stack: &mut [u8]) -> InitReport {
    let (program, argv, env, workdir) = match strings(req) {
        Ok(p) => p,
        Err(why) => return InitReport::Failed { why },
    };
    let (argv_p, env_p) = (pointers(&argv), pointers(&env));
    let watch = watch_of(req);
    let (err_r, err_w) = match sys::pipe() {
        Ok(p) => p,
        Err(e) => return InitReport::Failed { why: e.to_string() },
    };
    let exec = Exec {
        program: &program,
        argv: &argv_p,
        env: &env_p,
        workdir: &workdir,
        stdio: [fds[0].as_raw_fd(), fds[1].as_raw_fd(), fds[2].as_raw_fd()],
        cgroups: fds[3..3 + req.cgroup_fds]
            .iter()
            .map(|f| f.as_raw_fd())
            .collect(),
        err_w: err_w.as_raw_fd(),
        req,
        userns: userns(),
    };
    // The program's process starts like posix_spawn does: sharing the init's memory (no page
    // tables to copy) on its own stack, while the init waits until it has exec'd or failed.
    extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: arg is the &Exec passed below, alive while the init is suspended (CLONE_VFORK).
        let exec = unsafe { &*(arg as *const Exec) };
        exec.run()
    }
    let start = now();
    // SAFETY: the stack is ours and large enough; the child only makes async-signal-safe calls
    // on data prepared beforehand, and ends in execve or _exit.
    let pid = unsafe {
        // 16-byte aligned top of the stack (it grows down).
        let top = stack.as_mut_ptr().add(stack.len() - 64);
        let top = top.sub(top as usize % 16);
        libc::clone(
            child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            &exec as *const Exec as *mut libc::c_void,
        )
    };
    if pid < 0 {
        return InitReport::Failed {
            why: format!("start the program: {}", io::Error::last_os_error()),
        };
    }
    drop(err_w);
    // The program alone holds its stdio now.
    drop(fds);
    let failure = read_failure(&err_r);
    let status = wait_program(pid, watch.as_ref());
    finished(&req.program, start, failure, status)
}

/// A standby's run: its program's process starts now, like the child of [`run`] (sharing the
/// init's memory, the init suspended until it execs), joins the cgroups of `join` (those of the
/// run this standby is meant for, when the judge knew them) and waits for the request on
/// `control` itself (see [`Ahead::start`]). Then the init reaps everything until it ends.
fn run_ahead(join: Vec<OwnedFd>, control: OwnedFd, stack: &mut [u8]) -> Option<InitReport> {
    let (err_r, err_w) = match sys::pipe() {
        Ok(p) => p,
        Err(e) => return Some(InitReport::Failed { why: e.to_string() }),
    };
    let mut ahead = Ahead {
        join,
        control,
        err_w: err_w.as_raw_fd(),
        request: None,
    };
    extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: arg is the &mut Ahead passed below, alive while the init is suspended
        // (CLONE_VFORK); nothing else touches it meanwhile.
        let ahead = unsafe { &mut *(arg as *mut Ahead) };
        ahead.start()
    }
    // SAFETY: the stack is ours and large enough; while the child runs the init is suspended
    // (CLONE_VFORK), so the child may use the init's memory as the init would, and it ends in
    // execve or _exit.
    let pid = unsafe {
        let top = stack.as_mut_ptr().add(stack.len() - 64);
        let top = top.sub(top as usize % 16);
        libc::clone(
            child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            &mut ahead as *mut Ahead as *mut libc::c_void,
        )
    };
    if pid < 0 {
        return Some(InitReport::Failed {
            why: format!("start the program: {}", io::Error::last_os_error()),
        });
    }
    drop(err_w);
    let Some((program, start, watch)) = ahead.request.take() else {
        // It ended before its run (the worker dropped this standby, or it was killed).
        reap_until(pid);
        return None;
    };
    let failure = read_failure(&err_r);
    let status = wait_program(pid, watch.as_ref());
    Some(finished(&program, start, failure, status))
}

/// What a standby's program's process and its init share (see [`run_ahead`]).
struct Ahead {
    /// `cgroup.procs` files to join ahead of the run.
    join: Vec<OwnedFd>,
    control: OwnedFd,
    /// Where a failed start is reported (step, errno).
    err_w: RawFd,
    /// Set once the request came: its program's path, when it started and what the init
    /// watches of it.
    request: Option<Started>,
}

/// A standby's request as its init needs it: the program's path, when it started, and what to
/// watch when the run has no cgroup (see [`watch_of`]).
type Started = (Vec<u8>, u64, Option<(super::watch::Watch, Vec<PathBuf>)>);

impl Ahead {
    /// In the program's process: joins `join`, receives its request, then starts the program
    /// like the child of [`run`] does (joining only the run's cgroups it is not in yet).
    /// Never returns.
    fn start(&mut self) -> ! {
        let joined: Vec<(u64, u64)> = identities(&self.join)
            .into_iter()
            .zip(&self.join)
            .filter(|(_, fd)| join_cgroup(fd.as_raw_fd()).is_ok())
            .map(|(id, _)| id)
            .collect();
        let fail = |errno: i32| -> ! {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&STEP_REQUEST.to_ne_bytes());
            b[4..].copy_from_slice(&errno.to_ne_bytes());
            // SAFETY: write + _exit.
            unsafe {
                libc::write(self.err_w, b.as_ptr().cast(), 8);
                libc::_exit(127);
            }
        };
        let (req, fds) = match wire::recv_json::<Request>(&self.control) {
            Ok(Some(m)) => m,
            // SAFETY: leaving without a run.
            Ok(None) | Err(_) => unsafe { libc::_exit(0) },
        };
        self.request = Some((req.program.clone(), now(), watch_of(&req)));
        if fds.len() != 3 + req.cgroup_fds {
            fail(libc::EBADF);
        }
        let Ok((program, argv, env, workdir)) = strings(&req) else {
            fail(libc::EINVAL);
        };
        let (argv_p, env_p) = (pointers(&argv), pointers(&env));
        let cgroups = &fds[3..3 + req.cgroup_fds];
        let exec = Exec {
            program: &program,
            argv: &argv_p,
            env: &env_p,
            workdir: &workdir,
            stdio: [fds[0].as_raw_fd(), fds[1].as_raw_fd(), fds[2].as_raw_fd()],
            cgroups: cgroups
                .iter()
                .zip(identities(cgroups))
                .filter(|(_, id)| !joined.contains(id))
                .map(|(f, _)| f.as_raw_fd())
                .collect(),
            err_w: self.err_w,
            req: &req,
            userns: userns(),
        };
        exec.run()
    }
}

/// The step reported when the request itself cannot be started (see [`STEPS`]).
const STEP_REQUEST: u32 = STEPS.len() as u32 - 1;

/// Reads exactly `buf.len()` bytes; false at an early end of the pipe.
fn read_full(fd: &OwnedFd, buf: &mut [u8]) -> bool {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reading into the rest of a buffer we own.
        let n = unsafe {
            libc::read(
                fd.as_raw_fd(),
                buf[got..].as_mut_ptr().cast(),
                buf.len() - got,
            )
        };
        match n {
            n if n > 0 => got += n as usize,
            n if n < 0 && sys::errno() == libc::EINTR => {}
            _ => return false,
        }
    }
    true
}

/// The (step, errno) a program's process reports when it cannot start its program, or None
/// once the pipe closes (at the exec).
fn read_failure(fd: &OwnedFd) -> Option<(u32, i32)> {
    let mut b = [0u8; 8];
    read_full(fd, &mut b).then(|| {
        let step = u32::from_ne_bytes(b[..4].try_into().unwrap());
        let errno = i32::from_ne_bytes(b[4..].try_into().unwrap());
        (step, errno)
    })
}

/// What the init watches of a run without a cgroup (see `watch.rs`): the limits, and the tmpfs
/// mounts whose pages count as the run's memory.
fn watch_of(req: &Request) -> Option<(super::watch::Watch, Vec<PathBuf>)> {
    let watch = req.watch.clone()?;
    let mut tmpfs = vec![PathBuf::from("/tmp")];
    if req.scratch_workdir {
        tmpfs.push(PathBuf::from(OsStr::from_bytes(&req.workdir)));
    }
    Some((watch, tmpfs))
}

/// Waits for the program `pid` of a run: under the watchdog when `watch` is given (which
/// measures the tree and kills it at a limit), else by reaping every child until `pid` ends.
/// Its wait status and usage, and what the watchdog saw.
fn wait_program(
    pid: libc::pid_t,
    watch: Option<&(super::watch::Watch, Vec<PathBuf>)>,
) -> (Option<(i32, libc::rusage)>, Option<super::watch::Watched>) {
    match watch {
        Some((watch, tmpfs)) => {
            let (status, seen) = super::watch::init_wait(pid, watch, tmpfs);
            (status, Some(seen))
        }
        None => (reap_until(pid), None),
    }
}

/// Reaps every child until `pid` ends (orphans of the namespace are the init's children too);
/// its status and resource usage.
fn reap_until(pid: libc::pid_t) -> Option<(i32, libc::rusage)> {
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain data filled by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waiting for any child of the init.
        let r = unsafe { libc::wait4(-1, &mut status, 0, &mut usage) };
        if r == pid {
            return Some((status, usage));
        }
        if r < 0 && sys::errno() != libc::EINTR {
            return None;
        }
    }
}

/// The report of a run whose program started at `start`, from its start failure if any and its
/// wait status.
fn finished(
    program: &[u8],
    start: u64,
    failure: Option<(u32, i32)>,
    (status, watched): (Option<(i32, libc::rusage)>, Option<super::watch::Watched>),
) -> InitReport {
    let wall_nanos = now().saturating_sub(start);
    // With the watchdog, what is left of the tree is killed and reaped here, so that the CPU
    // time of everything the run started counts.
    let tree_cpu = watched.is_some().then(super::watch::end_namespace);
    if let Some((step, errno)) = failure {
        return InitReport::Failed {
            why: format!(
                "cannot start {} ({}): {}",
                String::from_utf8_lossy(program),
                STEPS.get(step as usize).unwrap_or(&"?"),
                io::Error::from_raw_os_error(errno)
            ),
        };
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    match status {
        Some((status, usage)) => InitReport::Finished {
            status,
            wall_nanos,
            cpu_nanos: match tree_cpu {
                Some(cpu) => cpu.as_nanos() as u64,
                None => tv(usage.ru_utime) + tv(usage.ru_stime),
            },
            max_rss: usage.ru_maxrss as u64 * 1024,
            watched,
        },
        None => InitReport::Failed {
            why: "lost track of the program".into(),
        },
    }
}

fn now() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-parameter.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The run's private mounts, in the init's new mount namespace.
fn setup_mounts(spec: &MountSpec, mounts: &[OwnedFd]) -> io::Result<()> {
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

fn is_dir(fd: RawFd) -> bool {
    // SAFETY: stat is plain data filled by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open; st is a valid out-parameter.
    unsafe { libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR }
}

/// The top-level names of the prepared root (the system view, /etc, /dev, /proc, /tmp), set
/// once the worker has made it; the run inits, forked from the worker, inherit it.
static PREPARED_TOP: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

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
struct MountPoints {
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
fn exclusive(made: io::Result<()>) -> io::Result<()> {
    match made {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// Stack of the program's process between clone and exec.
const CHILD_STACK: usize = 256 * 1024;

/// Steps of the program's start, named in error messages.
const STEPS: [&str; 7] = [
    "join the cgroup",
    "set up stdio",
    "set rlimits",
    "enter the working directory",
    "drop privileges",
    "exec",
    "read its request",
];

/// Everything the program's process needs between fork and exec, prepared beforehand.
struct Exec<'a> {
    program: &'a CStr,
    argv: &'a [*const libc::c_char],
    env: &'a [*const libc::c_char],
    workdir: &'a CStr,
    stdio: [RawFd; 3],
    /// The `cgroup.procs` files of the run's cgroups the process is not in yet.
    cgroups: Vec<RawFd>,
    err_w: RawFd,
    req: &'a Request,
    userns: bool,
}

impl Exec<'_> {
    /// In the forked child: never returns. Only async-signal-safe calls.
    fn run(&self) -> ! {
        let fail = |step: u32| -> ! {
            let errno = sys::errno();
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&step.to_ne_bytes());
            b[4..].copy_from_slice(&errno.to_ne_bytes());
            // SAFETY: write + _exit are async-signal-safe.
            unsafe {
                libc::write(self.err_w, b.as_ptr().cast(), 8);
                libc::_exit(127);
            }
        };
        // SAFETY: only async-signal-safe system calls on prepared data follow.
        unsafe {
            for &fd in &self.cgroups {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    fail(0);
                }
            }
            // The error pipe goes to fd 3 (close-on-exec); stdio to 0, 1, 2; everything else closes.
            let [i, o, e] = self.stdio;
            let moved = [
                libc::fcntl(i, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(o, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(e, libc::F_DUPFD_CLOEXEC, 10),
            ];
            let err_w = libc::fcntl(self.err_w, libc::F_DUPFD_CLOEXEC, 10);
            if moved.iter().any(|&f| f < 0) || err_w < 0 {
                fail(1);
            }
            if libc::dup3(err_w, 3, libc::O_CLOEXEC) < 0 {
                fail(1);
            }
            for (target, &fd) in moved.iter().enumerate() {
                if libc::dup2(fd, target as RawFd) < 0 {
                    fail(1);
                }
            }
            let err_fail = |step: u32| -> ! {
                let errno = sys::errno();
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&step.to_ne_bytes());
                b[4..].copy_from_slice(&errno.to_ne_bytes());
                libc::write(3, b.as_ptr().cast(), 8);
                libc::_exit(127);
            };
            libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
            let r = &self.req;
            let limits = [
                (libc::RLIMIT_STACK, r.stack, r.stack),
                (
                    libc::RLIMIT_CPU,
                    r.cpu_backstop_secs,
                    r.cpu_backstop_secs + 1,
                ),
                (libc::RLIMIT_CORE, 0, 0),
                (libc::RLIMIT_FSIZE, r.file_size, r.file_size),
            ];
            // Without a cgroup, the backstops of the watchdog: an address-space cap and, where
            // it counts only this judge's processes, the process rlimit.
            let (address_space, nproc) = match &r.watch {
                Some(w) => (Some(w.address_space), w.nproc),
                None => (None, None),
            };
            let backstops = [
                (libc::RLIMIT_AS, address_space),
                (libc::RLIMIT_NPROC, nproc),
            ]
            .into_iter()
            .filter_map(|(res, v)| v.map(|v| (res, v, v)));
            for (res, soft, hard) in limits.into_iter().chain(backstops) {
                let lim = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(res, &lim) != 0 {
                    err_fail(2);
                }
            }
            if libc::chdir(self.workdir.as_ptr()) != 0 {
                err_fail(3);
            }
            // Signals, the bounding set, no_new_privs and the seccomp filter come from the init
            // (`lock_down`); what is left is the unprivileged ids.
            if self.userns {
                // uid 0 of the user namespace is the invoking user outside; make sure it can
                // never hold a capability: no root fix-ups, and all capability sets emptied.
                // NOROOT, NOROOT_LOCKED, NO_SETUID_FIXUP, NO_SETUID_FIXUP_LOCKED, KEEP_CAPS_LOCKED.
                const SECBITS: libc::c_ulong = 0x01 | 0x02 | 0x04 | 0x08 | 0x20;
                #[repr(C)]
                struct CapHeader {
                    version: u32,
                    pid: i32,
                }
                #[repr(C)]
                struct CapData {
                    effective: u32,
                    permitted: u32,
                    inheritable: u32,
                }
                let header = CapHeader {
                    version: 0x2008_0522,
                    pid: 0,
                };
                let data = [
                    CapData {
                        effective: 0,
                        permitted: 0,
                        inheritable: 0,
                    },
                    CapData {
                        effective: 0,
                        permitted: 0,
                        inheritable: 0,
                    },
                ];
                if libc::prctl(libc::PR_SET_SECUREBITS, SECBITS, 0, 0, 0) != 0
                    || libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr())
                        != 0
                {
                    err_fail(4);
                }
            } else if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(r.gid, r.gid, r.gid) != 0
                || libc::setresuid(r.uid, r.uid, r.uid) != 0
                || libc::getuid() == 0
            {
                err_fail(4);
            }
            libc::execve(self.program.as_ptr(), self.argv.as_ptr(), self.env.as_ptr());
            err_fail(5);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A standby init is used only for the same folders: one removed and made again under the
    /// same name is another folder, because the standby holds the old one's mount.
    #[test]
    fn a_folder_made_again_under_the_same_name_is_another_source() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: detached mounts need root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("build-1");
        std::fs::create_dir(&dir).unwrap();
        let held = vec![sys::detached_bind(&dir, false).unwrap()];
        let again = vec![sys::detached_bind(&dir, false).unwrap()];
        assert_eq!(sources(&held), sources(&again), "the same folder twice");
        std::fs::remove_dir(&dir).unwrap();
        std::fs::create_dir(&dir).unwrap();
        let other = vec![sys::detached_bind(&dir, false).unwrap()];
        assert_ne!(sources(&held), sources(&other), "a new folder, same name");
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
