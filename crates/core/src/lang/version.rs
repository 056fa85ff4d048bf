//! What a language entry is, for a record of a judging: its fingerprint (a SHA-256 of what
//! decides how it builds and runs a source) and its toolchain's version line (the first line
//! `program --version` prints), asked once per process per program.

use super::Language;
use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

impl Language {
    /// A SHA-256 (hex) of the entry's name, source name, commands, paths and out-of-memory
    /// text: a changed compile flag or run command is a new fingerprint.
    pub fn fingerprint(&self) -> String {
        let fields: Vec<&[String]> = vec![
            std::slice::from_ref(&self.name),
            std::slice::from_ref(&self.source_name),
            &self.compile,
            &self.run,
            &self.readable,
            &self.compile_readable,
            &self.run_readable,
        ];
        let mut bytes = Vec::new();
        for list in fields {
            bytes.extend((list.len() as u64).to_le_bytes());
            for word in list {
                bytes.extend((word.len() as u64).to_le_bytes());
                bytes.extend(word.as_bytes());
            }
        }
        let oom = self.out_of_memory.as_deref().unwrap_or("\0none");
        bytes.extend((oom.len() as u64).to_le_bytes());
        bytes.extend(oom.as_bytes());
        crate::package::sha256(&bytes)
    }

    /// The program whose version is the toolchain's: the compile command's first word, else
    /// the run command's (the Rust entry's sysroot compiler is `rustc`); none when it is a
    /// placeholder only.
    pub fn toolchain(&self) -> Option<&str> {
        let command = if self.compile.is_empty() {
            &self.run
        } else {
            &self.compile
        };
        command
            .first()
            .map(|w| {
                if w.starts_with("{rust_sysroot}") {
                    "rustc"
                } else {
                    w.as_str()
                }
            })
            .filter(|w| !w.starts_with('{'))
    }
}

/// The first non-empty line `program --version` prints (on stdout, else stderr), within 10 s;
/// asked once per process for each program. None: it did not run or said nothing.
pub fn version_line(program: &str) -> Option<String> {
    static KNOWN: Mutex<Option<HashMap<String, Option<String>>>> = Mutex::new(None);
    if let Some(known) = KNOWN
        .lock()
        .ok()
        .and_then(|k| k.as_ref().and_then(|m| m.get(program).cloned()))
    {
        return known;
    }
    let line = ask(program);
    if let Ok(mut k) = KNOWN.lock() {
        k.get_or_insert_with(HashMap::new)
            .insert(program.to_string(), line.clone());
    }
    line
}

fn ask(program: &str) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().ok()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().ok()?;
    [out.stdout, out.stderr].iter().find_map(|bytes| {
        String::from_utf8_lossy(bytes)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(String::from)
    })
}

#[cfg(test)]
mod tests {
    use crate::lang::Languages;

    #[test]
    fn a_changed_command_is_a_new_fingerprint_and_gcc_says_its_version() {
        let languages = Languages::load(None).unwrap();
        let c = languages.named("c").expect("the table's C");
        let mut flagged = c.clone();
        assert_eq!(flagged.fingerprint(), c.fingerprint());
        flagged.compile.push("-DJURY".into());
        assert_ne!(flagged.fingerprint(), c.fingerprint());
        let program = c.toolchain().expect("C is compiled");
        let line = super::version_line(program).expect("a C compiler on the test machines");
        assert!(line.chars().any(|ch| ch.is_ascii_digit()), "{line}");
        assert_eq!(super::version_line(program), Some(line));
        assert_eq!(super::version_line("/nonexistent/cc"), None);
    }
}
