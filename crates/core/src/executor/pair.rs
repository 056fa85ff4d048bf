//! Two programs that talk to each other: the first's stdout reaches the second's stdin and the
//! second's stdout the first's stdin, through direct pipes, or through the judge when it
//! records the exchange.
//! An interactive test is such a pair (the solution first, the interactor second); so is
//! playing a sample exchange to one program ([`Executor::converse`](super::Executor::converse)).

use judge_model::transcript::Transcript;
use judge_sandbox::{RunOutcome, RunSpec, SandboxError};
use std::time::Instant;

/// What to run side by side, and when to stop.
pub struct Pair<'a> {
    /// The two programs: `[first, second]`. The first's end of output is passed on to the
    /// second only once the first has ended (a solution that closes its output and then
    /// crashes gets its crash, not the verdict of an interactor that read the end first).
    pub specs: [&'a RunSpec; 2],
    /// Keep what each side wrote (a [`Transcript`]: the first's lines as `Solution`, the
    /// second's as `Judge`); the judge then relays the pipes.
    pub record: bool,
    /// Called as each run ends, with its index and outcome: whether the other one, still
    /// running, is to be killed (a pair ends together when one side ends badly).
    pub stop_other: &'a (dyn Fn(usize, &RunOutcome) -> bool + Sync),
}

/// How a [`Pair`] went.
#[derive(Debug)]
pub struct PairOutcome {
    /// Each run's outcome, in the order of [`Pair::specs`]; an `Err` is the executor's failure.
    pub outcomes: [Result<RunOutcome, SandboxError>; 2],
    /// The order the runs were seen to end in (indices into [`Pair::specs`]).
    pub order: Vec<usize>,
    /// When the judge saw each program close its output (indices as [`Pair::specs`]); `None`
    /// when the relay failed or a run was lost. For the first program this is never before
    /// it ended; the second's is noted before the first's end of output is passed on.
    pub closed: [Option<Instant>; 2],
    /// What each side wrote, when [`Pair::record`] asked for it.
    pub transcript: Option<Transcript>,
}

/// What a program said back while the judge talked to it ([`super::Executor::converse`]).
#[derive(Debug)]
pub struct Heard {
    pub outcome: RunOutcome,
    /// Its stdout, up to the cap asked for.
    pub said: Vec<u8>,
}
