//! The manual interactive console: a person plays the judge's side of an interactive problem
//! (one received without an interactor). The solution runs in the sandbox under the problem's
//! CPU time and memory limits with a wall-clock cap sized for a person ([`CONSOLE_WALL`]); each
//! line the person sends goes to its stdin, and each line it writes to stdout or stderr comes
//! back as a [`Line`] with its time since the start. The exchange is kept (capped) and written
//! as a Kattis `.interaction` sample ([`interaction_text`]: `<` judge to solution, the lines sent;
//! `>` solution to judge, the lines received), which [`Engine::replay`] plays back: the sent
//! lines fed to the program, the received ones compared with what it writes.
//!
//! Used by `judge run --interact` (a terminal) and the practice page (its console).

use super::*;
use std::io::{BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

/// The longest a console session's program runs (wall clock): a person types slowly. CPU time
/// and memory stay the problem's.
pub const CONSOLE_WALL: Duration = Duration::from_secs(600);
/// A session with no line sent for this long ends (its program is stopped).
pub const CONSOLE_IDLE: Duration = Duration::from_secs(300);
/// A line shown or kept is cut at this many bytes (a longer one is marked as cut).
pub const CONSOLE_LINE: usize = 4096;
/// What the program may write (stdout and stderr together) before it is stopped.
pub const CONSOLE_OUTPUT: u64 = 1 << 20;
/// What the person may send in one session.
pub const CONSOLE_INPUT: u64 = 1 << 20;
/// Lines of an exchange (all three sides) kept: past them the program is stopped.
pub const CONSOLE_LINES: u64 = 20_000;

/// Who a line of the console is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The person (the judge's side), to the program's stdin.
    Sent,
    /// The program's stdout.
    Received,
    /// The program's stderr.
    Stderr,
}

/// One line of the exchange.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Line {
    pub side: Side,
    pub text: String,
    /// Since the program started.
    pub at_ms: u64,
    /// The line was longer than [`CONSOLE_LINE`] bytes, or had no end of line yet when the
    /// program ended.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// What the person does.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A line to the program's stdin (without its end of line).
    Line(String),
    /// Closes the program's stdin (its end of input).
    Close,
}

/// How a session ended.
#[derive(Debug, Clone)]
pub struct Ended {
    pub outcome: RunOutcome,
    /// The verdict the run alone would give (TLE, MLE, RE…; `None` when it exited with 0 within
    /// its limits).
    pub verdict: Option<(Verdict, String)>,
    /// Why the judge stopped it, if it did (idle, output cap, asked to).
    pub stopped: Option<String>,
    pub lines: Vec<Line>,
}

/// A console session's limits: the problem's CPU time and memory, the wall clock
/// [`CONSOLE_WALL`].
pub fn console_limits(problem: &Problem) -> Limits {
    let mut limits = solution_limits(problem);
    limits.wall = CONSOLE_WALL;
    limits
}

/// The exchange as the lines of a Kattis `.interaction` file: `<` before what was sent to the
/// program, `>` before what it wrote to stdout; stderr is left out.
pub fn interaction_text(lines: &[Line]) -> String {
    let mut out = String::new();
    for l in lines {
        let mark = match l.side {
            Side::Sent => '<',
            Side::Received => '>',
            Side::Stderr => continue,
        };
        out.push(mark);
        out.push_str(&l.text);
        out.push('\n');
    }
    out
}

/// A line cut to [`CONSOLE_LINE`] bytes at a character boundary.
fn cap_line(bytes: &[u8]) -> (String, bool) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    if text.len() <= CONSOLE_LINE {
        return (text.to_string(), false);
    }
    let mut end = CONSOLE_LINE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_string(), true)
}

/// What the reading threads share.
struct Shared {
    start: Instant,
    /// The program ended (or is being stopped): the writer and the stderr reader finish.
    done: AtomicBool,
    cancel: judge_sandbox::Cancel,
    stopped: Mutex<Option<String>>,
    written: std::sync::atomic::AtomicU64,
    lines: std::sync::atomic::AtomicU64,
}

use std::sync::Mutex;

