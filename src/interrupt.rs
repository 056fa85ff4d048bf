//! Ctrl-C and termination: remove the judge's work folders before exiting, so an interrupted run
//! leaves nothing behind. Sandbox workers clean up after themselves when the judge goes away.

use std::path::PathBuf;
use std::sync::Mutex;

static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

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
                cleanup();
                eprintln!("judge: interrupted; work folders removed");
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

fn cleanup() {
    if let Ok(f) = FOLDERS.lock() {
        for p in f.iter() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}
