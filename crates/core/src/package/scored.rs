//! Where a problem's scoring meets a submission's report: what the evaluation sees of the
//! judged tests, which tests need not be judged, and the score.

use super::Problem;
use crate::score::{Grader, TestOutcome};
use judge_model::result::{SkippedTest, SubmissionReport, TestResult};
use judge_model::Verdict;

/// The scoring a problem gives a submission's report: what the evaluation sees of its tests,
/// which tests need not be judged, and the score. (The report is data in `judge_model`; this
/// is where the problem's [`Scoring`] meets it.)
pub trait Scored {
    /// The outcomes of the problem's tests judged or skipped so far, by index (`None`: not
    /// judged).
    fn outcomes(&self, problem: &Problem) -> Vec<Option<TestOutcome>>;
    /// Whether test `index` of a scored problem can be skipped given the tests so far (judging
    /// to the first failure, as `verify` and `run` do without `--all`); records it if so.
    fn skips(&mut self, problem: &Problem, index: usize) -> bool;
    /// A scored problem's score from the judged tests (which are the problem's, in order); with
    /// a Kattis legacy grader, the verdict is the graded one; `grader` runs the package's own
    /// (`grading: custom`). Nothing for a pass-fail problem or a solution that does not
    /// compile.
    fn score_with(&mut self, problem: &Problem, grader: &mut dyn Grader);
}

impl Scored for SubmissionReport {
    fn outcomes(&self, problem: &Problem) -> Vec<Option<TestOutcome>> {
        let judged: std::collections::HashMap<&str, &TestResult> =
            self.tests.iter().map(|t| (t.name.as_str(), t)).collect();
        let mut out: Vec<Option<TestOutcome>> = problem
            .tests
            .iter()
            .map(|test| {
                judged.get(test.name.as_str()).map(|t| TestOutcome {
                    verdict: t.verdict,
                    reported: t.checker_score,
                })
            })
            .collect();
        for s in &self.skipped {
            if let Some(slot) = out.get_mut(s.index) {
                *slot = Some(TestOutcome {
                    verdict: s.stand_in,
                    reported: None,
                });
            }
        }
        out
    }

    fn skips(&mut self, problem: &Problem, index: usize) -> bool {
        let Some(scoring) = &problem.scoring else {
            return false;
        };
        let Some(skip) = scoring.skip(index, &self.outcomes(problem)) else {
            return false;
        };
        self.skipped.push(SkippedTest {
            name: problem.tests[index].name.clone(),
            why: skip.why,
            index,
            stand_in: skip.verdict,
        });
        true
    }

    fn score_with(&mut self, problem: &Problem, grader: &mut dyn Grader) {
        let Some(scoring) = &problem.scoring else {
            return;
        };
        if self.verdict == Verdict::CE {
            return;
        }
        let score = scoring.evaluate_with(&self.outcomes(problem), grader);
        if scoring.graded_verdict || score.verdict == Verdict::JE {
            self.verdict = score.verdict;
        }
        self.score = Some(score.score);
        self.max_score = score.max_score;
        self.groups = score.groups;
    }
}
