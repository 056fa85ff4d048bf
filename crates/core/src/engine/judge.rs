//! Judging a submission: its build, then each test in order (stopping at the first failure
//! unless told otherwise), re-judged alone when a verdict near the limit shared the CPUs, and
//! the `solution_finished` event.

use super::programs::is_driver;
use super::*;

impl Engine {
    /// Judges one solution on every test of the problem, emitting `compile_*`, `test_*` and
    /// finally `solution_finished` (also when it cannot be judged: then with the error).
    pub fn judge(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        source: &Path,
        options: JudgeOptions,
        reporter: &mut dyn Reporter,
    ) -> Result<SubmissionReport, EngineError> {
        let ids = Ids {
            problem: problem.slug.clone(),
            solution: source.display().to_string(),
            run: RunId::next(),
        };
        let result = self.judge_inner(problem, checker, source, &options, &ids, reporter);
        solution_finished(ids, &options, &result, reporter);
        result
    }

    /// Builds a solution, emitting `compile_started` and `compile_finished`. Its executable
    /// may be as large as the memory it may use (the jury's programs keep the usual cap).
    pub(crate) fn compile_for(
        &mut self,
        problem: &Problem,
        ids: &Ids,
        source: &Path,
        reporter: &mut dyn Reporter,
    ) -> Result<(Option<Artifact>, CompileReport), EngineError> {
        let files = problem.limits.memory.max(build::BUILD_FILES);
        let usual = std::mem::replace(&mut self.build_files, files);
        let built = self.compile_submission(problem, ids, source, reporter);
        self.build_files = usual;
        built
    }

