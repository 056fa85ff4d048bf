//! `gen`'s scratch folder: a shadow of the package (`.judge-gen-…` inside it) whose `tests/` is a
//! copy of the package's, where every input and answer is written; the package's own `tests/`
//! is replaced by it in one step only when every generator, validator and answer succeeded. A
//! failure, or a `gen` killed mid-way, leaves the package's tests as they were (a killed one
//! leaves the scratch folder, which the next `gen` removes).
//!
//! The copy hard-links the package's files where the file system allows, so unchanged tests keep
//! their bytes and times and a large package costs no copying; a file is written into the stage
//! only after its link is removed, never through it. Every other entry of the package is a
//! symbolic link in the shadow, so that the package's loader sees the staged tests in the package
//! they belong to.

use std::path::{Path, PathBuf};

/// The start of the scratch folder's name.
const PREFIX: &str = ".judge-gen-";

/// The staged package (removed when dropped).
pub(super) struct Stage {
    root: tempfile::TempDir,
    package_tests: PathBuf,
}

impl Stage {
    /// Stages the package in `dir`, removing the scratch folders a killed `gen` left behind.
    pub fn new(dir: &Path) -> std::io::Result<Stage> {
        let dir = std::path::absolute(dir)?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if entry.file_name().to_string_lossy().starts_with(PREFIX) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let root = tempfile::Builder::new().prefix(PREFIX).tempdir_in(&dir)?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            let name = entry.file_name();
            if name == "tests" || name.to_string_lossy().starts_with(PREFIX) {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), root.path().join(&name))?;
        }
        let package_tests = dir.join("tests");
        let staged = root.path().join("tests");
        if package_tests.is_dir() {
            link_tree(&package_tests, &staged)?;
        } else {
            std::fs::create_dir(&staged)?;
        }
        Ok(Stage {
            root,
            package_tests,
        })
    }

    /// The shadow package (load it to see the staged tests).
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The staged `tests/`.
    pub fn tests(&self) -> PathBuf {
        self.root.path().join("tests")
    }

    /// Puts the staged tests in the package's place: one exchange of the two folders where the
    /// kernel can (the package has its old tests or its new ones at every moment), else two
    /// renames. The old tests are removed with the scratch folder.
    pub fn replace(self) -> std::io::Result<()> {
        let staged = self.tests();
        if !self.package_tests.exists() {
            return std::fs::rename(&staged, &self.package_tests);
        }
        if exchange(&staged, &self.package_tests).is_err() {
            let old = self.root.path().join("tests.old");
            std::fs::rename(&self.package_tests, &old)?;
            if let Err(e) = std::fs::rename(&staged, &self.package_tests) {
                let _ = std::fs::rename(&old, &self.package_tests);
                return Err(e);
            }
        }
        Ok(())
    }
}

/// Writes `bytes` at `path` in the stage, as a new file (a hard link to the package's file is
/// removed first, never written through).
pub(super) fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::write(path, bytes)
}

/// Swaps two paths atomically (Linux `renameat2` with `RENAME_EXCHANGE`).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call; the flags are valid.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Copies the folder `from` to `to`, hard-linking files where it can.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (path, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            link_tree(&path, &target)?;
        } else if std::fs::hard_link(&path, &target).is_err() {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}
