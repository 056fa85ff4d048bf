//! Building a source file into something runnable, inside the sandbox, under compile limits;
//! `cache` keeps what was built for the next judge.

pub mod cache;

use crate::executor::Executor;
use crate::lang::{self, LangError, Languages, Step};
use judge_model::result::CompileReport;
use judge_sandbox::termination_text;
use judge_sandbox::{Limits, RunSpec, SandboxError, Termination};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Compiler messages kept for the report.
const MESSAGE_CAP: usize = 8 * 1024;

/// Limits for a compiler run: generous for real code, small enough to stop compiler bombs.
pub fn compile_limits() -> Limits {
    Limits {
        cpu: Duration::from_secs(30),
        wall: Duration::from_secs(60),
        memory: 2 << 30,
        stack: 256 << 20,
        output: 1 << 20,
        stderr: 256 << 10,
        processes: 64,
    }
}

/// A built program: what to execute, and what it may read.
#[derive(Debug, Clone)]
pub struct Artifact {
    pub language: String,
    /// Absolute path of the program to execute, then its arguments.
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Paths the program must be able to read (the build folder, a runtime's folder).
    pub readable: Vec<PathBuf>,
    /// Stderr text of a failed run that means the runtime ran out of memory (the language's
    /// `out_of_memory`): MLE, not RE.
    pub out_of_memory: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot read {path}: {source}")]
    Source {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Lang(#[from] LangError),
    #[error("cannot prepare the build folder {path}: {source}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("sandbox failed while compiling: {0}")]
    Sandbox(#[from] SandboxError),
}

/// The environment every sandboxed program gets (nothing is inherited from the judge).
pub fn base_env(home: &Path) -> Vec<(OsString, OsString)> {
    vec![
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), home.as_os_str().to_owned()),
        ("TMPDIR".into(), "/tmp".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ]
}

/// Compiles `source` in the fresh folder `dir`. `Ok((None, report))` is a compilation error.
///
/// With a cache installed ([`cache::install`]) an unchanged program is not compiled again: its
/// files are copied from the cache into `dir` and the report says `cached`.
pub fn build(
    sandbox: &mut dyn Executor,
    languages: &Languages,
    source: &Path,
    dir: &Path,
) -> Result<(Option<Artifact>, CompileReport), BuildError> {
    build_with(sandbox, languages, source, dir, BUILD_FILES)
}

/// The largest file a compiler may write, unless the problem's memory limit is larger.
pub const BUILD_FILES: u64 = 256 << 20;

/// Removes everything in a build folder (not following symbolic links): after a failed restore
/// from the cache, or before a service slot builds its next submission there. Tries every
/// entry; the first failure, if any, is the error.
pub(crate) fn empty_folder(dir: &Path) -> std::io::Result<()> {
    let mut result = Ok(());
    for entry in std::fs::read_dir(dir)? {
        let removed = entry.and_then(|e| match e.file_type()?.is_dir() {
            true => std::fs::remove_dir_all(e.path()),
            false => std::fs::remove_file(e.path()),
        });
        if result.is_ok() {
            result = removed;
        }
    }
    result
}

/// [`build`], the compiler allowed files of up to `files` bytes (the problem's memory limit
/// where it is over [`BUILD_FILES`]: an initialised static array of that size makes an
/// executable as large).
pub fn build_with(
    sandbox: &mut dyn Executor,
    languages: &Languages,
    source: &Path,
    dir: &Path,
    files: u64,
) -> Result<(Option<Artifact>, CompileReport), BuildError> {
    let language = languages.for_source(source)?;
    let bytes = std::fs::read(source).map_err(|e| BuildError::Source {
        path: source.to_path_buf(),
        source: e,
    })?;
    // Made by the caller (`Engine::fresh_dir`); never made again here: after Ctrl-C removed the
    // work folder, a build still under way must not bring it back before the process exits.
    if !dir.is_dir() {
        std::fs::create_dir(dir).map_err(folder_error(dir))?;
    }
    let mut report = CompileReport {
        language: language.name.clone(),
        ok: true,
        cached: false,
        time: Duration::ZERO,
        message: String::new(),
    };
    // A binary file (a compiled program, an archive) named like a source: said in one line,
    // where a compiler would echo kilobytes of NUL bytes back.
    if let Some(why) = not_text(language, source, &bytes) {
        report.ok = false;
        report.message = why;
        return Ok((None, report));
    }
    let mut layout = Layout::new(language, source, &bytes, dir)?;
    layout.files = files.max(BUILD_FILES);
    if language.compile.is_empty() {
        std::fs::write(&layout.src, bytes).map_err(folder_error(dir))?;
    } else {
        let outcome = compile_or_fetch(sandbox, &layout, &bytes, &mut report)?;
        let message = name_the_users_file(&outcome.message, &outcome.src, source);
        if let Some(why) = outcome.stopped {
            report.ok = false;
            report.message = if message.trim().is_empty() {
                why
            } else {
                format!("{why}\n{}", message.trim_end())
            };
            return Ok((None, report));
        }
        report.message = message;
    }
    let run = layout.expand_all(&language.run)?;
    let program = lang::resolve_program(&run[0])?;
    Ok((
        Some(Artifact {
            language: language.name.clone(),
            program,
            args: run[1..].iter().map(OsString::from).collect(),
            readable: layout.readable(Step::Run)?,
            out_of_memory: language.out_of_memory.clone(),
        }),
        report,
    ))
}

/// Why `bytes`, the source of a language picked by its extension, cannot be a program: it
/// holds a NUL byte, which no language's source text does. `None` for text, and for files a
/// language takes by their whole name (a Kattis `run` script may be any executable).
fn not_text(language: &lang::Language, source: &Path, bytes: &[u8]) -> Option<String> {
    let named = source
        .file_name()
        .is_some_and(|n| language.file_names.iter().any(|f| n == f.as_str()));
    let at = bytes.iter().position(|&b| b == 0).filter(|_| !named)?;
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    Some(format!(
        "{}: not a text file (byte {} on line {line} is NUL); a {} source is text\n  hint: give the source file, not a compiled program, an archive or another binary file",
        source.display(),
        at + 1,
        language.name
    ))
}

/// Replaces the build folder's copy of a source (e.g. `/tmp/judge-x/build-3/main.py`, as a
/// traceback names it) with the source's own name, in a message.
pub fn name_source(text: &str, artifact: &Artifact, source: &Path) -> String {
    let name = source.file_name().unwrap_or_default().to_string_lossy();
    let mut text = text.to_string();
    for arg in &artifact.args {
        let arg = arg.to_string_lossy();
        if arg.starts_with('/') && text.contains(arg.as_ref()) {
            text = text.replace(arg.as_ref(), &name);
        }
    }
    text
}

fn folder_error(dir: &Path) -> impl Fn(std::io::Error) -> BuildError + '_ {
    |e| BuildError::Folder {
        path: dir.to_path_buf(),
        source: e,
    }
}

/// The class a Java program starts from (`{class}`, the copy's name) and its qualified name
/// (`{main_class}`, what the JVM runs); both empty for other languages.
struct MainClass {
    class: String,
    qualified: String,
}

impl MainClass {
    fn of(language: &lang::Language, source: &Path, bytes: &[u8]) -> MainClass {
        // Java: the class the program starts from names the copy and the program to run.
        let (class, qualified) = if language.wants_main_class() {
            let found = lang::java::main_class(&String::from_utf8_lossy(bytes));
            let stem = source
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .unwrap_or_else(|| "Main".to_string());
            match found {
                Some(m) => (m.class.clone(), m.qualified()),
                None => (stem.clone(), stem),
            }
        } else {
            (String::new(), String::new())
        };
        MainClass { class, qualified }
    }

    fn fill(&self, word: &str) -> String {
        word.replace("{class}", &self.class)
            .replace("{main_class}", &self.qualified)
    }
}

/// A build folder as a language's commands see it: the source's copy, the program, the files
/// beside the source, and the class a Java program starts from.
struct Layout<'a> {
    language: &'a lang::Language,
    dir: &'a Path,
    src: PathBuf,
    exe: PathBuf,
    /// The files beside the source in the build folder (helpers), for `{sources}`.
    beside: Vec<PathBuf>,
    main_class: MainClass,
    /// The largest file the compiler may write.
    files: u64,
}

impl<'a> Layout<'a> {
    fn new(
        language: &'a lang::Language,
        source: &Path,
        bytes: &[u8],
        dir: &'a Path,
    ) -> Result<Layout<'a>, BuildError> {
        let main_class = MainClass::of(language, source, bytes);
        let src = dir.join(main_class.fill(&language.source_name));
        let exe = dir.join("prog");
        let mut beside: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(folder_error(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                *p != src
                    && p.extension().is_some_and(|e| {
                        let e = e.to_string_lossy().to_lowercase();
                        language.extensions.contains(&e)
                    })
            })
            .collect();
        beside.sort();
        Ok(Layout {
            language,
            dir,
            src,
            exe,
            beside,
            main_class,
            files: BUILD_FILES,
        })
    }

