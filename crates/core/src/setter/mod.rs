//! Problem-setter tooling: test generation from `tests.toml` (`gen`), counterexample search with
//! shrinking (`stress`) and package scaffolding (`new`).

pub mod gen;
pub mod jury;
pub mod new;
pub mod prepare;
pub mod rebuild;
pub mod solutions;
pub mod stress;
pub mod time_limit;
pub mod verify;

use crate::build::Artifact;
use crate::engine::{Engine, EngineError};
use judge_model::Verdict;
use solutions::{list_solutions, solutions_dir};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum SetterError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Package(#[from] crate::package::PackageError),
    #[error("{0}")]
    Other(String),
}

/// The reference solution: the first file of `accepted/` in name order. (Misnamed folders beside
/// `accepted/` are `verify`'s business, not a reason to refuse the reference.)
pub fn reference_solution(problem_dir: &Path, slug: &str) -> Result<PathBuf, SetterError> {
    let dir = solutions_dir(problem_dir, slug);
    let (all, _misplaced) = list_solutions(&dir);
    all.into_iter().find(|(_, v)| *v == Verdict::AC).map(|(p, _)| p).ok_or_else(|| {
        SetterError::Other(format!(
            "{}: no reference solution\n  hint: put the intended solution in accepted/ (the first file by name is the reference)",
            dir.join("accepted").display()
        ))
    })
}

/// The reference solution of a package in any format: Polygon's `main` solution, else the first
/// solution that must be accepted (Kattis `submissions/accepted/`); a native package's as
/// [`reference_solution`] says.
pub fn reference_of(problem: &crate::package::Problem) -> Result<PathBuf, SetterError> {
    if problem.format == crate::package::Format::Native {
        return reference_solution(&problem.dir, &problem.slug);
    }
    problem
        .rebuild
        .main
        .clone()
        .or_else(|| {
            problem
                .solutions
                .iter()
                .find(|s| s.expected == [Verdict::AC])
                .map(|s| s.path.clone())
        })
        .ok_or_else(|| {
            SetterError::Other(format!(
                "{}: no solution that must be accepted\n  hint: give --against the reference solution",
                problem.dir.display()
            ))
        })
}

/// Builds each program once per session; shared by the jobs of a parallel step (a program
/// built by one engine runs in any other: artifacts are host paths handed to each sandbox).
#[derive(Default)]
pub struct Builds {
    built: std::sync::Mutex<HashMap<PathBuf, Artifact>>,
}

impl Builds {
    /// The built program, or an error carrying the compiler's message.
    pub fn get(
        &self,
        engine: &mut Engine,
        source: &Path,
        role: &str,
    ) -> Result<Artifact, SetterError> {
        let known = |b: &Self| {
            b.built
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(source)
                .cloned()
        };
        if let Some(a) = known(self) {
            return Ok(a);
        }
        match engine.build(source)? {
            (Some(a), _) => {
                self.built
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(source.to_path_buf(), a.clone());
                Ok(a)
            }
            (None, report) => Err(SetterError::Other(format!(
                "{}: the {role} does not compile:\n{}",
                source.display(),
                report.message
            ))),
        }
    }

    /// Builds these programs now, spread over the engines, so that the jobs that follow find
    /// them built (a failure is left for each use to report, as without jobs).
    pub fn prebuild<'a>(
        &self,
        engines: &mut [&mut Engine],
        sources: impl IntoIterator<Item = &'a Path>,
    ) {
        let mut todo: Vec<&Path> = Vec::new();
        for source in sources {
            if !todo.contains(&source) {
                todo.push(source);
            }
        }
        crate::jobs::spread(engines, todo.len(), &|_| false, &|engine, i| {
            let _ = self.get(engine, todo[i], "program");
        });
    }
}

/// CPU time a generator run may use unless tests.toml or the command line says otherwise.
pub const DEFAULT_GENERATOR_TIME_LIMIT: Duration = Duration::from_secs(5);

/// The generator time limit in force: the command line's, else tests.toml's, else the default.
pub fn generator_time_limit(
    cli: Option<Duration>,
    recipe: &crate::package::recipe::Recipe,
) -> Duration {
    cli.or(recipe.generator_time_limit)
        .unwrap_or(DEFAULT_GENERATOR_TIME_LIMIT)
}

/// Limits of a generator run: its own CPU time limit, a wall-clock limit of twice that plus a
/// second, and the jury's memory and output allowance.
pub fn generator_limits(cpu: Duration) -> judge_sandbox::Limits {
    judge_sandbox::Limits {
        cpu,
        wall: cpu * 2 + Duration::from_secs(1),
        ..crate::engine::checker_limits()
    }
}

/// The hint under a generator that ran out of time.
pub fn generator_time_hint(limit: Duration) -> String {
    format!(
        "\n  hint: the limit ({} s of CPU) is `generator_time_limit` in tests.toml or --generator-time-limit; or make the generator faster",
        limit.as_secs_f64()
    )
}

/// Runs a jury program (generator, reference solution) built from `source` and returns its
/// stdout, or how it failed.
pub fn run_for_output(
    engine: &mut Engine,
    artifact: &Artifact,
    source: &Path,
    args: &[String],
    stdin: Option<&Path>,
    limits: judge_sandbox::Limits,
) -> Result<Vec<u8>, jury::Failure> {
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let keep = crate::engine::Keep {
        stdout: Some(u64::MAX),
        stderr: jury::STDERR_TAIL,
    };
    let run = engine
        .run_jury(artifact, &args, stdin, &[], limits.clone(), keep)
        .map_err(|e| jury::Failure {
            what: format!("could not be run: {e}"),
            tail: Vec::new(),
            timed_out: false,
        })?;
    let stderr = jury::name_source(&run.stderr, artifact, source);
    match jury::failure(&run.outcome, &limits, &stderr) {
        Some(f) => Err(f),
        None => Ok(run.stdout),
    }
}

/// FNV-1a, 64 bits: a stable fingerprint for caching (not for security).
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain((part.len() as u64).to_le_bytes().iter()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
