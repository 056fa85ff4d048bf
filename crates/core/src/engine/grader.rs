//! The package's own grader (Kattis legacy `graders/`, for groups with `grading: custom`): built
//! once per engine (by `prepare_checker`, or at the first score another job makes), run in the
//! sandbox under the jury's limits with the group's `grader_flags` as arguments and its items'
//! `VERDICT SCORE` lines on stdin (`crate::score::grader` holds the protocol). A grader that
//! crashes, exits other than 0 or runs out of its limits is a judge error naming it.

use super::*;
use crate::score::Grader;

/// A built grader: the artifact, or why it could not be built (told as the group's judge
/// error), by the grader's source.
pub(crate) type Built = (PathBuf, Result<Artifact, String>);

/// What the grader's stdout may hold (one short line is due).
const GRADER_STDOUT_CAP: u64 = 4096;

impl Engine {
    /// Builds the problem's grader if it has one and this engine has not built it yet; a
    /// grader that does not compile is an error naming it.
    pub(crate) fn prepare_grader(&mut self, problem: &Problem) -> Result<(), EngineError> {
        let Some(program) = &problem.grader else {
            return Ok(());
        };
        if self
            .grader
            .as_ref()
            .is_some_and(|(source, _)| *source == program.source)
        {
            return Ok(());
        }
        let built = match self.build_program_with(program, &problem.constants)? {
            (Some(artifact), _) => artifact,
            (None, report) => {
                return Err(EngineError::GraderCompile {
                    path: program.source.clone(),
                    message: report.message,
                })
            }
        };
        self.grader = Some((program.source.clone(), Ok(built)));
        Ok(())
    }

    /// `report`'s score on `problem` (`crate::package::Scored::score_with`), running the
    /// package's grader where a group asks for it.
    pub(crate) fn score(&mut self, report: &mut SubmissionReport, problem: &Problem) {
        let Some(program) = &problem.grader else {
            report.score_with(problem, &mut crate::score::NoGrader);
            return;
        };
        if let Err(e) = self.prepare_grader(problem) {
            self.grader = Some((program.source.clone(), Err(e.to_string())));
        }
        let who = format!("the grader `{}`", shown(&program.source, &problem.dir));
        let mut running = Running { engine: self, who };
        report.score_with(problem, &mut running);
    }
}

/// The grader as it runs for one score.
struct Running<'e> {
    engine: &'e mut Engine,
    who: String,
}

impl Grader for Running<'_> {
    fn who(&self) -> String {
        self.who.clone()
    }

    fn run(&mut self, flags: &[String], input: &str) -> Result<String, String> {
        let who = &self.who;
        let (source, artifact) = match &self.engine.grader {
            Some((source, Ok(a))) => (source.clone(), a.clone()),
            Some((_, Err(why))) => return Err(format!("{who} could not be built: {why}")),
            None => return Err(format!("{who} was not built")),
        };
        let dir = self
            .engine
            .fresh_dir("grader")
            .map_err(|e| format!("could not run {who}: {e}"))?;
        let stdin = dir.join("results");
        let ran = std::fs::write(&stdin, input)
            .map_err(|e| EngineError::Work {
                path: stdin.clone(),
                source: e,
            })
            .and_then(|()| {
                let args: Vec<OsString> = flags.iter().map(OsString::from).collect();
                self.engine.run_jury(
                    &artifact,
                    &args,
                    Some(&stdin),
                    &[],
                    checker_limits(),
                    Keep {
                        stdout: Some(GRADER_STDOUT_CAP),
                        stderr: STDERR_CAP,
                    },
                )
            });
        let _ = std::fs::remove_dir_all(&dir);
        let JuryRun {
            outcome,
            stdout,
            stderr,
        } = ran.map_err(|e| format!("could not run {who}: {e}"))?;
        if outcome.cpu_limit_exceeded || outcome.wall_limit_exceeded {
            return Err(format!("{who} exceeded its time limit"));
        }
        if outcome.memory_limit_exceeded {
            return Err(format!("{who} exceeded its memory limit"));
        }
        let named = build::name_source(&stderr, &artifact, &source);
        if let Some(crash) = checker::crash::report(who, outcome.termination, &named) {
            return Err(crash);
        }
        if outcome.termination != judge_sandbox::Termination::Exited(0) {
            let mut text = format!(
                "{who} failed ({}; a grader exits 0)",
                termination_text(outcome.termination)
            );
            let lines: Vec<&str> = named.lines().collect();
            for line in checker::crash::tail(&lines) {
                text.push_str("\n    ");
                text.push_str(&line);
            }
            return Err(text);
        }
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    }
}

/// The grader's path inside the package (`graders/min.py`), else as given.
fn shown(source: &Path, package: &Path) -> String {
    source
        .strip_prefix(package)
        .unwrap_or(source)
        .display()
        .to_string()
}
