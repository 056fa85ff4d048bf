//! What programs see of the host. World-readable secrets planted under /opt, /etc, /srv and
//! /var/tmp stay invisible to solutions in every language (at run time), to the compilers
//! (`#include`, `include_str!`), and to generators, validators and custom checkers; a path a
//! language lists is seen by its own step only; `judge doctor` lists the view.
//!
//! Each test plants its own secrets under unique names (`Secrets`, removed on drop, also when
//! the test fails). The fixtures in tests/fixtures/secrets print `ok` when they see nothing and
//! `ESCAPED: ...` (or fail) when they see a secret; the secret's text is a C and Rust string
//! literal, so a compiler that could include it would build a program printing it.

use crate::attacks::require_full_isolation;
use crate::harness::{self, fixture_problem, root, Finished};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Secrets planted on the host for one test: a folder with a file under /opt and /etc, a file
/// under /srv and /var/tmp, all world-readable.
struct Secrets {
    /// The secret files.
    files: Vec<PathBuf>,
    /// Every planted path (folders and files), in the order made.
    made: Vec<PathBuf>,
    /// What each file holds (with its quotes).
    text: String,
    /// The unique part of every name and of the text.
    tag: String,
}

impl Secrets {
    fn plant() -> Secrets {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let tag = format!(
            "judge-secret-{}-{}-{nanos:x}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let mut s = Secrets {
            files: Vec::new(),
            made: Vec::new(),
            text: format!("\"{tag} is top secret\"\n"),
            tag: tag.clone(),
        };
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(m)).unwrap();
        };
        for (parent, in_a_folder) in [
            ("/opt", true),
            ("/etc", true),
            ("/srv", false),
            ("/var/tmp", false),
        ] {
            let parent = Path::new(parent);
            if !parent.exists() {
                std::fs::create_dir(parent).unwrap();
                mode(parent, 0o755);
                s.made.push(parent.to_path_buf());
            }
            let file = if in_a_folder {
                let dir = parent.join(&tag);
                std::fs::create_dir(&dir).unwrap();
                mode(&dir, 0o755);
                s.made.push(dir.clone());
                dir.join("secret")
            } else {
                parent.join(&tag)
            };
            std::fs::write(&file, &s.text).unwrap();
            mode(&file, 0o644);
            s.made.push(file.clone());
            s.files.push(file);
        }
        s
    }

    /// Every planted path, as a list of string literals (C, C++, Rust and Python alike).
    fn literals(&self) -> String {
        let quoted: Vec<String> = self
            .made
            .iter()
            .filter(|p| p.to_string_lossy().contains(&self.tag))
            .map(|p| format!("\"{}\"", p.display()))
            .collect();
        quoted.join(", ")
    }

    /// Panics if the judge's output shows a secret's text.
    fn assert_unread(&self, run: &Finished) {
        let text = format!("{}{}", run.stdout(), run.stderr());
        assert!(
            !text.contains("is top secret"),
            "a secret's text reached the output: {}",
            run.describe()
        );
    }
}

impl Drop for Secrets {
    fn drop(&mut self) {
        for p in self.made.iter().rev() {
            let _ = std::fs::remove_file(p).or_else(|_| std::fs::remove_dir(p));
        }
    }
}

