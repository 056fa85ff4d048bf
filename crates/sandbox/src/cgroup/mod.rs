//! Per-run cgroups, v1 (hierarchies memory, cpuacct and pids) or v2 (one unified tree): limit
//! memory and process count, measure CPU time and peak memory of exactly one run's process tree,
//! and kill that tree.
//!
//! Run cgroups are created below the judge's own cgroup (read from /proc/self/cgroup), so a judge
//! that is itself confined (e.g. by a test harness) stays confined. Each is held (an `flock`, see
//! `crate::leftovers`) while it exists, so that a judge killed with SIGKILL leaves cgroups the next
//! judge recognises as abandoned and removes.
//!
//! Files: this one probes the machine ([`Cgroups`]) and holds what v1 and v2 share (making,
//! emptying and removing a held folder); `v1.rs` and `v2.rs` the two flavours; `group.rs` one
//! run's cgroups; `janitor.rs` the background thread that makes and removes them (and on v1
//! pools a finished run's cpuacct and pids folders for the next runs).

mod group;
mod janitor;
mod v1;
mod v2;

pub use group::RunGroup;
pub use janitor::{flush, give_back, in_background, retire, take_spare};
pub use v1::V1;
pub use v2::V2;

use group::KILL_LIMIT;
use janitor::{submit, Job};

use crate::leftovers::{self, Held};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

/// The cgroup flavour this machine offers.
#[derive(Debug, Clone)]
pub enum Cgroups {
    V1(V1),
    V2(V2),
}

impl Cgroups {
    /// v2 when /sys/fs/cgroup is a cgroup2 mount (pure v2 systems), else the v1 hierarchies.
    pub fn probe_system() -> Result<Cgroups, String> {
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        let root = Path::new("/sys/fs/cgroup");
        let cgroups = if root.join("cgroup.controllers").exists() {
            V2::probe(root, &own).map(Cgroups::V2)
        } else {
            V1::probe(root, &own).map(Cgroups::V1)
        }?;
        // What judges that are gone left here goes, in the background (once per process).
        static SWEPT: Once = Once::new();
        SWEPT.call_once(|| {
            let c = cgroups.clone();
            in_background(move || drop(c.sweep()));
        });
        Ok(cgroups)
    }

    /// The folders run cgroups are made in.
    fn parents(&self) -> Vec<&Path> {
        match self {
            Cgroups::V1(v1) => vec![&v1.memory, &v1.cpuacct, &v1.pids],
            Cgroups::V2(v2) => vec![&v2.parent],
        }
    }

    /// Removes the cgroups that judges which are gone left in this judge's parents (their
    /// processes killed first, if any is left and visible); returns those removed.
    pub fn sweep(&self) -> Vec<PathBuf> {
        let ours = |name: &str| {
            leftovers::is_held_name(name, RUN_PREFIX) || leftovers::is_held_name(name, SELF_PREFIX)
        };
        // A folder is locked only while this judge makes none of its own (see
        // `interrupt::unless_ours`): its own are locked as they are made.
        let guard = |path: &Path, take: &mut dyn FnMut() -> Option<Held>| {
            crate::interrupt::unless_ours(path, take)
        };
        let mut removed = Vec::new();
        for parent in self.parents() {
            removed.extend(leftovers::sweep_with(parent, ours, guard, |held| {
                empty_and_remove(held.fd(), held.path())
            }));
        }
        removed
    }

    /// Which cgroups the runs get, for `judge doctor`.
    pub fn describe(&self) -> String {
        match self {
            Cgroups::V1(_) => "cgroup v1".into(),
            Cgroups::V2(v2) if v2.delegated => format!(
                "cgroup v2, in the subtree {} delegated to this user",
                v2.parent.display()
            ),
            Cgroups::V2(_) => "cgroup v2".into(),
        }
    }

    /// A fresh cgroup for one run: a spare the janitor prepared with these limits, or a new one.
    pub fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, String> {
        match take_spare(memory, processes) {
            Some(group) => Ok(group),
            None => self.create_registered(memory, processes),
        }
    }

    /// Asks the janitor to have [`SPARES_PER_KIND`] spares with these limits ready.
    pub fn prepare(&self, memory: u64, processes: u32) {
        submit(Job::Prepare(self.clone(), memory, processes));
    }

    /// Creates a run cgroup and registers it with the interrupt handler in one step.
    fn create_registered(&self, memory: u64, processes: u32) -> Result<RunGroup, String> {
        // On v1, a finished run's cpuacct and pids folders when the janitor kept some.
        if let Cgroups::V1(v1) = self {
            if let Some(group) =
                janitor::take_pooled(v1).and_then(|p| v1.reuse(p, memory, processes))
            {
                return Ok(group);
            }
        }
        crate::interrupt::create_cgroups(|| {
            let mut group = self.create_now(memory, processes)?;
            let dirs = group.dirs().into_iter().cloned().collect();
            // Registered as this returns; a group dropped before (a failed creation, with the
            // registry locked) has nothing to unregister.
            group.registered = true;
            Ok((group, dirs))
        })
    }

