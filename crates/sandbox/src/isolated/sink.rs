//! A run's stdout or stderr pipe drained into its file, keeping at most a cap of bytes
//! ([`Sink`]); read without blocking from the judge's poll loop.

use crate::sys;
use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// How long the pipes may stay open after the run's init reported the end (its namespace is
/// dead by then, so only a process that escaped it could hold them).
pub(super) const PIPE_GRACE: Duration = Duration::from_secs(2);

/// One of the run's output pipes and the file that keeps at most `cap` bytes of it.
pub(super) struct Sink {
    pub(super) pipe: Option<OwnedFd>,
    pub(super) file: File,
    pub(super) cap: u64,
    pub(super) kept: u64,
    /// stdout: more than `cap` is an output limit hit; stderr: the rest is read and discarded.
    pub(super) limited: bool,
}

#[derive(PartialEq)]
pub(super) enum Pumped {
    More,
    Closed,
    /// More than `cap` bytes arrived; the pipe is closed (the writer gets EPIPE).
    Over,
}

impl Sink {
    pub(super) fn new(pipe: OwnedFd, file: File, cap: u64, limited: bool) -> std::io::Result<Sink> {
        // SAFETY: fcntl on a descriptor we own.
        let r = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Sink {
            pipe: Some(pipe),
            file,
            cap,
            kept: 0,
            limited,
        })
    }

    pub(super) fn is_open(&self) -> bool {
        self.pipe.is_some()
    }

    /// Cuts the file to what this run wrote (it may hold a longer output of an earlier run).
    pub(super) fn finish(&self) -> std::io::Result<()> {
        self.file.set_len(self.kept)
    }

    pub(super) fn fd(&self) -> RawFd {
        self.pipe.as_ref().map_or(-1, AsRawFd::as_raw_fd)
    }

    /// Reads what the pipe holds now (a bounded amount, so the watchdog keeps its pace).
    pub(super) fn pump(&mut self, buf: &mut [u8]) -> Pumped {
        use std::io::Write;
        for _ in 0..16 {
            let Some(pipe) = &self.pipe else {
                return Pumped::Closed;
            };
            // SAFETY: reading into a buffer we own, at most its length.
            let n = unsafe { libc::read(pipe.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 && sys::errno() == libc::EAGAIN {
                return Pumped::More;
            }
            if n <= 0 {
                self.pipe = None;
                return Pumped::Closed;
            }
            let n = n as u64;
            let take = n.min(self.cap - self.kept);
            if take > 0 && self.file.write_all(&buf[..take as usize]).is_ok() {
                self.kept += take;
            }
            if take < n && self.limited {
                self.pipe = None;
                return Pumped::Over;
            }
        }
        Pumped::More
    }
}