    fn compile_submission(
        &mut self,
        problem: &Problem,
        ids: &Ids,
        source: &Path,
        reporter: &mut dyn Reporter,
    ) -> Result<(Option<Artifact>, CompileReport), EngineError> {
        reporter.event(&Event::CompileStarted {
            problem: ids.problem.clone(),
            solution: ids.solution.clone(),
            run: ids.run,
        });
        let included = problem.included_files(source);
        // The package's own submissions see its constants (Kattis 2025-09).
        let own = !problem.constants.is_empty() && source.starts_with(&problem.dir);
        let entrypoint = problem.entrypoint_of(source);
        let (artifact, compile) = if included.is_empty() && !own && entrypoint.is_none() {
            self.build(source)?
        } else {
            // Kattis `include/`: the package's files beside the submission's, theirs winning.
            let named_main = entrypoint.is_some();
            let mut program = if let Some(main) = entrypoint {
                // The package's main file, every other file of the folder beside it.
                let mut files: Vec<PathBuf> = std::fs::read_dir(source)
                    .map_err(|e| BuildError::Source {
                        path: source.to_path_buf(),
                        source: e,
                    })?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file() && *p != main)
                    .collect();
                files.sort();
                Program {
                    source: main,
                    protocol: Protocol::Testlib,
                    helpers: files,
                    args: Vec::new(),
                }
            } else if source.is_dir() {
                match self.folder_program(source)? {
                    Ok(program) => program,
                    Err(report) => {
                        reporter.event(&Event::CompileFinished {
                            problem: ids.problem.clone(),
                            solution: ids.solution.clone(),
                            run: ids.run,
                            compile: report.clone(),
                        });
                        return Ok((None, report));
                    }
                }
            } else {
                Program {
                    source: source.to_path_buf(),
                    protocol: Protocol::Testlib,
                    helpers: Vec::new(),
                    args: Vec::new(),
                }
            };
            // A driver among the included files (`main.cpp`, `main.py`, `Main.java`, `main.rs`,
            // Python's `__main__.py`): the package's program calls the submission's functions
            // (a grader), so it is the main file and the submission keeps its name beside it.
            match included.iter().find(|f| is_driver(f)) {
                Some(driver) if !named_main => {
                    let submission = std::mem::replace(&mut program.source, driver.clone());
                    program.helpers.insert(0, submission);
                    program
                        .helpers
                        .extend(included.iter().filter(|f| *f != driver).cloned());
                }
                _ => program.helpers.extend(included.iter().cloned()),
            }
            let constants = if own || !included.is_empty() {
                problem.constants.as_slice()
            } else {
                &[]
            };
            self.build_program_with(&program, constants)?
        };
        reporter.event(&Event::CompileFinished {
            problem: ids.problem.clone(),
            solution: ids.solution.clone(),
            run: ids.run,
            compile: compile.clone(),
        });
        Ok((artifact, compile))
    }

    fn judge_inner(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        source: &Path,
        options: &JudgeOptions,
        ids: &Ids,
        reporter: &mut dyn Reporter,
    ) -> Result<SubmissionReport, EngineError> {
        let (artifact, compile) = self.compile_for(problem, ids, source, reporter)?;
        let Some(artifact) = artifact else {
            return Ok(SubmissionReport::new(Verdict::CE, compile));
        };
        let mut report = SubmissionReport::new(Verdict::AC, compile);
        // A scored problem judges every test: each group scores on its own.
        let all = options.all || problem.scoring.is_some() || !options.rules.is_empty();
        // A scored problem skips the tests that can no longer count (not with `--all`, nor
        // when the package has requirements on the tests).
        let skipping = !options.all && options.rules.is_empty();
        let of = problem.tests.len();
        for (i, test) in problem.tests.iter().enumerate() {
            if skipping && report.skips(problem, i) {
                continue;
            }
            let test_id = TestId {
                index: i + 1,
                name: test.name.clone(),
            };
            let judge = |engine: &mut Engine| {
                engine.judge_test(
                    problem,
                    checker,
                    &artifact,
                    test,
                    test_id,
                    of,
                    ids,
                    &|| true,
                    reporter,
                )
            };
            // Between tests the others run; each test waits until they are out of the way.
            let result = if options.alone {
                self.alone(judge)
            } else {
                judge(self)
            };
            if !report.record(result, all) {
                break;
            }
        }
        self.score(&mut report, problem);
        Ok(report)
    }

    /// One test of a judging, between `test_started` and `test_finished`. A verdict near the
    /// time limit from a run that shared the CPUs with another job is judged again alone
    /// (`crate::jobs`), and that result counts (`rejudged`).
    #[expect(
        clippy::too_many_arguments,
        reason = "the ids and the test of one judging"
    )]
    pub(crate) fn judge_test(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        artifact: &Artifact,
        test: &TestCase,
        id: TestId,
        of: usize,
        ids: &Ids,
        needed: &dyn Fn() -> bool,
        reporter: &mut dyn Reporter,
    ) -> TestResult {
        reporter.event(&Event::TestStarted {
            problem: ids.problem.clone(),
            solution: ids.solution.clone(),
            run: ids.run,
            test: id.clone(),
            of,
        });
        let (mut result, beside) = self.run_test_honestly(problem, checker, artifact, test, needed);
        // A traceback names the build folder's copy of the source: name the user's file.
        if let Some(stderr) = &mut result.stderr {
            stderr.text = build::name_source(&stderr.text, artifact, Path::new(&ids.solution));
        }
        if let Some(beside) = beside {
            reporter.event(&Event::Rejudged {
                problem: ids.problem.clone(),
                solution: ids.solution.clone(),
                run: ids.run,
                test: id.clone(),
                beside: Box::new(beside),
                alone: Box::new(result.clone()),
            });
        }
        reporter.event(&Event::TestFinished {
            problem: ids.problem.clone(),
            solution: ids.solution.clone(),
            run: ids.run,
            test: id,
            result: result.clone(),
        });
        result
    }

    /// [`Engine::run_test`], and again with no other job running when the verdict is near the
    /// time limit and the run shared the CPUs with another job (`crate::jobs`): the result that
    /// counts, and the one judged beside others when it was judged again. `needed()` false: the
    /// result will not be used (a job ran ahead of a failure found meanwhile), so it is not
    /// judged again.
    pub fn run_test_honestly(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        artifact: &Artifact,
        test: &TestCase,
        needed: &dyn Fn() -> bool,
    ) -> (TestResult, Option<TestResult>) {
        let result = self.run_test(problem, checker, artifact, test);
        let Some(gate) = self.gate.clone() else {
            return (result, None);
        };
        if self.last_alone || !near_limit(&result, problem.limits.time) || !needed() {
            return (result, None);
        }
        let _alone = gate.alone();
        self.exclusive = true;
        let again = self.run_test(problem, checker, artifact, test);
        self.exclusive = false;
        (again, Some(result))
    }

    /// Runs one test and decides its verdict. Judge failures become JE, never an error.
    pub fn run_test(
        &mut self,
        problem: &Problem,
        checker: &Checker,
        artifact: &Artifact,
        test: &TestCase,
    ) -> TestResult {
        let mut result = TestResult {
            name: test.name.clone(),
            verdict: Verdict::JE,
            time: Duration::ZERO,
            wall: Duration::ZERO,
            memory: 0,
            message: String::new(),
            mismatch: None,
            checker_score: None,
            passes: None,
            transcript: None,
            stdout: None,
            stderr: None,
        };
        if !test.input.is_file() || !test.answer.is_file() {
            result.message = format!(
                "missing test file {}",
                if test.input.is_file() {
                    &test.answer
                } else {
                    &test.input
                }
                .display()
            );
            return result;
        }
        if let Checker::Interactive(interactor) = checker {
            return crate::engine::interactive::run_test(
                self, problem, interactor, artifact, test, result,
            );
        }
        if let Some(passes) = problem.passes {
            return self.run_passes(problem, checker, artifact, test, passes, result);
        }
        let mut limits = solution_limits(problem);
        // Beside other jobs a run may go on to 1.5 × the limit: one killed there is a clear
        // TLE, not judged again alone (`near_limit`); one that ends between the limit and the cap
        // is a TLE too (below), judged again alone. Alone (one job, or a re-judge) the cap is
        // the limit.
        let beside = self.gate.is_some() && !self.exclusive;
        if beside {
            let cap = beside_cap(limits.cpu);
            limits.wall += cap - limits.cpu;
            limits.cpu = cap;
        }
        let memory_limit = limits.memory;
        // Polygon's input-file / output-file: the solution works in a folder of its own holding
        // the input under that name; its output file is what is checked.
        let files_dir = if problem.io.input.is_some() || problem.io.output.is_some() {
            match self.file_io_dir(problem, test) {
                Ok(d) => Some(d),
                Err(e) => {
                    result.message = format!("could not prepare the solution's files: {e}");
                    return result;
                }
            }
        } else {
            None
        };
        let stdin = match &problem.io.input {
            Some(_) => None,
            None => Some(test.input.as_path()),
        };
        let (run, stdout, stderr) =
            match self.execute_in(artifact, &[], stdin, &[], limits, files_dir.as_deref()) {
                Ok(r) => r,
                Err(e) => {
                    result.message = format!("could not run the solution: {e}");
                    return result;
                }
            };
        let output = match (&problem.io.output, &files_dir) {
            (Some(name), Some(dir)) => dir.join(name),
            _ => stdout.clone(),
        };
        // The checker's run below must not overwrite it.
        let solution_alone = self.last_alone;
        result.time = run.cpu_time;
        result.wall = run.wall_time;
        result.memory = run.peak_memory;
        result.stdout = Some(capture_head(&output, self.capture));
        result.stderr = Some(capture_tail(&stderr, self.capture));
        let over_limit = beside && run.cpu_time > problem.limits.time;
        if over_limit {
            // What the limit would have stopped: the program's CPU time is its own.
            result.verdict = Verdict::TLE;
            result.message = format!(
                "CPU time {:.3} s is over the limit",
                run.cpu_time.as_secs_f64()
            );
        } else if let Some((verdict, message)) = classify_run(&run, memory_limit) {
            result.verdict = verdict;
            result.message = message;
            if verdict == Verdict::RE {
                // A JVM's exception heads its trace; other runtimes end theirs with it.
                let head = build::read_capped(&stderr, 2048);
                let err = if head.contains("Exception in thread ") {
                    head
                } else {
                    read_tail(&stderr, 2048)
                };
                let line = crash_line(&err);
                // A runtime that stopped at its own heap limit (the JVM's OutOfMemoryError).
                let marker = artifact.out_of_memory.as_deref().filter(|m| !m.is_empty());
                if let Some(line) = line.filter(|l| marker.is_some_and(|m| l.contains(m))) {
                    result.verdict = Verdict::MLE;
                    result.message = format!(
                        "ran out of memory (limit {}; peak {}): {}",
                        judge_model::units::mib(memory_limit),
                        judge_model::units::mib(run.peak_memory),
                        line.trim()
                    );
                } else if let Some(line) = line {
                    result
                        .message
                        .push_str(&format!("; stderr: {}", line.trim()));
                }
            }
        } else if files_dir.is_some() && !output.is_file() {
            result.verdict = Verdict::WA;
            result.message = format!(
                "no output file `{}`",
                problem.io.output.as_deref().unwrap_or("")
            );
        } else {
            match self.check_with(
                checker,
                &test.input,
                &output,
                &test.answer,
                &test.checker_args,
            ) {
                Ok(outcome) => {
                    result.verdict = outcome.judgement.verdict();
                    result.message = outcome.message;
                    result.mismatch = outcome.mismatch;
                    result.checker_score = outcome.score;
                }
                Err(why) => {
                    result.verdict = Verdict::JE;
                    result.message = why;
                }
            }
        }
        self.recycle(stdout, stderr);
        if let Some(dir) = files_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        self.last_alone = solution_alone;
        result
    }

    /// A fresh host folder holding the test's input under the problem's input file name.
    fn file_io_dir(&mut self, problem: &Problem, test: &TestCase) -> Result<PathBuf, EngineError> {
        let dir = self.fresh_dir("files")?;
        if let Some(name) = &problem.io.input {
            let target = dir.join(name);
            std::fs::copy(&test.input, &target).map_err(|source| EngineError::Work {
                path: target,
                source,
            })?;
        }
        Ok(dir)
    }
}

