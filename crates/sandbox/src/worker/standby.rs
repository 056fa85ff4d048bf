//! Run inits as the worker holds them: [`RunInit`] (an init cloned with its mounts in place,
//! waiting for its program: a run's own, or a standby kept for a run to come), what its mounts
//! are ([`MountSpec`], compared to tell whether a standby can serve a request) and which kinds
//! of runs came lately ([`Recent`], so that standbys are made only for runs that repeat).

use super::init::{init, InitReport};
use crate::seccomp;
use crate::sys;
use crate::wire::{self, Reply, Request};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// What a run init mounts: two runs with equal specs (and the same folders behind their detached
/// mounts) can use the same kind of init.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct MountSpec {
    pub(super) readable: Vec<Vec<u8>>,
    pub(super) workdir: Vec<u8>,
    pub(super) scratch_workdir: bool,
    pub(super) tmpfs_bytes: u64,
    pub(super) tmpfs_inodes: u64,
    pub(super) uid: u32,
    pub(super) gid: u32,
    /// (device, inode) behind each detached mount. The standby holds its mounts open, so a
    /// folder removed and made again under the same name cannot have the same inode.
    pub(super) sources: Vec<(u64, u64)>,
}

/// (device, inode) of the folder or file behind each mount.
pub(super) fn sources(mounts: &[OwnedFd]) -> Vec<(u64, u64)> {
    mounts
        .iter()
        .map(|f| {
            // SAFETY: stat is plain data filled by fstat.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: f is open; st is a valid out-parameter.
            if unsafe { libc::fstat(f.as_raw_fd(), &mut st) } == 0 {
                (st.st_dev, st.st_ino)
            } else {
                (u64::MAX, u64::MAX)
            }
        })
        .collect()
}

impl MountSpec {
    /// The same mounts, whatever folders are behind them.
    pub(super) fn same_kind(&self, other: &MountSpec) -> bool {
        let (mut a, mut b) = (self.clone(), other.clone());
        a.sources.clear();
        b.sources.clear();
        a == b
    }

    pub(super) fn of(req: &Request, mounts: &[OwnedFd]) -> MountSpec {
        let sources = sources(mounts);
        MountSpec {
            readable: req.readable.clone(),
            workdir: req.workdir.clone(),
            scratch_workdir: req.scratch_workdir,
            tmpfs_bytes: req.tmpfs_bytes,
            tmpfs_inodes: req.tmpfs_inodes,
            uid: req.uid,
            gid: req.gid,
            sources,
        }
    }
}

/// The kinds of the last few runs (their mounts, whatever folders are behind them).
#[derive(Default)]
pub(super) struct Recent(Vec<MountSpec>);

/// How many kinds of runs [`Recent`] remembers (the judge keeps the same list).
pub const RECENT: usize = 4;

impl Recent {
    const KEPT: usize = RECENT;

    /// Whether a run of this kind came lately; remembers this one.
    pub(super) fn saw(&mut self, spec: &MountSpec) -> bool {
        let mut kind = spec.clone();
        kind.sources.clear();
        let seen = self.0.contains(&kind);
        self.0.retain(|k| *k != kind);
        self.0.push(kind);
        if self.0.len() > Self::KEPT {
            self.0.remove(0);
        }
        seen
    }
}

/// A run init with its mounts in place, waiting for its program: the run's own, or a standby
/// kept for a run to come.
pub(super) struct RunInit {
    pub(super) pidfd: OwnedFd,
    /// The request and the run's descriptors go to the init through this socket.
    pub(super) control: OwnedFd,
    /// The init's one-line report.
    pub(super) result: OwnedFd,
    pub(super) spec: MountSpec,
    /// The detached mounts the init attached, held so that `spec.sources` stay unique.
    pub(super) _mounts: Vec<OwnedFd>,
    /// How many runs it served before the one it waits for.
    pub(super) runs: u32,
}

/// (device, inode) of the file behind each descriptor (cgroup.procs files tell cgroups apart
/// so: kernfs gives every cgroup file an inode number of its own).
pub(super) fn identities(fds: &[OwnedFd]) -> Vec<(u64, u64)> {
    sources(fds)
}

impl RunInit {
    /// Clones an init with a new PID, mount and IPC namespace; it sets up `spec`, then waits for
    /// its program on the control socket. A standby (`join` given: the `cgroup.procs` files of
    /// the run it is meant for, when known) forks the program's process at once, which joins
    /// them.
    pub(super) fn spawn(
        spec: MountSpec,
        mounts: Vec<OwnedFd>,
        join: Option<Vec<OwnedFd>>,
        filter: &[seccomp::Insn],
        stack: &mut [u8],
    ) -> io::Result<RunInit> {
        let (result_r, result_w) = sys::pipe()?;
        let (control, control_init) = wire::socket_pair()?;
        // SAFETY: the worker is single-threaded, so the child may allocate. The raw clone
        // behaves like fork (no new stack) with a new PID, mount and IPC namespace for the
        // child: System V IPC objects live in the namespace, not in a process, so a run's own
        // namespace is what keeps one run's shared memory, queues and semaphores from the next.
        let pid = unsafe {
            libc::syscall(
                libc::SYS_clone,
                (libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::SIGCHLD)
                    as libc::c_ulong,
                0usize,
                0usize,
                0usize,
                0usize,
            )
        };
        if pid < 0 {
            return Err(io::Error::other(format!(
                "clone a run: {}",
                io::Error::last_os_error()
            )));
        }
        if pid == 0 {
            // The init keeps only its own descriptors: a copy of another run's stdio (or of
            // this run's, which the worker held when it cloned) would keep the pipe open.
            let mut keep: Vec<RawFd> = vec![result_w.as_raw_fd(), control_init.as_raw_fd()];
            keep.extend(mounts.iter().map(|f| f.as_raw_fd()));
            keep.extend(join.iter().flatten().map(|f| f.as_raw_fd()));
            std::mem::forget(result_r);
            std::mem::forget(control);
            sys::close_all_but(&keep);
            init(
                &spec,
                &mounts,
                join,
                control_init,
                filter,
                stack,
                result_w.as_raw_fd(),
            );
            // SAFETY: leaving without running destructors.
            unsafe { libc::_exit(0) };
        }
        let pid = pid as libc::pid_t;
        drop(result_w);
        drop(control_init);
        drop(join);
        let pidfd = match sys::pidfd_open(pid) {
            Ok(fd) => fd,
            Err(e) => {
                // SAFETY: killing our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                return Err(e);
            }
        };
        Ok(RunInit {
            pidfd,
            control,
            result: result_r,
            spec,
            _mounts: mounts,
            runs: 0,
        })
    }

