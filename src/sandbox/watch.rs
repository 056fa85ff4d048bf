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
//! What holds, and how exactly (the README's "Without root" says the same):
//! - memory: sampled every [`POLL`]; the run is killed as soon as a sample is above the limit, so
//!   a program can pass the limit by what it touches in about one poll before it dies;
//! - CPU time: checked every [`CPU_EVERY`] polls, killed above the limit, with `RLIMIT_CPU` as a
//!   per-process backstop;
//! - processes: `RLIMIT_NPROC` where it counts only this judge's processes (see
//!   [`nproc_per_user_namespace`]), else killed when a sample counts more;
//! - an address-space rlimit ([`address_space_backstop`]) as a last resort, per process.

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
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

/// One sample of a tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sample {
    /// Memory of the tree in bytes: resident anonymous and shared-memory pages (exact when above
    /// the limit, see [`Tree::sample`]) plus the tmpfs pages.
    pub memory: u64,
    /// Processes and threads (sampled with the CPU time).
    pub tasks: Option<u64>,
    /// CPU time of the live processes and of the children they reaped (when asked for).
    pub cpu: Option<Duration>,
}

/// Files of one process, opened once and read again at each sample.
#[derive(Default)]
struct Proc {
    statm: Option<File>,
    stat: Option<File>,
    /// `status`, read only near the limit.
    status: Option<File>,
    /// The sample that last saw it (entries of processes gone are dropped).
    seen: u64,
}

impl Proc {
    fn open(slot: &mut Option<File>, proc: &Path, pid: i32, file: &str) {
        if slot.is_none() {
            *slot = File::open(proc.join(format!("{pid}/{file}"))).ok();
        }
    }
}

/// Samples a set of processes: keeps their `/proc` files open between samples (opening them
/// costs more than reading them), so a pid that dies and comes back as another process is not
/// mistaken for the old one (the old files read nothing).
pub struct Tree {
    proc: PathBuf,
    tmpfs: Vec<std::ffi::CString>,
    procs: HashMap<i32, Proc>,
    generation: u64,
    buf: Vec<u8>,
    tick: Duration,
    page: u64,
    /// The last sample was above the cheap bound and counted exactly.
    counted_exactly: bool,
}

