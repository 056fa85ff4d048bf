//! The judge's relay between two programs' pipes: a thread per direction copies what one
//! writes to the other, keeps the exchange when asked, and notes when each output ended.

use judge_model::transcript::{From, Transcript, TRANSCRIPT_CAP};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::sync::Mutex;
use std::time::Instant;

/// Copies `from` to `to` until the end of `from` (then closes `to`, once `hold` says so if
/// given, and says when it passed that end on), or until `to` is closed (then reads `from` to
/// its end, dropping it, and says when that end came), keeping up to [`TRANSCRIPT_CAP`] bytes
/// in `log` if given.
pub(super) fn relay(
    from: OwnedFd,
    to: OwnedFd,
    who: From,
    log: Option<&Mutex<Transcript>>,
    hold: Option<std::sync::mpsc::Receiver<()>>,
) -> Option<Instant> {
    let mut from = std::fs::File::from(from);
    let mut to = std::fs::File::from(to);
    let mut kept = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => {
                if let Some(hold) = hold {
                    // A message, or the sender gone: either way the wait is over.
                    let _ = hold.recv();
                }
                return Some(Instant::now());
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if let Some(log) = log {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            let keep = n.min(TRANSCRIPT_CAP - kept);
            if keep < n {
                log.truncated = true;
            }
            if keep > 0 {
                log.parts
                    .push((who, String::from_utf8_lossy(&buf[..keep]).into_owned()));
                kept += keep;
            }
        }
        if to.write_all(&buf[..n]).is_err() {
            // The reader is gone (ended, or closed its input): what its partner writes is read
            // on and dropped to the end, as DOMjudge's runpipe does, so the writer never dies of
            // a broken pipe the judge made. An interactor that closes its input and then
            // rejects gets its WA (the solution writing on is stopped with it), not the
            // solution's RE from SIGPIPE; and when each output ended is known.
            return drain(&mut from);
        }
    }
}

/// Reads `from` to its end, dropping what comes: when that end came.
fn drain(from: &mut std::fs::File) -> Option<Instant> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Some(Instant::now()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}
