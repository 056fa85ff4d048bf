//! The engine: build a solution, run it on every test in the sandbox, check the output, decide the
//! verdicts. It reports progress as [`Event`]s through a [`Reporter`] and never prints.
//!
//! This file holds the engine's state and types; the work follows the data in its files:
//! `programs.rs` (building and running programs), `judge.rs` (a submission, test by test),
//! `check.rs` (checking an output), `grader.rs` (a package's own grader), `passes.rs` (multi-pass tests), `interactive/` (a test as a
//! pair), `rules.rs` (a package's requirements on a judged report).

use crate::build::{self, Artifact, BuildError};
use crate::checker::{self, Judgement};
use crate::executor::Executor;
use crate::executor::Gate;
use crate::lang::Languages;
use crate::package::{CheckerSpec, Problem, Program, Protocol, TestCase};
use crate::verdict::classify_run;
use judge_model::event::{Event, Reporter, RunId, TestId};
use judge_model::result::{Captured, CompileReport};
use judge_model::score::Reported;
use judge_model::Verdict;
use judge_sandbox::termination_text;
use judge_sandbox::{Limits, RunOutcome, RunSpec, SandboxError};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

mod check;
pub mod console;
mod grader;
pub mod interactive;
mod judge;
mod passes;
mod programs;
mod rules;
use crate::package::Scored;
pub(crate) use check::{file_name, reported_score};
pub(crate) use judge::solution_finished;
use judge_model::result::{score_matches, SubmissionReport, TestResult};
pub(crate) use programs::run_args;
pub use programs::{capture_head, capture_tail, crash_line, read_tail};
pub use rules::{expectation_failures, rule_failures};

/// The re-judge rule: a verdict that another job's load could have changed. A time within a
/// factor 1.5 of the limit, either side; a TLE unless it ran to the CPU cap a run beside other
/// jobs gets ([`beside_cap`]): CPU time is the program's own, so a run that needed 1.5 × the
/// limit would not have fitted in the limit alone. Nor a TLE of the wall clock by a program
/// that was blocked: on a CPU less than a quarter of its wall time and for less than limit / 1.5
/// (asleep, or waiting for input that never came). Another job takes a share of the CPUs, not
/// three quarters of this run's (there are at most as many jobs as CPUs by default), so alone
/// it would have been killed the same.
pub fn near_limit(result: &TestResult, limit: Duration) -> bool {
    if result.verdict == Verdict::TLE {
        let blocked = result.time * 4 < result.wall && result.time * 3 < limit * 2;
        return !blocked && result.time < beside_cap(limit);
    }
    let t = result.time.as_secs_f64();
    let l = limit.as_secs_f64();
    t >= l / 1.5 && t <= l * 1.5
}

/// The CPU limit of a solution's run beside other jobs: 1.5 × the time limit, so that a clear
/// TLE is clear at once (outside [`near_limit`]'s window) while a run between the limit and
/// this cap is judged again alone at the limit. A run over the limit is a TLE either way.
pub fn beside_cap(limit: Duration) -> Duration {
    limit * 3 / 2
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
    #[error("the grader {path} does not compile:\n{message}\n  hint: fix the grader; the groups with `grading: custom` cannot be scored without it")]
    GraderCompile { path: PathBuf, message: String },
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
    /// A built custom checker, how to talk to it, and its source (the name its failures
    /// give).
    Custom(Artifact, Protocol, PathBuf),
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
    /// With other jobs, run each test with no other job running (the gate held exclusively),
    /// each with the limit as its cap. `verify` no longer asks it of the solutions expected to
    /// run out of time: beside the others they run to 1.5 × the limit, a clear TLE at once,
    /// while the other jobs go on.
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
    /// The package's grader as this engine built it (`grader.rs`).
    grader: Option<grader::Built>,
    /// The largest file a compiler may write: the problem's memory limit when over the usual
    /// cap (`build::build_with`), while a submission is built (`compile_for`).
    pub(crate) build_files: u64,
    /// How many bytes of a solution's stdout (its head) and stderr (its tail) a test result
    /// keeps: [`Captured::CAP`] unless a caller that returns the whole output raises it (the
    /// service's Judge0 API, up to the run's output limit).
    pub capture: usize,
    /// Builds each submission in one folder, emptied first, instead of a new one: for a caller
    /// that judges one submission at a time and drops its artifact before the next build (a
    /// service's slot). The sandbox then sees the same folder behind every submission's runs,
    /// and a run's init, kept after its run, serves the next submission's runs too.
    pub reuse_build_folder: bool,
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
            grader: None,
            build_files: build::BUILD_FILES,
            capture: Captured::CAP,
            reuse_build_folder: false,
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

    /// The folder a submission is built in: a new one, or with [`Engine::reuse_build_folder`]
    /// the one folder of every submission, emptied (a new one if it cannot be).
    pub(crate) fn build_dir(&mut self) -> Result<PathBuf, EngineError> {
        if !self.reuse_build_folder {
            return self.fresh_dir("build");
        }
        let dir = self.work.join("build-submission");
        let ready = match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => build::empty_folder(&dir).is_ok(),
            Ok(_) => false,
            Err(_) => std::fs::create_dir(&dir).is_ok(),
        };
        if ready {
            Ok(dir)
        } else {
            self.fresh_dir("build")
        }
    }

    /// The sandbox failed a run since this engine started.
    pub fn sandbox_failed(&self) -> bool {
        self.sandbox_failed
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
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

#[cfg(test)]
mod passes_tests;
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
