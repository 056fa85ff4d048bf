//! Judging solutions with their tests spread over the jobs: `verify` (many solutions) and `run`
//! (one). Every solution is built first, all builds spread over the jobs; then every test of every
//! built solution is one piece of work, taken by whichever job is free, so one slow solution does
//! not keep the other jobs idle at the end. The report and the events are the ones one job would
//! give: tests after a solution's first failure are not started once the failure is known, and a
//! result judged ahead of it is dropped with its events.

use super::{spread, Ordered};
use crate::build::Artifact;
use crate::engine::{Checker, Engine, EngineError, Ids, JudgeOptions};
use crate::package::Problem;
use crate::package::Scored;
use crate::score::{Skip, TestOutcome};
use judge_model::event::{Event, Reporter, RunId, TestId};
use judge_model::result::{CompileReport, SubmissionReport, TestResult};
use judge_model::Verdict;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// One submission to judge, and what is expected of it.
pub struct Submission {
    /// A source file, or a folder holding a multi-file program.
    pub source: PathBuf,
    pub options: JudgeOptions,
    /// Not judged: this event is reported in its place (`verify`: a dialect the language table
    /// lacks).
    pub skip: Option<Event>,
    /// Judged with this time limit in place of the problem's (its wall limit 3 × it + 1 s, as a
    /// derived limit's): `verify` judges a package whose limit it derives with the lowest limit
    /// the package's rule allows while it measures, and keeps the results when the limit comes
    /// out at that.
    pub limit: Option<Duration>,
    /// The run id its events carry (a new one when `None`): a judging whose results are kept
    /// ([`Prejudged`]) and the judging that reports them share one.
    pub run: Option<RunId>,
}

/// A submission judged earlier with the same options, taken as it is: its events from
/// `compile_started` to the last `test_finished` (reported in its place, before its
/// `solution_finished`) and its outcome.
pub struct Prejudged {
    pub events: Vec<Event>,
    pub result: Result<SubmissionReport, EngineError>,
}

impl Submission {
    pub fn new(source: impl Into<PathBuf>, options: JudgeOptions) -> Submission {
        Submission {
            source: source.into(),
            options,
            skip: None,
            limit: None,
            run: None,
        }
    }
}

/// What a submission came to: `None` when it was skipped ([`Submission::skip`]); otherwise
/// its report, or why it could not be judged (what [`Engine::judge`] would have returned).
pub type Outcome = Option<Result<SubmissionReport, EngineError>>;

/// Judges `entries` over the engines and reports their events in entry order. A solution with
/// `options.alone` runs each test with no other job running; with several jobs those tests go
/// first (they are the slow ones: expected to run out of time), then those expected to run out
/// of time.
pub fn judge_solutions(
    engines: &mut [&mut Engine],
    problem: &Problem,
    checker: &Checker,
    entries: &[Submission],
    reporter: &mut dyn Reporter,
) -> Vec<Outcome> {
    judge_solutions_with(engines, problem, checker, entries, Vec::new(), reporter)
}

