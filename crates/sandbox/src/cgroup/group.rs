//! One run's cgroups ([`RunGroup`]): joining them, reading what the run used (CPU time, peak
//! memory, OOM evidence) from files opened once, killing the tree, and removing the folders.

use super::{members, open_at};
use crate::leftovers::Held;
use std::ffi::CString;
use std::path::PathBuf;
use std::time::Duration;

/// The cgroups of one run; removed on drop (after killing whatever is left), which also forgets
/// their registration with the interrupt handler (made when they were created).
pub struct RunGroup {
    pub(super) kind: Kind,
    /// The files read during and after the run, opened once (by the janitor, for a spare):
    /// a path walk down a cgroup tree per read cost more than the read.
    pub(super) files: Files,
    /// Each folder of [`RunGroup::dirs`] made so far, held open and locked.
    pub(super) held: Vec<Held>,
    /// Registered with the interrupt handler (see [`Cgroups::create_registered`]).
    pub(super) registered: bool,
    /// The memory limit (bytes) and the process limit set on its folders.
    pub(super) limits: (u64, u32),
}

/// A cgroup file opened on first use and then read from the start each time (and written,
/// for a counter the judge resets: see [`Cached::resettable`]).
pub(super) struct Cached {
    pub(super) path: PathBuf,
    pub(super) file: std::cell::OnceCell<Option<std::fs::File>>,
    writable: bool,
}

impl Cached {
    fn new(path: PathBuf) -> Cached {
        Cached {
            path,
            file: std::cell::OnceCell::new(),
            writable: false,
        }
    }

    /// A counter that is also reset through the same descriptor (v1 `cpuacct.usage`,
    /// `memory.max_usage_in_bytes`): opening a cgroup file costs more than reading it.
    fn resettable(path: PathBuf) -> Cached {
        Cached {
            writable: true,
            ..Cached::new(path)
        }
    }

    fn open(&self) -> Option<&std::fs::File> {
        self.file
            .get_or_init(|| {
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(self.writable)
                    .open(&self.path)
                    .ok()
            })
            .as_ref()
    }

    /// Writes `value` (a whole write: cgroup files take no offsets); whether all of it was taken.
    fn write(&self, value: &[u8]) -> bool {
        use std::os::unix::fs::FileExt;
        self.writable
            && self
                .open()
                .is_some_and(|f| f.write_at(value, 0).is_ok_and(|n| n == value.len()))
    }

    /// A placeholder left where a file was moved out.
    fn taken() -> Cached {
        Cached::new(PathBuf::new())
    }

    /// The whole file, read from its start (cgroup files are generated afresh on each read).
    fn read(&self) -> Option<String> {
        use std::os::unix::fs::FileExt;
        let file = self.open()?;
        let mut buf = [0u8; 4096];
        let mut len = 0;
        loop {
            match file.read_at(&mut buf[len..], len as u64) {
                Ok(0) => break,
                Ok(n) => {
                    len += n;
                    if len == buf.len() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        String::from_utf8(buf[..len].to_vec()).ok()
    }

    fn read_u64(&self) -> Option<u64> {
        self.read()?.trim().parse().ok()
    }

    /// The value of `key` in a flat-keyed file such as cpu.stat or memory.events.
    fn read_key(&self, key: &str) -> Option<u64> {
        self.read()?.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == key).then(|| v.trim().parse().ok()).flatten()
        })
    }
}

