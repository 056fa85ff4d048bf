//! The language table: how to compile and run a source file, chosen by its extension.
//!
//! The table is embedded (`languages.toml`) and can be replaced by a file of the same format.
//! Each entry also names the paths its toolchain needs besides the system folders (the sandbox
//! shows nothing else of the host): for both steps, or for the compile or the run step alone.

pub mod java;

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const BUILTIN: &str = include_str!("languages.toml");

/// The syntax check of the Python entries (`{python_check}` in a command).
const PYTHON_CHECK: &str = include_str!("python_check.py");

/// The names `formats` may hold: the package formats' families (`package::Format::family`).
pub const FORMAT_NAMES: [&str; 3] = ["native", "kattis", "polygon"];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    pub name: String,
    pub extensions: Vec<String>,
    /// Whole file names (no extension) this entry builds: a Kattis program folder's `build`
    /// and `run` scripts.
    #[serde(default)]
    pub file_names: Vec<String>,
    /// Name the source gets inside the build folder.
    pub source_name: String,
    #[serde(default)]
    pub compile: Vec<String>,
    pub run: Vec<String>,
    /// The package formats this entry is for (`native`, `kattis`, `polygon`); empty: all. An
    /// entry for some formats serves only when its commands are found on this machine.
    #[serde(default)]
    pub formats: Vec<String>,
    /// Names a package may give this language for one of its programs (Polygon's solution
    /// `type`, e.g. `python.pypy3`): such a program is built with this entry where installed.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Paths (files or folders) the compiler and the program may read, besides the system
    /// folders. `*` in a path matches within one folder level; a path missing here is skipped.
    #[serde(default)]
    pub readable: Vec<String>,
    /// Paths only the compiler may read.
    #[serde(default)]
    pub compile_readable: Vec<String>,
    /// Paths only the program may read.
    #[serde(default)]
    pub run_readable: Vec<String>,
    /// Text whose presence in the stderr of a program that failed means it ran out of memory
    /// (MLE, not RE): a runtime that stops at its own heap limit (the JVM's
    /// `java.lang.OutOfMemoryError`) before the sandbox sees the limit.
    #[serde(default)]
    pub out_of_memory: Option<String>,
}

/// A step of building and running a program: each sees its own paths of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Compile,
    Run,
}

/// Placeholders a run command may hold that are filled in when the program runs, from the
/// limits of that run: the memory limit and the stack limit in MiB (the stack at most 1024 MiB,
/// the largest a JVM thread may have).
pub const RUN_PLACEHOLDERS: [&str; 2] = ["{memory_mib}", "{stack_mib}"];

/// Fills in [`RUN_PLACEHOLDERS`] in one word of a run command.
pub fn expand_for_run(word: &str, memory: u64, stack: u64) -> String {
    if !word.contains('{') {
        return word.to_string();
    }
    word.replace("{memory_mib}", &(memory >> 20).max(1).to_string())
        .replace("{stack_mib}", &(stack >> 20).clamp(1, 1024).to_string())
}

impl Language {
    /// Whether the entry names the class a Java source starts from (`{class}`, `{main_class}`):
    /// the build then reads it from the source ([`java::main_class`]).
    /// Whether `source`'s extension (in any case) is one of this entry's.
    fn has_extension_of(&self, source: &Path) -> bool {
        source.extension().is_some_and(|e| {
            self.extensions
                .contains(&e.to_string_lossy().to_lowercase())
        })
    }

    /// The first missing program among the first words of its commands, if any.
    fn missing_program(&self) -> Option<String> {
        [&self.compile, &self.run]
            .into_iter()
            .filter_map(|c| c.first())
            .filter(|w| !w.starts_with('{'))
            .find(|w| resolve_program(w).is_err())
            .cloned()
    }

    /// Whether the programs its commands start with are found on this machine.
    pub fn installed(&self) -> bool {
        self.missing_program().is_none()
    }

    pub fn wants_main_class(&self) -> bool {
        std::iter::once(&self.source_name)
            .chain(&self.compile)
            .chain(&self.run)
            .any(|w| w.contains("{class}") || w.contains("{main_class}"))
    }

