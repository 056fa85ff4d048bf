//! Judging solutions with their tests spread over the jobs: `verify` (many solutions) and `run`
//! (one). Every solution is built first, all builds spread over the jobs; then every test of every
//! built solution is one piece of work, taken by whichever job is free, so one slow solution does
//! not keep the other jobs idle at the end. The report and the events are the ones one job would
//! give: tests after a solution's first failure are not started once the failure is known, and a
//! result judged ahead of it is dropped with its events.

use super::{spread, Ordered};
use crate::engine::{Checker, Engine, EngineError, Ids, JudgeOptions};
use crate::package::Problem;
use crate::package::Scored;
use judge_model::event::{Event, Reporter, RunId, TestId};
use judge_model::result::SubmissionReport;
use judge_model::Verdict;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One submission to judge, and what is expected of it.
pub struct Submission {
    /// A source file, or a folder holding a multi-file program.
    pub source: PathBuf,
    pub options: JudgeOptions,
    /// Not judged: this event is reported in its place (`verify`: a dialect the language table
    /// lacks).
    pub skip: Option<Event>,
}

impl Submission {
    pub fn new(source: impl Into<PathBuf>, options: JudgeOptions) -> Submission {
        Submission {
            source: source.into(),
            options,
            skip: None,
        }
    }
}

/// What a submission came to: `None` when it was skipped ([`Submission::skip`]); otherwise
/// its report, or why it could not be judged (what [`Engine::judge`] would have returned).
pub type Outcome = Option<Result<SubmissionReport, EngineError>>;

