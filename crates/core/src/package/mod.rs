//! Problem packages: one problem model ([`Problem`]), several loaders. The format is detected from
//! the package's files ([`Format::detect`]) and each loader lives in its own place: `native.rs`
//! (`problem.toml`), `kattis/` (`problem.yaml` + `data/`), `polygon.rs` (`problem.xml`). Each
//! reads its files into their raw shape first (`raw/`: the files as written, one file per
//! format, kept apart from the model) and validates that into the model. Adding a format is one
//! raw shape, one loader and one line in [`Format`]. Units are normalised at this boundary:
//! durations and bytes in the model, whatever the package wrote.
//!
//! Every error names the file (and line and column where the format allows) and says how to fix
//! it; what a package says that the judge does not read is a warning naming file and key; what
//! the judge cannot honour is an error naming it.

mod inputs;
pub mod kattis;
mod native;
pub mod polygon;
mod program;
mod raw;
pub mod recipe;
pub mod scored;
pub use inputs::{sha256, Inputs, TestInputs};
mod select;

pub use program::{folder_program, main_file, program_from, Unclear};
pub(crate) use program::{visible_entries, SOURCE_EXTENSIONS};
pub use scored::Scored;
pub use select::{glob_match, select_tests};

use crate::checker::testlib;
use crate::checker::Builtin;
use judge_model::TimeRule;
use judge_model::Verdict;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MIB: u64 = 1024 * 1024;

/// The package formats the judge reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `problem.toml`.
    Native,
    /// Kattis / ICPC `problem.yaml` without `problem_format_version` (or `legacy`).
    KattisLegacy,
    /// Kattis `problem_format_version: 2025-09`.
    Kattis2025,
    /// Codeforces Polygon `problem.xml`.
    Polygon,
}

impl Format {
    /// The format of the package in `dir`, from its files (`None`: not a package).
    pub fn detect(dir: &Path) -> Option<Format> {
        if dir.join("problem.toml").is_file() {
            Some(Format::Native)
        } else if dir.join("problem.xml").is_file() {
            Some(Format::Polygon)
        } else if dir.join("problem.yaml").is_file() && dir.join("data").is_dir() {
            Some(kattis::version(dir))
        } else {
            None
        }
    }

    /// The name `inspect` and the JSON documents use.
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::KattisLegacy => "kattis-legacy",
            Format::Kattis2025 => "kattis-2025-09",
            Format::Polygon => "polygon",
        }
    }

    /// The family a language entry's `formats` names (`lang::FORMAT_NAMES`): both Kattis
    /// versions are `kattis`.
    pub fn family(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::KattisLegacy | Format::Kattis2025 => "kattis",
            Format::Polygon => "polygon",
        }
    }

    /// The file that describes a package of this format.
    pub fn main_file(self) -> &'static str {
        match self {
            Format::Native => "problem.toml",
            Format::KattisLegacy | Format::Kattis2025 => "problem.yaml",
            Format::Polygon => "problem.xml",
        }
    }
}

