//! Where a package's solutions live and which verdict each is expected to get: the folder
//! `solutions/<expected>/` it sits in.

use crate::package::{natural_cmp, Problem};
use judge_model::Verdict;
use std::path::{Path, PathBuf};

/// Where the solutions of a package live: `<package>/solutions/` when it exists, otherwise
/// `solutions/<slug>/` beside the `problems/` folder that holds the package.
pub fn solutions_dir(problem_dir: &Path, slug: &str) -> PathBuf {
    let own = problem_dir.join("solutions");
    if own.is_dir() {
        return own;
    }
    let root = problem_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    root.join("solutions").join(slug)
}

/// Lists `<dir>/<expected>/<file>`, and names everything else in `<dir>` (each misnamed folder,
/// each stray file) with the valid folder names: those are not judged, every other solution is.
pub fn list_solutions(dir: &Path) -> (Vec<(PathBuf, Verdict)>, Vec<String>) {
    let mut out = Vec::new();
    let mut misplaced = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (out, misplaced),
        Err(e) => return (out, vec![format!("{}: cannot read: {e}", dir.display())]),
    };
    let valid: Vec<&str> = Verdict::ALL.iter().filter_map(|v| v.folder()).collect();
    let hint = format!("\n  hint: solutions go in one of: {}", valid.join(", "));
    let mut folders: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    folders.sort();
    for folder in folders {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.starts_with('.') {
            continue;
        }
        if !folder.is_dir() {
            misplaced.push(format!(
                "{}: not in an expected-verdict folder, so not judged{hint}",
                folder.display()
            ));
            continue;
        }
        let Some(expected) = Verdict::from_folder(&name) else {
            let guess = match meant_folder(&name) {
                Some(f) => format!(" (did you mean `{f}`?)"),
                None => String::new(),
            };
            misplaced.push(format!(
                "{}: not an expected-verdict folder{guess}, so its solutions are not judged{hint}",
                folder.display()
            ));
            continue;
        };
        let files = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) => {
                misplaced.push(format!("{}: cannot read: {e}", folder.display()));
                continue;
            }
        };
        let mut files: Vec<PathBuf> = files
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        files.sort_by(|a, b| natural_cmp(&a.to_string_lossy(), &b.to_string_lossy()));
        out.extend(files.into_iter().map(|f| (f, expected)));
    }
    (out, misplaced)
}

/// The expected-verdict folder a misnamed one probably means: `wrong` → `wrong_answer`,
/// `time_limit` → `time_limit_exceeded`, `tle` → `time_limit_exceeded`.
fn meant_folder(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    if let Some(f) = Verdict::from_code(&lower.to_ascii_uppercase()).and_then(Verdict::folder) {
        return Some(f);
    }
    let mut candidates = Verdict::ALL
        .iter()
        .filter_map(|v| v.folder())
        .filter(|f| lower.len() >= 2 && (f.starts_with(&lower) || lower.starts_with(f)));
    match (candidates.next(), candidates.next()) {
        (Some(f), None) => Some(f),
        _ => None,
    }
}

/// A native package's solutions, read from their verdict folders beside it into
/// `problem.solutions` (each with the folder as the rule that gives its verdict); a misplaced one
/// becomes a warning. Other formats list their solutions themselves: nothing changes.
pub fn read_native(problem: &mut Problem) {
    if problem.format != crate::package::Format::Native {
        return;
    }
    // A native package's solutions live in verdict folders beside it.
    let folder = solutions_dir(&problem.dir, &problem.slug);
    let (found, misplaced) = list_solutions(&folder);
    problem.solutions = found
        .into_iter()
        .map(|(path, verdict)| {
            let parent = path
                .parent()
                .and_then(Path::file_name)
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            crate::package::Solution {
                path,
                expected: vec![verdict],
                permitted: None,
                rule: format!("folder {parent}/"),
                entrypoint: None,
                score: None,
                rules: Vec::new(),
                language: None,
            }
        })
        .collect();
    problem.warnings.extend(
        misplaced
            .into_iter()
            .map(|m| crate::package::PackageError::new(&folder, m)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misnamed_folder_gets_a_guess() {
        assert_eq!(meant_folder("wrong"), Some("wrong_answer"));
        assert_eq!(meant_folder("time_limit"), Some("time_limit_exceeded"));
        assert_eq!(meant_folder("TLE"), Some("time_limit_exceeded"));
        assert_eq!(meant_folder("ac"), Some("accepted"));
        assert_eq!(meant_folder("wrong-answer"), Some("wrong_answer"));
        assert_eq!(meant_folder("misc"), None);
        assert_eq!(meant_folder("je"), None);
    }

    #[test]
    fn every_misplaced_entry_is_named_and_the_rest_listed() {
        let dir = tempfile::tempdir().unwrap();
        for (folder, file) in [("accepted", "a.c"), ("wrong", "w.c"), ("tle", "t.c")] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::write(dir.path().join(folder).join(file), "").unwrap();
        }
        std::fs::write(dir.path().join("stray.c"), "").unwrap();
        let (solutions, misplaced) = list_solutions(dir.path());
        assert_eq!(solutions, [(dir.path().join("accepted/a.c"), Verdict::AC)]);
        assert_eq!(misplaced.len(), 3, "{misplaced:?}");
        assert!(misplaced[0].contains("stray.c: not in an expected-verdict folder"));
        assert!(misplaced[1]
            .contains("tle: not an expected-verdict folder (did you mean `time_limit_exceeded`?)"));
        assert!(misplaced[2]
            .contains("wrong: not an expected-verdict folder (did you mean `wrong_answer`?)"));
    }
}