    /// A command's words with their placeholders filled in.
    fn expand_all(&self, words: &[String]) -> Result<Vec<String>, LangError> {
        let mut out = Vec::new();
        for w in words {
            if w == "{sources}" {
                // The source, then every file of its language beside it (a multi-file program).
                out.push(self.src.to_string_lossy().into_owned());
                out.extend(self.beside.iter().map(|p| p.to_string_lossy().into_owned()));
            } else {
                out.push(lang::expand(
                    &self.main_class.fill(w),
                    &self.src,
                    &self.exe,
                )?);
            }
        }
        Ok(out)
    }

    /// The build folder and the language's paths for each step (compile and run see their own).
    fn readable(&self, step: Step) -> Result<Vec<PathBuf>, LangError> {
        let mut paths = vec![self.dir.to_path_buf()];
        paths.extend(self.language.paths(step, &self.src, &self.exe)?);
        Ok(paths)
    }
}

/// Compiles the source in the sandbox, or restores the same build from the cache (then the
/// report says `cached`), and stores a fresh build that may be cached.
fn compile_or_fetch(
    sandbox: &mut dyn Executor,
    layout: &Layout,
    bytes: &[u8],
    report: &mut CompileReport,
) -> Result<cache::Outcome, BuildError> {
    let (language, dir) = (layout.language, layout.dir);
    let words = layout.expand_all(&language.compile)?;
    let program = lang::resolve_program(&words[0])?;
    let mut limits = compile_limits();
    if layout.files > BUILD_FILES {
        // The sandbox lets a program write files as large as its output limit, when over its
        // usual 256 MiB. Not part of the cache's key: a build that fits one cap fits a larger
        // one, and one that reached its cap is not cached.
        limits.output = layout.files;
    }
    let env = base_env(Path::new("/tmp"));
    let compile_readable = layout.readable(Step::Compile)?;
    // Helper files already in the build folder (testlib.h, a multi-file program's other
    // files, Kattis include/) are part of the key, name and bytes; a folder holding anything
    // else is not cached.
    let helpers = helper_files(dir);
    let cache = helpers.as_ref().and(cache::installed());
    let helpers = helpers.unwrap_or_default();
    let key = cache.as_ref().and_then(|c| {
        // Paths inside the build folder change with every build; they are the source's.
        let paths: Vec<PathBuf> = compile_readable
            .iter()
            .filter(|p| !p.starts_with(dir))
            .cloned()
            .collect();
        c.key(&cache::KeyInputs {
            source: bytes,
            language,
            compiler: &program,
            compile_paths: &paths,
            settings: &format!("{:?} {env:?}", compile_limits()),
            helpers: &helpers,
        })
    });
    let hit = match (&cache, &key) {
        (Some(c), Some(k)) => c.fetch(k, dir),
        _ => None,
    };
    if hit.is_none() && !helpers.is_empty() {
        // A damaged entry's restore empties the folder: the helpers go back in.
        restore_helpers(dir, &helpers).map_err(folder_error(dir))?;
    }
    if let Some(outcome) = hit {
        report.cached = true;
        return Ok(outcome);
    }
    std::fs::write(&layout.src, bytes).map_err(folder_error(dir))?;
    let spec = RunSpec {
        program,
        args: words[1..].iter().map(OsString::from).collect(),
        env,
        workdir: dir.to_path_buf(),
        stdin: None,
        stdout: dir.join(".compile.out"),
        stderr: dir.join(".compile.err"),
        readable: compile_readable,
        scratch_workdir: false,
        limits: limits.clone(),
    };
    let (outcome, time, deterministic) =
        compile(sandbox, &spec, language, &layout.src, &layout.exe)?;
    report.time = time;
    if let (Some(c), Some(k), true) = (&cache, &key, deterministic) {
        c.store(k, dir, &outcome, &helpers);
    }
    Ok(outcome)
}