/// A validated problem package.
#[derive(Debug, Clone)]
pub struct Problem {
    /// Directory name, e.g. `snake`.
    pub slug: String,
    pub dir: PathBuf,
    pub format: Format,
    pub name: String,
    pub source: Option<String>,
    pub limits: ProblemLimits,
    /// Where each limit came from (for `inspect` and `run`'s notes).
    pub origin: LimitOrigin,
    /// How a time limit follows from the accepted solutions' times: the package's own rule
    /// (Kattis `time_multiplier(s)`, `time_resolution`), else [`TimeRule::usual`]. `verify`
    /// advises with it.
    pub time_rule: TimeRule,
    /// The package states no time limit but its accepted solutions may give one (Kattis):
    /// `run` and `verify` derive it with `time_rule`.
    pub derive_time: bool,
    pub checker: CheckerSpec,
    /// An interactive problem's interactor: the program the solution talks to through pipes
    /// (`crate::engine::interactive`). With the Kattis protocol it also decides the verdict; with the
    /// testlib one it writes `tout`, which `checker` then checks.
    pub interactor: Option<Program>,
    /// In judging order: samples first, then the rest, each group in its format's order.
    pub tests: Vec<TestCase>,
    /// Test groups in order (names like `secret/group1`), with what the package says of them.
    pub groups: Vec<Group>,
    /// The native package's `validator.<ext>` if it has one (`gen`, `stress` and `verify` run it).
    pub validator: Option<PathBuf>,
    /// Every input validator, with its protocol (the native one included).
    pub validators: Vec<Program>,
    /// Files the solution reads and writes instead of stdin / stdout (Polygon `input-file`).
    pub io: FileIo,
    /// The package's own solutions with the verdicts they must get (Kattis `submissions/`,
    /// Polygon `<solutions>`; a native package keeps them in `solutions/<slug>/`, read by verify).
    pub solutions: Vec<Solution>,
    /// Files copied into every submission before it is built, per Kattis language code
    /// (`include/<language>/`, else `include/default/`).
    pub includes: std::collections::BTreeMap<String, Vec<PathBuf>>,
    /// How to make what a package leaves out (Polygon packages without their generated tests or
    /// answers): its generators and main solution.
    pub rebuild: Rebuild,
    /// Kattis 2025-09 `constants`: `name` and `name.variant` with their values, replaced in
    /// validators, included files, the package's submissions and group arguments.
    pub constants: Vec<(String, String)>,
    /// What the package says that the judge does not read (file and key named).
    pub warnings: Vec<PackageError>,
    /// A scored problem: how its tests add up to a score (`None`: pass-fail). Every test of a
    /// scored problem is judged.
    pub scoring: Option<crate::score::Scoring>,
    /// A multi-pass problem (Kattis `multi-pass`): the most passes per test (the output
    /// validator asks for another with `nextpass.in` and exit 42).
    pub passes: Option<u32>,
    /// The package's own grader (Kattis legacy `graders/`), which makes the result of each
    /// group with `grading: custom` (`crate::score::grader`); the engine builds and runs it.
    pub grader: Option<Program>,
    /// Which Python runs the package's `.py` programs (native problem.toml `python`); a run's
    /// `--python` wins (`crate::lang::Python`).
    pub python: Option<crate::lang::Python>,
}

impl Problem {
    /// Makes `languages` build this package's programs: its format's entries, and the
    /// languages it names for its solutions (Polygon's `type`).
    pub fn set_languages(&self, languages: &mut crate::lang::Languages) {
        languages.set_format(self.format.family());
        languages.set_package_python(self.python);
        for s in &self.solutions {
            if let Some(declared) = &s.language {
                languages.pin(&s.path, declared);
            }
        }
    }

    /// The main file the package names for the multi-file solution in folder `source`. For
    /// Java the entrypoint may be the main class (`Main`, `contest.Main`): its file.
    pub fn entrypoint_of(&self, source: &Path) -> Option<PathBuf> {
        let entry = self
            .solutions
            .iter()
            .find(|s| s.path == source)
            .and_then(|s| s.entrypoint.as_ref())?;
        let file = source.join(entry);
        if file.is_file() {
            return Some(file);
        }
        let class = entry.rsplit('.').next().unwrap_or(entry);
        let java = source.join(format!("{class}.java"));
        Some(if java.is_file() { java } else { file })
    }

    /// The files to build along with the submission `source` (Kattis `include/`).
    pub fn included_files(&self, source: &Path) -> &[PathBuf] {
        if self.includes.is_empty() {
            return &[];
        }
        let main = if source.is_dir() {
            std::fs::read_dir(source)
                .ok()
                .and_then(|mut d| {
                    d.find_map(|e| {
                        let p = e.ok()?.path();
                        kattis::language_code(&p).map(|_| p)
                    })
                })
                .unwrap_or_else(|| source.to_path_buf())
        } else {
            source.to_path_buf()
        };
        kattis::language_code(&main)
            .and_then(|code| self.includes.get(code))
            .or_else(|| self.includes.get("default"))
            .map_or(&[], Vec::as_slice)
    }
}

