//! The problems of a practice folder: `DIR/problems/<id>/`, each a package the judge reads
//! (native ones written here from competitive-companion, or any package the user copies in),
//! with an optional `practice.toml` beside `problem.toml` for what the native format does not
//! hold: the contest group, the problem's address, the interactive flag, file input/output,
//! when it was received and from which batch.
//!
//! A received problem is written into a hidden folder first and renamed into place whole, so a
//! reader never sees half a package. Ids are folder names: `[a-z0-9-]` made from the name,
//! checked on every path that names one (`valid_id`).

use super::cc::Received;
use judge_core::package::Problem;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `practice.toml`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    #[serde(default)]
    pub interactive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub received_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
}

/// `problem.toml` as written for a received problem.
#[derive(Serialize)]
struct NativeToml<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    limits: NativeLimits,
    checker: NativeChecker,
}

#[derive(Serialize)]
struct NativeLimits {
    time_limit: f64,
    memory: f64,
}

#[derive(Serialize)]
struct NativeChecker {
    kind: &'static str,
}

/// The practice folder, locked (`DIR/.lock`, an `flock`) for as long as the server runs: two
/// servers on one folder would pick the same ids and clean up each other's files.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    _lock: std::sync::Arc<std::fs::File>,
}

/// Whether `id` can name a problem folder: not empty, at most 100 of `[A-Za-z0-9._-]`, not
/// starting with a dot.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// A folder name from a problem's name: lower-case ASCII letters and digits, runs of anything
/// else as one `-`; `fallback` when nothing is left.
pub fn slug(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.trim_matches('-').chars().take(60).collect();
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        fallback.to_string()
    } else {
        out
    }
}