/// Emits `solution_finished` for a judging that ended with `result`.
pub(crate) fn solution_finished(
    ids: Ids,
    options: &JudgeOptions,
    result: &Result<SubmissionReport, EngineError>,
    reporter: &mut dyn Reporter,
) {
    let expected = options.expected.first().copied();
    let allowed = if options.expected.len() > 1 {
        options.expected.clone()
    } else {
        Vec::new()
    };
    if options.skip_unavailable {
        if let Err(EngineError::Build(BuildError::Lang(e))) = result {
            reporter.event(&Event::SolutionSkipped {
                problem: ids.problem,
                solution: ids.solution,
                expected,
                allowed,
                reason: e.short(),
            });
            return;
        }
    }
    let (verdict, error, report) = match result {
        Ok(r) => (r.verdict, None, Some(r.clone())),
        Err(e) => (Verdict::JE, Some(e.to_string()), None),
    };
    let failures = report
        .as_ref()
        .map(|r| expectation_failures(options, r))
        .unwrap_or_default();
    reporter.event(&Event::SolutionFinished {
        problem: ids.problem,
        solution: ids.solution,
        run: ids.run,
        expected,
        allowed,
        expected_score: options.score,
        rule_failures: failures.clone(),
        matches: expected.map(|_| {
            report.as_ref().is_some_and(|r| {
                options.expected.contains(&verdict)
                    && score_matches(options.score, r)
                    && failures.is_empty()
            })
        }),
        verdict,
        error,
        report,
    });
}
