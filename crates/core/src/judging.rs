//! The one call that judges: submissions on one prepared problem, with [`Event`]s while they
//! are judged and a report for each at the end. `judge run` (one submission), `judge verify`
//! (every solution of a package), the practice server and a service worker all judge through
//! [`judge`]; [`judge_one`] is its one-submission form.
//!
//! A problem is prepared once ([`Prepared`]: the package and its built checker or interactor;
//! `crate::setter::prepare` also makes missing tests and derives a missing time limit, as
//! `run` does). The engines given are the jobs: with one, the submission's tests run in order
//! on it ([`Engine::judge`]); with several, every test is a piece of work for whichever engine
//! is free (`crate::jobs`), and the events and reports are the ones one engine would give.

use crate::engine::{Checker, Engine, EngineError, JudgeOptions};
use crate::jobs;
use crate::package::Problem;
use judge_model::event::Reporter;
use judge_model::result::SubmissionReport;
use std::path::Path;

/// A problem ready to judge: its package and its checker (or interactor) built.
pub struct Prepared {
    pub problem: Problem,
    pub checker: Checker,
}

impl Prepared {
    /// The problem and its checker, as [`judge`] takes them.
    pub fn parts(&self) -> (&Problem, &Checker) {
        (&self.problem, &self.checker)
    }

    /// Builds the problem's checker (and interactor) with `engine`; the package is judged as
    /// it is (no test is made, no limit derived).
    pub fn new(engine: &mut Engine, problem: Problem) -> Result<Prepared, EngineError> {
        let checker = engine.prepare_checker(&problem)?;
        Ok(Prepared { problem, checker })
    }
}

pub use crate::jobs::{Outcome, Prejudged, Submission};

/// Judges `submissions` on a prepared problem (its checker built: [`Prepared`]) over `engines`
/// (at least one), reporting each one's events in order (`compile_started` …
/// `solution_finished`), and returns their outcomes in order.
pub fn judge(
    engines: &mut [&mut Engine],
    (problem, checker): (&Problem, &Checker),
    submissions: &[Submission],
    reporter: &mut dyn Reporter,
) -> Vec<Outcome> {
    match (engines, submissions) {
        ([engine], [one]) if one.skip.is_none() && one.limit.is_none() && one.run.is_none() => {
            let judged = engine.judge(problem, checker, &one.source, one.options.clone(), reporter);
            vec![Some(judged)]
        }
        (engines, submissions) => {
            jobs::judge_solutions(engines, problem, checker, submissions, reporter)
        }
    }
}

/// [`judge`], where the submissions with a [`Prejudged`] (`prejudged[i]`) are taken as they
/// were judged (`verify` keeps the runs that derived the time limit).
pub fn judge_with(
    engines: &mut [&mut Engine],
    (problem, checker): (&Problem, &Checker),
    submissions: &[Submission],
    prejudged: Vec<Option<Prejudged>>,
    reporter: &mut dyn Reporter,
) -> Vec<Outcome> {
    if prejudged.iter().all(Option::is_none) {
        return judge(engines, (problem, checker), submissions, reporter);
    }
    jobs::judge_solutions_with(engines, problem, checker, submissions, prejudged, reporter)
}

/// Judges one submission ([`judge`] of one).
pub fn judge_one(
    engines: &mut [&mut Engine],
    prepared: &Prepared,
    source: &Path,
    options: JudgeOptions,
    reporter: &mut dyn Reporter,
) -> Result<SubmissionReport, EngineError> {
    judge(
        engines,
        prepared.parts(),
        &[Submission::new(source, options)],
        reporter,
    )
    .pop()
    .flatten()
    .expect("a submission that is not skipped has an outcome")
}

/// For decision tests: judges the fake program `sol` (a source written into `work`) on the
/// package in `pkg` with `options`, through [`judge_one`].
#[cfg(test)]
pub(crate) fn judge_fake(
    engine: &mut Engine,
    pkg: &Path,
    work: &Path,
    options: JudgeOptions,
) -> SubmissionReport {
    let problem = Problem::load(pkg).unwrap();
    let source = crate::executor::fake::source(work, "src/sol.cpp", "sol");
    let prepared = Prepared::new(engine, problem).unwrap();
    let mut events = judge_model::event::Collect::default();
    judge_one(&mut [engine], &prepared, &source, options, &mut events).unwrap()
}
