//! The executor of this machine: programs run in the judge's own sandbox. A second sandbox,
//! made at the first pair, runs the other side of a pair (runs that go on together each need a
//! sandbox of their own: own worker, uid, cgroup and limits, measured alone).

use super::direct::Watch;
use super::pair::{Heard, Pair, PairOutcome};
use super::relay::relay;
use super::Executor;
use judge_model::transcript::{From, Transcript};
use judge_sandbox::{Layer, Run, RunIo, RunOutcome, RunSpec, Sandbox, SandboxError};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// Runs programs in the sandbox of this machine.
pub struct LocalExecutor {
    sandbox: Sandbox,
    /// The other side of pairs, made when first needed.
    partner: Option<Sandbox>,
    /// Given to both sandboxes (see [`Executor::set_cancel`]).
    cancel: Option<judge_sandbox::Cancel>,
}

impl LocalExecutor {
    /// A sandbox of its own (a worker and a uid lease; see [`Sandbox::new`]).
    pub fn new() -> Result<LocalExecutor, SandboxError> {
        Ok(LocalExecutor::from(Sandbox::new()?))
    }

    fn partner(&mut self) -> Result<&mut Sandbox, SandboxError> {
        if self.partner.is_none() {
            let made = Sandbox::new().map_err(|e| {
                SandboxError::Setup(format!("could not make the second sandbox of a pair: {e}"))
            })?;
            let mut made = made;
            made.set_cancel(self.cancel.clone());
            self.partner = Some(made);
        }
        Ok(self.partner.as_mut().expect("made above"))
    }

    /// A pair through the judge's relay (two threads, one each way), which keeps the
    /// exchange.
    fn relayed(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
        let pipe = judge_sandbox::pipe;
        // Two pipes each way, the judge relaying between them.
        let (first_in, to_first) = pipe()?;
        let (second_in, to_second) = pipe()?;
        let (from_first, first_out) = pipe()?;
        let (from_second, second_out) = pipe()?;
        let log = Arc::new(Mutex::new(Transcript::default()));
        let mut runs = self.start_both(pair, (first_in, first_out), (second_in, second_out))?;
        let (first_ended, hold_eof) = std::sync::mpsc::channel::<()>();
        let record = pair.record;
        let second_to_first = {
            let log = record.then(|| Arc::clone(&log));
            std::thread::spawn(move || {
                relay(from_second, to_first, From::Judge, log.as_deref(), None)
            })
        };
        let first_to_second = {
            let log = record.then(|| Arc::clone(&log));
            std::thread::spawn(move || {
                relay(
                    from_first,
                    to_second,
                    From::Solution,
                    log.as_deref(),
                    Some(hold_eof),
                )
            })
        };
        let mut order = Vec::new();
        let outcomes = judge_sandbox::wait_all(&mut runs, |i, o| {
            order.push(i);
            if i == 0 {
                let _ = first_ended.send(());
            }
            (pair.stop_other)(i, o)
        });
        drop(first_ended);
        drop(runs);
        let closed = [
            first_to_second.join().unwrap_or(None),
            second_to_first.join().unwrap_or(None),
        ];
        let outcomes = both(outcomes);
        let transcript = record.then(|| {
            let mut t = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
            t.parts.retain(|(_, text)| !text.is_empty());
            t.recorded = true;
            t
        });
        Ok(PairOutcome {
            outcomes,
            order,
            closed,
            transcript,
        })
    }

    /// A pair joined by direct pipes (no thread of the judge carries a message; see
    /// [`super::direct`]).
    fn direct(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
        let pipe = judge_sandbox::pipe;
        let (second_in, first_out) = pipe()?;
        let (first_in, second_out) = pipe()?;
        let mut watch =
            Watch::new(&first_out, &second_in, &first_in).map_err(|source| SandboxError::Io {
                action: "copy a pipe's descriptor".into(),
                source,
            })?;
        let mut runs = self.start_both(pair, (first_in, first_out), (second_in, second_out))?;
        let mut order = Vec::new();
        let outcomes = judge_sandbox::wait_all(&mut runs, |i, o| {
            order.push(i);
            watch.ended(i);
            (pair.stop_other)(i, o)
        });
        drop(runs);
        let closed = watch.finish();
        Ok(PairOutcome {
            outcomes: both(outcomes),
            order,
            closed,
            transcript: None,
        })
    }

