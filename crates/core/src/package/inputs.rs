//! What a verdict depends on in a package, by SHA-256: each test's input and answer, the
//! checker (with the interactor and the grader, which decide verdicts too) and the input
//! validators. Returned as data: whoever records a judging (the service's worker) keeps it
//! beside the verdict, and a later package is compared with it test by test.

use super::{CheckerSpec, Problem, Program};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The hashes of a package's inputs to judging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    /// In judging order.
    pub tests: Vec<TestInputs>,
    /// The checker: a built-in's name and settings, or a custom one's files, protocol and
    /// arguments; with the interactor and grader when the package has them.
    pub checker: String,
    /// Every input validator's files, protocol and arguments (none: the hash of nothing).
    pub validator: String,
}

/// One test's input and answer files, by hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestInputs {
    pub name: String,
    pub input: String,
    /// The hash of nothing when the package has no answer (`judge gen` makes it).
    pub answer: String,
}

impl Inputs {
    /// The test named `name`.
    pub fn test(&self, name: &str) -> Option<&TestInputs> {
        self.tests.iter().find(|t| t.name == name)
    }
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A hash built from fields, each length-prefixed so no two lists of fields collide.
struct Fields(Sha256);

impl Fields {
    fn new(kind: &str) -> Fields {
        let mut f = Fields(Sha256::new());
        f.add(kind.as_bytes());
        f
    }
    fn add(&mut self, bytes: &[u8]) {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }
    /// A file's bytes, or every file of a folder (sorted, by path relative to it) and theirs;
    /// a missing path is told as missing.
    fn path(&mut self, path: &Path) -> std::io::Result<()> {
        if path.is_dir() {
            let mut files = Vec::new();
            collect(path, Path::new(""), &mut files)?;
            files.sort();
            self.add(b"folder");
            for rel in files {
                self.add(rel.to_string_lossy().as_bytes());
                self.add(&std::fs::read(path.join(&rel))?);
            }
        } else if path.exists() {
            self.add(b"file");
            self.add(&std::fs::read(path)?);
        } else {
            self.add(b"missing");
        }
        Ok(())
    }
    fn program(&mut self, p: &Program) -> std::io::Result<()> {
        self.add(p.protocol.name().as_bytes());
        self.path(&p.source)?;
        self.add(&(p.helpers.len() as u64).to_le_bytes());
        for h in &p.helpers {
            self.add(
                h.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
                    .as_bytes(),
            );
            self.path(h)?;
        }
        self.add(&(p.args.len() as u64).to_le_bytes());
        for a in &p.args {
            self.add(a.as_bytes());
        }
        Ok(())
    }
    fn finish(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

fn collect(root: &Path, rel: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let path = rel.join(entry?.file_name());
        if root.join(&path).is_dir() {
            collect(root, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The hash of a file's bytes, or of nothing when it is missing.
fn file_hash(path: &Path) -> std::io::Result<String> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(sha256(&bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(sha256(b"")),
        Err(e) => Err(e),
    }
}

impl Problem {
    /// The hashes of what judging this package reads: each test's input and answer, the
    /// checker (with the interactor and grader), the validators. Reads every test file once.
    pub fn inputs(&self) -> std::io::Result<Inputs> {
        let tests = self
            .tests
            .iter()
            .map(|t| {
                Ok(TestInputs {
                    name: t.name.clone(),
                    input: file_hash(&t.input)?,
                    answer: file_hash(&t.answer)?,
                })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        let mut checker = Fields::new("checker");
        match &self.checker {
            CheckerSpec::Builtin(b) => {
                checker.add(b"builtin");
                checker.add(format!("{b:?}").as_bytes());
            }
            CheckerSpec::Custom(p) => {
                checker.add(b"custom");
                checker.program(p)?;
            }
        }
        for (what, program) in [("interactor", &self.interactor), ("grader", &self.grader)] {
            if let Some(p) = program {
                checker.add(what.as_bytes());
                checker.program(p)?;
            }
        }
        let mut validator = Fields::new("validators");
        for p in &self.validators {
            validator.program(p)?;
        }
        Ok(Inputs {
            tests,
            checker: checker.finish(),
            validator: validator.finish(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(from: &Path, to: &Path) {
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                std::fs::create_dir(&target).unwrap();
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    #[test]
    fn a_changed_answer_changes_that_test_alone_and_a_checker_its_own_hash() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/problems/sum");
        let dir = tempfile::tempdir().unwrap();
        copy(&fixture, dir.path());
        let before = Problem::load(dir.path()).unwrap().inputs().unwrap();
        assert_eq!(
            Problem::load(dir.path()).unwrap().inputs().unwrap(),
            before,
            "the same package, the same hashes"
        );
        let two = before.test("2").expect("the fixture's test 2");
        assert_eq!(two.answer, sha256(b"-5\n"));
        std::fs::write(dir.path().join("tests/2.ans"), "-6\n").unwrap();
        let after = Problem::load(dir.path()).unwrap().inputs().unwrap();
        let changed: Vec<&str> = before
            .tests
            .iter()
            .zip(&after.tests)
            .filter(|(b, a)| b != a)
            .map(|(b, _)| b.name.as_str())
            .collect();
        assert_eq!(changed, ["2"]);
        assert_eq!(after.test("2").unwrap().input, two.input);
        assert_eq!(
            (&after.checker, &after.validator),
            (&before.checker, &before.validator)
        );
        let toml = std::fs::read_to_string(dir.path().join("problem.toml")).unwrap();
        std::fs::write(
            dir.path().join("problem.toml"),
            toml.replace("kind = \"tokens\"", "kind = \"lines\""),
        )
        .unwrap();
        let lines = Problem::load(dir.path()).unwrap().inputs().unwrap();
        assert_ne!(lines.checker, after.checker);
        assert_eq!(lines.tests, after.tests);
    }
}
