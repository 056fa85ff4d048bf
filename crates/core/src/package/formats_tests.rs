//! The Kattis and Polygon loaders: fixtures under tests/fixtures/packages, and broken packages
//! written here. Its length (over 700 lines) is earned: one test per behaviour of a format, each
//! with the small package it reads written inline. The messages of the typed raw shapes (key
//! paths, unknown keys) are tested beside them: `raw/tests.rs`, `kattis/tests.rs`.

use super::*;
use crate::checker::kattis::Flags;
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/packages")
        .join(name)
}

/// A package written from (path, content) pairs.
fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

fn error(files: &[(&str, &str)]) -> String {
    let dir = package(files);
    Problem::load(dir.path()).unwrap_err().to_string()
}

#[test]
fn formats_are_detected_from_files() {
    assert_eq!(
        Format::detect(&fixture("kattis-legacy")),
        Some(Format::KattisLegacy)
    );
    assert_eq!(
        Format::detect(&fixture("kattis-2025")),
        Some(Format::Kattis2025)
    );
    assert_eq!(
        Format::detect(&fixture("polygon-wcmp")),
        Some(Format::Polygon)
    );
    let native = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/problems/sum");
    assert_eq!(Format::detect(&native), Some(Format::Native));
    // problem.yaml without data/ is not a Kattis package: locate says what is missing.
    let dir = package(&[("problem.yaml", "name: x\n")]);
    assert_eq!(Format::detect(dir.path()), None);
    let e = locate(&dir.path().to_string_lossy())
        .unwrap_err()
        .to_string();
    assert!(e.contains("problem.yaml without a data/ folder"), "{e}");
}

#[test]
fn kattis_tests_run_sample_then_secret_groups_in_lexicographic_order() {
    let p = Problem::load(&fixture("kattis-legacy")).unwrap();
    let names: Vec<&str> = p.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "sample/1",
            "secret/a",
            "secret/b",
            "secret/group1/01",
            "secret/group1/02"
        ]
    );
    let groups: Vec<&str> = p.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, ["sample", "secret", "secret/group1"]);
    assert!(p.tests[0].sample && !p.tests[1].sample);
    assert_eq!(p.tests[3].group, "secret/group1");
    assert!(p.tests[0].answer.ends_with("data/sample/1.ans"));
}

