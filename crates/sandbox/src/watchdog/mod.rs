//! Limits without a cgroup: a watchdog that measures a run's process tree from `/proc` and kills
//! it at a limit.
//!
//! Used when the judge cannot have a cgroup for its runs (not root, and no delegated cgroup v2
//! subtree). In a user namespace, the run's init (PID 1 of the run's PID namespace, whose private
//! `/proc` lists exactly the run's processes) runs [`init_wait`]; the plain-process fallback
//! (`naive.rs`) samples the judge's own descendants the same way. Each sample adds up, over the
//! run's processes, the resident anonymous and shared-memory pages (`RssAnon` + `RssShmem` of
//! `/proc/PID/status`: heap, stacks, static arrays, shared anonymous maps; not the pages of mapped
//! files such as shared libraries, which the kernel can drop) and the pages held by the run's
//! tmpfs mounts (`/tmp` and a scratch folder), and counts tasks (processes and threads). CPU time
//! is what the init already reaped (`RUSAGE_CHILDREN`) plus what live processes used
//! (`/proc/PID/stat`, clock ticks).
//!
//! What holds, and how exactly (the book's "Without root" says the same):
//! - memory: sampled every [`POLL`]; the run is killed as soon as a sample is above the limit, so
//!   a program can pass the limit by what it touches in about one poll before it dies;
//! - CPU time: checked every [`CPU_EVERY`] polls, killed above the limit, with `RLIMIT_CPU` as a
//!   per-process backstop;
//! - processes: `RLIMIT_NPROC` where it counts only this judge's processes (see
//!   [`nproc_per_user_namespace`]), else killed when a sample counts more;
//! - an address-space rlimit ([`address_space_backstop`]) as a last resort, per process.
//!
//! One [`Watchdog`] decides for both watchers: `init.rs` runs it in the run's init
//! ([`init_wait`]), `judge.rs` in the judge for plain processes ([`JudgeWatchdog`]); they differ
//! only in how they find the run's processes, reap them and kill them. `sample.rs` reads the
//! processes' memory, CPU time and tasks from `/proc` ([`Tree`]).

mod init;
mod judge;
mod sample;

pub use init::{end_namespace, init_wait};
pub use judge::{become_subreaper, descendants, JudgeWatchdog};
pub use sample::Tree;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often the watchdog samples memory.
pub const POLL: Duration = Duration::from_millis(1);
/// CPU time is sampled every this many polls.
pub const CPU_EVERY: u32 = 4;

/// What the watchdog enforces for one run (sent to the run's init in a user namespace).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Watch {
    /// Memory of the tree in bytes (resident anonymous and shared pages, plus its tmpfs pages).
    pub memory: u64,
    /// CPU time of the tree in nanoseconds.
    pub cpu_nanos: u64,
    /// Kill the run when a sample counts more tasks (processes and threads) than this. `None`
    /// when `RLIMIT_NPROC` refuses the extra forks itself.
    pub kill_above_tasks: Option<u64>,
    /// `RLIMIT_NPROC` of the program, if set.
    pub nproc: Option<u64>,
    /// `RLIMIT_AS` of each process of the program.
    pub address_space: u64,
}

/// What the watchdog saw of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Watched {
    /// The largest sample of the tree's memory, in bytes.
    pub peak_memory: u64,
    /// The most tasks (processes and threads) seen at once.
    pub peak_tasks: u64,
    /// Killed for memory above the limit.
    pub memory_killed: bool,
    /// Killed for CPU time above the limit.
    pub cpu_killed: bool,
    /// Killed for more tasks than the process limit.
    pub tasks_killed: bool,
}

/// The address-space rlimit set on each process when memory is only watched: 4 × the memory
/// limit + 16 × the stack limit + 4 GiB. Only a backstop in case the watchdog falls behind; it
/// must stay far above what honest programs reserve without touching (glibc gives each thread a
/// 64 MiB malloc arena and a stack as large as the stack rlimit, which the judge sets to the
/// memory limit; the JVM gives each of its about ten threads the `-Xss` stack, which the Java
/// entry sets to the stack limit, and reserves its heap and class space up front; Go reserves
/// large ranges too): 16 threads' stacks. A program that hits it sees a failed allocation
/// (usually RE, not MLE).
pub fn address_space_backstop(memory: u64, stack: u64) -> u64 {
    memory
        .saturating_mul(4)
        .saturating_add(stack.saturating_mul(16))
        .saturating_add(4 << 30)
}

/// Whether `RLIMIT_NPROC` counts processes per user namespace (Linux 5.14 and later), so that in
/// the worker's own user namespace it counts this judge's processes alone. Before 5.14 it counts
/// every process of the user on the machine.
pub fn nproc_per_user_namespace() -> bool {
    static PER_NAMESPACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PER_NAMESPACE.get_or_init(|| {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        kernel_at_least(&release, 5, 14)
    })
}

