//! The judge's side of the full sandbox: starts a worker (see `worker.rs`) once, then for each run
//! prepares the run's cgroup, pipes and detached mounts, hands them to the worker, and watches the
//! run (CPU time from the cgroup, wall clock, output size) until it ends or must be killed.

use super::cgroup::{self, Cgroups, RunGroup};
use super::sys;
use super::watch::{self, Watch};
use super::wire::{self, Reply, Request};
use super::{Layer, RunOutcome, RunSpec, SandboxError, Termination};
use crate::leftovers::Held;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// First uid/gid of sandboxed programs: a worker runs its programs as FIRST_UID + k, for the
/// first k that no other worker on this machine holds (see [`UidLease`]).
pub const FIRST_UID: u32 = 60000;
/// How many sandbox uids there are: as many workers can run at once on one machine.
pub const UIDS: u32 = 1000;
/// Where the uid leases live: one lock file per uid, shared by every judge on the machine.
const LEASE_DIRS: [&str; 2] = ["/run/judge", "/tmp/judge-uids"];

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
    dir: PathBuf,
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
fn sweep_leases(dir: &Path) -> Vec<u32> {
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

/// Set to 1, the judge turns the kernel's cgroup `favordynmods` mode on (see
/// `worker::favor_dynmods`); `judge doctor --tune` does it at once.
const FAVORDYNMODS_ENV: &str = "JUDGE_CGROUP_FAVORDYNMODS";

/// This boot's id: the favordynmods marker holds it, and a reboot (which turns the mode off)
/// changes it.
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string())
}

/// The marker a judge leaves in a lease folder when it turned favordynmods on.
fn marker(dir: &Path) -> PathBuf {
    dir.join("favordynmods")
}

/// Whether a judge already turned favordynmods on since this boot.
fn favordynmods_marked(dir: &Path) -> bool {
    match (std::fs::read_to_string(marker(dir)), boot_id()) {
        (Ok(marker), Some(id)) => marker.trim() == id,
        _ => false,
    }
}

fn mark_favordynmods(dir: &Path) {
    if let Some(id) = boot_id() {
        let _ = std::fs::write(marker(dir), format!("{id}\n"));
    }
}

/// Where the kernel itself shows the mode: a cgroup hierarchy mounted with the option (listed
/// in /proc/mounts; also every hierarchy when the kernel was built to favour dynamic changes),
/// or the boot option `cgroup_favordynmods`. A hierarchy mounted with the option and unmounted at
/// once, as the judge does it, leaves no such trace: the judge's marker remembers it instead.
pub fn favordynmods_shown() -> Option<String> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    shown_in(&read("/proc/self/mounts"), &read("/proc/cmdline"))
}

/// [`favordynmods_shown`] from the text of /proc/self/mounts and /proc/cmdline.
fn shown_in(mounts: &str, cmdline: &str) -> Option<String> {
    let mounted = mounts.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (point, fstype, options) = (f.get(1)?, f.get(2)?, f.get(3)?);
        (fstype.starts_with("cgroup") && options.split(',').any(|o| o == "favordynmods"))
            .then(|| format!("{point} is mounted with it"))
    });
    let booted = cmdline.split_whitespace().find_map(|arg| {
        let value = arg.strip_prefix("cgroup_favordynmods=")?;
        ["1", "y", "Y", "true", "on"]
            .contains(&value)
            .then(|| format!("booted with {arg}"))
    });
    mounted.or(booted)
}

/// The cgroup favordynmods mode, as `judge doctor` shows it.
#[derive(Debug, Clone)]
enum Favor {
    /// Turned on by this judge (asked with JUDGE_CGROUP_FAVORDYNMODS=1).
    TurnedOn,
    /// A judge turned it on earlier this boot (its marker says so).
    Marked,
    /// The kernel shows it on (see [`favordynmods_shown`]).
    Shown(String),
    /// Left off: nobody asked.
    Off,
    /// Asked, but turning it on failed.
    Failed(String),
}