/// The files in the build folder before the compiler runs (the helpers copied beside the source),
/// by name with their bytes, in name order; `None` when it holds anything but plain files (then
/// the build is not cached).
fn helper_files(dir: &Path) -> Option<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let meta = std::fs::symlink_metadata(entry.path()).ok()?;
        if !meta.is_file() {
            return None;
        }
        let name = entry.file_name().into_string().ok()?;
        files.push((name, std::fs::read(entry.path()).ok()?));
    }
    files.sort();
    Some(files)
}

/// Writes back each helper that is missing from the build folder or differs.
fn restore_helpers(dir: &Path, helpers: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    for (name, bytes) in helpers {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_ref() != Some(bytes) {
            std::fs::write(&path, bytes)?;
        }
    }
    Ok(())
}

/// Runs the compiler of `spec`. Returns what it left with the CPU time it took, and whether
/// the same source would always get the same outcome (not when a limit or a signal stopped the
/// compiler: that depends on the machine's load), i.e. whether it may be cached.
fn compile(
    sandbox: &mut dyn Executor,
    spec: &RunSpec,
    language: &lang::Language,
    src: &Path,
    exe: &Path,
) -> Result<(cache::Outcome, Duration, bool), BuildError> {
    let outcome = sandbox.run(spec)?;
    let mut message = read_capped(&spec.stderr, MESSAGE_CAP);
    let stdout = read_capped(&spec.stdout, MESSAGE_CAP);
    if !stdout.trim().is_empty() {
        message = format!("{stdout}{message}");
    }
    let limits = &spec.limits;
    let mut deterministic = false;
    let stopped = if outcome.cpu_limit_exceeded || outcome.wall_limit_exceeded {
        Some(format!(
            "the compiler ran out of time ({} s limit)",
            limits.cpu.as_secs()
        ))
    } else if outcome.memory_limit_exceeded {
        Some(format!(
            "the compiler ran out of memory ({} limit)",
            judge_model::units::mib(limits.memory)
        ))
    } else if outcome.termination == Termination::Signaled(libc::SIGXFSZ)
        || message.contains("File size limit exceeded")
    {
        // The linker writing an executable past the cap (a large initialised static array):
        // another problem's cap may hold it, so it is not cached.
        Some(format!(
            "a file the compiler wrote reached the {} cap on a build's files (the problem's memory limit, at least {})",
            judge_model::units::mib(limits.output.max(BUILD_FILES)),
            judge_model::units::mib(BUILD_FILES)
        ))
    } else if outcome.output_limit_exceeded {
        Some("the compiler printed too much".to_string())
    } else if outcome.termination != Termination::Exited(0) {
        deterministic = matches!(outcome.termination, Termination::Exited(_));
        Some(format!(
            "the compiler failed ({})",
            termination_text(outcome.termination)
        ))
    } else if !exe.exists() && language.run.iter().any(|w| w.contains("{exe}")) {
        deterministic = true;
        Some("the compiler produced no executable".to_string())
    } else {
        deterministic = true;
        None
    };
    if stopped.is_none() {
        let _ = std::fs::remove_file(&spec.stdout);
        let _ = std::fs::remove_file(&spec.stderr);
    }
    let built = cache::Outcome {
        ok: stopped.is_none(),
        stopped,
        message,
        src: src.to_path_buf(),
    };
    Ok((built, outcome.cpu_time, deterministic))
}

