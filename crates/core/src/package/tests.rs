use super::*;

fn package(toml: &str, tests: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("problem.toml"), toml).unwrap();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    for (name, content) in tests {
        std::fs::write(dir.path().join("tests").join(name), content).unwrap();
    }
    dir
}

const PAIR: &[(&str, &str)] = &[("1.in", "1\n"), ("1.ans", "1\n")];

fn error(toml: &str, tests: &[(&str, &str)]) -> String {
    let p = package(toml, tests);
    Problem::load(p.path()).unwrap_err().to_string()
}

#[test]
fn defaults_are_the_documented_ones() {
    let p = package(
        "name = \"X\"\n[limits]\ntime_limit = 2\nmemory = 128\n",
        PAIR,
    );
    let problem = Problem::load(p.path()).unwrap();
    assert_eq!(problem.limits.time, Duration::from_secs(2));
    assert_eq!(problem.limits.wall, Duration::from_secs(7));
    assert_eq!(problem.limits.memory, 128 * MIB);
    assert_eq!(problem.limits.stack, 128 * MIB);
    assert_eq!(problem.limits.output, 64 * MIB);
    assert_eq!(problem.checker, CheckerSpec::Builtin(Builtin::Tokens));
}

#[test]
fn tests_run_samples_first_then_in_natural_order() {
    let files: Vec<(String, String)> = ["10", "2", "sample-2", "1", "sample-1", "a"]
        .iter()
        .flat_map(|n| {
            [
                (format!("{n}.in"), "x".to_string()),
                (format!("{n}.ans"), "x".to_string()),
            ]
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = package(
        "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n",
        &refs,
    );
    let names: Vec<String> = Problem::load(p.path())
        .unwrap()
        .tests
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["sample-1", "sample-2", "1", "2", "10", "a"]);
}

#[test]
fn natural_order_compares_numbers() {
    let mut v = vec!["t10", "t2", "t1", "t02", "b", "a10b", "a9c"];
    v.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(v, ["a9c", "a10b", "b", "t1", "t2", "t02", "t10"]);
}

#[test]
fn errors_name_file_line_and_column() {
    let e = error(
        "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\ncolour = 1\n",
        PAIR,
    );
    assert!(
        e.contains("problem.toml:5:1: unknown field `colour`"),
        "{e}"
    );
    let e = error("name = \"X\"\n[limits]\ntime_limit = 1\n", PAIR);
    assert!(
        e.contains("problem.toml:2:1: missing field `memory`"),
        "{e}"
    );
    let e = error(
        "name = \"X\"\n[limits]\ntime_limit = \"fast\"\nmemory = 64\n",
        PAIR,
    );
    assert!(e.contains("problem.toml:3:14"), "{e}");
}

#[test]
fn nonsense_limits_are_refused_with_a_hint() {
    let cases = [
        (
            "time_limit = 0\nmemory = 64",
            "`time_limit` = 0 is not a sensible number of seconds",
        ),
        (
            "time_limit = 1\nmemory = 0.5",
            "`memory` = 0.5 MiB is out of range",
        ),
        (
            "time_limit = 2\nmemory = 64\nwall_time_limit = 1",
            "`wall_time_limit` is shorter than `time_limit`",
        ),
        (
            "time_limit = 1\nmemory = 64\nstack = 128",
            "`stack` is larger than `memory`",
        ),
        ("time_limit = nan\nmemory = 64", "is not a sensible number"),
    ];
    for (limits, want) in cases {
        let e = error(&format!("name = \"X\"\n[limits]\n{limits}\n"), PAIR);
        assert!(e.contains(want), "{limits}: {e}");
        assert!(e.contains("hint:"), "{e}");
    }
}

#[test]
fn checker_settings_must_fit_the_kind() {
    let base = "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n[checker]\n";
    let e = error(&format!("{base}kind = \"float\"\n"), PAIR);
    assert!(e.contains("needs a tolerance"), "{e}");
    let e = error(
        &format!("{base}kind = \"tokens\"\nfloat_absolute_tolerance = 1e-6\n"),
        PAIR,
    );
    assert!(e.contains("only applies to kind = \"float\""), "{e}");
    let e = error(&format!("{base}kind = \"custom\"\n"), PAIR);
    assert!(e.contains("needs `source`"), "{e}");
    let e = error(
        &format!("{base}kind = \"custom\"\nsource = \"nope.rs\"\n"),
        PAIR,
    );
    assert!(e.contains("nope.rs` does not exist"), "{e}");
    let e = error(&format!("{base}kind = \"fuzzy\"\n"), PAIR);
    assert!(e.contains("unknown variant `fuzzy`"), "{e}");
    let p = package(
        &format!("{base}kind = \"float\"\nfloat_relative_tolerance = 1e-9\n"),
        PAIR,
    );
    assert_eq!(
        Problem::load(p.path()).unwrap().checker,
        CheckerSpec::Builtin(Builtin::Float {
            absolute: 0.0,
            relative: 1e-9
        })
    );
}

#[test]
fn testlib_checkers_by_name() {
    let base = "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n[checker]\n";
    let load = |checker: &str| Problem::load(package(&format!("{base}{checker}"), PAIR).path());
    for name in ["rcmp6", "std::rcmp6.cpp", "std::rcmp6", "rcmp6.cpp"] {
        let p = load(&format!("kind = \"testlib\"\nname = \"{name}\"\n")).unwrap();
        assert_eq!(
            p.checker,
            CheckerSpec::Builtin(Builtin::Testlib(crate::checker::testlib::Standard::Rcmp6)),
            "{name}"
        );
    }
    let e = load("kind = \"testlib\"\nname = \"rcmp7\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("problem.toml:7:8: `rcmp7` is not one of testlib's standard checkers")
            && e.contains("hint: use one of wcmp, lcmp, fcmp, ncmp")
            && e.contains("casewcmp (with or without `std::` and `.cpp`)"),
        "{e}"
    );
    let e = load("kind = \"testlib\"\nname = \"std::pointscmp.cpp\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("gives points, not a verdict"), "{e}");
    let e = load("kind = \"testlib\"\n").unwrap_err().to_string();
    assert!(e.contains("kind = \"testlib\" needs `name`"), "{e}");
    let e = load("kind = \"tokens\"\nname = \"wcmp\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`name` only applies to kind = \"testlib\""),
        "{e}"
    );
    let e = load("kind = \"testlib\"\nname = \"wcmp\"\ncase_sensitive = true\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("problem.toml:8:18: `case_sensitive` only applies to kind = \"kattis\""),
        "{e}"
    );
}

