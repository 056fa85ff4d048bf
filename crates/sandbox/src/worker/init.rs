//! The run's init (PID 1 of the run's PID namespace): sets up its mounts, locks itself down,
//! waits for its run, starts the program (see `spawn.rs`), waits for it (under the watchdog
//! when the run has no cgroup) and reports how it ended; then it empties its namespace and,
//! if the worker keeps it, serves the next run with the same mounts.

use super::mounts::setup_mounts;
use super::spawn::{run, run_ahead, STEPS};
use super::standby::MountSpec;
use crate::seccomp;
use crate::sys;
use crate::watchdog;
use crate::wire::{self, Request};
use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// What the run init tells the worker through its result pipe, one line a run.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) enum InitReport {
    Finished {
        status: i32,
        wall_nanos: u64,
        cpu_nanos: u64,
        max_rss: u64,
        watched: Option<watchdog::Watched>,
        /// The init emptied its namespace after the run (see [`wipe`]) and waits for a
        /// [`wire::NextRun`]: the worker may keep it for the next run with the same mounts.
        #[serde(default)]
        kept: bool,
    },
    Failed {
        why: String,
    },
}

/// The run's init (PID 1 of the run's namespace): sets up the mounts, then serves runs, each
/// reported on `result`: the first comes on `control` (or, for a standby, `join` is `Some`:
/// its program's process is forked at once and joins those cgroups); after each run the init
/// empties its namespace and, if that worked, waits for a [`wire::NextRun`] from the worker.
/// Returns when there is no run to wait for (the worker dropped it, or a run could not be
/// wiped away).
pub(super) fn init(
    spec: &MountSpec,
    mounts: &[OwnedFd],
    join: Option<Vec<OwnedFd>>,
    control: OwnedFd,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
    result: RawFd,
) {
    // SAFETY: plain prctl; if the worker is already gone, leave.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    if let Err(e) = setup_mounts(spec, mounts) {
        return write_report(result, &InitReport::Failed { why: e.to_string() });
    }
    if let Err(why) = lock_down(filter) {
        return write_report(result, &InitReport::Failed { why });
    }
    let mut join = join;
    loop {
        let report = match join.take() {
            Some(join) => run_ahead(join, control.as_raw_fd(), stack),
            None => match wire::recv_json::<Request>(&control) {
                Ok(Some((req, fds))) if fds.len() != 3 + req.cgroup_fds => {
                    Some(InitReport::Failed {
                        why: format!("the run init got {} descriptors", fds.len()),
                    })
                }
                Ok(Some((req, fds))) => Some(run(&req, fds, stack)),
                Ok(None) | Err(_) => None,
            },
        };
        let Some(mut report) = report else { return };
        // What the run left dies before its report: the judge reads the end of its output
        // then (the last writer of its pipes is gone), as when the whole namespace went.
        let none_left = end_leftovers();
        let again = match &mut report {
            InitReport::Finished { kept, .. } => {
                *kept = none_left && wipe(spec);
                *kept
            }
            InitReport::Failed { .. } => false,
        };
        write_report(result, &report);
        if !again {
            return;
        }
        match wire::recv_json::<wire::NextRun>(&control) {
            Ok(Some((next, mut fds))) if fds.len() == next.join + next.spare => {
                // The spare mounts close here, before the next program's process is forked.
                fds.truncate(next.join);
                join = Some(fds);
            }
            Ok(_) | Err(_) => return,
        }
    }
}

fn write_report(result: RawFd, report: &InitReport) {
    let mut bytes = serde_json::to_vec(report).unwrap_or_default();
    bytes.push(b'\n');
    // SAFETY: writing a small message to our pipe.
    unsafe { libc::write(result, bytes.as_ptr().cast(), bytes.len()) };
}

