//! Runs one untrusted program under limits and measures it.
//!
//! Owns everything between "here is a command and its limits" and "here is how it ended and what it
//! cost": process creation, isolation layers, resource limits, the wall-clock watchdog, output caps,
//! CPU/memory measurement and killing the whole process tree. The engine never spawns untrusted code
//! any other way.
//!
//! Path convention: every path in a [`RunSpec`] is a host path, and the sandboxed program sees it at
//! the same path (identity mapping), so commands can be written with ordinary absolute paths.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

mod cgroup;
pub mod interrupt;
mod isolated;
pub mod leftovers;
pub mod memory_folder;
mod naive;
pub mod pair;
pub mod seccomp;
mod signal;
mod sys;
mod watchdog;
mod wire;
pub mod worker;

pub(crate) use sys::random_u64;

use isolated::CpuLease;
pub use isolated::RunIo;
pub use signal::{signal_name, termination_text};

/// Kills the runs that have no cgroup and no PID namespace of their own (plain processes), for
/// the Ctrl-C cleanup: nothing else would end them when the judge exits.
pub fn kill_plain_runs() {
    naive::kill_runs();
}

/// Waits until the cgroups of finished runs are removed (they are removed in the background);
/// call before the process exits.
pub fn finish() {
    cgroup::flush();
}

/// Resource limits of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// CPU time of the whole process tree (all threads, all children), decided from measurement.
    pub cpu: Duration,
    /// Wall-clock time after which the tree is killed (sleepers, stopped processes, blocked reads).
    pub wall: Duration,
    /// Memory of the whole tree in bytes (resident; reserved-but-untouched memory does not count).
    pub memory: u64,
    /// Stack size in bytes (judges set it as large as the memory limit).
    pub stack: u64,
    /// Bytes the program may write to stdout; writing more is "output limit exceeded".
    pub output: u64,
    /// Bytes of stderr kept; stderr past this is discarded and never blocks the program.
    pub stderr: u64,
    /// Maximum number of processes and threads alive at once in the tree.
    pub processes: u32,
}

/// One program to run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Absolute path of the executable.
    pub program: PathBuf,
    /// Arguments after argv[0].
    pub args: Vec<OsString>,
    /// The complete environment (nothing is inherited from the judge).
    pub env: Vec<(OsString, OsString)>,
    /// Working directory: fresh, writable by the program, the only writable place besides a private /tmp.
    pub workdir: PathBuf,
    /// Give the program an empty private scratch folder (a size- and inode-capped tmpfs counted as
    /// its memory) at `workdir` instead of the host folder; nothing written there survives the run.
    /// Builds say false: the executable they write must stay.
    pub scratch_workdir: bool,
    /// File given as stdin, read-only; `None` means /dev/null.
    pub stdin: Option<PathBuf>,
    /// File that receives stdout (created or truncated by the sandbox; at most `limits.output` bytes).
    pub stdout: PathBuf,
    /// File that receives stderr (at most `limits.stderr` bytes kept).
    pub stderr: PathBuf,
    /// Extra host paths (files or directories) the program may read, e.g. a toolchain, the built
    /// binary, a checker's input files. Besides them, only the system view is visible
    /// ([`worker::SystemView`]: /usr, /bin, /sbin, /lib*, the loader's cache and the
    /// alternatives' links of /etc); paths missing on the host are skipped.
    pub readable: Vec<PathBuf>,
    pub limits: Limits,
}

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// Exited normally with this code.
    Exited(i32),
    /// Killed by this signal (also when the sandbox killed it for a limit).
    Signaled(i32),
}

/// What one run did and cost. All figures belong to this run's process tree alone.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub termination: Termination,
    /// CPU time (user + system) of the whole tree.
    pub cpu_time: Duration,
    /// Wall-clock time from start to the end of the last process.
    pub wall_time: Duration,
    /// Peak memory of the tree in bytes.
    pub peak_memory: u64,
    /// Measured CPU time exceeded `limits.cpu` (the tree was killed, or finished too late).
    pub cpu_limit_exceeded: bool,
    /// The wall-clock limit expired and the tree was killed.
    pub wall_limit_exceeded: bool,
    /// Evidence that the memory limit was hit (OOM kill, failed allocation counter, or peak > limit).
    pub memory_limit_exceeded: bool,
    /// The program tried to write more than `limits.output` bytes to stdout.
    pub output_limit_exceeded: bool,
    /// Bytes written to the stdout file.
    pub stdout_bytes: u64,
}

