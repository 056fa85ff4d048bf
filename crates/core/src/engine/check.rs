//! Checking a test's output: a built-in checker in the judge, a custom checker or Kattis
//! output validator in the sandbox (its feedback folder, its score).

use super::*;

impl Engine {
    /// Checks one output. `Err` is a checker failure (a judge error).
    pub fn check(
        &mut self,
        checker: &Checker,
        input: &Path,
        output: &Path,
        answer: &Path,
    ) -> Result<checker::Outcome, String> {
        self.check_with(checker, input, output, answer, &[])
    }

    /// Checks one output with the test's checker arguments (the Kattis default validator's
    /// flags, or extra arguments of a Kattis validator).
    pub fn check_with(
        &mut self,
        checker: &Checker,
        input: &Path,
        output: &Path,
        answer: &Path,
        args: &[String],
    ) -> Result<checker::Outcome, String> {
        match checker {
            Checker::Interactive(i) => self.check_with(&i.checker, input, output, answer, args),
            Checker::Builtin(checker::Builtin::Kattis(_)) if !args.is_empty() => {
                let flags = crate::package::kattis::default_flags(args)
                    .map_err(|e| format!("output validator arguments: {e}"))?;
                checker::check(&checker::Builtin::Kattis(flags), output, answer)
                    .map_err(|e| format!("checker failed: {e}"))
            }
            Checker::Builtin(kind) => {
                checker::check(kind, output, answer).map_err(|e| format!("checker failed: {e}"))
            }
            Checker::Custom(artifact, Protocol::Kattis, source) => {
                self.kattis_validate(artifact, source, input, output, answer, args)
            }
            Checker::Custom(artifact, Protocol::Testlib, source) => {
                // The checker runs in its own working folder: hand it absolute paths.
                let files = [absolute(input), absolute(output), absolute(answer)];
                let args: Vec<OsString> = files.iter().map(|p| p.as_os_str().to_owned()).collect();
                let JuryRun {
                    outcome: run,
                    stderr,
                    ..
                } = self
                    .run_jury(
                        artifact,
                        &args,
                        None,
                        &files,
                        checker_limits(),
                        Keep::stderr(STDERR_CAP),
                    )
                    .map_err(|e| format!("could not run the checker: {e}"))?;
                if run.cpu_limit_exceeded || run.wall_limit_exceeded || run.memory_limit_exceeded {
                    return Err("the checker exceeded its limits".to_string());
                }
                // A crash (a signal, or a traceback, panic or abort on stderr) says nothing of
                // the output, whatever its exit code means to testlib (a Python exception
                // exits 1, testlib's WA).
                let who = format!("the checker `{}`", file_name(source));
                let named = build::name_source(&stderr, artifact, source);
                if let Some(crash) = checker::crash::report(&who, run.termination, &named) {
                    return Err(format!("checker failure: {crash}"));
                }
                let code = match run.termination {
                    judge_sandbox::Termination::Exited(c) => Some(c),
                    judge_sandbox::Termination::Signaled(_) => None,
                };
                checker::testlib_exit(code, &stderr).map_err(|why| {
                    format!(
                        "checker failure ({}): {why}",
                        termination_text(run.termination)
                    )
                })
            }
        }
    }

    /// The Kattis protocol: `validator input answer feedback_dir [args] < output`; 42 accepts,
    /// 43 rejects, anything else (0 too) is a judge error. The message is the start of
    /// `feedback_dir/judgemessage.txt`; a scoring validator's `score.txt` (or
    /// `score_multiplier.txt`) is the test's score.
    fn kattis_validate(
        &mut self,
        artifact: &Artifact,
        source: &Path,
        input: &Path,
        output: &Path,
        answer: &Path,
        extra: &[String],
    ) -> Result<checker::Outcome, String> {
        let feedback = self
            .fresh_dir("feedback")
            .map_err(|e| format!("could not run the output validator: {e}"))?;
        let result =
            self.kattis_validate_in(artifact, source, input, output, answer, extra, &feedback);
        let _ = std::fs::remove_dir_all(&feedback);
        let (outcome, next) = result?;
        if next {
            return Err("the output validator wrote nextpass.in, but the problem is not multi-pass (problem.yaml `type`)".into());
        }
        Ok(outcome)
    }

