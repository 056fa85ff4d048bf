//! The run's init (PID 1 of the run's PID namespace): sets up its mounts, locks itself down,
//! waits for its run, starts the program (see `spawn.rs`), waits for it (under the watchdog
//! when the run has no cgroup) and reports how it ended.

use super::mounts::setup_mounts;
use super::spawn::{run, run_ahead, STEPS};
use super::standby::MountSpec;
use crate::seccomp;
use crate::sys;
use crate::watchdog;
use crate::wire::{self, Request};
use std::ffi::OsStr;
use std::io;
use std::os::fd::{OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// What the run init tells the worker through its result pipe.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) enum InitReport {
    Finished {
        status: i32,
        wall_nanos: u64,
        cpu_nanos: u64,
        max_rss: u64,
        watched: Option<watchdog::Watched>,
    },
    Failed {
        why: String,
    },
}

/// The run's init (PID 1 of the run's namespace): sets up the mounts, then waits for the run
/// on `control`. Returns what to report (nothing when the worker dropped it unused). `join` is
/// `Some` for a standby: its program's process is forked at once and joins those cgroups.
pub(super) fn init(
    spec: &MountSpec,
    mounts: &[OwnedFd],
    join: Option<Vec<OwnedFd>>,
    control: OwnedFd,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
) -> Option<InitReport> {
    // SAFETY: plain prctl; if the worker is already gone, leave.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    if let Err(e) = setup_mounts(spec, mounts) {
        return Some(InitReport::Failed { why: e.to_string() });
    }
    if let Err(why) = lock_down(filter) {
        return Some(InitReport::Failed { why });
    }
    if let Some(join) = join {
        return run_ahead(join, control, stack);
    }
    let (req, fds) = match wire::recv_json::<Request>(&control) {
        Ok(Some(m)) => m,
        Ok(None) | Err(_) => return None,
    };
    if fds.len() != 3 + req.cgroup_fds {
        return Some(InitReport::Failed {
            why: format!("the run init got {} descriptors", fds.len()),
        });
    }
    Some(run(&req, fds, stack))
}

/// Moves the calling process into the cgroup whose `cgroup.procs` is open as `fd`.
pub(super) fn join_cgroup(fd: RawFd) -> io::Result<()> {
    // SAFETY: writing one byte from a constant to a descriptor we hold.
    if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } == 1 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What the init can do for the program before it is asked to: everything it inherits that
/// does not depend on the run. Default signal dispositions and an empty mask (the worker ignores
/// SIGPIPE); an empty capability bounding set (no exec can gain a capability; the init keeps
/// the ones it has); `no_new_privs`; the seccomp filter (the init needs no denied call after its
/// mounts, and the program inherits the filter).
pub(super) fn lock_down(filter: &[seccomp::Insn]) -> Result<(), String> {
    // SAFETY: plain signal, prctl and sigprocmask calls.
    unsafe {
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                match sys::errno() {
                    libc::EINVAL => break,
                    e => {
                        let e = io::Error::from_raw_os_error(e);
                        return Err(format!("empty the capability bounding set: {e}"));
                    }
                }
            }
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(format!("set no_new_privs: {}", io::Error::last_os_error()));
        }
    }
    seccomp::install(filter).map_err(|errno| {
        let e = io::Error::from_raw_os_error(errno);
        format!("install the seccomp filter: {e}")
    })
}

/// What the init watches of a run without a cgroup (see `watchdog/`): the limits, and the tmpfs
/// mounts whose pages count as the run's memory.
pub(super) fn watch_of(req: &Request) -> Option<(watchdog::Watch, Vec<PathBuf>)> {
    let watch = req.watch.clone()?;
    let mut tmpfs = vec![PathBuf::from("/tmp")];
    if req.scratch_workdir {
        tmpfs.push(PathBuf::from(OsStr::from_bytes(&req.workdir)));
    }
    Some((watch, tmpfs))
}

/// Waits for the program `pid` of a run: under the watchdog when `watch` is given (which
/// measures the tree and kills it at a limit), else by reaping every child until `pid` ends.
/// Its wait status and usage, and what the watchdog saw.
pub(super) fn wait_program(
    pid: libc::pid_t,
    watch: Option<&(watchdog::Watch, Vec<PathBuf>)>,
) -> (Option<(i32, libc::rusage)>, Option<watchdog::Watched>) {
    match watch {
        Some((watch, tmpfs)) => {
            let (status, seen) = watchdog::init_wait(pid, watch, tmpfs);
            (status, Some(seen))
        }
        None => (reap_until(pid), None),
    }
}

/// Reaps every child until `pid` ends (orphans of the namespace are the init's children too);
/// its status and resource usage.
pub(super) fn reap_until(pid: libc::pid_t) -> Option<(i32, libc::rusage)> {
    loop {
        let mut status = 0;
        // SAFETY: rusage is plain data filled by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waiting for any child of the init.
        let r = unsafe { libc::wait4(-1, &mut status, 0, &mut usage) };
        if r == pid {
            return Some((status, usage));
        }
        if r < 0 && sys::errno() != libc::EINTR {
            return None;
        }
    }
}

/// The report of a run whose program started at `start`, from its start failure if any and its
/// wait status.
pub(super) fn finished(
    program: &[u8],
    start: u64,
    failure: Option<(u32, i32)>,
    (status, watched): (Option<(i32, libc::rusage)>, Option<watchdog::Watched>),
) -> InitReport {
    let wall_nanos = now().saturating_sub(start);
    // With the watchdog, what is left of the tree is killed and reaped here, so that the CPU
    // time of everything the run started counts.
    let tree_cpu = watched.is_some().then(watchdog::end_namespace);
    if let Some((step, errno)) = failure {
        return InitReport::Failed {
            why: format!(
                "cannot start {} ({}): {}",
                String::from_utf8_lossy(program),
                STEPS.get(step as usize).unwrap_or(&"?"),
                io::Error::from_raw_os_error(errno)
            ),
        };
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    match status {
        Some((status, usage)) => InitReport::Finished {
            status,
            wall_nanos,
            cpu_nanos: match tree_cpu {
                Some(cpu) => cpu.as_nanos() as u64,
                None => tv(usage.ru_utime) + tv(usage.ru_stime),
            },
            max_rss: usage.ru_maxrss as u64 * 1024,
            watched,
        },
        None => InitReport::Failed {
            why: "lost track of the program".into(),
        },
    }
}

pub(super) fn now() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-parameter.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
