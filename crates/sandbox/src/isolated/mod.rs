//! The judge's side of the full sandbox: starts a worker (see `worker/`) once, then for each run
//! prepares the run's cgroup, pipes and detached mounts, hands them to the worker, and watches the
//! run (CPU time from the cgroup, wall clock, output size) until it ends or must be killed.
//!
//! Files: this one starts the worker and says what it holds (`layers`, `limits`, `notes` for
//! `judge doctor`); `lease.rs` the sandbox uids and CPU leases; `favor.rs` the cgroup favordynmods mode;
//! `run.rs` starts one run, `running.rs` watches it; `sink.rs` the output pipes.

mod favor;
mod lease;
mod run;
mod running;
mod sink;

pub use favor::tune;
pub(crate) use lease::CpuLease;

/// Runs the calling thread on `cpu` alone.
pub(crate) fn pin_thread(cpu: usize) -> std::io::Result<()> {
    lease::pin(0, cpu)
}
use lease::UidLease;
pub use run::RunIo;
pub use running::Running;

use favor::{
    favordynmods_marked, favordynmods_note, favordynmods_shown, mark_favordynmods, Favor,
    FAVORDYNMODS_ENV,
};
use lease::sweep_leases;
use run::{MountsKey, RetireLater, Standby};

use super::cgroup::Cgroups;
use super::watchdog::{self, Watch};
use super::wire::{self, Reply};
use super::Layer;
use crate::leftovers::Held;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub struct Isolated {
    sock: OwnedFd,
    worker: Child,
    /// Folder whose `root` subfolder the worker mounts its prepared root on (in its namespace).
    base: PathBuf,
    /// Holds `base` (see `crate::leftovers`); unlocked after the folder is removed.
    _base_held: Held,
    uid: u32,
    /// Read buffer for the run's pipes, allocated once.
    buf: Box<[u8]>,
    /// Keeps `uid` this worker's alone while it lives (root only; None in a user namespace).
    _lease: Option<UidLease>,
    cgroups: Result<Cgroups, String>,
    worker_layers: Vec<(String, String)>,
    /// Not root: the worker runs in its own user namespace (see `worker/`).
    userns: bool,
    /// The inits the worker holds ready, least recently made first (the worker keeps the same
    /// list, see `worker::STANDBYS`).
    standbys: Vec<Standby>,
    /// The kinds of the last runs, as the worker's `Recent` keeps them: a run of a kind seen
    /// lately leaves a standby, which gets the next run's cgroup.
    recent: Vec<MountsKey>,
    /// The cgroup favordynmods mode; None without root (no cgroups).
    favordynmods: Option<Favor>,
    /// A run was given up and its end never came (see `Running`'s drop): no run can start.
    lost: bool,
    /// Set by another thread to kill this sandbox's runs at once (see [`crate::Cancel`]).
    cancel: Option<crate::Cancel>,
}

impl Isolated {
    pub fn set_cancel(&mut self, cancel: Option<crate::Cancel>) {
        self.cancel = cancel;
    }

    /// Runs the worker and the inits it holds, and so every later run (the inits it makes are
    /// its children and inherit it), on `cpu` alone.
    pub fn pin(&self, cpu: usize) -> std::io::Result<()> {
        lease::pin_tree(self.worker.id() as libc::pid_t, cpu)
    }