    /// [`Engine::kattis_validate`] in a feedback folder the caller keeps (a multi-pass test's,
    /// the same for every pass); also whether the validator asks for another pass
    /// (`nextpass.in` with an accepting exit).
    #[expect(clippy::too_many_arguments, reason = "one validator run and its files")]
    pub(super) fn kattis_validate_in(
        &mut self,
        artifact: &Artifact,
        source: &Path,
        input: &Path,
        output: &Path,
        answer: &Path,
        extra: &[String],
        feedback: &Path,
    ) -> Result<(checker::Outcome, bool), String> {
        let files = [absolute(input), absolute(answer)];
        let mut args: Vec<OsString> = files.iter().map(|p| p.as_os_str().to_owned()).collect();
        let mut dir_arg = absolute(feedback).into_os_string();
        dir_arg.push("/");
        args.push(dir_arg);
        args.extend(extra.iter().map(OsString::from));
        let ran = self.execute_in(
            artifact,
            &args,
            Some(output),
            &files,
            checker_limits(),
            Some(feedback),
        );
        let read = |name: &str| build::read_capped(&feedback.join(name), STDERR_CAP as usize);
        let (run, out, err) =
            ran.map_err(|e| format!("could not run the output validator: {e}"))?;
        let stderr = build::read_capped(&err, STDERR_CAP as usize);
        let stdout = build::read_capped(&out, STDERR_CAP as usize);
        self.recycle(out, err);
        // judgemessage.txt's first line that says something; else the last of stderr (where
        // validators write their progress first and the reason last, as BAPCtools'
        // validation.h does), else the last of stdout (some write only there).
        let message = checker::first_line(&read("judgemessage.txt"))
            .or_else(|| checker::last_line(&stderr))
            .or_else(|| checker::last_line(&stdout))
            .unwrap_or_default();
        if run.cpu_limit_exceeded || run.wall_limit_exceeded || run.memory_limit_exceeded {
            return Err("the output validator exceeded its limits".to_string());
        }
        let code = match run.termination {
            judge_sandbox::Termination::Exited(c) => Some(c),
            judge_sandbox::Termination::Signaled(_) => None,
        };
        // A crash signature on stderr is a crash whatever the exit code (a signal already is).
        if let judge_sandbox::Termination::Exited(_) = run.termination {
            let who = format!("the output validator `{}`", file_name(source));
            let named = build::name_source(&stderr, artifact, source);
            if let Some(crash) = checker::crash::report(&who, run.termination, &named) {
                return Err(format!("output validator failure: {crash}"));
            }
        }
        let next = feedback.join("nextpass.in").is_file();
        let mut outcome = checker::kattis_exit(code, &message).map_err(|why| {
            format!(
                "output validator failure ({}): {why}",
                termination_text(run.termination)
            )
        })?;
        if next && outcome.judgement != Judgement::Accepted {
            return Err("the output validator wrote nextpass.in but did not accept (exit 43): a judge error".into());
        }
        if outcome.judgement == Judgement::Accepted {
            outcome.score = reported_score(feedback)?;
        }
        Ok((outcome, next))
    }
}

/// A program's file name, as its failures name it.
pub(crate) fn file_name(source: &Path) -> String {
    source
        .file_name()
        .unwrap_or(source.as_os_str())
        .to_string_lossy()
        .into_owned()
}

/// A Kattis validator's score for an accepted test: `score.txt` or `score_multiplier.txt` in
/// its feedback folder (both, or one that is not a number, is a judge error).
pub(crate) fn reported_score(feedback: &Path) -> Result<Option<Reported>, String> {
    let read = |name: &str| -> Result<Option<f64>, String> {
        let path = feedback.join(name);
        if !path.is_file() {
            return Ok(None);
        }
        let text = build::read_capped(&path, 256);
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "the output validator's {name} holds `{}`, not a number",
                    text.trim()
                )
            })
    };
    match (read("score.txt")?, read("score_multiplier.txt")?) {
        (Some(_), Some(_)) => {
            Err("the output validator wrote both score.txt and score_multiplier.txt".into())
        }
        (Some(s), None) => Ok(Some(Reported::Score(s))),
        (None, Some(m)) => Ok(Some(Reported::Multiplier(m))),
        (None, None) => Ok(None),
    }
}