impl Tree {
    /// `proc` is the `/proc` to read, `tmpfs` the run's tmpfs mounts whose pages count too.
    pub fn new(proc: &Path, tmpfs: &[PathBuf]) -> Tree {
        // SAFETY: sysconf has no preconditions.
        let (hz, page) = unsafe {
            (
                libc::sysconf(libc::_SC_CLK_TCK),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        Tree {
            proc: proc.to_path_buf(),
            tmpfs: tmpfs.iter().map(|p| super::sys::cstr(p)).collect(),
            procs: HashMap::new(),
            generation: 0,
            buf: vec![0; 4096],
            tick: Duration::from_nanos(1_000_000_000 / if hz > 0 { hz as u64 } else { 100 }),
            page: if page > 0 { page as u64 } else { 4096 },
            counted_exactly: false,
        }
    }

    /// Memory (and, if `cpu`, CPU time and tasks) of the processes `pids`.
    ///
    /// Memory is counted cheaply first (`/proc/PID/statm`, about a microsecond a process): its
    /// anonymous pages are what is reported while all resident pages (which add mapped files and
    /// shared memory) stay within `limit`. Above it, the resident anonymous and shared-memory
    /// pages of `/proc/PID/status` decide (some microseconds a process, and no lock the program
    /// may hold: a count by proportional share, `smaps_rollup`, walks each address space under
    /// its lock and took milliseconds against a memory bomb of 32 processes, long enough for it
    /// to triple its memory). Copy-on-write pages that forked processes still share count once
    /// per process, as the kernel's per-process counters do: a conservative count.
    pub fn sample(&mut self, pids: &[i32], cpu: bool, limit: u64) -> Sample {
        self.generation += 1;
        let mut s = Sample {
            cpu: cpu.then_some(Duration::ZERO),
            tasks: cpu.then_some(0),
            ..Sample::default()
        };
        let (mut anon, mut resident, mut ticks, mut nanos) = (0u64, 0u64, 0u64, 0u64);
        for &pid in pids {
            let p = self.procs.entry(pid).or_default();
            p.seen = self.generation;
            Proc::open(&mut p.statm, &self.proc, pid, "statm");
            if let Some((res, shared)) = p
                .statm
                .as_ref()
                .and_then(|f| read(f, &mut self.buf))
                .and_then(parse_statm)
            {
                resident += res;
                anon += res.saturating_sub(shared);
            }
            if cpu {
                // The process's own CPU time in nanoseconds (its CPU clock, which any process
                // may read), and from `stat` its threads and what its reaped children used
                // (clock ticks: `stat` rounds each figure down to a tick).
                nanos += process_cpu_nanos(pid);
                Proc::open(&mut p.stat, &self.proc, pid, "stat");
                if let Some(stat) = p
                    .stat
                    .as_ref()
                    .and_then(|f| read(f, &mut self.buf))
                    .and_then(parse_stat)
                {
                    ticks += stat.children_ticks;
                    s.tasks = s.tasks.map(|t| t + stat.threads);
                }
            }
        }
        let generation = self.generation;
        self.procs.retain(|_, p| p.seen == generation);
        if let Some(c) = &mut s.cpu {
            *c = self.tick * ticks as u32 + Duration::from_nanos(nanos);
        }
        let tmpfs: u64 = self.tmpfs.iter().map(|p| tmpfs_used(p)).sum();
        let (anon, resident) = (anon * self.page + tmpfs, resident * self.page + tmpfs);
        self.counted_exactly = resident > limit;
        s.memory = if self.counted_exactly {
            self.exact(pids) + tmpfs
        } else {
            anon
        };
        s
    }

    /// Resident anonymous and shared-memory bytes of `pids`.
    fn exact(&mut self, pids: &[i32]) -> u64 {
        let mut total = 0;
        for pid in pids {
            let Some(p) = self.procs.get_mut(pid) else {
                continue;
            };
            Proc::open(&mut p.status, &self.proc, *pid, "status");
            if let Some(text) = p.status.as_ref().and_then(|f| read(f, &mut self.buf)) {
                total += parse_status(text).0;
            }
        }
        total
    }
}

/// The whole file (cut to the buffer), read from its start.
fn read<'a>(file: &File, buf: &'a mut [u8]) -> Option<&'a str> {
    let n = file.read_at(buf, 0).ok()?;
    if n == 0 {
        return None;
    }
    std::str::from_utf8(&buf[..n]).ok()
}

/// Bytes held by the tmpfs mounted at `path`.
fn tmpfs_used(path: &std::ffi::CStr) -> u64 {
    // SAFETY: statfs is plain data filled by the call.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: path is a valid C string; st a valid out-parameter.
    if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0 {
        return 0;
    }
    (st.f_blocks.saturating_sub(st.f_bfree)).saturating_mul(st.f_bsize as u64)
}

/// (resident pages, of which file-backed or shared memory) from `/proc/PID/statm`.
fn parse_statm(text: &str) -> Option<(u64, u64)> {
    let mut f = text
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse::<u64>().ok());
    Some((f.next()??, f.next()??))
}