    /// Keeps an init whose run ended with its namespace emptied (its report said `kept`) for
    /// the next run: its program's process is forked now and joins `join` (the next run's
    /// cgroups), and the init closes `spare`. False if the init is gone.
    pub(super) fn next(&mut self, join: &[OwnedFd], spare: &[OwnedFd]) -> bool {
        let next = wire::NextRun {
            join: join.len(),
            spare: spare.len(),
        };
        let fds: Vec<RawFd> = join.iter().chain(spare).map(|f| f.as_raw_fd()).collect();
        self.runs += 1;
        wire::send_json(&self.control, &next, &fds).is_ok()
    }

    /// Hands the run to the init. False if the init is gone (its report, if any, is still in
    /// the result pipe).
    pub(super) fn hand_over(&self, req: &Request, fds: &[OwnedFd]) -> bool {
        let raw: Vec<RawFd> = fds.iter().map(|f| f.as_raw_fd()).collect();
        wire::send_json(&self.control, req, &raw).is_ok()
    }

    /// Why an init that would not take its run ended.
    pub(super) fn ended_early(&self) -> EndedEarly {
        match self.report().0 {
            Reply::Failed { why } => EndedEarly::SetUpFailed(why),
            _ => EndedEarly::Killed,
        }
    }

    /// Reads the init's report of its run, and whether it emptied its namespace after it and
    /// waits for a next run (see [`RunInit::next`]).
    pub(super) fn report(&self) -> (Reply, bool) {
        // One line; an init that does not serve again may still be tearing down its
        // namespaces after writing it.
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while !buf.ends_with(b"\n") {
            // SAFETY: reading into a local buffer from our pipe.
            let n = unsafe {
                libc::read(
                    self.result.as_raw_fd(),
                    chunk.as_mut_ptr().cast(),
                    chunk.len(),
                )
            };
            match n {
                0 => break,
                n if n > 0 => buf.extend_from_slice(&chunk[..n as usize]),
                _ if sys::errno() == libc::EINTR => {}
                _ => break,
            }
        }
        match serde_json::from_slice::<InitReport>(&buf) {
            Ok(InitReport::Finished {
                status,
                wall_nanos,
                cpu_nanos,
                max_rss,
                watched,
                kept,
            }) => (
                Reply::Finished {
                    status,
                    wall_nanos,
                    cpu_nanos,
                    max_rss,
                    standby: false,
                    kept: false,
                    watched,
                },
                kept,
            ),
            Ok(InitReport::Failed { why }) => (Reply::Failed { why }, false),
            // The init was killed (by the judge, for a limit): so was everything in its namespace.
            Err(_) => (
                Reply::Finished {
                    status: libc::SIGKILL,
                    wall_nanos: 0,
                    cpu_nanos: 0,
                    max_rss: 0,
                    standby: false,
                    kept: false,
                    watched: None,
                },
                false,
            ),
        }
    }
}

/// An init that ended before its run.
pub(super) enum EndedEarly {
    /// Its mounts or lock-down failed (the same run would fail again).
    SetUpFailed(String),
    /// It was killed from outside.
    Killed,
}

impl From<EndedEarly> for Reply {
    fn from(e: EndedEarly) -> Reply {
        let why = match e {
            EndedEarly::SetUpFailed(why) => why,
            EndedEarly::Killed => "the run's init was killed before the run".into(),
        };
        Reply::Failed { why }
    }
}

impl Drop for RunInit {
    fn drop(&mut self) {
        // Through the pidfd: the init may have ended and been reaped, and its pid reused.
        sys::pidfd_kill(self.pidfd.as_raw_fd());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys;

    /// same name is another folder, because the standby holds the old one's mount.
    #[test]
    fn a_folder_made_again_under_the_same_name_is_another_source() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: detached mounts need root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("build-1");
        std::fs::create_dir(&dir).unwrap();
        let held = vec![sys::detached_bind(&dir, false).unwrap()];
        let again = vec![sys::detached_bind(&dir, false).unwrap()];
        assert_eq!(sources(&held), sources(&again), "the same folder twice");
        std::fs::remove_dir(&dir).unwrap();
        std::fs::create_dir(&dir).unwrap();
        let other = vec![sys::detached_bind(&dir, false).unwrap()];
        assert_ne!(sources(&held), sources(&other), "a new folder, same name");
    }
}