fn kernel_at_least(release: &str, major: u32, minor: u32) -> bool {
    let mut parts = release.trim().split(['.', '-']);
    let mut next = || parts.next().and_then(|p| p.parse::<u32>().ok());
    match (next(), next()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

/// The nice value of a run's tasks once they outnumber the CPUs.
const CROWD_NICE: libc::c_int = 10;

/// Keeps the watchdog on time when a run has more tasks than the machine has CPUs: the tasks,
/// all busy, would otherwise share the CPUs with the watchdog as equals, and its polls could
/// come tens of milliseconds apart (a memory bomb of 32 processes passed a 64 MiB limit by
/// 150 MiB before its kill, measured here). Lowering their priority (nice 10; the watchdog stays
/// at 0) lets it run as soon as it wakes up. A run with no more tasks than CPUs keeps its
/// priority. CPU time is measured the same either way.
#[derive(Default)]
pub struct Crowd {
    /// Tasks at the last count.
    tasks: u64,
    /// Threads already lowered.
    lowered: std::collections::HashSet<i32>,
    cpus: u64,
}

impl Crowd {
    pub fn is_crowded(&mut self, processes: usize, tasks: Option<u64>) -> bool {
        if self.cpus == 0 {
            // SAFETY: sysconf has no preconditions.
            let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
            self.cpus = if n > 0 { n as u64 } else { 1 };
        }
        if let Some(t) = tasks {
            self.tasks = t;
        }
        self.tasks.max(processes as u64) > self.cpus
    }

    /// Lowers the priority of every thread of `pids` not lowered yet (new ones inherit it from
    /// the thread that made them, once that one is lowered).
    pub fn lower(&mut self, proc: &Path, pids: &[i32]) {
        for pid in pids {
            let Ok(tasks) = std::fs::read_dir(proc.join(format!("{pid}/task"))) else {
                continue;
            };
            for t in tasks.flatten() {
                let Some(tid) = t.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                    continue;
                };
                if self.lowered.insert(tid) {
                    // SAFETY: setpriority on one thread of the run; raising a nice value needs
                    // no privilege.
                    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, CROWD_NICE) };
                }
            }
        }
    }
}

/// The decision both watchers share: samples the run's processes at each poll, keeps the
/// peaks, and says when the run passed a limit (once: from then on the run is being killed and
/// is not sampled again).
pub struct Watchdog {
    limits: Watch,
    proc: PathBuf,
    tree: Tree,
    crowd: Crowd,
    watched: Watched,
    polls: u32,
    killed: bool,
}

impl Watchdog {
    /// `proc` is the `/proc` that lists the run's processes, `tmpfs` the run's tmpfs mounts whose
    /// pages count as its memory.
    pub fn new(proc: &Path, tmpfs: &[PathBuf], limits: Watch) -> Watchdog {
        Watchdog {
            limits,
            proc: proc.to_path_buf(),
            tree: Tree::new(proc, tmpfs),
            crowd: Crowd::default(),
            watched: Watched::default(),
            polls: 0,
            killed: false,
        }
    }

    /// One poll of the run's processes `pids`: memory at every poll, CPU time and tasks every
    /// [`CPU_EVERY`] polls (with `reaped`, the CPU time of the run's processes already reaped,
    /// asked only then). True when the run must be killed now; false once it was said.
    pub fn poll(&mut self, pids: &[i32], reaped: impl FnOnce() -> Duration) -> bool {
        if self.killed {
            return false;
        }
        let cpu = self.polls % CPU_EVERY == 0;
        self.polls = self.polls.wrapping_add(1);
        let s = self.tree.sample(pids, cpu, self.limits.memory);
        if self.crowd.is_crowded(pids.len(), s.tasks) {
            self.crowd.lower(&self.proc, pids);
        }
        let w = &mut self.watched;
        w.peak_memory = w.peak_memory.max(s.memory);
        let tasks = s.tasks.unwrap_or(0);
        w.peak_tasks = w.peak_tasks.max(tasks);
        w.memory_killed |= s.memory > self.limits.memory;
        if let Some(live) = s.cpu {
            w.cpu_killed |= (reaped() + live).as_nanos() > u128::from(self.limits.cpu_nanos);
        }
        w.tasks_killed |= self.limits.kill_above_tasks.is_some_and(|max| tasks > max);
        self.killed = w.memory_killed || w.cpu_killed || w.tasks_killed;
        self.killed
    }

    /// The run passed a limit and is being killed.
    pub fn killed(&self) -> bool {
        self.killed
    }

    /// What the watchdog saw so far.
    pub fn watched(&self) -> &Watched {
        &self.watched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_versions_compare_by_number() {
        assert!(kernel_at_least("6.18.44-fc-v657\n", 5, 14));
        assert!(kernel_at_least("5.14.0-362.el9.x86_64", 5, 14));
        assert!(!kernel_at_least("5.4.0-150-generic", 5, 14));
        assert!(!kernel_at_least("4.19.0", 5, 14));
        assert!(!kernel_at_least("garbage", 5, 14));
    }

    #[test]
    fn the_address_space_backstop_is_generous_and_never_wraps() {
        assert_eq!(
            address_space_backstop(256 << 20, 256 << 20),
            (1 << 30) + (4 << 30) + (4 << 30)
        );
        assert_eq!(address_space_backstop(u64::MAX, 1), u64::MAX);
        assert_eq!(address_space_backstop(1, u64::MAX), u64::MAX);
    }
}
