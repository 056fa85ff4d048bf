//! One run through the worker, judge side: the run's cgroup (a standby's, a spare or a new
//! one), its pipes and detached mounts, the request, then the watch until it ends: the worker's
//! messages and the output pipes in one poll loop, CPU time from the cgroup, the wall clock,
//! kills through the init's pidfd and the cgroup; and what the standbys and spares become.

use super::sink::{Pumped, Sink, PIPE_GRACE};
use super::{Isolated, FILE_SIZE, TMPFS_INODES};
use crate::sandbox::cgroup::{self, RunGroup};
use crate::sandbox::sys;
use crate::sandbox::wire::{self, Reply, Request};
use crate::sandbox::{RunOutcome, RunSpec, SandboxError, Termination};
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An init the worker holds ready: its mounts, and the cgroup it joined ahead of time (with its
/// memory and process limits), if the judge had one to give it.
pub(super) struct Standby {
    pub(super) key: MountsKey,
    pub(super) group: Option<(u64, u32, RunGroup)>,
}

/// A cgroup handed to the janitor for removal when this goes out of scope, unless taken before.
pub(super) struct RetireLater(pub(super) Option<RunGroup>);

impl Drop for RetireLater {
    fn drop(&mut self) {
        if let Some(g) = self.0.take() {
            cgroup::retire(g);
        }
    }
}

/// What the judge knows of a run's mounts: equal keys let a run use the worker's standby init.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct MountsKey {
    readable: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    scratch_workdir: bool,
    tmpfs_bytes: u64,
}

impl Isolated {
    /// Runs one program to completion (or to a limit): [`Isolated::start`], then
    /// [`Running::wait`].
    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        self.start(spec, RunIo::default())?.wait()
    }

    /// Starts one program and returns at once; the run goes on until [`Running::wait`] (or
    /// [`super::super::wait_all`]) sees it end. Its stdin and stdout are the spec's files unless
    /// `stdio` gives descriptors.
    pub fn start(&mut self, spec: &RunSpec, stdio: RunIo) -> Result<Running<'_>, SandboxError> {
        let io = |action: String| move |source| SandboxError::Io { action, source };
        let limits = spec.limits.clone();
        let stdin: OwnedFd = match (stdio.stdin, &spec.stdin) {
            (Some(fd), _) => fd,
            (None, Some(p)) => File::open(p)
                .map_err(io(format!("open {}", p.display())))?
                .into(),
            (None, None) => File::open("/dev/null")
                .map_err(io("open /dev/null".into()))?
                .into(),
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
        // stdout goes to the judge through a pipe (counted and kept in the file), unless the
        // caller gave a descriptor (a pipe to another run).
        let (stdout, out_w) = match stdio.stdout {
            Some(fd) => (None, fd),
            None => {
                let file = overwrite(&spec.stdout)?;
                let (out_r, out_w) = sys::pipe().map_err(io("create a pipe".into()))?;
                (Some((out_r, file)), out_w)
            }
        };
        let stderr_file = overwrite(&spec.stderr)?;
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
        if self.recent.len() > crate::sandbox::worker::RECENT {
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
        let out = match stdout {
            Some((out_r, file)) => Some(
                Sink::new(out_r, file, limits.output, true)
                    .map_err(io("make the stdout pipe non-blocking".into()))?,
            ),
            None => None,
        };
        let err = Sink::new(err_r, stderr_file, limits.stderr, false)
            .map_err(io("make the stderr pipe non-blocking".into()))?;
        Ok(Running {
            sandbox: self,
            stdout_path: spec.stdout.clone(),
            stderr_path: spec.stderr.clone(),
            limits,
            key,
            group,
            next,
            _stale: stale,
            out,
            err,
            over: false,
            pidfd: None,
            wall_killed: false,
            cpu_killed: false,
            killed: false,
            polls: 0,
            finished: None,
            watched: None,
            start,
            finished_at: start,
            done: false,
        })
    }
}

/// The descriptors a run's stdio comes from instead of the spec's files.
#[derive(Default)]
pub struct RunIo {
    /// Read as stdin instead of `RunSpec::stdin`.
    pub stdin: Option<OwnedFd>,
    /// Written as stdout instead of `RunSpec::stdout` (not counted by the judge: the output
    /// limit does not apply, and `RunOutcome::stdout_bytes` is 0).
    pub stdout: Option<OwnedFd>,
}