#[test]
fn kattis_units_and_their_sources() {
    let p = Problem::load(&fixture("kattis-legacy")).unwrap();
    assert_eq!(p.format, Format::KattisLegacy);
    assert_eq!(p.limits.time, Duration::from_secs(2));
    assert_eq!(p.limits.memory, 256 * MIB);
    assert_eq!(p.limits.output, 8 * MIB);
    assert_eq!(p.origin.time, ".timelimit = 2 s");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);

    let p = Problem::load(&fixture("kattis-2025")).unwrap();
    assert_eq!(p.format, Format::Kattis2025);
    assert_eq!(p.name, "Parity (2025-09)");
    assert_eq!(p.limits.time, Duration::from_millis(1500));
    assert_eq!(p.limits.memory, 128 * MIB);
    assert_eq!(p.origin.time, "problem.yaml limits.time_limit = 1.5 s");

    // No limit anywhere: the documented default, with a warning that names the fix.
    let p = Problem::load(&fixture("kattis-legacy-case")).unwrap();
    assert_eq!(p.limits.time, Duration::from_secs(1));
    assert!(
        p.origin.time.starts_with("default 1 s"),
        "{}",
        p.origin.time
    );
    assert!(
        p.warnings[0].to_string().contains(".timelimit"),
        "{:?}",
        p.warnings
    );

    let dir = package(&[
        ("problem.yaml", "name: x\n"),
        ("domjudge-problem.ini", "name = 'x'\ntimelimit = '3'\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.limits.time, Duration::from_secs(3));
    assert_eq!(p.origin.time, "domjudge-problem.ini timelimit = 3 s");
}

#[test]
fn kattis_validator_flags_and_group_args() {
    // Legacy validator_flags apply to every test.
    let p = Problem::load(&fixture("kattis-legacy-case")).unwrap();
    assert_eq!(
        p.checker,
        CheckerSpec::Builtin(Builtin::Kattis(Flags {
            case_sensitive: true,
            ..Flags::default()
        }))
    );
    assert!(p.tests.iter().all(|t| t.checker_args == ["case_sensitive"]));
    // 2025-09 test_group.yaml args apply to their group only.
    let p = Problem::load(&fixture("kattis-2025")).unwrap();
    assert_eq!(
        p.checker,
        CheckerSpec::Builtin(Builtin::Kattis(Flags::default()))
    );
    assert!(p.tests[0].checker_args.is_empty());
    assert_eq!(p.tests[1].checker_args, ["case_sensitive"]);
    // A case's own .yaml overrides its group's.
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n",
        ),
        (
            "data/secret/test_group.yaml",
            "output_validator_args: [case_sensitive]\n",
        ),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
        (
            "data/secret/1.yaml",
            "output_validator_args: [float_tolerance, '1e-6']\n",
        ),
        ("data/secret/2.in", "1\n"),
        ("data/secret/2.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.tests[0].checker_args, ["float_tolerance", "1e-6"]);
    assert_eq!(p.tests[1].checker_args, ["case_sensitive"]);
    // A BAPCtools package whose data/ was not generated again: the settings generators.yaml
    // gives a folder hold where that folder has no test_group.yaml of its own.
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n",
        ),
        (
            "generators/generators.yaml",
            "test_group.yaml:\n  output_validator_args: [case_sensitive]\ndata:\n  sample:\n    data: []\n  secret:\n    test_group.yaml:\n      output_validator_args: [space_change_sensitive]\n    data:\n      - one: {in: '1'}\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.tests[0].checker_args, ["case_sensitive"]);
    assert_eq!(p.tests[1].checker_args, ["space_change_sensitive"]);
    let warned = p.warnings.iter().map(|w| w.to_string()).any(|w| {
        w.contains("data/test_group.yaml: missing; the settings")
            && w.contains("generators/generators.yaml gives for this folder are read instead")
    });
    assert!(warned, "{:?}", p.warnings);
}

#[test]
fn default_validator_flags_parse() {
    let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(
        kattis::default_flags(&args("float_tolerance 1e-6 space_change_sensitive")).unwrap(),
        Flags {
            space_change_sensitive: true,
            float_absolute_tolerance: Some(1e-6),
            float_relative_tolerance: Some(1e-6),
            ..Flags::default()
        }
    );
    let e = kattis::default_flags(&args("case_insensitive")).unwrap_err();
    assert!(e.contains("`case_insensitive` is not a flag"), "{e}");
    let e = kattis::default_flags(&args("float_absolute_tolerance")).unwrap_err();
    assert!(e.contains("needs a number"), "{e}");
    let e = error(&[
        (
            "problem.yaml",
            "name: x\nvalidator_flags: float_tolerance abc\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(
        e.contains("problem.yaml: validator_flags: `float_tolerance` needs a number"),
        "{e}"
    );
}

#[test]
fn kattis_custom_validators_and_input_validators() {
    let p = Problem::load(&fixture("kattis-custom")).unwrap();
    let CheckerSpec::Custom(program) = &p.checker else {
        panic!("{:?}", p.checker)
    };
    assert_eq!(program.protocol, Protocol::Kattis);
    assert!(program.source.ends_with("output_validator/validator.cpp"));
    assert_eq!(program.helpers.len(), 1);
    assert!(program.helpers[0].ends_with("compare.h"));

    let p = Problem::load(&fixture("kattis-exit0")).unwrap();
    let CheckerSpec::Custom(program) = &p.checker else {
        panic!("{:?}", p.checker)
    };
    assert!(program
        .source
        .ends_with("output_validators/lenient/lenient.py"));

    let p = Problem::load(&fixture("kattis-2025")).unwrap();
    assert_eq!(p.validators.len(), 1);
    assert_eq!(p.validators[0].protocol, Protocol::Kattis);

    let e = error(&[
        ("problem.yaml", "name: x\nvalidation: custom\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(e.contains("no output_validators/ folder"), "{e}");
    // The 2025-09 name in a legacy package (DOMjudge's hangman, jumble): used, with a warning
    // naming the folder and the standard name; a folder holding one program folder, or sources.
    for validator in [
        "output_validator/validate.py",
        "output_validator/judge/validate.py",
    ] {
        let dir = package(&[
            ("problem.yaml", "name: x\nvalidation: custom multi-pass\n"),
            ("data/sample/1.in", "1\n"),
            ("data/sample/1.ans", "1\n"),
            (validator, "print(1)\n"),
        ]);
        let p = Problem::load(dir.path()).unwrap();
        let CheckerSpec::Custom(program) = &p.checker else {
            panic!("{:?}", p.checker)
        };
        assert!(program.source.ends_with(validator), "{:?}", program.source);
        assert_eq!(program.protocol, Protocol::Kattis);
        let warning = p
            .warnings
            .iter()
            .map(ToString::to_string)
            .find(|w| w.contains("output_validators/"))
            .unwrap_or_else(|| panic!("{:?}", p.warnings));
        assert!(
            warning.contains(&format!("{}/output_validator", dir.path().display()))
                && warning.contains("a legacy package keeps its output validator in `output_validators/` (2025-09: `output_validator/`); used, as DOMjudge does"),
            "{warning}"
        );
    }
    let e = error(&[
        ("problem.yaml", "problem_format_version: 2025-09\nname: x\n"),
        ("output_validator/a.py", ""),
        ("output_validator/b.py", ""),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(
        e.contains("holds several Python source files (a.py, b.py) and none is the main one"),
        "{e}"
    );
    // C++ sources are compiled together: the first is the main file, the rest beside it.
    let dir = package(&[
        ("problem.yaml", "problem_format_version: 2025-09\nname: x\n"),
        ("output_validator/a.cpp", ""),
        ("output_validator/b.cpp", ""),
        ("output_validator/b.h", ""),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let CheckerSpec::Custom(program) = &p.checker else {
        panic!("a custom validator: {:?}", p.checker);
    };
    assert!(program.source.ends_with("output_validator/a.cpp"));
    assert_eq!(program.helpers.len(), 2, "{:?}", program.helpers);
    // A folder with a `build` script: the script is the program's source (the language table's
    // script entries), the other files are built beside it.
    let dir = package(&[
        ("problem.yaml", "problem_format_version: 2025-09\nname: x\n"),
        ("output_validator/a.cpp", ""),
        ("output_validator/build", "#!/bin/sh\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let CheckerSpec::Custom(program) = &p.checker else {
        panic!("a custom validator: {:?}", p.checker);
    };
    assert!(program.source.ends_with("output_validator/build"));
    assert_eq!(program.helpers, [dir.path().join("output_validator/a.cpp")]);
}

#[test]
fn kattis_package_errors_name_file_line_and_fix() {
    // Bad YAML: file, line and column, and a hint.
    let e = error(&[
        ("problem.yaml", "name: x\nlimits:\n  memory: [1, 2\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(e.contains("problem.yaml:4:1: not valid YAML"), "{e}");
    assert!(e.contains("hint: fix the YAML syntax"), "{e}");
    let e = error(&[
        ("problem.yaml", "name: x\n"),
        (
            "data/secret/testdata.yaml",
            "output_validator_flags: [a\n  b: c\n",
        ),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
    ]);
    assert!(e.contains("data/secret/testdata.yaml:2:"), "{e}");
    // A missing answer; in 2025-09 the .out beside it is not the answer.
    let e = error(&[
        ("problem.yaml", "problem_format_version: 2025-09\nname: x\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.out", "1\n"),
    ]);
    assert!(
        e.contains("data/sample/1.ans: missing answer for this test"),
        "{e}"
    );
    assert!(e.contains("a .out file is not the answer"), "{e}");
    // An interactive problem needs its interactor; what the judge cannot honour is an error.
    let e = error(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\ntype: [pass-fail, interactive]\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(
        e.contains("an interactive problem without its interactor")
            && e.contains("add the interactor's source under output_validator/"),
        "{e}"
    );
    let e = error(&[
        ("problem.yaml", "name: x\nvalidation: custom interactive\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(e.contains("no output_validators/ folder"), "{e}");
    // The 2025-09 name in a legacy package (DOMjudge's hangman, jumble): used, with a warning
    // naming the folder and the standard name; a folder holding one program folder, or sources.
    for validator in [
        "output_validator/validate.py",
        "output_validator/judge/validate.py",
    ] {
        let dir = package(&[
            ("problem.yaml", "name: x\nvalidation: custom multi-pass\n"),
            ("data/sample/1.in", "1\n"),
            ("data/sample/1.ans", "1\n"),
            (validator, "print(1)\n"),
        ]);
        let p = Problem::load(dir.path()).unwrap();
        let CheckerSpec::Custom(program) = &p.checker else {
            panic!("{:?}", p.checker)
        };
        assert!(program.source.ends_with(validator), "{:?}", program.source);
        assert_eq!(program.protocol, Protocol::Kattis);
        let warning = p
            .warnings
            .iter()
            .map(ToString::to_string)
            .find(|w| w.contains("output_validators/"))
            .unwrap_or_else(|| panic!("{:?}", p.warnings));
        assert!(
            warning.contains(&format!("{}/output_validator", dir.path().display()))
                && warning.contains("a legacy package keeps its output validator in `output_validators/` (2025-09: `output_validator/`); used, as DOMjudge does"),
            "{warning}"
        );
    }
    let e = error(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\ntype: [submit-answer]\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(
        e.contains("`submit-answer` problems are not supported"),
        "{e}"
    );
    let e = error(&[
        ("problem.yaml", "problem_format_version: 2030-01\nname: x\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    assert!(
        e.contains("unknown problem_format_version `2030-01`"),
        "{e}"
    );
}

#[test]
fn unknown_keys_are_warnings_naming_file_and_key() {
    let dir = package(&[
        (
            "problem.yaml",
            "name: x\nauthor: me\ncolour: blue\nlimits:\n  memory: 64\n  speed: 3\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        ("data/secret/testdata.yaml", "frobnicate: yes\n"),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
        ("data/extra/1.in", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let w: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    let has = |s: &str| w.iter().any(|x| x.contains(s));
    assert!(has("problem.yaml: unknown key `colour`"), "{w:?}");
    assert!(has("unknown key `limits.speed`"), "{w:?}");
    assert!(has("testdata.yaml: unknown key `frobnicate`"), "{w:?}");
    assert!(has("data/extra: not a test folder"), "{w:?}");
    assert!(!has("author"), "{w:?}");
}

#[test]
fn polygon_units_tests_groups_and_checkers() {
    let p = Problem::load(&fixture("polygon-files")).unwrap();
    assert_eq!(p.format, Format::Polygon);
    assert_eq!(p.name, "Parity (files)");
    assert_eq!(p.limits.time, Duration::from_millis(2500));
    assert_eq!(p.limits.memory, 64 * MIB);
    assert_eq!(p.origin.memory, "problem.xml <memory-limit> 67108864 bytes");
    assert_eq!(p.io.input.as_deref(), Some("input.txt"));
    assert_eq!(p.io.output.as_deref(), Some("output.txt"));
    let names: Vec<&str> = p.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["1.txt", "2.txt", "3.txt"]);
    assert!(p.tests[1].answer.ends_with("tests/2.ans.txt"));
    assert_eq!(p.tests[1].group, "1");
    assert_eq!(p.tests[1].points, Some(5.0));
    assert_eq!(p.groups[1].points, Some(10.0));
    assert_eq!(p.groups[1].dependencies, ["0"]);
    let CheckerSpec::Custom(checker) = &p.checker else {
        panic!("{:?}", p.checker)
    };
    assert_eq!(checker.protocol, Protocol::Testlib);
    // files/ is visible to the build, sources other than the checker's aside.
    let helpers: Vec<String> = checker
        .helpers
        .iter()
        .map(|h| h.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(helpers, ["verdicts.h"]);
    assert_eq!(p.validators.len(), 1);
    assert!(p.validators[0].source.ends_with("files/val.cpp"));

    let p = Problem::load(&fixture("polygon-wcmp")).unwrap();
    assert_eq!(p.limits.time, Duration::from_secs(1));
    assert_eq!(p.limits.memory, 256 * MIB);
    assert_eq!(
        p.checker,
        CheckerSpec::Builtin(Builtin::Testlib(
            testlib::Standard::from_name("wcmp").unwrap()
        ))
    );
    assert!(p.tests[0].sample && !p.tests[1].sample);
    assert_eq!(p.io, FileIo::default());
}

#[test]
fn polygon_path_patterns() {
    assert_eq!(
        polygon::format_pattern("tests/%02d", 7).unwrap(),
        "tests/07"
    );
    assert_eq!(
        polygon::format_pattern("tests/%02d.a", 123).unwrap(),
        "tests/123.a"
    );
    assert_eq!(polygon::format_pattern("t/%d.txt", 5).unwrap(), "t/5.txt");
    assert_eq!(
        polygon::format_pattern("100%%/%03d", 5).unwrap(),
        "100%/005"
    );
    assert!(polygon::format_pattern("tests/%s", 5).is_none());
    assert!(polygon::format_pattern("tests/%0999999999d", 5).is_none());
}

const XML_HEAD: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<problem>
    <judging input-file="" output-file="">
        <testset name="tests">
            <time-limit>1000</time-limit>
            <memory-limit>268435456</memory-limit>
            <test-count>1</test-count>
            <input-path-pattern>tests/%02d</input-path-pattern>
            <answer-path-pattern>tests/%02d.a</answer-path-pattern>
            <tests>
                <test method="generated" cmd="gen 1"/>
            </tests>
        </testset>
    </judging>
"#;

#[test]
fn polygon_package_errors_name_file_line_and_fix() {
    let ok_assets = "<assets><checker name=\"std::ncmp.cpp\" type=\"testlib\"/></assets></problem>";
    // Bad XML: file, line and column.
    let e = error(&[("problem.xml", "<problem>\n  <judging>\n</problem>\n")]);
    assert!(
        e.contains("problem.xml:3:1: not valid XML: expected 'judging' tag, not 'problem'"),
        "{e}"
    );
    assert!(e.contains("hint: fix the XML"), "{e}");
    // A generated test whose file is missing.
    let xml = format!("{XML_HEAD}{ok_assets}");
    let e = error(&[("problem.xml", &xml)]);
    assert!(e.contains("problem.xml:11:17: test 1: its input"), "{e}");
    assert!(e.contains("is generated (`gen 1`)"), "{e}");
    // A missing answer.
    let e = error(&[("problem.xml", &xml), ("tests/01", "1\n")]);
    assert!(e.contains("test 1: its answer"), "{e}");
    assert!(e.contains("tests/01.a is missing"), "{e}");
    // Units: ms and bytes, nothing else.
    let bad = xml.replace("<time-limit>1000", "<time-limit>1.5");
    let e = error(&[
        ("problem.xml", &bad),
        ("tests/01", "1\n"),
        ("tests/01.a", "1\n"),
    ]);
    assert!(
        e.contains("problem.xml:5:13: <time-limit> `1.5` is not a number of milliseconds"),
        "{e}"
    );
    // An interactor whose source is not in the package.
    let inter = xml.replace(
        "<assets>",
        "<assets><interactor><source path=\"files/i.cpp\"/></interactor>",
    );
    let e = error(&[
        ("problem.xml", &inter),
        ("tests/01", "1\n"),
        ("tests/01.a", "1\n"),
    ]);
    assert!(
        e.contains("the interactor's source") && e.contains("files/i.cpp is missing"),
        "{e}"
    );
    // A custom checker whose source is not in the package.
    let custom = xml.replace(
        "<checker name=\"std::ncmp.cpp\" type=\"testlib\"/>",
        "<checker type=\"testlib\"><source path=\"files/check.cpp\"/></checker>",
    );
    let e = error(&[
        ("problem.xml", &custom),
        ("tests/01", "1\n"),
        ("tests/01.a", "1\n"),
    ]);
    assert!(e.contains("the checker's source"), "{e}");
    assert!(e.contains("files/check.cpp is missing"), "{e}");
}

fn expectations(p: &Problem) -> Vec<(String, Vec<&'static str>)> {
    p.solutions
        .iter()
        .map(|s| {
            (
                s.path.strip_prefix(&p.dir).unwrap().display().to_string(),
                s.expected.iter().map(|v| v.code()).collect(),
            )
        })
        .collect()
}

#[test]
fn kattis_submissions_folders_submissions_yaml_and_expected_results() {
    let p = Problem::load(&fixture("kattis-legacy")).unwrap();
    let e = expectations(&p);
    let get = |name: &str| e.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(get("submissions/accepted/parity.py"), ["AC"]);
    // Output past the limit: a time limit for DOMjudge, a run-time error for problemtools.
    assert_eq!(
        get("submissions/time_limit_exceeded/spin.py"),
        ["TLE", "OLE"]
    );
    // Kattis counts running out of memory or output as a run-time error.
    assert_eq!(
        get("submissions/run_time_error/crash.py"),
        ["MLE", "OLE", "RE"]
    );
    // The header comment wins over the folder.
    assert_eq!(
        get("submissions/wrong_answer/maybe.cpp"),
        ["WA", "MLE", "OLE", "RE"]
    );
    let maybe = p
        .solutions
        .iter()
        .find(|s| s.path.ends_with("maybe.cpp"))
        .unwrap();
    assert_eq!(
        maybe.rule,
        "@EXPECTED_RESULTS@: WRONG_ANSWER, RUN_TIME_ERROR"
    );

    let p = Problem::load(&fixture("kattis-2025")).unwrap();
    let e = expectations(&p);
    let get = |name: &str| e.iter().find(|(n, _)| n == name).unwrap().1.clone();
    // submissions.yaml replaces a folder's `permitted` when keyed by the folder's name.
    assert_eq!(get("submissions/brute_force/slow.py"), ["TLE", "OLE"]);
    // A folder is one multi-file submission; rejected = any rejection.
    assert_eq!(
        get("submissions/rejected/multi"),
        ["WA", "TLE", "MLE", "OLE", "RE"]
    );
    assert_eq!(get("submissions/wrong_answer/lowercase.py"), ["WA"]);
    let wa = p
        .solutions
        .iter()
        .find(|s| s.path.ends_with("lowercase.py"))
        .unwrap();
    assert!(
        wa.rule.contains(
            "folder submissions/wrong_answer/ + submissions.yaml `wrong_answer/lowercase.py`"
        ),
        "{}",
        wa.rule
    );
    assert_eq!(
        wa.permitted.as_deref(),
        Some(&[Verdict::AC, Verdict::WA][..])
    );

    let e = error(&[
        ("problem.yaml", "name: x\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        (
            "submissions/accepted/a.py",
            "# @EXPECTED_RESULTS@: ACCEPTED, SLOW\n",
        ),
    ]);
    assert!(
        e.contains("a.py:1:3: unknown verdict `SLOW` in @EXPECTED_RESULTS@"),
        "{e}"
    );
    let e = error(&[
        ("problem.yaml", "name: x\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        (
            "submissions/submissions.yaml",
            "accepted:\n  permitted: [OK]\n",
        ),
    ]);
    assert!(
        e.contains("submissions.yaml: `accepted`: `OK` in permitted is not a verdict"),
        "{e}"
    );
    let dir = package(&[
        ("problem.yaml", "name: x\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        ("submissions/slow/a.py", ""),
        ("submissions/{x,y}/b.py", ""),
        ("submissions/y/c.py", ""),
        (
            "submissions/submissions.yaml",
            "'{x,y}/*':\n  permitted: [AC, TLE]\n",
        ),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(
        expectations(&p),
        [("submissions/y/c.py".to_string(), vec!["AC", "TLE", "OLE"])]
    );
    assert!(
        p.warnings
            .iter()
            .any(|w| w.to_string().contains("`slow` is not a verdict folder")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn kattis_requirements_on_test_groups_are_read_into_rules() {
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        (
            "submissions/submissions.yaml",
            "wa/odd.py:\n  message: too big\n  sample:\n    required: [AC]\n  \"secret/*{ 4 }{ 2 }\":\n    permitted: [AC, TLE]\n    colour: red\n",
        ),
        ("submissions/wa/odd.py", "print(1)\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let rules = &p.solutions[0].rules;
    assert_eq!(rules.len(), 3, "{rules:?}");
    assert_eq!(rules[0].message.as_deref(), Some("too big"));
    assert!(rules[0].tests.is_empty());
    assert_eq!(rules[1].tests, ["sample"]);
    assert_eq!(rules[1].required, Some(vec![Verdict::AC]));
    assert_eq!(rules[2].tests, ["secret/*42"]);
    assert_eq!(
        rules[2].permitted,
        Some(vec![Verdict::AC, Verdict::TLE, Verdict::OLE])
    );
    assert!(rules[2].covers("secret/142") && !rules[2].covers("secret/143"));
    assert!(rules[1].covers("sample/1") && !rules[1].covers("secret/1"));
    let warned = p.warnings.iter().any(|w| {
        w.to_string()
            .contains("`wa/odd.py` › `secret/*{ 4 }{ 2 }`: unknown key `colour`")
    });
    assert!(warned, "{:?}", p.warnings);
}

#[test]
fn a_kattis_folder_of_no_verdict_is_judged_by_its_sources_marks() {
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        (
            "submissions/mixed/a.py",
            "# @EXPECTED_RESULTS@: ACCEPTED, RUN_TIME_ERROR\nprint(1)\n",
        ),
        ("submissions/mixed/b.py", "print(1)\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.solutions.len(), 1, "{:?}", p.solutions);
    assert!(p.solutions[0].path.ends_with("mixed/a.py"));
    assert_eq!(
        p.solutions[0].expected,
        [Verdict::AC, Verdict::MLE, Verdict::OLE, Verdict::RE]
    );
    assert!(p.warnings.iter().any(|w| w
        .to_string()
        .contains("mixed/b.py: `mixed` is not a verdict folder")));
}

#[test]
fn polygon_solution_tags() {
    let p = Problem::load(&fixture("polygon-files")).unwrap();
    assert_eq!(
        expectations(&p),
        [
            ("solutions/parity.py".to_string(), vec!["AC"]),
            ("solutions/lowercase.py".to_string(), vec!["WA", "PE"]),
        ]
    );
    assert_eq!(p.solutions[1].rule, "Polygon tag `presentation-error`");
    let xml = format!(
        "{XML_HEAD}<assets><checker name=\"std::ncmp.cpp\" type=\"testlib\"/><solutions>\n<solution tag=\"almost\"><source path=\"s.cpp\"/></solution></solutions></assets></problem>"
    );
    let e = error(&[
        ("problem.xml", &xml),
        ("tests/01", "1\n"),
        ("tests/01.a", "1\n"),
    ]);
    assert!(
        e.contains("problem.xml:16:1: unknown solution tag `almost`"),
        "{e}"
    );
    assert!(
        e.contains("hint: Polygon's tags are main, accepted, wrong-answer"),
        "{e}"
    );
}

#[test]
fn time_rule_rounds_up_to_its_resolution() {
    let rule = TimeRule {
        multiplier: 5.0,
        multiplier_key: "limits.time_multiplier, default".into(),
        resolution: 1.0,
    };
    assert_eq!(
        rule.limit(Duration::from_millis(10)),
        Duration::from_secs(1)
    );
    assert_eq!(
        rule.limit(Duration::from_millis(410)),
        Duration::from_secs(3)
    );
    let fine = TimeRule {
        resolution: 0.5,
        multiplier: 2.0,
        ..rule
    };
    assert_eq!(
        fine.limit(Duration::from_millis(600)),
        Duration::from_millis(1500)
    );
    // The limit is derived only when the package has none and has accepted submissions.
    let p = Problem::load(&fixture("kattis-derive")).unwrap();
    assert!(p.derive_time);
    assert_eq!(p.time_rule.multiplier, 3.0);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    for stated in ["kattis-legacy", "kattis-legacy-case"] {
        let p = Problem::load(&fixture(stated)).unwrap();
        assert!(!p.derive_time, "{stated}");
        // Its rule still shapes verify's advice: legacy Kattis multiplies by 5, to 1 s.
        assert_eq!(p.time_rule.multiplier, 5.0, "{stated}");
        assert_eq!(p.time_rule.resolution, 1.0, "{stated}");
    }
}

#[test]
fn kattis_constants_and_includes() {
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nconstants:\n  n: 5\n  big: {value: 1000000, tex: '10^6'}\n",
        ),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        ("data/secret/test_group.yaml", "input_validator_args: [--max, '{{big}}']\noutput_validator_args: [float_tolerance, '1e-{{n}}']\n"),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
        ("include/default/data.txt", "x\n"),
        ("include/cpp/lib.h", "int f();\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert!(p
        .constants
        .contains(&("big.tex".to_string(), "10^6".to_string())));
    assert_eq!(p.tests[1].validator_args, ["--max", "1000000"]);
    assert_eq!(p.tests[1].checker_args, ["float_tolerance", "1e-5"]);
    assert!(p.included_files(Path::new("a.cpp"))[0].ends_with("include/cpp/lib.h"));
    assert!(p.included_files(Path::new("a.py"))[0].ends_with("include/default/data.txt"));
    assert_eq!(
        substitute("{{n}} {{big.tex}} {{nope}}", &p.constants),
        "5 10^6 {{nope}}"
    );
}

#[test]
fn polygon_missing_generated_tests_and_answers_are_marked_for_rebuilding() {
    let p = Problem::load(&fixture("polygon-generated")).unwrap();
    assert_eq!(p.tests[0].generate, None);
    assert_eq!(
        p.tests[1].generate.as_deref(),
        Some(&["gen".to_string(), "7".to_string()][..])
    );
    assert!(p.tests.iter().all(|t| t.answer_missing));
    assert!(p
        .rebuild
        .main
        .as_ref()
        .unwrap()
        .ends_with("solutions/main.py"));
    let gen = &p.rebuild.generators["gen"];
    assert!(gen.source.ends_with("files/gen.cpp"));
    assert!(gen.helpers.iter().any(|h| h.ends_with("files/numbers.h")));
}

#[test]
fn legacy_validator_flags_reach_a_custom_validator_before_the_groups() {
    let dir = package(&[
        (
            "problem.yaml",
            "name: x\nvalidation: custom\nvalidator_flags: strict\n",
        ),
        ("output_validators/v/v.py", "import sys\nsys.exit(42)\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
        (
            "data/secret/testdata.yaml",
            "output_validator_flags: deep\n",
        ),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.tests[0].checker_args, ["strict"]);
    assert_eq!(p.tests[1].checker_args, ["strict", "deep"]);
}

#[test]
fn a_dangling_link_in_a_validator_folder_is_named() {
    let dir = package(&[
        ("problem.yaml", "problem_format_version: 2025-09\nname: x\n"),
        ("output_validator/v.cpp", "#include \"validation.h\"\n"),
        ("data/sample/1.in", "1\n"),
        ("data/sample/1.ans", "1\n"),
    ]);
    std::os::unix::fs::symlink(
        "../../tool/headers/validation.h",
        dir.path().join("output_validator/validation.h"),
    )
    .unwrap();
    let e = Problem::load(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("output_validator/validation.h: a link to ../../tool/headers/validation.h, which does not exist"),
        "{e}"
    );
}

#[test]
fn kattis_scoring_groups_read_into_the_scoring() {
    let p = Problem::load(&fixture("kattis-2025-scoring")).unwrap();
    let s = p.scoring.as_ref().unwrap();
    assert!(!s.graded_verdict);
    let outline: Vec<(usize, String, Option<f64>, &str)> = s
        .outline()
        .into_iter()
        .map(|(d, n)| (d, n.name.clone(), n.max_score(), n.aggregate.name()))
        .collect();
    assert_eq!(
        outline,
        [
            (0, "secret".to_string(), Some(100.0), "sum"),
            (1, "secret/group1".to_string(), Some(40.0), "pass-fail"),
            (1, "secret/group2".to_string(), Some(60.0), "sum")
        ]
    );
    let legacy = Problem::load(&fixture("kattis-legacy-scoring")).unwrap();
    let s = legacy.scoring.as_ref().unwrap();
    assert!(s.graded_verdict && s.root.ignore_first);
    let a = s
        .outline()
        .into_iter()
        .find(|(_, n)| n.name == "secret/a")
        .unwrap()
        .1;
    assert_eq!(
        (a.aggregate.name(), a.on_reject_break, a.max),
        ("min", true, Some(30.0))
    );
    let multi = Problem::load(&fixture("kattis-multipass")).unwrap();
    assert_eq!(multi.passes, Some(3));
    // Interactive and multi-pass: the output validator is the interactor, 2 passes by default.
    let both = Problem::load(&fixture("kattis-interactive-multipass")).unwrap();
    assert_eq!(both.passes, Some(2));
    assert!(both.interactor.is_some());
}

#[test]
fn kattis_draft_scoring_maps_are_read_with_a_warning() {
    // A draft of 2025-09 (the spec's own scoring example): `testdata.yaml` with a `scoring:` map
    // and a partially_accepted/ folder whose submissions are expected to score in between.
    let dir = package(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\ntype: scoring\nname: X\nlimits:\n  time_limit: 1\n",
        ),
        (
            "data/secret/testdata.yaml",
            "scoring:\n  aggregation: sum\n",
        ),
        (
            "data/secret/g1/testdata.yaml",
            "scoring:\n  score: 30\n  aggregation: min\n  colour: red\n",
        ),
        ("data/secret/g1/1.in", "1\n"),
        ("data/secret/g1/1.ans", "1\n"),
        ("data/secret/g2/testdata.yaml", "scoring:\n  score: 70\n"),
        ("data/secret/g2/1.in", "1\n"),
        ("data/secret/g2/1.ans", "1\n"),
        ("submissions/partially_accepted/half.py", "print(1)\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let outline: Vec<(String, Option<f64>, &str)> = p
        .scoring
        .as_ref()
        .unwrap()
        .outline()
        .into_iter()
        .map(|(_, n)| (n.name.clone(), n.max_score(), n.aggregate.name()))
        .collect();
    assert_eq!(
        outline,
        vec![
            ("secret".to_string(), Some(100.0), "sum"),
            ("secret/g1".to_string(), Some(30.0), "min"),
            ("secret/g2".to_string(), Some(70.0), "pass-fail"),
        ]
    );
    let warnings: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    let has = |s: &str| warnings.iter().any(|w| w.contains(s));
    assert!(
        has("g1/testdata.yaml: the draft `scoring:` map is not 2025-09; read `scoring.score` as `max_score`, `scoring.aggregation` as `score_aggregation`"),
        "{warnings:?}"
    );
    assert!(has("unknown key `scoring.colour`"), "{warnings:?}");
    let half = &p.solutions[0];
    assert_eq!(half.score, Some(judge_model::score::Expected::Partial));
    assert!(half.expected.len() > 1, "any verdict: {:?}", half.expected);
}

#[test]
fn kattis_scoring_errors_name_file_and_fix() {
    let base = [
        (
            "problem.yaml",
            "problem_format_version: 2025-09\ntype: scoring\nname: X\nlimits:\n  time_limit: 1\n",
        ),
        ("data/secret/g1/1.in", "1\n"),
        ("data/secret/g1/1.ans", "1\n"),
    ];
    // A pass-fail group (the default) needs its max_score.
    let e = error(&base);
    assert!(
        e.contains("group `secret/g1` is pass-fail with an unbounded score"),
        "{e}"
    );
    assert!(e.contains("data/secret/g1/test_group.yaml"), "{e}");
    // secret is bounded (100 by default): a summing group needs its max_score too.
    let mut files = base.to_vec();
    files.push(("data/secret/g1/test_group.yaml", "score_aggregation: sum\n"));
    let e = error(&files);
    assert!(
        e.contains("group `secret/g1` has no max_score, but `secret` is bounded"),
        "{e}"
    );
    let mut files = base.to_vec();
    files.push(("data/secret/g1/test_group.yaml", "max_score: lots\n"));
    let e = error(&files);
    assert!(
        e.contains("`max_score`: lots is not a non-negative number or `unbounded`"),
        "{e}"
    );
    let mut files = base.to_vec();
    files.push((
        "data/secret/g1/test_group.yaml",
        "max_score: 100\nrequire_pass: g0\n",
    ));
    let e = error(&files);
    assert!(
        e.contains("require_pass names `g0`, which is not a test group"),
        "{e}"
    );
    // Multi-pass needs the validator that writes nextpass.in.
    let files = [
        ("problem.yaml", "problem_format_version: 2025-09\ntype: multi-pass\nname: X\nlimits:\n  time_limit: 1\n"),
        ("data/secret/1.in", "1\n"),
        ("data/secret/1.ans", "1\n"),
    ];
    let e = error(&files);
    assert!(
        e.contains("a multi-pass problem without an output validator"),
        "{e}"
    );
}

#[test]
fn a_draft_package_with_legacy_grading_keys_is_scored_by_the_legacy_grader() {
    let files = [
        ("problem.yaml", "problem_format_version: 2023-07-draft\ntype: scoring\nname: X\nlimits:\n  time_limit: 1\n"),
        ("data/testdata.yaml", "on_reject: continue\ngrader_flags: ignore_sample\n"),
        ("data/secret/s1/testdata.yaml", "accept_score: 50\ngrader_flags: min\n"),
        ("data/secret/s1/1.in", "1\n"),
        ("data/secret/s1/1.ans", "1\n"),
    ];
    let dir = package(&files);
    let p = Problem::load(dir.path()).unwrap();
    let s = p.scoring.as_ref().unwrap();
    assert!(s.graded_verdict && s.root.ignore_first);
    assert_eq!(s.root.max_score(), Some(50.0));
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("scored with the legacy default grader")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn interactive_packages_name_their_interactor_in_every_format() {
    let problems =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/problems");
    for (dir, source, protocol) in [
        (
            fixture("kattis-guess"),
            "output_validator/interactor.cpp",
            Protocol::Kattis,
        ),
        (
            fixture("kattis-legacy-guess"),
            "output_validators/guess/interactor.cpp",
            Protocol::Kattis,
        ),
        (
            fixture("polygon-guess"),
            "files/interactor.cpp",
            Protocol::Testlib,
        ),
        (problems.join("guess"), "interactor.rs", Protocol::Kattis),
    ] {
        let p = Problem::load(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let i = p.interactor.as_ref().expect("an interactor");
        assert_eq!(i.source, dir.join(source));
        assert_eq!(i.protocol, protocol, "{}", dir.display());
    }
    // Kattis: the output validator is the interactor, not a checker; samples carry their
    // exchange, and the validator's arguments are not the default validator's flags.
    let p = Problem::load(&fixture("kattis-guess")).unwrap();
    assert!(matches!(p.checker, CheckerSpec::Builtin(_)));
    assert_eq!(
        p.tests[0].interaction,
        Some(fixture("kattis-guess").join("data/sample/1.interaction"))
    );
    assert_eq!(p.tests[1].interaction, None);
    // Polygon: the checker stays, for the interactor's tout.
    let p = Problem::load(&fixture("polygon-guess")).unwrap();
    assert!(matches!(
        p.checker,
        CheckerSpec::Builtin(Builtin::Testlib(_))
    ));
}

#[test]
fn a_native_interactor_names_its_protocol() {
    let base = "name = \"x\"\n[limits]\ntime_limit = 1.0\nmemory = 64\n";
    let with = |extra: &str| {
        package(&[
            ("problem.toml", &format!("{base}{extra}")),
            ("interactor.rs", "fn main() {}"),
            ("tests/1.in", "1\n"),
            ("tests/1.ans", "\n"),
        ])
    };
    let e = |extra: &str| Problem::load(with(extra).path()).unwrap_err().to_string();
    let dir = package(&[
        (
            "problem.toml",
            &format!("interactor = \"interactor.rs\"\n{base}"),
        ),
        ("interactor.rs", "fn main() {}"),
        ("tests/1.in", "1\n"),
        ("tests/1.ans", "\n"),
    ]);
    let msg = Problem::load(dir.path()).unwrap_err().to_string();
    assert!(msg.contains("problem.toml:1:14"), "{msg}");
    assert!(
        msg.contains("the interactor needs its protocol named"),
        "{msg}"
    );
    assert!(
        msg.contains("[interactor]\nsource = \"interactor.rs\""),
        "{msg}"
    );
    let msg = e("[interactor]\nsource = \"interactor.rs\"\n");
    assert!(msg.contains("[interactor] needs `protocol`"), "{msg}");
    let msg = e("[interactor]\nsource = \"interactor.rs\"\nprotocol = \"cms\"\n");
    assert!(msg.contains("unknown interactor protocol `cms`"), "{msg}");
    let msg = e("[interactor]\nsource = \"nope.rs\"\nprotocol = \"kattis\"\n");
    assert!(
        msg.contains("interactor source") && msg.contains("nope.rs` does not exist"),
        "{msg}"
    );
    let msg = e("[interactor]\nsource = \"interactor.rs\"\nprotocol = \"kattis\"\ncolour = 1\n");
    assert!(
        msg.contains("unknown key `colour` in [interactor]"),
        "{msg}"
    );
    let dir = with("[interactor]\nsource = \"interactor.rs\"\nprotocol = \"testlib\"\n");
    let p = Problem::load(dir.path()).unwrap();
    assert_eq!(p.interactor.unwrap().protocol, Protocol::Testlib);
}
