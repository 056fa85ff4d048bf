//! Multi-pass tests (Kattis `multi-pass`): the solution runs again on each `nextpass.in` its
//! output validator writes.

use super::{capture_head, capture_tail, classify_run, solution_limits, Checker, Engine};
use crate::build::Artifact;
use crate::package::{Problem, Protocol, TestCase};
use judge_model::result::TestResult;
use judge_model::Verdict;

impl Engine {
    /// A multi-pass test (Kattis `multi-pass`): the solution runs on the test's input, then on
    /// each `nextpass.in` its output validator writes (exit 42), at most `passes` times, each
    /// pass under the solution's limits. The validator gets the pass's input (as BAPCtools
    /// gives it: `nextpass.in` moved into the input's place), the test's answer and the pass's
    /// output; its feedback folder lasts the whole test.
    pub(super) fn run_passes(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        artifact: &Artifact,
        test: &TestCase,
        passes: u32,
        mut result: TestResult,
    ) -> TestResult {
        let Checker::Custom(validator, Protocol::Kattis, source) = checker else {
            result.message = "a multi-pass problem needs a Kattis output validator".into();
            return result;
        };
        let (feedback, inputs) = match (self.fresh_dir("feedback"), self.fresh_dir("passes")) {
            (Ok(f), Ok(i)) => (f, i),
            (Err(e), _) | (_, Err(e)) => {
                result.message = format!("could not prepare the passes: {e}");
                return result;
            }
        };
        let limits = solution_limits(problem);
        let mut input = test.input.clone();
        let mut alone = true;
        for pass in 1..=passes {
            result.passes = Some(pass);
            let (run, stdout, stderr) =
                match self.execute(artifact, &[], Some(&input), &[], limits.clone()) {
                    Ok(r) => r,
                    Err(e) => {
                        result.verdict = Verdict::JE;
                        result.message = format!("could not run the solution (pass {pass}): {e}");
                        break;
                    }
                };
            alone &= self.last_alone;
            // The last pass that ran is the one to show.
            result.stdout = Some(capture_head(&stdout, self.capture));
            result.stderr = Some(capture_tail(&stderr, self.capture));
            // Limits hold per pass: the slowest pass is the one to show.
            result.time = result.time.max(run.cpu_time);
            result.wall = result.wall.max(run.wall_time);
            result.memory = result.memory.max(run.peak_memory);
            if let Some((verdict, message)) = classify_run(&run, limits.memory) {
                result.verdict = verdict;
                result.message = format!("pass {pass}: {message}");
                self.recycle(stdout, stderr);
                break;
            }
            let _ = std::fs::remove_file(feedback.join("nextpass.in"));
            let checked = self.kattis_validate_in(
                validator,
                source,
                &input,
                &stdout,
                &test.answer,
                &test.checker_args,
                &feedback,
            );
            self.recycle(stdout, stderr);
            match checked {
                Err(why) => {
                    result.verdict = Verdict::JE;
                    result.message = format!("pass {pass}: {why}");
                    break;
                }
                Ok((outcome, true)) if pass < passes => {
                    let next = inputs.join(format!("pass-{}.in", pass + 1));
                    if let Err(e) = std::fs::rename(feedback.join("nextpass.in"), &next) {
                        result.verdict = Verdict::JE;
                        result.message = format!("pass {pass}: cannot take nextpass.in: {e}");
                        break;
                    }
                    input = next;
                    result.message = outcome.message;
                }
                Ok((_, true)) => {
                    result.verdict = Verdict::JE;
                    result.message = format!(
                        "the output validator asks for pass {} but the problem allows {passes} (limits.validation_passes)",
                        pass + 1
                    );
                    break;
                }
                Ok((outcome, false)) => {
                    result.verdict = outcome.judgement.verdict();
                    result.message = if outcome.message.is_empty() || passes == 1 {
                        outcome.message
                    } else {
                        format!("pass {pass}: {}", outcome.message)
                    };
                    result.checker_score = outcome.score;
                    break;
                }
            }
        }
        let _ = std::fs::remove_dir_all(&feedback);
        let _ = std::fs::remove_dir_all(&inputs);
        self.last_alone = alone;
        result
    }
}
