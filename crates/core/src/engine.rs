//! The engine: build a solution, run it on every test in the sandbox, check the output, decide the
//! verdicts. It reports progress as [`Event`]s through a [`Reporter`] and never prints.

use crate::build::{self, Artifact, BuildError};
use crate::checker::{self, Judgement};
use crate::executor::Executor;
use crate::executor::Gate;
use crate::lang::Languages;
use crate::package::{CheckerSpec, Problem, Program, Protocol, TestCase};
use crate::verdict::classify_run;
use judge_model::event::{Event, Reporter, RunId, TestId};
use judge_model::result::CompileReport;
use judge_model::score::Reported;
use judge_model::Verdict;
use judge_sandbox::termination_text;
use judge_sandbox::{Limits, RunOutcome, RunSpec, SandboxError};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub mod interactive;
mod passes;
mod rules;
use crate::package::Scored;
use judge_model::result::{score_matches, SubmissionReport, TestResult};
pub use rules::{expectation_failures, rule_failures};

/// The re-judge rule: a verdict that another job's load could have changed.
pub fn near_limit(result: &TestResult, limit: Duration) -> bool {
    if result.verdict == Verdict::TLE {
        return true;
    }
    let t = result.time.as_secs_f64();
    let l = limit.as_secs_f64();
    t >= l / 1.5 && t <= l * 1.5
}

