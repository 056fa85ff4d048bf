//! The janitor: a thread of its own that removes finished runs' cgroups (on v1, keeping their
//! folders for the next runs when they can be reused exactly: `recycle`, `take_memory`),
//! makes spare cgroups for the next runs (`take_spare`, `give_back`), and runs other cleanup
//! off the judge's path (`in_background`); `flush` waits until it has finished, before the
//! judge exits.

use super::group::{Pooled, PooledMemory, RunGroup};
use super::{Cgroups, V1};
use std::collections::VecDeque;
use std::sync::{mpsc, Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Removes the cgroups of finished runs on a thread of its own, and prepares the next run's
/// cgroups there too: creating or removing a cgroup costs a few tenths of a millisecond, and the
/// next run need wait for neither. Every folder stays registered with the interrupt handler until
/// it is removed (a pooled one too); [`flush`] empties the queue and removes the spares and the
/// pool (the judge calls it before exiting, so nothing is left behind).
pub(super) struct Janitor {
    queue: mpsc::Sender<Job>,
    pending: Arc<(Mutex<usize>, Condvar)>,
}

pub(super) enum Job {
    /// Remove a finished run's cgroups (or pool its cpuacct and pids folders: [`recycle`]).
    Retire(Box<RunGroup>),
    /// Have [`SPARES_PER_KIND`] spare run cgroups with these limits ready.
    Prepare(Cgroups, u64, u32),
    /// Remove the spares and the pooled folders.
    DropSpares,
    /// Other work off the judge's path (removing what judges that are gone left behind).
    Call(Box<dyn FnOnce() + Send>),
}

/// Run cgroups made ahead of time: (memory limit, process limit, the group), for the kinds of
/// runs (by limits) asked for last, least recent first.
pub(super) static SPARES: Mutex<Vec<(u64, u32, RunGroup)>> = Mutex::new(Vec::new());
/// Spares kept per kind of run: one for the next run, one for the standby init that run leaves
/// (which joins its cgroup ahead of time, see `worker`).
pub const SPARES_PER_KIND: usize = 2;
/// Kinds of runs (by limits) that spares are kept for: a solution's tests and its custom
/// checker take turns.
pub(super) const SPARE_KINDS: usize = 2;

/// Finished runs' cpuacct and pids folders kept for the next runs' cgroups (cgroup v1; see
/// [`Pooled`]), most recent last.
pub(super) static POOL: Mutex<Vec<Pooled>> = Mutex::new(Vec::new());
/// The most pairs kept: enough for every spare of every kind, twice.
pub(super) const POOL_SIZE: usize = 2 * SPARES_PER_KIND * SPARE_KINDS;

/// Finished runs' memory folders kept for the next runs (cgroup v1; see [`PooledMemory`]),
/// least recently retired first. Making and removing a memory folder a run (mkdir, rmdir,
/// and the kernel's worker that finishes a removal) took about 0.7 ms of a trivial
/// three-test submission's 6–7 ms of machine CPU.
pub(super) static MEMORY_POOL: Mutex<VecDeque<PooledMemory>> = Mutex::new(VecDeque::new());
/// The most memory folders kept: a run's last charges are freed within some tens of
/// milliseconds, while a judge with two slots retires a few hundred runs a second.
pub(super) const MEMORY_POOL_SIZE: usize = 32;
/// A kept memory folder still charged this long after its run is removed: what is left is
/// not on its way out (a cached directory entry stays charged until reclaimed).
const MEMORY_SETTLE: Duration = Duration::from_secs(1);
/// Kept memory folders looked at for one run: the least recently retired are the likeliest
/// to be free of charges.
const MEMORY_TRIES: usize = 2;

/// A kept memory folder in this hierarchy that reads as a fresh one, limited to `memory`
/// bytes (see [`PooledMemory::fresh`]); folders still charged after [`MEMORY_SETTLE`] are
/// removed on the way.
pub(super) fn take_memory(v1: &V1, memory: u64) -> Option<PooledMemory> {
    let mut stale = Vec::new();
    let found = {
        let mut pool = MEMORY_POOL.lock().ok()?;
        let mut found = None;
        let mut i = 0;
        let mut tried = 0;
        while i < pool.len() && tried < MEMORY_TRIES {
            if pool[i].path().and_then(std::path::Path::parent) != Some(&v1.memory) {
                i += 1;
                continue;
            }
            tried += 1;
            if pool[i].fresh(memory) {
                found = pool.remove(i);
                break;
            }
            if pool[i].retired.elapsed() > MEMORY_SETTLE {
                stale.extend(pool.remove(i));
            } else {
                i += 1;
            }
        }
        found
    };
    // Removed after the pool is unlocked.
    drop(stale);
    found
}

/// Keeps a finished run's memory folder for the next runs, removing the least recently
/// retired one when the pool is full.
fn keep_memory(kept: PooledMemory) {
    let oldest = match MEMORY_POOL.lock() {
        Ok(mut pool) => {
            pool.push_back(kept);
            (pool.len() > MEMORY_POOL_SIZE)
                .then(|| pool.pop_front())
                .flatten()
        }
        Err(_) => Some(kept),
    };
    drop(oldest);
}

/// A pooled pair in these hierarchies, if one is kept.
pub(super) fn take_pooled(v1: &V1) -> Option<Pooled> {
    let mut pool = POOL.lock().ok()?;
    // The least recent first: the kernel frees an ended run's last memory charges a few
    // milliseconds after it, and a memory folder is reused only once nothing is charged.
    let i = pool.iter().position(|p| {
        p.dirs().is_some_and(|(cpuacct, pids)| {
            cpuacct.parent() == Some(&v1.cpuacct) && pids.parent() == Some(&v1.pids)
        })
    })?;
    Some(pool.remove(i))
}

/// Removes a finished run's cgroups, or on cgroup v1 keeps its cpuacct and pids folders for the
/// next runs when they can be reused exactly (see [`RunGroup::recycle`]) and the pool has room.
pub(super) fn recycle(group: RunGroup) {
    let room = POOL.lock().is_ok_and(|pool| pool.len() < POOL_SIZE);
    if !room {
        return drop(group);
    }
    if let Some(mut pooled) = group.recycle() {
        if let Some(kept) = pooled.take_memory() {
            keep_memory(kept);
        }
        // Removed (if the pool filled up meanwhile) after the pool is unlocked.
        let _unused = match POOL.lock() {
            Ok(mut pool) if pool.len() < POOL_SIZE => {
                pool.push(pooled);
                None
            }
            _ => Some(pooled),
        };
    }
}

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
pub(super) fn prepare_spares(cgroups: &Cgroups, memory: u64, processes: u32) {
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
    for (_, _, group) in stale {
        recycle(group);
    }
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
pub(super) static JANITOR: OnceLock<Mutex<Janitor>> = OnceLock::new();

pub(super) fn janitor() -> &'static Mutex<Janitor> {
    JANITOR.get_or_init(|| {
        let (queue, rx) = mpsc::channel::<Job>();
        let pending = Arc::new((Mutex::new(0usize), Condvar::new()));
        let done = pending.clone();
        std::thread::spawn(move || {
            for job in rx {
                match job {
                    Job::Retire(group) => recycle(*group),
                    Job::Prepare(cgroups, memory, processes) => {
                        prepare_spares(&cgroups, memory, processes)
                    }
                    Job::DropSpares => {
                        drop(SPARES.lock().map(|mut s| std::mem::take(&mut *s)));
                        drop(POOL.lock().map(|mut p| std::mem::take(&mut *p)));
                        drop(MEMORY_POOL.lock().map(|mut p| std::mem::take(&mut *p)));
                    }
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

pub(super) fn submit(job: Job) {
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

/// Hands a finished run's cgroups to the janitor for removal (after killing whatever is left),
/// or on v1 for the pool (see [`recycle`]).
pub fn retire(group: RunGroup) {
    submit(Job::Retire(Box::new(group)));
}

/// The longest [`flush`] waits: removing one run's cgroups takes at most a few seconds (see
/// [`KILL_LIMIT`] and `RunGroup::drop`), and only when a process cannot be killed; so this is
/// only reached if the janitor itself failed; exiting then beats hanging.
pub(super) const FLUSH_LIMIT: Duration = Duration::from_secs(30);

pub(super) fn wait_idle(deadline: std::time::Instant) {
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

/// Waits until every retired cgroup has been removed or pooled, then removes the spares and the
/// pooled folders.
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
    use crate::cgroup::testing::{cgroups_or_skip, spawn_in};
    use std::path::PathBuf;
    use std::time::Instant;

    /// cgroup v1's hierarchies and this test's turn, or None (skipped) elsewhere.
    fn v1_or_skip() -> Option<(std::sync::MutexGuard<'static, ()>, V1)> {
        match cgroups_or_skip()? {
            (turn, Cgroups::V1(v1)) => Some((turn, v1)),
            (_, Cgroups::V2(_)) => {
                eprintln!("skipped: cgroup v2 reuses no folder");
                None
            }
        }
    }

    fn dirs(group: &RunGroup) -> Vec<PathBuf> {
        group.dirs().into_iter().cloned().collect()
    }

    /// The run cgroup folders this process has open.
    fn open_run_folders() -> Vec<PathBuf> {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .filter(|p| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                p.starts_with("/sys/fs/cgroup")
                    && name.is_some_and(|n| n.starts_with(crate::cgroup::RUN_PREFIX))
            })
            .collect()
    }

    fn read(dir: &std::path::Path, file: &str) -> String {
        std::fs::read_to_string(dir.join(file))
            .unwrap()
            .trim()
            .to_string()
    }

    #[test]
    fn a_reused_group_counts_only_its_own_runs_cpu_time() {
        let Some((_turn, v1)) = v1_or_skip() else {
            return;
        };
        let cgroups = Cgroups::V1(v1.clone());
        let first = cgroups.create_registered(64 << 20, 8).unwrap();
        let mut burner = spawn_in(&first, "sh", &["-c", "while :; do :; done"]);
        let deadline = Instant::now() + Duration::from_secs(20);
        while first.cpu_time() < Duration::from_millis(50) {
            assert!(Instant::now() < deadline, "no CPU time counted in 20 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        burner.kill().unwrap();
        burner.wait().unwrap();
        let burnt = first.cpu_time();
        assert!(burnt >= Duration::from_millis(50), "{burnt:?}");
        let before = dirs(&first);
        let pooled = first.recycle().expect("an emptied group is pooled");
        let second = v1.reuse(pooled, 64 << 20, 8).expect("a reused group");
        let after = dirs(&second);
        // Its memory folder serves again only through the janitor's memory pool (see
        // `a_kept_memory_folder_reads_as_a_fresh_one`): removed here.
        assert!(!before[0].exists(), "{before:?}");
        assert_ne!(after[0], before[0], "another memory folder");
        assert_eq!(after[1..], before[1..], "the same cpuacct and pids folders");
        let status = spawn_in(&second, "true", &[]).wait().unwrap();
        assert!(status.success());
        let cpu = second.cpu_time();
        assert!(
            cpu > Duration::ZERO && cpu < Duration::from_millis(25),
            "`true` after {burnt:?} of CPU in the same cpuacct folder: {cpu:?}"
        );
        drop(second);
        assert!(after.iter().all(|d| !d.exists()), "{after:?}");
    }

    /// A process that left cgroup.procs but is still charged to the pids folder (a zombie: its
    /// parent has not reaped it) keeps the pair from the pool: all three folders go.
    #[test]
    fn a_group_with_a_process_left_is_not_pooled() {
        let Some((_turn, v1)) = v1_or_skip() else {
            return;
        };
        let cgroups = Cgroups::V1(v1);
        let group = cgroups.create_registered(64 << 20, 8).unwrap();
        let mut child = spawn_in(&group, "sleep", &["30"]);
        // SAFETY: SIGKILL to our own child, which is not reaped until the end of the test.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while !group.pids().is_empty() {
            assert!(Instant::now() < deadline, "the killed child stays listed");
            std::thread::sleep(Duration::from_millis(1));
        }
        let made = dirs(&group);
        assert_eq!(
            read(&made[2], "pids.current"),
            "1",
            "a zombie is still charged"
        );
        assert!(group.recycle().is_none(), "pooled with a zombie charged");
        assert!(made.iter().all(|d| !d.exists()), "{made:?}");
        let registered = crate::interrupt::registered_cgroups();
        assert!(made.iter().all(|d| !registered.contains(d)));
        child.wait().unwrap();
    }

    /// A run's memory folder serves the next run once it reads as a fresh one: nothing charged,
    /// its peak back to 0, no OOM kill or refused allocation, the next run's limit set.
    #[test]
    fn a_kept_memory_folder_reads_as_a_fresh_one() {
        let Some((_turn, v1)) = v1_or_skip() else {
            return;
        };
        let cgroups = Cgroups::V1(v1.clone());
        let first = cgroups.create_registered(256 << 20, 8).unwrap();
        // 40 MiB of anonymous memory: dd's buffer, filled.
        let dd = [
            "bs=40M",
            "count=1",
            "if=/dev/zero",
            "of=/dev/null",
            "status=none",
        ];
        let status = spawn_in(&first, "dd", &dd).wait().unwrap();
        assert!(status.success(), "{status:?}");
        assert!(first.peak_memory() > 40 << 20, "{}", first.peak_memory());
        let before = dirs(&first);
        let mut pooled = first.recycle().expect("an emptied group is pooled");
        let mut kept = pooled.take_memory().expect("its memory folder is kept");
        assert_eq!(kept.path(), Some(before[0].as_path()));
        // The kernel frees the ended run's last charges a little later, and keeps a batch
        // charged per CPU until another group charges there (as the next runs do); with no
        // other runs here, the batch is handed back as force_empty does.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !kept.fresh(64 << 20) {
            std::fs::write(before[0].join("memory.force_empty"), "0").unwrap();
            assert!(
                Instant::now() < deadline,
                "still charged after 10 s: {}",
                read(&before[0], "memory.usage_in_bytes")
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let second = RunGroup::from_pooled_whole(&mut pooled, kept).expect("a whole group");
        assert_eq!(dirs(&second), before, "the same three folders");
        assert_eq!(second.peak_memory(), 0);
        assert_eq!(second.memory_evidence(), (false, false));
        assert_eq!(
            read(&before[0], "memory.limit_in_bytes"),
            (64u64 << 20).to_string()
        );
        let status = spawn_in(&second, "true", &[]).wait().unwrap();
        assert!(status.success());
        let peak = second.peak_memory();
        assert!(
            peak > 0 && peak < 8 << 20,
            "`true` after 40 MiB in the same folder: {peak}"
        );
        drop(second);
        assert!(before.iter().all(|d| !d.exists()), "{before:?}");
    }

    /// A memory folder whose run hit its limit keeps counters that cannot be reset (the OOM
    /// kills, the refused allocations): never kept.
    #[test]
    fn a_memory_folder_that_hit_its_limit_is_not_kept() {
        let Some((_turn, v1)) = v1_or_skip() else {
            return;
        };
        let cgroups = Cgroups::V1(v1);
        let first = cgroups.create_registered(16 << 20, 8).unwrap();
        let dd = [
            "bs=64M",
            "count=1",
            "if=/dev/zero",
            "of=/dev/null",
            "status=none",
        ];
        let status = spawn_in(&first, "dd", &dd).wait().unwrap();
        assert!(!status.success(), "64 MiB under a 16 MiB limit: {status:?}");
        assert_ne!(first.memory_evidence(), (false, false));
        let before = dirs(&first);
        let mut pooled = first.recycle().expect("the pair is pooled");
        assert!(
            pooled.take_memory().is_none(),
            "kept after hitting its limit"
        );
        assert!(!before[0].exists(), "{before:?}");
        drop(pooled);
        assert!(before.iter().all(|d| !d.exists()), "{before:?}");
    }

    #[test]
    fn a_reused_group_has_the_new_process_limit() {
        let Some((_turn, v1)) = v1_or_skip() else {
            return;
        };
        let cgroups = Cgroups::V1(v1.clone());
        let first = cgroups.create_registered(64 << 20, 8).unwrap();
        let pids = dirs(&first)[2].clone();
        assert_eq!(read(&pids, "pids.max"), "8");
        let pooled = first.recycle().expect("an unused group is pooled");
        let second = v1.reuse(pooled, 32 << 20, 3).expect("a reused group");
        assert_eq!(dirs(&second)[2], pids);
        assert_eq!(read(&pids, "pids.max"), "3");
        assert_eq!(read(&dirs(&second)[0], "memory.limit_in_bytes"), "33554432");
        // Three processes fit (the shell and two), a fourth is refused.
        let out = tempfile::NamedTempFile::new().unwrap();
        let script = r#"sleep 5 & sleep 5 & echo two > "$0"; sleep 5 & echo three >> "$0""#;
        let out_path = out.path().to_str().unwrap();
        let status = spawn_in(&second, "sh", &["-c", script, out_path])
            .wait()
            .unwrap();
        assert!(second.kill_all());
        let said = std::fs::read_to_string(out.path()).unwrap();
        assert_eq!(said, "two\n", "{status:?}");
        assert!(!status.success());
    }

    #[test]
    fn flush_removes_the_pooled_folders() {
        let Some((_turn, cgroups)) = cgroups_or_skip() else {
            return;
        };
        if matches!(cgroups, Cgroups::V2(_)) {
            eprintln!("skipped: cgroup v2 reuses no folder");
            return;
        }
        let groups: Vec<RunGroup> = (0..2)
            .map(|_| cgroups.create_registered(64 << 20, 8).unwrap())
            .collect();
        let pairs: Vec<Vec<PathBuf>> = groups.iter().map(|g| dirs(g)[1..].to_vec()).collect();
        for g in groups {
            retire(g);
        }
        cgroups.prepare(16 << 20, 4);
        wait_idle(Instant::now() + FLUSH_LIMIT);
        let mut ours: Vec<PathBuf> = POOL
            .lock()
            .unwrap()
            .iter()
            .filter_map(|p| p.dirs().map(|(c, p)| [c.to_path_buf(), p.to_path_buf()]))
            .flatten()
            .collect();
        for pair in &pairs {
            // Taken from the pool again for the spares, or still in it.
            assert!(pair.iter().all(|d| d.exists()), "{pair:?}");
        }
        ours.extend(SPARES.lock().unwrap().iter().flat_map(|(_, _, g)| dirs(g)));
        ours.extend(pairs.into_iter().flatten());
        assert!(ours.iter().all(|d| d.exists()));
        assert!(!open_run_folders().is_empty());
        flush();
        let left: Vec<_> = ours.iter().filter(|d| d.exists()).collect();
        assert!(left.is_empty(), "flush left {left:?}");
        let registered = crate::interrupt::registered_cgroups();
        assert!(ours.iter().all(|d| !registered.contains(d)));
        assert!(POOL.lock().unwrap().is_empty() && SPARES.lock().unwrap().is_empty());
        // Nor does this process hold any run cgroup folder open (a pooled or spare folder is
        // held open until it is removed).
        let held = open_run_folders();
        assert!(held.is_empty(), "still open after flush: {held:?}");
    }
}