/// The note `judge doctor` shows about the cgroup mode.
fn favordynmods_note(state: &Favor) -> Layer {
    let slow = "a run that starts after a pause may wait 10 ms or more to join its cgroup (wall time only; CPU time and memory are not affected)";
    let on = "joining a cgroup never waits for an RCU grace period";
    let (active, detail, hint) = match state {
        Favor::TurnedOn => (true, format!("{on} (turned on now by this judge, as {FAVORDYNMODS_ENV}=1 asked; the mode is kernel-wide and lasts until reboot)"), None),
        Favor::Marked => (true, format!("{on} (turned on earlier this boot by a judge; kernel-wide, until reboot)"), None),
        Favor::Shown(r#where) => (true, format!("{on} (the kernel shows it on: {where})"), None),
        Favor::Off => (
            false,
            format!("left off (it is kernel-wide and lasts until reboot, so the judge turns it on only when asked): {slow}"),
            Some(format!("`judge doctor --tune` turns it on (or {FAVORDYNMODS_ENV}=1 for any judge command)")),
        ),
        Favor::Failed(why) => (
            false,
            format!("could not be turned on ({why}): {slow}"),
            Some("Linux 6.0 or later with cgroup v1 support lets the judge turn it on; on cgroup v2, `mount -o remount,favordynmods /sys/fs/cgroup`".into()),
        ),
    };
    Layer {
        name: "cgroup favordynmods".into(),
        active,
        detail,
        hint,
    }
}

/// `judge doctor --tune`: turns the kernel's cgroup favordynmods mode on now (as root), and
/// says what that means. The mode is kernel-wide and lasts until reboot.
pub fn tune() -> Result<String, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("turning on the cgroup favordynmods mode needs root (it is a kernel-wide setting): run `sudo judge doctor --tune`".into());
    }
    let done = "the cgroup favordynmods mode is on: a run joins its cgroup without waiting for an RCU grace period. It is kernel-wide and lasts until reboot (the kernel cannot turn it off again); it makes fork and exit slightly dearer for every process on this machine";
    if let Some(r#where) = favordynmods_shown() {
        return Ok(format!("{done} (it was on already: {where})"));
    }
    let dir = LEASE_DIRS
        .map(Path::new)
        .into_iter()
        .find(|d| lease_dir(d).is_ok());
    let tmp = tempfile::Builder::new()
        .prefix("judge-tune-")
        .tempdir()
        .map_err(|e| {
            format!(
                "cannot create a folder in {}: {e}",
                std::env::temp_dir().display()
            )
        })?;
    let root = tmp.path().to_path_buf();
    // The mount goes in a mount namespace of this thread's own, gone with the thread.
    let result = std::thread::spawn(move || {
        // SAFETY: unshare of this thread's mount namespace (it gets its own fs context).
        if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
            return Err(format!(
                "unshare a mount namespace: {}",
                std::io::Error::last_os_error()
            ));
        }
        sys::mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None)
            .map_err(|e| e.to_string())?;
        super::worker::favor_dynmods(&root)
    })
    .join()
    .map_err(|_| "the thread turning the mode on panicked".to_string())?;
    result.map_err(|why| format!("cannot turn the cgroup favordynmods mode on ({why}); it needs Linux 6.0 or later with cgroup v1 support; on cgroup v2, `mount -o remount,favordynmods /sys/fs/cgroup` does it"))?;
    if let Some(dir) = dir {
        mark_favordynmods(dir);
    }
    Ok(done.into())
}