#[test]
fn kattis_validator_flags() {
    use crate::checker::kattis::Flags;
    let base = "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n[checker]\n";
    let load = |checker: &str| Problem::load(package(&format!("{base}{checker}"), PAIR).path());
    let flags = |checker: &str| match load(checker).unwrap().checker {
        CheckerSpec::Builtin(Builtin::Kattis(f)) => f,
        other => panic!("{other:?}"),
    };
    assert_eq!(flags("kind = \"kattis\"\n"), Flags::default());
    assert_eq!(
        flags("kind = \"kattis\"\ncase_sensitive = true\nspace_change_sensitive = true\n"),
        Flags {
            case_sensitive: true,
            space_change_sensitive: true,
            ..Flags::default()
        }
    );
    assert_eq!(
        flags("kind = \"kattis\"\nfloat_tolerance = 1e-6\n"),
        Flags {
            float_absolute_tolerance: Some(1e-6),
            float_relative_tolerance: Some(1e-6),
            ..Flags::default()
        }
    );
    assert_eq!(
        flags("kind = \"kattis\"\nfloat_relative_tolerance = 1e-4\n"),
        Flags {
            float_relative_tolerance: Some(1e-4),
            ..Flags::default()
        }
    );
    let e = load("kind = \"kattis\"\nfloat_tolerance = 1e-6\nfloat_absolute_tolerance = 1e-6\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("problem.toml:7:19: `float_tolerance` together with"),
        "{e}"
    );
    let e = load("kind = \"kattis\"\nfloat_tolerance = -1\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`float_tolerance` must be a finite number >= 0"),
        "{e}"
    );
    let e = load("kind = \"float\"\nfloat_tolerance = 1e-6\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`float_tolerance` only applies to kind = \"kattis\""),
        "{e}"
    );
    let e = load("kind = \"kattis\"\ncase_sensitive = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("problem.toml:7:18") && e.contains("expected a boolean"),
        "{e}"
    );
}

