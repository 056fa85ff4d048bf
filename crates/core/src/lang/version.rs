//! What a language entry is, for a record of a judging: its fingerprint (a SHA-256 of what
//! decides how it builds and runs a source) and its toolchain's version line (the first line
//! `program --version` prints), asked once per process per program and kept in the build cache
//! by the program's identity, so that a worker's start does not ask again (`javac --version`
//! alone takes 0.2 s of CPU).

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
/// asked once per process for each program, and once for all processes sharing a build cache
/// while the program's file stays the same ([`remembered`]). None: it did not run or said
/// nothing.
pub fn version_line(program: &str) -> Option<String> {
    static KNOWN: Mutex<Option<HashMap<String, Option<String>>>> = Mutex::new(None);
    if let Some(known) = KNOWN
        .lock()
        .ok()
        .and_then(|k| k.as_ref().and_then(|m| m.get(program).cloned()))
    {
        return known;
    }
    let line = remembered(program, crate::build::cache::installed().as_deref());
    if let Ok(mut k) = KNOWN.lock() {
        k.get_or_insert_with(HashMap::new)
            .insert(program.to_string(), line.clone());
    }
    line
}

/// [`ask`], through a note of `cache` named by the identity of the file `program` resolves to
/// (its path, device, inode, size and times): a reinstalled or upgraded toolchain is asked
/// again. Only an answer is kept; a program that said nothing (or ran out of time on a busy
/// machine) is asked again next time.
fn remembered(program: &str, cache: Option<&crate::build::cache::Cache>) -> Option<String> {
    let note = cache.and_then(|cache| {
        let path = super::placeholders::resolve_program(program).ok()?;
        Some((cache, crate::build::cache::identity_name(&path)?))
    });
    if let Some((cache, name)) = &note {
        if let Some(line) = cache.read_note(VERSION_NOTES, name) {
            if !line.is_empty() {
                return Some(line);
            }
        }
    }
    let line = ask(program);
    if let (Some((cache, name)), Some(line)) = (&note, &line) {
        cache.write_note(VERSION_NOTES, name, line);
    }
    line
}

/// The kind of build-cache note holding a program's version line.
const VERSION_NOTES: &str = "version";

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

    /// A version line is asked once for all processes sharing a cache, and again once the
    /// program's file changes.
    #[test]
    fn a_version_line_is_kept_in_the_cache_until_the_program_changes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let asked = dir.path().join("asked");
        let program = dir.path().join("fakecc");
        let script = |version: &str| {
            format!(
                "#!/bin/sh\necho x >> '{}'\necho 'fakecc {version}'\n",
                asked.display()
            )
        };
        std::fs::write(&program, script("1.0")).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cache = crate::build::cache::Cache::open(&dir.path().join("cache"), 1 << 20).unwrap();
        let times = || {
            std::fs::read_to_string(&asked)
                .unwrap_or_default()
                .lines()
                .count()
        };
        let path = program.to_str().unwrap();
        let first = super::remembered(path, Some(&cache));
        assert_eq!(first.as_deref(), Some("fakecc 1.0"));
        assert_eq!(super::remembered(path, Some(&cache)), first);
        assert_eq!(times(), 1, "asked again with the answer kept");
        // Without a cache, every call asks.
        assert_eq!(super::remembered(path, None), first);
        assert_eq!(times(), 2);
        // A new file (an upgrade) is asked again.
        let upgraded = dir.path().join("upgraded");
        std::fs::write(&upgraded, script("2.0")).unwrap();
        std::fs::set_permissions(&upgraded, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&upgraded, &program).unwrap();
        assert_eq!(
            super::remembered(path, Some(&cache)).as_deref(),
            Some("fakecc 2.0")
        );
        assert_eq!(times(), 3);
        // Saying nothing is not kept.
        assert_eq!(super::remembered("/nonexistent/cc", Some(&cache)), None);
    }
}
