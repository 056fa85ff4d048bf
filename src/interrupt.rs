//! Ctrl-C and termination: remove the judge's work folders before exiting, so an interrupted run
//! leaves nothing behind. Sandbox workers clean up after themselves when the judge goes away.

use std::path::PathBuf;
use std::sync::Mutex;

static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CGROUPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

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
            if libc::sigwait(&set_copy, &mut sig) == 0 {
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

/// Registers a run's cgroup folder: on interruption its processes are killed and it is removed.
pub fn register_cgroup(path: PathBuf) {
    if let Ok(mut c) = CGROUPS.lock() {
        c.push(path);
    }
}

/// Forgets a cgroup folder (the run ended normally).
pub fn unregister_cgroup(path: &std::path::Path) {
    if let Ok(mut c) = CGROUPS.lock() {
        c.retain(|p| p != path);
    }
}

fn cleanup() {
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
            let _ = std::fs::remove_dir_all(p);
        }
    }
}