/// Stderr kept from a solution (for messages) and from checkers and validators.
const STDERR_CAP: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("{0}")]
    Sandbox(#[from] SandboxError),
    #[error("cannot create {path}: {source}")]
    Work {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the custom checker {path} does not compile:\n{message}\n  hint: fix the checker; no verdict can be trusted without it")]
    CheckerCompile { path: PathBuf, message: String },
    #[error("{0}")]
    Package(#[from] crate::package::PackageError),
    #[error("cannot copy the helper file {path} into the build folder: {source}")]
    Helper {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A checker ready to judge outputs.
pub enum Checker {
    Builtin(checker::Builtin),
    /// A built custom checker and how to talk to it.
    Custom(Artifact, Protocol),
    /// An interactive problem: its built interactor, and the checker of what it writes
    /// (`crate::engine::interactive`).
    Interactive(Box<crate::engine::interactive::Interactor>),
}

/// Options of one judging.
#[derive(Debug, Clone, Default)]
pub struct JudgeOptions {
    /// Run every test instead of stopping at the first failure.
    pub all: bool,
    /// Every verdict the solution may get (`verify`; a Kattis or Polygon package may allow
    /// several), told in `solution_finished`; empty: no expectation.
    pub expected: Vec<Verdict>,
    /// A solution with no toolchain for its language here is skipped (`solution_skipped`), not
    /// failed (`verify` of a package written elsewhere).
    pub skip_unavailable: bool,
    /// With other jobs, run each test with no other job running (the gate held exclusively):
    /// for a solution expected to run out of time, whose TLE would be judged again alone
    /// anyway, this saves the run beside the others.
    pub alone: bool,
    /// The score the solution must get (`verify` of a scored problem), told in
    /// `solution_finished`.
    pub score: Option<judge_model::score::Expected>,
    /// Requirements on some of its tests (`verify`); with any, every test is judged.
    pub rules: Vec<crate::package::TestRule>,
    /// Every judged test's verdict must be one of these (Kattis `permitted`, `verify`).
    pub permitted: Option<Vec<Verdict>>,
}

/// What to read from a jury program's run before its files are reused.
#[derive(Debug, Clone, Copy)]
pub struct Keep {
    /// Up to this many bytes of stdout; `None`: none.
    pub stdout: Option<u64>,
    /// The last this-many bytes of stderr (where tracebacks end).
    pub stderr: u64,
}

impl Keep {
    /// Only the tail of stderr.
    pub fn stderr(cap: u64) -> Keep {
        Keep {
            stdout: None,
            stderr: cap,
        }
    }
}

/// A finished jury run: its evidence and the output that `Keep` asked for.
#[derive(Debug)]
pub struct JuryRun {
    pub outcome: RunOutcome,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// The ids every event of one judging carries.
#[derive(Clone)]
pub(crate) struct Ids {
    pub problem: String,
    pub solution: String,
    pub run: RunId,
}

/// Owns the executor, the language table and a private work folder.
pub struct Engine {
    /// What runs the programs: this machine's sandbox ([`crate::executor::LocalExecutor`]),
    /// or a fake in unit tests (`crate::executor`).
    pub sandbox: Box<dyn Executor>,
    pub languages: Languages,
    work: PathBuf,
    counter: u64,
    /// The working folder of every run when the sandbox gives each run a private scratch
    /// folder there (the host folder is only a name then; nothing is ever written to it).
    pub(crate) scratch: Option<PathBuf>,
    /// Output files of finished runs, overwritten by later runs: creating and deleting files on a
    /// disk file system cost more per test than the rest of the judge's own work.
    spare_io: Vec<(PathBuf, PathBuf)>,
    /// Set when this engine is one of several jobs (`--jobs`): see `crate::jobs`.
    pub(crate) gate: Option<Arc<Gate>>,
    /// This engine holds the gate exclusively (a re-judge).
    pub(crate) exclusive: bool,
    /// Whether the last program run had the CPUs to itself (always, without a gate).
    pub(crate) last_alone: bool,
    /// The sandbox failed a run (its worker may be gone): as one of several jobs, this engine
    /// takes no more work while another job can (`crate::jobs::spread`).
    pub(crate) sandbox_failed: bool,
    /// Whether to record interactive exchanges (`crate::engine::interactive`).
    pub partner: crate::engine::interactive::Partner,
}

impl Engine {
    /// `work` is an empty folder that the engine may fill (the caller removes it afterwards).
    pub fn new(sandbox: impl Executor + 'static, languages: Languages, work: PathBuf) -> Engine {
        Engine {
            sandbox: Box::new(sandbox),
            languages,
            work,
            counter: 0,
            scratch: None,
            spare_io: Vec::new(),
            gate: None,
            exclusive: false,
            last_alone: true,
            sandbox_failed: false,
            partner: Default::default(),
        }
    }

    /// Makes this engine one of several jobs that share `gate`.
    pub fn join(&mut self, gate: Arc<Gate>) {
        self.gate = Some(gate);
    }

    /// Runs `f` with no other job running (the gate held exclusively) when this engine is one of
    /// several jobs; without other jobs, just runs it.
    pub fn alone<T>(&mut self, f: impl FnOnce(&mut Engine) -> T) -> T {
        let gate = self.gate.clone();
        let guard = gate.as_deref().map(Gate::alone);
        self.exclusive = guard.is_some();
        let result = f(self);
        self.exclusive = false;
        drop(guard);
        result
    }

    /// Hands a run's output files back for reuse; their contents are gone after the next run.
    pub fn recycle(&mut self, stdout: PathBuf, stderr: PathBuf) {
        self.spare_io.push((stdout, stderr));
    }

    /// A new empty folder inside the work folder.
    pub fn fresh_dir(&mut self, what: &str) -> Result<PathBuf, EngineError> {
        self.counter += 1;
        let path = self.work.join(format!("{what}-{}", self.counter));
        // Not `create_dir_all`: after Ctrl-C removed the work folder, a job still running must
        // not make it again before the process exits.
        std::fs::create_dir(&path).map_err(|source| EngineError::Work {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Compiles a source file, or a folder holding a multi-file program (its main file and the
    /// rest beside it). `Ok((None, report))` is a compilation error.
    pub fn build(
        &mut self,
        source: &Path,
    ) -> Result<(Option<Artifact>, CompileReport), EngineError> {
        if source.is_dir() {
            // A folder in no language of the table is an unsupported program, like a file.
            let mut files: Vec<PathBuf> = std::fs::read_dir(source)
                .map_err(|e| BuildError::Source {
                    path: source.to_path_buf(),
                    source: e,
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            files.sort();
            if let Some(Err(e)) = files
                .iter()
                .all(|f| self.languages.for_source(f).is_err())
                .then(|| files.first().map(|f| self.languages.for_source(f)))
                .flatten()
            {
                return Err(BuildError::Lang(e).into());
            }
            let program = crate::package::program_from(source, Protocol::Testlib, "program")?;
            return self.build_program(&program);
        }
        let dir = self.fresh_dir("build")?;
        let gate = self.gate.clone();
        let _ticket = gate.as_deref().map(|g| g.enter(self.exclusive));
        let built = build::build(&mut self.sandbox, &self.languages, source, &dir);
        if let Err(BuildError::Sandbox(_)) = &built {
            self.sandbox_failed = true;
        }
        Ok(built?)
    }

    /// The sandbox failed a run since this engine started.
    pub fn sandbox_failed(&self) -> bool {
        self.sandbox_failed
    }

    /// Compiles a jury program with its helper files (headers such as `testlib.h`) copied into
    /// the build folder next to the source.
    pub fn build_program(
        &mut self,
        program: &Program,
    ) -> Result<(Option<Artifact>, CompileReport), EngineError> {
        self.build_program_with(program, &[])
    }

    /// [`Engine::build_program`] with a Kattis package's constants: each `{{name}}` in the
    /// source and the helpers is replaced by its value.
    pub fn build_program_with(
        &mut self,
        program: &Program,
        constants: &[(String, String)],
    ) -> Result<(Option<Artifact>, CompileReport), EngineError> {
        // An unsupported language is named by the package's path, not a copy's.
        self.languages
            .for_source(&program.source)
            .map_err(BuildError::Lang)?;
        let dir = self.fresh_dir("build")?;
        let substituted = |path: &Path| -> Option<Vec<u8>> {
            if constants.is_empty() {
                return None;
            }
            let text = std::fs::read_to_string(path).ok()?;
            text.contains("{{")
                .then(|| crate::package::substitute(&text, constants).into_bytes())
        };
        for helper in &program.helpers {
            let Some(name) = helper.file_name() else {
                continue;
            };
            let target = dir.join(name);
            let done = match substituted(helper) {
                // A folder (a Java package of a Kattis `include/`) goes in whole.
                _ if helper.is_dir() => copy_tree(helper, &target),
                Some(bytes) => std::fs::write(&target, bytes),
                None => std::fs::copy(helper, &target).map(|_| ()),
            };
            done.map_err(|source| EngineError::Helper {
                path: helper.clone(),
                source,
            })?;
        }
        let source = match (substituted(&program.source), program.source.file_name()) {
            (Some(bytes), Some(name)) => {
                let copy = self.fresh_dir("constants")?.join(name);
                std::fs::write(&copy, bytes).map_err(|source| EngineError::Work {
                    path: copy.clone(),
                    source,
                })?;
                copy
            }
            _ => program.source.clone(),
        };
        Ok(build::build(
            &mut self.sandbox,
            &self.languages,
            &source,
            &dir,
        )?)
    }

    /// Builds the problem's checker (only custom checkers need building).
    pub fn prepare_checker(&mut self, problem: &Problem) -> Result<Checker, EngineError> {
        let checker = self.prepare_output_checker(problem)?;
        crate::engine::interactive::prepare(self, problem, checker)
    }

    fn prepare_output_checker(&mut self, problem: &Problem) -> Result<Checker, EngineError> {
        match &problem.checker {
            CheckerSpec::Builtin(b) => Ok(Checker::Builtin(b.clone())),
            CheckerSpec::Custom(program) => {
                match self.build_program_with(program, &problem.constants)? {
                    (Some(a), _) => Ok(Checker::Custom(a, program.protocol)),
                    (None, report) => Err(EngineError::CheckerCompile {
                        path: program.source.clone(),
                        message: report.message,
                    }),
                }
            }
        }
    }

    /// Runs a built program once. Returns the outcome and the paths of its stdout and stderr files.
    pub fn execute(
        &mut self,
        artifact: &Artifact,
        extra_args: &[OsString],
        stdin: Option<&Path>,
        readable: &[PathBuf],
        limits: Limits,
    ) -> Result<(RunOutcome, PathBuf, PathBuf), EngineError> {
        self.execute_in(artifact, extra_args, stdin, readable, limits, None)
    }

    /// Like [`Engine::execute`]; with `host_dir`, the program works in that (host) folder, which
    /// it may write and whose files stay after the run (a Kattis validator's feedback folder, a
    /// Polygon solution's input and output files). The caller removes it.
    pub fn execute_in(
        &mut self,
        artifact: &Artifact,
        extra_args: &[OsString],
        stdin: Option<&Path>,
        readable: &[PathBuf],
        limits: Limits,
        host_dir: Option<&Path>,
    ) -> Result<(RunOutcome, PathBuf, PathBuf), EngineError> {
        let private_scratch = self.sandbox.private_scratch() && host_dir.is_none();
        let dir = match (&self.scratch, private_scratch, host_dir) {
            (_, _, Some(dir)) => dir.to_path_buf(),
            (Some(dir), true, None) => dir.clone(),
            (None, true, None) => {
                let dir = self.fresh_dir("run")?;
                self.scratch = Some(dir.clone());
                dir
            }
            (_, false, None) => self.fresh_dir("run")?,
        };
        let (stdout, stderr) = match self.spare_io.pop() {
            Some(pair) => pair,
            None => {
                let io = self.fresh_dir("io")?;
                (io.join("stdout"), io.join("stderr"))
            }
        };
        let mut args = run_args(artifact, &limits);
        args.extend_from_slice(extra_args);
        let mut all_readable = artifact.readable.clone();
        all_readable.extend(readable.iter().map(|p| absolute(p)));
        let spec = RunSpec {
            program: artifact.program.clone(),
            args,
            env: build::base_env(&dir),
            workdir: dir.clone(),
            stdin: stdin.map(absolute),
            stdout: stdout.clone(),
            stderr: stderr.clone(),
            readable: all_readable,
            scratch_workdir: host_dir.is_none(),
            limits,
        };
        let gate = self.gate.clone();
        let ticket = gate.as_deref().map(|g| g.enter(self.exclusive));
        let outcome = self.sandbox.run(&spec);
        self.last_alone = ticket.is_none_or(|t| t.alone());
        self.sandbox_failed |= outcome.is_err();
        if !private_scratch && host_dir.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok((outcome?, stdout, stderr))
    }

    /// Runs a jury program (checker, validator, generator, reference solution) once and reads
    /// what `keep` asks for; its output files go back to the engine before this returns, so
    /// callers never hold (or leak) them.
    pub fn run_jury(
        &mut self,
        artifact: &Artifact,
        args: &[OsString],
        stdin: Option<&Path>,
        readable: &[PathBuf],
        limits: Limits,
        keep: Keep,
    ) -> Result<JuryRun, EngineError> {
        let (outcome, out, err) = self.execute(artifact, args, stdin, readable, limits)?;
        let stdout = match keep.stdout {
            None => Vec::new(),
            Some(cap) => std::fs::File::open(&out)
                .and_then(|f| {
                    let mut buf = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::Read::take(f, cap), &mut buf)?;
                    Ok(buf)
                })
                .unwrap_or_default(),
        };
        let stderr = read_tail(&err, keep.stderr);
        self.recycle(out, err);
        Ok(JuryRun {
            outcome,
            stdout,
            stderr,
        })
    }

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

    /// Builds a solution, emitting `compile_started` and `compile_finished`.
    pub(crate) fn compile_for(
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
                crate::package::program_from(source, Protocol::Testlib, "program")?
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
        report.score_with(problem);
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
        let (result, beside) = self.run_test_honestly(problem, checker, artifact, test, needed);
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
        let limits = solution_limits(problem);
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
        if let Some((verdict, message)) = classify_run(&run, memory_limit) {
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
            Checker::Custom(artifact, Protocol::Kattis) => {
                self.kattis_validate(artifact, input, output, answer, args)
            }
            Checker::Custom(artifact, Protocol::Testlib) => {
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

/// Copies the folder `from` to `to` (files and folders; links followed).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

/// An included file that is the program's main file (Kattis `include/<language>/`: a driver
/// "must have the language-dependent name"): `main.<ext>` in any case, or `__main__.py`.
fn is_driver(file: &Path) -> bool {
    let name = file
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    name == "__main__.py" || name.split_once('.').is_some_and(|(stem, _)| stem == "main")
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Engine {
    /// The Kattis protocol: `validator input answer feedback_dir [args] < output`; 42 accepts,
    /// 43 rejects, anything else (0 too) is a judge error. The message is the start of
    /// `feedback_dir/judgemessage.txt`; a scoring validator's `score.txt` (or
    /// `score_multiplier.txt`) is the test's score.
    fn kattis_validate(
        &mut self,
        artifact: &Artifact,
        input: &Path,
        output: &Path,
        answer: &Path,
        extra: &[String],
    ) -> Result<checker::Outcome, String> {
        let feedback = self
            .fresh_dir("feedback")
            .map_err(|e| format!("could not run the output validator: {e}"))?;
        let result = self.kattis_validate_in(artifact, input, output, answer, extra, &feedback);
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
    fn kattis_validate_in(
        &mut self,
        artifact: &Artifact,
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

/// A built program's arguments for one run: `{memory_mib}`, `{stack_mib}` (a JVM's heap and
/// stack) come from that run's limits.
pub(crate) fn run_args(artifact: &Artifact, limits: &Limits) -> Vec<OsString> {
    artifact
        .args
        .iter()
        .map(|a| match a.to_str() {
            Some(w) => crate::lang::expand_for_run(w, limits.memory, limits.stack).into(),
            None => a.clone(),
        })
        .collect()
}

/// The limits a solution runs under.
pub fn solution_limits(problem: &Problem) -> Limits {
    Limits {
        cpu: problem.limits.time,
        wall: problem.limits.wall,
        memory: problem.limits.memory,
        stack: problem.limits.stack,
        output: problem.limits.output,
        stderr: STDERR_CAP,
        processes: 64,
    }
}

/// The line of a crashed program's stderr (its head or tail, as read) that says most: a JVM's uncaught
/// exception (`Exception in thread "main" java.lang.…`, the first line of its trace; a later
/// `Caused by:` line is the root cause), else the last line (Python's exception, C++'s abort
/// message), leaving out Rust's hint about backtraces, stack frames and the cut marker.
pub fn crash_line(stderr: &str) -> Option<&str> {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[… cut]"))
        .collect();
    if let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("Exception in thread "))
    {
        let cause = lines[i..]
            .iter()
            .rev()
            .find(|l| l.starts_with("Caused by: "));
        return Some(cause.copied().unwrap_or(lines[i]));
    }
    lines.into_iter().rev().find(|l| {
        let t = l.trim_start();
        let rust_hint = l.starts_with("note: run with `RUST_BACKTRACE");
        let frame = l.starts_with(char::is_whitespace) && t.starts_with("at ");
        let elided = t.starts_with("... ") && t.ends_with(" more");
        !(rust_hint || frame || elided)
    })
}

/// Limits for the jury's own programs (checkers, validators, generators).
pub fn checker_limits() -> Limits {
    Limits {
        cpu: Duration::from_secs(30),
        wall: Duration::from_secs(60),
        memory: 2 << 30,
        stack: 1 << 30,
        output: 1 << 30,
        stderr: STDERR_CAP,
        processes: 64,
    }
}

/// The last `cap` bytes of a file, lossily as text, starting at a line boundary when cut.
pub fn read_tail(path: &Path, cap: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let cut = len > cap;
    if cut && f.seek(SeekFrom::Start(len - cap)).is_err() {
        return String::new();
    }
    let mut buf = Vec::new();
    let _ = f.take(cap).read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    match (cut, text.find('\n')) {
        (true, Some(i)) => text[i + 1..].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests;

impl crate::executor::fake::FakeExecutor {
    /// An engine over a clone of this executor with the fake language table, working in a
    /// fresh folder inside `work` (so that engines may share one).
    pub fn engine(&self, work: &Path) -> Engine {
        let dir = tempfile::Builder::new()
            .prefix("engine-")
            .tempdir_in(work)
            .expect("a work folder for the engine")
            .keep();
        Engine::new(self.clone(), crate::executor::fake::languages(), dir)
    }
}