/// Creates `dir` if needed and checks that only this user can change it: a real folder (not a
/// link), ours, writable by nobody else. The fallback lives in the shared /tmp, where someone
/// else could have made it first.
fn lease_dir(dir: &Path) -> Result<(), String> {
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

pub struct Isolated {
    sock: OwnedFd,
    worker: Child,
    /// Folder whose `root` subfolder the worker mounts its prepared root on (in its namespace).
    base: PathBuf,
    /// Holds `base` (see `crate::leftovers`); unlocked after the folder is removed.
    _base_held: Held,
    uid: u32,
    /// Read buffer for the run's pipes, allocated once.
    buf: Box<[u8]>,
    /// Keeps `uid` this worker's alone while it lives (root only; None in a user namespace).
    _lease: Option<UidLease>,
    cgroups: Result<Cgroups, String>,
    worker_layers: Vec<(String, String)>,
    /// Not root: the worker runs in its own user namespace (see worker.rs).
    userns: bool,
    /// The inits the worker holds ready, least recently made first (the worker keeps the same
    /// list, see `worker::STANDBYS`).
    standbys: Vec<Standby>,
    /// The kinds of the last runs, as the worker's `Recent` keeps them: a run of a kind seen
    /// lately leaves a standby, which gets the next run's cgroup.
    recent: Vec<MountsKey>,
    /// The cgroup favordynmods mode; None without root (no cgroups).
    favordynmods: Option<Favor>,
}

/// An init the worker holds ready: its mounts, and the cgroup it joined ahead of time (with its
/// memory and process limits), if the judge had one to give it.
struct Standby {
    key: MountsKey,
    group: Option<(u64, u32, RunGroup)>,
}

/// A cgroup handed to the janitor for removal when this goes out of scope, unless taken before.
struct RetireLater(Option<RunGroup>);

impl Drop for RetireLater {
    fn drop(&mut self) {
        if let Some(g) = self.0.take() {
            cgroup::retire(g);
        }
    }
}

/// What the judge knows of a run's mounts: equal keys let a run use the worker's standby init.
#[derive(Clone, PartialEq, Eq)]
struct MountsKey {
    readable: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    scratch_workdir: bool,
    tmpfs_bytes: u64,
}

impl Isolated {
    /// Starts a worker; `Err(why)` when this machine or user cannot have one.
    pub fn new() -> Result<Isolated, String> {
        // SAFETY: geteuid has no preconditions.
        let userns = unsafe { libc::geteuid() } != 0;
        let lease = if userns {
            None
        } else {
            Some(UidLease::take()?)
        };
        let exe = std::fs::read_link("/proc/self/exe")
            .map_err(|e| format!("cannot find the judge's own executable: {e}"))?;
        if let Some(lease) = &lease {
            let dir = lease.dir.clone();
            super::cgroup::in_background(move || drop(sweep_leases(&dir)));
        }
        let held = Held::make_temp(&std::env::temp_dir(), "judge-sandbox-")
            .map_err(|e| format!("cannot create the sandbox folder: {e}"))?;
        let base = held.path().to_path_buf();
        crate::interrupt::register(base.clone());
        let root = base.join("root");
        let cleanup = |why: String| {
            let _ = std::fs::remove_dir_all(&base);
            crate::interrupt::unregister(&base);
            why
        };
        std::fs::create_dir(&root)
            .map_err(|e| cleanup(format!("cannot create {}: {e}", root.display())))?;
        let (mine, theirs) =
            wire::socket_pair().map_err(|e| cleanup(format!("socketpair: {e}")))?;
        let cgroups = Cgroups::probe_system();
        let mut cmd = Command::new(&exe);
        cmd.arg("__sandbox-worker").arg(&root);
        if userns {
            cmd.arg("--userns");
        }
        if cgroups.is_err() {
            cmd.arg("--no-memory-cgroup");
        }
        // A kernel-wide mode: only when the user asks for it (JUDGE_CGROUP_FAVORDYNMODS=1).
        let asked = std::env::var(FAVORDYNMODS_ENV).is_ok_and(|v| v == "1");
        let shown = if userns { None } else { favordynmods_shown() };
        let marked = lease.as_ref().is_some_and(|l| favordynmods_marked(&l.dir));
        let ask_favordynmods = !userns && asked && !marked && shown.is_none();
        if ask_favordynmods {
            cmd.arg("--favordynmods");
        }
        cmd.env_clear()
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        // SAFETY: prctl is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let worker = cmd.spawn().map_err(|e| {
            cleanup(format!(
                "cannot start the sandbox worker {}: {e}",
                exe.display()
            ))
        })?;
        let mut this = Isolated {
            sock: mine,
            worker,
            base: base.clone(),
            _base_held: held,
            uid: lease.as_ref().map_or(0, UidLease::uid),
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            _lease: lease,
            cgroups,
            worker_layers: Vec::new(),
            standbys: Vec::new(),
            recent: Vec::new(),
            favordynmods: None,
            userns,
        };
        match wire::recv_json::<Reply>(&this.sock) {
            Ok(Some((
                Reply::Ready {
                    layers,
                    favordynmods,
                },
                _,
            ))) => {
                this.worker_layers = layers;
                this.favordynmods = match favordynmods {
                    _ if userns => None,
                    Some(Ok(())) => {
                        if let Some(lease) = &this._lease {
                            mark_favordynmods(&lease.dir);
                        }
                        Some(Favor::TurnedOn)
                    }
                    Some(Err(why)) => Some(Favor::Failed(why)),
                    None => Some(match shown {
                        Some(r#where) => Favor::Shown(r#where),
                        None if marked => Favor::Marked,
                        None => Favor::Off,
                    }),
                };
            }
            Ok(Some((Reply::Unavailable { why }, _))) => {
                return Err(if userns {
                    format!(
                        "the judge is not root, and an unprivileged user namespace failed: {why}"
                    )
                } else {
                    why
                })
            }
            Ok(_) => return Err("the sandbox worker ended before it was ready".into()),
            Err(e) => return Err(format!("the sandbox worker did not answer: {e}")),
        }
        Ok(this)
    }

    /// Settings that make runs cheaper, not safer (for `judge doctor`).
    pub fn notes(&self) -> Vec<Layer> {
        self.favordynmods
            .iter()
            .filter(|_| self.cgroups.is_ok())
            .map(favordynmods_note)
            .collect()
    }

    /// How each limit holds (for `judge doctor`).
    pub fn limits(&self) -> Vec<super::LimitMechanism> {
        let processes = if !self.userns {
            super::ProcessCap::DedicatedUid
        } else if watch::nproc_per_user_namespace() {
            super::ProcessCap::UserNamespace
        } else {
            super::ProcessCap::Watchdog
        };
        super::limit_mechanisms(&self.cgroups, super::Watcher::Init, processes)
    }

    pub fn layers(&self) -> Vec<Layer> {
        let active = |name: &str, detail: String| Layer {
            name: name.into(),
            active: true,
            detail,
            hint: None,
        };
        let mut layers = vec![active(
            "pid namespace",
            "each run has its own PID namespace; its init reaps everything and the kernel kills what is left when the program ends".into(),
        )];
        for (name, detail) in &self.worker_layers {
            layers.push(active(name, detail.clone()));
        }
        if self.userns {
            // SAFETY: getuid has no preconditions.
            let uid = unsafe { libc::getuid() };
            layers.push(active(
                "unprivileged user",
                format!("not root: programs run in a user namespace as the invoking user (uid {uid}), root inside with no capability at all (empty sets, securebits locked); a dedicated uid needs root"),
            ));
        } else {
            layers.push(active(
                "unprivileged user",
                format!("programs and compilers run as uid/gid {}, held by this judge alone while it runs, with an empty capability bounding set", self.uid),
            ));
        }
        layers.push(active(
            "no_new_privs",
            "set before exec: setuid binaries and file capabilities grant nothing".into(),
        ));
        let uncounted = if self.cgroups.is_ok() {
            String::new()
        } else {
            let names: Vec<&str> = super::seccomp::uncounted_memory()
                .iter()
                .map(|(name, _)| *name)
                .collect();
            format!(
                "; without a memory cgroup also {} (memory they hold can be mapped by no process, out of the watchdog's sight)",
                names.join(", ")
            )
        };
        layers.push(active(
            "seccomp filter",
            format!(
                "denies {} system calls with EPERM (ptrace, mount, unshare, setns, bpf, perf_event_open, keyctl, io_uring, kexec, modules, ...), namespace flags of clone, and foreign ABIs{uncounted}",
                super::seccomp::denied().len()
            ),
        ));
        let backstops = if self.cgroups.is_ok() {
            ""
        } else {
            ", and without a cgroup an address-space backstop (4 × memory limit + 16 × stack limit + 4 GiB)"
        };
        layers.push(active(
            "rlimits",
            format!(
                "stack = memory limit, CPU-time backstop, file size cap, no core dumps{backstops}"
            ),
        ));
        layers.extend(super::cgroup_layers(&self.cgroups));
        layers
    }

    /// What the run's init enforces by watching the tree when there is no cgroup.
    fn watch(&self, limits: &super::Limits) -> Watch {
        let processes = u64::from(limits.processes);
        // In the worker's user namespace, RLIMIT_NPROC counts the namespace's processes (Linux
        // 5.14+): the worker and up to two run inits (the last one being reaped) besides the
        // run's own. Before 5.14 it would count all of the user's processes, so the watchdog
        // counts instead. As root, the program's uid is this judge's alone.
        let (nproc, kill_above_tasks) = if !self.userns {
            (Some(processes), None)
        } else if watch::nproc_per_user_namespace() {
            (Some(processes + 3), None)
        } else {
            (None, Some(processes))
        };
        Watch {
            memory: limits.memory,
            cpu_nanos: limits.cpu.as_nanos().min(u128::from(u64::MAX)) as u64,
            kill_above_tasks,
            nproc,
            address_space: watch::address_space_backstop(limits.memory, limits.stack),
        }
    }

    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        let io = |action: String| move |source| SandboxError::Io { action, source };
        let limits = spec.limits.clone();
        let stdin = match &spec.stdin {
            Some(p) => File::open(p).map_err(io(format!("open {}", p.display())))?,
            None => File::open("/dev/null").map_err(io("open /dev/null".into()))?,
        };
        // Reused output files are overwritten from the start and cut to length at the end, never
        // truncated to zero first: on ext4, a file truncated to zero is flushed to disk when it
        // is closed, which cost more than the rest of the run's bookkeeping.
        let overwrite = |p: &Path| {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(p)
                .map_err(io(format!("create {}", p.display())))
        };
        let stdout_file = overwrite(&spec.stdout)?;
        let stderr_file = overwrite(&spec.stderr)?;
        let (out_r, out_w) = sys::pipe().map_err(io("create a pipe".into()))?;
        let (err_r, err_w) = sys::pipe().map_err(io("create a pipe".into()))?;
        // Outer folders first, so a path inside another one is attached on top of it.
        let mut readable: Vec<&PathBuf> = spec.readable.iter().filter(|p| p.exists()).collect();
        readable.sort_by_key(|p| p.as_os_str().len());
        readable.dedup();
        let bytes = |p: &Path| p.as_os_str().as_bytes().to_vec();
        let key = MountsKey {
            readable: readable.iter().map(|p| bytes(p)).collect(),
            workdir: bytes(&spec.workdir),
            scratch_workdir: spec.scratch_workdir,
            tmpfs_bytes: limits.memory,
        };
        // The worker keeps inits with the mounts of recent runs ready (root only): with one for
        // these mounts it needs one set of mounts, for the next standby; otherwise one more, for
        // this run. The worker itself checks that the mounts are the same folders.
        let mut joined = None;
        let mount_sets = if self.userns {
            0
        } else if let Some(i) = self.standbys.iter().position(|s| s.key == key) {
            joined = self.standbys.remove(i).group;
            1
        } else {
            2
        };
        let processes = limits.processes;
        // A cgroup the standby init joined is used when it has the run's limits; otherwise the
        // init moves out of it into the run's, and it goes when the run is over.
        let mut stale = RetireLater(None);
        let group = match (&self.cgroups, joined) {
            (Ok(_), Some((m, p, g))) if m == limits.memory && p == processes => Some(g),
            (Ok(cgroups), joined) => {
                stale.0 = joined.map(|(_, _, g)| g);
                Some(
                    cgroups
                        .create(limits.memory, processes)
                        .map_err(SandboxError::Setup)?,
                )
            }
            (Err(_), _) => None,
        };
        // The cgroup of the next run like this one, for the standby init this run leaves to
        // join ahead of time: a spare the janitor made (never one made here, which would cost
        // this run what it saves the next). The janitor then makes the spares up again.
        let repeats = self.recent.contains(&key);
        self.recent.retain(|k| *k != key);
        self.recent.push(key.clone());
        if self.recent.len() > super::worker::RECENT {
            self.recent.remove(0);
        }
        let mut next = RetireLater(None);
        if let (Ok(cgroups), false) = (&self.cgroups, self.userns) {
            if repeats {
                next.0 = cgroup::take_spare(limits.memory, processes);
            }
            cgroups.prepare(limits.memory, processes);
        }
        // The groups' cgroup.procs files, already open (sent along; the groups keep their own).
        let procs = match &group {
            Some(g) => g.join_fds().map_err(SandboxError::Setup)?,
            None => Vec::new(),
        };
        let next_procs = match &next.0 {
            Some(g) => g.join_fds().unwrap_or_default(),
            None => Vec::new(),
        };
        if !spec.scratch_workdir && !self.userns {
            std::os::unix::fs::chown(&spec.workdir, Some(self.uid), Some(self.uid)).map_err(io(
                format!("give {} to the sandbox user", spec.workdir.display()),
            ))?;
        }
        let expose = |p: &Path, writable: bool| {
            sys::detached_bind(p, writable).map_err(|e| {
                SandboxError::Setup(format!("cannot expose {} to the sandbox: {e}", p.display()))
            })
        };
        let mut mounts = Vec::new();
        for _ in 0..mount_sets {
            for p in &readable {
                mounts.push(expose(p, false)?);
            }
            if !spec.scratch_workdir {
                mounts.push(expose(&spec.workdir, true)?);
            }
        }
        let request = Request {
            program: bytes(&spec.program),
            args: spec.args.iter().map(|a| a.as_bytes().to_vec()).collect(),
            env: spec
                .env
                .iter()
                .map(|(k, v)| [k.as_bytes(), b"=", v.as_bytes()].concat())
                .collect(),
            workdir: bytes(&spec.workdir),
            scratch_workdir: spec.scratch_workdir,
            readable: readable.iter().map(|p| bytes(p)).collect(),
            cgroup_fds: procs.len(),
            next_cgroup_fds: next_procs.len(),
            mount_sets,
            uid: if self.userns { 0 } else { self.uid },
            gid: if self.userns { 0 } else { self.uid },
            cpu_backstop_secs: limits.cpu.as_secs() + 1,
            stack: limits.stack,
            file_size: limits.output.max(FILE_SIZE),
            tmpfs_bytes: limits.memory,
            tmpfs_inodes: TMPFS_INODES,
            processes: limits.processes as u64,
            watch: group.is_none().then(|| self.watch(&limits)),
        };
        let mut fds: Vec<RawFd> = vec![stdin.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()];
        fds.extend(&procs);
        fds.extend(&next_procs);
        fds.extend(mounts.iter().map(|f| f.as_raw_fd()));
        let start = Instant::now();
        wire::send_json(&self.sock, &request, &fds)
            .map_err(io("send a run to the sandbox worker".into()))?;
        drop((stdin, out_w, err_w, procs, next_procs, mounts));
        // The run's stdout and stderr are drained by this thread, in the same poll as the
        // worker's messages: no thread per run, and a full pipe never blocks the program.
        let mut out = Sink::new(out_r, stdout_file, limits.output, true)
            .map_err(io("make the stdout pipe non-blocking".into()))?;
        let mut err = Sink::new(err_r, stderr_file, limits.stderr, false)
            .map_err(io("make the stderr pipe non-blocking".into()))?;
        let mut over = false;
        let mut pidfd: Option<OwnedFd> = None;
        let mut wall_killed = false;
        let mut cpu_killed = false;
        let mut killed = false;
        let mut polls = 0u64;
        // Signals only: nothing waits here for the run to end. Its init reports the end (the
        // worker sees it die), and the janitor makes sure the cgroup is empty before removing it.
        // The init is PID 1 of a namespace that holds every process of the run, so killing it
        // kills them all; the cgroup is signalled too, for a run whose init is not known yet.
        let kill = |pidfd: &Option<OwnedFd>| {
            if let Some(p) = pidfd {
                sys::pidfd_kill(p.as_raw_fd());
            }
            if let Some(g) = &group {
                g.kill();
            }
        };
        let mut finished: Option<(i32, u64, u64, u64)> = None;
        let mut watched = None;
        let mut finished_at = start;
        let (status, wall_nanos, cpu_nanos, max_rss) = loop {
            if let Some(f) = finished {
                // The program's tree is dead once its init has reported; the pipes close when
                // the last writer is gone. A writer that survives anyway is not waited for.
                if (!out.is_open() && !err.is_open()) || finished_at.elapsed() > PIPE_GRACE {
                    break f;
                }
            }
            let mut pfds = [
                (self.sock.as_raw_fd(), finished.is_none()),
                (out.fd(), out.is_open()),
                (err.fd(), err.is_open()),
            ]
            .map(|(fd, wanted)| libc::pollfd {
                fd: if wanted { fd } else { -1 },
                events: libc::POLLIN,
                revents: 0,
            });
            let timeout = if finished.is_none() { 1 } else { 10 };
            // SAFETY: three valid pollfds (negative descriptors are ignored by poll).
            unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout) };
            if pfds[1].revents != 0 && out.pump(&mut self.buf) == Pumped::Over {
                over = true;
                if !killed {
                    killed = true;
                    kill(&pidfd);
                }
            }
            if pfds[2].revents != 0 {
                err.pump(&mut self.buf);
            }
            if pfds[0].revents != 0 {
                match wire::recv_json::<Reply>(&self.sock) {
                    Ok(Some((Reply::Started, mut got))) => pidfd = got.pop(),
                    Ok(Some((
                        Reply::Finished {
                            status,
                            wall_nanos,
                            cpu_nanos,
                            max_rss,
                            standby,
                            watched: seen,
                        },
                        _,
                    ))) => {
                        finished = Some((status, wall_nanos, cpu_nanos, max_rss));
                        watched = seen;
                        if standby {
                            // One per kind of run, as the worker keeps them.
                            self.standbys.retain(|s| s.key != key);
                            self.standbys.push(Standby {
                                key: key.clone(),
                                group: next.0.take().map(|g| (limits.memory, processes, g)),
                            });
                            if self.standbys.len() > super::worker::STANDBYS {
                                let old = self.standbys.remove(0);
                                drop(RetireLater(old.group.map(|(_, _, g)| g)));
                            }
                        } else if let Some(g) = next.0.take() {
                            // Nobody joined it.
                            cgroup::give_back(limits.memory, processes, g);
                        }
                        finished_at = Instant::now();
                        // Whatever the program left behind dies with its init's namespace.
                        match &pidfd {
                            Some(p) => sys::pidfd_kill(p.as_raw_fd()),
                            None => kill(&pidfd),
                        }
                    }
                    Ok(Some((Reply::Failed { why }, _))) => {
                        kill(&pidfd);
                        return Err(SandboxError::Setup(why));
                    }
                    Ok(Some((other, _))) => {
                        kill(&pidfd);
                        return Err(SandboxError::Setup(format!(
                            "unexpected message from the sandbox worker: {other:?}"
                        )));
                    }
                    Ok(None) | Err(_) => {
                        kill(&pidfd);
                        return Err(SandboxError::Setup("the sandbox worker died".into()));
                    }
                }
                continue;
            }
            if finished.is_some() || killed {
                continue;
            }
            if start.elapsed() > limits.wall {
                wall_killed = true;
                killed = true;
                kill(&pidfd);
            }
            polls += 1;
            if let (Some(g), false) = (&group, killed) {
                if polls % 2 == 0 && g.cpu_time() > limits.cpu {
                    cpu_killed = true;
                    killed = true;
                    kill(&pidfd);
                }
            }
        };
        let wall_time = if wall_nanos > 0 {
            Duration::from_nanos(wall_nanos)
        } else {
            start.elapsed()
        };
        if group.is_none() && !killed {
            // Without a cgroup the CPU limit is judged afterwards from rusage.
            cpu_killed = Duration::from_nanos(cpu_nanos) > limits.cpu;
        }
        let termination = if libc::WIFSIGNALED(status) {
            Termination::Signaled(libc::WTERMSIG(status))
        } else {
            Termination::Exited(libc::WEXITSTATUS(status))
        };
        let (cpu_time, peak_memory, memory_evidence) = match &group {
            Some(g) => {
                let (oom, failcnt) = g.memory_evidence();
                let clean = termination == Termination::Exited(0);
                (g.cpu_time(), g.peak_memory(), oom || (failcnt && !clean))
            }
            // The init's watchdog measured the tree (its CPU time is the whole tree's).
            None => match &watched {
                Some(w) => {
                    cpu_killed |= w.cpu_killed;
                    let peak = w.peak_memory;
                    (
                        Duration::from_nanos(cpu_nanos),
                        peak,
                        w.memory_killed || peak > limits.memory,
                    )
                }
                None => (
                    Duration::from_nanos(cpu_nanos),
                    max_rss,
                    max_rss > limits.memory,
                ),
            },
        };
        if let Some(g) = group {
            cgroup::retire(g);
        }
        let stdout_bytes = out.kept;
        out.finish()
            .map_err(io(format!("write {}", spec.stdout.display())))?;
        err.finish()
            .map_err(io(format!("write {}", spec.stderr.display())))?;
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time,
            peak_memory,
            cpu_limit_exceeded: cpu_killed || cpu_time > limits.cpu,
            wall_limit_exceeded: wall_killed,
            memory_limit_exceeded: memory_evidence,
            output_limit_exceeded: over,
            stdout_bytes,
        })
    }
}