impl RunOutcome {
    /// A run that ended so, within every limit: 10 ms of CPU, 20 ms of wall time, 1 MiB (for
    /// tests of the decisions made on outcomes).
    pub fn ended(termination: Termination) -> RunOutcome {
        RunOutcome {
            termination,
            cpu_time: Duration::from_millis(10),
            wall_time: Duration::from_millis(20),
            peak_memory: 1 << 20,
            cpu_limit_exceeded: false,
            wall_limit_exceeded: false,
            memory_limit_exceeded: false,
            output_limit_exceeded: false,
            stdout_bytes: 0,
        }
    }
}

/// One isolation layer and whether it is in force.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Layer {
    /// Short name, e.g. "pid namespace", "cgroup memory", "seccomp".
    pub name: String,
    pub active: bool,
    /// Why it is active or missing.
    pub detail: String,
    /// How to enable it when missing.
    pub hint: Option<String>,
}

/// How one limit is enforced and measured (for `judge doctor`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LimitMechanism {
    /// "memory", "cpu time" or "processes".
    pub limit: String,
    /// What enforces it, e.g. "cgroup v1" or "watchdog".
    pub mechanism: String,
    /// The kernel holds the limit and measures the run (no overshoot, no sampling).
    pub exact: bool,
    /// How, and how far from exact.
    pub detail: String,
}

/// Who measures a run without a cgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watcher {
    /// The run's init, inside the run's PID namespace.
    Init,
    /// The judge, among the user's processes (plain processes).
    Judge,
}

/// What holds the process limit without a cgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProcessCap {
    /// RLIMIT_NPROC of a uid that is this judge's alone.
    DedicatedUid,
    /// RLIMIT_NPROC counted in the worker's user namespace (Linux 5.14+).
    UserNamespace,
    /// Counted by the watchdog, which kills the run above the limit.
    Watchdog,
    /// RLIMIT_NPROC of the user, raised by what the user runs already, and the watchdog.
    UserRlimit,
}

/// The limit mechanisms of a sandbox: its cgroups when it has them, else the watchdog.
fn limit_mechanisms(
    cgroups: &Result<cgroup::Cgroups, String>,
    watcher: Watcher,
    processes: ProcessCap,
) -> Vec<LimitMechanism> {
    let limit = |limit: &str, mechanism: &str, exact: bool, detail: String| LimitMechanism {
        limit: limit.into(),
        mechanism: mechanism.into(),
        exact,
        detail,
    };
    if let Ok(c) = cgroups {
        let how = c.describe();
        return vec![
            limit("memory", &how, true, "the kernel holds the run's whole tree to the limit (an allocation beyond it fails or the OOM killer ends the run: MLE); peak memory from the cgroup".into()),
            limit("cpu time", &how, true, "CPU time of every thread and child from the cgroup, checked every 2 ms: the tree is killed above the limit (TLE); RLIMIT_CPU as a backstop".into()),
            limit("processes", &how, true, "pids.max: a fork beyond the limit fails".into()),
        ];
    }
    let poll = watchdog::POLL.as_millis();
    let cpu_poll = poll * u128::from(watchdog::CPU_EVERY);
    let (mechanism, who, tmpfs, unseen) = match watcher {
        Watcher::Init => (
            "watchdog in the run's init",
            "the run's init (PID 1 of the run's PID namespace) sums, every",
            " and the pages of its /tmp and scratch folder",
            "memory no process maps is refused (memfd_create, memfd_secret, shmget and msgget fail with EPERM)",
        ),
        Watcher::Judge => (
            "watchdog in the judge",
            "the judge finds the run's processes in /proc (it is their subreaper, so orphans stay its descendants) and sums, every",
            "",
            "plain processes have no seccomp filter: memory a program keeps in memfds or System V segments it no longer maps is not counted",
        ),
    };
    let backstop = "each process's address space is capped at 4 × the limit + 16 × the stack limit + 4 GiB as a last backstop (a program that hits it sees a failed allocation: RE, not MLE)";
    let (process_mechanism, process_exact, process_detail) = match processes {
        ProcessCap::DedicatedUid => ("rlimit", true, "RLIMIT_NPROC of the judge's own sandbox uid: a fork beyond the limit fails".to_string()),
        ProcessCap::UserNamespace => ("rlimit", false, "RLIMIT_NPROC, counted in the judge's own user namespace (Linux 5.14+): a fork beyond the limit fails; the sandbox worker and up to two run inits count too, so the run may have up to 3 more".into()),
        ProcessCap::Watchdog => (mechanism, false, format!("the watchdog counts the run's processes and threads every {cpu_poll} ms and kills the run above the limit (before Linux 5.14, RLIMIT_NPROC would count every process of the user)")),
        ProcessCap::UserRlimit => (mechanism, false, format!("RLIMIT_NPROC set to the user's processes at the start plus the limit (it counts every process of the user), and the watchdog kills the run when it counts more than the limit (every {cpu_poll} ms)")),
    };
    vec![
        limit("memory", mechanism, false, format!("{who} {poll} ms, the resident anonymous and shared memory of the run's processes (pages that forked processes still share copy-on-write count once per process){tmpfs}, and kills the run above the limit (MLE): a program can pass the limit by what it touches before the next poll (1–3 MiB measured for one process touching 1 GiB as fast as it can; more when the run's processes outnumber the CPUs, which the watchdog then lowers to nice 10 to keep its pace); {unseen}; {backstop}")),
        limit("cpu time", mechanism, false, format!("CPU time of the whole tree (live processes from their CPU clocks, finished ones from wait4) checked every {cpu_poll} ms: the tree is killed above the limit (TLE); the time reported is exact; RLIMIT_CPU per process as a backstop")),
        limit("processes", process_mechanism, process_exact, process_detail),
    ]
}

