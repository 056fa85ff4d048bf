//! Starting one run through the worker, judge side: the run's cgroup (a standby's, a spare or a
//! new one) and the next standby's, its stdio (files, or the caller's descriptors), pipes and
//! detached mounts, and the request; then `running.rs` watches it.

use super::running::Running;
use super::sink::Sink;
use super::{Isolated, FILE_SIZE, TMPFS_INODES};
use crate::cgroup::{self, RunGroup};
use crate::sys;
use crate::watchdog::Watch;
use crate::wire::{self, Request};
use crate::{Limits, RunOutcome, RunSpec, SandboxError};
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// An init the worker holds ready: its mounts, and the cgroup it joined ahead of time (with its
/// memory and process limits), if the judge had one to give it.
pub(super) struct Standby {
    pub(super) key: MountsKey,
    pub(super) group: Option<(u64, u32, RunGroup)>,
}

/// A cgroup handed to the janitor for removal when this goes out of scope, unless taken before.
pub(super) struct RetireLater(pub(super) Option<RunGroup>);

impl Drop for RetireLater {
    fn drop(&mut self) {
        if let Some(g) = self.0.take() {
            cgroup::retire(g);
        }
    }
}

/// What the judge knows of a run's mounts: equal keys let a run use the worker's standby init.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct MountsKey {
    readable: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    scratch_workdir: bool,
    tmpfs_bytes: u64,
}

