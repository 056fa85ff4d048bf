//! The seam between the engine and what runs programs. The engine (and through it `build`,
//! `verify`, `gen` and `stress`) runs every program — compiler, solution, checker, validator,
//! generator, the two sides of an interactive test — through an [`Executor`]: the
//! [`LocalExecutor`] (this machine's sandbox) in the judge, and in unit tests
//! [`fake::FakeExecutor`], which runs nothing and plays back scripted outcomes, so the decisions
//! built on runs (verdicts, expectations, re-judging, shrinking, interactive precedence,
//! passes) are tested in milliseconds without root. A remote or pooled executor implements
//! the same trait.
//!
//! The contract is the sandbox's: a [`RunSpec`] in, a [`RunOutcome`] out, and the files the spec
//! names (stdout, stderr, and the working folder when it is a host folder) hold what the program
//! wrote. Everything else — building, the checkers run in-process, the verdict rules — stays in
//! the engine and runs unchanged over either.

use judge_model::IsolationLevel;
use judge_sandbox::{Layer, RunOutcome, RunSpec, SandboxError};

mod direct;
pub mod fake;
mod gate;
mod local;
mod pair;
mod relay;

pub use gate::{Alone, Gate, Ticket};
pub use local::LocalExecutor;
pub use pair::{Heard, Pair, PairOutcome};

/// Runs programs under limits and measures them: one at a time ([`Executor::run`]), two that
/// talk to each other ([`Executor::run_pair`]), or one the judge talks to
/// ([`Executor::converse`]); [`Executor::another`] gives a second executor for a job beside
/// this one.
pub trait Executor: Send {
    /// Runs one program to completion (or to a limit) and reports how it ended. An `Err` is a
    /// failure of the executor itself (the engine makes it a judge error), never a verdict.
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError>;

    /// Runs two programs side by side, each one's output the other's input (see [`Pair`]),
    /// until both ended; each is measured alone.
    fn run_pair(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError>;

    /// Runs one program while the judge writes `say` to its stdin and reads its stdout (up to
    /// `hear_cap` bytes): a sample exchange played to an interactor.
    fn converse(
        &mut self,
        spec: &RunSpec,
        say: &[u8],
        hear_cap: u64,
    ) -> Result<Heard, SandboxError>;

    /// Runs one program whose stdin and stdout are `stdin` and `stdout` (pipe ends: the caller
    /// holds the other ends and talks to it live, as a person at the console of `judge run
    /// --interact` or of the practice page does), until it ends, reaches a limit or is
    /// cancelled ([`Executor::set_cancel`]). Executors that cannot start a run and go on (the
    /// fake) say so as an `Err`.
    fn talk(
        &mut self,
        spec: &RunSpec,
        stdin: std::os::fd::OwnedFd,
        stdout: std::os::fd::OwnedFd,
    ) -> Result<RunOutcome, SandboxError> {
        let _ = (spec, stdin, stdout);
        Err(SandboxError::Setup(
            "this executor cannot hold a live conversation with a program".into(),
        ))
    }

    /// An executor of the same kind for another job running beside this one (its own sandbox,
    /// uid and cgroups; for the fake, one sharing its scripts and log).
    fn another(&self) -> Result<Box<dyn Executor>, SandboxError>;

    /// Whether a run asked for a scratch working folder gets a private one (nothing is written
    /// to the host folder of that name, so the engine reuses it); see
    /// [`judge_sandbox::Sandbox::private_scratch`].
    fn private_scratch(&self) -> bool;

    /// Each isolation layer with its status (for the `started` event and its warning).
    fn layers(&self) -> Vec<Layer>;

    /// Kills this executor's runs while `cancel` is set (a worker whose job was taken stops
    /// judging at once); `None`: never. Executors that cannot stop a run ignore it.
    fn set_cancel(&mut self, _cancel: Option<judge_sandbox::Cancel>) {}

    /// Runs this executor's programs, and the calling thread that drives them, on a CPU no
    /// other slot of this machine holds, while the executor lives (see
    /// [`judge_sandbox::Sandbox::take_cpu`]); which one, or `None` when none is free (or this
    /// executor cannot). Called before the first run: later sandboxes and threads of the
    /// calling thread inherit it.
    fn take_cpu(&mut self) -> Result<Option<usize>, SandboxError> {
        Ok(None)
    }

    /// Summary of [`Executor::layers`].
    fn level(&self) -> IsolationLevel {
        let layers = self.layers();
        if layers.iter().all(|l| l.active) {
            IsolationLevel::Full
        } else if layers.iter().any(|l| l.active) {
            IsolationLevel::Partial
        } else {
            IsolationLevel::None
        }
    }
}

/// The engine's boxed executor passes for the executor itself (`build::build(&mut
/// engine.sandbox, …)`).
impl<E: Executor + ?Sized> Executor for Box<E> {
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        (**self).run(spec)
    }

    fn run_pair(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
        (**self).run_pair(pair)
    }

    fn converse(
        &mut self,
        spec: &RunSpec,
        say: &[u8],
        hear_cap: u64,
    ) -> Result<Heard, SandboxError> {
        (**self).converse(spec, say, hear_cap)
    }

    fn talk(
        &mut self,
        spec: &RunSpec,
        stdin: std::os::fd::OwnedFd,
        stdout: std::os::fd::OwnedFd,
    ) -> Result<RunOutcome, SandboxError> {
        (**self).talk(spec, stdin, stdout)
    }

    fn set_cancel(&mut self, cancel: Option<judge_sandbox::Cancel>) {
        (**self).set_cancel(cancel)
    }

    fn take_cpu(&mut self) -> Result<Option<usize>, SandboxError> {
        (**self).take_cpu()
    }

    fn another(&self) -> Result<Box<dyn Executor>, SandboxError> {
        (**self).another()
    }

    fn private_scratch(&self) -> bool {
        (**self).private_scratch()
    }

    fn layers(&self) -> Vec<Layer> {
        (**self).layers()
    }

    fn level(&self) -> IsolationLevel {
        (**self).level()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// Says whether it was given a cancel flag.
    struct Probe(Arc<AtomicBool>);

    impl Executor for Probe {
        fn run(&mut self, _: &RunSpec) -> Result<RunOutcome, SandboxError> {
            unreachable!("not run")
        }
        fn run_pair(&mut self, _: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
            unreachable!("not run")
        }
        fn converse(&mut self, _: &RunSpec, _: &[u8], _: u64) -> Result<Heard, SandboxError> {
            unreachable!("not run")
        }
        fn another(&self) -> Result<Box<dyn Executor>, SandboxError> {
            unreachable!("not run")
        }
        fn private_scratch(&self) -> bool {
            true
        }
        fn layers(&self) -> Vec<Layer> {
            Vec::new()
        }
        fn set_cancel(&mut self, cancel: Option<judge_sandbox::Cancel>) {
            self.0.store(cancel.is_some(), Ordering::SeqCst);
        }
    }

    #[test]
    fn a_boxed_executor_passes_its_cancel_flag_on() {
        // The engine holds a `Box<dyn Executor>`: `engine.sandbox.set_cancel(…)` calls the box's
        // own implementation, which must reach the executor (the worker's lost job, the
        // console's Stop).
        let given = Arc::new(AtomicBool::new(false));
        let mut boxed: Box<dyn Executor> = Box::new(Probe(given.clone()));
        boxed.set_cancel(Some(judge_sandbox::Cancel::default()));
        assert!(given.load(Ordering::SeqCst));
        boxed.set_cancel(None);
        assert!(!given.load(Ordering::SeqCst));
    }
}