/// Judges `entries` over the engines and reports their events in entry order. A solution with
/// `options.alone` runs each test with no other job running; with several jobs those tests go
/// first (they are the slow ones: expected to run out of time).
pub fn judge_solutions(
    engines: &mut [&mut Engine],
    problem: &Problem,
    checker: &Checker,
    entries: &[Submission],
    reporter: &mut dyn Reporter,
) -> Vec<Outcome> {
    let tests = problem.tests.len();
    // Each entry's slots: its build, one per test, and its `solution_finished`.
    let width = tests + 2;
    let build_slot = |i: usize| i * width;
    let test_slot = |i: usize, t: usize| i * width + 1 + t;
    let finish_slot = |i: usize| i * width + tests + 1;
    // Run ids in entry order, whichever job builds first.
    let ids: Vec<Ids> = entries
        .iter()
        .map(|e| Ids {
            problem: problem.slug.clone(),
            solution: e.source.display().to_string(),
            run: RunId::next(),
        })
        .collect();
    let ordered = Ordered::new(reporter);
    let outcomes: Mutex<Vec<Outcome>> = Mutex::new(entries.iter().map(|_| None).collect());
    // A finished entry: its `solution_finished` and its outcome.
    let finish = |i: usize, result: Result<SubmissionReport, EngineError>| {
        crate::engine::solution_finished(
            ids[i].clone(),
            &entries[i].options,
            &result,
            &mut ordered.slot(finish_slot(i)),
        );
        ordered.done(finish_slot(i));
        outcomes.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
    };

    // Builds.
    let build = |engine: &mut Engine, i: usize| {
        let entry = &entries[i];
        let mut slot = ordered.slot(build_slot(i));
        if let Some(event) = &entry.skip {
            slot.event(event);
            ordered.drop_range(build_slot(i) + 1..finish_slot(i) + 1);
            ordered.done(build_slot(i));
            return None;
        }
        let built = engine.compile_for(problem, &ids[i], &entry.source, &mut slot);
        match built {
            Ok((Some(artifact), compile)) if tests > 0 => {
                ordered.done(build_slot(i));
                Some((artifact, compile))
            }
            other => {
                ordered.drop_range(test_slot(i, 0)..finish_slot(i));
                ordered.done(build_slot(i));
                finish(
                    i,
                    other.map(|(artifact, compile)| {
                        // Not built: a compilation error; built with no test to run: accepted.
                        let verdict = if artifact.is_some() {
                            Verdict::AC
                        } else {
                            Verdict::CE
                        };
                        SubmissionReport::new(verdict, compile)
                    }),
                );
                None
            }
        }
    };
    let built = spread(engines, entries.len(), &|_| false, &build);

    // Tests: every test of every built entry is a piece of work, except that the tests of an
    // entry run alone are one piece, in order: each holds every job anyway, and in order none
    // runs after the first failure (a TLE test run ahead would cost its whole limit). Those
    // pieces go first.
    let built: Vec<_> = built.into_iter().map(Option::flatten).collect();
    let mut order: Vec<usize> = (0..entries.len()).filter(|&i| built[i].is_some()).collect();
    if engines.len() > 1 {
        order.sort_by_key(|&i| !entries[i].options.alone);
    }
    let items: Vec<(usize, Range<usize>)> = order
        .iter()
        .flat_map(|&i| {
            // One piece of all the tests, or one piece per test.
            let step = if entries[i].options.alone {
                tests.max(1)
            } else {
                1
            };
            (0..tests)
                .step_by(step)
                .map(move |t| (i, t..(t + step).min(tests)))
        })
        .collect();
    let results: Vec<Mutex<Vec<Option<judge_model::result::TestResult>>>> = entries
        .iter()
        .map(|_| Mutex::new(vec![None; tests]))
        .collect();
    // Each entry's first failing test so far (tests after it are not started) and its tests
    // not yet done.
    let failed_at: Vec<AtomicUsize> = entries
        .iter()
        .map(|_| AtomicUsize::new(usize::MAX))
        .collect();
    let remaining: Vec<AtomicUsize> = entries.iter().map(|_| AtomicUsize::new(tests)).collect();
    // A scored problem's tests found skippable so far (see `crate::score::Skip`): from what is
    // known of the tests before them, which only grows, so the replay in order skips them too.
    let skipped: Vec<Mutex<Vec<Option<crate::score::Skip>>>> = entries
        .iter()
        .map(|_| Mutex::new(vec![None; tests]))
        .collect();
    let skipping = |i: usize| {
        let o = &entries[i].options;
        problem.scoring.is_some() && !o.all && o.rules.is_empty()
    };
    // Marks the tests after `from` that can now be skipped, and drops their events.
    let mark_skippable = |i: usize, from: usize| {
        let Some(scoring) = problem.scoring.as_ref().filter(|_| skipping(i)) else {
            return;
        };
        let done = results[i].lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut fakes = skipped[i].lock().unwrap_or_else(|e| e.into_inner());
        for u in from..tests {
            if fakes[u].is_some() {
                continue;
            }
            let known: Vec<Option<crate::score::TestOutcome>> = (0..u)
                .map(|k| match (&done[k], &fakes[k]) {
                    (_, Some(skip)) => Some(skip.outcome()),
                    (Some(r), None) => Some(crate::score::TestOutcome {
                        verdict: r.verdict,
                        reported: r.checker_score,
                    }),
                    (None, None) => None,
                })
                .collect();
            if let Some(skip) = scoring.skip(u, &known) {
                fakes[u] = Some(skip);
                ordered.drop_range(test_slot(i, u)..test_slot(i, u) + 1);
            }
        }
    };
    let work = |engine: &mut Engine, k: usize| {
        let (i, range) = &items[k];
        let i = *i;
        let options = &entries[i].options;
        // A scored problem judges every test (`Engine::judge`).
        let all = options.all || problem.scoring.is_some() || !options.rules.is_empty();
        let (artifact, _) = built[i].as_ref().expect("only built entries have tests");
        let needed = |t: usize| {
            let skip = skipped[i].lock().unwrap_or_else(|e| e.into_inner())[t].is_some();
            !skip && (all || failed_at[i].load(Ordering::SeqCst) > t)
        };
        for t in range.clone() {
            let test = &problem.tests[t];
            let run = |engine: &mut Engine| {
                // Checked again after waiting for the others (`alone`).
                if !needed(t) {
                    return None;
                }
                let id = TestId {
                    index: t + 1,
                    name: test.name.clone(),
                };
                let mut slot = ordered.slot(test_slot(i, t));
                let r = engine.judge_test(
                    problem,
                    checker,
                    artifact,
                    test,
                    id,
                    tests,
                    &ids[i],
                    &|| needed(t),
                    &mut slot,
                );
                if r.verdict != Verdict::AC && !all {
                    failed_at[i].fetch_min(t, Ordering::SeqCst);
                    // Before this slot is done, so none of the dropped ones is being released.
                    ordered.drop_range(test_slot(i, t + 1)..finish_slot(i));
                }
                Some(r)
            };
            let result = if options.alone {
                engine.alone(run)
            } else {
                run(engine)
            };
            if let Some(r) = &result {
                results[i].lock().unwrap_or_else(|e| e.into_inner())[t] = Some(r.clone());
                // Before this slot is done, so none of the dropped ones is being released.
                mark_skippable(i, t + 1);
            }
            ordered.done(test_slot(i, t));
            if remaining[i].fetch_sub(1, Ordering::SeqCst) == 1 {
                // The entry's last test: its report, as one job would have made it.
                let (_, compile) = built[i].as_ref().expect("built");
                let mut report = SubmissionReport::new(Verdict::AC, compile.clone());
                let done =
                    std::mem::take(&mut *results[i].lock().unwrap_or_else(|e| e.into_inner()));
                for (t, r) in done.into_iter().enumerate() {
                    // Skipped as one job would have skipped it (a result judged ahead is
                    // dropped with its events).
                    if skipping(i) && report.skips(problem, t) {
                        continue;
                    }
                    let Some(r) = r else { break };
                    if !report.record(r, all) {
                        break;
                    }
                }
                report.score_with(problem);
                finish(i, Ok(report));
            }
        }
    };
    spread(engines, items.len(), &|_| false, &work);
    drop(ordered);
    outcomes.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests;
