//! The build cache: an unchanged program is not compiled again; anything that shapes the build
//! (source, language entry) rebuilds it; damaged entries and unsafe folders are not trusted.

use crate::harness::{fixture_problem, judge, program, Judge};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A cache folder shared by the judges of one test.
struct Cache {
    home: tempfile::TempDir,
}

impl Cache {
    fn new() -> Cache {
        Cache {
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// A judge using this cache.
    fn judge(&self) -> Judge<'static> {
        judge().env("XDG_CACHE_HOME", self.home.path())
    }

    fn entries_dir(&self) -> PathBuf {
        self.home.path().join("judge/v1/entries")
    }

    /// Every entry by name, with the inode of its folder (a rebuilt entry is a new folder).
    fn entries(&self) -> BTreeMap<String, u64> {
        std::fs::read_dir(self.entries_dir())
            .map(|rd| {
                rd.flatten()
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        (name, e.metadata().unwrap().ino())
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The folder of the only entry.
    fn only_entry(&self) -> PathBuf {
        let entries = self.entries();
        assert_eq!(entries.len(), 1, "{entries:?}");
        self.entries_dir().join(entries.keys().next().unwrap())
    }

    fn staging_left(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.home.path().join("judge/v1/tmp"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect()
    }
}

/// `judge run sum <source> --json` with this cache; returns (verdict, cached, compile message).
fn run(cache: &Cache, source: &Path, extra: &[&str]) -> (String, bool, String) {
    let f = cache
        .judge()
        .args(extra)
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(source)
        .arg("--json")
        .output();
    let doc = f.json();
    assert!(
        doc["compile"]["cached"].is_boolean(),
        "compile.cached is a boolean: {}",
        f.describe()
    );
    (
        doc["verdict"].as_str().unwrap().to_string(),
        doc["compile"]["cached"] == true,
        doc["compile"]["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_second_run_is_cached_and_a_changed_source_is_rebuilt() {
    let cache = Cache::new();
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("mine.c");
    std::fs::copy(program("ac.c"), &source).unwrap();

    assert_eq!(run(&cache, &source, &[]), ("AC".into(), false, "".into()));
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), true, "".into()));
    let first = cache.entries();
    assert_eq!(first.len(), 1);

    // The human output says so.
    let f = cache
        .judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .output();
    f.expect_code(0)
        .expect_stderr_contains("Compiled C (cached)");

    // One byte more is another program.
    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("\n// changed\n");
    std::fs::write(&source, text).unwrap();
    assert!(!run(&cache, &source, &[]).1);
    assert!(run(&cache, &source, &[]).1);
    let second = cache.entries();
    assert_eq!(second.len(), 2);
    assert!(first.iter().all(|(k, ino)| second.get(k) == Some(ino)));

    let mode = std::fs::metadata(cache.home.path().join("judge"))
        .unwrap()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");
    assert!(
        cache.staging_left().is_empty(),
        "{:?}",
        cache.staging_left()
    );
}

#[test]
fn the_same_program_elsewhere_reuses_the_build_and_names_its_own_file() {
    let cache = Cache::new();
    let dir = tempfile::tempdir().unwrap();
    // A warning names the file as the user gave it, also when the build comes from the cache.
    let code = "#include <stdio.h>\nint main(void) { int unused; long a = 0, x; int n;\n\
                scanf(\"%d\", &n); while (n-- > 0 && scanf(\"%ld\", &x) == 1) a += x;\n\
                printf(\"%ld\\n\", a); return 0; }\n";
    let lang = dir.path().join("languages.toml");
    std::fs::write(
        &lang,
        "[[language]]\nname = \"C\"\nextensions = [\"c\"]\nsource_name = \"main.c\"\n\
         compile = [\"gcc\", \"-Wall\", \"-o\", \"{exe}\", \"{src}\"]\nrun = [\"{exe}\"]\n",
    )
    .unwrap();
    let a = dir.path().join("a.c");
    let b = dir.path().join("b.c");
    std::fs::write(&a, code).unwrap();
    std::fs::write(&b, code).unwrap();
    let languages = ["--languages", lang.to_str().unwrap()];
    let (verdict, cached, message) = run(&cache, &a, &languages);
    assert_eq!((verdict.as_str(), cached), ("AC", false));
    assert!(message.contains("a.c:2:"), "{message}");
    let (verdict, cached, message) = run(&cache, &b, &languages);
    assert_eq!((verdict.as_str(), cached), ("AC", true));
    assert!(message.contains("b.c:2:"), "{message}");
    assert!(!message.contains("a.c"), "{message}");
}

#[test]
fn a_changed_language_entry_rebuilds() {
    let cache = Cache::new();
    let dir = tempfile::tempdir().unwrap();
    let table = |flag: &str| {
        format!(
            "[[language]]\nname = \"C\"\nextensions = [\"c\"]\nsource_name = \"main.c\"\n\
             compile = [\"gcc\", \"{flag}\", \"-o\", \"{{exe}}\", \"{{src}}\"]\nrun = [\"{{exe}}\"]\n"
        )
    };
    let o2 = dir.path().join("o2.toml");
    let o1 = dir.path().join("o1.toml");
    std::fs::write(&o2, table("-O2")).unwrap();
    std::fs::write(&o1, table("-O1")).unwrap();
    let source = program("ac.c");
    let with = |file: &Path| run(&cache, &source, &["--languages", file.to_str().unwrap()]).1;
    assert!(!with(&o2));
    assert!(with(&o2));
    assert!(!with(&o1), "another flag is another build");
    assert!(with(&o1));
    // The built-in table is yet another entry.
    assert!(!run(&cache, &source, &[]).1);
    assert_eq!(cache.entries().len(), 3);
}

#[test]
fn no_cache_neither_reads_nor_fills_it() {
    let cache = Cache::new();
    let source = program("ac.cpp");
    assert!(!run(&cache, &source, &["--no-cache"]).1);
    assert!(cache.entries().is_empty());
    assert!(!run(&cache, &source, &[]).1);
    assert!(!run(&cache, &source, &["--no-cache"]).1);
    assert!(run(&cache, &source, &[]).1);
}

#[test]
fn compile_errors_are_cached_with_the_same_message() {
    let cache = Cache::new();
    let source = program("ce.c");
    let (verdict, cached, first) = run(&cache, &source, &[]);
    assert_eq!((verdict.as_str(), cached), ("CE", false));
    assert!(first.contains("ce.c:"), "{first}");
    let (verdict, cached, second) = run(&cache, &source, &[]);
    assert_eq!((verdict.as_str(), cached), ("CE", true));
    assert_eq!(first, second);
}

#[test]
fn a_damaged_entry_is_ignored_and_rebuilt() {
    let cache = Cache::new();
    let source = program("ac.c");
    assert!(!run(&cache, &source, &[]).1);
    let entry = cache.only_entry();

    // A truncated program.
    let prog = entry.join("prog");
    let len = std::fs::metadata(&prog).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&prog)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), false, "".into()));
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), true, "".into()));

    // The same size, other bytes.
    let entry = cache.only_entry();
    let mut bytes = std::fs::read(entry.join("prog")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(entry.join("prog"), bytes).unwrap();
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), false, "".into()));

    // A meta.json cut short, then none at all.
    let entry = cache.only_entry();
    std::fs::write(entry.join("meta.json"), "{\"format\": 1, \"ke").unwrap();
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), false, "".into()));
    std::fs::remove_file(cache.only_entry().join("meta.json")).unwrap();
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), false, "".into()));
    assert_eq!(run(&cache, &source, &[]), ("AC".into(), true, "".into()));
    assert!(
        cache.staging_left().is_empty(),
        "{:?}",
        cache.staging_left()
    );
}