/// A solution of the package and what it must get.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// A source file, or a folder holding a multi-file program.
    pub path: PathBuf,
    /// The final verdicts the package allows (the first failing test's, or AC).
    pub expected: Vec<Verdict>,
    /// Kattis `permitted`: every test's verdict must be one of these (`None`: no such rule).
    pub permitted: Option<Vec<Verdict>>,
    /// Why: "folder submissions/wrong_answer/", "Polygon tag `main`", "@EXPECTED_RESULTS@: …".
    pub rule: String,
    /// The main file of a multi-file solution when the package names it (Kattis `entrypoint`).
    pub entrypoint: Option<String>,
    /// The score it must get (a scored problem's Kattis `score` or `partially_accepted/`).
    pub score: Option<judge_model::score::Expected>,
    /// Requirements on some of its tests (Kattis `submissions.yaml` keyed by test groups, and
    /// `message`): checked on every test, so a solution with any is judged to the end.
    pub rules: Vec<TestRule>,
    /// The language the package names for it (Polygon's `type`, e.g. `python.pypy3`): a table
    /// entry listing it in `aliases` builds it where installed ([`crate::lang::Languages::pin`]).
    pub language: Option<String>,
}

/// A requirement on the tests a pattern names (Kattis `submissions.yaml`: `permitted`,
/// `required`, `score` and `message` under a test group's name).
#[derive(Debug, Clone, PartialEq)]
pub struct TestRule {
    /// Test glob relative to `data/` after brace expansion (`secret/*-hard`): a test matches
    /// when it or one of its groups does. Empty: every test.
    pub tests: Vec<String>,
    pub permitted: Option<Vec<Verdict>>,
    pub required: Option<Vec<Verdict>>,
    /// The score of the group the pattern names.
    pub score: Option<judge_model::score::Expected>,
    /// Must appear in the message of at least one of the tests.
    pub message: Option<String>,
    /// Where it comes from, for messages: "submissions.yaml `wa/odd.py` › `sample`".
    pub origin: String,
}

impl TestRule {
    /// Whether the test named `name` (`secret/g1/3`) is one of the rule's: it, or a group
    /// above it, matches a pattern.
    pub fn covers(&self, name: &str) -> bool {
        if self.tests.is_empty() {
            return true;
        }
        let parts: Vec<&str> = name.split('/').collect();
        (1..=parts.len()).any(|n| {
            let prefix = parts[..n].join("/");
            self.tests.iter().any(|p| kattis::glob_match(p, &prefix))
        })
    }
}

/// Where each limit came from, e.g. "problem.xml <time-limit> 2000 ms".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LimitOrigin {
    pub time: String,
    pub memory: String,
    pub output: String,
}

/// How the judge talks to a jury program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// testlib: `checker input output answer`, exit 0 AC, 1 WA, 2 PE, 3 fail; a validator reads
    /// the input on stdin and exits 0 for valid.
    Testlib,
    /// Kattis: `validator input answer feedback_dir [args] < output`, exit 42 AC, 43 WA, anything
    /// else a judge error; an input validator exits 42 for valid.
    Kattis,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Testlib => "testlib",
            Protocol::Kattis => "kattis",
        }
    }
}

/// A jury program in the package (custom checker or input validator).
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The source file that is built.
    pub source: PathBuf,
    pub protocol: Protocol,
    /// Files copied next to the source before building (headers such as `testlib.h`, modules).
    pub helpers: Vec<PathBuf>,
    /// Arguments for every run (before any per-test ones).
    pub args: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CheckerSpec {
    Builtin(Builtin),
    /// A checker built from the package.
    Custom(Program),
}