impl Shared {
    fn at(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn stop(&self, why: &str) {
        let mut s = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        if s.is_none() {
            *s = Some(why.to_string());
        }
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Counts a line of the exchange; past [`CONSOLE_LINES`] the program is stopped and the
    /// line is not kept.
    fn line(&self) -> bool {
        if self.lines.fetch_add(1, Ordering::SeqCst) >= CONSOLE_LINES {
            self.stop(&format!(
                "the exchange has more than {CONSOLE_LINES} lines: the console keeps no more"
            ));
            return false;
        }
        true
    }

    /// Counts `n` bytes of output; past [`CONSOLE_OUTPUT`] the program is stopped.
    fn wrote(&self, n: usize) -> bool {
        let total = self.written.fetch_add(n as u64, Ordering::SeqCst) + n as u64;
        if total > CONSOLE_OUTPUT {
            self.stop(&format!(
                "the program wrote more than {} KiB: the console keeps no more",
                CONSOLE_OUTPUT / 1024
            ));
            return false;
        }
        true
    }
}

impl Engine {
    /// Runs `artifact` for a person at a console: `input` gives the lines to send (the session
    /// ends when the program ends, at [`CONSOLE_IDLE`] without a line, or when `input` is
    /// dropped); each line of the exchange goes to `on_line` as it happens. Needs the full
    /// sandbox (the program's pipes stay open while it runs).
    pub fn console(
        &mut self,
        problem: &Problem,
        artifact: &Artifact,
        input: Receiver<Input>,
        cancel: judge_sandbox::Cancel,
        on_line: &mut dyn FnMut(&Line),
    ) -> Result<Ended, EngineError> {
        let limits = console_limits(problem);
        let dir = match &self.scratch {
            Some(d) => d.clone(),
            None => {
                let d = self.fresh_dir("run")?;
                self.scratch = Some(d.clone());
                d
            }
        };
        let io = self.fresh_dir("console")?;
        let spec = RunSpec {
            program: artifact.program.clone(),
            args: run_args(artifact, &limits),
            env: build::base_env(&dir),
            workdir: dir,
            scratch_workdir: true,
            stdin: None,
            stdout: io.join("stdout"),
            stderr: io.join("stderr"),
            readable: artifact.readable.clone(),
            limits,
        };
        let stderr_path = spec.stderr.clone();
        let (program_in, feed) = judge_sandbox::pipe()?;
        let (heard, program_out) = judge_sandbox::pipe()?;
        let shared = Shared {
            start: Instant::now(),
            done: AtomicBool::new(false),
            cancel: cancel.clone(),
            stopped: Mutex::new(None),
            written: Default::default(),
            lines: Default::default(),
        };
        let (tx, rx) = std::sync::mpsc::channel::<Line>();
        self.sandbox.set_cancel(Some(cancel.clone()));
        let sandbox = &mut self.sandbox;
        let mut lines = Vec::new();
        let outcome = std::thread::scope(|scope| {
            let shared = &shared;
            let run = scope.spawn(move || {
                let outcome = sandbox.talk(&spec, program_in, program_out);
                shared.done.store(true, Ordering::SeqCst);
                outcome
            });
            // The person's lines to the program.
            let sent = tx.clone();
            scope.spawn(move || {
                let mut feed = Some(std::fs::File::from(feed));
                let mut idle_since = Instant::now();
                let mut total = 0u64;
                let mut closed = false;
                while !shared.done.load(Ordering::SeqCst) {
                    match input.recv_timeout(Duration::from_millis(100)) {
                        Ok(Input::Line(text)) => {
                            idle_since = Instant::now();
                            total += text.len() as u64 + 1;
                            if total > CONSOLE_INPUT {
                                shared.stop(&format!(
                                    "more than {} KiB sent: a console session takes no more",
                                    CONSOLE_INPUT / 1024
                                ));
                                break;
                            }
                            let (shown, cut) = cap_line(text.as_bytes());
                            let _ = sent.send(Line {
                                side: Side::Sent,
                                text: shown,
                                at_ms: shared.at(),
                                cut,
                            });
                            if let Some(f) = &mut feed {
                                let mut bytes = text.into_bytes();
                                bytes.push(b'\n');
                                // A program that closed its stdin or ended: the line is shown
                                // as sent, and its end tells the rest.
                                if f.write_all(&bytes).is_err() {
                                    feed = None;
                                }
                            }
                        }
                        Ok(Input::Close) => {
                            idle_since = Instant::now();
                            feed = None;
                            closed = true;
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            if idle_since.elapsed() > CONSOLE_IDLE {
                                shared.stop(&format!(
                                    "nothing sent for {} s: the session ended",
                                    CONSOLE_IDLE.as_secs()
                                ));
                                break;
                            }
                        }
                        // After the end of input nothing more comes: the program goes on
                        // until it ends, or the idle time is up.
                        Err(RecvTimeoutError::Disconnected) if closed => {
                            if idle_since.elapsed() > CONSOLE_IDLE {
                                shared.stop(&format!(
                                    "nothing sent for {} s: the session ended",
                                    CONSOLE_IDLE.as_secs()
                                ));
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        Err(RecvTimeoutError::Disconnected) => {
                            shared.stop("the console was closed");
                            break;
                        }
                    }
                }
            });
            // The program's stdout, line by line.
            let received = tx.clone();
            scope.spawn(move || {
                let mut from = std::io::BufReader::new(std::fs::File::from(heard));
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    // At most a line's cap and its end at a time: a line without end is cut.
                    let n = match (&mut from)
                        .take(CONSOLE_LINE as u64 + 1)
                        .read_until(b'\n', &mut buf)
                    {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if !shared.wrote(n) {
                        break;
                    }
                    let complete = buf.ends_with(b"\n");
                    let (text, cut) = cap_line(&buf);
                    let _ = received.send(Line {
                        side: Side::Received,
                        text,
                        at_ms: shared.at(),
                        cut: cut || !complete,
                    });
                    if !complete && buf.len() > CONSOLE_LINE {
                        // The rest of an over-long line is dropped.
                        let mut rest = Vec::new();
                        loop {
                            rest.clear();
                            match (&mut from).take(64 * 1024).read_until(b'\n', &mut rest) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => {
                                    if !shared.wrote(n) || rest.ends_with(b"\n") {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                }
                // Drains what comes after a stop, so the program never blocks on a full pipe.
                let _ = std::io::copy(&mut from, &mut std::io::sink());
            });
            // The program's stderr, as the sandbox writes it to its file.
            let errors = tx;
            scope.spawn(move || {
                let mut offset = 0u64;
                let mut partial: Vec<u8> = Vec::new();
                loop {
                    let last = shared.done.load(Ordering::SeqCst);
                    if let Ok(mut f) = std::fs::File::open(&stderr_path) {
                        use std::io::Seek;
                        if f.seek(std::io::SeekFrom::Start(offset)).is_ok() {
                            let mut chunk = Vec::new();
                            let _ = f.take(64 * 1024).read_to_end(&mut chunk);
                            offset += chunk.len() as u64;
                            if !chunk.is_empty() && shared.wrote(chunk.len()) {
                                partial.extend_from_slice(&chunk);
                            }
                        }
                    }
                    while let Some(end) = partial.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = partial.drain(..=end).collect();
                        let (text, cut) = cap_line(&line);
                        let _ = errors.send(Line {
                            side: Side::Stderr,
                            text,
                            at_ms: shared.at(),
                            cut,
                        });
                    }
                    if partial.len() > CONSOLE_LINE {
                        let (text, _) = cap_line(&partial);
                        partial.clear();
                        let _ = errors.send(Line {
                            side: Side::Stderr,
                            text,
                            at_ms: shared.at(),
                            cut: true,
                        });
                    }
                    if last {
                        if !partial.is_empty() {
                            let (text, _) = cap_line(&partial);
                            let _ = errors.send(Line {
                                side: Side::Stderr,
                                text,
                                at_ms: shared.at(),
                                cut: true,
                            });
                        }
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(30));
                }
            });
            // Every sender is gone once the program ended and its pipes were read.
            for line in rx {
                if !shared.line() {
                    // Read on (and dropped) until the program is gone.
                    continue;
                }
                on_line(&line);
                lines.push(line);
            }
            run.join().unwrap_or_else(|_| {
                Err(SandboxError::Setup(
                    "the console's run thread failed".into(),
                ))
            })
        });
        self.sandbox.set_cancel(None);
        let _ = std::fs::remove_dir_all(&io);
        let outcome = outcome.inspect_err(|_| self.sandbox_failed = true)?;
        let stopped = shared
            .stopped
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            // Set by the caller (the page's Stop).
            .or_else(|| {
                cancel
                    .load(Ordering::SeqCst)
                    .then(|| "stopped on request".into())
            });
        // Killed because the judge stopped it: not the program's verdict.
        let verdict = if stopped.is_some() && !outcome.cpu_limit_exceeded {
            None
        } else {
            classify_run(&outcome, problem.limits.memory)
        };
        Ok(Ended {
            outcome,
            verdict,
            stopped,
            lines,
        })
    }

    /// Plays a sample exchange back to `artifact`: the lines the judge sent (`<`) are its
    /// input, and what it writes must be the lines it wrote then (`>`), compared token by token
    /// as the default checker does. `Ok(None)`: the same; `Ok(Some(why))`: where it differs, or
    /// how the run failed.
    pub fn replay(
        &mut self,
        problem: &Problem,
        artifact: &Artifact,
        lines: &[crate::engine::interactive::ExchangeLine],
    ) -> Result<Option<String>, EngineError> {
        use judge_model::transcript::From;
        let mut said = String::new();
        let mut heard = String::new();
        for line in lines {
            let to = match line.from {
                From::Judge => &mut said,
                From::Solution => &mut heard,
            };
            to.push_str(&line.text);
            to.push('\n');
        }
        let dir = self.fresh_dir("replay")?;
        let input = dir.join("input");
        std::fs::write(&input, said).map_err(|source| EngineError::Work {
            path: input.clone(),
            source,
        })?;
        let limits = solution_limits(problem);
        let run = self.execute(artifact, &[], Some(&input), &[], limits);
        let _ = std::fs::remove_dir_all(&dir);
        let (outcome, stdout, stderr) = run?;
        let output = std::fs::read(&stdout).unwrap_or_default();
        self.recycle(stdout, stderr);
        if let Some((verdict, message)) = classify_run(&outcome, problem.limits.memory) {
            return Ok(Some(format!("{verdict}: {message}")));
        }
        let output = String::from_utf8_lossy(&output);
        let (mut got, mut want) = (output.split_whitespace(), heard.split_whitespace());
        let mut n = 0;
        loop {
            n += 1;
            match (got.next(), want.next()) {
                (None, None) => return Ok(None),
                (Some(g), Some(w)) if g == w => {}
                (g, w) => {
                    let shown = |t: Option<&str>| match t {
                        Some(t) => format!("`{}`", cap_line(t.as_bytes()).0),
                        None => "nothing more".into(),
                    };
                    return Ok(Some(format!(
                        "token {n}: the program wrote {} where the exchange has {}",
                        shown(g),
                        shown(w)
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_is_written_as_interaction_lines_and_long_lines_are_cut() {
        let line = |side, text: &str| Line {
            side,
            text: text.into(),
            at_ms: 0,
            cut: false,
        };
        let text = interaction_text(&[
            line(Side::Sent, "10"),
            line(Side::Received, "? 5"),
            line(Side::Stderr, "debug"),
            line(Side::Sent, "higher"),
            line(Side::Received, "! 7"),
        ]);
        assert_eq!(text, "<10\n>? 5\n<higher\n>! 7\n");
        let (short, cut) = cap_line(b"abc\r\n");
        assert_eq!((short.as_str(), cut), ("abc", false));
        let long = "é".repeat(CONSOLE_LINE);
        let (text, cut) = cap_line(long.as_bytes());
        assert!(cut && text.len() <= CONSOLE_LINE && text.len() >= CONSOLE_LINE - 1);
    }
}