impl Store {
    pub fn open(dir: &Path) -> Result<Store, String> {
        let io = |e: std::io::Error| format!("{}: {e}", dir.display());
        std::fs::create_dir_all(dir.join("problems")).map_err(io)?;
        std::fs::create_dir_all(dir.join("submissions")).map_err(io)?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(".lock"))
            .map_err(io)?;
        // SAFETY: flock on a descriptor we own.
        let locked = unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(&lock),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        } == 0;
        if !locked {
            return Err(format!(
                "{}: another `judge practice` uses this folder\n  hint: stop it, or give this one another --dir",
                dir.display()
            ));
        }
        // What a server stopped mid-way left: half-written problems, judged copies.
        for sub in ["problems", "submissions"] {
            if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if sub == "submissions"
                        || name.starts_with(".new-")
                        || name.starts_with(".old-")
                    {
                        let _ = std::fs::remove_dir_all(e.path());
                    }
                }
            }
        }
        Ok(Store {
            dir: dir.to_path_buf(),
            _lock: std::sync::Arc::new(lock),
        })
    }

    pub fn problems_dir(&self) -> PathBuf {
        self.dir.join("problems")
    }

    /// The folder of problem `id` (`None` for an id that cannot be one, or no such folder).
    pub fn problem_dir(&self, id: &str) -> Option<PathBuf> {
        if !valid_id(id) {
            return None;
        }
        let dir = self.problems_dir().join(id);
        dir.is_dir().then_some(dir)
    }

    /// Every problem folder's id, in name order.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(self.problems_dir())
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.path().is_dir())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .filter(|n| valid_id(n))
                    .collect()
            })
            .unwrap_or_default();
        ids.sort_by(|a, b| judge_core::package::natural_cmp(a, b));
        ids
    }

    /// `practice.toml` of problem `id` (the default when it has none or it does not parse).
    pub fn meta(&self, id: &str) -> Meta {
        self.problem_dir(id)
            .and_then(|d| std::fs::read_to_string(d.join("practice.toml")).ok())
            .and_then(|t| toml::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Loads problem `id` as the judge reads it, with the file input/output of its
    /// `practice.toml` applied. A package with no test at all yet (a problem received without
    /// samples) loads with none: the page asks for one, and nothing is judged until it has one
    /// ([`Practice::submit`](crate::Practice::submit) refuses).
    pub fn load(&self, id: &str) -> Result<Problem, String> {
        let dir = self
            .problem_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        let mut problem = match Problem::load(&dir) {
            Ok(p) => p,
            Err(e) => match Problem::load_inputs(&dir) {
                Ok(p) if p.tests.is_empty() => p,
                _ => return Err(e.to_string()),
            },
        };
        let meta = self.meta(id);
        if meta.input_file.is_some() || meta.output_file.is_some() {
            problem.io.input = meta.input_file.or(problem.io.input);
            problem.io.output = meta.output_file.or(problem.io.output);
        }
        Ok(problem)
    }

    /// Writes a received problem as a native package and returns its id. A problem received
    /// again from the same address replaces the earlier one in place (same id).
    pub fn save(&self, problem: &Received, now_ms: i64) -> std::io::Result<String> {
        let fallback = format!("problem-{}", &hex_sha(problem.url.as_bytes())[..8]);
        let base = slug(&problem.name, &fallback);
        let id = self.free_id(&base, &problem.url);
        let tmp = self
            .problems_dir()
            .join(format!(".new-{}-{}", std::process::id(), unique()));
        let result = self.write_package(&tmp, problem, now_ms);
        if let Err(e) = result {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        let target = self.problems_dir().join(&id);
        if target.exists() {
            let old = self
                .problems_dir()
                .join(format!(".old-{}-{}", std::process::id(), unique()));
            std::fs::rename(&target, &old)?;
            let renamed = std::fs::rename(&tmp, &target);
            let _ = std::fs::remove_dir_all(&old);
            renamed?;
        } else {
            std::fs::rename(&tmp, &target)?;
        }
        Ok(id)
    }

    /// `base`, or `base-2`, `base-3`… : the first that is free or holds the problem of `url`.
    fn free_id(&self, base: &str, url: &str) -> String {
        for n in 1.. {
            let id = if n == 1 {
                base.to_string()
            } else {
                format!("{base}-{n}")
            };
            let dir = self.problems_dir().join(&id);
            if !dir.exists() || (!url.is_empty() && self.meta(&id).url == url) {
                return id;
            }
        }
        unreachable!("an unbounded range ends only by returning")
    }

    fn write_package(&self, dir: &Path, p: &Received, now_ms: i64) -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("tests"))?;
        let source = if p.url.is_empty() {
            (!p.group.is_empty()).then_some(p.group.as_str())
        } else {
            Some(p.url.as_str())
        };
        let native = NativeToml {
            name: &p.name,
            source,
            limits: NativeLimits {
                time_limit: p.time_limit_ms as f64 / 1000.0,
                memory: p.memory_mib as f64,
            },
            checker: NativeChecker { kind: "tokens" },
        };
        let text = toml::to_string(&native).map_err(std::io::Error::other)?;
        std::fs::write(
            dir.join("problem.toml"),
            format!("# received from competitive-companion by `judge practice`\n{text}"),
        )?;
        let meta = Meta {
            group: p.group.clone(),
            url: p.url.clone(),
            interactive: p.interactive,
            input_file: p.input_file.clone(),
            output_file: p.output_file.clone(),
            received_at: now_ms,
            batch: p.batch.as_ref().map(|b| b.id.clone()),
        };
        let text = toml::to_string(&meta).map_err(std::io::Error::other)?;
        std::fs::write(dir.join("practice.toml"), text)?;
        for (i, t) in p.tests.iter().enumerate() {
            let name = format!("sample-{}", i + 1);
            std::fs::write(dir.join("tests").join(format!("{name}.in")), &t.input)?;
            std::fs::write(dir.join("tests").join(format!("{name}.ans")), &t.output)?;
        }
        Ok(())
    }

    /// Adds a test of the user's (`custom-N`) to problem `id`; returns its name.
    pub fn add_test(
        &self,
        id: &str,
        input: impl AsRef<[u8]>,
        answer: impl AsRef<[u8]>,
    ) -> Result<String, String> {
        let (input, answer) = (input.as_ref(), answer.as_ref());
        let dir = self
            .problem_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        let tests = dir.join("tests");
        std::fs::create_dir_all(&tests).map_err(|e| format!("{}: {e}", tests.display()))?;
        for n in 1..10_000 {
            let name = format!("custom-{n}");
            let input_path = tests.join(format!("{name}.in"));
            // create_new: two requests at once never take the same name.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&input_path)
            {
                Ok(mut f) => {
                    use std::io::Write;
                    f.write_all(input)
                        .and_then(|_| std::fs::write(tests.join(format!("{name}.ans")), answer))
                        .map_err(|e| format!("{}: {e}", input_path.display()))?;
                    return Ok(name);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("{}: {e}", input_path.display())),
            }
        }
        Err("too many tests of your own".into())
    }

    /// Adds every pair as a test of the user's, in order; all or none (the ones added are
    /// removed again when one cannot be). Returns their names.
    pub fn import_tests(
        &self,
        id: &str,
        pairs: &[super::import::Pair],
    ) -> Result<Vec<String>, String> {
        let mut added = Vec::new();
        for pair in pairs {
            match self.add_test(id, &pair.input, &pair.answer) {
                Ok(name) => added.push(name),
                Err(e) => {
                    for name in &added {
                        let _ = self.remove_test(id, name);
                    }
                    return Err(format!("{}: {e}", pair.from));
                }
            }
        }
        Ok(added)
    }

    /// Removes a test of the user's (only `custom-N` ones: the samples belong to the problem).
    pub fn remove_test(&self, id: &str, name: &str) -> Result<(), String> {
        let dir = self
            .problem_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        let Some(n) = name.strip_prefix("custom-") else {
            return Err("only tests you added (custom-N) can be removed".into());
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return Err("only tests you added (custom-N) can be removed".into());
        }
        let input = dir.join("tests").join(format!("{name}.in"));
        if !input.is_file() {
            return Err(format!("problem `{id}` has no test `{name}`"));
        }
        let _ = std::fs::remove_file(dir.join("tests").join(format!("{name}.ans")));
        std::fs::remove_file(&input).map_err(|e| format!("{}: {e}", input.display()))
    }
}