impl CheckerSpec {
    /// For messages: "built-in tokens", "custom checker.cpp (testlib protocol)".
    pub fn describe(&self) -> String {
        match self {
            CheckerSpec::Builtin(b) => format!("built-in {}", builtin_name(b)),
            CheckerSpec::Custom(p) => format!(
                "custom {} ({} protocol)",
                p.source.display(),
                p.protocol.name()
            ),
        }
    }
}

/// Replaces each `{{name}}` of `constants` in `text` (undefined names stay as they are).
pub fn substitute(text: &str, constants: &[(String, String)]) -> String {
    let mut out = text.to_string();
    for (name, value) in constants {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

/// A built-in checker's name as packages write it.
pub fn builtin_name(b: &Builtin) -> String {
    match b {
        Builtin::Exact => "exact".into(),
        Builtin::Lines => "lines".into(),
        Builtin::Tokens => "tokens".into(),
        Builtin::Float { absolute, relative } => {
            format!("float (absolute {absolute}, relative {relative})")
        }
        Builtin::Testlib(s) => format!("testlib {}", s.name()),
        Builtin::Kattis(f) => {
            let mut flags = Vec::new();
            if f.case_sensitive {
                flags.push("case_sensitive".to_string());
            }
            if f.space_change_sensitive {
                flags.push("space_change_sensitive".to_string());
            }
            if let Some(e) = f.float_absolute_tolerance {
                flags.push(format!("float_absolute_tolerance {e}"));
            }
            if let Some(e) = f.float_relative_tolerance {
                flags.push(format!("float_relative_tolerance {e}"));
            }
            if flags.is_empty() {
                "kattis default validator (case-insensitive)".into()
            } else {
                format!("kattis default validator ({})", flags.join(", "))
            }
        }
    }
}

/// The programs that make a package's missing tests: generators by name (as `cmd` lines call
/// them) and the main solution (for answers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rebuild {
    pub generators: std::collections::BTreeMap<String, Program>,
    pub main: Option<PathBuf>,
}

/// Files the solution uses instead of stdin / stdout, in its working folder.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileIo {
    pub input: Option<String>,
    pub output: Option<String>,
}

/// A test group and what the package says of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// `sample`, `secret/group1` (Kattis), `1` (Polygon).
    pub name: String,
    /// Polygon's points (the scoring model is [`Problem::scoring`]).
    pub points: Option<f64>,
    pub points_policy: Option<String>,
    pub dependencies: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProblemLimits {
    pub time: Duration,
    pub wall: Duration,
    /// Bytes.
    pub memory: u64,
    pub stack: u64,
    pub output: u64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestCase {
    pub name: String,
    pub input: PathBuf,
    pub answer: PathBuf,
    pub sample: bool,
    /// The group the test belongs to (empty: none).
    pub group: String,
    /// Arguments for the output checker on this test (Kattis `output_validator_args`, inherited
    /// and per case): flags of the default validator, or extra arguments of a custom one.
    pub checker_args: Vec<String>,
    /// Arguments for the input validators on this test.
    pub validator_args: Vec<String>,
    /// Polygon's points of the test (kept for scoring).
    pub points: Option<f64>,
    /// An interactive problem's sample exchange (Kattis `.interaction`: lines `<` judge to
    /// solution, `>` solution to judge), shown and checked against the interactor.
    pub interaction: Option<PathBuf>,
    /// The input is not in the package: the generator command (name, then arguments) that makes
    /// it ([`Problem::rebuild`]).
    pub generate: Option<Vec<String>>,
    /// The answer is not in the package: the main solution's output on the input is.
    pub answer_missing: bool,
}

/// A problem in a package: which file, where, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageError {
    pub file: PathBuf,
    /// 1-based line and column, when the problem is at a place in the file.
    pub position: Option<(usize, usize)>,
    pub message: String,
    pub hint: Option<String>,
}