    /// Starts both programs of a pair, each in its sandbox, with the given (stdin, stdout).
    fn start_both(
        &mut self,
        pair: &Pair<'_>,
        (first_in, first_out): (OwnedFd, OwnedFd),
        (second_in, second_out): (OwnedFd, OwnedFd),
    ) -> Result<Vec<Run<'_>>, SandboxError> {
        // Both sandboxes are ready before either program starts: the first does not wait on a
        // partner still being made.
        self.partner()?;
        let first = self.sandbox.start(
            pair.specs[0],
            RunIo {
                stdin: Some(first_in),
                stdout: Some(first_out),
            },
        )?;
        let partner = self
            .partner
            .as_mut()
            .expect("made before the first run started");
        let second = partner.start(
            pair.specs[1],
            RunIo {
                stdin: Some(second_in),
                stdout: Some(second_out),
            },
        )?;
        Ok(vec![first, second])
    }
}

impl std::convert::From<Sandbox> for LocalExecutor {
    fn from(sandbox: Sandbox) -> LocalExecutor {
        LocalExecutor {
            sandbox,
            partner: None,
            cancel: None,
        }
    }
}

impl Executor for LocalExecutor {
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        self.sandbox.run(spec)
    }

    fn private_scratch(&self) -> bool {
        self.sandbox.private_scratch()
    }

    fn layers(&self) -> Vec<Layer> {
        self.sandbox.layers()
    }

    fn take_cpu(&mut self) -> Result<Option<usize>, SandboxError> {
        // The partner, made later from this thread, runs on the same CPU.
        self.sandbox.take_cpu()
    }

    fn set_cancel(&mut self, cancel: Option<judge_sandbox::Cancel>) {
        self.sandbox.set_cancel(cancel.clone());
        if let Some(partner) = &mut self.partner {
            partner.set_cancel(cancel.clone());
        }
        self.cancel = cancel;
    }

    fn another(&self) -> Result<Box<dyn Executor>, SandboxError> {
        Ok(Box::new(LocalExecutor::new()?))
    }

    fn run_pair(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
        if pair.record {
            self.relayed(pair)
        } else {
            self.direct(pair)
        }
    }

    fn talk(
        &mut self,
        spec: &RunSpec,
        stdin: OwnedFd,
        stdout: OwnedFd,
    ) -> Result<RunOutcome, SandboxError> {
        self.sandbox
            .start(
                spec,
                RunIo {
                    stdin: Some(stdin),
                    stdout: Some(stdout),
                },
            )?
            .wait()
    }

    fn converse(
        &mut self,
        spec: &RunSpec,
        say: &[u8],
        hear_cap: u64,
    ) -> Result<Heard, SandboxError> {
        let (program_in, feed) = judge_sandbox::pipe()?;
        let (heard, program_out) = judge_sandbox::pipe()?;
        let run = self.sandbox.start(
            spec,
            RunIo {
                stdin: Some(program_in),
                stdout: Some(program_out),
            },
        )?;
        let say = say.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = std::fs::File::from(feed).write_all(&say);
        });
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            let _ = std::fs::File::from(heard)
                .take(hear_cap)
                .read_to_end(&mut got);
            got
        });
        let outcome = run.wait();
        let _ = writer.join();
        let said = reader.join().unwrap_or_default();
        Ok(Heard {
            outcome: outcome?,
            said,
        })
    }
}

/// The two outcomes of a pair's [`judge_sandbox::wait_all`].
fn both(outcomes: Vec<Result<RunOutcome, SandboxError>>) -> [Result<RunOutcome, SandboxError>; 2] {
    let mut outcomes = outcomes.into_iter();
    let lost = || {
        Err(SandboxError::Setup(
            "the sandbox lost a run of a pair".into(),
        ))
    };
    [
        outcomes.next().unwrap_or_else(lost),
        outcomes.next().unwrap_or_else(lost),
    ]
}