impl Isolated {
    /// Runs one program to completion (or to a limit): [`Isolated::start`], then
    /// [`Running::wait`].
    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        self.start(spec, RunIo::default())?.wait()
    }

    /// Starts one program and returns at once; the run goes on until [`Running::wait`] (or
    /// [`super::super::wait_all`]) sees it end. Its stdin and stdout are the spec's files unless
    /// `stdio` gives descriptors.
    pub fn start(&mut self, spec: &RunSpec, stdio: RunIo) -> Result<Running<'_>, SandboxError> {
        if self.lost {
            return Err(SandboxError::Setup(
                "a run given up earlier never reported its end: this sandbox cannot tell the next run's report from it (start another sandbox)".into(),
            ));
        }
        let limits = spec.limits.clone();
        let stdio = open_stdio(spec, stdio)?;
        let readable = readable_paths(spec);
        let key = MountsKey {
            readable: readable.iter().map(|p| bytes(p)).collect(),
            workdir: bytes(&spec.workdir),
            scratch_workdir: spec.scratch_workdir,
            tmpfs_bytes: limits.memory,
        };
        let (mount_sets, joined) = self.claim_standby(&key);
        let (group, stale) = self.run_group(joined, &limits)?;
        let next = self.next_standby_group(&key, &limits);
        // The groups' cgroup.procs files, already open (sent along; the groups keep their own).
        let procs = match &group {
            Some(g) => g.join_fds().map_err(SandboxError::Setup)?,
            None => Vec::new(),
        };
        let next_procs = match &next.0 {
            Some(g) => g.join_fds().unwrap_or_default(),
            None => Vec::new(),
        };
        if !spec.scratch_workdir && !self.userns {
            std::os::unix::fs::chown(&spec.workdir, Some(self.uid), Some(self.uid)).map_err(io(
                format!("give {} to the sandbox user", spec.workdir.display()),
            ))?;
        }
        let mounts = expose_mounts(spec, &readable, mount_sets)?;
        let watch = group.is_none().then(|| self.watch(&limits));
        let cgroup_fds = (procs.len(), next_procs.len());
        let request = self.request(spec, &readable, cgroup_fds, mount_sets, watch);
        let Stdio {
            stdin,
            stdout,
            out_w,
            stderr: (err_r, stderr_file),
            err_w,
        } = stdio;
        let mut fds: Vec<RawFd> = vec![stdin.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd()];
        fds.extend(&procs);
        fds.extend(&next_procs);
        fds.extend(mounts.iter().map(|f| f.as_raw_fd()));
        let start = Instant::now();
        wire::send_json(&self.sock, &request, &fds)
            .map_err(io("send a run to the sandbox worker".into()))?;
        drop((stdin, out_w, err_w, procs, next_procs, mounts));
        // The run's stdout and stderr are drained by this thread, in the same poll as the
        // worker's messages: no thread per run, and a full pipe never blocks the program.
        let out = match stdout {
            Some((out_r, file)) => Some(
                Sink::new(out_r, file, limits.output, true)
                    .map_err(io("make the stdout pipe non-blocking".into()))?,
            ),
            None => None,
        };
        let err = Sink::new(err_r, stderr_file, limits.stderr, false)
            .map_err(io("make the stderr pipe non-blocking".into()))?;
        Ok(Running {
            sandbox: self,
            stdout_path: spec.stdout.clone(),
            stderr_path: spec.stderr.clone(),
            limits,
            key,
            group,
            next,
            _stale: stale,
            out,
            err,
            over: false,
            pidfd: None,
            wall_killed: false,
            cpu_killed: false,
            killed: false,
            killed_at: None,
            cpu_seen: (std::time::Duration::ZERO, start),
            finished: None,
            watched: None,
            start,
            finished_at: start,
            done: false,
        })
    }

    /// What the worker is asked to run: the program, its mounts and limits; `cgroup_fds` counts
    /// the descriptors of the run's and the next standby's cgroups sent along.
    fn request(
        &self,
        spec: &RunSpec,
        readable: &[&PathBuf],
        cgroup_fds: (usize, usize),
        mount_sets: usize,
        watch: Option<Watch>,
    ) -> Request {
        let limits = &spec.limits;
        Request {
            program: bytes(&spec.program),
            args: spec.args.iter().map(|a| a.as_bytes().to_vec()).collect(),
            env: spec
                .env
                .iter()
                .map(|(k, v)| [k.as_bytes(), b"=", v.as_bytes()].concat())
                .collect(),
            workdir: bytes(&spec.workdir),
            scratch_workdir: spec.scratch_workdir,
            readable: readable.iter().map(|p| bytes(p)).collect(),
            cgroup_fds: cgroup_fds.0,
            next_cgroup_fds: cgroup_fds.1,
            mount_sets,
            uid: if self.userns { 0 } else { self.uid },
            gid: if self.userns { 0 } else { self.uid },
            cpu_backstop_secs: limits.cpu.as_secs() + 1,
            stack: limits.stack,
            file_size: limits.output.max(FILE_SIZE),
            tmpfs_bytes: limits.memory,
            tmpfs_inodes: TMPFS_INODES,
            processes: limits.processes as u64,
            watch,
        }
    }

    /// How many sets of mounts the worker needs for a run with these mounts, and the cgroup of
    /// the standby init it uses, if any.
    fn claim_standby(&mut self, key: &MountsKey) -> (usize, Option<(u64, u32, RunGroup)>) {
        // The worker keeps inits with the mounts of recent runs ready (root only): with one for
        // these mounts it needs one set of mounts, for the next standby; otherwise one more, for
        // this run. The worker itself checks that the mounts are the same folders.
        if self.userns {
            (0, None)
        } else if let Some(i) = self.standbys.iter().position(|s| s.key == *key) {
            (1, self.standbys.remove(i).group)
        } else {
            (2, None)
        }
    }

    /// The run's cgroup (none without cgroups), and the standby's if the run cannot use it.
    fn run_group(
        &self,
        joined: Option<(u64, u32, RunGroup)>,
        limits: &Limits,
    ) -> Result<(Option<RunGroup>, RetireLater), SandboxError> {
        let processes = limits.processes;
        // A cgroup the standby init joined is used when it has the run's limits; otherwise the
        // init moves out of it into the run's, and it goes when the run is over.
        let mut stale = RetireLater(None);
        let group = match (&self.cgroups, joined) {
            (Ok(_), Some((m, p, g))) if m == limits.memory && p == processes => Some(g),
            (Ok(cgroups), joined) => {
                stale.0 = joined.map(|(_, _, g)| g);
                Some(
                    cgroups
                        .create(limits.memory, processes)
                        .map_err(SandboxError::Setup)?,
                )
            }
            (Err(_), _) => None,
        };
        Ok((group, stale))
    }

    /// Notes the run's mounts as recent, and takes the cgroup of the standby init this run
    /// leaves, if the janitor has one ready.
    fn next_standby_group(&mut self, key: &MountsKey, limits: &Limits) -> RetireLater {
        let processes = limits.processes;
        // The cgroup of the next run like this one, for the standby init this run leaves to
        // join ahead of time: a spare the janitor made (never one made here, which would cost
        // this run what it saves the next). The janitor then makes the spares up again.
        let repeats = self.recent.contains(key);
        self.recent.retain(|k| k != key);
        self.recent.push(key.clone());
        if self.recent.len() > crate::worker::RECENT {
            self.recent.remove(0);
        }
        let mut next = RetireLater(None);
        if let (Ok(cgroups), false) = (&self.cgroups, self.userns) {
            if repeats {
                next.0 = cgroup::take_spare(limits.memory, processes);
            }
            cgroups.prepare(limits.memory, processes);
        }
        next
    }
}