#[test]
fn two_judges_at_once_share_the_cache() {
    let cache = Cache::new();
    let sources = ["ac.c", "ac.cpp", "ac.py"];
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    for name in sources {
                        assert_eq!(run(&cache, &program(name), &[]).0, "AC", "{name}");
                    }
                })
            })
            .collect();
        for r in runs {
            r.join().unwrap();
        }
    });
    assert_eq!(
        cache.entries().len(),
        sources.len(),
        "{:?}",
        cache.entries()
    );
    for name in sources {
        assert!(run(&cache, &program(name), &[]).1, "{name}");
    }
    assert!(
        cache.staging_left().is_empty(),
        "{:?}",
        cache.staging_left()
    );
}

#[test]
fn a_cache_folder_others_may_write_or_own_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let f = judge()
        .env("JUDGE_CACHE_DIR", &open)
        .run_fixture("sum", "ac.c");
    f.expect_verdict("AC");
    f.expect_stderr_contains("is writable by others (mode 777)")
        .expect_stderr_contains("chmod 700");
    assert!(!open.join("v1").exists(), "nothing written to it");

    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
    let f = judge()
        .env("JUDGE_CACHE_DIR", &theirs)
        .run_fixture("sum", "ac.c");
    f.expect_verdict("AC");
    f.expect_stderr_contains("belongs to another user (uid 65534");
}

