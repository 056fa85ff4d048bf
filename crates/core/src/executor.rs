//! The seam between the engine and what runs programs. The engine (and through it `build`,
//! `verify`, `gen` and `stress`) runs every program — compiler, solution, checker, validator,
//! generator — through an [`Executor`]: the [`Sandbox`] in the judge, and in unit tests
//! [`fake::FakeExecutor`], which runs nothing and plays back scripted outcomes, so the decisions
//! built on runs (verdicts, expectations, re-judging, shrinking) are tested in milliseconds
//! without root.
//!
//! The contract is the sandbox's: a [`RunSpec`] in, a [`RunOutcome`] out, and the files the spec
//! names (stdout, stderr, and the working folder when it is a host folder) hold what the program
//! wrote. Everything else — building, the checkers run in-process, the verdict rules — stays in
//! the engine and runs unchanged over either.

use judge_model::IsolationLevel;
use judge_sandbox::{Layer, RunOutcome, RunSpec, Sandbox, SandboxError};

pub mod fake;
mod gate;

pub use gate::{Alone, Gate, Ticket};

/// Runs one program at a time under limits and measures it.
pub trait Executor: Send {
    /// Runs one program to completion (or to a limit) and reports how it ended. An `Err` is a
    /// failure of the executor itself (the engine makes it a judge error), never a verdict.
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError>;

    /// Whether a run asked for a scratch working folder gets a private one (nothing is written
    /// to the host folder of that name, so the engine reuses it); see
    /// [`Sandbox::private_scratch`].
    fn private_scratch(&self) -> bool;

    /// Each isolation layer with its status (for the `started` event and its warning).
    fn layers(&self) -> Vec<Layer>;

    /// The sandbox itself, when this executor is one: interactive problems start two runs at
    /// once through [`Sandbox::start`], which the one-run-at-a-time seam does not offer.
    fn as_sandbox(&mut self) -> Option<&mut Sandbox> {
        None
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

    fn private_scratch(&self) -> bool {
        (**self).private_scratch()
    }

    fn layers(&self) -> Vec<Layer> {
        (**self).layers()
    }

    fn level(&self) -> IsolationLevel {
        (**self).level()
    }

    fn as_sandbox(&mut self) -> Option<&mut Sandbox> {
        (**self).as_sandbox()
    }
}

impl Executor for Sandbox {
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        Sandbox::run(self, spec)
    }

    fn private_scratch(&self) -> bool {
        Sandbox::private_scratch(self)
    }

    fn layers(&self) -> Vec<Layer> {
        Sandbox::layers(self)
    }

    fn as_sandbox(&mut self) -> Option<&mut Sandbox> {
        Some(self)
    }
}