/// Rewrites the compiler's name for the copied source (`/tmp/judge-X/build-1/main.cpp`, or the
/// bare `main.cpp`) to the path the user gave, so messages point at the user's own file.
fn name_the_users_file(message: &str, copy: &Path, user: &Path) -> String {
    let full = copy.to_string_lossy();
    let bare = copy
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let user = user.to_string_lossy();
    // A file name continues with letters, digits, `_`, `-`, `/`, or a `.` followed by one of them.
    let name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/');
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let starts_name = before.is_none_or(|b| !(name_char(b) || b == '.'));
        let mut matched = None;
        if !full.is_empty() && rest.starts_with(full.as_ref()) {
            matched = Some(full.len());
        } else if starts_name && !bare.is_empty() && rest.starts_with(bare.as_ref()) {
            matched = Some(bare.len());
        }
        if let Some(len) = matched {
            let after = &rest[len..];
            let mut next = after.chars();
            let ends_name = match next.next() {
                None => true,
                Some('.') => !next.next().is_some_and(name_char),
                Some(n) => !name_char(n),
            };
            if ends_name {
                out.push_str(&user);
                before = rest[..len].chars().next_back();
                rest = after;
                continue;
            }
        }
        out.push(c);
        before = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Reads at most `cap` bytes of a file as text, marking the cut.
pub fn read_capped(path: &Path, cap: usize) -> String {
    use std::io::Read;
    let Ok(f) = std::fs::File::open(path) else {
        return String::new();
    };
    let mut buf = Vec::new();
    let _ = f.take(cap as u64 + 1).read_to_end(&mut buf);
    let cut = buf.len() > cap;
    buf.truncate(cap);
    let mut s = String::from_utf8_lossy(&buf).into_owned();
    if cut {
        s.push_str("\n[… cut]");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_file_named_like_a_source_is_a_one_line_compilation_error() {
        let work = tempfile::tempdir().unwrap();
        let fake = crate::executor::fake::FakeExecutor::new();
        let mut engine = fake.engine(work.path());
        let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
        elf.extend(std::iter::repeat_n(0u8, 8192));
        let source = work.path().join("a.cpp");
        std::fs::write(&source, &elf).unwrap();
        let (artifact, report) = engine.build(&source).unwrap();
        assert!(artifact.is_none());
        assert!(!report.ok);
        assert_eq!(
            report.message,
            format!(
                "{}: not a text file (byte 8 on line 1 is NUL); a Fake source is text\n  hint: give the source file, not a compiled program, an archive or another binary file",
                source.display()
            )
        );
        assert!(!report.message.contains('\0'));
        // No compiler ran.
        assert!(fake.calls().iter().all(|c| !c.compile), "compiled");
    }

    #[test]
    fn compiler_messages_name_the_users_file() {
        let copy = Path::new("/tmp/judge-Ab1/build-1/main.cpp");
        let user = Path::new("sol/my.cpp");
        let cases = [
            (
                "/tmp/judge-Ab1/build-1/main.cpp: In function 'int main()':\n\
                 /tmp/judge-Ab1/build-1/main.cpp:1:21: error: 'x' was not declared",
                "sol/my.cpp: In function 'int main()':\nsol/my.cpp:1:21: error: 'x' was not declared",
            ),
            ("main.cpp:3:5: warning", "sol/my.cpp:3:5: warning"),
            ("  --> main.cpp:3:5", "  --> sol/my.cpp:3:5"),
            ("File \"main.cpp\", line 1", "File \"sol/my.cpp\", line 1"),
            ("in main.cpp.", "in sol/my.cpp."),
            // Other files that merely contain the name stay as they are.
            ("notmain.cpp:1 main.cpp.o main.cpps x/main.cpp", "notmain.cpp:1 main.cpp.o main.cpps x/main.cpp"),
            ("/tmp/judge-Ab1/build-1/main.cppx", "/tmp/judge-Ab1/build-1/main.cppx"),
            ("héllo main.cpp", "héllo sol/my.cpp"),
            ("", ""),
        ];
        for (message, want) in cases {
            assert_eq!(name_the_users_file(message, copy, user), want, "{message}");
        }
        // The user's own path may contain the copy's name: it is not rewritten twice.
        let user = Path::new("/home/a/main.cpp");
        assert_eq!(
            name_the_users_file("/tmp/judge-Ab1/build-1/main.cpp:1: main.cpp", copy, user),
            "/home/a/main.cpp:1: /home/a/main.cpp"
        );
    }
}