/// Kills every process of the run's namespace but the init (a program's children that
/// outlived it) and reaps them all. False if one could not be signalled (the init then ends,
/// and its namespace with it).
fn end_leftovers() -> bool {
    // kill(-1) from the init of a PID namespace signals every other process in it, zombies
    // included, and fails with ESRCH once there is none; a fork under way either finishes
    // before it (its child is signalled too) or fails. Each round reaps one.
    // SAFETY: kill(-1) and waiting for the init's own children.
    while unsafe { libc::kill(-1, libc::SIGKILL) } == 0 {
        let mut status = 0;
        // SAFETY: as above.
        let r = unsafe { libc::wait4(-1, &mut status, 0, std::ptr::null_mut()) };
        if r < 0 && sys::errno() == libc::ECHILD {
            // Left processes not the init's children yet (their parent is still dying).
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    sys::errno() == libc::ESRCH
}

/// Empties what a run could change in the init's namespaces, so that the next run finds what a
/// fresh init would give it: the files in /tmp and in a scratch working folder, the System V
/// IPC objects (shared memory, queues, semaphores) of the IPC namespace, and the namespace's
/// last PID. (POSIX message queues could not be found again without a mount: `mq_open` is
/// denied, see `seccomp.rs`.) False if anything stays: the init then ends after its report, as
/// every init used to. Counters a fresh namespace would restart stay (the inode numbers of the
/// tmpfs, System V IPC ids after the first): a run that looks can tell how many it follows, as
/// it could before from the worker's network namespace's counters.
pub(super) fn wipe(spec: &MountSpec) -> bool {
    let workdir = PathBuf::from(OsStr::from_bytes(&spec.workdir));
    empty_dir(std::path::Path::new("/tmp"))
        && (!spec.scratch_workdir || empty_dir(&workdir))
        && remove_ipc()
        && restart_pids()
}

/// Makes the next process of the namespace PID 2 again, as in a fresh namespace: a program
/// sees the same PIDs in every run (one seeding a generator with its PID behaves alike), and no
/// run learns from its PID how many processes the runs before it made.
fn restart_pids() -> bool {
    std::fs::write("/proc/sys/kernel/ns_last_pid", "1").is_ok()
}

/// Removes everything the run made in `dir`, which is a tmpfs of the init's: files, symbolic
/// links and folders, but not the mount points the init made there for the run's paths (the
/// judge's folders under its TMPDIR appear at their own paths, below /tmp), what is mounted on
/// them, or the folders that hold them. Nothing follows a symbolic link, and nothing else runs
/// in the namespace now. False if something could not be removed.
fn empty_dir(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(top) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return false;
        };
        if meta.dev() != top.dev() {
            // A mount point: another file system's root (or a file bound there).
            continue;
        }
        if !meta.is_dir() {
            if std::fs::remove_file(&path).is_err() {
                return false;
            }
            continue;
        }
        if !empty_dir(&path) {
            return false;
        }
        match std::fs::remove_dir(&path) {
            Ok(()) => {}
            // It holds a mount point, further down.
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => {}
            Err(_) => return false,
        }
    }
    true
}

/// Removes every System V IPC object of the init's IPC namespace (listed in /proc/sysvipc,
/// which shows the reader's namespace).
fn remove_ipc() -> bool {
    let ids = |kind: &str| -> Option<Vec<libc::c_int>> {
        let text = std::fs::read_to_string(format!("/proc/sysvipc/{kind}")).ok()?;
        // A header line, then one line per object: key, id, ...
        text.lines()
            .skip(1)
            .map(|l| l.split_whitespace().nth(1)?.parse().ok())
            .collect()
    };
    let (Some(shm), Some(msg), Some(sem)) = (ids("shm"), ids("msg"), ids("sem")) else {
        return false;
    };
    // SAFETY: IPC_RMID on ids of this namespace; no buffer is read or written.
    unsafe {
        shm.iter()
            .all(|&id| libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) == 0)
            && msg
                .iter()
                .all(|&id| libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()) == 0)
            && sem
                .iter()
                .all(|&id| libc::semctl(id, 0, libc::IPC_RMID) == 0)
    }
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
            kept: false,
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
