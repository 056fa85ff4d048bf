//! Plain processes: rlimits, a process group, wait4 rusage and a polling watchdog.
//! The weakest layer; used when nothing better is available.
//!
//! Without a cgroup, the watchdog runs here, in the judge (`watchdog/judge.rs`): the judge is a child
//! subreaper, so every process a run starts stays its descendant (orphans come back to it
//! instead of the machine's init), and each poll finds the run's tree among the user's
//! processes in `/proc`, measures it and kills it at a limit.

use super::cgroup::{Cgroups, RunGroup};
use super::watchdog::{self, JudgeWatchdog};
use super::{Layer, Limits, RunOutcome, RunSpec, SandboxError, Termination};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Naive {
    cgroups: Result<Cgroups, String>,
}

impl Naive {
    pub fn new() -> Naive {
        let cgroups = Cgroups::probe_system();
        if cgroups.is_err() {
            watchdog::become_subreaper();
            SUBREAPER.store(true, Ordering::SeqCst);
        }
        Naive { cgroups }
    }

    /// How each limit holds (for `judge doctor`).
    pub fn limits(&self) -> Vec<super::LimitMechanism> {
        super::limit_mechanisms(
            &self.cgroups,
            super::Watcher::Judge,
            super::ProcessCap::UserRlimit,
        )
    }

    /// The layers of plain processes; `why` tells why the full sandbox is not in use.
    pub fn layers(&self, why: &str) -> Vec<Layer> {
        let mut layers = vec![Layer {
            name: "rlimits".into(),
            active: true,
            detail: if self.cgroups.is_ok() {
                "CPU-time backstop and stack rlimits".into()
            } else {
                "CPU-time backstop, stack, process count and address-space (4 × memory limit + 16 × stack limit + 4 GiB) rlimits".into()
            },
            hint: None,
        }];
        layers.extend(super::cgroup_layers(&self.cgroups));
        for name in [
            "pid namespace",
            "mount namespace and read-only root",
            "network namespace",
            "ipc and uts namespaces",
            "unprivileged user",
            "no_new_privs",
            "seccomp filter",
        ] {
            layers.push(Layer {
                name: name.into(),
                active: false,
                detail: format!("no sandbox worker: {why}; programs run as the invoking user"),
                hint: Some(
                    "run the judge as root (e.g. `sudo judge ...`): the sandbox needs to create namespaces, mount a private root and switch to an unprivileged uid".into(),
                ),
            });
        }
        layers
    }

    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        let stdin = match &spec.stdin {
            Some(p) => Stdio::from(File::open(p).map_err(io(format!("open {}", p.display())))?),
            None => Stdio::null(),
        };
        let stdout_file =
            File::create(&spec.stdout).map_err(io(format!("create {}", spec.stdout.display())))?;
        let stderr_file =
            File::create(&spec.stderr).map_err(io(format!("create {}", spec.stderr.display())))?;
        let limits = spec.limits.clone();
        let mut cmd = command(spec, stdin);
        // SAFETY: getuid has no preconditions.
        let uid = unsafe { libc::getuid() };
        let judge = std::process::id() as i32;
        let backstops = self.backstops(&limits, judge, uid);
        let group = match &self.cgroups {
            Ok(cgroups) => Some(
                cgroups
                    .create(limits.memory, limits.processes)
                    .map_err(SandboxError::Setup)?,
            ),
            Err(_) => None,
        };
        let procs = group
            .as_ref()
            .map(RunGroup::procs_files)
            .unwrap_or_default();
        confine_child(&mut cmd, procs, &limits, backstops);
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(io(format!("start {}", spec.program.display())))?;
        let pid = child.id() as libc::pid_t;
        let over = Arc::new(AtomicBool::new(false));
        let out_drain = child
            .stdout
            .take()
            .map(|p| drain(p, stdout_file, limits.output, Some(over.clone())));
        let err_drain = child
            .stderr
            .take()
            .map(|p| drain(p, stderr_file, limits.stderr, None));
        let mut watchdog = (group.is_none()).then(|| JudgeWatchdog::new(judge, pid, uid, &limits));
        let waited = wait(pid, start, &limits, group.as_ref(), &mut watchdog, &over)?;
        // Daemons and setsid children die with the run.
        kill(pid, group.as_ref());
        if let Some(w) = &mut watchdog {
            w.kill_tree(false);
        }
        let status = waited.status;
        let termination = if libc::WIFSIGNALED(status) {
            Termination::Signaled(libc::WTERMSIG(status))
        } else {
            Termination::Exited(libc::WEXITSTATUS(status))
        };
        let measured = measure(
            group.as_ref(),
            watchdog.as_ref(),
            &waited.usage,
            termination,
            &limits,
        );
        drop(group);
        let stdout_bytes = out_drain.and_then(|d| d.join().ok()).unwrap_or(0);
        let _ = err_drain.map(|d| d.join());
        let cpu_time = measured.cpu_time;
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time: waited.wall_time,
            peak_memory: measured.peak_memory,
            cpu_limit_exceeded: waited.cpu_killed || measured.cpu_killed || cpu_time > limits.cpu,
            wall_limit_exceeded: waited.wall_killed,
            memory_limit_exceeded: measured.memory_evidence,
            output_limit_exceeded: over.load(Ordering::SeqCst),
            stdout_bytes,
        })
    }

    /// Without a cgroup: an address-space backstop, and a process rlimit that leaves the run
    /// `processes` more than the user has now (RLIMIT_NPROC counts all of the user's).
    fn backstops(&self, limits: &Limits, judge: i32, uid: u32) -> Option<(u64, u64)> {
        let proc = std::path::Path::new("/proc");
        self.cgroups.is_err().then(|| {
            let user_tasks = watchdog::descendants(proc, judge, uid).user_tasks;
            (
                watchdog::address_space_backstop(limits.memory, limits.stack),
                user_tasks + u64::from(limits.processes),
            )
        })
    }
}

