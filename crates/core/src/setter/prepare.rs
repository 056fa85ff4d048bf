//! A package made ready to judge a submission, as `judge run` (and a service worker) does it:
//! its warnings told, the tests it leaves out made, a missing time limit derived from its
//! accepted solutions, a selection of tests applied, and its checker or interactor built.

use super::SetterError;
use crate::engine::Engine;
use crate::judging::Prepared;
use crate::package::{self, Problem};
use judge_model::event::{Event, Reporter};
use std::path::Path;

/// What to judge of a problem.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Test names or patterns (`*`, `?`, `[abc]`); empty: every test.
    pub tests: Vec<String>,
    /// Interactive problems: keep each test's exchange (`--transcript`).
    pub transcript: bool,
}

/// Readies `problem` for `request` on `engines` (the first does the work; every one gets the
/// package's languages, and the transcript setting), telling `reporter` what it notes, and
/// emitting `problem_started` last. `source` is the submission (for the language notes).
pub fn prepare(
    engines: &mut [&mut Engine],
    mut problem: Problem,
    request: &Request,
    source: &Path,
    reporter: &mut dyn Reporter,
) -> Result<Prepared, SetterError> {
    let total = problem.tests.len();
    // The selection is checked now; it is applied once missing tests are made and a missing
    // time limit is derived (from every test).
    let selected: Vec<String> =
        package::select_tests(&problem.dir, &problem.tests, &request.tests)?
            .into_iter()
            .map(|t| t.name)
            .collect();
    for engine in engines.iter_mut() {
        problem.set_languages(&mut engine.languages);
        engine.partner.record = request.transcript;
    }
    let slug = problem.slug.clone();
    let note = |reporter: &mut dyn Reporter, message: String| {
        reporter.event(&Event::Note {
            problem: Some(slug.clone()),
            message,
        })
    };
    for warning in &problem.warnings {
        reporter.event(&Event::Warning {
            problem: Some(problem.slug.clone()),
            message: warning.to_string(),
        });
    }
    if selected.len() < total {
        let message = format!(
            "judging {} of {total} tests (--test); the verdict is for these only",
            selected.len()
        );
        note(reporter, message);
    }
    let engine = &mut *engines[0];
    for message in engine.languages.fallback_notes([source]) {
        note(reporter, message);
    }
    if problem
        .tests
        .iter()
        .any(|t| t.generate.is_some() || t.answer_missing)
    {
        note(
            reporter,
            "the package lacks some tests or answers: making them first".into(),
        );
    }
    for message in super::rebuild::rebuild_missing(engine, &mut problem, &mut |_, _| {})? {
        note(reporter, message);
    }
    let checker = engine.prepare_checker(&problem)?;
    if problem.derive_time {
        // The package states no time limit: measure its accepted solutions (Kattis' rule).
        let mut derived = super::time_limit::derive(engine, &problem, &checker, true)?;
        for message in std::mem::take(&mut derived.notes) {
            note(reporter, message);
        }
        note(reporter, derived.apply(&mut problem));
    }
    if problem.scoring.is_some() && selected.len() < problem.tests.len() {
        // A score counts every test of a group: none for a selection.
        problem.scoring = None;
        note(
            reporter,
            "no score: --test picks some of the tests; a score needs them all".to_string(),
        );
    }
    problem.tests.retain(|t| selected.contains(&t.name));
    if request.transcript && problem.interactor.is_none() {
        let message = "--transcript: not an interactive problem, there is no exchange to show (the output diff is shown instead)".to_string();
        note(reporter, message);
    }
    reporter.event(&problem.started_event());
    Ok(Prepared { problem, checker })
}
