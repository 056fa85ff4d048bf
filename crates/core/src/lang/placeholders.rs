//! A command's words: the placeholders filled in when it is built (`{src}`, `{exe}`,
//! `{python_check}`, `{rust_sysroot}`) and when it runs (`{memory_mib}`, `{stack_mib}`), and
//! its first word resolved to a program.

use super::LangError;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The syntax check of the Python entries (`{python_check}` in a command).
const PYTHON_CHECK: &str = include_str!("python_check.py");

/// Placeholders a run command may hold that are filled in when the program runs, from the
/// limits of that run: the memory limit and the stack limit in MiB (the stack at most 1024 MiB,
/// the largest a JVM thread may have).
pub const RUN_PLACEHOLDERS: [&str; 2] = ["{memory_mib}", "{stack_mib}"];

/// Fills in [`RUN_PLACEHOLDERS`] in one word of a run command.
pub fn expand_for_run(word: &str, memory: u64, stack: u64) -> String {
    if !word.contains('{') {
        return word.to_string();
    }
    word.replace("{memory_mib}", &(memory >> 20).max(1).to_string())
        .replace("{stack_mib}", &(stack >> 20).clamp(1, 1024).to_string())
}

/// Expands placeholders in one word of a command.
pub fn expand(word: &str, src: &Path, exe: &Path) -> Result<String, LangError> {
    let mut out = word
        .replace("{src}", &src.to_string_lossy())
        .replace("{exe}", &exe.to_string_lossy());
    if out.contains("{python_check}") {
        out = out.replace("{python_check}", PYTHON_CHECK);
    }
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