/// (resident anonymous + shared-memory bytes, threads) from the text of `/proc/PID/status`.
fn parse_status(text: &str) -> (u64, u64) {
    let (mut memory, mut threads) = (0, 0);
    for line in text.lines() {
        let value = |l: &str| {
            l.split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        if let Some(v) = line
            .strip_prefix("RssAnon:")
            .or_else(|| line.strip_prefix("RssShmem:"))
        {
            memory += value(v) * 1024;
        } else if let Some(v) = line.strip_prefix("Threads:") {
            threads = value(v);
        }
    }
    (memory, threads)
}

/// CPU time used so far by the threads of process `pid` (alive or ended), from its CPU clock.
fn process_cpu_nanos(pid: i32) -> u64 {
    // The clock id of a process's CPU clock: the pid inverted, shifted, and CPUCLOCK_SCHED
    // (2), as `clock_getcpuclockid` makes it.
    let clock = ((!pid) << 3) | 2;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-parameter; a clock of a process that is gone fails.
    if unsafe { libc::clock_gettime(clock as libc::clockid_t, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The fields of `/proc/PID/stat` the watchdog uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    state: u8,
    ppid: i32,
    /// cutime + cstime: CPU time of the children it reaped, in clock ticks.
    children_ticks: u64,
    threads: u64,
}

fn parse_stat(text: &str) -> Option<Stat> {
    // The command name (field 2) is in parentheses and may hold spaces or parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state): field n is f[n - 3].
    let num = |n: usize| f.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    Some(Stat {
        state: *f.first()?.as_bytes().first()?,
        ppid: f.get(1)?.parse().ok()?,
        children_ticks: num(16)? + num(17)?,
        threads: num(20)?,
    })
}

/// The processes of the run's PID namespace, as its init sees them in its own `/proc` (all but
/// the init itself, pid 1).
fn namespace_pids(proc: &Path, pids: &mut Vec<i32>) {
    pids.clear();
    if let Ok(dir) = std::fs::read_dir(proc) {
        for e in dir.flatten() {
            if let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) {
                if pid != 1 {
                    pids.push(pid);
                }
            }
        }
    }
}

/// CPU time of the children this process reaped (and of the children they reaped).
pub fn reaped_cpu() -> Duration {
    // SAFETY: rusage is plain data filled by getrusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-parameter.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    timeval(usage.ru_utime) + timeval(usage.ru_stime)
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec.max(0) as u64, t.tv_usec.max(0) as u32 * 1000)
}

/// What [`init_wait`] returns: the program's wait status and rusage (`None` if it was lost),
/// and what the watchdog saw.
pub type InitEnd = (Option<(i32, libc::rusage)>, Watched);

/// The run init's wait for its program, with the watchdog: reaps every process of the namespace
/// (orphans come to the init), samples the tree every [`POLL`] and kills all of it
/// (`kill(-1)`, which from a PID namespace's init reaches exactly the namespace) at a limit.
/// Only for the init of a PID namespace.
pub fn init_wait(program: libc::pid_t, watch: &Watch, tmpfs: &[PathBuf]) -> InitEnd {
    let proc = Path::new("/proc");
    let pidfd = super::sys::pidfd_open(program).ok();
    let mut tree = Tree::new(proc, tmpfs);
    let mut watched = Watched::default();
    let mut pids = Vec::new();
    let mut killed = false;
    let mut polls = 0u32;
    let mut crowd = Crowd::default();
    let kill_all = || {
        // SAFETY: from the init of a PID namespace, kill(-1) signals every other process of
        // that namespace and nothing outside it.
        unsafe { libc::kill(-1, libc::SIGKILL) };
    };
    loop {
        loop {
            let mut status = 0;
            // SAFETY: rusage is plain data filled by wait4.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: any child of the init, without blocking; valid out-parameters.
            let r = unsafe { libc::wait4(-1, &mut status, libc::WNOHANG, &mut usage) };
            if r == program {
                return (Some((status, usage)), watched);
            }
            if r < 0 && super::sys::errno() == libc::ECHILD {
                return (None, watched);
            }
            if r <= 0 {
                break;
            }
        }
        if !killed {
            namespace_pids(proc, &mut pids);
            let cpu = polls % CPU_EVERY == 0;
            polls = polls.wrapping_add(1);
            let s = tree.sample(&pids, cpu, watch.memory);
            if crowd.is_crowded(pids.len(), s.tasks) {
                crowd.lower(proc, &pids);
            }
            watched.peak_memory = watched.peak_memory.max(s.memory);
            let tasks = s.tasks.unwrap_or(0);
            watched.peak_tasks = watched.peak_tasks.max(tasks);
            if s.memory > watch.memory {
                watched.memory_killed = true;
            }
            if let Some(live) = s.cpu {
                if (reaped_cpu() + live).as_nanos() > u128::from(watch.cpu_nanos) {
                    watched.cpu_killed = true;
                }
            }
            if watch.kill_above_tasks.is_some_and(|max| tasks > max) {
                watched.tasks_killed = true;
            }
            if watched.memory_killed || watched.cpu_killed || watched.tasks_killed {
                killed = true;
                kill_all();
            }
        }
        wait_a_poll(pidfd.as_ref());
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

/// Sleeps one [`POLL`], or less if the program ends (its pidfd becomes readable).
fn wait_a_poll(pidfd: Option<&OwnedFd>) {
    let ms = POLL.as_millis() as libc::c_int;
    match pidfd {
        Some(fd) => {
            let mut p = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut p, 1, ms) };
        }
        None => std::thread::sleep(POLL),
    }
}

/// Ends the run's namespace from its init: kills every process left (daemons, `setsid`
/// children) and reaps them all, so that their CPU time counts. Returns the CPU time of
/// everything the init reaped.
pub fn end_namespace() -> Duration {
    // SAFETY: kill(-1) from the init reaches exactly its PID namespace (see `init_wait`).
    unsafe { libc::kill(-1, libc::SIGKILL) };
    loop {
        let mut status = 0;
        // SAFETY: blocking wait for any child; orphans of the namespace are the init's.
        let r = unsafe { libc::waitpid(-1, &mut status, 0) };
        if r < 0 && super::sys::errno() != libc::EINTR {
            break;
        }
    }
    reaped_cpu()
}

/// The plain-process fallback's view of the machine: the processes of this user that descend
/// from `root` (the judge, a child subreaper, so orphans of a run come back to it).
pub struct Descendants {
    /// Every descendant of `root`.
    pub pids: Vec<i32>,
    /// Direct children of `root` that are zombies (to reap).
    pub zombie_children: Vec<i32>,
    /// Tasks of this user on the machine (for `RLIMIT_NPROC`, which counts them all).
    pub user_tasks: u64,
}

/// Scans `proc` for the descendants of `root` among the processes owned by `uid`.
pub fn descendants(proc: &Path, root: i32, uid: u32) -> Descendants {
    use std::os::unix::fs::MetadataExt;
    let mut parent: Vec<(i32, i32, u8)> = Vec::new();
    let mut user_tasks = 0;
    let mut buf = vec![0u8; 4096];
    if let Ok(dir) = std::fs::read_dir(proc) {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                continue;
            };
            if e.metadata().map(|m| m.uid()).ok() != Some(uid) {
                continue;
            }
            let Ok(f) = File::open(e.path().join("stat")) else {
                continue;
            };
            if let Some(stat) = read(&f, &mut buf).and_then(parse_stat) {
                user_tasks += stat.threads.max(1);
                parent.push((pid, stat.ppid, stat.state));
            }
        }
    }
    let mut pids = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(pid, ppid, _) in &parent {
            if ppid == p && pid != root && !pids.contains(&pid) {
                pids.push(pid);
                frontier.push(pid);
            }
        }
    }
    let zombie_children = parent
        .iter()
        .filter(|&&(_, ppid, state)| ppid == root && state == b'Z')
        .map(|&(pid, _, _)| pid)
        .collect();
    Descendants {
        pids,
        zombie_children,
        user_tasks,
    }
}

