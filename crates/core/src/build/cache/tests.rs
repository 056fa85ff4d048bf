use super::evict::STALE_STAGING;
use super::key::identity_now;
use super::*;
use crate::lang::{Language, Languages};
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime};
use test_case::test_case;

fn cache(max_bytes: u64) -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(&dir.path().join("judge"), max_bytes).unwrap();
    (dir, cache)
}

fn language(name: &str) -> Language {
    let all = Languages::load(None).unwrap();
    all.all().iter().find(|l| l.name == name).unwrap().clone()
}

#[test]
fn the_key_changes_with_everything_that_shapes_a_build() {
    let (dir, c) = cache(DEFAULT_MAX_BYTES);
    let compiler = dir.path().join("cc");
    std::fs::write(&compiler, "compiler v1").unwrap();
    let other_compiler = dir.path().join("cc2");
    std::fs::write(&other_compiler, "compiler v1").unwrap();
    let header = dir.path().join("include");
    std::fs::create_dir(&header).unwrap();
    let cpp = language("C++");
    let mut cpp_o1 = cpp.clone();
    cpp_o1.compile[1] = "-O1".into();
    let base = KeyInputs {
        source: b"int main() {}",
        language: &cpp,
        compiler: &compiler,
        compile_paths: &[],
        settings: "limits",
        helpers: &[],
    };
    let header_h = [("testlib.h".to_string(), b"// v1".to_vec())];
    let header_h2 = [("testlib.h".to_string(), b"// v2".to_vec())];
    let other_name = [("other.h".to_string(), b"// v1".to_vec())];
    let key = c.key(&base).unwrap();
    assert_eq!(key.len(), 64);
    assert_eq!(c.key(&base).unwrap(), key, "the same inputs, the same key");
    let variants = [
        KeyInputs {
            source: b"int main() { }",
            ..base
        },
        KeyInputs {
            language: &cpp_o1,
            ..base
        },
        KeyInputs {
            compiler: &other_compiler,
            ..base
        },
        KeyInputs {
            compile_paths: std::slice::from_ref(&header),
            ..base
        },
        KeyInputs {
            settings: "other limits",
            ..base
        },
        KeyInputs {
            helpers: &header_h,
            ..base
        },
    ];
    // A helper's bytes and its name are in the key.
    let with = |helpers| c.key(&KeyInputs { helpers, ..base }).unwrap();
    assert_ne!(with(&header_h), with(&header_h2));
    assert_ne!(with(&header_h), with(&other_name));
    assert_eq!(with(&header_h), with(&header_h));
    for v in &variants {
        assert_ne!(c.key(v).unwrap(), key);
    }
    // A compiler that cannot be identified: nothing is cached.
    let missing = dir.path().join("missing");
    assert!(c
        .key(&KeyInputs {
            compiler: &missing,
            ..base
        })
        .is_none());
    // Fields are delimited: moving bytes between two fields is another key.
    let h1 = c.key(&KeyInputs {
        settings: "ab",
        source: b"c",
        ..base
    });
    let h2 = c.key(&KeyInputs {
        settings: "a",
        source: b"bc",
        ..base
    });
    assert_ne!(h1, h2);
}

#[test]
fn a_changed_compiler_file_is_another_identity() {
    let dir = tempfile::tempdir().unwrap();
    let compiler = dir.path().join("cc");
    std::fs::write(&compiler, "compiler v1").unwrap();
    let before = identity_now(&compiler).unwrap();
    // Same size, new contents: the times (and the change time) move.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&compiler, "compiler v2").unwrap();
    assert_ne!(identity_now(&compiler).unwrap(), before);
    // Replaced by another file (an upgrade renames a new file into place).
    let new = dir.path().join("cc.new");
    std::fs::write(&new, "compiler v2").unwrap();
    let replaced = identity_now(&compiler).unwrap();
    std::fs::rename(&new, &compiler).unwrap();
    assert_ne!(identity_now(&compiler).unwrap(), replaced);
    // A link is its target.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&compiler, &link).unwrap();
    assert_eq!(identity_now(&link), identity_now(&compiler));
}

fn outcome(ok: bool) -> Outcome {
    Outcome {
        ok,
        stopped: (!ok).then(|| "the compiler failed (exit code 1)".into()),
        message: "main.c:1:1: warning".into(),
        src: "/tmp/judge-x/build-1/main.c".into(),
    }
}

