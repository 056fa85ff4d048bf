//! A package without a time limit (Kattis' rule): the accepted solutions give it. They are
//! judged as they will be reported, spread over the jobs, and those runs are kept as their
//! results instead of judging them a second time. With several jobs every other solution is
//! judged at the same time with the lowest limit the package's rule can derive (Kattis never
//! derives less than 1 s), the ones expected to run out of time first, and kept when the limit
//! comes out at that; otherwise they are judged again with the limit.
//!
//! Honest timings: a limit measured beside other jobs that a factor 1.5 could change
//! (`time_limit::steady`) is measured again with one job, alone; a kept accepted run is one
//! whose every test took less than the limit / 1.5 (so no verdict of it is near the limit).

use super::*;
use crate::engine::Checker;
use crate::judging::Prejudged;
use crate::setter::time_limit::{self, measured_for_limit};
use judge_model::event::{Collect, RunId};
use judge_model::result::SubmissionReport;

/// What deriving the limit works on.
pub(super) struct Deriving<'a> {
    pub problem: &'a mut Problem,
    pub checker: &'a Checker,
    pub id: &'a str,
    pub check: &'a mut ProblemCheck,
}

/// How an entry is judged while the limit is derived.
#[derive(Clone, Copy, PartialEq)]
enum Early {
    /// Measured for the limit (an accepted solution), with a generous limit.
    Measured,
    /// Judged with the lowest limit the rule allows, kept if the limit comes out at that.
    Lowest,
}

impl Deriving<'_> {
    /// Derives the limit (`problem.limits.time`, announced in a note) and returns what can be
    /// kept of the runs that derived it, per entry of `submissions` (whose run ids it fixes, so
    /// the kept events and the final `solution_finished` share one).
    pub fn derive(
        &mut self,
        engines: &mut [&mut Engine],
        submissions: &mut [Submission],
        reporter: &mut dyn Reporter,
    ) -> Vec<Option<Prejudged>> {
        step(
            reporter,
            self.id,
            "Deriving",
            "the time limit from the accepted solutions",
        );
        let problem = &*self.problem;
        let several = engines.len() > 1;
        let lowest = time_limit::lowest(problem);
        let measured_path = |path: &Path| {
            problem
                .solutions
                .iter()
                .any(|s| s.path == path && measured_for_limit(s))
        };
        let mut notes = Vec::new();
        let early: Vec<Option<Early>> = submissions
            .iter()
            .map(|s| match (&s.skip, measured_path(&s.source)) {
                (Some(Event::SolutionSkipped { reason, .. }), true) => {
                    notes.push(format!(
                        "{}: not measured: {reason}",
                        rel(problem, &s.source)
                    ));
                    None
                }
                (Some(_), _) => None,
                (None, true) => Some(Early::Measured),
                (None, false) if several => Some(Early::Lowest),
                (None, false) => None,
            })
            .collect();
        for s in submissions.iter_mut() {
            s.run = Some(RunId::next());
        }
        let (positions, entries): (Vec<usize>, Vec<Submission>) = submissions
            .iter()
            .zip(&early)
            .enumerate()
            .filter_map(|(i, (s, e))| {
                let limit = match (*e)? {
                    Early::Measured => time_limit::measuring(problem).limits.time,
                    Early::Lowest => lowest,
                };
                Some((
                    i,
                    Submission {
                        source: s.source.clone(),
                        options: s.options.clone(),
                        skip: None,
                        limit: Some(limit),
                        run: s.run,
                    },
                ))
            })
            .unzip();
        let mut events = Collect::default();
        // Outcomes are `None` only for a skipped entry, and none is skipped here.
        let mut outcomes =
            crate::jobs::judge_solutions(engines, problem, self.checker, &entries, &mut events);

        // The limit, from the measured ones.
        let mut measured = Vec::new();
        let mut broken = None;
        for (k, &i) in positions.iter().enumerate() {
            if early[i] != Some(Early::Measured) {
                continue;
            }
            let name = rel(problem, &submissions[i].source);
            match &outcomes[k] {
                Some(Err(e)) if !time_limit::unavailable(e) => {
                    broken.get_or_insert_with(|| e.to_string());
                }
                Some(outcome) => measured.push((time_limit::measure(&name, outcome), name)),
                None => {}
            }
        }
        if let Some(why) = broken {
            // As a failed measure always was: the package's default limit stays, nothing kept.
            self.check.findings.push(Finding::broken(why));
            return Vec::new();
        }
        let slowest = measured
            .iter()
            .filter_map(|(m, _)| m.as_ref().ok().copied())
            .max();
        let mut derived = time_limit::conclude(problem, measured, notes);
        if let (true, Some(slowest)) = (several, slowest) {
            if !time_limit::steady(problem, slowest) {
                // Measured beside other jobs, and near a step of the rule: measured again alone.
                let checker = self.checker;
                match engines[0].alone(|e| time_limit::derive(e, problem, checker, false)) {
                    Ok(alone) => derived = alone,
                    Err(e) => {
                        self.check.findings.push(Finding::broken(e.to_string()));
                        return Vec::new();
                    }
                }
            }
        }
        for message in std::mem::take(&mut derived.notes) {
            note(reporter, self.id, message);
        }
        // Without a measured limit the package's default stays, unannounced.
        if derived.limit.is_some() {
            note(reporter, self.id, derived.apply(self.problem));
        }
        let problem = &*self.problem;

        // What can be kept, with its events.
        let mut kept: Vec<Option<Prejudged>> = submissions.iter().map(|_| None).collect();
        for (k, &i) in positions.iter().enumerate() {
            let Some(outcome) = outcomes[k].take() else {
                continue;
            };
            let keep = match early[i] {
                Some(Early::Measured) => match &outcome {
                    Ok(report) => clear_of_limit(report, problem),
                    Err(e) => time_limit::unavailable(e),
                },
                Some(Early::Lowest) => {
                    let as_judged = crate::jobs::with_limit(problem, lowest);
                    problem.limits.time == as_judged.limits.time
                        && problem.limits.wall == as_judged.limits.wall
                }
                None => false,
            };
            if !keep {
                continue;
            }
            let solution = submissions[i].source.display().to_string();
            let events = events
                .0
                .iter()
                .filter(|e| of_judging(e, &solution))
                .cloned()
                .collect();
            kept[i] = Some(Prejudged {
                events,
                result: outcome,
            });
        }
        kept
    }
}

/// Whether a report judged with a generous limit is what the limit would give: every test took
/// less than the limit / 1.5 of CPU time and the wall limit / 1.5 of wall time (so none is near
/// the limit, and none would be a TLE).
fn clear_of_limit(report: &SubmissionReport, problem: &Problem) -> bool {
    let (time, wall) = (problem.limits.time, problem.limits.wall);
    report
        .tests
        .iter()
        .all(|t| t.verdict != Verdict::TLE && t.time * 3 < time * 2 && t.wall * 3 < wall * 2)
}

/// An event of `solution`'s judging before its `solution_finished` (which the judging that
/// keeps it reports).
fn of_judging(event: &Event, solution: &str) -> bool {
    match event {
        Event::CompileStarted { solution: s, .. }
        | Event::CompileFinished { solution: s, .. }
        | Event::TestStarted { solution: s, .. }
        | Event::TestFinished { solution: s, .. }
        | Event::Rejudged { solution: s, .. } => s == solution,
        _ => false,
    }
}

/// The package's path of `path`, as notes name it.
fn rel(problem: &Problem, path: &Path) -> String {
    path.strip_prefix(&problem.dir)
        .unwrap_or(path)
        .display()
        .to_string()
}