/// A repository in a temp folder: `problems/sum` and the given solutions.
fn repo(solutions: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("problems/sum");
    std::fs::create_dir_all(to.join("tests")).unwrap();
    let from = fixture_problem("sum");
    for f in ["problem.toml", "statement.md"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
    for e in std::fs::read_dir(from.join("tests")).unwrap().flatten() {
        std::fs::copy(e.path(), to.join("tests").join(e.file_name())).unwrap();
    }
    for (folder, prog) in solutions {
        let to = dir.path().join("solutions/sum").join(folder);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(program(prog), to.join(prog)).unwrap();
    }
    dir
}

#[test]
fn a_second_verify_compiles_nothing_and_one_change_rebuilds_only_it() {
    let cache = Cache::new();
    let r = repo(&[
        ("accepted", "ac.c"),
        ("accepted", "ac.py"),
        ("wrong_answer", "wa.c"),
        ("runtime_error", "re-segv.c"),
        ("compile_error", "ce.c"),
    ]);
    let verify = || {
        cache
            .judge()
            .arg("verify")
            .current_dir(r.path())
            .output()
            .expect_code(0)
            .stdout()
    };
    let first_out = verify();
    let first = cache.entries();
    assert_eq!(first.len(), 5, "one per solution: {first:?}");

    // Nothing changed: every build comes from the cache (no entry is written again).
    let second_out = verify();
    assert_eq!(cache.entries(), first);
    assert_eq!(first_out.lines().count(), second_out.lines().count());

    // One solution changed: one new entry, the others untouched.
    let wa = r.path().join("solutions/sum/wrong_answer/wa.c");
    let mut text = std::fs::read_to_string(&wa).unwrap();
    text.push_str("\n/* changed */\n");
    std::fs::write(&wa, text).unwrap();
    verify();
    let third = cache.entries();
    assert_eq!(third.len(), 6, "{third:?}");
    assert!(first.iter().all(|(k, ino)| third.get(k) == Some(ino)));
}

/// A copy of fixture package `name` (tests/fixtures/packages) in a temp folder.
fn package_copy(name: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            if e.path().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(
        &crate::harness::root()
            .join("tests/fixtures/packages")
            .join(name),
        &dir.path().join(name),
    );
    dir
}

/// Verifies `package` twice with this cache: the first fills `entries` entries, the second
/// takes every build from them (each entry is used: its meta.json is touched, no entry is added).
fn verify_twice_compiles_nothing_the_second_time(cache: &Cache, package: &Path, entries: usize) {
    let verify = || {
        cache
            .judge()
            .arg("verify")
            .arg(package)
            .args(["--format", "jsonl"])
            .output()
            .expect_code(0)
            .stdout()
    };
    let first = verify();
    let filled = cache.entries();
    assert_eq!(filled.len(), entries, "{filled:?}\n{first}");
    let used = |name: &str| {
        std::fs::metadata(cache.entries_dir().join(name).join("meta.json"))
            .unwrap()
            .modified()
            .unwrap()
    };
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for name in filled.keys() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(cache.entries_dir().join(name).join("meta.json"))
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
    let second = verify();
    assert_eq!(cache.entries(), filled, "{second}");
    for name in filled.keys() {
        assert!(used(name) > past, "entry {name} was not used:\n{second}");
    }
    for line in second
        .lines()
        .filter(|l| l.contains("\"compile_finished\""))
    {
        assert!(line.contains("\"cached\":true"), "{line}");
    }
}

/// Builds with files beside the source are cached too, keyed on every helper's bytes: a Kattis
/// validator with its header, a submission built with `include/c/`, multi-file submissions
/// (Python, and C++ compiled together); changing a helper rebuilds the programs built with it.
#[test]
fn builds_with_helper_files_are_cached_on_their_bytes() {
    let cache = Cache::new();
    let dir = package_copy("kattis-custom");
    let p = dir.path().join("kattis-custom");
    let write = |rel: &str, text: &str| {
        let path = p.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "include/c/parity.h",
        "static const char *word(long n) { return n % 2 ? \"ODD\" : \"EVEN\"; }\n",
    );
    write(
        "submissions/accepted/parity.c",
        "#include <stdio.h>\n#include \"parity.h\"\nint main(void) { long n; if (scanf(\"%ld\", &n) != 1) return 1; puts(word(n)); return 0; }\n",
    );
    write(
        "submissions/accepted/multi/main.py",
        "from words import word\n\nprint(word(int(input())))\n",
    );
    write(
        "submissions/accepted/multi/words.py",
        "def word(n):\n    return 'ODD' if n % 2 else 'EVEN'\n",
    );
    // A C++ submission of two sources and a header, none named main.cpp: built together.
    write(
        "submissions/accepted/cpp/word.h",
        "const char *word(long n);\n",
    );
    write(
        "submissions/accepted/cpp/word.cpp",
        "#include \"word.h\"\nconst char *word(long n) { return n % 2 ? \"ODD\" : \"EVEN\"; }\n",
    );
    write(
        "submissions/accepted/cpp/solve.cpp",
        "#include <cstdio>\n#include \"word.h\"\nint main() { long n; if (std::scanf(\"%ld\", &n) != 1) return 1; std::puts(word(n)); }\n",
    );
    verify_twice_compiles_nothing_the_second_time(&cache, &p, 4);
    // A changed helper is another build: one new entry for the submission built with it.
    write(
        "include/c/parity.h",
        "static const char *word(long n) { return (n & 1) ? \"ODD\" : \"EVEN\"; }\n",
    );
    let before = cache.entries();
    cache.judge().arg("verify").arg(&p).output().expect_code(0);
    let after = cache.entries();
    assert_eq!(after.len(), 5, "{after:?}");
    assert!(before.iter().all(|(k, ino)| after.get(k) == Some(ino)));
    // So is a changed source of the folder that is not its main file.
    write(
        "submissions/accepted/cpp/word.cpp",
        "#include \"word.h\"\nconst char *word(long n) { return (n & 1) ? \"ODD\" : \"EVEN\"; }\n",
    );
    cache.judge().arg("verify").arg(&p).output().expect_code(0);
    assert_eq!(cache.entries().len(), 6);
}

/// A Polygon package's checker and validator built with the header of files/ are cached.
#[test]
fn a_polygon_checker_with_its_header_is_compiled_once() {
    let cache = Cache::new();
    let dir = package_copy("polygon-files");
    // The checker, the validator and the two solutions.
    verify_twice_compiles_nothing_the_second_time(&cache, &dir.path().join("polygon-files"), 4);
}