/// An interactor to attach: its file, its protocol, and helper files beside it (`testlib.h`).
pub struct NewInteractor<'a> {
    pub file_name: &'a str,
    pub text: &'a [u8],
    /// `kattis` or `testlib`.
    pub protocol: &'a str,
    pub helpers: Vec<(&'a str, &'a [u8])>,
}

/// Whether `name` is a plain file name a package may hold: not empty, at most 100 of
/// `[A-Za-z0-9._-]`, not starting with a dot.
fn plain_file_name(name: &str) -> bool {
    valid_id(name)
}

impl Store {
    /// Attaches an interactor to problem `id` (replacing one attached before): its files go to
    /// `interactor/`, and `problem.toml` gains `[interactor]`; the package must load with it,
    /// or nothing changes.
    pub fn attach_interactor(&self, id: &str, new: &NewInteractor) -> Result<(), String> {
        let dir = self
            .problem_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        if !matches!(new.protocol, "kattis" | "testlib") {
            return Err(format!(
                "unknown protocol `{}`: `kattis` (exit 42 accepts, 43 rejects) or `testlib` (exit 0 OK, 1 WA, 2 PE, 3 fail)",
                new.protocol
            ));
        }
        for name in std::iter::once(new.file_name).chain(new.helpers.iter().map(|h| h.0)) {
            if !plain_file_name(name) {
                return Err(format!(
                    "`{name}` is not a plain file name (letters, digits, . _ -)"
                ));
            }
        }
        let toml_path = dir.join("problem.toml");
        if !toml_path.is_file() {
            return Err(format!(
                "problem `{id}` is not a native package (no problem.toml): give the interactor in the package itself"
            ));
        }
        let text = std::fs::read_to_string(&toml_path)
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        let mut table: toml::Table = text
            .parse()
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        let mut interactor = toml::Table::new();
        interactor.insert(
            "source".into(),
            format!("interactor/{}", new.file_name).into(),
        );
        interactor.insert("protocol".into(), new.protocol.into());
        if !new.helpers.is_empty() {
            interactor.insert(
                "files".into(),
                toml::Value::Array(
                    new.helpers
                        .iter()
                        .map(|(n, _)| format!("interactor/{n}").into())
                        .collect(),
                ),
            );
        }
        table.insert("interactor".into(), interactor.into());
        let new_toml = toml::to_string(&table).map_err(|e| e.to_string())?;
        // The files in a folder of their own first, then swapped in with problem.toml; put
        // back as they were when the package does not load.
        let staged = dir.join(format!(".interactor-{}", unique()));
        let old = dir.join(format!(".interactor-old-{}", unique()));
        let write = || -> std::io::Result<()> {
            std::fs::create_dir(&staged)?;
            std::fs::write(staged.join(new.file_name), new.text)?;
            for (name, bytes) in &new.helpers {
                std::fs::write(staged.join(name), bytes)?;
            }
            Ok(())
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(format!("cannot write the interactor: {e}"));
        }
        let current = dir.join("interactor");
        let had = current.exists();
        let swap = (|| -> std::io::Result<()> {
            if had {
                std::fs::rename(&current, &old)?;
            }
            std::fs::rename(&staged, &current)?;
            let tmp = dir.join(format!(".problem-{}.toml", unique()));
            std::fs::write(&tmp, &new_toml)?;
            std::fs::rename(&tmp, &toml_path)
        })();
        let loaded = swap
            .map_err(|e| format!("cannot write the interactor: {e}"))
            .and_then(|_| {
                Problem::load_inputs(&dir)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
        match loaded {
            Ok(()) => {
                let _ = std::fs::remove_dir_all(&old);
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::write(&toml_path, &text);
                let _ = std::fs::remove_dir_all(&current);
                if had {
                    let _ = std::fs::rename(&old, &current);
                }
                let _ = std::fs::remove_dir_all(&staged);
                Err(e)
            }
        }
    }

    /// Takes problem `id`'s attached interactor away (`interactor/` and `[interactor]`).
    pub fn detach_interactor(&self, id: &str) -> Result<bool, String> {
        let dir = self
            .problem_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        let toml_path = dir.join("problem.toml");
        let text = std::fs::read_to_string(&toml_path)
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        let mut table: toml::Table = text
            .parse()
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        if table.remove("interactor").is_none() {
            return Ok(false);
        }
        let new_toml = toml::to_string(&table).map_err(|e| e.to_string())?;
        let tmp = dir.join(format!(".problem-{}.toml", unique()));
        std::fs::write(&tmp, new_toml)
            .and_then(|_| std::fs::rename(&tmp, &toml_path))
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        let _ = std::fs::remove_dir_all(dir.join("interactor"));
        Ok(true)
    }

    /// The folder of problem `id`'s saved exchanges (`interactions/NAME.interaction`).
    pub fn interactions_dir(&self, id: &str) -> Option<PathBuf> {
        self.problem_dir(id).map(|d| d.join("interactions"))
    }

    /// The names of problem `id`'s saved exchanges, in name order.
    pub fn interactions(&self, id: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .interactions_dir(id)
            .and_then(|d| std::fs::read_dir(d).ok())
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_str()?.to_string();
                        let stem = name.strip_suffix(".interaction")?;
                        valid_id(stem).then(|| stem.to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        names.sort_by(|a, b| judge_core::package::natural_cmp(a, b));
        names
    }

    /// Saves an exchange as `interactions/NAME.interaction` of problem `id` (`name`, or the
    /// next free `console-N`); its name.
    pub fn save_interaction(
        &self,
        id: &str,
        name: Option<&str>,
        text: &str,
    ) -> Result<String, String> {
        let dir = self
            .interactions_dir(id)
            .ok_or_else(|| format!("no problem `{id}`"))?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let write = |name: &str, new: bool| -> std::io::Result<()> {
            let path = dir.join(format!("{name}.interaction"));
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .create_new(new)
                .truncate(true)
                .open(path)?;
            std::io::Write::write_all(&mut f, text.as_bytes())
        };
        match name {
            Some(name) => {
                if !valid_id(name) {
                    return Err(format!(
                        "`{name}` cannot name an exchange: letters, digits, . _ - (at most 100)"
                    ));
                }
                write(name, false).map_err(|e| format!("{}: {e}", dir.display()))?;
                Ok(name.to_string())
            }
            None => {
                for n in 1..10_000 {
                    let name = format!("console-{n}");
                    match write(&name, true) {
                        Ok(()) => return Ok(name),
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                        Err(e) => return Err(format!("{}: {e}", dir.display())),
                    }
                }
                Err("too many saved exchanges".into())
            }
        }
    }
}

pub fn hex_sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc;

    #[test]
    fn slugs_and_ids() {
        assert_eq!(slug("A. Theatre Square", "x"), "a-theatre-square");
        assert_eq!(slug("黑白棋游戏", "problem-1"), "problem-1");
        assert_eq!(slug("--Hello,  World!!", "x"), "hello-world");
        assert!(valid_id("a-theatre-square") && valid_id("snake"));
        for bad in ["", "..", ".hidden", "a/b", "a b", "a%2fb", &"x".repeat(101)] {
            assert!(!valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn a_received_problem_becomes_a_native_package_the_judge_loads() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let second = Store::open(tmp.path()).unwrap_err();
        assert!(second.contains("another `judge practice`"), "{second}");
        let body = br#"{"name":"A. Sum \"quoted\"","group":"Codeforces - Round 1","url":"https://codeforces.com/contest/1/problem/A",
            "interactive":false,"memoryLimit":256,"timeLimit":2000,"tests":[{"input":"1 2\n","output":"3\n"},{"input":"5 5\n","output":"10\n"}],
            "testType":"single","input":{"type":"file","fileName":"sum.in"},"output":{"type":"stdout"}}"#;
        let received = cc::parse(body).unwrap();
        let id = store.save(&received, 1_000).unwrap();
        assert_eq!(id, "a-sum-quoted");
        let problem = store.load(&id).unwrap();
        assert_eq!(problem.name, "A. Sum \"quoted\"");
        assert_eq!(problem.limits.time, std::time::Duration::from_secs(2));
        assert_eq!(problem.limits.memory, 256 << 20);
        assert_eq!(problem.tests.len(), 2);
        assert_eq!(problem.io.input.as_deref(), Some("sum.in"));
        assert_eq!(problem.io.output, None);
        let meta = store.meta(&id);
        assert_eq!(meta.group, "Codeforces - Round 1");
        assert_eq!(meta.received_at, 1_000);
        // The same address again replaces it; another problem of the same name gets -2.
        assert_eq!(store.save(&received, 2_000).unwrap(), id);
        assert_eq!(store.meta(&id).received_at, 2_000);
        let mut other = received.clone();
        other.url = "https://codeforces.com/contest/2/problem/A".into();
        assert_eq!(store.save(&other, 3_000).unwrap(), "a-sum-quoted-2");
        assert_eq!(store.ids(), ["a-sum-quoted", "a-sum-quoted-2"]);
        // Tests of the user's.
        assert_eq!(store.add_test(&id, "7 8\n", "15\n").unwrap(), "custom-1");
        assert_eq!(store.add_test(&id, "1 1\n", "2\n").unwrap(), "custom-2");
        assert_eq!(store.load(&id).unwrap().tests.len(), 4);
        assert!(store.remove_test(&id, "sample-1").is_err());
        assert!(store.remove_test(&id, "custom-../x").is_err());
        store.remove_test(&id, "custom-1").unwrap();
        assert_eq!(store.load(&id).unwrap().tests.len(), 3);
        assert!(store.load("../etc").is_err());
    }

    #[test]
    fn an_interactor_is_attached_to_a_received_problem_and_taken_away_all_or_nothing() {
        use judge_core::package::Protocol;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let body = br#"{"name":"Guess","url":"https://example.org/g","interactive":true,"memoryLimit":256,"timeLimit":1000,"tests":[{"input":"5\n","output":"5\n"}]}"#;
        let id = store.save(&crate::cc::parse(body).unwrap(), 1).unwrap();
        let dir = store.problem_dir(&id).unwrap();
        let toml_before = std::fs::read_to_string(dir.join("problem.toml")).unwrap();
        let new = |file_name, protocol, helpers| NewInteractor {
            file_name,
            text: b"print(1)\n",
            protocol,
            helpers,
        };
        // Refused, and nothing written: an unknown protocol, a name that is a path.
        let e = store
            .attach_interactor(&id, &new("i.py", "icpc", vec![]))
            .unwrap_err();
        assert!(e.contains("unknown protocol `icpc`"), "{e}");
        let e = store
            .attach_interactor(&id, &new("../i.py", "kattis", vec![]))
            .unwrap_err();
        assert!(e.contains("not a plain file name"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.join("problem.toml")).unwrap(),
            toml_before
        );
        assert!(!dir.join("interactor").exists());
        // Attached: the package loads with it, helpers beside it.
        store
            .attach_interactor(
                &id,
                &new(
                    "i.cpp",
                    "testlib",
                    vec![("testlib.h", b"// h\n".as_slice())],
                ),
            )
            .unwrap();
        let p = store.load(&id).unwrap();
        let i = p.interactor.expect("an interactor");
        assert_eq!(i.source, dir.join("interactor/i.cpp"));
        assert_eq!(i.protocol, Protocol::Testlib);
        assert_eq!(i.helpers, [dir.join("interactor/testlib.h")]);
        assert_eq!(p.tests.len(), 1);
        // Replaced by another; a package broken otherwise keeps the one it had.
        store
            .attach_interactor(&id, &new("j.py", "kattis", vec![]))
            .unwrap();
        assert!(!dir.join("interactor/i.cpp").exists());
        std::fs::write(dir.join("tests/stray.ans"), "1\n").unwrap();
        let e = store
            .attach_interactor(&id, &new("k.py", "kattis", vec![]))
            .unwrap_err();
        assert!(e.contains("answer without an input"), "{e}");
        std::fs::remove_file(dir.join("tests/stray.ans")).unwrap();
        let p = store.load(&id).unwrap();
        assert_eq!(p.interactor.unwrap().source, dir.join("interactor/j.py"));
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        // Taken away: the problem as received.
        assert!(store.detach_interactor(&id).unwrap());
        assert!(!store.detach_interactor(&id).unwrap());
        assert!(store.load(&id).unwrap().interactor.is_none());
        assert!(!dir.join("interactor").exists());
    }

    #[test]
    fn exchanges_are_saved_under_free_names_and_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let body = br#"{"name":"Guess","url":"https://example.org/g","memoryLimit":256,"timeLimit":1000,"tests":[]}"#;
        let id = store.save(&crate::cc::parse(body).unwrap(), 1).unwrap();
        assert_eq!(
            store.save_interaction(&id, None, "<1\n").unwrap(),
            "console-1"
        );
        assert_eq!(
            store.save_interaction(&id, None, "<2\n").unwrap(),
            "console-2"
        );
        assert_eq!(
            store.save_interaction(&id, Some("mine"), ">3\n").unwrap(),
            "mine"
        );
        assert!(store.save_interaction(&id, Some("../x"), "").is_err());
        assert!(store.save_interaction("nope", None, "").is_err());
        assert_eq!(store.interactions(&id), ["console-1", "console-2", "mine"]);
        // Saved exchanges live beside the package, not in tests/: it still loads.
        assert!(store.load(&id).unwrap().tests.is_empty());
    }

    #[test]
    fn a_problem_received_without_samples_loads_and_takes_a_test_of_the_users() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let body = br#"{"name":"No Samples","url":"https://example.org/n","memoryLimit":256,"timeLimit":1000,"tests":[]}"#;
        let id = store.save(&crate::cc::parse(body).unwrap(), 1).unwrap();
        let problem = store.load(&id).unwrap();
        assert!(problem.tests.is_empty());
        assert_eq!(problem.limits.time, std::time::Duration::from_secs(1));
        // A package that is broken otherwise is still an error.
        let dir = store.problem_dir(&id).unwrap();
        std::fs::write(dir.join("tests/x.ans"), "1\n").unwrap();
        assert!(store
            .load(&id)
            .unwrap_err()
            .contains("answer without an input"));
        std::fs::remove_file(dir.join("tests/x.ans")).unwrap();
        store.add_test(&id, "1 2\n", "3\n").unwrap();
        // Now a package as any other: `judge run` loads it too.
        assert_eq!(Problem::load(&dir).unwrap().tests.len(), 1);
        assert_eq!(store.load(&id).unwrap().tests.len(), 1);
    }
}