    /// The paths listed for `step`, placeholders expanded, as written (before `*` expansion).
    pub fn listed_paths(
        &self,
        step: Step,
        src: &Path,
        exe: &Path,
    ) -> Result<Vec<String>, LangError> {
        let own = match step {
            Step::Compile => &self.compile_readable,
            Step::Run => &self.run_readable,
        };
        self.readable
            .iter()
            .chain(own)
            .map(|p| expand(p, src, exe))
            .collect()
    }

    /// The host paths `step` may read: the listed paths with `*` expanded, those missing on
    /// this machine left out.
    pub fn paths(&self, step: Step, src: &Path, exe: &Path) -> Result<Vec<PathBuf>, LangError> {
        Ok(self
            .listed_paths(step, src, exe)?
            .iter()
            .flat_map(|p| existing(p))
            .collect())
    }
}

/// The existing paths a listed path names: itself, or for a pattern, every match in name order.
pub fn existing(pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::from("/")];
    for part in Path::new(pattern).components().skip(1) {
        let part = part.as_os_str().to_string_lossy();
        found = found
            .into_iter()
            .flat_map(|dir| {
                if !part.contains('*') {
                    return vec![dir.join(&*part)];
                }
                let mut matches: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|e| wildcard_match(&part, &e.file_name().to_string_lossy()))
                    .map(|e| e.path())
                    .collect();
                matches.sort();
                matches
            })
            .collect();
    }
    found.retain(|p| Path::new(pattern).is_absolute() && p.exists());
    found
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
fn wildcard_match(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else {
        return rest.is_empty();
    };
    for part in parts {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    language: Vec<Language>,
}

#[derive(Debug, thiserror::Error)]
pub enum LangError {
    #[error("{file}: {message}")]
    Table { file: String, message: String },
    #[error("{0}: unsupported file type\n  hint: supported extensions: {1}")]
    Unsupported(String, String),
    #[error("cannot find `{0}` in PATH\n  hint: install it, or point the language table at it (--languages FILE)")]
    NotFound(String),
    #[error("cannot ask rustc for its sysroot: {0}\n  hint: install Rust with rustup, or point the Rust entry of the language table at a rustc")]
    RustSysroot(String),
}

impl LangError {
    /// One line for a note about a program that cannot be built here ("no toolchain for .hs
    /// files in the language table").
    pub fn short(&self) -> String {
        match self {
            LangError::Unsupported(file, _) => {
                let ext = Path::new(file)
                    .extension()
                    .map(|e| format!(".{}", e.to_string_lossy()))
                    .unwrap_or_else(|| "extension-less".into());
                format!("no toolchain for {ext} files in the language table")
            }
            other => other
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
        }
    }
}

/// The language table in force.
#[derive(Debug, Clone)]
pub struct Languages {
    languages: Vec<Language>,
    /// The format of the package whose programs are built ([`Languages::set_format`]).
    format: Option<&'static str>,
    /// Sources the package names a language for, with the entry that builds them
    /// ([`Languages::pin`]).
    pins: Vec<(PathBuf, usize)>,
}

impl Languages {
    /// The built-in table, or the file named by `path` (or by JUDGE_LANGUAGES) instead.
    pub fn load(path: Option<&Path>) -> Result<Languages, LangError> {
        let env = std::env::var_os("JUDGE_LANGUAGES").map(PathBuf::from);
        let (file, text) = match path.map(Path::to_path_buf).or(env) {
            Some(p) => {
                let text = std::fs::read_to_string(&p).map_err(|e| LangError::Table {
                    file: p.display().to_string(),
                    message: format!("cannot read the language table: {e}"),
                })?;
                (p.display().to_string(), text)
            }
            None => ("<built-in languages.toml>".to_string(), BUILTIN.to_string()),
        };
        let table: Table = toml::from_str(&text).map_err(|e| {
            let pos = e
                .span()
                .map(|s| {
                    let (l, c) = crate::text::line_column(&text, s.start);
                    format!(":{l}:{c}")
                })
                .unwrap_or_default();
            LangError::Table {
                file: format!("{file}{pos}"),
                message: e.message().to_string(),
            }
        })?;
        for l in &table.language {
            if l.run.is_empty() {
                return Err(LangError::Table {
                    file,
                    message: format!("language `{}` has an empty `run` command", l.name),
                });
            }
            let paths = l
                .readable
                .iter()
                .chain(&l.compile_readable)
                .chain(&l.run_readable);
            if let Some(f) = l
                .formats
                .iter()
                .find(|f| !FORMAT_NAMES.contains(&f.as_str()))
            {
                return Err(LangError::Table {
                    file,
                    message: format!(
                        "language `{}`: unknown package format `{f}` in `formats` (known: {})",
                        l.name,
                        FORMAT_NAMES.join(", ")
                    ),
                });
            }
            if let Some(p) = paths
                .into_iter()
                .find(|p| !p.starts_with('/') && !p.starts_with('{'))
            {
                return Err(LangError::Table {
                    file,
                    message: format!(
                        "language `{}`: the readable path `{p}` is not absolute (the sandbox shows host paths at the same place)",
                        l.name
                    ),
                });
            }
        }
        Ok(Languages {
            languages: table.language,
            format: None,
            pins: Vec::new(),
        })
    }

    /// Every language of the table, in its order.
    pub fn all(&self) -> &[Language] {
        &self.languages
    }

    /// The entries for every package format (no `formats`), in the table's order: what a
    /// native package is judged with, and what the practice page offers.
    pub fn general(&self) -> impl Iterator<Item = &Language> {
        self.languages.iter().filter(|l| l.formats.is_empty())
    }

    /// Builds from now on are for a package of `format`: entries for some formats apply (and
    /// the pins of the package before are gone).
    pub fn set_format(&mut self, family: &str) {
        self.format = FORMAT_NAMES.iter().copied().find(|n| *n == family);
        self.pins.clear();
    }

    /// `source` is in the language the package calls `declared` (Polygon's `python.pypy3`): the
    /// entry with that alias builds it, when installed with an extension of the source's.
    pub fn pin(&mut self, source: &Path, declared: &str) {
        let found = self.languages.iter().position(|l| {
            l.aliases.iter().any(|a| a == declared) && l.has_extension_of(source) && l.installed()
        });
        if let Some(i) = found {
            self.pins.push((canonical(source), i));
        }
    }

    /// Whether `l` serves here: an entry for all formats, or one for this package's format
    /// whose commands are found on this machine.
    fn serves(&self, l: &Language) -> bool {
        l.formats.is_empty() || (self.for_this_format(l) && l.installed())
    }

    fn for_this_format(&self, l: &Language) -> bool {
        self.format
            .is_some_and(|f| l.formats.iter().any(|n| n == f))
    }

    /// What `run` and `verify` say when an entry meant for this package's format does not
    /// serve some of `sources` because its program is missing here: one note per entry.
    pub fn fallback_notes<'a>(&self, sources: impl IntoIterator<Item = &'a Path>) -> Vec<String> {
        let sources: Vec<&Path> = sources.into_iter().collect();
        let mut notes = Vec::new();
        for l in self.languages.iter().filter(|l| self.for_this_format(l)) {
            let Some(program) = l.missing_program() else {
                continue;
            };
            let Some(source) = sources.iter().find(|s| l.has_extension_of(s)) else {
                continue;
            };
            let instead = self
                .for_source(source)
                .map(|i| format!("{} serves instead", i.name))
                .unwrap_or_else(|_| "nothing else serves them".into());
            notes.push(format!(
                "this package's format runs {} with {}, but `{program}` is not installed: {instead}, and its times may differ from the package's (install `{program}`, e.g. apt-get install {program})",
                l.extensions
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                l.name,
            ));
        }
        notes
    }

    /// The language of a source file, by its whole name, else its extension.
    pub fn for_source(&self, source: &Path) -> Result<&Language, LangError> {
        let name = source.file_name().map(|n| n.to_string_lossy());
        if !self.pins.is_empty() {
            let source = canonical(source);
            if let Some((_, i)) = self.pins.iter().find(|(p, _)| *p == source) {
                return Ok(&self.languages[*i]);
            }
        }
        let serving = || self.languages.iter().filter(|l| self.serves(l));
        let by_name = name
            .as_deref()
            .and_then(|name| serving().find(|l| l.file_names.iter().any(|f| f == name)));
        by_name
            .or_else(|| serving().find(|l| l.has_extension_of(source)))
            .ok_or_else(|| {
                let all: Vec<String> = self
                    .languages
                    .iter()
                    .map(|l| format!("{} ({})", l.name, l.extensions.join(", ")))
                    .collect();
                LangError::Unsupported(source.display().to_string(), all.join("; "))
            })
    }
}