impl PackageError {
    pub fn new(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        PackageError {
            file: file.into(),
            position: None,
            message: message.into(),
            hint: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn at(mut self, text: &str, offset: usize) -> Self {
        self.position = Some(line_column(text, offset));
        self
    }
}

impl fmt::Display for PackageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PackageError {}

pub use crate::text::line_column;

/// Resolves a PROBLEM argument: a package directory (any format), or a slug under `./problems`.
pub fn locate(arg: &str) -> Result<PathBuf, PackageError> {
    let direct = Path::new(arg);
    if Format::detect(direct).is_some() {
        return Ok(direct.to_path_buf());
    }
    let under = Path::new("problems").join(arg);
    if Format::detect(&under).is_some() {
        return Ok(under);
    }
    let base = if direct.is_dir() { direct } else { &under };
    let mut err = PackageError::new(base, format!("no problem package `{arg}` found"));
    if base.join("problem.yaml").is_file() {
        err.message = "problem.yaml without a data/ folder".to_string();
        if base.join("generators/generators.yaml").is_file() {
            // BAPCtools writes data/ from generators/generators.yaml.
            return Err(err.hint(
                "its tests are described by generators/generators.yaml (BAPCtools): run `bt generate` there first, then judge the package with its data/",
            ));
        }
        return Err(err.hint("a Kattis package keeps its tests in data/sample and data/secret"));
    }
    Err(err.hint(
        "give a package directory (holding problem.toml, problem.yaml + data/, or problem.xml) or the slug of a folder under ./problems",
    ))
}

/// Every package under `root` (folders of any format), in natural order.
pub fn discover(root: &Path) -> Result<Vec<PathBuf>, PackageError> {
    let entries = std::fs::read_dir(root).map_err(|e| {
        PackageError::new(root, format!("cannot read the problems folder: {e}"))
            .hint("run from the repository root, or name the problems to verify")
    })?;
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| Format::detect(p).is_some())
        .collect();
    dirs.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
    Ok(dirs)
}

impl Problem {
    /// Reads and validates the package in `dir`, whatever its format.
    pub fn load(dir: &Path) -> Result<Problem, PackageError> {
        Self::load_with(dir, true)
    }

    /// Like [`Problem::load`], but tests may lack their answers (and there may be none yet): for
    /// `judge gen`, which writes them.
    pub fn load_inputs(dir: &Path) -> Result<Problem, PackageError> {
        Self::load_with(dir, false)
    }

    fn load_with(dir: &Path, strict: bool) -> Result<Problem, PackageError> {
        match Format::detect(dir) {
            Some(Format::Native) | None => native::load(dir, strict),
            Some(Format::KattisLegacy | Format::Kattis2025) => kattis::load(dir, strict),
            Some(Format::Polygon) => polygon::load(dir, strict),
        }
    }
}

/// The directory's name, e.g. `snake`.
fn slug_of(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "problem".into())
}

/// "wcmp, lcmp, …" for messages.
fn testlib_names() -> String {
    testlib::NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Natural order: digit runs compare as numbers, so `test2` sorts before `test10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (&a[..na], &b[..nb]);
                let ta = trim_zeros(da);
                let tb = trim_zeros(db);
                let ord = ta
                    .len()
                    .cmp(&tb.len())
                    .then_with(|| ta.cmp(tb))
                    .then_with(|| na.cmp(&nb));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z..]
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod formats_tests;

impl Problem {
    /// The `problem_started` event for this loaded package.
    pub fn started_event(&self) -> judge_model::Event {
        judge_model::Event::ProblemStarted {
            problem: self.slug.clone(),
            dir: self.dir.display().to_string(),
            name: self.name.clone(),
            tests: self.tests.iter().map(|t| t.name.clone()).collect(),
            time_limit_ms: self.limits.time,
            memory_limit_kib: self.limits.memory / 1024,
        }
    }
}
