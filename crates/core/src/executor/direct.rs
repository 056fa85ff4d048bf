//! A pair joined by direct pipes: the first program's stdout is the second's stdin and the
//! second's stdout the first's stdin, with no thread of the judge on the way of a message (the
//! relay, [`super::relay`], is kept for a recorded exchange). The judge keeps copies of three
//! pipe ends, each for one of the relay's guarantees:
//!
//! - the write end of first → second (`hold`): the second sees the end of the first's output
//!   only once the judge drops it, as the first's run ends (a solution that closes its output
//!   and then crashes is RE, not the verdict of an interactor that read the end);
//! - the read end of second → first (`heard`): polled, without reading, for the moment every
//!   writer is gone (`POLLHUP`), which tells whether the second closed its output before the
//!   first ended (the first can only read that end once it has happened); drained once the
//!   first ended, so the second never dies of a broken pipe the judge made;
//! - the read end of first → second (`said`): drained once the second ended, for the same
//!   reason (a solution writing on after its interactor accepted or closed its input).
//!
//! Neither copy of a read end is read while its program can still read: nothing is taken from
//! a program.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::thread::JoinHandle;
use std::time::Instant;

/// The judge's ends of a direct pair, and what it saw of them (see the module's
/// documentation). Index 0 is the first program, 1 the second.
pub(super) struct Watch {
    /// A copy of the first's output: the second's end of input waits for it.
    hold: Option<OwnedFd>,
    /// A copy of the read end of what the first writes, drained once the second ended.
    said: Option<OwnedFd>,
    /// A copy of the read end of what the second writes: polled, then drained once the first
    /// ended.
    heard: Option<OwnedFd>,
    drains: Vec<JoinHandle<()>>,
    /// When the judge saw each program's output closed.
    pub(super) closed: [Option<Instant>; 2],
}

impl Watch {
    /// Watches a pair whose first program writes to `first_out` (read by the second from
    /// `second_in`) and whose second writes to `second_out` (read by the first from
    /// `first_in`); takes copies, the originals go to the runs.
    pub(super) fn new(
        first_out: &OwnedFd,
        second_in: &OwnedFd,
        first_in: &OwnedFd,
    ) -> std::io::Result<Watch> {
        Ok(Watch {
            hold: Some(first_out.try_clone()?),
            said: Some(second_in.try_clone()?),
            heard: Some(first_in.try_clone()?),
            drains: Vec::new(),
            closed: [None, None],
        })
    }

    /// Run `i` ended (as the sandbox reported it).
    pub(super) fn ended(&mut self, i: usize) {
        if i == 0 {
            // Before the first's end of output is passed on: had the second closed its output
            // already? If so it did before the first ended (or the first read that end).
            if self.closed[1].is_none() && self.heard.as_ref().is_some_and(hung_up) {
                self.closed[1] = Some(Instant::now());
            }
            self.closed[0] = Some(Instant::now());
            self.hold = None;
            if let Some(fd) = self.heard.take() {
                self.drains.push(std::thread::spawn(move || drain(fd)));
            }
        } else {
            if self.closed[1].is_none() {
                self.closed[1] = Some(Instant::now());
            }
            if let Some(fd) = self.said.take() {
                self.drains.push(std::thread::spawn(move || drain(fd)));
            }
        }
    }

    /// Both runs are over (or failed): lets go of every end, once the drains have read theirs
    /// to the end.
    pub(super) fn finish(mut self) -> [Option<Instant>; 2] {
        self.hold = None;
        self.said = None;
        self.heard = None;
        for d in self.drains.drain(..) {
            let _ = d.join();
        }
        self.closed
    }
}

/// Whether every write end of the pipe whose read end is `fd` is closed, without reading it
/// (and without waiting).
fn hung_up(fd: &OwnedFd) -> bool {
    // No event asked for: poll reports POLLHUP (and POLLERR) whatever is asked, and data
    // waiting in the pipe is not reported.
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & libc::POLLHUP != 0
}

/// Reads `fd` to its end, dropping what comes.
fn drain(fd: OwnedFd) {
    let mut from = std::fs::File::from(fd);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn pipe() -> (OwnedFd, OwnedFd) {
        judge_sandbox::pipe().unwrap()
    }

    #[test]
    fn a_hang_up_is_seen_without_taking_the_data_waiting() {
        let (r, w) = pipe();
        let mut w = std::fs::File::from(w);
        w.write_all(b"left for the reader\n").unwrap();
        assert!(!hung_up(&r), "a writer is still there");
        drop(w);
        assert!(hung_up(&r));
        let mut got = String::new();
        std::fs::File::from(r).read_to_string(&mut got).unwrap();
        assert_eq!(got, "left for the reader\n", "nothing was read by the poll");
    }

    #[test]
    fn the_first_programs_end_of_output_waits_for_its_end() {
        // first → second, second → first.
        let (second_in, first_out) = pipe();
        let (first_in, second_out) = pipe();
        let mut watch = Watch::new(&first_out, &second_in, &first_in).unwrap();
        // The first closes its output while still running: the second does not see the end.
        drop(first_out);
        assert!(!hung_up(&second_in), "the judge's copy holds it");
        // The second closed its output before the first ended: seen at the first's end.
        drop(second_out);
        watch.ended(0);
        assert!(hung_up(&second_in), "passed on at the first's end");
        watch.ended(1);
        let [first, second] = watch.finish();
        assert!(second.unwrap() <= first.unwrap(), "the second closed first");
        drop((first_in, second_in));
    }

    #[test]
    fn a_second_program_ending_after_the_first_is_seen_after_it() {
        let (second_in, first_out) = pipe();
        let (first_in, second_out) = pipe();
        let mut watch = Watch::new(&first_out, &second_in, &first_in).unwrap();
        drop((first_out, first_in));
        watch.ended(0);
        // The second writes on after the first ended: drained, never a broken pipe.
        let mut out = std::fs::File::from(second_out);
        out.write_all(&vec![b'x'; 1 << 20]).unwrap();
        drop(out);
        watch.ended(1);
        let [first, second] = watch.finish();
        assert!(first.unwrap() < second.unwrap(), "the first ended first");
        drop(second_in);
    }

    #[test]
    fn the_first_writing_on_after_the_second_ended_is_drained() {
        let (second_in, first_out) = pipe();
        let (first_in, second_out) = pipe();
        let mut watch = Watch::new(&first_out, &second_in, &first_in).unwrap();
        drop((second_in, second_out));
        watch.ended(1);
        let mut out = std::fs::File::from(first_out);
        out.write_all(&vec![b'x'; 1 << 20]).unwrap();
        drop(out);
        watch.ended(0);
        let [first, second] = watch.finish();
        assert!(second.unwrap() < first.unwrap(), "the second ended first");
        drop(first_in);
    }
}