/// A build folder with a program of `size` bytes.
fn built(size: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.c"), "int main(){}").unwrap();
    std::fs::write(dir.path().join("prog"), vec![7u8; size]).unwrap();
    std::fs::set_permissions(
        dir.path().join("prog"),
        std::os::unix::fs::PermissionsExt::from_mode(0o775),
    )
    .unwrap();
    dir
}

#[test]
fn an_entry_comes_back_whole() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(1000);
    let key = "a".repeat(64);
    c.store(&key, from.path(), &outcome(true), &[]);
    let to = tempfile::tempdir().unwrap();
    assert_eq!(c.fetch(&key, to.path()), Some(outcome(true)));
    assert_eq!(
        std::fs::read(to.path().join("prog")).unwrap(),
        vec![7u8; 1000]
    );
    let mode = std::fs::metadata(to.path().join("prog")).unwrap().mode();
    assert_eq!(mode & 0o111, 0o111, "still executable: {mode:o}");
    assert_eq!(mode & 0o022, 0, "writable by nobody else: {mode:o}");
    // A failed build keeps no files.
    let key2 = "b".repeat(64);
    c.store(&key2, from.path(), &outcome(false), &[]);
    let to = tempfile::tempdir().unwrap();
    assert_eq!(c.fetch(&key2, to.path()), Some(outcome(false)));
    assert_eq!(std::fs::read_dir(to.path()).unwrap().count(), 0);
    assert!(c.fetch(&"c".repeat(64), to.path()).is_none());
}

/// A build with helper files keeps what the compiler made, not the helpers it was given
/// (unchanged): restored into a folder that holds them again, nothing collides.
#[test]
fn the_helpers_given_are_not_stored_and_a_restore_goes_beside_them() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(100);
    std::fs::write(from.path().join("testlib.h"), "// header").unwrap();
    let helpers = [("testlib.h".to_string(), b"// header".to_vec())];
    let key = "a".repeat(64);
    c.store(&key, from.path(), &outcome(true), &helpers);
    assert!(!c.entries().join(&key).join("testlib.h").exists());
    assert!(c.entries().join(&key).join("prog").exists());
    let to = tempfile::tempdir().unwrap();
    std::fs::write(to.path().join("testlib.h"), "// header").unwrap();
    assert_eq!(c.fetch(&key, to.path()), Some(outcome(true)));
    assert_eq!(
        std::fs::read(to.path().join("prog")).unwrap(),
        vec![7u8; 100]
    );
    // A helper the compiler changed is the build's own file: kept.
    std::fs::write(from.path().join("testlib.h"), "// rewritten").unwrap();
    let key = "b".repeat(64);
    c.store(&key, from.path(), &outcome(true), &helpers);
    assert!(c.entries().join(&key).join("testlib.h").exists());
}

#[test]
fn builds_stored_at_once_leave_one_whole_entry() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(200_000);
    let key = "a".repeat(64);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    c.store(&key, from.path(), &outcome(true), &[]);
                    let to = tempfile::tempdir().unwrap();
                    // Whenever an entry is there, it is whole.
                    if let Some(o) = c.fetch(&key, to.path()) {
                        assert_eq!(o, outcome(true));
                        assert_eq!(
                            std::fs::read(to.path().join("prog")).unwrap().len(),
                            200_000
                        );
                    }
                }
            });
        }
    });
    assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(c.root.join("tmp")).unwrap().count(), 0);
}

#[test]
fn a_damaged_entry_is_removed_and_its_files_not_left_behind() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(1000);
    let key = "a".repeat(64);
    c.store(&key, from.path(), &outcome(true), &[]);
    std::fs::write(c.entries().join(&key).join("prog"), vec![8u8; 1000]).unwrap();
    let to = tempfile::tempdir().unwrap();
    assert!(c.fetch(&key, to.path()).is_none());
    assert!(!c.entries().join(&key).exists());
    assert_eq!(std::fs::read_dir(to.path()).unwrap().count(), 0);
}

#[test]
fn what_is_not_a_plain_file_of_the_build_is_not_cached() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(10);
    std::os::unix::fs::symlink("/etc/passwd", from.path().join("leak")).unwrap();
    c.store(&"a".repeat(64), from.path(), &outcome(true), &[]);
    let from = built(10);
    std::fs::hard_link(from.path().join("prog"), from.path().join("prog2")).unwrap();
    c.store(&"b".repeat(64), from.path(), &outcome(true), &[]);
    assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 0);
}

