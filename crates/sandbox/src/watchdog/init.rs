//! The watchdog in the run's init (a user namespace without a cgroup): PID 1 of the run's PID
//! namespace, whose own `/proc` lists exactly the run's processes, reaps them all, polls the
//! [`Watchdog`] and kills the whole namespace (`kill(-1)`) at a limit.

use super::{Watch, Watchdog, Watched, POLL};
use crate::sys;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let pidfd = sys::pidfd_open(program).ok();
    let mut dog = Watchdog::new(proc, tmpfs, watch.clone());
    let mut pids = Vec::new();
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
                return (Some((status, usage)), dog.watched().clone());
            }
            if r < 0 && sys::errno() == libc::ECHILD {
                return (None, dog.watched().clone());
            }
            if r <= 0 {
                break;
            }
        }
        if !dog.killed() {
            namespace_pids(proc, &mut pids);
            if dog.poll(&pids, reaped_cpu) {
                kill_all();
            }
        }
        wait_a_poll(pidfd.as_ref());
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
        if r < 0 && sys::errno() != libc::EINTR {
            break;
        }
    }
    reaped_cpu()
}
