//! The paths a language's toolchain reads besides the system folders, per step: as listed
//! (placeholders expanded), and as they exist here (`*` matching within one folder level).

use super::{expand, LangError, Language, Step};
use std::path::{Path, PathBuf};

impl Language {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Languages;

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
}
