//! What the judge says about a source: compiler errors and warnings name the user's own file, and
//! a Python file that does not decode is a compilation error with a hint.

use crate::harness::{fixture_problem, program};

/// These tests are about what the compiler says: each judge compiles (a private build cache).
fn judge<'a>() -> crate::harness::Judge<'a> {
    crate::harness::judge().private_build_cache()
}

#[test]
fn compile_errors_name_the_users_file_in_every_language() {
    for (prog, at) in [
        ("ce.cpp", ":1:21: error"),
        ("ce.c", ":1:25: error"),
        ("ce.rs", ":1:26"),
        ("ce.py", "\", line 1"),
    ] {
        let doc = judge().run_fixture("sum", prog).expect_verdict("CE");
        let msg = doc["compile"]["message"].as_str().unwrap();
        let path = program(prog).display().to_string();
        assert!(msg.contains(&format!("{path}{at}")), "{prog}: {msg}");
        assert!(
            !msg.contains("/build-") && !msg.contains("main."),
            "{prog}: the build folder's copy is named: {msg}"
        );
    }
}

#[test]
fn a_relative_source_path_is_kept_as_given() {
    let f = judge()
        .current_dir(program("."))
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg("ce.cpp")
        .output();
    f.expect_code(1);
    let out = f.stdout();
    assert!(out.contains("CE (compilation error)"), "{}", f.describe());
    assert!(
        out.contains("\n  ce.cpp:1:21: error:") && !out.contains("main.cpp"),
        "{}",
        f.describe()
    );
}

#[test]
fn warnings_are_shown_in_the_human_output() {
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("warn.cpp"))
        .output();
    f.expect_code(0);
    let err = f.stderr();
    let path = program("warn.cpp").display().to_string();
    assert!(
        err.contains("Warning the compiler says:"),
        "{}",
        f.describe()
    );
    assert!(
        err.contains(&format!("  {path}:3:17: warning: overflow")),
        "{}",
        f.describe()
    );
    assert!(
        f.stdout().contains("AC (accepted)"),
        "the table and verdict stay on stdout: {}",
        f.describe()
    );

    let doc = judge().run_fixture("sum", "warn.cpp").expect_verdict("AC");
    let msg = doc["compile"]["message"].as_str().unwrap();
    assert!(msg.contains(&format!("{path}:3:17: warning")), "{msg}");

    // No warnings, no warning block.
    let f = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(program("ac.cpp"))
        .output();
    f.expect_code(0);
    assert!(!f.stderr().contains("Warning"), "{}", f.describe());
}

#[test]
fn python_that_does_not_decode_is_a_compilation_error() {
    let doc = judge()
        .run_fixture("sum", "ce-latin1.py")
        .expect_verdict("CE");
    let msg = doc["compile"]["message"].as_str().unwrap();
    let path = program("ce-latin1.py").display().to_string();
    assert!(
        msg.contains(&format!("{path}:1:")) && msg.contains("byte 0xe9 is not valid UTF-8"),
        "{msg}"
    );
    assert!(msg.contains("hint: save the file as UTF-8"), "{msg}");
    assert!(doc["tests"].as_array().unwrap().is_empty());

    // Declared as Latin-1 (PEP 263), the same bytes are fine.
    judge()
        .run_fixture("sum", "ac-latin1-declared.py")
        .expect_verdict("AC");
}

#[test]
fn a_wrong_answer_shows_the_lines_aligned_and_all_counts_every_test() {
    let f = judge()
        .args(["run", "--all"])
        .arg(fixture_problem("sum"))
        .arg(program("wa.c"))
        .output();
    f.expect_code(1);
    let out = f.stdout();
    let want = "\nWA (wrong answer): 2 of 3 tests passed; failed: WA ×1 (test 10)\n  \
                test 10: line 1, column 1: expected `4000000000`, found `-294967296`\n\n  \
                expected 1 │ 4000000000\n     found 1 │ -294967296\n             │ ^^^^^^^^^^\n";
    assert!(out.ends_with(want), "{}", f.describe());
    assert!(
        !out.contains('\x1b'),
        "no colour when piped: {}",
        f.describe()
    );

    let doc = judge().run_fixture("sum", "wa.rs").expect_verdict("WA");
    assert_eq!(
        doc["tests"][0]["mismatch"]["diff"],
        "           │ v\nexpected 1 │ 6\n   found 1 │ 42\n           │ ^^\n"
    );
}

#[test]
fn a_folder_given_as_a_solution_that_cannot_be_built_is_a_compile_error_said_once() {
    let root = tempfile::tempdir().unwrap();
    let two = root.path().join("two");
    let empty = root.path().join("empty");
    std::fs::create_dir(&two).unwrap();
    std::fs::create_dir(&empty).unwrap();
    std::fs::copy(program("ac.py"), two.join("a.py")).unwrap();
    std::fs::copy(program("ac.py"), two.join("b.py")).unwrap();
    for (dir, said) in [
        (
            &two,
            "holds several Python source files (a.py, b.py) and none is the main one",
        ),
        (&empty, "holds no source file"),
    ] {
        let f = judge()
            .arg("run")
            .arg(fixture_problem("sum"))
            .arg(dir)
            .output();
        f.expect_code(1).expect_stdout_contains(said);
        let out = format!("{}{}", f.stdout(), f.stderr());
        assert_eq!(out.matches(said).count(), 1, "{out}");
        assert_eq!(out.matches("hint:").count(), 1, "{out}");
        let doc = judge()
            .arg("run")
            .arg(fixture_problem("sum"))
            .arg(dir)
            .arg("--json")
            .output()
            .expect_verdict("CE");
        assert!(
            doc["compile"]["message"].as_str().unwrap().contains(said),
            "{doc}"
        );
    }
}

#[test]
fn a_binary_file_named_cpp_is_said_to_be_no_text() {
    let root = tempfile::tempdir().unwrap();
    let source = root.path().join("a.cpp");
    // The start of a compiled program: an ELF header and its zeros.
    let mut bytes = b"\x7fELF\x02\x01\x01".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 8192));
    std::fs::write(&source, &bytes).unwrap();
    let doc = judge()
        .arg("run")
        .arg(fixture_problem("sum"))
        .arg(&source)
        .arg("--json")
        .output()
        .expect_verdict("CE");
    let msg = doc["compile"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "{}: not a text file (byte 8 on line 1 is NUL)",
            source.display()
        )),
        "{msg}"
    );
    assert!(msg.contains("hint: give the source file"), "{msg}");
    assert!(msg.len() < 400 && !msg.contains('\0'), "{msg}");
}
