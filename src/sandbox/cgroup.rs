//! Per-run cgroups, v1 (hierarchies memory, cpuacct and pids) or v2 (one unified tree): limit
//! memory and process count, measure CPU time and peak memory of exactly one run's process tree,
//! and kill that tree.
//!
//! Run cgroups are created below the judge's own cgroup (read from /proc/self/cgroup), so a judge
//! that is itself confined (e.g. by a test harness) stays confined. Each is held (an `flock`, see
//! `crate::leftovers`) while it exists, so that a judge killed with SIGKILL leaves cgroups the next
//! judge recognises as abandoned and removes.

use crate::leftovers::{self, Held};
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Condvar, Mutex, Once, OnceLock};
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
    use std::os::fd::FromRawFd;
    // SAFETY: openat relative to a folder descriptor we own, with a valid C string.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            file.as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: a new descriptor that nobody else owns.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut text = Vec::new();
    f.read_to_end(&mut text).ok()?;
    Some(text)
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

/// Where the judge sits in a cgroup2 tree; run cgroups are created in `parent`.
#[derive(Debug, Clone)]
pub struct V2 {
    parent: PathBuf,
    /// The judge is not root: `parent` is a subtree delegated to its user (systemd gives each
    /// user such a subtree: `user@UID.service`, and scopes made with `Delegate=yes`).
    delegated: bool,
    /// The leaf the judge moved itself into, held while the judge lives (it cannot remove the
    /// leaf it sits in: the next judge does).
    _leaf: Option<Arc<Held>>,
}

/// How a user gets a cgroup v2 subtree of their own for the judge (systemd).
const DELEGATE_HINT: &str =
    "run the judge in a delegated scope: `systemd-run --user --scope -p Delegate=yes judge ...`";

/// Whether `uid` may change `path` (a cgroup folder or file): its owner with write permission,
/// or anyone when others may write. systemd delegates a subtree by giving its folder and the
/// files `cgroup.procs`, `cgroup.threads` and `cgroup.subtree_control` to the user.
fn writable_by(path: &Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    if uid == 0 {
        return true;
    }
    std::fs::metadata(path)
        .is_ok_and(|m| (m.uid() == uid && m.mode() & 0o200 != 0) || m.mode() & 0o002 != 0)
}

impl V2 {
    /// `mount` is the cgroup2 mount and `proc_self_cgroup` the text of /proc/self/cgroup. If the
    /// judge's own cgroup must be freed for children (the "no internal processes" rule: a cgroup
    /// with processes cannot give controllers to children), the judge moves into a leaf.
    pub fn probe(mount: &Path, proc_self_cgroup: &str) -> Result<V2, String> {
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        Self::probe_as(mount, proc_self_cgroup, uid)
    }

    /// [`V2::probe`] for a judge running as `uid`: without root, only a subtree delegated to
    /// that user can be used.
    pub fn probe_as(mount: &Path, proc_self_cgroup: &str, uid: u32) -> Result<V2, String> {
        let rel = proc_self_cgroup
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .ok_or("no cgroup v2 entry (`0::/...`) in /proc/self/cgroup")?;
        let own = mount.join(rel.trim_start_matches('/'));
        let read = |file: &str| std::fs::read_to_string(own.join(file)).unwrap_or_default();
        let available = read("cgroup.controllers");
        for needed in ["memory", "pids"] {
            if !available.split_whitespace().any(|c| c == needed) {
                let fix = if uid == 0 {
                    "delegate it (e.g. `systemd-run --scope -p Delegate=yes judge ...`)"
                } else {
                    DELEGATE_HINT
                };
                return Err(format!(
                    "the `{needed}` controller is not available in {}/cgroup.controllers: run as root, or {fix}",
                    own.display()
                ));
            }
        }
        let delegated = uid != 0;
        if delegated {
            for path in [
                own.clone(),
                own.join("cgroup.procs"),
                own.join("cgroup.subtree_control"),
            ] {
                if !writable_by(&path, uid) {
                    return Err(format!(
                        "the judge's cgroup {} is not delegated to uid {uid} ({} is not writable by it): {DELEGATE_HINT}, or run as root",
                        own.display(),
                        path.display()
                    ));
                }
            }
        }
        let enabled = read("cgroup.subtree_control");
        let wanted: Vec<&str> = ["memory", "pids", "cpu"]
            .into_iter()
            .filter(|c| available.split_whitespace().any(|a| a == *c))
            .filter(|c| !enabled.split_whitespace().any(|e| e == *c))
            .collect();
        let mut leaf = None;
        if !wanted.is_empty() {
            if !read("cgroup.procs").trim().is_empty() {
                // Move the judge into a leaf of its own; it stays there until it exits.
                let mut tries = 0;
                let held = loop {
                    match make_held(&own.join(held_name(SELF_PREFIX))) {
                        Err(Made::Swept(_)) if tries < 3 => tries += 1,
                        Err(Made::Swept(why) | Made::Failed(why)) => return Err(why),
                        Ok(held) => break held,
                    }
                };
                write(held.path(), "cgroup.procs", "0")?;
                leaf = Some(Arc::new(held));
            }
            let change: Vec<String> = wanted.iter().map(|c| format!("+{c}")).collect();
            let change = change.join(" ");
            std::fs::write(own.join("cgroup.subtree_control"), &change).map_err(|e| {
                let mut why = format!(
                    "cannot write `{change}` to {}/cgroup.subtree_control: {e}",
                    own.display()
                );
                if e.raw_os_error() == Some(libc::EBUSY) {
                    why += &format!(
                        " (other processes share that cgroup); {}",
                        if delegated {
                            DELEGATE_HINT
                        } else {
                            "run the judge in a cgroup of its own"
                        }
                    );
                }
                why
            })?;
        }
        Ok(V2 {
            parent: own,
            delegated,
            _leaf: leaf,
        })
    }

    fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, Made> {
        let dir = self.parent.join(held_name(RUN_PREFIX));
        let kind = Kind::V2 { dir: dir.clone() };
        let files = Files::of(&kind);
        let mut group = RunGroup {
            kind,
            files,
            held: Vec::new(),
            registered: false,
        };
        group.held.push(make_held(&dir)?);
        write(&dir, "memory.max", &memory.to_string())?;
        if dir.join("memory.swap.max").exists() {
            write(&dir, "memory.swap.max", "0")?;
        }
        write(&dir, "pids.max", &processes.to_string())?;
        Ok(group)
    }
}

/// Where the v1 controllers are mounted and where the judge sits in them.
#[derive(Debug, Clone)]
pub struct V1 {
    memory: PathBuf,
    cpuacct: PathBuf,
    pids: PathBuf,
}

impl V1 {
    /// The judge's own cgroup in each needed v1 hierarchy, or why they cannot be used.
    pub fn probe(root: &Path, proc_self_cgroup: &str) -> Result<V1, String> {
        let own = |controller: &str| -> Result<PathBuf, String> {
            let mount = ["", ",cpu"]
                .iter()
                .map(|suffix| root.join(format!("{controller}{suffix}")))
                .chain(std::iter::once(root.join(format!("cpu,{controller}"))))
                .find(|p| p.is_dir())
                .ok_or_else(|| {
                    format!(
                        "no cgroup v1 `{controller}` hierarchy under {}",
                        root.display()
                    )
                })?;
            let rel = proc_self_cgroup
                .lines()
                .filter_map(|l| {
                    let mut parts = l.splitn(3, ':');
                    let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                    controllers
                        .split(',')
                        .any(|c| c == controller)
                        .then(|| path.trim_start_matches('/').to_string())
                })
                .next()
                .unwrap_or_default();
            let dir = mount.join(rel);
            // A run cgroup's name, held like one: a judge killed in between leaves a folder
            // the next one removes (and another judge's sweep may take it: another name).
            let mut tries = 0;
            let probe = loop {
                match make_held(&dir.join(held_name(RUN_PREFIX))) {
                    Err(Made::Swept(_)) if tries < 3 => tries += 1,
                    Err(Made::Swept(why) | Made::Failed(why)) => {
                        return Err(format!(
                            "cannot create a cgroup in {}: {why}",
                            dir.display()
                        ))
                    }
                    Ok(held) => break held,
                }
            };
            let _ = std::fs::remove_dir(probe.path());
            Ok(dir)
        };
        Ok(V1 {
            memory: own("memory")?,
            cpuacct: own("cpuacct")?,
            pids: own("pids")?,
        })
    }

