//! Reading a run's processes from `/proc`: memory (cheaply from `statm`, exactly from `status`
//! near the limit), CPU time (each process's CPU clock and its reaped children's ticks) and
//! tasks, with the files kept open between samples ([`Tree`]).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
            tmpfs: tmpfs.iter().map(|p| crate::sys::cstr(p)).collect(),
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
pub(super) fn read<'a>(file: &File, buf: &'a mut [u8]) -> Option<&'a str> {
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
pub(super) struct Stat {
    pub(super) state: u8,
    pub(super) ppid: i32,
    /// cutime + cstime: CPU time of the children it reaped, in clock ticks.
    pub(super) children_ticks: u64,
    pub(super) threads: u64,
}

pub(super) fn parse_stat(text: &str) -> Option<Stat> {
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
}
