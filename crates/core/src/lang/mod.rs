//! The language table: how to compile and run a source file, chosen by its extension.
//!
//! The table is embedded (`languages.toml`) and can be replaced by a file of the same format.
//! Each entry also names the paths its toolchain needs besides the system folders (the sandbox
//! shows nothing else of the host): for both steps, or for the compile or the run step alone.
//!
//! `table.rs` loads and checks the table; `paths.rs` the paths each step may read (`*`
//! patterns); `placeholders.rs` fills in a command's words and finds its program; this file
//! holds the entry and picks the one that builds a source (by name, extension, the package's
//! format and its pins).

pub mod java;
mod paths;
mod placeholders;
mod table;
mod version;

pub use paths::existing;
pub use placeholders::{expand, expand_for_run, resolve_program, RUN_PLACEHOLDERS};
pub use version::version_line;

use serde::Deserialize;
use std::path::{Path, PathBuf};

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

impl Language {
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

    /// Whether the entry names the class a Java source starts from (`{class}`, `{main_class}`):
    /// the build then reads it from the source ([`java::main_class`]).
    pub fn wants_main_class(&self) -> bool {
        std::iter::once(&self.source_name)
            .chain(&self.compile)
            .chain(&self.run)
            .any(|w| w.contains("{class}") || w.contains("{main_class}"))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LangError {
    #[error("{file}: {message}")]
    Table { file: String, message: String },
    #[error("unknown language `{0}`\n  hint: the judge knows {1}")]
    Unknown(String, String),
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
    /// The Python chosen for this run (`--python`), over the package's.
    python: Option<Python>,
    /// The Python the package asks for (problem.toml `python`).
    package_python: Option<Python>,
}

/// Which Python runs `.py` programs when one is chosen (`--python`, problem.toml `python`):
/// PyPy (as Kattis runs Python) or CPython (as DOMjudge's `python3` does). Unchosen, a Kattis
/// package's Python runs with PyPy where installed and every other with CPython.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Python {
    PyPy,
    CPython,
}

impl Python {
    /// `pypy` or `cpython`.
    pub fn parse(word: &str) -> Option<Python> {
        match word {
            "pypy" => Some(Python::PyPy),
            "cpython" => Some(Python::CPython),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Python::PyPy => "pypy",
            Python::CPython => "cpython",
        }
    }
}

/// The Python chosen for every table this process loads (`--python`), set once at start.
static RUN_PYTHON: std::sync::OnceLock<Python> = std::sync::OnceLock::new();

/// Chooses the Python of this run (`judge --python`): every language table loaded from now on
/// runs `.py` programs with it, whatever the package asks.
pub fn choose_python_for_run(python: Python) {
    let _ = RUN_PYTHON.set(python);
}

fn python_for_run() -> Option<Python> {
    RUN_PYTHON.get().copied()
}

/// Whether an entry runs Python with PyPy.
fn is_pypy(l: &Language) -> bool {
    l.run.first().is_some_and(|w| w.contains("pypy"))
}

impl Languages {
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

    /// The entry called `name` (its name or one of its aliases, in any case) that builds
    /// sources (one with extensions): what a submission naming its language asks for. An entry
    /// that serves here comes before one that does not.
    pub fn named(&self, name: &str) -> Option<&Language> {
        let called = |l: &&Language| {
            !l.extensions.is_empty()
                && (l.name.eq_ignore_ascii_case(name)
                    || l.aliases.iter().any(|a| a.eq_ignore_ascii_case(name)))
        };
        let mut candidates = self.languages.iter().filter(called);
        let first = candidates.clone().next()?;
        Some(candidates.find(|l| self.serves(l)).unwrap_or(first))
    }

    /// `source` is in the language called `name` ([`Languages::named`]), whatever its file
    /// name says: a submission whose language was given. Until the next
    /// [`Languages::set_format`].
    pub fn pin_named(&mut self, source: &Path, name: &str) -> Result<&Language, LangError> {
        let Some(found) = self.named(name) else {
            return Err(LangError::Unknown(name.to_string(), self.names()));
        };
        let i = self
            .languages
            .iter()
            .position(|l| std::ptr::eq(l, found))
            .expect("an entry of the table");
        self.pins.push((canonical(source), i));
        Ok(&self.languages[i])
    }