#[test]
fn broken_test_folders_are_named() {
    let toml = "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n";
    let e = error(toml, &[]);
    assert!(e.contains("tests: no tests"), "{e}");
    let e = error(toml, &[("1.in", "1"), ("1.ans", "1"), ("2.ans", "2")]);
    assert!(e.contains("2.ans: answer without an input"), "{e}");
    let e = error(toml, &[("1.in", "1"), ("1.ans", "1"), ("notes.txt", "")]);
    assert!(e.contains("notes.txt: unexpected file in tests/"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("problem.toml"), toml).unwrap();
    let e = Problem::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("cannot read the tests folder"), "{e}");
}

#[test]
fn line_column_counts_characters() {
    assert_eq!(line_column("ab\ncd", 0), (1, 1));
    assert_eq!(line_column("ab\ncd", 4), (2, 2));
    assert_eq!(line_column("é\nx", 3), (2, 1));
}

const GROUPED: &[(&str, &str)] = &[
    ("a1.in", "1\n"),
    ("a1.ans", "1\n"),
    ("a2.in", "1\n"),
    ("a2.ans", "1\n"),
    ("b1.in", "1\n"),
    ("b1.ans", "1\n"),
];
const LIMITS: &str = "name = \"X\"\n[limits]\ntime_limit = 1\nmemory = 64\n";

#[test]
fn native_groups_give_points_policies_and_dependencies() {
    let toml = format!(
        "{LIMITS}[[group]]\nname = \"a\"\ntests = [\"a*\"]\npoints = 40\npolicy = \"each\"\n\
         [[group]]\nname = \"b\"\ntests = [\"b1\"]\npoints = 60\nrequires = [\"a\"]\n"
    );
    let p = package(&toml, GROUPED);
    let problem = Problem::load(p.path()).unwrap();
    let groups: Vec<&str> = problem.tests.iter().map(|t| t.group.as_str()).collect();
    assert_eq!(groups, ["a", "a", "b"]);
    let scoring = problem.scoring.unwrap();
    assert_eq!(scoring.root.max_score(), Some(100.0));
    let outline: Vec<(String, Option<f64>, &str, Vec<String>)> = scoring
        .outline()
        .into_iter()
        .map(|(_, n)| {
            (
                n.name.clone(),
                n.max_score(),
                n.aggregate.name(),
                n.requires.clone(),
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            ("a".to_string(), Some(40.0), "sum", vec![]),
            (
                "b".to_string(),
                Some(60.0),
                "pass-fail",
                vec!["a".to_string()]
            )
        ]
    );
    // Without groups: pass-fail.
    let p = package(LIMITS, GROUPED);
    assert!(Problem::load(p.path()).unwrap().scoring.is_none());
}

#[test]
fn native_group_errors_name_the_group_and_the_fix() {
    let group = |body: &str| format!("{LIMITS}[[group]]\nname = \"a\"\n{body}");
    let e = error(&group("tests = [\"c*\"]\npoints = 1\n"), GROUPED);
    assert!(e.contains("group `a`: no test matches `c*`"), "{e}");
    assert!(e.contains("the tests are: a1, a2, b1"), "{e}");
    let e = error(
        &group("tests = [\"a1\"]\npoints = 1\npolicy = \"some\"\n"),
        GROUPED,
    );
    assert!(e.contains("unknown policy `some`"), "{e}");
    let e = error(&group("tests = [\"a1\"]\npoints = -1\n"), GROUPED);
    assert!(
        e.contains("points = -1 is not a non-negative number"),
        "{e}"
    );
    let e = error(
        &group("tests = [\"a1\"]\npoints = 1\nrequires = [\"z\"]\n"),
        GROUPED,
    );
    assert!(
        e.contains("requires `z`, which is not a group above it"),
        "{e}"
    );
    let twice = format!(
        "{LIMITS}[[group]]\nname = \"a\"\ntests = [\"a*\"]\npoints = 1\n\
         [[group]]\nname = \"b\"\ntests = [\"*1\"]\npoints = 1\n"
    );
    let e = error(&twice, GROUPED);
    assert!(
        e.contains("test `a1` is in group `a` and in group `b`"),
        "{e}"
    );
    assert!(e.contains("problem.toml:"), "names the file: {e}");
}
