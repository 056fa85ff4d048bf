//! The two runs side by side and the judge's relay between their pipes.

use super::*;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Result of [`run_pair`]: both outcomes (solution, interactor), the order the sandbox saw them
/// end in, and when the relay saw each close its output (interactor, solution).
type PairOutcome = (
    Vec<Result<RunOutcome, SandboxError>>,
    Vec<usize>,
    [Option<Instant>; 2],
);

/// Starts the solution and the interactor, relays their pipes (recording in `log` when asked),
/// and waits for both: one ending badly takes the other down.
pub(super) fn run_pair(
    first: &mut Sandbox,
    second: &mut Sandbox,
    specs: [&RunSpec; 2],
    io: [RunIo; 2],
    relays: [(OwnedFd, OwnedFd); 2],
    (log, record): (&Arc<Mutex<Transcript>>, bool),
    protocol: Protocol,
) -> Result<PairOutcome, SandboxError> {
    let [solution_io, partner_io] = io;
    let one = first.start(specs[0], solution_io)?;
    let two = second.start(specs[1], partner_io)?;
    let mut runs = vec![one, two];
    // The end of the solution's output reaches the interactor only once the solution has
    // ended, as BAPCtools does: a solution that closes its output and then crashes or hangs
    // gets its RE or TLE, not the WA of an interactor that read the end first.
    let (solution_ended, hold_eof) = std::sync::mpsc::channel::<()>();
    let mut hold_eof = Some(hold_eof);
    let threads: Vec<_> = relays
        .into_iter()
        .zip([From::Judge, From::Solution])
        .map(|((from, to), who)| {
            let log = record.then(|| Arc::clone(log));
            let hold = if who == From::Solution {
                hold_eof.take()
            } else {
                None
            };
            std::thread::spawn(move || relay(from, to, who, log.as_deref(), hold))
        })
        .collect();
    let mut order = Vec::new();
    let outcomes = judge_sandbox::wait_all(&mut runs, |i, o| {
        order.push(i);
        if i == 0 {
            let _ = solution_ended.send(());
            ended_badly(o)
        } else {
            !interactor_accepts(o, protocol)
        }
    });
    drop(solution_ended);
    drop(runs);
    let mut closed = [None, None];
    for (i, t) in threads.into_iter().enumerate() {
        closed[i] = t.join().unwrap_or(None);
    }
    Ok((outcomes, order, closed))
}

/// Copies `from` to `to` until the end of `from` (then closes `to`, once `hold` says so if
/// given, and says when it passed that end on), or until `to` is closed (then reads `from` to
/// its end, dropping it, and says when that end came), keeping up to [`TRANSCRIPT_CAP`] bytes
/// in `log` if given.
fn relay(
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
