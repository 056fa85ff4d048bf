//! Interactive multi-pass tests (Kattis `type: [interactive, multi-pass]`): the solution and
//! the interactor talk again for each `nextpass.in` the interactor writes when it accepts. The
//! interactor gets that file as its input in the next pass, and the same feedback folder all
//! along; the solution starts afresh each pass, under its limits each time.

use super::absolute;
use crate::engine::Engine;
use crate::package::TestCase;
use judge_model::result::TestResult;
use judge_model::Verdict;
use std::path::Path;

/// Runs `pass` (one exchange on an input) up to `passes` times, as the interactor asks; the
/// test's time, wall time and memory are its slowest pass's, its verdict the last pass's.
pub(super) fn run(
    engine: &mut Engine,
    mut pass: impl FnMut(&mut Engine, &Path, &mut TestResult) -> Result<(), String>,
    test: &TestCase,
    work: &Path,
    feedback: &Path,
    passes: u32,
    result: &mut TestResult,
) -> Result<(), String> {
    let next = feedback.join("nextpass.in");
    let mut input = absolute(&test.input);
    for n in 1..=passes {
        let _ = std::fs::remove_file(&next);
        let mut this = result.clone();
        this.transcript = None;
        let judged = pass(engine, &input, &mut this);
        result.passes = Some(n);
        result.time = result.time.max(this.time);
        result.wall = result.wall.max(this.wall);
        result.memory = result.memory.max(this.memory);
        if let Some(t) = this.transcript.take() {
            result
                .transcript
                .get_or_insert_with(Default::default)
                .append_pass(*t);
        }
        judged.map_err(|e| format!("pass {n}: {e}"))?;
        let asks = next.is_file();
        let label = |message: &str| match (passes, message.is_empty()) {
            (_, true) => String::new(),
            (1, false) => message.to_string(),
            _ => format!("pass {n}: {message}"),
        };
        result.checker_score = this.checker_score;
        result.mismatch = this.mismatch;
        match this.verdict {
            Verdict::AC if asks && n == passes => {
                return Err(format!(
                    "the interactor asks for pass {} but the problem allows {passes} (limits.validation_passes)",
                    n + 1
                ));
            }
            Verdict::AC if asks => {
                let moved = work.join(format!("pass-{}.in", n + 1));
                std::fs::rename(&next, &moved)
                    .map_err(|e| format!("pass {n}: cannot take nextpass.in: {e}"))?;
                input = moved;
                result.verdict = Verdict::AC;
                result.message = label(&this.message);
            }
            Verdict::WA | Verdict::PE if asks => {
                return Err(format!(
                    "pass {n}: the interactor wrote nextpass.in but did not accept (exit 43): a judge error"
                ));
            }
            verdict => {
                result.verdict = verdict;
                result.message = label(&this.message);
                return Ok(());
            }
        }
    }
    Ok(())
}
