//! The janitor: a thread of its own that removes finished runs' cgroups, makes spare cgroups
//! for the next runs (`take_spare`, `give_back`), and runs other cleanup off the judge's path
//! (`in_background`); `flush` waits until it has finished, before the judge exits.

use super::group::RunGroup;
use super::Cgroups;
use std::sync::{mpsc, Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Removes the cgroups of finished runs on a thread of its own, and prepares the next run's
/// cgroups there too: creating or removing a cgroup costs a few tenths of a millisecond, and the
/// next run need wait for neither. Every folder stays registered with the interrupt handler until
/// it is removed; [`flush`] empties the queue and removes the spares (the judge calls it before
/// exiting, so nothing is left behind).
pub(super) struct Janitor {
    queue: mpsc::Sender<Job>,
    pending: Arc<(Mutex<usize>, Condvar)>,
}

pub(super) enum Job {
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
pub(super) static SPARES: Mutex<Vec<(u64, u32, RunGroup)>> = Mutex::new(Vec::new());
/// Spares kept per kind of run: one for the next run, one for the standby init that run leaves
/// (which joins its cgroup ahead of time, see `worker`).
pub const SPARES_PER_KIND: usize = 2;
/// Kinds of runs (by limits) that spares are kept for: a solution's tests and its custom
/// checker take turns.
pub(super) const SPARE_KINDS: usize = 2;

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
pub(super) static JANITOR: OnceLock<Mutex<Janitor>> = OnceLock::new();

pub(super) fn janitor() -> &'static Mutex<Janitor> {
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

/// Hands a finished run's cgroups to the janitor for removal (after killing whatever is left).
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
