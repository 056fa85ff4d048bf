//! The language table: how to compile and run a source file, chosen by its extension.
//!
//! The table is embedded (`languages.toml`) and can be replaced by a file of the same format.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const BUILTIN: &str = include_str!("languages.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    pub name: String,
    pub extensions: Vec<String>,
    /// Name the source gets inside the build folder.
    pub source_name: String,
    #[serde(default)]
    pub compile: Vec<String>,
    pub run: Vec<String>,
    #[serde(default)]
    pub readable: Vec<String>,
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

/// The language table in force.
#[derive(Debug, Clone)]
pub struct Languages {
    languages: Vec<Language>,
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
                    let (l, c) = crate::package::line_column(&text, s.start);
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
        }
        Ok(Languages {
            languages: table.language,
        })
    }

    /// The language of a source file, by extension.
    pub fn for_source(&self, source: &Path) -> Result<&Language, LangError> {
        let ext = source
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase());
        ext.as_deref()
            .and_then(|ext| {
                self.languages
                    .iter()
                    .find(|l| l.extensions.iter().any(|e| e == ext))
            })
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

/// Expands placeholders in one word of a command.
pub fn expand(word: &str, src: &Path, exe: &Path) -> Result<String, LangError> {
    let mut out = word
        .replace("{src}", &src.to_string_lossy())
        .replace("{exe}", &exe.to_string_lossy());
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
    fn builtin_table_covers_the_four_languages() {
        let l = Languages::load(None).unwrap();
        for (file, name) in [
            ("a.cpp", "C++"),
            ("a.cc", "C++"),
            ("a.c", "C"),
            ("a.rs", "Rust"),
            ("a.py", "Python 3"),
        ] {
            assert_eq!(l.for_source(Path::new(file)).unwrap().name, name);
        }
        let err = l.for_source(Path::new("a.java")).unwrap_err().to_string();
        assert!(err.contains("a.java: unsupported file type"), "{err}");
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
}
