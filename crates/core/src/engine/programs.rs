//! Building and running programs: a solution's build (with the build cache), a jury program's
//! build with its helper files, and one run of an artifact in the sandbox with its output files.

use super::*;

impl Engine {
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
            return match self.folder_program(source)? {
                Ok(program) => self.build_program(&program),
                Err(report) => Ok((None, report)),
            };
        }
        let dir = self.build_dir()?;
        let gate = self.gate.clone();
        let _ticket = gate.as_deref().map(|g| g.enter(self.exclusive));
        let built = build::build_with(
            &mut self.sandbox,
            &self.languages,
            source,
            &dir,
            self.build_files,
        );
        if let Err(BuildError::Sandbox(_)) = &built {
            self.sandbox_failed = true;
        }
        Ok(built?)
    }

    /// A submission given as a folder (Kattis: several files): its program by the language's
    /// rules (`crate::package::main_file`), or the compile error saying why the folder cannot
    /// be built (no source, two languages as often, no main file among several): a folder a
    /// judge cannot build is the submission's compile error, never a judge error.
    pub(crate) fn folder_program(
        &self,
        source: &Path,
    ) -> Result<Result<Program, CompileReport>, EngineError> {
        Ok(
            crate::package::folder_program(source, Protocol::Testlib, "program")?.map_err(
                |unclear| CompileReport {
                    language: String::new(),
                    ok: false,
                    cached: false,
                    time: Duration::ZERO,
                    message: format!(
                        "{}: the folder {}\n  hint: {}",
                        source.display(),
                        unclear.what(),
                        unclear.hint()
                    ),
                },
            ),
        )
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
        Ok(build::build_with(
            &mut self.sandbox,
            &self.languages,
            &source,
            &dir,
            self.build_files,
        )?)
    }

    /// Builds the problem's checker (only custom checkers need building), and its grader if it
    /// has one.
    pub fn prepare_checker(&mut self, problem: &Problem) -> Result<Checker, EngineError> {
        let checker = self.prepare_output_checker(problem)?;
        self.prepare_grader(problem)?;
        crate::engine::interactive::prepare(self, problem, checker)
    }

    fn prepare_output_checker(&mut self, problem: &Problem) -> Result<Checker, EngineError> {
        match &problem.checker {
            CheckerSpec::Builtin(b) => Ok(Checker::Builtin(b.clone())),
            CheckerSpec::Custom(program) => {
                match self.build_program_with(program, &problem.constants)? {
                    (Some(a), _) => {
                        Ok(Checker::Custom(a, program.protocol, program.source.clone()))
                    }
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
}

/// Copies the folder `from` to `to` (files and folders; links followed).
pub(crate) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
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
pub(super) fn is_driver(file: &Path) -> bool {
    let name = file
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    name == "__main__.py" || name.split_once('.').is_some_and(|(stem, _)| stem == "main")
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

/// The first `cap` bytes of a file as text, flagged when the file was longer (a character cut
/// in two at the end is left out).
pub fn capture_head(path: &Path, cap: usize) -> Captured {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else {
        return Captured::default();
    };
    let mut buf = Vec::new();
    let _ = f.take(cap as u64 + 1).read_to_end(&mut buf);
    let truncated = buf.len() > cap;
    buf.truncate(cap);
    if truncated {
        if let Err(e) = std::str::from_utf8(&buf) {
            if e.error_len().is_none() {
                buf.truncate(e.valid_up_to());
            }
        }
    }
    Captured {
        text: String::from_utf8_lossy(&buf).into_owned(),
        truncated,
    }
}

/// The last `cap` bytes of a file as text, starting at a line boundary when cut, flagged when
/// the file was longer.
pub fn capture_tail(path: &Path, cap: usize) -> Captured {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Captured {
        text: read_tail(path, cap as u64),
        truncated: len > cap as u64,
    }
}