    /// Whether the runs of this sandbox are to be killed now.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Starts a worker; `Err(why)` when this machine or user cannot have one.
    pub fn new() -> Result<Isolated, String> {
        // SAFETY: geteuid has no preconditions.
        let userns = unsafe { libc::geteuid() } != 0;
        let lease = if userns {
            None
        } else {
            Some(UidLease::take()?)
        };
        let exe = std::fs::read_link("/proc/self/exe")
            .map_err(|e| format!("cannot find the judge's own executable: {e}"))?;
        if let Some(lease) = &lease {
            let dir = lease.dir.clone();
            super::cgroup::in_background(move || drop(sweep_leases(&dir)));
        }
        let held = Held::make_temp(&std::env::temp_dir(), "judge-sandbox-")
            .map_err(|e| format!("cannot create the sandbox folder: {e}"))?;
        let base = held.path().to_path_buf();
        crate::interrupt::register(base.clone());
        let root = base.join("root");
        let cleanup = |why: String| {
            let _ = std::fs::remove_dir_all(&base);
            crate::interrupt::unregister(&base);
            why
        };
        std::fs::create_dir(&root)
            .map_err(|e| cleanup(format!("cannot create {}: {e}", root.display())))?;
        let (mine, theirs) =
            wire::socket_pair().map_err(|e| cleanup(format!("socketpair: {e}")))?;
        let cgroups = Cgroups::probe_system();
        let mut cmd = Command::new(&exe);
        cmd.arg("__sandbox-worker").arg(&root);
        if userns {
            cmd.arg("--userns");
        }
        if cgroups.is_err() {
            cmd.arg("--no-memory-cgroup");
        }
        // A kernel-wide mode: only when the user asks for it (JUDGE_CGROUP_FAVORDYNMODS=1).
        let asked = std::env::var(FAVORDYNMODS_ENV).is_ok_and(|v| v == "1");
        let shown = if userns { None } else { favordynmods_shown() };
        let marked = lease.as_ref().is_some_and(|l| favordynmods_marked(&l.dir));
        let ask_favordynmods = !userns && asked && !marked && shown.is_none();
        if ask_favordynmods {
            cmd.arg("--favordynmods");
        }
        cmd.env_clear()
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        // SAFETY: prctl is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let worker = cmd.spawn().map_err(|e| {
            cleanup(format!(
                "cannot start the sandbox worker {}: {e}",
                exe.display()
            ))
        })?;
        let mut this = Isolated {
            sock: mine,
            worker,
            base: base.clone(),
            _base_held: held,
            uid: lease.as_ref().map_or(0, UidLease::uid),
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            _lease: lease,
            cgroups,
            worker_layers: Vec::new(),
            standbys: Vec::new(),
            recent: Vec::new(),
            favordynmods: None,
            lost: false,
            cancel: None,
            userns,
        };
        match wire::recv_json::<Reply>(&this.sock) {
            Ok(Some((
                Reply::Ready {
                    layers,
                    favordynmods,
                },
                _,
            ))) => {
                this.worker_layers = layers;
                this.favordynmods = match favordynmods {
                    _ if userns => None,
                    Some(Ok(())) => {
                        if let Some(lease) = &this._lease {
                            mark_favordynmods(&lease.dir);
                        }
                        Some(Favor::TurnedOn)
                    }
                    Some(Err(why)) => Some(Favor::Failed(why)),
                    None => Some(match shown {
                        Some(r#where) => Favor::Shown(r#where),
                        None if marked => Favor::Marked,
                        None => Favor::Off,
                    }),
                };
            }
            Ok(Some((Reply::Unavailable { why }, _))) => {
                return Err(if userns {
                    format!(
                        "the judge is not root, and an unprivileged user namespace failed: {why}"
                    )
                } else {
                    why
                })
            }
            Ok(_) => return Err("the sandbox worker ended before it was ready".into()),
            Err(e) => return Err(format!("the sandbox worker did not answer: {e}")),
        }
        Ok(this)
    }

    /// Settings that make runs cheaper, not safer (for `judge doctor`).
    pub fn notes(&self) -> Vec<Layer> {
        let v1 = matches!(self.cgroups, Ok(crate::cgroup::Cgroups::V1(_)));
        self.favordynmods
            .iter()
            .filter(|_| self.cgroups.is_ok())
            .map(|state| favordynmods_note(state, v1))
            .collect()
    }

    /// How each limit holds (for `judge doctor`).
    pub fn limits(&self) -> Vec<super::LimitMechanism> {
        let processes = if !self.userns {
            super::ProcessCap::DedicatedUid
        } else if watchdog::nproc_per_user_namespace() {
            super::ProcessCap::UserNamespace
        } else {
            super::ProcessCap::Watchdog
        };
        super::limit_mechanisms(&self.cgroups, super::Watcher::Init, processes)
    }

    pub fn layers(&self) -> Vec<Layer> {
        let active = |name: &str, detail: String| Layer {
            name: name.into(),
            active: true,
            detail,
            hint: None,
        };
        let mut layers = vec![active(
            "pid namespace",
            "each run has its own PID namespace; its init reaps everything and the kernel kills what is left when the program ends".into(),
        )];
        for (name, detail) in &self.worker_layers {
            layers.push(active(name, detail.clone()));
        }
        if self.userns {
            // SAFETY: getuid has no preconditions.
            let uid = unsafe { libc::getuid() };
            layers.push(active(
                "unprivileged user",
                format!("not root: programs run in a user namespace as the invoking user (uid {uid}), root inside with no capability at all (empty sets, securebits locked); a dedicated uid needs root"),
            ));
        } else {
            layers.push(active(
                "unprivileged user",
                format!("programs and compilers run as uid/gid {}, held by this judge alone while it runs, with an empty capability bounding set", self.uid),
            ));
        }
        layers.push(active(
            "no_new_privs",
            "set before exec: setuid binaries and file capabilities grant nothing".into(),
        ));
        let uncounted = if self.cgroups.is_ok() {
            String::new()
        } else {
            let names: Vec<&str> = super::seccomp::uncounted_memory()
                .iter()
                .map(|(name, _)| *name)
                .collect();
            format!(
                "; without a memory cgroup also {} (memory they hold can be mapped by no process, out of the watchdog's sight)",
                names.join(", ")
            )
        };
        layers.push(active(
            "seccomp filter",
            format!(
                "denies {} system calls with EPERM (ptrace, mount, unshare, setns, bpf, perf_event_open, keyctl, io_uring, kexec, modules, ...), namespace flags of clone, and foreign ABIs{uncounted}",
                super::seccomp::denied().len()
            ),
        ));
        let backstops = if self.cgroups.is_ok() {
            ""
        } else {
            ", and without a cgroup an address-space backstop (4 × memory limit + 16 × stack limit + 4 GiB)"
        };
        layers.push(active(
            "rlimits",
            format!(
                "stack = memory limit, CPU-time backstop, file size cap, no core dumps{backstops}"
            ),
        ));
        layers.extend(super::cgroup_layers(&self.cgroups));
        layers
    }

    /// What the run's init enforces by watching the tree when there is no cgroup.
    fn watch(&self, limits: &super::Limits) -> Watch {
        let processes = u64::from(limits.processes);
        // In the worker's user namespace, RLIMIT_NPROC counts the namespace's processes (Linux
        // 5.14+): the worker and up to two run inits (the last one being reaped) besides the
        // run's own. Before 5.14 it would count all of the user's processes, so the watchdog
        // counts instead. As root, the program's uid is this judge's alone.
        let (nproc, kill_above_tasks) = if !self.userns {
            (Some(processes), None)
        } else if watchdog::nproc_per_user_namespace() {
            (Some(processes + 3), None)
        } else {
            (None, Some(processes))
        };
        Watch {
            memory: limits.memory,
            cpu_nanos: limits.cpu.as_nanos().min(u128::from(u64::MAX)) as u64,
            kill_above_tasks,
            nproc,
            address_space: watchdog::address_space_backstop(limits.memory, limits.stack),
        }
    }
}

/// Largest file a program may write (in its folder or /tmp), unless its output limit is larger.
const FILE_SIZE: u64 = 256 << 20;
/// Files a program may create in /tmp or its scratch folder.
const TMPFS_INODES: u64 = 4096;

impl Drop for Isolated {
    fn drop(&mut self) {
        // Closing the socket ends the worker; its namespaces and mounts go with it.
        // SAFETY: shutting down our own socket.
        unsafe { libc::shutdown(self.sock.as_raw_fd(), libc::SHUT_RDWR) };
        let _ = self.worker.kill();
        let _ = self.worker.wait();
        // The standby inits die with the worker; their cgroups go in the background.
        for s in self.standbys.drain(..) {
            drop(RetireLater(s.group.map(|(_, _, g)| g)));
        }
        let _ = std::fs::remove_dir_all(&self.base);
        crate::interrupt::unregister(&self.base);
    }
}
