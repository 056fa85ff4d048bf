//! The on-disk shape of `problem.toml`, exactly as serde reads it, with spans for errors at a line
//! and column. Validation into the model lives in `package/native.rs`; keeping the two apart means
//! every default and every range check is written once. The native format is the judge's own, so
//! an unknown key is an error here (`deny_unknown_fields`: a typo must not pass unnoticed), where
//! the formats of other tools only warn.

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    pub name: Spanned<String>,
    pub source: Option<String>,
    /// Which Python runs the package's `.py` programs: `pypy` or `cpython` (unset: CPython).
    pub python: Option<Spanned<String>>,
    pub limits: Spanned<Limits>,
    pub checker: Option<Spanned<Checker>>,
    /// `[[group]]` tables: a scored problem's test groups.
    #[serde(default)]
    pub group: Vec<Spanned<Group>>,
    /// An interactive problem's interactor: `[interactor] source = "interactor.rs"`,
    /// `protocol = "kattis" | "testlib"`, `files = [...]` (read by hand, for clear errors).
    pub interactor: Option<Spanned<toml::Value>>,
}

/// A test group with points.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub name: Spanned<String>,
    /// Test names or patterns (`*`, `?`, `[a-z]`) under `tests/`.
    pub tests: Spanned<Vec<String>>,
    pub points: Spanned<f64>,
    /// `all` (default): the points only when every test passes; `each`: the points split evenly
    /// over the tests, each passing test scoring its share.
    pub policy: Option<Spanned<String>>,
    /// Groups whose every test must pass for this one to score.
    #[serde(default)]
    pub requires: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub time_limit: Spanned<f64>,
    pub memory: Spanned<f64>,
    pub wall_time_limit: Option<Spanned<f64>>,
    pub output: Option<Spanned<f64>>,
    pub stack: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checker {
    pub kind: Option<Spanned<CheckerKind>>,
    pub float_absolute_tolerance: Option<Spanned<f64>>,
    pub float_relative_tolerance: Option<Spanned<f64>>,
    /// kind = "kattis": both tolerances at once.
    pub float_tolerance: Option<Spanned<f64>>,
    /// kind = "kattis".
    pub case_sensitive: Option<Spanned<bool>>,
    pub space_change_sensitive: Option<Spanned<bool>>,
    /// kind = "testlib": a standard checker's name.
    pub name: Option<Spanned<String>>,
    pub source: Option<Spanned<String>>,
    /// kind = "custom": how the judge talks to it (testlib by default).
    pub protocol: Option<Spanned<Protocol>>,
    /// kind = "custom": helper files built with the checker (headers).
    pub files: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Testlib,
    Kattis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckerKind {
    Exact,
    Lines,
    Tokens,
    Float,
    Custom,
    Testlib,
    Kattis,
}