/// The run's ends of its stdio, and the judge's ends of its output pipes with the files they
/// are kept in.
struct Stdio {
    stdin: OwnedFd,
    /// The judge's end of the stdout pipe and its file; none when the caller gave a descriptor.
    stdout: Option<(OwnedFd, File)>,
    out_w: OwnedFd,
    stderr: (OwnedFd, File),
    err_w: OwnedFd,
}

/// Opens the run's stdin and output files and makes its output pipes.
fn open_stdio(spec: &RunSpec, stdio: RunIo) -> Result<Stdio, SandboxError> {
    let stdin: OwnedFd = match (stdio.stdin, &spec.stdin) {
        (Some(fd), _) => fd,
        (None, Some(p)) => File::open(p)
            .map_err(io(format!("open {}", p.display())))?
            .into(),
        (None, None) => File::open("/dev/null")
            .map_err(io("open /dev/null".into()))?
            .into(),
    };
    // Reused output files are overwritten from the start and cut to length at the end, never
    // truncated to zero first: on ext4, a file truncated to zero is flushed to disk when it
    // is closed, which cost more than the rest of the run's bookkeeping.
    let overwrite = |p: &Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(p)
            .map_err(io(format!("create {}", p.display())))
    };
    // stdout goes to the judge through a pipe (counted and kept in the file), unless the
    // caller gave a descriptor (a pipe to another run).
    let (stdout, out_w) = match stdio.stdout {
        Some(fd) => (None, fd),
        None => {
            let file = overwrite(&spec.stdout)?;
            let (out_r, out_w) = sys::pipe().map_err(io("create a pipe".into()))?;
            (Some((out_r, file)), out_w)
        }
    };
    let stderr_file = overwrite(&spec.stderr)?;
    let (err_r, err_w) = sys::pipe().map_err(io("create a pipe".into()))?;
    Ok(Stdio {
        stdin,
        stdout,
        out_w,
        stderr: (err_r, stderr_file),
        err_w,
    })
}

/// The spec's readable paths that exist, outer folders first, so a path inside another one is
/// attached on top of it.
fn readable_paths(spec: &RunSpec) -> Vec<&PathBuf> {
    let mut readable: Vec<&PathBuf> = spec.readable.iter().filter(|p| p.exists()).collect();
    readable.sort_by_key(|p| p.as_os_str().len());
    readable.dedup();
    readable
}

/// Detached binds of the readable paths (read-only) and the working folder, once per mount set.
fn expose_mounts(
    spec: &RunSpec,
    readable: &[&PathBuf],
    mount_sets: usize,
) -> Result<Vec<OwnedFd>, SandboxError> {
    let expose = |p: &Path, writable: bool| {
        sys::detached_bind(p, writable).map_err(|e| {
            SandboxError::Setup(format!("cannot expose {} to the sandbox: {e}", p.display()))
        })
    };
    let mut mounts = Vec::new();
    for _ in 0..mount_sets {
        for p in readable {
            mounts.push(expose(p, false)?);
        }
        if !spec.scratch_workdir {
            mounts.push(expose(&spec.workdir, true)?);
        }
    }
    Ok(mounts)
}

fn bytes(p: &Path) -> Vec<u8> {
    p.as_os_str().as_bytes().to_vec()
}

fn io(action: String) -> impl FnOnce(std::io::Error) -> SandboxError {
    move |source| SandboxError::Io { action, source }
}

/// The descriptors a run's stdio comes from instead of the spec's files.
#[derive(Default)]
pub struct RunIo {
    /// Read as stdin instead of `RunSpec::stdin`.
    pub stdin: Option<OwnedFd>,
    /// Written as stdout instead of `RunSpec::stdout` (not counted by the judge: the output
    /// limit does not apply, and `RunOutcome::stdout_bytes` is 0).
    pub stdout: Option<OwnedFd>,
}