/// A fixture of tests/fixtures/secrets with its placeholders filled: `@SECRETS@` (every planted
/// path), `@SECRET@` (`one`), `@INCLUDES@` (an `include_str!` of each secret file).
fn fixture(name: &str, secrets: &Secrets, one: Option<&Path>, dir: &Path) -> PathBuf {
    let includes: Vec<String> = secrets
        .files
        .iter()
        .map(|f| format!("include_str!(\"{}\")", f.display()))
        .collect();
    let text = std::fs::read_to_string(root().join("tests/fixtures/secrets").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .replace("@SECRETS@", &secrets.literals())
        .replace("@INCLUDES@", &includes.join(", "))
        .replace(
            "@SECRET@",
            &one.map(|p| p.display().to_string()).unwrap_or_default(),
        );
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `judge [--languages TABLE] run <attack fixture problem> SOURCE --json`, compiling SOURCE
/// (a private build cache): what the compiler sees is under test too.
fn judge_run(source: &Path, languages: Option<&Path>) -> Finished {
    let mut j = harness::judge().private_build_cache();
    if let Some(table) = languages {
        j = j.arg("--languages").arg(table);
    }
    j.arg("run")
        .arg(fixture_problem("attack"))
        .arg(source)
        .arg("--json")
        .output()
}

/// A solution in `name`'s language sees none of the secrets at run time.
fn sees_nothing(name: &str) {
    require_full_isolation();
    let secrets = Secrets::plant();
    let dir = tempfile::tempdir().unwrap();
    let run = judge_run(&fixture(name, &secrets, None, dir.path()), None);
    run.expect_verdict("AC");
    secrets.assert_unread(&run);
}

#[test]
fn a_c_solution_sees_no_planted_secret() {
    sees_nothing("read-secrets.c");
}

#[test]
fn a_cpp_solution_sees_no_planted_secret() {
    sees_nothing("read-secrets.cpp");
}

#[test]
fn a_rust_solution_sees_no_planted_secret() {
    sees_nothing("read-secrets.rs");
}

#[test]
fn a_python_solution_sees_no_planted_secret() {
    sees_nothing("read-secrets.py");
}

/// `#include "<secret>"` is a compile error for each secret file, and the message shows none.
fn cannot_include(name: &str) {
    require_full_isolation();
    let secrets = Secrets::plant();
    let dir = tempfile::tempdir().unwrap();
    for file in &secrets.files {
        let run = judge_run(&fixture(name, &secrets, Some(file), dir.path()), None);
        let doc = run.expect_verdict("CE");
        let message = doc["compile"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("No such file or directory"),
            "{}",
            run.describe()
        );
        secrets.assert_unread(&run);
    }
}

#[test]
fn gcc_cannot_include_a_planted_secret() {
    cannot_include("include-secret.c");
}

#[test]
fn gpp_cannot_include_a_planted_secret() {
    cannot_include("include-secret.cpp");
}

#[test]
fn rustc_cannot_include_str_a_planted_secret() {
    require_full_isolation();
    let secrets = Secrets::plant();
    let dir = tempfile::tempdir().unwrap();
    let run = judge_run(
        &fixture("include-str-secrets.rs", &secrets, None, dir.path()),
        None,
    );
    let doc = run.expect_verdict("CE");
    let message = doc["compile"]["message"].as_str().unwrap_or_default();
    for file in &secrets.files {
        assert!(
            message.contains(&format!("couldn't read `{}`", file.display())),
            "{}: {}",
            file.display(),
            run.describe()
        );
    }
    secrets.assert_unread(&run);
}

/// Generators (Rust), validators (Python) and custom checkers (C++) are built and run in the
/// same view: `judge gen` and `judge verify` succeed only if none of them sees a secret.
#[test]
fn generators_validators_and_checkers_see_no_planted_secret() {
    require_full_isolation();
    let secrets = Secrets::plant();
    let root = tempfile::tempdir().unwrap();
    harness::judge()
        .args(["new", "spy"])
        .current_dir(root.path())
        .output()
        .expect_code(0);
    let pkg = root.path().join("problems/spy");
    let copy = |name: &str, to: &str| {
        let made = fixture(name, &secrets, None, root.path());
        std::fs::rename(made, pkg.join(to)).unwrap();
    };
    copy("spy-generator.rs", "spy-generator.rs");
    copy("spy-checker.cpp", "checker.cpp");
    let prelude = fixture("spy-validator-prelude.py", &secrets, None, root.path());
    let validator = pkg.join("validator.py");
    let text =
        std::fs::read_to_string(&prelude).unwrap() + &std::fs::read_to_string(&validator).unwrap();
    std::fs::write(&validator, text).unwrap();
    let mut recipe = std::fs::read_to_string(pkg.join("tests.toml")).unwrap();
    recipe.push_str("\n[[test]]\nname = \"spy-1\"\ngenerator = \"spy-generator.rs\"\n");
    std::fs::write(pkg.join("tests.toml"), recipe).unwrap();
    let problem = std::fs::read_to_string(pkg.join("problem.toml"))
        .unwrap()
        .replace(
            "kind = \"tokens\"",
            "kind = \"custom\"\nsource = \"checker.cpp\"",
        );
    std::fs::write(pkg.join("problem.toml"), problem).unwrap();

    let gen = harness::judge()
        .args(["gen", "spy"])
        .current_dir(root.path())
        .output();
    gen.expect_code(0);
    secrets.assert_unread(&gen);
    assert_eq!(
        std::fs::read_to_string(pkg.join("tests/spy-1.in")).unwrap(),
        "1\n5\n"
    );
    let verify = harness::judge()
        .args(["verify", "spy"])
        .current_dir(root.path())
        .output();
    verify
        .expect_code(0)
        .expect_stdout_contains("every expectation holds");
    secrets.assert_unread(&verify);
}

/// The paths of a custom checker's run (the test's input, output and answer) and of a compiler's
/// (the Rust toolchain) leave no names behind for the later runs of the same worker.
#[test]
fn earlier_runs_leave_no_names_behind() {
    require_full_isolation();
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("tests/fixtures/secrets/find-earlier-runs.c"))
        .unwrap()
        .replace("@ROOT@", &root().display().to_string());
    let source = dir.path().join("find-earlier-runs.c");
    std::fs::write(&source, text).unwrap();
    // The checker is built (rustc and its toolchain), then runs after every test.
    let run = harness::judge()
        .arg("run")
        .arg(fixture_problem("sum-custom"))
        .arg(&source)
        .arg("--json")
        .output();
    let doc = run.expect_verdict("AC");
    assert_eq!(doc["tests"].as_array().map(Vec::len), Some(3), "{doc}");
}

/// The built-in C entry, with `extra` lines added to it.
fn c_table(dir: &Path, extra: &str) -> PathBuf {
    let table = dir.join("languages.toml");
    std::fs::write(
        &table,
        format!(
            "[[language]]\nname = \"C\"\nextensions = [\"c\"]\nsource_name = \"main.c\"\ncompile = [\"gcc\", \"-O2\", \"-std=gnu11\", \"-pipe\", \"-o\", \"{{exe}}\", \"{{src}}\", \"-lm\"]\nrun = [\"{{exe}}\"]\n{extra}\n"
        ),
    )
    .unwrap();
    table
}

/// A folder a language lists for one step is seen by that step alone; a listed path missing on
/// this machine is skipped. (This also shows that the fixtures do report a visible secret.)
#[test]
fn a_listed_path_is_seen_by_its_own_step_only() {
    require_full_isolation();
    let secrets = Secrets::plant();
    let dir = tempfile::tempdir().unwrap();
    let opt = Path::new("/opt").join(&secrets.tag);
    let missing = "/nonexistent/judge-listed-path";
    let include = fixture(
        "include-secret.c",
        &secrets,
        Some(&opt.join("secret")),
        dir.path(),
    );
    let read = fixture("read-secrets.c", &secrets, None, dir.path());

    // Listed for the compiler: it includes the secret, the program prints it (WA), but the
    // program itself cannot see the folder.
    let table = c_table(
        dir.path(),
        &format!(
            "compile_readable = [\"{}\"]\nreadable = [\"{missing}\"]",
            opt.display()
        ),
    );
    let run = judge_run(&include, Some(&table));
    let doc = run.expect_verdict("WA");
    assert!(
        doc["tests"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(&secrets.tag),
        "{}",
        run.describe()
    );
    judge_run(&read, Some(&table)).expect_verdict("AC");

    // Listed for the program: it sees that folder (and nothing else planted).
    let pattern = format!("/opt/{}*", &secrets.tag[..secrets.tag.len() - 2]);
    let table = c_table(
        dir.path(),
        &format!("run_readable = [\"{pattern}\", \"{missing}\"]"),
    );
    let run = judge_run(&include, Some(&table));
    run.expect_verdict("CE");
    let run = judge_run(&read, Some(&table));
    let doc = run.expect_verdict("WA");
    let diff = doc["tests"][0]["mismatch"]["diff"]
        .as_str()
        .unwrap_or_default();
    for f in &secrets.files {
        let seen = diff.contains(&format!("ESCAPED: read {}", f.display()));
        assert_eq!(
            seen,
            f.starts_with(&opt),
            "{}: {}",
            f.display(),
            run.describe()
        );
    }
}

/// Java, from a table of its own and from the built-in entry: the JDK reaches its configuration
/// in /etc through a listed pattern, and its launcher through /etc/alternatives; it sees no
/// secret.
#[test]
fn a_java_entry_runs_with_its_listed_paths_and_sees_no_secret() {
    if !Path::new("/usr/bin/javac").exists() {
        eprintln!("skipped: no Java on this machine");
        return;
    }
    require_full_isolation();
    let secrets = Secrets::plant();
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("languages.toml");
    std::fs::write(
        &table,
        "[[language]]\nname = \"Java\"\nextensions = [\"java\"]\nsource_name = \"Main.java\"\ncompile = [\"javac\", \"-d\", \"{exe}\", \"{src}\"]\nrun = [\"java\", \"-cp\", \"{exe}\", \"Main\"]\nreadable = [\"/etc/java-*-openjdk\"]\n",
    )
    .unwrap();
    let source = fixture("read-secrets.java", &secrets, None, dir.path());
    let run = judge_run(&source, Some(&table));
    run.expect_verdict("AC");
    secrets.assert_unread(&run);
    // The built-in Java entry shows no more.
    let run = judge_run(&source, None);
    run.expect_verdict("AC");
    secrets.assert_unread(&run);
}

/// `judge doctor` lists what programs see: the system folders and single files of /etc, the
/// alternatives' links, and each language's paths per step.
#[test]
fn doctor_lists_what_programs_see() {
    let dir = tempfile::tempdir().unwrap();
    let table = c_table(
        dir.path(),
        "compile_readable = [\"/usr/include\"]\nrun_readable = [\"/nonexistent/judge-listed-path\"]\nreadable = [\"/nonexistent/judge-both\"]",
    );
    let doc = harness::judge().args(["doctor", "--json"]).output().json();
    let visible = &doc["visible"];
    let system: Vec<&str> = visible["system"]
        .as_array()
        .unwrap_or_else(|| panic!("no visible.system: {doc}"))
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(
        system.contains(&"/usr") && system.contains(&"/etc/ld.so.cache"),
        "{system:?}"
    );
    for p in &system {
        let top = Path::new(p)
            .components()
            .nth(1)
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        assert!(
            ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "dev"].contains(&top)
                || *p == "/etc/ld.so.cache",
            "{p} is shown"
        );
    }
    for (link, target) in visible["links"].as_object().unwrap() {
        assert!(link.starts_with("/etc/alternatives/"), "{link}");
        assert!(
            target.as_str().unwrap().starts_with("/usr/"),
            "{link} -> {target}"
        );
    }
    let languages = visible["languages"].as_array().unwrap();
    let rust = languages.iter().find(|l| l["name"] == "Rust").unwrap();
    assert_eq!(rust["run"], serde_json::json!([]), "{rust}");
    assert_eq!(rust["compile"].as_array().unwrap().len(), 1, "{rust}");

    let own = harness::judge()
        .arg("--languages")
        .arg(&table)
        .args(["doctor", "--json"])
        .output()
        .json();
    let c = &own["visible"]["languages"][0];
    assert_eq!(c["compile"], serde_json::json!(["/usr/include"]), "{c}");
    assert_eq!(c["run"], serde_json::json!([]), "{c}");
    assert_eq!(
        c["missing"],
        serde_json::json!(["/nonexistent/judge-both", "/nonexistent/judge-listed-path"]),
        "{c}"
    );
    let human = harness::judge()
        .arg("--languages")
        .arg(&table)
        .arg("doctor")
        .output();
    human
        .expect_stdout_contains("visible to programs (read-only; nothing else of the host):")
        .expect_stdout_contains(
            "compile: /usr/include /nonexistent/judge-both (not on this machine); run: /nonexistent/judge-both (not on this machine) /nonexistent/judge-listed-path (not on this machine)",
        );
}
