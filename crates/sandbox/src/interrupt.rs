//! Ctrl-C and termination: remove the judge's work folders before exiting, so an interrupted run
//! leaves nothing behind. Sandbox workers clean up after themselves when the judge goes away.

use std::path::PathBuf;
use std::sync::Mutex;

static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CGROUPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Held by the cleanup for good once it starts (it ends with `_exit`), and taken by the main
/// thread before it exits: so the process never exits in the middle of a cleanup.
static EXIT: Mutex<()> = Mutex::new(());
/// Takes a signal before the cleanup does (see [`on_signal`]).
type Handler = Box<dyn Fn(i32) -> bool + Send + Sync>;
static HANDLER: Mutex<Option<Handler>> = Mutex::new(None);
/// Set when cleanup starts: no cgroup is created after that.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (call before any other thread starts, so all
/// inherit the mask) and starts a thread that waits for them, cleans up and exits with 128 + signal.
pub fn install() {
    // SAFETY: sigset_t is plain data initialised by sigemptyset; the calls only read/write it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let set_copy = set;
        std::thread::spawn(move || {
            let mut sig = 0;
            // SAFETY: waits on the signals blocked above.
            while libc::sigwait(&set_copy, &mut sig) == 0 {
                // A handler that unwinds (its message met a closed stderr: see
                // `judge_report::stream`) has not taken the signal: the cleanup below does,
                // rather than this thread ending and the signal going unheard for good.
                let handled = HANDLER
                    .lock()
                    .ok()
                    .and_then(|h| {
                        let h = h.as_ref()?;
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h(sig))).ok()
                    })
                    .unwrap_or(false);
                if handled {
                    continue;
                }
                // Silence the other threads first: a run killed by the cleanup must not be
                // reported as a verdict.
                let saved = libc::dup(2);
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
                if null >= 0 {
                    libc::dup2(null, 1);
                    libc::dup2(null, 2);
                }
                cleanup();
                let msg = b"judge: interrupted; runs killed, work folders removed\n";
                libc::write(saved, msg.as_ptr().cast(), msg.len());
                libc::_exit(128 + sig);
            }
        });
    }
}

/// Has `handler` see SIGINT, SIGTERM and SIGHUP first (a service that stops gracefully: a
/// worker finishing its job): when it returns true the signal is taken and the process goes
/// on, to end by itself; when false, the cleanup kills the runs, removes the folders and exits
/// with 128 + the signal, as without a handler.
pub fn on_signal(handler: impl Fn(i32) -> bool + Send + Sync + 'static) {
    if let Ok(mut h) = HANDLER.lock() {
        *h = Some(Box::new(handler));
    }
}

/// Registers a folder to delete if the judge is interrupted.
pub fn register(path: PathBuf) {
    if let Ok(mut f) = FOLDERS.lock() {
        f.push(path);
    }
}

/// Forgets a folder (it was removed normally).
pub fn unregister(path: &std::path::Path) {
    if let Ok(mut f) = FOLDERS.lock() {
        f.retain(|p| p != path);
    }
}

/// Runs `make`, which creates cgroup folders and returns them with its result, with the registry
/// locked, and registers the folders before unlocking: an interruption either comes first (then
/// nothing is created) or finds the new folders registered, so none is left behind.
pub fn create_cgroups<T>(
    make: impl FnOnce() -> Result<(T, Vec<PathBuf>), String>,
) -> Result<T, String> {
    let mut registry = CGROUPS
        .lock()
        .map_err(|_| "the cgroup registry is poisoned".to_string())?;
    if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        return Err("the judge is being interrupted".into());
    }
    let (value, dirs) = make()?;
    registry.extend(dirs);
    Ok(value)
}

/// Runs `f` while no cgroup folder is being made (see [`create_cgroups`]), with whether `path`
/// is one of this judge's: a judge sweeping leftovers so never catches a folder of its own
/// between its mkdir and its lock.
pub fn unless_ours<T>(path: &std::path::Path, f: impl FnOnce() -> T) -> Option<T> {
    let registry = CGROUPS.lock().ok()?;
    if registry.iter().any(|p| p == path) {
        return None;
    }
    Some(f())
}

/// Forgets a cgroup folder (the run ended normally).
pub fn unregister_cgroup(path: &std::path::Path) {
    if let Ok(mut c) = CGROUPS.lock() {
        c.retain(|p| p != path);
    }
}

/// The cgroup folders registered now.
#[cfg(test)]
pub(crate) fn registered_cgroups() -> Vec<PathBuf> {
    CGROUPS.lock().map(|c| c.clone()).unwrap_or_default()
}

/// Call right before the process exits normally: waits forever if a cleanup is under way (the
/// cleanup then ends the process), else keeps any cleanup from starting.
pub fn hold_exit() {
    std::mem::forget(EXIT.lock());
}

fn cleanup() {
    std::mem::forget(EXIT.lock());
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
    crate::kill_plain_runs();
    if let Ok(c) = CGROUPS.lock() {
        for dir in c.iter() {
            for _ in 0..200 {
                let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
                for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                    // SAFETY: SIGKILL to a process of a run's own cgroup.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
    if let Ok(f) = FOLDERS.lock() {
        for p in f.iter() {
            // The main thread may still be removing or writing entries of the same folder;
            // retry until it is gone (remove_dir_all stops at the first entry that vanished).
            for _ in 0..200 {
                let _ = std::fs::remove_dir_all(p);
                if !p.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
}