/// [`judge_solutions`], where an entry with a [`Prejudged`] (`prejudged[i]`, when the vector
/// is that long) is not judged again: its events and outcome are reported in its place.
pub fn judge_solutions_with(
    engines: &mut [&mut Engine],
    problem: &Problem,
    checker: &Checker,
    entries: &[Submission],
    prejudged: Vec<Option<Prejudged>>,
    reporter: &mut dyn Reporter,
) -> Vec<Outcome> {
    let judging = Judging {
        problem,
        checker,
        entries,
        tests: problem.tests.len(),
        // Run ids in entry order, whichever job builds first.
        ids: entries
            .iter()
            .map(|e| Ids {
                problem: problem.slug.clone(),
                solution: e.source.display().to_string(),
                run: e.run.unwrap_or_else(RunId::next),
            })
            .collect(),
        // An entry judged with a limit of its own: the problem as it sees it.
        problems: entries
            .iter()
            .map(|e| e.limit.map(|limit| with_limit(problem, limit)))
            .collect(),
        prejudged: prejudged.into_iter().map(Mutex::new).collect(),
        ordered: Ordered::new(reporter),
        outcomes: Mutex::new(entries.iter().map(|_| None).collect()),
    };
    let built = spread(engines, entries.len(), &|_| false, &|engine, i| {
        judging.build(engine, i)
    });
    let built: Vec<_> = built.into_iter().map(Option::flatten).collect();
    let pieces = Pieces::new(&judging, built, engines.len() > 1);
    spread(engines, pieces.items.len(), &|_| false, &|engine, k| {
        pieces.work(engine, k)
    });
    drop(pieces);
    let Judging {
        ordered, outcomes, ..
    } = judging;
    drop(ordered);
    outcomes.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// What every job shares while judging the entries: their ids, the events in order (each
/// entry's slots: its build, one per test, and its `solution_finished`) and the outcomes.
struct Judging<'a, 'r> {
    problem: &'a Problem,
    checker: &'a Checker,
    entries: &'a [Submission],
    tests: usize,
    ids: Vec<Ids>,
    problems: Vec<Option<Problem>>,
    prejudged: Vec<Mutex<Option<Prejudged>>>,
    ordered: Ordered<'r>,
    outcomes: Mutex<Vec<Outcome>>,
}

/// `problem` with the time limit `limit` (its wall limit as a derived limit's).
pub fn with_limit(problem: &Problem, limit: Duration) -> Problem {
    let mut p = problem.clone();
    p.limits.time = limit;
    p.limits.wall = limit * 3 + Duration::from_secs(1);
    p
}

/// A built entry: its program and its compile report.
type Built = Option<(Artifact, CompileReport)>;

impl Judging<'_, '_> {
    /// The problem as entry `i` is judged on it (its own limit, if it has one).
    fn problem(&self, i: usize) -> &Problem {
        self.problems[i].as_ref().unwrap_or(self.problem)
    }

    fn build_slot(&self, i: usize) -> usize {
        i * (self.tests + 2)
    }

    fn test_slot(&self, i: usize, t: usize) -> usize {
        self.build_slot(i) + 1 + t
    }

    fn finish_slot(&self, i: usize) -> usize {
        self.build_slot(i) + self.tests + 1
    }

    /// A finished entry: its `solution_finished` and its outcome.
    fn finish(&self, i: usize, result: Result<SubmissionReport, EngineError>) {
        crate::engine::solution_finished(
            self.ids[i].clone(),
            &self.entries[i].options,
            &result,
            &mut self.ordered.slot(self.finish_slot(i)),
        );
        self.ordered.done(self.finish_slot(i));
        self.outcomes.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
    }

    /// Builds entry `i` (or reports it skipped); `None` when it has no test to run: then it is
    /// finished here (a compilation error, or accepted with no test).
    fn build(&self, engine: &mut Engine, i: usize) -> Built {
        let entry = &self.entries[i];
        let (build_slot, finish_slot) = (self.build_slot(i), self.finish_slot(i));
        let mut slot = self.ordered.slot(build_slot);
        if let Some(event) = &entry.skip {
            slot.event(event);
            self.ordered.drop_range(build_slot + 1..finish_slot + 1);
            self.ordered.done(build_slot);
            return None;
        }
        let prejudged = self
            .prejudged
            .get(i)
            .and_then(|p| p.lock().unwrap_or_else(|e| e.into_inner()).take());
        if let Some(Prejudged { events, result }) = prejudged {
            for event in &events {
                slot.event(event);
            }
            self.ordered.drop_range(self.test_slot(i, 0)..finish_slot);
            self.ordered.done(build_slot);
            self.finish(i, result);
            return None;
        }
        let built = engine.compile_for(self.problem(i), &self.ids[i], &entry.source, &mut slot);
        match built {
            Ok((Some(artifact), compile)) if self.tests > 0 => {
                self.ordered.done(build_slot);
                Some((artifact, compile))
            }
            other => {
                self.ordered.drop_range(self.test_slot(i, 0)..finish_slot);
                self.ordered.done(build_slot);
                self.finish(
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
    }
}

/// The tests of the built entries as pieces of work: every test of every built entry is a
/// piece, except that the tests of an entry run alone, or expected to run out of time, are one
/// piece, in order: one run alone holds every job anyway, and in order none runs after the
/// first failure (a TLE test run ahead would cost its whole limit). Those pieces go first: the
/// ones run alone, then the ones expected to run out of time (the slowest), then the others.
struct Pieces<'j, 'a, 'r> {
    judging: &'j Judging<'a, 'r>,
    built: Vec<Built>,
    /// (entry, its tests) per piece.
    items: Vec<(usize, Range<usize>)>,
    results: Vec<Mutex<Vec<Option<TestResult>>>>,
    /// Each entry's first failing test so far (tests after it are not started).
    failed_at: Vec<AtomicUsize>,
    /// Each entry's tests not yet done.
    remaining: Vec<AtomicUsize>,
    /// A scored problem's tests found skippable so far (see `crate::score::Skip`): from what is
    /// known of the tests before them, which only grows, so the replay in order skips them too.
    skipped: Vec<Mutex<Vec<Option<Skip>>>>,
}

impl<'j, 'a, 'r> Pieces<'j, 'a, 'r> {
    fn new(judging: &'j Judging<'a, 'r>, built: Vec<Built>, jobs: bool) -> Self {
        let (entries, tests) = (judging.entries, judging.tests);
        let built_ones: Vec<bool> = built.iter().map(Option::is_some).collect();
        let items = pieces(entries, &built_ones, tests, jobs);
        let per_entry =
            |make: &dyn Fn() -> usize| entries.iter().map(|_| AtomicUsize::new(make())).collect();
        Pieces {
            judging,
            built,
            items,
            results: entries
                .iter()
                .map(|_| Mutex::new(vec![None; tests]))
                .collect(),
            failed_at: per_entry(&|| usize::MAX),
            remaining: per_entry(&|| tests),
            skipped: entries
                .iter()
                .map(|_| Mutex::new(vec![None; tests]))
                .collect(),
        }
    }

    /// Whether entry `i` skips the tests that cannot change its score (a scored problem, judged
    /// to the first failure, with no requirements on its tests).
    fn skipping(&self, i: usize) -> bool {
        let o = &self.judging.entries[i].options;
        self.judging.problem.scoring.is_some() && !o.all && o.rules.is_empty()
    }

    /// Marks the tests of entry `i` after `from` that can now be skipped, and drops their events.
    fn mark_skippable(&self, i: usize, from: usize) {
        let Some(scoring) = self
            .judging
            .problem
            .scoring
            .as_ref()
            .filter(|_| self.skipping(i))
        else {
            return;
        };
        let done = self.results[i]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut fakes = self.skipped[i].lock().unwrap_or_else(|e| e.into_inner());
        for u in from..self.judging.tests {
            if fakes[u].is_some() {
                continue;
            }
            let known: Vec<Option<TestOutcome>> = (0..u)
                .map(|k| match (&done[k], &fakes[k]) {
                    (_, Some(skip)) => Some(skip.outcome()),
                    (Some(r), None) => Some(TestOutcome {
                        verdict: r.verdict,
                        reported: r.checker_score,
                    }),
                    (None, None) => None,
                })
                .collect();
            if let Some(skip) = scoring.skip(u, &known) {
                fakes[u] = Some(skip);
                let slot = self.judging.test_slot(i, u);
                self.judging.ordered.drop_range(slot..slot + 1);
            }
        }
    }

    /// Piece `k`: its tests, each unless the entry failed before it or it can be skipped.
    fn work(&self, engine: &mut Engine, k: usize) {
        let (i, range) = &self.items[k];
        let i = *i;
        let options = &self.judging.entries[i].options;
        for t in range.clone() {
            let result = if options.alone {
                engine.alone(|engine| self.judge_test(engine, i, t))
            } else {
                self.judge_test(engine, i, t)
            };
            if let Some(r) = &result {
                self.results[i].lock().unwrap_or_else(|e| e.into_inner())[t] = Some(r.clone());
                // Before this slot is done, so none of the dropped ones is being released.
                self.mark_skippable(i, t + 1);
            }
            self.judging.ordered.done(self.judging.test_slot(i, t));
            if self.remaining[i].fetch_sub(1, Ordering::SeqCst) == 1 {
                self.judging.finish(i, Ok(self.report(engine, i)));
            }
        }
    }

    /// Every test of a scored problem is judged (`Engine::judge`); so are all with `--all`,
    /// or with requirements on some tests.
    fn all(&self, i: usize) -> bool {
        let options = &self.judging.entries[i].options;
        options.all || self.judging.problem.scoring.is_some() || !options.rules.is_empty()
    }

    /// Whether test `t` of entry `i` is still to be judged.
    fn needed(&self, i: usize, t: usize) -> bool {
        let skip = self.skipped[i].lock().unwrap_or_else(|e| e.into_inner())[t].is_some();
        !skip && (self.all(i) || self.failed_at[i].load(Ordering::SeqCst) > t)
    }

    /// Judges test `t` of entry `i` (checked again after waiting for the others: `alone`).
    fn judge_test(&self, engine: &mut Engine, i: usize, t: usize) -> Option<TestResult> {
        if !self.needed(i, t) {
            return None;
        }
        let judging = self.judging;
        let problem = judging.problem(i);
        let test = &problem.tests[t];
        let id = TestId {
            index: t + 1,
            name: test.name.clone(),
        };
        let (artifact, _) = self.built[i]
            .as_ref()
            .expect("only built entries have tests");
        let mut slot = judging.ordered.slot(judging.test_slot(i, t));
        let r = engine.judge_test(
            problem,
            judging.checker,
            artifact,
            test,
            id,
            judging.tests,
            &judging.ids[i],
            &|| self.needed(i, t),
            &mut slot,
        );
        if r.verdict != Verdict::AC && !self.all(i) {
            self.failed_at[i].fetch_min(t, Ordering::SeqCst);
            // Before this slot is done, so none of the dropped ones is being released.
            judging
                .ordered
                .drop_range(judging.test_slot(i, t + 1)..judging.finish_slot(i));
        }
        Some(r)
    }

    /// Entry `i`'s report once its last test is done, as one job would have made it.
    fn report(&self, engine: &mut Engine, i: usize) -> SubmissionReport {
        let problem = self.judging.problem;
        let (_, compile) = self.built[i].as_ref().expect("built");
        let mut report = SubmissionReport::new(Verdict::AC, compile.clone());
        let done = std::mem::take(&mut *self.results[i].lock().unwrap_or_else(|e| e.into_inner()));
        for (t, r) in done.into_iter().enumerate() {
            // Skipped as one job would have skipped it (a result judged ahead is dropped with
            // its events).
            if self.skipping(i) && report.skips(problem, t) {
                continue;
            }
            let Some(r) = r else { break };
            if !report.record(r, self.all(i)) {
                break;
            }
        }
        engine.score(&mut report, problem);
        report
    }
}

/// The pieces of work of the built entries (`built[i]`), each an entry and a range of its
/// tests, in the order they are taken (see [`Pieces`]); with several `jobs` the ones run alone
/// go first, then the ones expected to run out of time.
fn pieces(
    entries: &[Submission],
    built: &[bool],
    tests: usize,
    jobs: bool,
) -> Vec<(usize, Range<usize>)> {
    let mut order: Vec<usize> = (0..entries.len()).filter(|&i| built[i]).collect();
    if jobs {
        order.sort_by_key(|&i| (!entries[i].options.alone, !expects_tle(&entries[i])));
    }
    order
        .iter()
        .flat_map(|&i| {
            // One piece of all the tests, or one piece per test.
            let step = if entries[i].options.alone || expects_tle(&entries[i]) {
                tests.max(1)
            } else {
                1
            };
            (0..tests)
                .step_by(step)
                .map(move |t| (i, t..(t + step).min(tests)))
        })
        .collect()
}

/// An entry expected to run out of time (its first expected verdict is TLE).
fn expects_tle(entry: &Submission) -> bool {
    entry.options.expected.first() == Some(&Verdict::TLE)
}

#[cfg(test)]
mod tests;
