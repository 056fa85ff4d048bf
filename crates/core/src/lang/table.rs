//! Loading the language table (the embedded `languages.toml`, or a file of the same format)
//! and checking each entry: a mistake names the file, and the line and column where it can.

use super::{LangError, Language, Languages, FORMAT_NAMES};
use serde::Deserialize;
use std::path::{Path, PathBuf};

const BUILTIN: &str = include_str!("languages.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    language: Vec<Language>,
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
            if let Err(message) = check_entry(l) {
                return Err(LangError::Table { file, message });
            }
        }
        Ok(Languages {
            languages: table.language,
            format: None,
            pins: Vec::new(),
            python: super::python_for_run(),
            package_python: None,
        })
    }
}

/// What is wrong with an entry the format allows: an empty `run`, a package format the judge
/// does not know, a readable path that is not absolute.
fn check_entry(l: &Language) -> Result<(), String> {
    if l.run.is_empty() {
        return Err(format!("language `{}` has an empty `run` command", l.name));
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
        return Err(format!(
            "language `{}`: unknown package format `{f}` in `formats` (known: {})",
            l.name,
            FORMAT_NAMES.join(", ")
        ));
    }
    if let Some(p) = paths
        .into_iter()
        .find(|p| !p.starts_with('/') && !p.starts_with('{'))
    {
        return Err(format!(
            "language `{}`: the readable path `{p}` is not absolute (the sandbox shows host paths at the same place)",
            l.name
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_override_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("langs.toml");
        std::fs::write(&f, "[[language]]\nname = \"X\"\nextensions = [\"x\"]\nrun = [\"x\"]\nsource_name = \"a\"\nbogus = 1\n").unwrap();
        let err = Languages::load(Some(&f)).unwrap_err().to_string();
        assert!(err.contains("langs.toml:6:1"), "{err}");
        assert!(err.contains("unknown field `bogus`"), "{err}");
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
