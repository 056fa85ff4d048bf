//! `tests.toml` (how generated tests are made) and `checker_tests.toml` (tests of a custom checker).

use super::{line_column, PackageError};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    #[serde(default)]
    generator_time_limit: Option<toml::Spanned<f64>>,
    #[serde(default)]
    test: Vec<toml::Spanned<RawGenerated>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGenerated {
    name: String,
    generator: String,
    #[serde(default)]
    args: Vec<toml::Spanned<RawArg>>,
}

/// An argument as written: text, or a number (or another value) someone forgot to quote.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawArg {
    Text(String),
    Other(toml::Value),
}

impl RawArg {
    /// The argument as text: a string's own text, another value as TOML writes it.
    fn text(&self) -> String {
        match self {
            RawArg::Text(t) => t.clone(),
            RawArg::Other(v) => v.to_string(),
        }
    }
}

/// One generated test: `generator args...` prints `tests/<name>.in`.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub name: String,
    /// Path of the generator source inside the package.
    pub generator: PathBuf,
    pub args: Vec<String>,
}

/// `tests.toml`: the generated tests and how generators run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recipe {
    pub tests: Vec<Generated>,
    /// CPU time each generator run may use (`generator_time_limit`, seconds); `None`: the default.
    pub generator_time_limit: Option<Duration>,
}

/// The longest `generator_time_limit` accepted (a generator is not a solution to benchmark).
pub const MAX_GENERATOR_TIME_LIMIT: f64 = 600.0;

/// Reads `tests.toml` of the package in `dir`; no file means no generated tests.
pub fn load_recipe(dir: &Path) -> Result<Recipe, PackageError> {
    let path = dir.join("tests.toml");
    let Some(text) = read_optional(&path)? else {
        return Ok(Recipe::default());
    };
    let raw: RawRecipe = parse(&path, &text)?;
    let generator_time_limit = match &raw.generator_time_limit {
        None => None,
        Some(limit) => Some(generator_time_limit(*limit.get_ref()).map_err(|why| {
            PackageError::new(
                &path,
                format!("generator_time_limit = {}: {why}", limit.get_ref()),
            )
            .at(&text, limit.span().start)
            .hint("seconds of CPU time per generator run, e.g. generator_time_limit = 10.0")
        })?),
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for entry in raw.test {
        let at = |msg: String| PackageError::new(&path, msg).at(&text, entry.span().start);
        let t = entry.get_ref();
        if t.name.is_empty()
            || !t
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(
                at(format!("test name `{}` is not a plain file name", t.name))
                    .hint("use letters, digits, '-', '_' and '.' only"),
            );
        }
        if !seen.insert(t.name.clone()) {
            return Err(at(format!("test `{}` is listed twice", t.name))
                .hint("give each test its own name"));
        }
        let generator = dir.join(&t.generator);
        if !generator.is_file() {
            return Err(at(format!(
                "generator `{}` does not exist",
                generator.display()
            ))
            .hint("the path is relative to the package folder"));
        }
        if let Some(arg) = t
            .args
            .iter()
            .find(|a| matches!(a.get_ref(), RawArg::Other(_)))
        {
            let RawArg::Other(value) = arg.get_ref() else {
                unreachable!("found as Other")
            };
            let quoted: Vec<String> = t
                .args
                .iter()
                .map(|a| format!("{:?}", a.get_ref().text()))
                .collect();
            return Err(PackageError::new(
                &path,
                format!(
                    "test `{}`: argument {value} is {}, not a string",
                    t.name,
                    match value {
                        toml::Value::Integer(_) | toml::Value::Float(_) => "a number",
                        toml::Value::Boolean(_) => "a boolean",
                        toml::Value::Array(_) => "an array",
                        toml::Value::Table(_) => "a table",
                        _ => "not text",
                    }
                ),
            )
            .at(&text, arg.span().start)
            .hint(format!(
                "quote each argument: args = [{}]",
                quoted.join(", ")
            )));
        }
        out.push(Generated {
            name: t.name.clone(),
            generator,
            args: t.args.iter().map(|a| a.get_ref().text()).collect(),
        });
    }
    Ok(Recipe {
        tests: out,
        generator_time_limit,
    })
}

