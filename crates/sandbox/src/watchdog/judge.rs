//! The watchdog in the judge, for plain processes without a cgroup: the judge is a child
//! subreaper, so every process of a run stays its descendant; each poll finds the run's tree
//! among the user's processes in `/proc` ([`descendants`]), reaps the orphans that ended,
//! polls the [`Watchdog`] and kills the tree process by process at a limit.

use super::sample::{parse_stat, read};
use super::{address_space_backstop, Watch, Watchdog, Watched, POLL};
use crate::Limits;
use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

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

/// The judge-side watchdog of a run without a cgroup.
pub struct JudgeWatchdog {
    judge: i32,
    program: i32,
    uid: u32,
    dog: Watchdog,
    /// CPU time of the orphans the judge reaped.
    reaped: Duration,
    /// How long the last poll took.
    took: Duration,
}

impl JudgeWatchdog {
    /// Watches the run whose program is `program`, a child of the judge `judge`, run as `uid`.
    pub fn new(judge: i32, program: i32, uid: u32, limits: &Limits) -> JudgeWatchdog {
        let watch = Watch {
            memory: limits.memory,
            cpu_nanos: limits.cpu.as_nanos().min(u128::from(u64::MAX)) as u64,
            // RLIMIT_NPROC counts the user's other processes too, so it cannot be exact: the
            // watchdog counts.
            kill_above_tasks: Some(u64::from(limits.processes)),
            nproc: None,
            address_space: address_space_backstop(limits.memory, limits.stack),
        };
        JudgeWatchdog {
            judge,
            program,
            uid,
            dog: Watchdog::new(Path::new("/proc"), &[], watch),
            reaped: Duration::ZERO,
            took: Duration::ZERO,
        }
    }

    /// The run's processes: the judge's descendants (it runs one program at a time). Reaps
    /// the orphans that ended, counting their CPU time.
    fn find(&mut self) -> Vec<i32> {
        let found = descendants(Path::new("/proc"), self.judge, self.uid);
        for z in found.zombie_children {
            if z != self.program {
                self.reap(z);
            }
        }
        found.pids
    }

    fn reap(&mut self, pid: i32) {
        let mut status = 0;
        // SAFETY: rusage is plain data filled by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: an orphan of the run that came to the judge (not a child std knows about).
        if unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) } == pid {
            let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
            self.reaped += tv(usage.ru_utime) + tv(usage.ru_stime);
        }
    }

    /// One poll: finds the run's processes, and kills the tree at a limit.
    pub fn poll(&mut self) {
        if self.dog.killed() {
            return;
        }
        let began = Instant::now();
        let pids = self.find();
        let reaped = self.reaped;
        if self.dog.poll(&pids, || reaped) {
            self.kill_tree(true);
        }
        self.took = began.elapsed();
    }

    /// Between polls: at least [`POLL`], and twice what the last poll took (a user with many
    /// processes makes the scan of `/proc` dearer), so the watchdog uses at most a third of a
    /// CPU.
    pub fn pause(&self) -> Duration {
        POLL.max(self.took * 2)
    }

    /// Kills every process of the run until none is left but the program (which the judge
    /// waits for: `program_unreaped` while it has not, so its pid is still its own), and reaps
    /// the orphans.
    pub fn kill_tree(&mut self, program_unreaped: bool) {
        for _ in 0..1000 {
            let pids = self.find();
            let alive: Vec<i32> = pids.into_iter().filter(|&p| p != self.program).collect();
            if program_unreaped {
                // SAFETY: SIGKILL to the program, a child not reaped yet.
                unsafe { libc::kill(self.program, libc::SIGKILL) };
            }
            if alive.is_empty() {
                return;
            }
            for p in alive {
                // SAFETY: SIGKILL to a descendant of the judge: a process of this run.
                unsafe { libc::kill(p, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// CPU time of the orphans the judge reaped.
    pub fn reaped(&self) -> Duration {
        self.reaped
    }

    /// What the watchdog saw.
    pub fn watched(&self) -> &Watched {
        self.dog.watched()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
