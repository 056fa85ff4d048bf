//! Standard output and error for a judge whose reader may go away (`judge run … | head -1`).
//!
//! `print!` panics when a write fails. Here a write to a closed pipe (EPIPE) is no error at all:
//! it unwinds to `cli::main` carrying [`Gone`], without the panic hook, so every destructor on
//! the way runs (the session's work folder, the sandbox worker, its cgroups), and `cli::main`
//! then finishes the sandbox and exits quietly with `cli::exit::CLOSED` (like a program killed
//! by SIGPIPE). Any other write error (a full disk) ends the judge the same way, with a message
//! on stderr and `cli::exit::ERROR`. Writes happen on the main thread between runs, so no run is
//! cut short by the unwinding. Use [`outln!`](crate::outln), [`out!`](crate::out) and
//! [`errln!`](crate::errln) instead of `println!`, `print!` and `eprintln!`.

use std::io::{self, Write};

/// Which stream could not be written, and why. The payload of the unwinding.
#[derive(Debug)]
pub struct Gone {
    pub stream: &'static str,
    pub error: io::Error,
}

impl Gone {
    /// The reader went away: end quietly.
    pub fn is_closed(&self) -> bool {
        self.error.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Ends the judge through `cli::main` (see the module documentation).
pub fn gone(stream: &'static str, error: io::Error) -> ! {
    std::panic::resume_unwind(Box::new(Gone { stream, error }))
}

/// A writer whose failures end the judge (see the module documentation) instead of being
/// returned: writing to it never fails, so `let _ = writeln!(…)` cannot hide a closed stdout.
pub struct Guarded<W> {
    inner: W,
    name: &'static str,
}

impl<W: Write> Guarded<W> {
    pub fn new(inner: W, name: &'static str) -> Self {
        Guarded { inner, name }
    }

    fn check<T>(&self, result: io::Result<T>) -> io::Result<T> {
        match result {
            Err(e) if e.kind() != io::ErrorKind::Interrupted => gone(self.name, e),
            r => r,
        }
    }
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.inner.write(buf);
        self.check(r)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = self.inner.write_all(buf);
        self.check(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        let r = self.inner.flush();
        self.check(r)
    }
}

/// Standard output, locked, guarded.
pub fn stdout() -> Guarded<io::StdoutLock<'static>> {
    Guarded::new(io::stdout().lock(), "stdout")
}

/// Standard error, locked, guarded.
pub fn stderr() -> Guarded<io::StderrLock<'static>> {
    Guarded::new(io::stderr().lock(), "stderr")
}

/// Standard output, guarded, unlocked: `Send`, for reporters (each write takes the lock).
pub fn stdout_shared() -> Guarded<io::Stdout> {
    Guarded::new(io::stdout(), "stdout")
}

/// Standard error, guarded, unlocked: `Send`, for reporters.
pub fn stderr_shared() -> Guarded<io::Stderr> {
    Guarded::new(io::stderr(), "stderr")
}

/// `print!` without the panic: used by [`out!`](crate::out) and [`outln!`](crate::outln).
pub fn print(args: std::fmt::Arguments) {
    let mut out = stdout();
    let _ = out.write_fmt(args);
    let _ = out.flush();
}

/// `eprint!` without the panic: used by [`errln!`](crate::errln).
pub fn eprint(args: std::fmt::Arguments) {
    let _ = stderr().write_fmt(args);
}

/// `print!` that ends the judge quietly when stdout is closed.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::stream::print(format_args!($($arg)*)) };
}

/// `println!` that ends the judge quietly when stdout is closed.
#[macro_export]
macro_rules! outln {
    () => { $crate::stream::print(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::stream::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that ends the judge quietly when stderr is closed.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::stream::eprint(format_args!("{}\n", format_args!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{FromRawFd, OwnedFd};

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two-element array it is given.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: both descriptors were just created and are owned by nobody else.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn a_closed_pipe_unwinds_with_gone_and_no_panic_message() {
        let (read, write) = pipe();
        drop(read);
        let file = std::fs::File::from(write);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = Guarded::new(file, "stdout");
            let _ = writeln!(w, "line");
            unreachable!("the write must not return");
        }));
        let payload = caught.expect_err("the write unwinds");
        let gone = payload.downcast::<Gone>().expect("payload is Gone");
        assert_eq!(gone.stream, "stdout");
        assert!(gone.is_closed(), "{:?}", gone.error);
    }

    #[test]
    fn another_write_error_unwinds_and_is_not_closed() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
        let Ok(full) = full else { return };
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = Guarded::new(full, "stdout");
            let _ = w.write_all(b"x");
        }));
        let gone = caught.unwrap_err().downcast::<Gone>().unwrap();
        assert!(!gone.is_closed());
        assert_eq!(gone.error.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn an_open_pipe_is_written() {
        let (read, write) = pipe();
        let mut w = Guarded::new(std::fs::File::from(write), "stdout");
        writeln!(w, "hello").unwrap();
        drop(w);
        let got = io::read_to_string(std::fs::File::from(read)).unwrap();
        assert_eq!(got, "hello\n");
    }
}
