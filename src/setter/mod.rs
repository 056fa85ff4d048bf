//! Problem-setter tooling: test generation from `tests.toml` (`gen`), counterexample search with
//! shrinking (`stress`) and package scaffolding (`new`).

pub mod gen;
pub mod new;
pub mod stress;

use crate::build::Artifact;
use crate::judge::{Engine, EngineError};
use crate::verdict::Verdict;
use crate::verify::{list_solutions, solutions_dir};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SetterError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Package(#[from] crate::package::PackageError),
    #[error("{0}")]
    Other(String),
}

/// The reference solution: the first file of `accepted/` in name order.
pub fn reference_solution(problem_dir: &Path, slug: &str) -> Result<PathBuf, SetterError> {
    let dir = solutions_dir(problem_dir, slug);
    let all = list_solutions(&dir).map_err(SetterError::Other)?;
    all.into_iter().find(|(_, v)| *v == Verdict::AC).map(|(p, _)| p).ok_or_else(|| {
        SetterError::Other(format!(
            "{}: no reference solution\n  hint: put the intended solution in accepted/ (the first file by name is the reference)",
            dir.join("accepted").display()
        ))
    })
}

/// Builds each program once per session.
#[derive(Default)]
pub struct Builds {
    built: HashMap<PathBuf, Artifact>,
}

impl Builds {
    /// The built program, or an error carrying the compiler's message.
    pub fn get(
        &mut self,
        engine: &mut Engine,
        source: &Path,
        role: &str,
    ) -> Result<Artifact, SetterError> {
        if let Some(a) = self.built.get(source) {
            return Ok(a.clone());
        }
        match engine.build(source)? {
            (Some(a), _) => {
                self.built.insert(source.to_path_buf(), a.clone());
                Ok(a)
            }
            (None, report) => Err(SetterError::Other(format!(
                "{}: the {role} does not compile:\n{}",
                source.display(),
                report.message
            ))),
        }
    }
}

/// Runs a jury program (generator, reference) and returns its stdout, or why it failed.
pub fn run_for_output(
    engine: &mut Engine,
    artifact: &Artifact,
    args: &[String],
    stdin: Option<&Path>,
    limits: crate::sandbox::Limits,
    what: &str,
) -> Result<Vec<u8>, String> {
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let (run, out, err) = engine
        .execute(artifact, &args, stdin, &[], limits.clone())
        .map_err(|e| format!("could not run the {what}: {e}"))?;
    let stderr = crate::build::read_capped(&err, 2000);
    let bytes = std::fs::read(&out).unwrap_or_default();
    let _ = (std::fs::remove_file(&out), std::fs::remove_file(&err));
    if let Some(parent) = out.parent() {
        let _ = std::fs::remove_dir(parent);
    }
    if let Some((verdict, message)) = crate::verdict::classify_run(&run, limits.memory) {
        let tail = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        let tail = if tail.is_empty() {
            String::new()
        } else {
            format!("; stderr: {tail}")
        };
        return Err(format!(
            "the {what} failed: {} ({message}){tail}",
            verdict.code()
        ));
    }
    Ok(bytes)
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