/// Overall isolation level, reported in JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationLevel {
    /// Every layer active: measurements exact, hostile code contained.
    Full,
    /// Some layers missing: runs work, containment or measurement is weaker.
    Partial,
    /// Plain processes with rlimits and wait4 only.
    None,
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot {action}: {source}")]
    Io {
        action: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Setup(String),
}

/// Set to 0, a judge that is not root runs plain processes instead of entering a user namespace
/// (as where user namespaces are disabled).
const NO_USERNS_ENV: &str = "JUDGE_USERNS";

/// A prepared sandbox. Create one per worker and reuse it for many runs; runs through one
/// `Sandbox` happen one at a time.
pub struct Sandbox {
    backend: Backend,
    /// The CPU this sandbox's runs are pinned to, held while it lives ([`Sandbox::take_cpu`]).
    cpu: Option<CpuLease>,
}

enum Backend {
    Isolated(Box<isolated::Isolated>),
    /// Plain processes; the reason the full sandbox is unavailable.
    Naive(naive::Naive, String),
}

/// A flag another thread sets to stop a sandbox's runs: each run under way, or started
/// while it is set, is killed within a poll (at most 10 ms) and ends as killed at a limit does. The full
/// sandbox only: plain processes end at their limits.
pub type Cancel = std::sync::Arc<std::sync::atomic::AtomicBool>;

impl Sandbox {
    /// Runs of this sandbox are killed while `cancel` is set (see [`Cancel`]); `None`: never.
    pub fn set_cancel(&mut self, cancel: Option<Cancel>) {
        if let Backend::Isolated(i) = &mut self.backend {
            i.set_cancel(cancel);
        }
    }

    /// Takes a CPU that no other slot on this machine holds (`CpuLease::take`) and runs
    /// this sandbox's programs and the calling thread (which drives them) on it alone, until
    /// the sandbox is dropped: a service slot, whose runs then never wait for another slot's.
    /// Threads and sandboxes the calling thread starts later run there too. `Ok(None)`
    /// (nothing pinned): every CPU is held; `Err`: nothing to choose from or no lease folder.
    /// Taken once; later calls say which.
    pub fn take_cpu(&mut self) -> Result<Option<usize>, SandboxError> {
        if self.cpu.is_none() {
            let Some(lease) = CpuLease::take().map_err(SandboxError::Setup)? else {
                return Ok(None);
            };
            let cpu = lease.cpu();
            self.pin_to(lease).map_err(|source| SandboxError::Io {
                action: format!("run a slot on CPU {cpu} alone"),
                source,
            })?;
        }
        Ok(self.cpu.as_ref().map(CpuLease::cpu))
    }