/// The path a pin is kept under, however the source was named.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Expands placeholders in one word of a command.
pub fn expand(word: &str, src: &Path, exe: &Path) -> Result<String, LangError> {
    let mut out = word
        .replace("{src}", &src.to_string_lossy())
        .replace("{exe}", &exe.to_string_lossy());
    if out.contains("{python_check}") {
        out = out.replace("{python_check}", PYTHON_CHECK);
    }
    if out.contains("{rust_sysroot}") {
        out = out.replace("{rust_sysroot}", &rust_sysroot()?.to_string_lossy());
    }
    Ok(out)
}

/// Turns a command's first word into an absolute path (PATH lookup).
pub fn resolve_program(word: &str) -> Result<PathBuf, LangError> {
    let p = Path::new(word);
    if p.is_absolute() {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(LangError::NotFound(word.to_string()))
        };
    }
    if word.contains('/') {
        return std::fs::canonicalize(p).map_err(|_| LangError::NotFound(word.to_string()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(word))
        .find(|c| c.is_file())
        .ok_or_else(|| LangError::NotFound(word.to_string()))
}

fn rust_sysroot() -> Result<PathBuf, LangError> {
    static SYSROOT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    SYSROOT
        .get_or_init(|| {
            let out = std::process::Command::new("rustc")
                .args(["--print", "sysroot"])
                .output()
                .map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
            }
            let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
            Ok(PathBuf::from(s))
        })
        .clone()
        .map_err(LangError::RustSysroot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_covers_the_five_languages() {
        let l = Languages::load(None).unwrap();
        for (file, name) in [
            ("a.cpp", "C++"),
            ("a.cc", "C++"),
            ("a.c", "C"),
            ("a.rs", "Rust"),
            ("a.py", "Python 3"),
            ("a.java", "Java"),
        ] {
            assert_eq!(l.for_source(Path::new(file)).unwrap().name, name);
        }
        let err = l.for_source(Path::new("a.scala")).unwrap_err().to_string();
        assert!(err.contains("a.scala: unsupported file type"), "{err}");
    }

    /// The Java entry: the copy and the program named after the main class, the heap and the
    /// stack from each run's limits, an OutOfMemoryError an MLE.
    #[test]
    fn the_java_entry_takes_its_class_and_limits_from_the_run() {
        let l = Languages::load(None).unwrap();
        let java = l.for_source(Path::new("a.java")).unwrap();
        assert!(java.wants_main_class());
        assert_eq!(java.source_name, "{class}.java");
        assert!(java.run.iter().any(|w| w == "-Xmx{memory_mib}m"));
        assert!(java.run.iter().any(|w| w == "-Xss{stack_mib}m"));
        assert_eq!(java.run.last().unwrap(), "{main_class}");
        assert_eq!(
            java.out_of_memory.as_deref(),
            Some("java.lang.OutOfMemoryError")
        );
        assert!(!l.for_source(Path::new("a.cpp")).unwrap().wants_main_class());
        let (mib, gib) = (1u64 << 20, 1u64 << 30);
        assert_eq!(
            expand_for_run("-Xmx{memory_mib}m", 256 * mib, 0),
            "-Xmx256m"
        );
        assert_eq!(expand_for_run("-Xss{stack_mib}m", 0, 64 * mib), "-Xss64m");
        // The stack at most 1 GiB (the JVM refuses more), never 0.
        assert_eq!(expand_for_run("-Xss{stack_mib}m", 0, 4 * gib), "-Xss1024m");
        assert_eq!(expand_for_run("{stack_mib}/{memory_mib}", 1, 1), "1/1");
        assert_eq!(expand_for_run("plain", 1, 1), "plain");
    }

    #[test]
    fn a_broken_override_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        std::fs::write(&f, "[[language]]\nname = \"X\"\nextensions = [\"x\"]\nrun = [\"x\"]\nsource_name = \"a\"\nbogus = 1\n").unwrap();
        let err = Languages::load(Some(&f)).unwrap_err().to_string();
        assert!(err.contains("langs.toml:6:1"), "{err}");
        assert!(err.contains("unknown field `bogus`"), "{err}");
    }

    fn table(text: &str) -> Languages {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        std::fs::write(&f, text).unwrap();
        Languages::load(Some(&f)).unwrap()
    }

    /// An entry for some formats serves their packages when its program is found, and the next
    /// entry for the extension serves everything else, with a note when it stands in.
    #[test]
    fn an_entry_for_a_format_serves_it_when_installed() {
        let entry = |name: &str, formats: &str, program: &str| {
            format!("[[language]]\nname = \"{name}\"\nextensions = [\"py\"]\nsource_name = \"a.py\"\n{formats}run = [\"{program}\", \"{{src}}\"]\n")
        };
        let text = [
            entry("Fast", "formats = [\"kattis\"]\n", "/bin/sh"),
            entry("Absent", "formats = [\"polygon\"]\n", "/nonexistent/pypy"),
            entry("Plain", "", "/bin/sh"),
        ]
        .concat();
        let mut l = table(&text);
        let src = Path::new("sol.py");
        assert_eq!(l.for_source(src).unwrap().name, "Plain", "no format yet");
        for (format, name) in [
            ("kattis", "Fast"),
            ("native", "Plain"),
            ("polygon", "Plain"),
        ] {
            l.set_format(format);
            assert_eq!(l.for_source(src).unwrap().name, name, "{format:?}");
        }
        // Polygon's entry is missing here: a note for Python sources only.
        assert!(l.fallback_notes([Path::new("a.cpp")]).is_empty());
        let notes = l.fallback_notes([Path::new("a.cpp"), src]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("runs .py with Absent, but `/nonexistent/pypy` is not installed: Plain serves instead"),
            "{notes:?}"
        );
        l.set_format("kattis");
        assert!(l.fallback_notes([src]).is_empty());
        // A format the judge does not know is refused, naming it.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        std::fs::write(&f, entry("X", "formats = [\"codeforces\"]\n", "/bin/sh")).unwrap();
        let err = Languages::load(Some(&f)).unwrap_err().to_string();
        assert!(err.contains("unknown package format `codeforces`"), "{err}");
    }

    /// A source the package names a language for is built with the entry of that alias, when
    /// installed, whatever the format; other sources are not.
    #[test]
    fn a_pinned_source_is_built_with_the_entry_of_its_alias() {
        let text = "[[language]]\nname = \"Fast\"\nextensions = [\"py\"]\nsource_name = \"a.py\"\nformats = [\"kattis\"]\naliases = [\"python.fast\"]\nrun = [\"/bin/sh\"]\n\
            [[language]]\nname = \"Gone\"\nextensions = [\"py\"]\nsource_name = \"a.py\"\nformats = [\"kattis\"]\naliases = [\"python.gone\"]\nrun = [\"/nonexistent/x\"]\n\
            [[language]]\nname = \"Plain\"\nextensions = [\"py\"]\nsource_name = \"a.py\"\nrun = [\"/bin/sh\"]\n";
        let mut l = table(text);
        let dir = tempfile::tempdir().unwrap();
        let [a, b, c] = ["a.py", "b.py", "c.py"].map(|n| {
            let p = dir.path().join(n);
            std::fs::write(&p, "").unwrap();
            p
        });
        l.set_format("polygon");
        l.pin(&a, "python.fast");
        l.pin(&b, "python.gone");
        assert_eq!(l.for_source(&a).unwrap().name, "Fast");
        // Named another way, the same file.
        let other = dir.path().join(".").join("a.py");
        assert_eq!(l.for_source(&other).unwrap().name, "Fast");
        assert_eq!(l.for_source(&b).unwrap().name, "Plain", "not installed");
        assert_eq!(l.for_source(&c).unwrap().name, "Plain", "not pinned");
        // The next package starts afresh.
        l.set_format("polygon");
        assert_eq!(l.for_source(&a).unwrap().name, "Plain");
    }

    /// The built-in table runs a Kattis package's Python with PyPy when it is installed.
    #[test]
    fn kattis_python_is_pypy_where_installed() {
        let mut l = Languages::load(None).unwrap();
        l.set_format("kattis");
        let name = &l.for_source(Path::new("a.py")).unwrap().name;
        let pypy = resolve_program("pypy3").is_ok();
        assert_eq!(name, if pypy { "Python 3 (PyPy)" } else { "Python 3" });
        assert_eq!(l.fallback_notes([Path::new("a.py")]).is_empty(), pypy);
        l.set_format("native");
        assert_eq!(l.for_source(Path::new("a.py")).unwrap().name, "Python 3");
    }

    fn language(toml_entry: &str) -> Language {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        let text = format!("[[language]]\nname = \"X\"\nextensions = [\"x\"]\nsource_name = \"a.x\"\nrun = [\"{{exe}}\"]\n{toml_entry}");
        std::fs::write(&f, text).unwrap();
        let l = Languages::load(Some(&f)).unwrap();
        l.all()[0].clone()
    }

    /// The compiler sees `readable` and `compile_readable`, the program `readable` and
    /// `run_readable`; a path missing here is skipped.
    #[test]
    fn compile_and_run_see_their_own_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path().display().to_string();
        for d in ["both", "compiler", "program"] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        let l = language(&format!(
            "readable = [\"{t}/both\", \"{t}/missing\"]\ncompile_readable = [\"{t}/compiler\"]\nrun_readable = [\"{t}/program\"]\n"
        ));
        let (src, exe) = (Path::new("/b/a.x"), Path::new("/b/prog"));
        assert_eq!(
            l.paths(Step::Compile, src, exe).unwrap(),
            vec![tmp.path().join("both"), tmp.path().join("compiler")]
        );
        assert_eq!(
            l.paths(Step::Run, src, exe).unwrap(),
            vec![tmp.path().join("both"), tmp.path().join("program")]
        );
        assert_eq!(
            l.listed_paths(Step::Run, src, exe).unwrap(),
            vec![
                format!("{t}/both"),
                format!("{t}/missing"),
                format!("{t}/program")
            ]
        );
    }

    /// The built-in Rust entry lets only the compiler see the toolchain.
    #[test]
    fn the_rust_toolchain_is_for_the_compiler_only() {
        let l = Languages::load(None).unwrap();
        let rust = l.for_source(Path::new("a.rs")).unwrap();
        assert_eq!(rust.compile_readable, vec!["{rust_sysroot}".to_string()]);
        assert!(rust.readable.is_empty() && rust.run_readable.is_empty());
    }

    /// `*` matches within one folder level, in name order; a pattern matching nothing is
    /// nothing.
    #[test]
    fn patterns_match_within_one_folder_level() {
        let tmp = tempfile::tempdir().unwrap();
        for d in [
            "java-17-openjdk",
            "java-21-openjdk",
            "java-21-openjdk/security",
            "javascript",
        ] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        let t = tmp.path().display().to_string();
        assert_eq!(
            existing(&format!("{t}/java-*-openjdk")),
            vec![
                tmp.path().join("java-17-openjdk"),
                tmp.path().join("java-21-openjdk")
            ]
        );
        assert_eq!(
            existing(&format!("{t}/*/security")),
            vec![tmp.path().join("java-21-openjdk/security")]
        );
        assert_eq!(
            existing(&format!("{t}/j*t")),
            vec![tmp.path().join("javascript")]
        );
        assert!(existing(&format!("{t}/python-*")).is_empty());
        assert!(existing(&format!("{t}/missing")).is_empty());
        assert!(wildcard_match("a*b*c", "aXbYc") && !wildcard_match("a*b*c", "aXc"));
        assert!(wildcard_match("*", "") && !wildcard_match("ab*ba", "aba"));
    }

    /// A relative readable path is an error naming the file and the language.
    #[test]
    fn a_relative_readable_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        std::fs::write(&f, "[[language]]\nname = \"X\"\nextensions = [\"x\"]\nrun = [\"x\"]\nsource_name = \"a\"\nrun_readable = [\"etc/x\"]\n").unwrap();
        let err = Languages::load(Some(&f)).unwrap_err().to_string();
        assert!(err.contains("langs.toml"), "{err}");
        assert!(
            err.contains("language `X`: the readable path `etc/x` is not absolute"),
            "{err}"
        );
    }
}