/// The files of a run's cgroups that the judge reads.
pub(super) struct Files {
    /// cpuacct.usage (v1, nanoseconds) or cpu.stat (v2).
    pub(super) cpu: Cached,
    /// memory.max_usage_in_bytes (v1) or memory.peak (v2).
    pub(super) peak: Cached,
    /// memory.current (v2 before Linux 5.19, which has no memory.peak).
    pub(super) current: Option<Cached>,
    /// memory.oom_control (v1) or memory.events (v2).
    pub(super) events: Cached,
    /// memory.failcnt (v1).
    pub(super) failcnt: Option<Cached>,
    /// memory.usage_in_bytes (v1: read when a finished run's folder is kept, see
    /// [`PooledMemory::fresh`]).
    pub(super) usage: Option<Cached>,
    /// pids.current (v1: read when a finished run's pair is pooled, see [`RunGroup::recycle`]).
    pub(super) charged: Option<Cached>,
    /// [`JOIN_V1`] or `cgroup.procs` (v2) of each group, opened for writing: a program joins
    /// through these.
    pub(super) join: std::cell::OnceCell<Result<Vec<std::fs::File>, String>>,
    pub(super) join_dirs: Vec<PathBuf>,
    pub(super) join_file: &'static str,
}

/// The file a process joins a cgroup v1 through: `tasks`, which moves only the writing thread.
/// Whoever joins is single-threaded (the program's process between fork and exec, a standby's
/// process before its program), so it is the whole process all the same; and unlike a write to
/// `cgroup.procs`, which moves a thread group, it does not take the kernel-wide thread-group
/// lock, whose write side (without `favordynmods`) waits for an RCU grace period while it holds
/// the cgroup mutex, stalling every other cgroup change, fork and exit on the machine
/// (`bench/cgroup_join.c`: after 100 ms pauses, a median of 7.3 ms a join through
/// `cgroup.procs` and 37 µs through `tasks`).
pub(super) const JOIN_V1: &str = "tasks";

impl Files {
    pub(super) fn of(kind: &Kind) -> Files {
        match kind {
            Kind::V1 {
                memory,
                cpuacct,
                pids,
            } => Files {
                cpu: Cached::resettable(cpuacct.join("cpuacct.usage")),
                peak: Cached::resettable(memory.join("memory.max_usage_in_bytes")),
                current: None,
                events: Cached::new(memory.join("memory.oom_control")),
                failcnt: Some(Cached::new(memory.join("memory.failcnt"))),
                usage: Some(Cached::new(memory.join("memory.usage_in_bytes"))),
                charged: Some(Cached::new(pids.join("pids.current"))),
                join: std::cell::OnceCell::new(),
                join_dirs: vec![memory.clone(), cpuacct.clone(), pids.clone()],
                join_file: JOIN_V1,
            },
            Kind::V2 { dir } => Files {
                cpu: Cached::new(dir.join("cpu.stat")),
                peak: Cached::new(dir.join("memory.peak")),
                current: Some(Cached::new(dir.join("memory.current"))),
                events: Cached::new(dir.join("memory.events")),
                failcnt: None,
                usage: None,
                charged: None,
                join: std::cell::OnceCell::new(),
                join_dirs: vec![dir.clone()],
                join_file: "cgroup.procs",
            },
        }
    }