/// A generator time limit in seconds, checked: positive and at most [`MAX_GENERATOR_TIME_LIMIT`].
pub fn generator_time_limit(seconds: f64) -> Result<Duration, String> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err("not a positive number of seconds".into());
    }
    if seconds > MAX_GENERATOR_TIME_LIMIT {
        return Err(format!(
            "more than {MAX_GENERATOR_TIME_LIMIT} s; a generator that slow is better run once by hand"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheckerTests {
    #[serde(default)]
    case: Vec<toml::Spanned<RawCheckerCase>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheckerCase {
    name: String,
    test: String,
    output: String,
    expect: String,
}

/// A contestant output that the checker must judge as `expect` (AC, WA or PE).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckerCase {
    pub name: String,
    /// Name of the package test whose .in and .ans are used.
    pub test: String,
    pub output: String,
    pub expect: String,
}

/// Reads `checker_tests.toml`; no file means no checker tests.
pub fn load_checker_tests(
    dir: &Path,
    test_names: &[&str],
) -> Result<Vec<CheckerCase>, PackageError> {
    let path = dir.join("checker_tests.toml");
    let Some(text) = read_optional(&path)? else {
        return Ok(Vec::new());
    };
    let raw: RawCheckerTests = parse(&path, &text)?;
    let mut out = Vec::new();
    for entry in raw.case {
        let at = |msg: String| PackageError::new(&path, msg).at(&text, entry.span().start);
        let c = entry.get_ref();
        if !["AC", "WA", "PE"].contains(&c.expect.as_str()) {
            return Err(at(format!(
                "case `{}`: expect = \"{}\" is not AC, WA or PE",
                c.name, c.expect
            )));
        }
        if !test_names.contains(&c.test.as_str()) {
            return Err(at(format!(
                "case `{}`: no test named `{}` in tests/",
                c.name, c.test
            ))
            .hint("`test` names a test of the package whose .in and .ans the checker gets"));
        }
        out.push(CheckerCase {
            name: c.name.clone(),
            test: c.test.clone(),
            output: c.output.clone(),
            expect: c.expect.clone(),
        });
    }
    Ok(out)
}

fn read_optional(path: &Path) -> Result<Option<String>, PackageError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PackageError::new(path, format!("cannot read: {e}"))),
    }
}

fn parse<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, PackageError> {
    toml::from_str(text).map_err(|e| {
        let mut err = PackageError::new(path, e.message().to_string());
        if let Some(span) = e.span() {
            err.position = Some(line_column(text, span.start));
        }
        err
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(text: &str) -> Result<Recipe, PackageError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("gen.py"), "print(1)\n").unwrap();
        std::fs::write(dir.path().join("tests.toml"), text).unwrap();
        load_recipe(dir.path())
    }

    #[test]
    fn the_generator_time_limit_is_read_and_checked() {
        let r =
            recipe("generator_time_limit = 2.5\n[[test]]\nname = \"a\"\ngenerator = \"gen.py\"\n")
                .unwrap();
        assert_eq!(r.generator_time_limit, Some(Duration::from_millis(2500)));
        assert_eq!(r.tests.len(), 1);
        assert_eq!(recipe("").unwrap().generator_time_limit, None);
        let e = recipe("generator_time_limit = -1.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("tests.toml:1:"), "{e}");
        assert!(e.contains("not a positive number of seconds"), "{e}");
        assert!(e.contains("hint:"), "{e}");
        let e = recipe("generator_time_limit = 1e9\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 600 s"), "{e}");
    }

    #[test]
    fn unquoted_numbers_in_args_get_a_hint_to_quote_them() {
        let e = recipe("[[test]]\nname = \"a\"\ngenerator = \"gen.py\"\nargs = [1, \"x\", 10]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tests.toml:4:9: test `a`: argument 1 is a number, not a string"),
            "{e}"
        );
        assert!(
            e.contains(r#"hint: quote each argument: args = ["1", "x", "10"]"#),
            "{e}"
        );
        let r = recipe("[[test]]\nname = \"a\"\ngenerator = \"gen.py\"\nargs = [\"1\", \"10\"]\n")
            .unwrap();
        assert_eq!(r.tests[0].args, ["1", "10"]);
    }
}