    /// Runs this sandbox's programs and the calling thread on `lease`'s CPU (see
    /// [`Sandbox::take_cpu`]); the lease is held while the sandbox lives.
    fn pin_to(&mut self, lease: CpuLease) -> std::io::Result<()> {
        if let Backend::Isolated(i) = &self.backend {
            i.pin(lease.cpu())?;
        }
        isolated::pin_thread(lease.cpu())?;
        self.cpu = Some(lease);
        Ok(())
    }

    /// Probes the machine and prepares the strongest isolation available: the full sandbox when
    /// the judge runs as root on Linux, else plain processes under rlimits (and cgroups if usable).
    pub fn new() -> Result<Sandbox, SandboxError> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let backend = if !root && std::env::var_os(NO_USERNS_ENV).is_some_and(|v| v == "0") {
            let why = format!("{NO_USERNS_ENV}=0: the user namespace is not used");
            Backend::Naive(naive::Naive::new(), why)
        } else {
            match isolated::Isolated::new() {
                Ok(i) => Backend::Isolated(Box::new(i)),
                Err(why) => Backend::Naive(naive::Naive::new(), why),
            }
        };
        // What judges that are gone left in $TMPDIR goes, in the background, once this judge's
        // folders there are made (once per process; their cgroups go when the cgroups are
        // probed).
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| cgroup::in_background(|| drop(crate::leftovers::sweep_temp())));
        Ok(Sandbox { backend, cpu: None })
    }

    /// Runs one program to completion (or to a limit) and reports how it ended.
    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        match &mut self.backend {
            Backend::Isolated(i) => i.run(spec),
            Backend::Naive(n, _) => n.run(spec),
        }
    }

    /// Starts one program and returns at once with its [`Run`], which holds this sandbox until
    /// the run is over: runs that go on together each need a sandbox of their own (each with
    /// its own uid, cgroup and limits, and measured alone). `stdio` may replace the spec's
    /// stdin and stdout with descriptors, such as the ends of a [`pipe`] to another run.
    /// Only the full sandbox runs programs side by side: plain processes are watched as the
    /// judge's descendants, which would mix two runs up.
    pub fn start(&mut self, spec: &RunSpec, stdio: RunIo) -> Result<Run<'_>, SandboxError> {
        match &mut self.backend {
            Backend::Isolated(i) => Ok(Run(i.start(spec, stdio)?)),
            Backend::Naive(_, why) => Err(SandboxError::Setup(format!(
                "runs side by side need the full sandbox, unavailable here: {why}"
            ))),
        }
    }

    /// Whether a run asked for a scratch working folder gets a private one of its own (a tmpfs
    /// in its mount namespace), so the host folder at that path is never written to and can be
    /// reused. The fallback runs programs in the host folder itself.
    pub fn private_scratch(&self) -> bool {
        matches!(self.backend, Backend::Isolated(_))
    }

    /// Each isolation layer with its status (for `judge doctor`).
    pub fn layers(&self) -> Vec<Layer> {
        match &self.backend {
            Backend::Isolated(i) => i.layers(),
            Backend::Naive(n, why) => n.layers(why),
        }
    }

    /// Turns on the kernel-wide settings that make runs cheaper (`judge doctor --tune`): the
    /// cgroup favordynmods mode, until reboot. Says what it did, or why it could not.
    pub fn tune() -> Result<String, String> {
        isolated::tune()
    }

    /// How each limit is enforced and measured, and how exactly (for `judge doctor`).
    pub fn limits(&self) -> Vec<LimitMechanism> {
        match &self.backend {
            Backend::Isolated(i) => i.limits(),
            Backend::Naive(n, _) => n.limits(),
        }
    }

    /// Settings that make runs cheaper, not safer, with their status (for `judge doctor`).
    pub fn notes(&self) -> Vec<Layer> {
        match &self.backend {
            Backend::Isolated(i) => i.notes(),
            Backend::Naive(..) => Vec::new(),
        }
    }

    /// What every program sees of the host besides its run's own paths (for `judge doctor`);
    /// `None` when programs see the whole host (no mount namespace).
    pub fn system_view(&self) -> Option<worker::SystemView> {
        match &self.backend {
            Backend::Isolated(_) => Some(worker::SystemView::of_host()),
            Backend::Naive(..) => None,
        }
    }

    /// Summary of [`Sandbox::layers`].
    pub fn level(&self) -> IsolationLevel {
        let layers = self.layers();
        if layers.iter().all(|l| l.active) {
            IsolationLevel::Full
        } else if layers.iter().any(|l| l.active) {
            IsolationLevel::Partial
        } else {
            IsolationLevel::None
        }
    }
}