/// The program with the spec's arguments, environment and working folder, in a process group
/// of its own, its output piped to the judge.
fn command(spec: &RunSpec, stdin: Stdio) -> Command {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.workdir)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    cmd
}

/// Between fork and exec, the child joins the run's cgroup (writing to its `procs` files) and
/// sets its rlimits: the CPU-time backstop, the stack, no core, and the `backstops` (address
/// space, processes) when there is no cgroup.
fn confine_child(
    cmd: &mut Command,
    procs: Vec<std::ffi::CString>,
    limits: &Limits,
    backstops: Option<(u64, u64)>,
) {
    let cpu_secs = limits.cpu.as_secs() + 1;
    let stack = limits.stack;
    // SAFETY: only async-signal-safe calls (open, write, close, setrlimit) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            for p in &procs {
                let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let r = libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
                if r < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            set_rlimit(libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1)?;
            set_rlimit(libc::RLIMIT_STACK, stack, stack)?;
            set_rlimit(libc::RLIMIT_CORE, 0, 0)?;
            if let Some((address_space, nproc)) = backstops {
                set_rlimit(libc::RLIMIT_AS, address_space, address_space)?;
                let mut lim = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                if libc::getrlimit(libc::RLIMIT_NPROC, &mut lim) == 0 {
                    let n = nproc.min(lim.rlim_max);
                    set_rlimit(libc::RLIMIT_NPROC, n, n)?;
                }
            }
            Ok(())
        });
    }
}

/// How a run ended: its wait status and rusage, its wall time, and whether the judge killed it
/// at the wall-clock or (through its cgroup) the CPU-time limit.
struct Waited {
    status: i32,
    usage: libc::rusage,
    wall_time: Duration,
    wall_killed: bool,
    cpu_killed: bool,
}

/// Polls the run until it ends, killing it at the wall-clock limit, when its output is over
/// the limit, and at the CPU-time limit of its cgroup; the watchdog (no cgroup) polls the rest.
fn wait(
    pid: libc::pid_t,
    start: Instant,
    limits: &Limits,
    group: Option<&RunGroup>,
    watchdog: &mut Option<JudgeWatchdog>,
    over: &AtomicBool,
) -> Result<Waited, SandboxError> {
    let mut wall_killed = false;
    let mut cpu_killed = false;
    let mut polls = 0u64;
    let (status, usage) = loop {
        let mut status = 0;
        // SAFETY: rusage is plain old data; wait4 fills it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own child; pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break (status, usage);
        }
        if r < 0 {
            return Err(SandboxError::Io {
                action: "wait for the program".into(),
                source: std::io::Error::last_os_error(),
            });
        }
        if !wall_killed && start.elapsed() > limits.wall {
            wall_killed = true;
            kill(pid, group);
        }
        if over.load(Ordering::SeqCst) {
            kill(pid, group);
        }
        if let Some(w) = watchdog {
            if !wall_killed && !over.load(Ordering::SeqCst) {
                w.poll();
            }
        }
        polls += 1;
        if let (Some(g), false) = (group, cpu_killed) {
            if polls % 4 == 0 && g.cpu_time() > limits.cpu {
                cpu_killed = true;
                kill(pid, Some(g));
            }
        }
        let pause = watchdog
            .as_ref()
            .map_or(watchdog::POLL, JudgeWatchdog::pause);
        std::thread::sleep(pause);
    };
    Ok(Waited {
        status,
        usage,
        wall_time: start.elapsed(),
        wall_killed,
        cpu_killed,
    })
}

