//! The Kattis loader's messages for what the typed shapes find: a value of the wrong type names
//! file, line, column and key path; an unknown key is a warning naming file and key; a key the
//! specification has and the judge does not read is silent.

use crate::package::Problem;

/// A package from (path, content) pairs, with one test.
fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let one = [("data/secret/1.in", "1\n"), ("data/secret/1.ans", "1\n")];
    for (path, content) in files.iter().chain(&one) {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

fn error(files: &[(&str, &str)]) -> String {
    Problem::load(package(files).path())
        .unwrap_err()
        .to_string()
}

fn warnings(files: &[(&str, &str)]) -> Vec<String> {
    let dir = package(files);
    let p = Problem::load(dir.path()).unwrap();
    let root = format!("{}/", dir.path().display());
    p.warnings
        .iter()
        .map(|w| w.to_string().replace(&root, ""))
        .collect()
}

#[test]
fn a_value_of_the_wrong_type_names_its_key_path_and_place() {
    let e = error(&[(
        "problem.yaml",
        "name: x\nlimits:\n  memory: 64\n  time_multiplier: x\n",
    )]);
    assert!(
        e.ends_with("problem.yaml:4:20: limits.time_multiplier: invalid type: string \"x\", expected a number\n  hint: fix `limits.time_multiplier`: a number, e.g. time_multiplier: 5"),
        "{e}"
    );
    let e = error(&[
        ("problem.yaml", "name: x\ntype: scoring\n"),
        (
            "data/secret/testdata.yaml",
            "on_reject: continue\naccept_score: [1]\n",
        ),
    ]);
    assert!(
        e.contains("data/secret/testdata.yaml:2:15: accept_score: invalid type: sequence, expected a number\n  hint: fix `accept_score`: a number"),
        "{e}"
    );
    let e = error(&[
        (
            "problem.yaml",
            "problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n",
        ),
        (
            "submissions/submissions.yaml",
            "accepted:\n  secret/*:\n    score: lots\n",
        ),
        ("submissions/accepted/a.py", "print(1)\n"),
    ]);
    assert!(
        e.contains("submissions.yaml:3:12: accepted.secret/*.score: invalid type: string \"lots\", expected a number or a list of two"),
        "{e}"
    );
    // A limit given as a map, a name given as a list: the type each takes.
    let e = error(&[("problem.yaml", "name: x\nlimits: [1]\n")]);
    assert!(
        e.contains("problem.yaml:2:9: limits: invalid type: sequence, expected a map of limits"),
        "{e}"
    );
    let e = error(&[("problem.yaml", "name: [x, y]\n")]);
    assert!(
        e.contains(
            "name: invalid type: sequence, expected a name, or a map of language codes to names"
        ),
        "{e}"
    );
}

#[test]
fn unknown_keys_warn_naming_file_and_key_path() {
    let w = warnings(&[
        (
            "problem.yaml",
            "name: x\ncolour: blue\nlimits:\n  memory: 64\n  tme_multiplier: 3\n",
        ),
        (".timelimit", "1\n"),
        (
            "data/secret/testdata.yaml",
            "output_validator_flags: case_sensitive\nfrobnicate: yes\n",
        ),
    ]);
    assert_eq!(
        w,
        [
            "problem.yaml: unknown key `colour` (not in the legacy specification); ignored",
            "problem.yaml: unknown key `limits.tme_multiplier` (not in the legacy specification); ignored",
            "data/secret/testdata.yaml: unknown key `frobnicate`; ignored",
        ]
    );
    // 2025-09: a legacy key is unknown there, and so is a key nested in a known map.
    let w = warnings(&[(
        "problem.yaml",
        "problem_format_version: 2025-09\nname: x\nauthor: me\nlimits:\n  time_limit: 1\n  time_multipliers:\n    ac_to_time_limit: 2\n    tle: 3\n",
    )]);
    assert_eq!(
        w,
        [
            "problem.yaml: unknown key `author` (not in the 2025-09 specification); ignored",
            "problem.yaml: unknown key `limits.time_multipliers.tle` (not in the 2025-09 specification); ignored",
        ]
    );
}

#[test]
fn keys_known_and_not_read_are_silent() {
    let legacy = "name: Hello\nauthor: A. Setter\nsource: NWERC 2024\nsource_url: https://example.org\nlicense: cc by-sa\nrights_owner: NWERC\nuuid: 5d3b\nkeywords: [graphs]\nlanguages: [cpp, python3]\nlimits:\n  memory: 512\n  output: 16\n  code: 128\n  time_safety_margin: 2\n  compilation_time: 60\n  validation_time: 60\n  validation_memory: 1024\n";
    assert_eq!(
        warnings(&[("problem.yaml", legacy), (".timelimit", "1\n")]),
        Vec::<String>::new()
    );
    let current = "problem_format_version: 2025-09\ntype: pass-fail\nname: {en: Hello, de: Hallo}\nuuid: 5d3b\nversion: '1.0'\ncredits:\n  authors: [A. Setter]\n  testers: [B]\nsource: [{name: NWERC 2024, url: https://example.org}]\nlicense: cc by-sa\nrights_owner: NWERC\nembargo_until: 2030-01-01\nkeywords: [graphs]\nlanguages: all\nallow_file_writing: false\nconstants:\n  max_n: 1000\nlimits:\n  time_limit: 1.5\n  time_multipliers: {ac_to_time_limit: 2, time_limit_to_tle: 1.5}\n  time_resolution: 0.5\n  memory: '512'\n  code: 128\n  compilation_memory: 2048\n  validation_output: 8\n";
    let dir = package(&[
        ("problem.yaml", current),
        (
            "data/secret/test_group.yaml",
            "output_validator_args: [float_tolerance, 1e-6]\ninput_validator_args: {v.py: [--max, '{{max_n}}']}\ninput_visualizer_args: [x]\n",
        ),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    let w: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
    // Input validator arguments per validator name: the one thing said (all get all).
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("`input_validator_args` per validator name"),
        "{w:?}"
    );
    assert_eq!(p.name, "Hello");
    assert_eq!(p.source.as_deref(), Some("NWERC 2024"));
    assert_eq!(p.limits.memory, 512 << 20);
    assert_eq!(p.time_rule.resolution, 0.5);
    assert_eq!(p.tests[0].checker_args, ["float_tolerance", "1e-6"]);
    assert_eq!(p.tests[0].validator_args, ["--max", "1000"]);
}

#[test]
fn keys_of_the_other_version_that_are_read_say_so() {
    let w = warnings(&[(
        "problem.yaml",
        "problem_format_version: 2025-09\nname: x\nvalidator_flags: case_sensitive\nlimits:\n  time_limit: 1\n",
    )]);
    assert_eq!(
        w,
        ["problem.yaml: `validator_flags` is a legacy key (2025-09 says it with `output_validator_args` of test_group.yaml), not in the 2025-09 specification; read all the same"]
    );
    let w = warnings(&[
        ("problem.yaml", "name: x\nconstants:\n  n: 5\n"),
        (".timelimit", "1\n"),
    ]);
    assert_eq!(
        w,
        ["problem.yaml: `constants` is a 2025-09 key, not in the legacy specification; read all the same"]
    );
}

#[test]
fn grading_is_default_or_custom_and_a_grader_folder_nobody_uses_is_a_warning() {
    const SCORING: (&str, &str) = ("problem.yaml", "name: x\ntype: scoring\n");
    let e = error(&[SCORING, ("data/secret/testdata.yaml", "grading: own\n")]);
    assert!(
        e.contains("`grading`: own is not `default` or `custom`"),
        "{e}"
    );
    let w = warnings(&[SCORING, ("graders/grader.py", "print('AC 1')\n")]);
    assert!(
        w.iter().any(|w| w == "graders: graders/ is present but no scored test group says `grading: custom`; the grader is not run"),
        "{w:?}"
    );
    // `grading: custom` reads the one program of graders/ and hands the flags to it.
    let dir = package(&[
        SCORING,
        (
            "data/secret/testdata.yaml",
            "grading: custom\ngrader_flags: min ignore_sample\n",
        ),
        ("graders/grader.py", "print('AC 1')\n"),
    ]);
    let p = Problem::load(dir.path()).unwrap();
    assert!(p.grader.unwrap().source.ends_with("graders/grader.py"));
    let scoring = p.scoring.unwrap();
    let secret = scoring.outline()[0].1;
    assert_eq!(secret.name, "secret");
    assert_eq!(
        secret.custom_grader.as_deref(),
        Some(&["min".to_string(), "ignore_sample".to_string()][..])
    );
    // The default grader's flags are not read for it.
    assert_eq!(secret.aggregate, crate::score::Aggregate::Sum);
    assert!(!secret.ignore_first);
}