/// A run under way (see [`Sandbox::start`]). Dropped before its end, it is killed.
pub struct Run<'a>(isolated::Running<'a>);

impl Run<'_> {
    /// Waits until the run ends (or is killed at a limit) and measures it.
    pub fn wait(self) -> Result<RunOutcome, SandboxError> {
        self.0.wait()
    }

    /// Stops the run now (another one ended): its whole tree is killed, and [`Run::wait`]
    /// reports how it ended, its own exit when it had just exited by itself.
    pub fn kill(&mut self) {
        self.0.stop();
    }
}

/// A pipe for two runs' stdio: (read end, write end), both close-on-exec in the judge.
pub fn pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd), SandboxError> {
    sys::pipe().map_err(|source| SandboxError::Io {
        action: "create a pipe".into(),
        source,
    })
}

/// Waits for every run of `runs` at once and returns their outcomes in the same order. When
/// `kill_rest(i, outcome)` says so for the run `i` that just ended (or when a run fails to
/// report), every run still going is killed: a pair of programs talking through pipes ends
/// together when one of them ends badly.
pub fn wait_all(
    runs: &mut [Run<'_>],
    mut kill_rest: impl FnMut(usize, &RunOutcome) -> bool,
) -> Vec<Result<RunOutcome, SandboxError>> {
    let mut results: Vec<Option<Result<RunOutcome, SandboxError>>> =
        runs.iter().map(|_| None).collect();
    loop {
        let mut kill = false;
        for (i, run) in runs.iter_mut().enumerate() {
            if results[i].is_none() {
                if let Some(outcome) = run.0.outcome() {
                    kill |= outcome.as_ref().map_or(true, |o| kill_rest(i, o));
                    results[i] = Some(outcome);
                }
            }
        }
        if kill {
            for (i, run) in runs.iter_mut().enumerate() {
                if results[i].is_none() {
                    run.kill();
                }
            }
        }
        if results.iter().all(Option::is_some) {
            return results.into_iter().flatten().collect();
        }
        let mut pfds: Vec<libc::pollfd> = Vec::with_capacity(3 * runs.len());
        let mut timeout = libc::c_int::MAX;
        for (i, run) in runs.iter().enumerate() {
            let mut fds = run.0.poll_fds();
            if results[i].is_some() {
                fds.iter_mut().for_each(|p| p.fd = -1);
            } else {
                timeout = timeout.min(run.0.timeout());
            }
            pfds.extend(fds);
        }
        // SAFETY: valid pollfds (negative descriptors are ignored by poll).
        unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout) };
        let mut failed = false;
        for (i, run) in runs.iter_mut().enumerate() {
            if results[i].is_some() {
                continue;
            }
            let fds: [libc::pollfd; 3] = pfds[3 * i..3 * i + 3].try_into().expect("three");
            if let Err(e) = run.0.advance(&fds) {
                results[i] = Some(Err(e));
                failed = true;
            }
        }
        if failed {
            for (i, run) in runs.iter_mut().enumerate() {
                if results[i].is_none() {
                    run.kill();
                }
            }
        }
    }
}

/// The cgroup layers, active or with the reason they are missing.
fn cgroup_layers(cgroups: &Result<cgroup::Cgroups, String>) -> Vec<Layer> {
    [
        ("cgroup memory", "memory limit and peak memory of the run's tree"),
        ("cgroup cpuacct", "CPU time of the run's tree (threads and children)"),
        ("cgroup pids", "process limit; kills the whole tree"),
    ]
    .into_iter()
    .map(|(name, what)| match cgroups {
        Ok(c) => Layer {
            name: name.into(),
            active: true,
            detail: format!("{what} ({})", c.describe()),
            hint: None,
        },
        Err(why) => Layer {
            name: name.into(),
            active: false,
            detail: format!("{why}; a watchdog holds the limits instead (see limits)"),
            hint: Some(
                "run as root on a machine with cgroup v1 memory, cpuacct and pids hierarchies, or cgroup v2 with those controllers; without root, in a cgroup v2 subtree delegated to you: `systemd-run --user --scope -p Delegate=yes judge ...`".into(),
            ),
        },
    })
    .collect()
}