/// How long the pipes may stay open after the run's init reported the end (its namespace is
/// dead by then, so only a process that escaped it could hold them).
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// One of the run's output pipes and the file that keeps at most `cap` bytes of it.
struct Sink {
    pipe: Option<OwnedFd>,
    file: File,
    cap: u64,
    kept: u64,
    /// stdout: more than `cap` is an output limit hit; stderr: the rest is read and discarded.
    limited: bool,
}

#[derive(PartialEq)]
enum Pumped {
    More,
    Closed,
    /// More than `cap` bytes arrived; the pipe is closed (the writer gets EPIPE).
    Over,
}

impl Sink {
    fn new(pipe: OwnedFd, file: File, cap: u64, limited: bool) -> std::io::Result<Sink> {
        // SAFETY: fcntl on a descriptor we own.
        let r = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Sink {
            pipe: Some(pipe),
            file,
            cap,
            kept: 0,
            limited,
        })
    }

    fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    /// Cuts the file to what this run wrote (it may hold a longer output of an earlier run).
    fn finish(&self) -> std::io::Result<()> {
        self.file.set_len(self.kept)
    }

    fn fd(&self) -> RawFd {
        self.pipe.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }

    /// Reads what the pipe holds now (a bounded amount, so the watchdog keeps its pace).
    fn pump(&mut self, buf: &mut [u8]) -> Pumped {
        use std::io::Write;
        for _ in 0..16 {
            let Some(pipe) = &self.pipe else {
                return Pumped::Closed;
            };
            // SAFETY: reading into a buffer we own, at most its length.
            let n = unsafe { libc::read(pipe.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 && sys::errno() == libc::EAGAIN {
                return Pumped::More;
            }
            if n <= 0 {
                self.pipe = None;
                return Pumped::Closed;
            }
            let n = n as u64;
            let take = n.min(self.cap - self.kept);
            if take > 0 && self.file.write_all(&buf[..take as usize]).is_ok() {
                self.kept += take;
            }
            if take < n && self.limited {
                self.pipe = None;
                return Pumped::Over;
            }
        }
        Pumped::More
    }
}

/// Largest file a program may write (in its folder or /tmp), unless its output limit is larger.
const FILE_SIZE: u64 = 256 << 20;
/// Files a program may create in /tmp or its scratch folder.
const TMPFS_INODES: u64 = 4096;

impl Drop for Isolated {
    fn drop(&mut self) {
        // Closing the socket ends the worker; its namespaces and mounts go with it.
        // SAFETY: shutting down our own socket.
        unsafe { libc::shutdown(self.sock.as_raw_fd(), libc::SHUT_RDWR) };
        let _ = self.worker.kill();
        let _ = self.worker.wait();
        // The standby inits die with the worker; their cgroups go in the background.
        for s in self.standbys.drain(..) {
            drop(RetireLater(s.group.map(|(_, _, g)| g)));
        }
        let _ = std::fs::remove_dir_all(&self.base);
        crate::interrupt::unregister(&self.base);
    }
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
    fn the_mode_is_seen_in_mount_options_and_the_boot_line() {
        let v1 = "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n";
        assert_eq!(shown_in(v1, "quiet reboot=k"), None);
        let v2 = "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nsdelegate,favordynmods 0 0\n";
        assert_eq!(
            shown_in(v2, "quiet").as_deref(),
            Some("/sys/fs/cgroup is mounted with it")
        );
        assert_eq!(
            shown_in(v1, "quiet cgroup_favordynmods=true").as_deref(),
            Some("booted with cgroup_favordynmods=true")
        );
        assert_eq!(shown_in(v1, "cgroup_favordynmods=false"), None);
        let other = "none /mnt tmpfs rw,favordynmods 0 0\n";
        assert_eq!(shown_in(other, ""), None, "only cgroup mounts count");
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
