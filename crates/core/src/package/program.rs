//! A program (checker, interactor, validator, generator, a multi-file submission) given as one
//! file or as a folder of files: which file is built and which are helpers beside it, by the
//! Kattis conventions (`run` / `build` scripts; the language most of the sources are in; `main.*`,
//! the folder's own name, Java's `static void main`, Python's `__main__`; C and C++ sources all
//! compiled together).

use super::{PackageError, Program, Protocol};
use std::path::{Path, PathBuf};

/// Extensions of the source files a jury program folder may hold as its main file.
pub(crate) const SOURCE_EXTENSIONS: &[&str] = &["cpp", "cc", "cxx", "c", "rs", "py", "java"];

/// A program given as a single file or a folder of files: the one source file that is built, and
/// the rest as helpers (headers, modules), by [`main_file`]'s rules. `what` names it in errors.
pub fn program_from(path: &Path, protocol: Protocol, what: &str) -> Result<Program, PackageError> {
    folder_program(path, protocol, what)?.map_err(|unclear| {
        PackageError::new(path, format!("the {what} folder {}", unclear.what()))
            .hint(unclear.hint())
    })
}

/// [`program_from`], with a folder whose main file cannot be told apart from the errors that
/// stop reading it (a submission's is a compile error, a jury program's an error).
pub fn folder_program(
    path: &Path,
    protocol: Protocol,
    what: &str,
) -> Result<Result<Program, Unclear>, PackageError> {
    if path.is_file() {
        return Ok(Ok(Program {
            source: path.to_path_buf(),
            protocol,
            helpers: Vec::new(),
            args: Vec::new(),
        }));
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
        return Ok(Ok(Program {
            source: main.clone(),
            protocol,
            helpers,
            args: Vec::new(),
        }));
    }
    let main = match main_file(path, &files) {
        Ok(main) => main,
        Err(unclear) => return Ok(Err(unclear)),
    };
    let helpers = files
        .into_iter()
        .filter(|f| *f != main && f.is_file())
        .collect();
    Ok(Ok(Program {
        source: main,
        protocol,
        helpers,
        args: Vec::new(),
    }))
}