    fn create_now(&self, memory: u64, processes: u32) -> Result<RunGroup, String> {
        // A judge cleaning up leftovers may remove a folder between its mkdir and its lock
        // (see `leftovers`): then another name.
        let mut tries = 0;
        loop {
            let made = match self {
                Cgroups::V1(v1) => v1.create(memory, processes),
                Cgroups::V2(v2) => v2.create(memory, processes),
            };
            match made {
                Err(Made::Swept(_)) if tries < 3 => tries += 1,
                Err(Made::Swept(why) | Made::Failed(why)) => return Err(why),
                Ok(group) => return Ok(group),
            }
        }
    }
}

/// Why a cgroup could not be made.
#[derive(Debug)]
enum Made {
    /// A judge cleaning up leftovers took the new folder: another name will do.
    Swept(String),
    Failed(String),
}

impl From<String> for Made {
    fn from(why: String) -> Made {
        Made::Failed(why)
    }
}

/// Names of run cgroups: the prefix and 16 random hex digits. Random, because the pid is not
/// unique: judges in separate PID namespaces may all be pid 1, and start in the same instant.
const RUN_PREFIX: &str = "judge-run-";
/// Name of the leaf a judge moves itself into on cgroup v2 (see [`V2::probe`]).
const SELF_PREFIX: &str = "judge-self-";

fn held_name(prefix: &str) -> String {
    format!("{prefix}{:016x}", super::sys::random_u64())
}

/// Makes a cgroup folder and holds it (see `crate::leftovers`).
fn make_held(dir: &Path) -> Result<Held, Made> {
    Held::make(dir.to_path_buf(), |p| std::fs::create_dir(p)).map_err(|e| {
        let why = format!("cannot create {}: {e}", dir.display());
        match e.kind() {
            std::io::ErrorKind::Interrupted => Made::Swept(why),
            _ => Made::Failed(why),
        }
    })
}

/// Reads `file` of the cgroup folder `dir` from a descriptor opened for this read alone: on
/// cgroup v1, re-reading a kept-open `cgroup.procs` returns the list cached at an earlier read
/// (kept for as long as it is read again within a second), so a process killed and reaped long
/// ago stays listed, and one that joined since may be missing.
fn read_fresh(dir: &OwnedFd, file: &std::ffi::CStr) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut text = Vec::new();
    open_at(dir, file, libc::O_RDONLY)?
        .read_to_end(&mut text)
        .ok()?;
    Some(text)
}

/// Opens `file` of the folder `dir` (relative to its descriptor: no walk down the cgroup tree)
/// with the access mode `flags`.
fn open_at(dir: &OwnedFd, file: &std::ffi::CStr, flags: libc::c_int) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: openat relative to a folder descriptor we own, with a valid C string.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), file.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: a new descriptor that nobody else owns.
    Some(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// The pids listed in the `cgroup.procs` of the cgroup folder `dir`, read afresh.
fn members(dir: &OwnedFd) -> Vec<i32> {
    String::from_utf8_lossy(&read_fresh(dir, c"cgroup.procs").unwrap_or_default())
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Kills what is left in a cgroup folder until it is empty, then removes it; whether it is gone.
fn empty_and_remove(dir: &OwnedFd, path: &Path) -> bool {
    let deadline = std::time::Instant::now() + KILL_LIMIT;
    let kill = path.join("cgroup.kill");
    if kill.exists() {
        let _ = std::fs::write(kill, "1");
    }
    loop {
        let pids = members(dir);
        if pids.is_empty() && (std::fs::remove_dir(path).is_ok() || !path.exists()) {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        for pid in pids {
            // SAFETY: SIGKILL to a process of a run's own cgroup.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn write(dir: &Path, file: &str, value: &str) -> Result<(), String> {
    std::fs::write(dir.join(file), value)
        .map_err(|e| format!("cannot write `{value}` to {}/{file}: {e}", dir.display()))
}

/// What the root-only cgroup tests share: they take turns (the janitor, its spares and its pool
/// are the process's), and run programs in a run's cgroups.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Cgroups, RunGroup};
    use std::sync::{Mutex, MutexGuard};

    static TURN: Mutex<()> = Mutex::new(());

    /// The machine's cgroups and this test's turn, or None (skipped, said on stderr) when not
    /// root or when no cgroups can be used.
    pub(crate) fn cgroups_or_skip() -> Option<(MutexGuard<'static, ()>, Cgroups)> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: run cgroups need root");
            return None;
        }
        let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        match Cgroups::probe_system() {
            Ok(cgroups) => Some((turn, cgroups)),
            Err(why) => {
                eprintln!("skipped: no usable cgroups: {why}");
                None
            }
        }
    }

    /// Starts `program` with `args` in `group` (joined between fork and exec through the
    /// group's join files, opened before the fork as the judge's runs join: no path is looked
    /// up in the run's cgroups, which would leave directory entries charged to its memory).
    pub(crate) fn spawn_in(group: &RunGroup, program: &str, args: &[&str]) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let fds = group.join_fds().expect("the join files");
        let mut cmd = std::process::Command::new(program);
        cmd.args(args);
        // SAFETY: between fork and exec only writes to descriptors open in this process.
        unsafe {
            cmd.pre_exec(move || {
                for &fd in &fds {
                    if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        cmd.spawn().expect("a program in the run's cgroups")
    }
}
