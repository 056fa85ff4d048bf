//! The judge's side of the full sandbox: starts a worker (see `worker.rs`) once, then for each run
//! prepares the run's cgroup, pipes and detached mounts, hands them to the worker, and watches the
//! run (CPU time from the cgroup, wall clock, output size) until it ends or must be killed.

use super::cgroup::Cgroups;
use super::sys;
use super::watch::{self, Watch};
use super::wire::{self, Reply, Request};
use super::{Layer, RunOutcome, RunSpec, SandboxError, Termination};
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
        use std::os::unix::fs::OpenOptionsExt;
        for k in 0..UIDS {
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
            if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
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
}

/// Set to 0, the judge leaves the kernel's cgroup mode alone (see `worker::favor_dynmods`).
const FAVORDYNMODS_ENV: &str = "JUDGE_CGROUP_FAVORDYNMODS";

/// This boot's id: the favordynmods marker holds it, and a reboot (which turns the mode off)
/// changes it.
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string())
}

/// Whether a judge already turned favordynmods on since this boot.
fn favordynmods_marked(lease: &UidLease) -> bool {
    match (
        std::fs::read_to_string(lease.dir.join("favordynmods")),
        boot_id(),
    ) {
        (Ok(marker), Some(id)) => marker.trim() == id,
        _ => false,
    }
}

fn mark_favordynmods(lease: &UidLease) {
    if let Some(id) = boot_id() {
        let _ = std::fs::write(lease.dir.join("favordynmods"), format!("{id}\n"));
    }
}

/// The note `judge doctor` shows about the cgroup mode.
fn favordynmods_note(state: &Result<bool, String>) -> Layer {
    let slow = "a run that starts after a pause may wait 10 ms or more to join its cgroup (wall time only; CPU time and memory are not affected)";
    let (active, detail, hint) = match state {
        Ok(true) => (true, "joining a cgroup never waits for an RCU grace period (turned on now by this judge; the mode is kernel-wide and lasts until reboot)".to_string(), None),
        Ok(false) => (true, "joining a cgroup never waits for an RCU grace period (turned on earlier this boot by a judge; kernel-wide, until reboot)".to_string(), None),
        Err(why) if why.starts_with(FAVORDYNMODS_ENV) => (
            false,
            format!("left off ({why}): {slow}"),
            Some(format!("{FAVORDYNMODS_ENV}=1 lets the judge turn it on (kernel-wide, until reboot)")),
        ),
        Err(why) => (
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
    uid: u32,
    /// Read buffer for the run's pipes, allocated once.
    buf: Box<[u8]>,
    /// Keeps `uid` this worker's alone while it lives (root only; None in a user namespace).
    _lease: Option<UidLease>,
    cgroups: Result<Cgroups, String>,
    worker_layers: Vec<(String, String)>,
    /// Not root: the worker runs in its own user namespace (see worker.rs).
    userns: bool,
    /// The mounts of the inits the worker holds ready, least recently made first (the worker
    /// keeps the same list, see `worker::STANDBYS`).
    standbys: Vec<MountsKey>,
    /// The cgroup favordynmods mode: Ok(true) turned on by this judge, Ok(false) already on,
    /// Err(why) off; None without root (no cgroups).
    favordynmods: Option<Result<bool, String>>,
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
        let base = tempfile::Builder::new()
            .prefix("judge-sandbox-")
            .tempdir()
            .map_err(|e| format!("cannot create the sandbox folder: {e}"))?
            .keep();
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
        let opted_out = !std::env::var(FAVORDYNMODS_ENV).is_ok_and(|v| v == "1");
        let marked = lease.as_ref().is_some_and(favordynmods_marked);
        let ask_favordynmods = !userns && !opted_out && !marked;
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
            uid: lease.as_ref().map_or(0, UidLease::uid),
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            _lease: lease,
            cgroups,
            worker_layers: Vec::new(),
            standbys: Vec::new(),
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
                    _ if opted_out && !marked => Some(Err(format!("{FAVORDYNMODS_ENV} is not 1"))),
                    None => Some(Ok(false)),
                    Some(Ok(())) => {
                        if let Some(lease) = &this._lease {
                            mark_favordynmods(lease);
                        }
                        Some(Ok(true))
                    }
                    Some(Err(why)) => Some(Err(why)),
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
            ", and without a cgroup an address-space backstop (4 × memory limit + 4 GiB)"
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
            address_space: watch::address_space_backstop(limits.memory),
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
        let group = match &self.cgroups {
            Ok(cgroups) => Some(
                cgroups
                    .create(limits.memory, limits.processes)
                    .map_err(SandboxError::Setup)?,
            ),
            Err(_) => None,
        };
        // The group's cgroup.procs files, already open (sent along; the group keeps its own).
        let procs = match &group {
            Some(g) => g.join_fds().map_err(SandboxError::Setup)?,
            None => Vec::new(),
        };
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
        let mount_sets = if self.userns {
            0
        } else if let Some(i) = self.standbys.iter().position(|k| *k == key) {
            self.standbys.remove(i);
            1
        } else {
            2
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
        fds.extend(mounts.iter().map(|f| f.as_raw_fd()));
        let start = Instant::now();
        wire::send_json(&self.sock, &request, &fds)
            .map_err(io("send a run to the sandbox worker".into()))?;
        drop((stdin, out_w, err_w, procs, mounts));
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
        let kill = |pidfd: &Option<OwnedFd>| {
            if let Some(p) = pidfd {
                sys::pidfd_kill(p.as_raw_fd());
            }
            if let Some(g) = &group {
                g.kill_all();
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
                            self.standbys.push(key.clone());
                            if self.standbys.len() > super::worker::STANDBYS {
                                self.standbys.remove(0);
                            }
                        }
                        finished_at = Instant::now();
                        // Whatever the program left behind dies with it.
                        kill(&pidfd);
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
            let next = self
                .cgroups
                .as_ref()
                .ok()
                .map(|c| (c, limits.memory, limits.processes));
            super::cgroup::retire(g, next);
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