    /// The names a submission may give, for a message: the entries that build sources.
    pub fn names(&self) -> String {
        self.languages
            .iter()
            .filter(|l| !l.extensions.is_empty())
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The Python the package asks for (problem.toml `python`); a run's `--python` wins.
    pub fn set_package_python(&mut self, python: Option<Python>) {
        self.package_python = python;
    }

    /// The Python chosen, by the run or else by the package.
    pub fn python(&self) -> Option<Python> {
        self.python.or(self.package_python)
    }

    /// Whether `l` serves here: an entry for all formats, or one for this package's format
    /// whose commands are found on this machine. With a Python chosen, a Python entry serves
    /// when it is that Python's (PyPy only where installed: else CPython, with a note).
    fn serves(&self, l: &Language) -> bool {
        let python = l.extensions.iter().any(|e| e == "py");
        match (self.python(), python) {
            (Some(Python::PyPy), true) if is_pypy(l) => l.installed(),
            (Some(Python::PyPy), true) => l.formats.is_empty() && !self.pypy_installed(),
            (Some(Python::CPython), true) if is_pypy(l) => false,
            _ => l.formats.is_empty() || (self.for_this_format(l) && l.installed()),
        }
    }

    fn pypy_installed(&self) -> bool {
        self.languages
            .iter()
            .any(|l| is_pypy(l) && l.extensions.iter().any(|e| e == "py") && l.installed())
    }

    /// Whether `l` is meant for this package: for its format, or the PyPy asked for.
    fn for_this_format(&self, l: &Language) -> bool {
        match self.python() {
            Some(Python::PyPy) if is_pypy(l) => true,
            Some(Python::CPython) if is_pypy(l) => false,
            _ => self
                .format
                .is_some_and(|f| l.formats.iter().any(|n| n == f)),
        }
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
                let pinned = &self.languages[*i];
                // A chosen Python is over the package's word for one source.
                let overruled =
                    self.python().is_some() && pinned.extensions.iter().any(|e| e == "py");
                if !overruled {
                    return Ok(pinned);
                }
            }
        }
        let serving = || self.languages.iter().filter(|l| self.serves(l));
        let by_name = name
            .as_deref()
            .and_then(|name| serving().find(|l| l.file_names.iter().any(|f| f == name)));
        by_name
            .or_else(|| serving().find(|l| l.has_extension_of(source)))
            .ok_or_else(|| {
                // Entries matched by whole file name only (the Kattis `run` / `build` scripts)
                // have no extension to offer.
                let all: Vec<String> = self
                    .languages
                    .iter()
                    .filter(|l| !l.extensions.is_empty())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_extension_lists_the_extensions_of_the_table_only() {
        let l = Languages::load(None).unwrap();
        let e = l.for_source(Path::new("a.xyz")).unwrap_err().to_string();
        assert!(
            e.starts_with("a.xyz: unsupported file type\n  hint: supported extensions: "),
            "{e}"
        );
        assert!(e.contains("C++ (cpp, cc, cxx"), "{e}");
        assert!(!e.contains("()"), "{e}");
        assert!(!e.contains("Kattis run script"), "{e}");
    }

    #[test]
    fn a_language_given_by_name_wins_over_the_file_name_until_the_next_package() {
        let mut l = Languages::load(None).unwrap();
        assert_eq!(l.named("c++").unwrap().name, "C++");
        assert_eq!(l.named("PYTHON 3").unwrap().name, "Python 3");
        assert!(l.named("Kattis run script").is_none(), "builds no source");
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("solution.txt");
        std::fs::write(&source, "int main() {}").unwrap();
        assert!(l.for_source(&source).is_err());
        assert_eq!(l.pin_named(&source, "c").unwrap().name, "C");
        assert_eq!(l.for_source(&source).unwrap().name, "C");
        let err = l.pin_named(&source, "Scala").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown language `Scala`\n  hint: the judge knows C++, C, Rust"),
            "{err}"
        );
        l.set_format("native");
        assert!(l.for_source(&source).is_err(), "a pin lasts one package");
    }

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

    /// A chosen Python (`--python`, problem.toml `python`) decides which Python entry serves,
    /// whatever the format; PyPy chosen but missing leaves CPython, with a note.
    #[test]
    fn a_chosen_python_serves_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let pypy = dir.path().join("pypy3");
        std::fs::write(&pypy, "").unwrap();
        let entry = |name: &str, formats: &str, program: &str| {
            format!("[[language]]\nname = \"{name}\"\nextensions = [\"py\"]\nsource_name = \"a.py\"\n{formats}aliases = [\"python.{name}\"]\nrun = [\"{program}\", \"{{src}}\"]\n")
        };
        let text = [
            entry(
                "PyPy",
                "formats = [\"kattis\"]\n",
                &pypy.display().to_string(),
            ),
            entry("CPython", "", "/bin/sh"),
        ]
        .concat();
        let mut l = table(&text);
        let src = Path::new("sol.py");
        let serving = |l: &Languages, format: &str| {
            let mut l = l.clone();
            l.set_format(format);
            l.for_source(src).unwrap().name.clone()
        };
        assert_eq!(
            (serving(&l, "kattis"), serving(&l, "native")),
            ("PyPy".into(), "CPython".into())
        );
        l.set_package_python(Some(Python::PyPy));
        assert_eq!(
            (serving(&l, "kattis"), serving(&l, "native")),
            ("PyPy".into(), "PyPy".into())
        );
        l.set_package_python(Some(Python::CPython));
        assert_eq!(
            (serving(&l, "kattis"), serving(&l, "polygon")),
            ("CPython".into(), "CPython".into())
        );
        // Over a Polygon solution's declared type too, and no note of a missing PyPy.
        let sol = dir.path().join("sol.py");
        std::fs::write(&sol, "").unwrap();
        l.set_format("polygon");
        l.pin(&sol, "python.PyPy");
        assert_eq!(l.for_source(&sol).unwrap().name, "CPython");
        // PyPy asked for where it is missing: CPython serves, and a note says so.
        let text = [
            entry("PyPy", "formats = [\"kattis\"]\n", "/nonexistent/pypy3"),
            entry("CPython", "", "/bin/sh"),
        ]
        .concat();
        let mut l = table(&text);
        l.set_package_python(Some(Python::PyPy));
        l.set_format("native");
        assert_eq!(l.for_source(src).unwrap().name, "CPython");
        let notes = l.fallback_notes([src]);
        assert!(
            notes[0].contains("`/nonexistent/pypy3` is not installed: CPython serves instead"),
            "{notes:?}"
        );
        assert_eq!(Python::parse("pypy"), Some(Python::PyPy));
        assert_eq!(Python::parse("PyPy"), None);
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
}
