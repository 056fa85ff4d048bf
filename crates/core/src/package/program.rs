//! A jury program (checker, interactor, validator, generator) given as one file or as a folder
//! of files: which file is built and which are helpers beside it, by the Kattis conventions
//! (`run` / `build` scripts, `main.*`, the folder's own name, Java's `static void main`).

use super::{PackageError, Program, Protocol};
use std::path::{Path, PathBuf};

/// Extensions of the source files a jury program folder may hold as its main file.
pub(crate) const SOURCE_EXTENSIONS: &[&str] = &["cpp", "cc", "cxx", "c", "rs", "py", "java"];

/// A program given as a single file or a folder of files: the one source file that is built, and
/// the rest as helpers (headers, modules). In a folder of several sources the main one is named
/// `main.*` or `__main__.*`, or after the folder. `what` names it in errors.
pub fn program_from(path: &Path, protocol: Protocol, what: &str) -> Result<Program, PackageError> {
    if path.is_file() {
        return Ok(Program {
            source: path.to_path_buf(),
            protocol,
            helpers: Vec::new(),
            args: Vec::new(),
        });
    }
    let files = visible_entries(path, &format!("cannot read the {what}"))?;
    for file in &files {
        if file.is_symlink() && !file.exists() {
            let target = std::fs::read_link(file).unwrap_or_default();
            return Err(PackageError::new(
                file,
                format!(
                    "a link to {}, which does not exist",
                    target.display()
                ),
            )
            .hint("the package refers to a file outside it (a tool's header?): copy that file into the package"));
        }
    }
    // Kattis scripts: `run` is the program (`build`, when present, makes it first); every other
    // file of the folder is built beside it (the language table's script entries).
    let script = ["run", "build"].iter().find_map(|name| {
        files
            .iter()
            .find(|f| f.is_file() && f.file_name().is_some_and(|n| n == *name))
    });
    if let Some(main) = script {
        let helpers = files
            .iter()
            .filter(|f| f.is_file() && *f != main)
            .cloned()
            .collect();
        return Ok(Program {
            source: main.clone(),
            protocol,
            helpers,
            args: Vec::new(),
        });
    }
    let is_source = |p: &PathBuf| {
        p.is_file()
            && p.extension()
                .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
    };
    let sources: Vec<&PathBuf> = files.iter().filter(|p| is_source(p)).collect();
    let folder_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let named_main = |p: &&&PathBuf| {
        p.file_stem().is_some_and(|s| {
            let s = s.to_string_lossy();
            s == "main" || s == "__main__" || Some(s.as_ref()) == folder_name.as_deref()
        })
    };
    let mains: Vec<&&PathBuf> = sources.iter().filter(named_main).collect();
    // Java files name no main file: the one declaring `static void main` is (as on Kattis).
    let java_mains: Vec<&&PathBuf> = if sources
        .iter()
        .all(|p| p.extension().is_some_and(|e| e == "java"))
    {
        sources
            .iter()
            .filter(|p| {
                std::fs::read(p).is_ok_and(|b| {
                    crate::lang::java::main_class(&String::from_utf8_lossy(&b))
                        .is_some_and(|m| m.has_main)
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let main = match sources.as_slice() {
        [one] => (*one).clone(),
        [_, _, ..] if mains.len() == 1 => (**mains[0]).clone(),
        [_, _, ..] if java_mains.len() == 1 => (**java_mains[0]).clone(),
        [] => {
            return Err(
                PackageError::new(path, format!("the {what} folder holds no source file"))
                    .hint(format!("add the source ({})", SOURCE_EXTENSIONS.join(", "))),
            )
        }
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|p| {
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            return Err(PackageError::new(
                path,
                format!(
                    "the {what} folder holds several source files ({}); the judge builds one",
                    names.join(", ")
                ),
            )
            .hint("name the main file main.<ext> (the others are built beside it), or merge them into one file"));
        }
    };
    let helpers = files
        .into_iter()
        .filter(|f| *f != main && f.is_file())
        .collect();
    Ok(Program {
        source: main,
        protocol,
        helpers,
        args: Vec::new(),
    })
}

/// The entries of `dir` whose names do not start with a dot, in name order; an unreadable folder
/// is an error naming it (`doing`: "cannot read", "cannot read the checker", …).
pub(crate) fn visible_entries(dir: &Path, doing: &str) -> Result<Vec<PathBuf>, PackageError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| PackageError::new(dir, format!("{doing}: {e}")))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    entries.sort();
    Ok(entries)
}
