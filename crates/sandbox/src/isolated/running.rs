//! A run under way, judge side ([`Running`]): the worker's messages and the output pipes in one
//! poll loop, CPU time from the cgroup, the wall clock, kills through the init's pidfd and the
//! cgroup; what the standbys and spares become when it ends, and how it is measured. Several
//! runs (each of its own sandbox) are polled together by `sandbox::wait_all`.

use super::run::{MountsKey, RetireLater, Standby};
use super::sink::{Pumped, Sink, PIPE_GRACE};
use super::Isolated;
use crate::cgroup::{self, RunGroup};
use crate::sys;
use crate::wire::{self, Reply};
use crate::{RunOutcome, SandboxError, Termination};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A run under way in one sandbox (which it holds until the run is over).
pub struct Running<'a> {
    pub(super) sandbox: &'a mut Isolated,
    pub(super) stdout_path: PathBuf,
    pub(super) stderr_path: PathBuf,
    pub(super) limits: crate::Limits,
    pub(super) key: MountsKey,
    pub(super) group: Option<RunGroup>,
    /// The cgroup for the standby this run leaves, if any.
    pub(super) next: RetireLater,
    /// A standby's cgroup with other limits, removed once the run is over.
    pub(super) _stale: RetireLater,
    /// stdout drained into its file; `None` when the program writes to a descriptor of the caller.
    pub(super) out: Option<Sink>,
    pub(super) err: Sink,
    pub(super) over: bool,
    pub(super) pidfd: Option<OwnedFd>,
    pub(super) wall_killed: bool,
    pub(super) cpu_killed: bool,
    pub(super) killed: bool,
    /// When the run was stopped through its cgroup only, until its init is killed too.
    pub(super) killed_at: Option<Instant>,
    /// The run's CPU time at the last look at its cgroup, and when that was.
    pub(super) cpu_seen: (Duration, Instant),
    /// The init's report: (wait status, wall, CPU nanoseconds, max RSS).
    pub(super) finished: Option<(i32, u64, u64, u64)>,
    pub(super) watched: Option<crate::watchdog::Watched>,
    pub(super) start: Instant,
    pub(super) finished_at: Instant,
    /// The outcome was taken (or the run failed): nothing more to read from the worker.
    pub(super) done: bool,
}

/// How long a run stopped through its cgroup has for its init to report, before the init is
/// killed too (see [`Running::stop`]).
const KILL_GRACE: Duration = Duration::from_millis(50);

/// The longest wait between two looks at a run under way: how late a cancelled run is killed
/// (see [`crate::Cancel`]). Nearer a limit the judge looks sooner (see [`Running::timeout`]).
pub(crate) const MAX_POLL: Duration = Duration::from_millis(10);

/// The CPUs of the machine: a run's CPU time grows at most this many times as fast as the wall
/// clock.
fn cpus() -> u32 {
    static CPUS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        u32::try_from(n).unwrap_or(1).max(1)
    })
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
    /// is not known yet. Used at the run's limits: it ends at once, with SIGKILL.
    pub fn kill(&mut self) {
        self.killed = true;
        self.signal();
    }

    /// Stops the run because another one ended (`sandbox::wait_all`, a partner). With a cgroup
    /// and a known init, the cgroup's processes are killed and the init, outside it, reports
    /// how the program ended: a program that had exited just before keeps its own status (an
    /// interactor's verdict, whose partner's end stopped it a moment later). The init is
    /// killed too after [`KILL_GRACE`] without its report, and at once without a cgroup or
    /// before the init is known.
    pub fn stop(&mut self) {
        self.killed = true;
        match (&self.group, &self.pidfd) {
            (Some(g), Some(_)) => {
                self.killed_at = Some(Instant::now());
                g.kill();
            }
            _ => self.signal(),
        }
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

    /// How long a poll may wait, in milliseconds: while the run goes on, until the earliest
    /// moment it could pass its wall-clock or CPU limit (its CPU time grows at most as fast as
    /// the wall clock on every CPU at once), at least 1 and at most [`MAX_POLL`]: a run is
    /// killed within a millisecond of its limit as when the judge looked every millisecond,
    /// without waking the judge a thousand times a second beside a program that is far from
    /// it (under load each wake-up took the CPU from an interactive pair's next message);
    /// 10 for the pipes once it ended.
    pub(crate) fn timeout(&self) -> libc::c_int {
        if self.finished.is_some() {
            return 10;
        }
        if self.killed {
            // Its end, or the init's grace, is near.
            return 1;
        }
        let wall_left = self.limits.wall.saturating_sub(self.start.elapsed());
        let left = match &self.group {
            Some(_) => {
                let (cpu, at) = self.cpu_seen;
                let n = cpus();
                // The most CPU time the run can have used since the last look.
                let most = cpu + at.elapsed() * n;
                wall_left.min(self.limits.cpu.saturating_sub(most) / n)
            }
            None => wall_left,
        };
        left.min(MAX_POLL).as_millis().max(1) as libc::c_int
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
        if let (None, Some(at)) = (self.finished, self.killed_at) {
            if at.elapsed() > KILL_GRACE {
                // No report from the init since the cgroup was killed: the init goes too.
                self.killed_at = None;
                self.signal();
            }
        }
        if self.finished.is_some() || self.killed {
            return Ok(());
        }
        if self.start.elapsed() > self.limits.wall {
            self.wall_killed = true;
            self.kill();
        }
        if self.sandbox.cancelled() {
            // The caller gave the run up (a worker whose job was taken): killed like at a
            // limit, within a poll.
            self.kill();
            return Ok(());
        }
        if let (Some(g), false) = (&self.group, self.killed) {
            // At most once a millisecond (output pumped wakes the poll more often).
            if self.cpu_seen.1.elapsed() >= Duration::from_millis(1) {
                let cpu = g.cpu_time();
                self.cpu_seen = (cpu, Instant::now());
                if cpu > self.limits.cpu {
                    self.cpu_killed = true;
                    self.kill();
                }
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
            Ok(Some((Reply::Started, mut got))) => {
                self.pidfd = got.pop();
                if self.killed {
                    // Killed before its init was known (by the caller, or a partner's end): the
                    // program may not have joined the cgroup in time to get that signal.
                    self.signal();
                }
            }
            Ok(Some((
                Reply::Finished {
                    status,
                    wall_nanos,
                    cpu_nanos,
                    max_rss,
                    standby,
                    kept,
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
                    if standbys.len() > crate::worker::STANDBYS {
                        let old = standbys.remove(0);
                        drop(RetireLater(old.group.map(|(_, _, g)| g)));
                    }
                } else if let Some(g) = self.next.0.take() {
                    // Nobody joined it.
                    cgroup::give_back(memory, processes, g);
                }
                self.finished_at = Instant::now();
                if kept {
                    // The init killed what the program left and serves the next run: its
                    // pidfd is no longer this run's.
                    self.pidfd = None;
                } else {
                    // Whatever the program left behind dies with its init's namespace.
                    match &self.pidfd {
                        Some(p) => sys::pidfd_kill(p.as_raw_fd()),
                        None => self.signal(),
                    }
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
            // The init's watchdog measured the tree (its CPU time is the whole tree's); a run
            // shorter than its first look still has the program's own peak (rusage), never 0.
            None => match &self.watched {
                Some(w) => {
                    cpu_killed |= w.cpu_killed;
                    let peak = w.peak_memory.max(max_rss);
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
        if self.finished.is_none() {
            // Its report may still come: the next run of this sandbox would read it as its own.
            self.sandbox.lost = true;
        }
        if let Some(g) = self.group.take() {
            cgroup::retire(g);
        }
    }
}