#[test]
fn a_text_file_naming_its_build_folder_is_not_cached() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let from = built(10);
    let script = format!(
        "#!/bin/sh\nexec /usr/bin/java -cp {} Main\n",
        from.path().display()
    );
    std::fs::write(from.path().join("prog"), script).unwrap();
    c.store(&"a".repeat(64), from.path(), &outcome(true), &[]);
    assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 0);
    // A program (not text) that names it, as Rust's panic locations do, is kept.
    let from = built(10);
    let mut program = b"\x7fELF\0".to_vec();
    program.extend_from_slice(from.path().join("main.rs").as_os_str().as_encoded_bytes());
    std::fs::write(from.path().join("prog"), program).unwrap();
    c.store(&"b".repeat(64), from.path(), &outcome(true), &[]);
    assert_eq!(std::fs::read_dir(c.entries()).unwrap().count(), 1);
}

#[test]
fn the_least_recently_used_entries_go_first() {
    let (_d, c) = cache(12_000);
    let from = built(3000);
    let keys: Vec<String> = (0..3).map(|i| format!("{i}").repeat(64)).collect();
    let meta = |k: &str| c.entries().join(k).join("meta.json");
    let past = |secs| SystemTime::now() - Duration::from_secs(secs);
    for (i, k) in keys.iter().enumerate() {
        c.store(k, from.path(), &outcome(true), &[]);
        // Stored one after the other, the first the oldest.
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(meta(k))
            .unwrap();
        f.set_modified(past(100 - i as u64)).unwrap();
    }
    // Using the oldest makes it the newest.
    let to = tempfile::tempdir().unwrap();
    assert!(c.fetch(&keys[0], to.path()).is_some());
    // A fourth entry does not fit: the least recently used one (keys[1]) goes.
    let key = "x".repeat(64);
    c.store(&key, from.path(), &outcome(true), &[]);
    let mut left: Vec<String> = std::fs::read_dir(c.entries())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut want = vec![keys[0].clone(), keys[2].clone(), key];
    want.sort();
    assert_eq!(left, want);
    // An entry too large for the cache is not kept at all.
    let big = built(6000);
    c.store(&"y".repeat(64), big.path(), &outcome(true), &[]);
    assert!(!c.entries().join("y".repeat(64)).exists());
}

#[test]
fn staging_folders_of_dead_judges_are_removed() {
    let (_d, c) = cache(DEFAULT_MAX_BYTES);
    let tmp = c.root.join("tmp");
    let old = tmp.join("dead-judge");
    let young = tmp.join("busy-judge");
    std::fs::create_dir(&old).unwrap();
    std::fs::create_dir(&young).unwrap();
    std::fs::File::open(&old)
        .unwrap()
        .set_modified(SystemTime::now() - 2 * STALE_STAGING)
        .unwrap();
    c.evict();
    assert!(!old.exists());
    assert!(young.exists());
}

#[test]
fn folders_others_may_write_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let e = Cache::open(&open, 1).unwrap_err();
    assert!(
        matches!(e, CacheWarning::Writable { mode: 0o777, .. }),
        "{e}"
    );
    assert!(!open.join(FORMAT_DIR).exists());
    // A new folder is made private.
    let new = dir.path().join("a/b");
    Cache::open(&new, 1).unwrap();
    for d in [dir.path().join("a"), new.clone(), new.join(FORMAT_DIR)] {
        assert_eq!(
            std::fs::metadata(&d).unwrap().mode() & 0o777,
            0o700,
            "{d:?}"
        );
    }
}

#[test_case("1048576" => Some(1 << 20) ; "bytes")]
#[test_case("512K" => Some(512 << 10) ; "kibibytes")]
#[test_case("500M" => Some(500 << 20) ; "mebibytes")]
#[test_case("2G" => Some(2 << 30) ; "gibibytes")]
#[test_case("1GiB" => Some(1 << 30) ; "with iB")]
#[test_case("1.5g" => Some(3 << 29) ; "a fraction in lower case")]
#[test_case("0" => Some(0) ; "zero")]
#[test_case(" 10 mb " => Some(10 << 20) ; "spaces around and b")]
#[test_case("" => None ; "empty")]
#[test_case("G" => None ; "a unit alone")]
#[test_case("-1G" => None ; "negative")]
#[test_case("1X" => None ; "an unknown unit")]
#[test_case("1e9" => None ; "an exponent")]
fn sizes(text: &str) -> Option<u64> {
    parse_size(text)
}