    /// A fresh cgroup for one run with the given limits.
    fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, Made> {
        let name = held_name(RUN_PREFIX);
        let kind = Kind::V1 {
            memory: self.memory.join(&name),
            cpuacct: self.cpuacct.join(&name),
            pids: self.pids.join(&name),
        };
        let files = Files::of(&kind);
        let mut g = RunGroup {
            kind,
            files,
            held: Vec::new(),
            registered: false,
        };
        let dirs: Vec<PathBuf> = g.dirs().into_iter().cloned().collect();
        for d in &dirs {
            let held = make_held(d)?;
            g.held.push(held);
        }
        let set = |dir: &Path, file: &str, value: String| -> Result<(), Made> {
            std::fs::write(dir.join(file), value)
                .map_err(|e| Made::Failed(format!("cannot set {}/{file}: {e}", dir.display())))
        };
        let (mem, pids) = (self.memory.join(&name), self.pids.join(&name));
        set(&mem, "memory.limit_in_bytes", memory.to_string())?;
        if mem.join("memory.memsw.limit_in_bytes").exists() {
            set(&mem, "memory.memsw.limit_in_bytes", memory.to_string())?;
        }
        // Swap would hide memory use and slow the machine down.
        let _ = set(&mem, "memory.swappiness", "0".into());
        set(&pids, "pids.max", processes.to_string())?;
        Ok(g)
    }
}

/// The cgroups of one run; removed on drop (after killing whatever is left), which also forgets
/// their registration with the interrupt handler (made when they were created).
pub struct RunGroup {
    kind: Kind,
    /// The files read during and after the run, opened once (by the janitor, for a spare):
    /// a path walk down a cgroup tree per read cost more than the read.
    files: Files,
    /// Each folder of [`RunGroup::dirs`] made so far, held open and locked.
    held: Vec<Held>,
    /// Registered with the interrupt handler (see [`Cgroups::create_registered`]).
    registered: bool,
}

/// A cgroup file opened on first use and then read from the start each time.
struct Cached {
    path: PathBuf,
    file: std::cell::OnceCell<Option<std::fs::File>>,
}

impl Cached {
    fn new(path: PathBuf) -> Cached {
        Cached {
            path,
            file: std::cell::OnceCell::new(),
        }
    }