/// Makes this process a child subreaper: orphans among its descendants come back to it instead
/// of the machine's init, so a run's tree stays findable (and killable) from the judge.
pub fn become_subreaper() {
    // SAFETY: plain prctl on the calling process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_gives_anonymous_and_shared_memory_and_threads() {
        let text = "Name:\tprog\nState:\tR (running)\nVmRSS:\t  105000 kB\nRssAnon:\t  102400 kB\nRssFile:\t    2000 kB\nRssShmem:\t     600 kB\nThreads:\t3\n";
        assert_eq!(parse_status(text), ((102_400 + 600) * 1024, 3));
        assert_eq!(parse_status("Name:\tkthread\nThreads:\t1\n"), (0, 1));
    }

    #[test]
    fn stat_fields_after_a_strange_command_name() {
        // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt
        // cmajflt utime stime cutime cstime priority nice num_threads ...
        let text = "42 (a) b (c) S 7 42 42 0 -1 4194560 100 0 0 0 150 20 3 4 20 0 5 0 1234 0 0\n";
        let stat = parse_stat(text).unwrap();
        assert_eq!(
            stat,
            Stat {
                state: b'S',
                ppid: 7,
                children_ticks: 3 + 4,
                threads: 5
            }
        );
        assert_eq!(parse_stat("42 (x"), None);
    }

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

    #[test]
    fn statm_is_read() {
        assert_eq!(parse_statm("765 437 409 5 0 123 0\n"), Some((437, 409)));
        assert_eq!(parse_statm("765\n"), None);
    }

    /// A child holding 64 MiB, sampled like a run's process (not this test process: other
    /// tests measure its peak): its memory is seen, the exact count takes over above the limit,
    /// and a pid that is gone counts nothing.
    #[test]
    fn sampling_sees_memory_touched_and_forgets_the_dead() {
        let mut child = std::process::Command::new("/usr/bin/python3")
            .args(["-c", "b = bytearray(64 << 20); print(flush=True); input()"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        use std::io::BufRead;
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let pid = child.id() as i32;
        let mut tree = Tree::new(Path::new("/proc"), &[]);
        let cheap = tree.sample(&[pid], true, u64::MAX);
        let exact = tree.sample(&[pid], false, 1 << 20);
        let _ = child.kill();
        let _ = child.wait();
        assert!(cheap.memory >= 60 << 20, "{cheap:?}");
        assert_eq!(cheap.tasks, Some(1));
        assert!(cheap.cpu.is_some());
        assert!(tree.counted_exactly, "counted exactly above the limit");
        assert!(exact.memory >= 60 << 20, "{exact:?}");
        assert_eq!((exact.cpu, exact.tasks), (None, None));
        let gone = tree.sample(&[4_194_999], true, u64::MAX);
        assert_eq!((gone.memory, gone.tasks), (0, Some(0)));
        assert!(
            tree.procs.len() == 1,
            "only the last sample's pids are kept"
        );
    }

    #[test]
    fn a_process_cpu_clock_counts_all_its_threads() {
        let me = std::process::id() as i32;
        let before = process_cpu_nanos(me);
        // A thread that burns 20 ms of its own CPU time, then ends.
        std::thread::spawn(|| {
            let own = || {
                let mut ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                // SAFETY: ts is a valid out-parameter.
                unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
                ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
            };
            let mut x = 0u64;
            while own() < 20_000_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        })
        .join()
        .unwrap();
        let after = process_cpu_nanos(me);
        assert!(after >= before + 20_000_000, "{before} then {after}");
        assert_eq!(process_cpu_nanos(4_194_999), 0, "no such process");
    }

    #[test]
    fn descendants_of_this_process_include_a_child_and_its_child() {
        use std::os::unix::fs::MetadataExt;
        let uid = std::fs::metadata("/proc/self").unwrap().uid();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & wait"])
            .spawn()
            .unwrap();
        let (me, pid) = (std::process::id() as i32, child.id() as i32);
        let mut grandchildren = Vec::new();
        for _ in 0..200 {
            grandchildren = descendants(Path::new("/proc"), pid, uid).pids;
            if !grandchildren.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let mine = descendants(Path::new("/proc"), me, uid);
        for &p in grandchildren.iter().chain([&pid]) {
            // SAFETY: SIGKILL to the shell and the sleep this test started.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        let _ = child.wait();
        assert_eq!(grandchildren.len(), 1, "the sleep: {grandchildren:?}");
        assert!(mine.pids.contains(&pid), "{:?}", mine.pids);
        assert!(mine.pids.contains(&grandchildren[0]), "{:?}", mine.pids);
        assert!(
            mine.user_tasks >= 3,
            "this process and the two: {}",
            mine.user_tasks
        );
    }
}