    fn join(&self) -> Result<&Vec<std::fs::File>, String> {
        self.join
            .get_or_init(|| {
                self.join_dirs
                    .iter()
                    .map(|d| {
                        let path = d.join(self.join_file);
                        std::fs::OpenOptions::new()
                            .write(true)
                            .open(&path)
                            .map_err(|e| format!("open {}: {e}", path.display()))
                    })
                    .collect()
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Opens what will be read, ahead of the run.
    pub(super) fn open_all(&self) {
        let _ = self.join();
        for c in [&self.cpu, &self.peak, &self.events] {
            c.open();
        }

        if let Some(c) = &self.failcnt {
            c.open();
        }
    }
}

pub(super) enum Kind {
    V1 {
        memory: PathBuf,
        cpuacct: PathBuf,
        pids: PathBuf,
    },
    V2 {
        dir: PathBuf,
    },
}

impl RunGroup {
    pub(super) fn dirs(&self) -> Vec<&PathBuf> {
        match &self.kind {
            Kind::V1 {
                memory,
                cpuacct,
                pids,
            } => vec![memory, cpuacct, pids],
            Kind::V2 { dir } => vec![dir],
        }
    }

    /// The paths of the files a child writes "0" to between fork and exec to join the run's
    /// cgroups (`cgroup.procs`, or [`JOIN_V1`] on cgroup v1).
    pub fn procs_files(&self) -> Vec<CString> {
        self.dirs()
            .iter()
            .map(|d| {
                CString::new(d.join(self.files.join_file).as_os_str().as_encoded_bytes())
                    .expect("no NUL in paths")
            })
            .collect()
    }

    /// Descriptors of each group's join file (see [`RunGroup::procs_files`]), open for
    /// writing: writing "0" to each moves the writer into the run's cgroups.
    pub fn join_fds(&self) -> Result<Vec<std::os::fd::RawFd>, String> {
        use std::os::fd::AsRawFd;
        Ok(self.files.join()?.iter().map(|f| f.as_raw_fd()).collect())
    }

    pub fn cpu_time(&self) -> Duration {
        match &self.kind {
            Kind::V1 { .. } => Duration::from_nanos(self.files.cpu.read_u64().unwrap_or(0)),
            Kind::V2 { .. } => {
                Duration::from_micros(self.files.cpu.read_key("usage_usec").unwrap_or(0))
            }
        }
    }

    pub fn peak_memory(&self) -> u64 {
        // memory.peak exists since Linux 5.19; before that only the current usage is known.
        self.files
            .peak
            .read_u64()
            .or_else(|| self.files.current.as_ref()?.read_u64())
            .unwrap_or(0)
    }

    /// The OOM killer struck, or an allocation hit the limit.
    pub fn memory_evidence(&self) -> (bool, bool) {
        let oom = self.files.events.read_key("oom_kill").unwrap_or(0);
        let limit_hit = match &self.files.failcnt {
            Some(failcnt) => failcnt.read_u64().unwrap_or(0),
            None => self.files.events.read_key("max").unwrap_or(0),
        };
        (oom > 0, limit_hit > 0)
    }

    /// Pids of the run's processes (in the judge's PID namespace), read afresh (see
    /// `read_fresh`) from the group that holds them (v1: pids, the last folder).
    pub fn pids(&self) -> Vec<i32> {
        match self.held.get(self.dirs().len() - 1) {
            Some(dir) => members(dir.fd()),
            None => Vec::new(),
        }
    }

    /// Sends SIGKILL to every process of the run, without waiting for them to end.
    pub fn kill(&self) {
        if let Kind::V2 { dir } = &self.kind {
            // cgroup.kill (Linux 5.14) kills the whole subtree atomically, forks included.
            let kill = dir.join("cgroup.kill");
            if kill.exists() && std::fs::write(kill, "1").is_ok() {
                return;
            }
        }
        for pid in self.pids() {
            // SAFETY: SIGKILL to a process of this run's own cgroup.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }

    /// Kills every process of the run until none is left (at most [`KILL_LIMIT`]); whether
    /// none is.
    pub fn kill_all(&self) -> bool {
        let deadline = std::time::Instant::now() + KILL_LIMIT;
        let mut killed = false;
        loop {
            let pids = self.pids();
            if pids.is_empty() {
                return true;
            }
            if std::time::Instant::now() > deadline {
                return false;
            }
            if !killed {
                self.kill();
                killed = true;
            } else {
                for pid in pids {
                    // SAFETY: SIGKILL to a process of this run's own cgroup.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The longest [`RunGroup::kill_all`] waits for a run's processes to end: SIGKILLed processes
/// end within milliseconds unless stuck in the kernel.
pub(super) const KILL_LIMIT: Duration = Duration::from_secs(2);

impl Drop for RunGroup {
    fn drop(&mut self) {
        self.kill_all();
        self.remove();
    }
}

impl RunGroup {
    /// Removes the folders this group made (and holds) and forgets their registration.
    fn remove(&mut self) {
        for held in std::mem::take(&mut self.held) {
            remove_folder(held.path());
        }
        if self.registered {
            for d in self.dirs() {
                crate::interrupt::unregister_cgroup(d);
            }
            self.registered = false;
        }
    }

    /// A finished run's cpuacct and pids folders, emptied and reset for the next run, with its
    /// memory folder removed (see [`Pooled`]); or None when they cannot be reused exactly (a
    /// process is left, or still charged to the pids group, or the CPU counter did not reset):
    /// then all three folders are removed, as on drop. cgroup v2: always None (removed).
    pub(super) fn recycle(mut self) -> Option<Pooled> {
        if !matches!(self.kind, Kind::V1 { .. }) || self.held.len() != 3 || !self.registered {
            return None;
        }
        if !self.kill_all() {
            // Dropped: removed (a second kill_all finds the same process).
            return None;
        }
        // pids.current counts a process until it is reaped (cgroup.procs lists it only until it
        // exits), and a process that is not reaped yet may still be charged CPU time.
        let charged = self.files.charged.as_ref().and_then(Cached::read_u64);
        let reset = charged == Some(0)
            && self.files.cpu.write(b"0")
            && self.files.cpu.read_u64() == Some(0);
        if !reset {
            return None;
        }
        let [memory, cpuacct, pids] = match <[Held; 3]>::try_from(std::mem::take(&mut self.held)) {
            Ok(held) => held,
            Err(held) => {
                self.held = held;
                return None;
            }
        };
        // The pair stays registered with the interrupt handler, and held: still ours.
        self.registered = false;
        let cpu = std::mem::replace(&mut self.files.cpu, Cached::taken());
        let charged = self.files.charged.take();
        let (memory_join, join) = match self.files.join.take() {
            Some(Ok(files)) => match <[std::fs::File; 3]>::try_from(files) {
                Ok([m, c, p]) => (Some(m), Some([c, p])),
                Err(_) => (None, None),
            },
            _ => (None, None),
        };
        let memory =
            if self.reusable_memory() {
                Some(PooledMemory {
                    peak: std::mem::replace(&mut self.files.peak, Cached::taken()),
                    events: std::mem::replace(&mut self.files.events, Cached::taken()),
                    usage: self.files.usage.take().unwrap_or_else(|| {
                        Cached::new(memory.path().join("memory.usage_in_bytes"))
                    }),
                    failcnt: self.files.failcnt.take(),
                    held: Some(memory),
                    join: memory_join,
                    limit: self.limits.0,
                    retired: std::time::Instant::now(),
                })
            } else {
                remove_folder(memory.path());
                crate::interrupt::unregister_cgroup(memory.path());
                drop(memory);
                None
            };
        Some(Pooled {
            parts: Some(PooledParts {
                cpuacct,
                pids,
                cpu,
                charged,
                join,
                memory,
                processes: self.limits.1,
            }),
        })
    }

    /// Whether a finished run's memory folder may serve another run: no OOM kill and no
    /// allocation refused at the limit in it (counters that cannot be reset to what a fresh
    /// folder reads). What is still charged to it is checked when it is taken (see
    /// [`PooledMemory::fresh`]).
    fn reusable_memory(&self) -> bool {
        self.memory_evidence() == (false, false)
    }

    /// A run's cgroups from a pooled cpuacct and pids pair and a fresh memory folder (made and
    /// limited by the caller), the pair's open files kept; the memory folder back if the pair
    /// was used already.
    pub(super) fn from_pooled(memory: Held, mut pooled: Pooled) -> Result<RunGroup, Held> {
        let Some(parts) = pooled.parts.take() else {
            return Err(memory);
        };
        // The new memory folder's join file beside the pair's, as the janitor opens a spare's;
        // if it cannot be opened here, all three are opened when first needed.
        let join = std::fs::OpenOptions::new()
            .write(true)
            .open(memory.path().join(JOIN_V1))
            .ok();
        Ok(parts.with_memory(memory, join))
    }

    /// A run's cgroups from a pooled pair and a kept memory folder that reads as a fresh one
    /// (see [`PooledMemory::fresh`]), the files of both kept open; None if the pair was used
    /// already (the memory folder is removed then).
    pub(super) fn from_pooled_whole(
        pooled: &mut Pooled,
        mut kept: PooledMemory,
    ) -> Option<RunGroup> {
        let held = kept.held.take()?;
        let Some(parts) = pooled.parts.take() else {
            kept.held = Some(held);
            return None;
        };
        let mut group = parts.with_memory(held, kept.join.take());
        group.files.peak = std::mem::replace(&mut kept.peak, Cached::taken());
        group.files.events = std::mem::replace(&mut kept.events, Cached::taken());
        group.files.usage = Some(std::mem::replace(&mut kept.usage, Cached::taken()));
        if kept.failcnt.is_some() {
            group.files.failcnt = kept.failcnt.take();
        }
        // All three folders stayed registered with the interrupt handler while pooled.
        group.registered = true;
        group.limits.0 = kept.limit;
        Some(group)
    }
}

/// A finished run's cpuacct and pids folders, kept for another run on cgroup v1 (making and
/// removing cgroup folders costs the machine more than the run of a trivial program): no
/// process left in them, the CPU counter reset to 0, the files kept open as they were
/// (`cpuacct.usage`, `cgroup.procs` for joining). Still held and registered with the interrupt
/// handler; removed on drop.
pub(super) struct Pooled {
    parts: Option<PooledParts>,
}

struct PooledParts {
    cpuacct: Held,
    pids: Held,
    cpu: Cached,
    /// pids.current.
    charged: Option<Cached>,
    join: Option<[std::fs::File; 2]>,
    /// The process limit set on the pids folder.
    processes: u32,
    /// The run's memory folder, when it could be kept too (the janitor pools it apart: see
    /// [`Pooled::take_memory`]).
    memory: Option<PooledMemory>,
}

impl PooledParts {
    /// A run's cgroups from this pair and the memory folder `memory` (with its join file,
    /// when open), the pair's open files kept; not registered, its memory limit unknown (the
    /// callers set both). The pair's own memory folder was taken out before
    /// ([`Pooled::take_memory`]).
    fn with_memory(self, memory: Held, memory_join: Option<std::fs::File>) -> RunGroup {
        let kind = Kind::V1 {
            memory: memory.path().to_path_buf(),
            cpuacct: self.cpuacct.path().to_path_buf(),
            pids: self.pids.path().to_path_buf(),
        };
        let mut files = Files::of(&kind);
        files.cpu = self.cpu;
        if self.charged.is_some() {
            files.charged = self.charged;
        }
        if let (Some([c, p]), Some(m)) = (self.join, memory_join) {
            let _ = files.join.set(Ok(vec![m, c, p]));
        }
        RunGroup {
            kind,
            files,
            held: vec![memory, self.cpuacct, self.pids],
            registered: false,
            limits: (0, self.processes),
        }
    }
}

/// A finished run's memory folder kept for another run (cgroup v1): no OOM kill and no
/// allocation refused at the limit in it, its files kept open. It serves another run once it
/// reads as a fresh folder ([`PooledMemory::fresh`]). Still held and registered with the
/// interrupt handler; removed on drop.
pub(super) struct PooledMemory {
    held: Option<Held>,
    peak: Cached,
    events: Cached,
    join: Option<std::fs::File>,
    /// memory.usage_in_bytes.
    usage: Cached,
    /// memory.failcnt.
    failcnt: Option<Cached>,
    /// The memory limit set on it.
    limit: u64,
    /// When its run was retired.
    pub(super) retired: std::time::Instant,
}

impl PooledMemory {
    pub(super) fn path(&self) -> Option<&std::path::Path> {
        self.held.as_ref().map(Held::path)
    }

    /// Whether the folder now reads exactly as a fresh one would, with the limit `memory`
    /// set: nothing charged to it and its peak reset to 0. An ended run's last charges go some
    /// milliseconds after it: objects the kernel frees after an RCU grace period, and the
    /// batch it charges ahead per CPU, handed back when another group charges on that CPU (the
    /// next runs do). A run that left something for good (a cached directory entry, a page
    /// of a file it read first) keeps its folder from ever reading fresh.
    pub(super) fn fresh(&mut self, memory: u64) -> bool {
        let Some(held) = &self.held else {
            return false;
        };
        let empty = self.usage.read_u64() == Some(0)
            && self.peak.write(b"0")
            && self.peak.read_u64() == Some(0);
        if !empty {
            return false;
        }
        if self.limit != memory {
            if super::v1::limit_memory(held.path(), memory).is_err() {
                return false;
            }
            self.limit = memory;
        }
        true
    }
}

impl Drop for PooledMemory {
    fn drop(&mut self) {
        if let Some(held) = self.held.take() {
            remove_folder(held.path());
            crate::interrupt::unregister_cgroup(held.path());
        }
    }
}

impl Pooled {
    /// The cpuacct and pids folders.
    pub(super) fn dirs(&self) -> Option<(&std::path::Path, &std::path::Path)> {
        let parts = self.parts.as_ref()?;
        Some((parts.cpuacct.path(), parts.pids.path()))
    }

    /// The memory folder kept with the pair, if any, taken out.
    pub(super) fn take_memory(&mut self) -> Option<PooledMemory> {
        self.parts.as_mut()?.memory.take()
    }

    /// Sets the process limit of the pids folder (`pids.max`); whether it took.
    pub(super) fn set_processes(&mut self, processes: u32) -> bool {
        self.parts.as_mut().is_some_and(|p| {
            let set = p.processes == processes
                || write_at(p.pids.fd(), c"pids.max", processes.to_string().as_bytes());
            if set {
                p.processes = processes;
            }
            set
        })
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        // A kept memory folder is removed by its own drop.
        if let Some(parts) = self.parts.take() {
            for held in [&parts.cpuacct, &parts.pids] {
                remove_folder(held.path());
                crate::interrupt::unregister_cgroup(held.path());
            }
        }
    }
}

/// Removes an empty cgroup folder, trying for a while (a killed process may take a moment to
/// leave it).
pub(super) fn remove_folder(d: &std::path::Path) {
    for _ in 0..200 {
        if std::fs::remove_dir(d).is_ok() || !d.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Writes `value` to `file` of the cgroup folder `dir` (opened relative to it); whether all of
/// it was taken.
fn write_at(dir: &std::os::fd::OwnedFd, file: &std::ffi::CStr, value: &[u8]) -> bool {
    use std::io::Write;
    open_at(dir, file, libc::O_WRONLY).is_some_and(|mut f| f.write_all(value).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgroup::testing;

    /// The member list is read afresh: a process killed and reaped is gone from it at once, and
    /// kill_all returns as soon as the group is empty. (A kept-open v1 `cgroup.procs` re-read
    /// within a second returns the list of the first read.)
    #[test]
    fn the_member_list_is_never_stale() {
        let Some((_turn, cgroups)) = testing::cgroups_or_skip() else {
            return;
        };
        let group = cgroups.create(64 << 20, 8).unwrap();
        assert!(group.pids().is_empty());
        let mut child = testing::spawn_in(&group, "sleep", &["30"]);
        assert_eq!(group.pids(), [child.id() as i32]);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(group.pids().is_empty(), "a reaped process is still listed");
        let start = std::time::Instant::now();
        assert!(group.kill_all());
        assert!(start.elapsed() < Duration::from_millis(100));
    }
}