    fn open(&self) -> Option<&std::fs::File> {
        self.file
            .get_or_init(|| std::fs::File::open(&self.path).ok())
            .as_ref()
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
struct Files {
    /// cpuacct.usage (v1, nanoseconds) or cpu.stat (v2).
    cpu: Cached,
    /// memory.max_usage_in_bytes (v1) or memory.peak (v2).
    peak: Cached,
    /// memory.current (v2 before Linux 5.19, which has no memory.peak).
    current: Option<Cached>,
    /// memory.oom_control (v1) or memory.events (v2).
    events: Cached,
    /// memory.failcnt (v1).
    failcnt: Option<Cached>,
    /// cgroup.procs of each group, opened for writing: a program joins through these.
    join: std::cell::OnceCell<Result<Vec<std::fs::File>, String>>,
    join_dirs: Vec<PathBuf>,
}

impl Files {
    fn of(kind: &Kind) -> Files {
        match kind {
            Kind::V1 {
                memory,
                cpuacct,
                pids,
            } => Files {
                cpu: Cached::new(cpuacct.join("cpuacct.usage")),
                peak: Cached::new(memory.join("memory.max_usage_in_bytes")),
                current: None,
                events: Cached::new(memory.join("memory.oom_control")),
                failcnt: Some(Cached::new(memory.join("memory.failcnt"))),
                join: std::cell::OnceCell::new(),
                join_dirs: vec![memory.clone(), cpuacct.clone(), pids.clone()],
            },
            Kind::V2 { dir } => Files {
                cpu: Cached::new(dir.join("cpu.stat")),
                peak: Cached::new(dir.join("memory.peak")),
                current: Some(Cached::new(dir.join("memory.current"))),
                events: Cached::new(dir.join("memory.events")),
                failcnt: None,
                join: std::cell::OnceCell::new(),
                join_dirs: vec![dir.clone()],
            },
        }
    }

    fn join(&self) -> Result<&Vec<std::fs::File>, String> {
        self.join
            .get_or_init(|| {
                self.join_dirs
                    .iter()
                    .map(|d| {
                        let path = d.join("cgroup.procs");
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
    fn open_all(&self) {
        let _ = self.join();
        for c in [&self.cpu, &self.peak, &self.events] {
            c.open();
        }

        if let Some(c) = &self.failcnt {
            c.open();
        }
    }
}

enum Kind {
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
    fn dirs(&self) -> Vec<&PathBuf> {
        match &self.kind {
            Kind::V1 {
                memory,
                cpuacct,
                pids,
            } => vec![memory, cpuacct, pids],
            Kind::V2 { dir } => vec![dir],
        }
    }

    /// `cgroup.procs` paths, for the child to join between fork and exec.
    pub fn procs_files(&self) -> Vec<CString> {
        self.dirs()
            .iter()
            .map(|d| {
                CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes())
                    .expect("no NUL in paths")
            })
            .collect()
    }

    /// Descriptors of each group's `cgroup.procs`, open for writing: writing "0" to each moves
    /// the writer into the run's cgroups.
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
    /// [`read_fresh`]) from the group that holds them (v1: pids, the last folder).
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
const KILL_LIMIT: Duration = Duration::from_secs(2);

impl Drop for RunGroup {
    fn drop(&mut self) {
        self.kill_all();
        // Only the folders this group made (and holds).
        for held in &self.held {
            let d = held.path();
            for _ in 0..200 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        if self.registered {
            for d in self.dirs() {
                crate::interrupt::unregister_cgroup(d);
            }
        }
    }
}

/// Removes the cgroups of finished runs on a thread of its own, and prepares the next run's
/// cgroups there too: creating or removing a cgroup costs a few tenths of a millisecond, and the
/// next run need wait for neither. Every folder stays registered with the interrupt handler until
/// it is removed; [`flush`] empties the queue and removes the spares (the judge calls it before
/// exiting, so nothing is left behind).
struct Janitor {
    queue: mpsc::Sender<Job>,
    pending: Arc<(Mutex<usize>, Condvar)>,
}

enum Job {
    /// Remove a finished run's cgroups.
    Retire(Box<RunGroup>),
    /// Have [`SPARES_PER_KIND`] spare run cgroups with these limits ready.
    Prepare(Cgroups, u64, u32),
    /// Remove the spares.
    DropSpares,
    /// Other work off the judge's path (removing what judges that are gone left behind).
    Call(Box<dyn FnOnce() + Send>),
}

/// Run cgroups made ahead of time: (memory limit, process limit, the group), for the kinds of
/// runs (by limits) asked for last, least recent first.
static SPARES: Mutex<Vec<(u64, u32, RunGroup)>> = Mutex::new(Vec::new());
/// Spares kept per kind of run: one for the next run, one for the standby init that run leaves
/// (which joins its cgroup ahead of time, see `worker`).
pub const SPARES_PER_KIND: usize = 2;
/// Kinds of runs (by limits) that spares are kept for: a solution's tests and its custom
/// checker take turns.
const SPARE_KINDS: usize = 2;

/// A spare with these limits, if the janitor has one ready.
pub fn take_spare(memory: u64, processes: u32) -> Option<RunGroup> {
    let mut spares = SPARES.lock().ok()?;
    let i = spares
        .iter()
        .position(|(m, p, _)| *m == memory && *p == processes)?;
    Some(spares.remove(i).2)
}

/// Returns a spare that was taken but not used (no process ever joined it).
pub fn give_back(memory: u64, processes: u32, group: RunGroup) {
    if let Ok(mut spares) = SPARES.lock() {
        let kept = spares
            .iter()
            .filter(|(m, p, _)| *m == memory && *p == processes)
            .count();
        if kept < SPARES_PER_KIND {
            spares.push((memory, processes, group));
            return;
        }
    }
    retire(group);
}

/// Makes the spares of one kind: drops those of kinds not asked for lately, then creates what
/// is missing (on the janitor's thread).
fn prepare_spares(cgroups: &Cgroups, memory: u64, processes: u32) {
    let (missing, stale) = {
        let Ok(mut spares) = SPARES.lock() else {
            return;
        };
        // This kind becomes the most recent: its spares go to the end.
        let (mut this, others): (Vec<_>, Vec<_>) = std::mem::take(&mut *spares)
            .into_iter()
            .partition(|(m, p, _)| *m == memory && *p == processes);
        let mut kinds: Vec<(u64, u32)> = Vec::new();
        for (m, p, _) in others.iter().rev() {
            if !kinds.contains(&(*m, *p)) {
                kinds.push((*m, *p));
            }
        }
        kinds.truncate(SPARE_KINDS - 1);
        let (mut others, stale): (Vec<_>, Vec<_>) = others
            .into_iter()
            .partition(|(m, p, _)| kinds.contains(&(*m, *p)));
        let missing = SPARES_PER_KIND.saturating_sub(this.len());
        others.append(&mut this);
        *spares = others;
        (missing, stale)
    };
    drop(stale);
    for _ in 0..missing {
        let Ok(group) = cgroups.create_registered(memory, processes) else {
            return;
        };
        group.files.open_all();
        match SPARES.lock() {
            Ok(mut spares) => spares.push((memory, processes, group)),
            Err(_) => return,
        }
    }
}
static JANITOR: OnceLock<Mutex<Janitor>> = OnceLock::new();

fn janitor() -> &'static Mutex<Janitor> {
    JANITOR.get_or_init(|| {
        let (queue, rx) = mpsc::channel::<Job>();
        let pending = Arc::new((Mutex::new(0usize), Condvar::new()));
        let done = pending.clone();
        std::thread::spawn(move || {
            for job in rx {
                match job {
                    Job::Retire(group) => drop(group),
                    Job::Prepare(cgroups, memory, processes) => {
                        prepare_spares(&cgroups, memory, processes)
                    }
                    Job::DropSpares => drop(SPARES.lock().map(|mut s| std::mem::take(&mut *s))),
                    Job::Call(work) => work(),
                }
                let (count, changed) = &*done;
                if let Ok(mut n) = count.lock() {
                    *n -= 1;
                }
                changed.notify_all();
            }
        });
        Mutex::new(Janitor { queue, pending })
    })
}

fn submit(job: Job) {
    let Ok(janitor) = janitor().lock() else {
        return;
    };
    if let Ok(mut n) = janitor.pending.0.lock() {
        *n += 1;
    }
    if let Err(mpsc::SendError(job)) = janitor.queue.send(job) {
        // The janitor is gone: do the removal here (a dropped job removes its cgroups).
        if let Ok(mut n) = janitor.pending.0.lock() {
            *n -= 1;
        }
        drop(job);
    }
}

/// Runs `work` on the janitor's thread; [`flush`] waits for it.
pub fn in_background(work: impl FnOnce() + Send + 'static) {
    submit(Job::Call(Box::new(work)));
}

/// Hands a finished run's cgroups to the janitor for removal (after killing whatever is left).
pub fn retire(group: RunGroup) {
    submit(Job::Retire(Box::new(group)));
}

/// The longest [`flush`] waits: removing one run's cgroups takes at most a few seconds (see
/// [`KILL_LIMIT`] and `RunGroup::drop`), and only when a process cannot be killed; so this is
/// only reached if the janitor itself failed; exiting then beats hanging.
const FLUSH_LIMIT: Duration = Duration::from_secs(30);

fn wait_idle(deadline: std::time::Instant) {
    let Some(janitor) = JANITOR.get() else {
        return;
    };
    let pending = match janitor.lock() {
        Ok(j) => j.pending.clone(),
        Err(_) => return,
    };
    let (count, changed) = &*pending;
    let Ok(mut n) = count.lock() else {
        return;
    };
    while *n > 0 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        match changed.wait_timeout(n, left) {
            Ok((next, _)) => n = next,
            Err(_) => return,
        }
    }
}

/// Waits until every retired cgroup has been removed, then removes the spares.
pub fn flush() {
    if JANITOR.get().is_none() {
        return;
    }
    let deadline = std::time::Instant::now() + FLUSH_LIMIT;
    wait_idle(deadline);
    submit(Job::DropSpares);
    wait_idle(deadline);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_judges_own_cgroup_in_each_hierarchy() {
        let root = tempfile::tempdir().unwrap();
        for c in ["memory", "cpu,cpuacct", "pids"] {
            std::fs::create_dir_all(root.path().join(c).join("outer/inner")).unwrap();
        }
        std::os::unix::fs::symlink(root.path().join("cpu,cpuacct"), root.path().join("cpuacct"))
            .unwrap();
        let own = "12:pids:/outer/inner\n5:cpu,cpuacct:/outer\n3:memory:/outer/inner\n0::/\n";
        let v1 = V1::probe(root.path(), own).unwrap();
        assert_eq!(v1.memory, root.path().join("memory/outer/inner"));
        assert_eq!(v1.cpuacct, root.path().join("cpuacct/outer"));
        assert_eq!(v1.pids, root.path().join("pids/outer/inner"));
        let missing = tempfile::tempdir().unwrap();
        let err = V1::probe(missing.path(), own).unwrap_err();
        assert!(err.contains("no cgroup v1 `memory` hierarchy"), "{err}");
    }

    /// The member list is read afresh: a process killed and reaped is gone from it at once, and
    /// kill_all returns as soon as the group is empty. (A kept-open v1 `cgroup.procs` re-read
    /// within a second returns the list of the first read.)
    #[test]
    fn the_member_list_is_never_stale() {
        use std::os::unix::process::CommandExt;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: run cgroups need root");
            return;
        }
        let Ok(cgroups) = Cgroups::probe_system() else {
            eprintln!("skipped: no usable cgroups");
            return;
        };
        let group = cgroups.create(64 << 20, 8).unwrap();
        assert!(group.pids().is_empty());
        let procs = group.procs_files();
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("30");
        // SAFETY: between fork and exec only open/write/close on prepared C strings.
        unsafe {
            cmd.pre_exec(move || {
                for p in &procs {
                    let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    libc::close(fd);
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().unwrap();
        assert_eq!(group.pids(), [child.id() as i32]);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(group.pids().is_empty(), "a reaped process is still listed");
        let start = std::time::Instant::now();
        assert!(group.kill_all());
        assert!(start.elapsed() < Duration::from_millis(100));
    }

    /// A fake cgroup2 tree: the judge sits in /outer/judge with the given files.
    fn fake_v2(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("cgroup.controllers"),
            "cpuset cpu io memory pids\n",
        )
        .unwrap();
        let own = root.path().join("outer/judge");
        std::fs::create_dir_all(&own).unwrap();
        for (file, text) in files {
            std::fs::write(own.join(file), text).unwrap();
        }
        (root, own)
    }

    #[test]
    fn v2_enables_controllers_and_moves_the_judge_into_a_leaf() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "cpu io memory pids\n"),
            ("cgroup.subtree_control", ""),
            ("cgroup.procs", "1234\n5678\n"),
        ]);
        let v2 = V2::probe(root.path(), "0::/outer/judge\n").unwrap();
        assert_eq!(v2.parent, own);
        let leaf = v2._leaf.as_ref().expect("a leaf").path().to_path_buf();
        assert_eq!(leaf.parent().unwrap(), own);
        let name = leaf.file_name().unwrap().to_str().unwrap();
        assert!(leftovers::is_held_name(name, SELF_PREFIX), "{name}");
        // "0": the writer itself (a fake tree moves no process).
        assert_eq!(
            std::fs::read_to_string(leaf.join("cgroup.procs")).unwrap(),
            "0"
        );
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids +cpu"
        );
    }

    #[test]
    fn v2_leaves_a_ready_cgroup_alone() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "memory pids\n"),
            ("cgroup.subtree_control", "memory pids\n"),
            ("cgroup.procs", "1234\n"),
        ]);
        let v2 = V2::probe(root.path(), "0::/outer/judge\n").unwrap();
        assert!(v2._leaf.is_none());
        assert_eq!(
            std::fs::read_dir(&own).unwrap().count(),
            3,
            "no folder made"
        );
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "memory pids\n"
        );
    }

    #[test]
    fn v2_without_the_memory_controller_says_how_to_fix_it() {
        let (root, _) = fake_v2(&[("cgroup.controllers", "cpu pids\n")]);
        let err = V2::probe(root.path(), "0::/outer/judge\n").unwrap_err();
        assert!(
            err.contains("`memory` controller is not available"),
            "{err}"
        );
        assert!(err.contains("cgroup.controllers"), "{err}");
        assert!(err.contains("Delegate=yes"), "{err}");
        let err = V2::probe(root.path(), "12:pids:/x\n").unwrap_err();
        assert!(err.contains("0::"), "{err}");
    }

    /// A fake tree whose judge cgroup (and its files) belong to `owner`.
    fn chown_tree(own: &Path, owner: u32) {
        for p in [
            own.to_path_buf(),
            own.join("cgroup.procs"),
            own.join("cgroup.subtree_control"),
        ] {
            std::os::unix::fs::chown(&p, Some(owner), None).unwrap();
        }
    }

    #[test]
    fn v2_without_root_uses_a_subtree_delegated_to_the_user() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: giving a fake tree to another user needs root");
            return;
        }
        const USER: u32 = 1000;
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "cpu memory pids\n"),
            ("cgroup.subtree_control", ""),
            ("cgroup.procs", "1234\n"),
        ]);
        let proc_self = "0::/outer/judge\n";
        let err = V2::probe_as(root.path(), proc_self, USER).unwrap_err();
        assert!(err.contains("is not delegated to uid 1000"), "{err}");
        assert!(
            err.contains("systemd-run --user --scope -p Delegate=yes"),
            "{err}"
        );
        chown_tree(&own, USER);
        let v2 = V2::probe_as(root.path(), proc_self, USER).unwrap();
        assert!(v2.delegated);
        let leaf = v2._leaf.as_ref().expect("a leaf").path().to_path_buf();
        assert_eq!(leaf.parent().unwrap(), own);
        let described = Cgroups::V2(v2).describe();
        assert!(described.contains("delegated to this user"), "{described}");
        assert!(described.contains("outer/judge"), "{described}");
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids +cpu"
        );
        assert!(leaf.is_dir());
        // A file the user cannot write is named.
        std::os::unix::fs::chown(own.join("cgroup.subtree_control"), Some(0), None).unwrap();
        let err = V2::probe_as(root.path(), proc_self, USER).unwrap_err();
        assert!(
            err.contains("cgroup.subtree_control is not writable"),
            "{err}"
        );
    }

    #[test]
    fn v2_without_root_and_without_controllers_says_how_to_get_them() {
        let (root, _) = fake_v2(&[("cgroup.controllers", "cpu\n")]);
        let err = V2::probe_as(root.path(), "0::/outer/judge\n", 1000).unwrap_err();
        assert!(
            err.contains("`memory` controller is not available"),
            "{err}"
        );
        assert!(
            err.contains("systemd-run --user --scope -p Delegate=yes"),
            "{err}"
        );
    }

    #[test]
    fn v2_run_groups_set_limits_and_read_the_v2_files() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "memory pids\n"),
            ("cgroup.subtree_control", "memory pids\n"),
        ]);
        let v2 = V2::probe(root.path(), "0::/outer/judge\n").unwrap();
        let group = v2.create(64 << 20, 32).unwrap();
        let Kind::V2 { dir } = &group.kind else {
            panic!("a v2 group expected");
        };
        assert_eq!(dir.parent().unwrap(), own);
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        assert_eq!(read("memory.max"), (64u64 << 20).to_string());
        assert_eq!(read("pids.max"), "32");
        assert_eq!(group.procs_files().len(), 1);
        // What the kernel would report after a run.
        let put = |f: &str, text: &str| std::fs::write(dir.join(f), text).unwrap();
        put(
            "cpu.stat",
            "usage_usec 503912\nuser_usec 500000\nsystem_usec 3912\n",
        );
        put("memory.peak", "105267200\n");
        put("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
        assert_eq!(group.cpu_time(), Duration::from_micros(503_912));
        assert_eq!(group.peak_memory(), 105_267_200);
        assert_eq!(group.memory_evidence(), (true, true));
        // Files stay open and are read from the start again: later values are seen.
        put(
            "cpu.stat",
            "usage_usec 1503912\nuser_usec 1500000\nsystem_usec 3912\n",
        );
        assert_eq!(group.cpu_time(), Duration::from_micros(1_503_912));
        let older = v2.create(64 << 20, 32).unwrap();
        let Kind::V2 { dir: older_dir } = &older.kind else {
            panic!("a v2 group expected");
        };
        std::fs::write(older_dir.join("memory.current"), "4096\n").unwrap();
        assert_eq!(
            older.peak_memory(),
            4096,
            "falls back to memory.current before 5.19"
        );
        std::mem::forget(older);
        // kill uses cgroup.kill when the kernel has it.
        put("cgroup.kill", "0");
        group.kill();
        assert_eq!(read("cgroup.kill"), "1");
        // A fake tree cannot be rmdir'ed like a real one: do not wait for it on drop.
        std::mem::forget(group);
    }
}