/// What an ended run used: CPU time, peak memory, whether it ran out of memory, and whether the
/// watchdog killed it at the CPU-time limit.
struct Measured {
    cpu_time: Duration,
    peak_memory: u64,
    memory_evidence: bool,
    cpu_killed: bool,
}

/// Reads what the run used from its cgroup, else from the watchdog (the whole tree), else from
/// its rusage.
fn measure(
    group: Option<&RunGroup>,
    watchdog: Option<&JudgeWatchdog>,
    usage: &libc::rusage,
    termination: Termination,
    limits: &Limits,
) -> Measured {
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let mut cpu_killed = false;
    let (cpu_time, peak_memory, memory_evidence) = match group {
        Some(g) => {
            let (oom, failcnt) = g.memory_evidence();
            let clean = termination == Termination::Exited(0);
            (g.cpu_time(), g.peak_memory(), oom || (failcnt && !clean))
        }
        None => {
            let own = tv(usage.ru_utime) + tv(usage.ru_stime);
            match watchdog {
                // The program and the orphans the judge reaped: the whole tree.
                // A run shorter than the watchdog's first look still has the program's own
                // peak (rusage), never 0.
                Some(w) => {
                    cpu_killed = w.watched().cpu_killed;
                    let peak = w.watched().peak_memory.max(usage.ru_maxrss as u64 * 1024);
                    (
                        own + w.reaped(),
                        peak,
                        w.watched().memory_killed || peak > limits.memory,
                    )
                }
                None => {
                    let peak = usage.ru_maxrss as u64 * 1024;
                    (own, peak, peak > limits.memory)
                }
            }
        }
    };
    Measured {
        cpu_time,
        peak_memory,
        memory_evidence,
        cpu_killed,
    }
}

/// Set once the judge is the subreaper of its runs (no cgroup): then every process of a run
/// is a descendant of the judge.
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Kills every process of the runs without a cgroup (all of the judge's descendants), for the
/// judge's Ctrl-C cleanup; the judge is about to exit, and they would outlive it.
pub fn kill_runs() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let judge = std::process::id() as i32;
    for _ in 0..100 {
        let found = watchdog::descendants(std::path::Path::new("/proc"), judge, uid);
        if found.pids.is_empty() {
            return;
        }
        for pid in found.pids {
            // SAFETY: SIGKILL to a descendant of the judge: a process of one of its runs.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn kill(pid: libc::pid_t, group: Option<&RunGroup>) {
    // SAFETY: signalling the run's own process group.
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    if let Some(g) = group {
        g.kill_all();
    }
}

/// Copies a pipe into a file, keeping at most `cap` bytes. Past the cap, stdout (with `over`) flags
/// OLE and stops reading (the run's watchdog kills the tree); stderr is read and discarded so the
/// program never blocks.
pub fn drain<R: Read + Send + 'static>(
    mut pipe: R,
    mut file: File,
    cap: u64,
    over: Option<Arc<AtomicBool>>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut kept = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let room = cap.saturating_sub(kept) as usize;
            let take = n.min(room);
            if take > 0 && file.write_all(&buf[..take]).is_ok() {
                kept += take as u64;
            }
            if n > room {
                if let Some(flag) = &over {
                    flag.store(true, Ordering::SeqCst);
                    break;
                }
            }
        }
        kept
    })
}

fn io(action: String) -> impl FnOnce(std::io::Error) -> SandboxError {
    move |source| SandboxError::Io { action, source }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: lim is a valid rlimit.
    if unsafe { libc::setrlimit(resource, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