/// A run under way in one sandbox (which it holds until the run is over).
pub struct Running<'a> {
    sandbox: &'a mut Isolated,
    stdout_path: PathBuf,
    stderr_path: PathBuf,
    limits: crate::sandbox::Limits,
    key: MountsKey,
    group: Option<RunGroup>,
    /// The cgroup for the standby this run leaves, if any.
    next: RetireLater,
    /// A standby's cgroup with other limits, removed once the run is over.
    _stale: RetireLater,
    /// stdout drained into its file; `None` when the program writes to a descriptor of the caller.
    out: Option<Sink>,
    err: Sink,
    over: bool,
    pidfd: Option<OwnedFd>,
    wall_killed: bool,
    cpu_killed: bool,
    killed: bool,
    polls: u64,
    /// The init's report: (wait status, wall, CPU nanoseconds, max RSS).
    finished: Option<(i32, u64, u64, u64)>,
    watched: Option<crate::sandbox::watchdog::Watched>,
    start: Instant,
    finished_at: Instant,
    /// The outcome was taken (or the run failed): nothing more to read from the worker.
    done: bool,
}

impl Running<'_> {
    /// Waits until the run ends (or is killed at a limit) and measures it.
    pub fn wait(mut self) -> Result<RunOutcome, SandboxError> {
        loop {
            if let Some(outcome) = self.outcome() {
                return outcome;
            }
            let mut pfds = self.poll_fds();
            // SAFETY: valid pollfds (negative descriptors are ignored by poll).
            unsafe {
                libc::poll(
                    pfds.as_mut_ptr(),
                    pfds.len() as libc::nfds_t,
                    self.timeout(),
                )
            };
            self.advance(&pfds)?;
        }
    }

    /// Kills the run's whole tree (signals only: nothing waits here for the run to end). Its
    /// init reports the end (the worker sees it die), and the janitor makes sure the cgroup is
    /// empty before removing it. The init is PID 1 of a namespace that holds every process of
    /// the run, so killing it kills them all; the cgroup is signalled too, for a run whose init
    /// is not known yet.
    pub fn kill(&mut self) {
        self.killed = true;
        self.signal();
    }

    fn signal(&self) {
        if let Some(p) = &self.pidfd {
            sys::pidfd_kill(p.as_raw_fd());
        }
        if let Some(g) = &self.group {
            g.kill();
        }
    }

    /// The descriptors to poll: the worker's socket (until the init reported), stdout, stderr.
    pub(crate) fn poll_fds(&self) -> [libc::pollfd; 3] {
        let out = self.out.as_ref();
        [
            (self.sandbox.sock.as_raw_fd(), self.finished.is_none()),
            (out.map_or(-1, Sink::fd), out.is_some_and(Sink::is_open)),
            (self.err.fd(), self.err.is_open()),
        ]
        .map(|(fd, wanted)| libc::pollfd {
            fd: if wanted { fd } else { -1 },
            events: libc::POLLIN,
            revents: 0,
        })
    }

    /// How long a poll may wait, in milliseconds: 1 while the run goes on (the limits are
    /// checked that often), 10 for the pipes once it ended.
    pub(crate) fn timeout(&self) -> libc::c_int {
        if self.finished.is_none() {
            1
        } else {
            10
        }
    }

    /// The outcome once the run is over and its pipes are drained; `None` before.
    pub(crate) fn outcome(&mut self) -> Option<Result<RunOutcome, SandboxError>> {
        let f = self.finished?;
        // The program's tree is dead once its init has reported; the pipes close when the last
        // writer is gone. A writer that survives anyway is not waited for.
        let open = self.out.as_ref().is_some_and(Sink::is_open) || self.err.is_open();
        if self.done || (open && self.finished_at.elapsed() <= PIPE_GRACE) {
            return None;
        }
        self.done = true;
        Some(self.measure(f))
    }

    /// Takes what one poll found: output, the worker's messages, then the limits.
    pub(crate) fn advance(&mut self, pfds: &[libc::pollfd; 3]) -> Result<(), SandboxError> {
        if pfds[1].revents != 0 {
            if let Some(out) = &mut self.out {
                if out.pump(&mut self.sandbox.buf) == Pumped::Over {
                    self.over = true;
                    if !self.killed {
                        self.kill();
                    }
                }
            }
        }
        if pfds[2].revents != 0 {
            self.err.pump(&mut self.sandbox.buf);
        }
        if pfds[0].revents != 0 {
            return self.receive();
        }
        if self.finished.is_some() || self.killed {
            return Ok(());
        }
        if self.start.elapsed() > self.limits.wall {
            self.wall_killed = true;
            self.kill();
        }
        self.polls += 1;
        if let (Some(g), false) = (&self.group, self.killed) {
            if self.polls % 2 == 0 && g.cpu_time() > self.limits.cpu {
                self.cpu_killed = true;
                self.kill();
            }
        }
        Ok(())
    }

    /// One message of the worker about this run.
    fn receive(&mut self) -> Result<(), SandboxError> {
        let fail = |this: &mut Self, why: String| {
            this.signal();
            this.done = true;
            Err(SandboxError::Setup(why))
        };
        match wire::recv_json::<Reply>(&self.sandbox.sock) {
            Ok(Some((Reply::Started, mut got))) => self.pidfd = got.pop(),
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
                self.finished = Some((status, wall_nanos, cpu_nanos, max_rss));
                self.watched = seen;
                let (limits, key) = (&self.limits, &self.key);
                let (memory, processes) = (limits.memory, limits.processes);
                if standby {
                    // One per kind of run, as the worker keeps them.
                    let standbys = &mut self.sandbox.standbys;
                    standbys.retain(|s| s.key != *key);
                    standbys.push(Standby {
                        key: key.clone(),
                        group: self.next.0.take().map(|g| (memory, processes, g)),
                    });
                    if standbys.len() > crate::sandbox::worker::STANDBYS {
                        let old = standbys.remove(0);
                        drop(RetireLater(old.group.map(|(_, _, g)| g)));
                    }
                } else if let Some(g) = self.next.0.take() {
                    // Nobody joined it.
                    cgroup::give_back(memory, processes, g);
                }
                self.finished_at = Instant::now();
                // Whatever the program left behind dies with its init's namespace.
                match &self.pidfd {
                    Some(p) => sys::pidfd_kill(p.as_raw_fd()),
                    None => self.signal(),
                }
            }
            Ok(Some((Reply::Failed { why }, _))) => return fail(self, why),
            Ok(Some((other, _))) => {
                let why = format!("unexpected message from the sandbox worker: {other:?}");
                return fail(self, why);
            }
            Ok(None) | Err(_) => return fail(self, "the sandbox worker died".into()),
        }
        Ok(())
    }

    /// What the run did and cost, from the init's report `f` and the cgroup or the watchdog.
    fn measure(
        &mut self,
        (status, wall_nanos, cpu_nanos, max_rss): (i32, u64, u64, u64),
    ) -> Result<RunOutcome, SandboxError> {
        let io = |action: String| move |source| SandboxError::Io { action, source };
        let limits = &self.limits;
        let mut cpu_killed = self.cpu_killed;
        let wall_time = if wall_nanos > 0 {
            Duration::from_nanos(wall_nanos)
        } else {
            self.start.elapsed()
        };
        if self.group.is_none() && !self.killed {
            // Without a cgroup the CPU limit is judged afterwards from rusage.
            cpu_killed = Duration::from_nanos(cpu_nanos) > limits.cpu;
        }
        let termination = if libc::WIFSIGNALED(status) {
            Termination::Signaled(libc::WTERMSIG(status))
        } else {
            Termination::Exited(libc::WEXITSTATUS(status))
        };
        let (cpu_time, peak_memory, memory_evidence) = match &self.group {
            Some(g) => {
                let (oom, failcnt) = g.memory_evidence();
                let clean = termination == Termination::Exited(0);
                (g.cpu_time(), g.peak_memory(), oom || (failcnt && !clean))
            }
            // The init's watchdog measured the tree (its CPU time is the whole tree's).
            None => match &self.watched {
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
        if let Some(g) = self.group.take() {
            cgroup::retire(g);
        }
        let stdout_bytes = self.out.as_ref().map_or(0, |o| o.kept);
        if let Some(out) = &self.out {
            out.finish()
                .map_err(io(format!("write {}", self.stdout_path.display())))?;
        }
        self.err
            .finish()
            .map_err(io(format!("write {}", self.stderr_path.display())))?;
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time,
            peak_memory,
            cpu_limit_exceeded: cpu_killed || cpu_time > limits.cpu,
            wall_limit_exceeded: self.wall_killed,
            memory_limit_exceeded: memory_evidence,
            output_limit_exceeded: self.over,
            stdout_bytes,
        })
    }
}

/// How long a run left behind (its caller gave up on it) may take to report its end.
const ABANDON_LIMIT: Duration = Duration::from_secs(5);

impl Drop for Running<'_> {
    /// A run given up before its end is killed, and its end read from the worker, so that the
    /// sandbox's next run does not read this one's report.
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.kill();
        let deadline = Instant::now() + ABANDON_LIMIT;
        while self.finished.is_none() && Instant::now() < deadline {
            let mut pfds = self.poll_fds();
            // SAFETY: valid pollfds (negative descriptors are ignored by poll).
            unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, 10) };
            if self.advance(&pfds).is_err() {
                return;
            }
        }
        if let Some(g) = self.group.take() {
            cgroup::retire(g);
        }
    }
}
