//! The on-disk shape of every package format, exactly as it is read, kept apart from the
//! validated model ([`super::Problem`]): `native.rs` (`problem.toml`), `kattis.rs`
//! (`problem.yaml` legacy and 2025-09, `testdata.yaml` / `test_group.yaml`, `submissions.yaml`),
//! `polygon.rs` (`problem.xml`, filled from the XML tree). The loaders validate these into the
//! model; nothing here knows a default or a range.
//!
//! This file is how the YAML files are read. A key the struct does not name is kept as a
//! [`KeyPath`] for the loader to warn about (`serde_ignored`: a package of another tool says
//! much the judge does not read, so it is never an error, and never silent either); a value of
//! the wrong type is an error naming the file, the line and column, and the key path
//! (`serde_path_to_error`), e.g. `problem.yaml:4:19: limits.time_multiplier: invalid type:
//! string "x", expected a number`. `scalars.rs` holds the lenient types for what real packages
//! write (numbers in quotes, a list as one string).

pub mod kattis;
pub mod native;
pub mod polygon;
mod scalars;

pub use scalars::{present, Args, Number, Ordered, Text, Unused};

use super::PackageError;
use serde::de::DeserializeOwned;
use serde_yaml_ng::Value;
use std::fmt;
use std::path::Path;

/// Where a key sits in a file: `limits`, `time_multiplier`; list items as `[i]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<String>);

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.0.iter().enumerate() {
            if part.starts_with('[') || i == 0 {
                f.write_str(part)?;
            } else {
                write!(f, ".{part}")?;
            }
        }
        Ok(())
    }
}

impl KeyPath {
    fn of_ignored(path: &serde_ignored::Path) -> KeyPath {
        let mut parts = Vec::new();
        let mut at = path;
        loop {
            match at {
                serde_ignored::Path::Root => break,
                serde_ignored::Path::Seq { parent, index } => {
                    parts.push(format!("[{index}]"));
                    at = parent;
                }
                serde_ignored::Path::Map { parent, key } => {
                    parts.push(key.clone());
                    at = parent;
                }
                serde_ignored::Path::Some { parent }
                | serde_ignored::Path::NewtypeStruct { parent }
                | serde_ignored::Path::NewtypeVariant { parent } => at = parent,
            }
        }
        parts.reverse();
        KeyPath(parts)
    }
}

/// A file read into its raw shape, with the keys the shape does not name.
#[derive(Debug)]
pub struct Read<T> {
    pub value: T,
    pub unknown: Vec<KeyPath>,
}

/// Reads the YAML file `path` into `T` (an empty file is an empty mapping). A syntax error or a
/// top level that is not a mapping is an error with its position; so is a value of the wrong
/// type, which also names its key path and takes the hint `hint` gives for that path.
pub fn read_yaml<T: DeserializeOwned>(
    path: &Path,
    hint: &dyn Fn(&str) -> String,
) -> Result<Read<T>, PackageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| PackageError::new(path, format!("cannot read: {e}")))?;
    let value = parse_yaml(path, &text)?;
    // An empty file (or one of comments only) is an empty mapping.
    let text = if value.is_null() {
        "{}".to_string()
    } else {
        text
    };
    let mut unknown = Vec::new();
    let de = serde_yaml_ng::Deserializer::from_str(&text);
    let mut note = |p: serde_ignored::Path| unknown.push(KeyPath::of_ignored(&p));
    let de = serde_ignored::Deserializer::new(de, &mut note);
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(value) => Ok(Read { value, unknown }),
        Err(e) => {
            let key = e.path().to_string();
            let position = e.inner().location().map(|l| (l.line(), l.column()));
            // The same error from the parsed value says it bare (the text's repeats the key
            // and the position).
            let message = match serde_path_to_error::deserialize::<_, T>(value) {
                Err(bare) => bare.inner().to_string(),
                Ok(_) => e.inner().to_string(),
            };
            let mut err = PackageError::new(path, at_key(&key, &message)).hint(hint(&key));
            err.position = position;
            Err(err)
        }
    }
}

/// Reads a YAML value already parsed (a map inside another file, e.g. a group's settings in
/// `generators.yaml`) into `T`. The error is the key path's message, without a position.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<Read<T>, String> {
    let mut unknown = Vec::new();
    let mut note = |p: serde_ignored::Path| unknown.push(KeyPath::of_ignored(&p));
    let de = serde_ignored::Deserializer::new(value, &mut note);
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(value) => Ok(Read { value, unknown }),
        Err(e) => Err(at_key(&e.path().to_string(), &e.inner().to_string())),
    }
}

fn at_key(key: &str, message: &str) -> String {
    if key.is_empty() || key == "." {
        message.to_string()
    } else {
        format!("{key}: {message}")
    }
}

/// The YAML in `text` as a value: a syntax error names line and column, and the top level must
/// be a mapping (or nothing).
pub fn parse_yaml(path: &Path, text: &str) -> Result<Value, PackageError> {
    let value: Value = serde_yaml_ng::from_str(text).map_err(|e| {
        let mut err = PackageError::new(path, format!("not valid YAML: {e}"))
            .hint("fix the YAML syntax there (indent with spaces, `key: value`, quote strings holding `:` or `#`)");
        if let Some(loc) = e.location() {
            err.position = Some((loc.line(), loc.column()));
            // The crate's message repeats the position; keep one.
            if let Some((head, _)) = err.message.split_once(" at line ") {
                err.message = head.to_string();
            }
        }
        err
    })?;
    match value {
        Value::Null | Value::Mapping(_) => Ok(value),
        _ => Err(
            PackageError::new(path, "expected a mapping of `key: value` lines")
                .hint("write one `key: value` per line at the top level"),
        ),
    }
}

#[cfg(test)]
mod tests;