/// Why a folder's main file cannot be told.
#[derive(Debug, Clone, PartialEq)]
pub enum Unclear {
    /// No file in a language of [`SOURCE_EXTENSIONS`].
    NoSource,
    /// As many sources in one language as in another: the languages and their files.
    Languages(Vec<(&'static str, Vec<String>)>),
    /// Several sources of the language and none is the main one by the rules: their names.
    Mains(&'static str, Vec<String>),
}

impl Unclear {
    /// "holds several source files (a.py, b.py) and none is the main one", for "the folder …".
    pub fn what(&self) -> String {
        match self {
            Unclear::NoSource => "holds no source file".into(),
            Unclear::Languages(langs) => format!(
                "holds as many sources in {} (the judge builds one language)",
                langs
                    .iter()
                    .map(|(l, files)| format!("{l}: {}", files.join(", ")))
                    .collect::<Vec<_>>()
                    .join(" as in ")
            ),
            Unclear::Mains(lang, files) => format!(
                "holds several {lang} source files ({}) and none is the main one",
                files.join(", ")
            ),
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            Unclear::NoSource => format!("add the source ({})", SOURCE_EXTENSIONS.join(", ")),
            Unclear::Languages(_) => "keep the sources of one language in the folder".into(),
            Unclear::Mains("Java", _) => {
                "declare `public static void main` in one class only, or name its file Main.java"
                    .into()
            }
            Unclear::Mains("Python", _) => {
                "name the main file main.py (or __main__.py), or keep `if __name__ == \"__main__\"` in it alone"
                    .into()
            }
            Unclear::Mains(..) => "name the main file main.<ext>".into(),
        }
    }
}

/// The language a source extension is in, as a folder's sources are counted (C and C++ apart).
fn family(file: &Path) -> Option<&'static str> {
    Some(match file.extension()?.to_str()? {
        "cpp" | "cc" | "cxx" => "C++",
        "c" => "C",
        "rs" => "Rust",
        "py" => "Python",
        "java" => "Java",
        _ => return None,
    })
}

/// The main file of a folder's `files` (sorted), as Kattis builds a multi-file program: the
/// language is the one most sources are in (a tie is unclear); of its sources, the only one,
/// else the one named `main.*` (any case), `__main__.py` or after the folder, else Java's only
/// class declaring `static void main`, else Python's only file naming `__main__`, else for C
/// and C++ the first (every source of the language is compiled together, so any is the main
/// file). Anything else is [`Unclear`]: for a submission a compile error, never a judge error.
pub fn main_file(folder: &Path, files: &[PathBuf]) -> Result<PathBuf, Unclear> {
    let mut langs: Vec<(&'static str, Vec<&PathBuf>)> = Vec::new();
    for f in files.iter().filter(|f| f.is_file()) {
        if let Some(lang) = family(f) {
            match langs.iter_mut().find(|(l, _)| *l == lang) {
                Some((_, of)) => of.push(f),
                None => langs.push((lang, vec![f])),
            }
        }
    }
    let most = langs
        .iter()
        .map(|(_, f)| f.len())
        .max()
        .ok_or(Unclear::NoSource)?;
    let top: Vec<&(&'static str, Vec<&PathBuf>)> =
        langs.iter().filter(|(_, f)| f.len() == most).collect();
    let name = |p: &PathBuf| -> String {
        p.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let [(lang, sources)] = top.as_slice() else {
        return Err(Unclear::Languages(
            top.iter()
                .map(|(l, f)| (*l, f.iter().map(|p| name(p)).collect()))
                .collect(),
        ));
    };
    if let [one] = sources.as_slice() {
        return Ok((*one).clone());
    }
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase());
    let named: Vec<&&PathBuf> = sources
        .iter()
        .filter(|p| {
            p.file_stem().is_some_and(|s| {
                let s = s.to_string_lossy().to_lowercase();
                s == "main" || s == "__main__" || Some(&s) == folder_name.as_ref()
            })
        })
        .collect();
    if let [one] = named.as_slice() {
        return Ok((**one).clone());
    }
    let text =
        |p: &PathBuf| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let marked: Vec<&&PathBuf> = match *lang {
        "Java" => sources
            .iter()
            .filter(|p| crate::lang::java::main_class(&text(p)).is_some_and(|m| m.has_main))
            .collect(),
        "Python" => sources
            .iter()
            .filter(|p| text(p).contains("__main__"))
            .collect(),
        _ => Vec::new(),
    };
    if let [one] = marked.as_slice() {
        return Ok((**one).clone());
    }
    match *lang {
        "C" | "C++" => Ok(sources[0].clone()),
        _ => Err(Unclear::Mains(
            lang,
            sources.iter().map(|p| name(p)).collect(),
        )),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `main_file` of a folder `name` holding `files` (name, text): the main file's name.
    fn main_of(name: &str, files: &[(&str, &str)]) -> Result<String, Unclear> {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(name);
        std::fs::create_dir(&folder).unwrap();
        for (f, text) in files {
            std::fs::write(folder.join(f), text).unwrap();
        }
        let entries = visible_entries(&folder, "read").unwrap();
        main_file(&folder, &entries).map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
    }

    #[test]
    fn the_main_file_follows_the_languages_rules() {
        const MAIN: &str = "class X { public static void main(String[] a) {} }";
        // C and C++: every source is compiled together, so the first is as good as any.
        assert_eq!(
            main_of("s", &[("b.cpp", ""), ("a.cpp", ""), ("a.h", "")]).unwrap(),
            "a.cpp"
        );
        // The language most sources are in; a header is none.
        assert_eq!(
            main_of("s", &[("a.py", ""), ("b.cpp", ""), ("c.cpp", "")]).unwrap(),
            "b.cpp"
        );
        // Named main (any case), __main__, or after the folder.
        assert_eq!(
            main_of("s", &[("a.py", ""), ("Main.py", "")]).unwrap(),
            "Main.py"
        );
        assert_eq!(
            main_of("s", &[("a.py", ""), ("__main__.py", "")]).unwrap(),
            "__main__.py"
        );
        assert_eq!(
            main_of("solve", &[("a.py", ""), ("solve.py", "")]).unwrap(),
            "solve.py"
        );
        // Python: the only module naming __main__.
        let run = "if __name__ == '__main__':\n    go()\n";
        assert_eq!(
            main_of("s", &[("a.py", "x = 1\n"), ("b.py", run)]).unwrap(),
            "b.py"
        );
        // Java: the only class declaring main.
        assert_eq!(
            main_of("s", &[("A.java", "class A {}"), ("B.java", MAIN)]).unwrap(),
            "B.java"
        );
    }

    #[test]
    fn a_folder_whose_main_file_cannot_be_told_says_why() {
        let main = "class X { public static void main(String[] a) {} }";
        assert_eq!(
            main_of("s", &[("A.java", main), ("B.java", main)]),
            Err(Unclear::Mains(
                "Java",
                vec!["A.java".into(), "B.java".into()]
            ))
        );
        assert_eq!(
            main_of("s", &[("a.py", ""), ("b.py", "")]),
            Err(Unclear::Mains("Python", vec!["a.py".into(), "b.py".into()]))
        );
        let mixed = main_of("s", &[("a.py", ""), ("b.cpp", "")]).unwrap_err();
        assert_eq!(
            mixed.what(),
            "holds as many sources in Python: a.py as in C++: b.cpp (the judge builds one language)"
        );
        assert_eq!(main_of("s", &[("notes.txt", "")]), Err(Unclear::NoSource));
    }
}
