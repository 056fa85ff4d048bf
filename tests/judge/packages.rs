//! Kattis and Polygon packages judged unchanged: `judge run` and `judge inspect` on the packages
//! under tests/fixtures/packages (each trap of FORMATS.md has one). Its length is one test per trap.

use crate::harness::{judge, program, root};
use std::path::{Path, PathBuf};

fn package(name: &str) -> PathBuf {
    root().join("tests/fixtures/packages").join(name)
}

/// Writes `text` to `path` under `dir`, making the folders.
fn write_file(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A temporary 2025-09 package holding only its problem.yaml (a 1 s limit, then `extra`).
fn small_kattis(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "problem.yaml",
        &format!("problem_format_version: 2025-09\nname: x\nlimits:\n  time_limit: 1\n{extra}"),
    );
    dir
}

/// `judge run PACKAGE PROGRAM --json --all`: the document.
fn run(name: &str, prog: &str, verdict: &str) -> serde_json::Value {
    judge()
        .arg("run")
        .arg(package(name))
        .arg(program(prog))
        .args(["--json", "--all"])
        .output()
        .expect_verdict(verdict)
}

fn verdicts(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn kattis_default_validator_ignores_case_unless_case_sensitive() {
    let doc = run("kattis-legacy", "parity-lowercase.py", "AC");
    let names: Vec<String> = verdicts(&doc).into_iter().map(|(n, _)| n).collect();
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
    let doc = run("kattis-legacy-case", "parity-lowercase.py", "WA");
    assert!(
        doc["tests"][0]["message"]
            .as_str()
            .unwrap()
            .contains("letter case counts: case_sensitive"),
        "{doc}"
    );
    run("kattis-legacy-case", "parity-ac.py", "AC");
}

#[test]
fn run_says_which_time_limit_it_used_and_why() {
    judge()
        .arg("run")
        .arg(package("kattis-legacy-case"))
        .arg(program("parity-ac.py"))
        .arg("--json")
        .output()
        .expect_stderr_contains(
            "no time limit: a legacy package keeps its time limit outside problem.yaml",
        )
        .expect_stderr_contains("using the default 1 s");
}

#[test]
fn kattis_2025_group_args_apply_to_their_group_and_out_is_not_the_answer() {
    // data/sample/1.out is not EVEN: were it the answer, the right solution would fail.
    run("kattis-2025", "parity-ac.py", "AC");
    let doc = run("kattis-2025", "parity-lowercase.py", "WA");
    assert_eq!(
        verdicts(&doc),
        [
            ("sample/1".into(), "AC".into()),
            ("secret/1".into(), "WA".into())
        ]
    );
}

#[test]
fn kattis_custom_validator_with_a_header_and_group_args() {
    run("kattis-custom", "parity-ac.py", "AC");
    let doc = run("kattis-custom", "parity-lowercase.py", "WA");
    assert_eq!(
        verdicts(&doc),
        [
            ("sample/1".into(), "AC".into()),
            ("secret/1".into(), "WA".into())
        ]
    );
    // The message comes from feedback_dir/judgemessage.txt; `strict` came from test_group.yaml.
    assert_eq!(
        doc["tests"][1]["message"], "expected ODD, got odd (strict)",
        "{doc}"
    );
}

#[test]
fn a_kattis_validator_folder_with_build_and_run_scripts_is_built_by_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("parity");
    crate::harness::copy_dir(&package("kattis-custom"), &pkg);
    let validator = pkg.join("output_validator");
    // `build` makes the program under another name, `run` starts it from its own folder.
    std::fs::write(
        validator.join("build"),
        "#!/bin/sh\nc++ -O2 -o jury validator.cpp\n",
    )
    .unwrap();
    std::fs::write(
        validator.join("run"),
        "#!/bin/sh\nexec \"$(dirname \"$0\")/jury\" \"$@\"\n",
    )
    .unwrap();
    let run_in = |prog: &str, verdict: &str| {
        judge()
            .arg("run")
            .arg(&pkg)
            .arg(program(prog))
            .args(["--json", "--all"])
            .output()
            .expect_verdict(verdict)
    };
    run_in("parity-ac.py", "AC");
    let doc = run_in("parity-lowercase.py", "WA");
    assert_eq!(
        doc["tests"][1]["message"], "expected ODD, got odd (strict)",
        "{doc}"
    );
    // A build script that makes no `run` is the validator's compile error, named.
    std::fs::remove_file(validator.join("run")).unwrap();
    std::fs::write(validator.join("build"), "#!/bin/sh\ntrue\n").unwrap();
    judge()
        .arg("run")
        .arg(&pkg)
        .arg(program("parity-ac.py"))
        .output()
        .expect_code(2)
        .expect_stderr_contains("output_validator/build script made no run file");
}

#[test]
fn a_kattis_validator_exiting_0_is_a_judge_error() {
    let doc = run("kattis-exit0", "parity-ac.py", "JE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("the output validator exited with 0, which is not a verdict (42 accepts, 43 rejects): looks fine to me"),
        "{doc}"
    );
}

#[test]
fn polygon_wcmp_is_case_sensitive() {
    run("polygon-wcmp", "parity-ac.py", "AC");
    let doc = run("polygon-wcmp", "parity-lowercase.py", "WA");
    assert!(
        doc["tests"][0]["message"]
            .as_str()
            .unwrap()
            .contains("expected `EVEN`, found `even`"),
        "{doc}"
    );
}

#[test]
fn polygon_input_and_output_files_and_a_custom_checker_built_with_files() {
    run("polygon-files", "parity-file.py", "AC");
    // Reading stdin finds nothing: the input is in input.txt.
    run("polygon-files", "parity-ac.py", "RE");
    // Right answers in lower case: the custom checker's exit 2 (testlib's PE).
    let doc = run("polygon-files", "parity-file-lowercase.py", "PE");
    assert_eq!(
        doc["tests"][0]["message"], "letter case differs: even vs EVEN",
        "{doc}"
    );
}

#[test]
fn inspect_shows_format_units_sources_tests_and_checker() {
    let out = judge()
        .arg("inspect")
        .arg(package("polygon-files"))
        .arg("--json")
        .output();
    out.expect_code(0);
    let doc = out.json();
    assert_eq!(doc["format"], "polygon");
    assert_eq!(doc["limits"]["time_ms"], 2500.0);
    assert_eq!(doc["limits"]["memory_bytes"], 67108864);
    assert_eq!(
        doc["limits"]["time_source"],
        "problem.xml <time-limit> 2500 ms"
    );
    assert_eq!(doc["input_file"], "input.txt");
    assert_eq!(doc["checker"]["kind"], "custom");
    assert_eq!(doc["checker"]["protocol"], "testlib");
    assert_eq!(doc["checker"]["helpers"][0], "files/verdicts.h");
    assert_eq!(doc["validators"][0]["source"], "files/val.cpp");
    assert_eq!(doc["tests"][1]["group"], "1");
    assert_eq!(doc["tests"][1]["points"], 5.0);
    assert_eq!(doc["solutions"][1]["file"], "solutions/lowercase.py");
    assert_eq!(
        doc["solutions"][1]["expected"],
        serde_json::json!(["WA", "PE"])
    );
    assert_eq!(
        doc["solutions"][1]["rule"],
        "Polygon tag `presentation-error`"
    );

    let out = judge().arg("inspect").arg(package("kattis-2025")).output();
    out.expect_code(0)
        .expect_stdout_contains("format     kattis-2025-09")
        .expect_stdout_contains("time       1.500 s     from problem.yaml limits.time_limit = 1.5 s")
        .expect_stdout_contains("checker    built-in kattis default validator (case-insensitive)")
        .expect_stdout_contains("secret/1  data/secret/1.in + data/secret/1.ans   [group secret; checker args: case_sensitive]")
        .expect_stdout_contains("protocol kattis: input on stdin; exit 42 = valid")
        .expect_stdout_contains("submissions/brute_force/slow.py        expects TLE or OLE                      (submissions.yaml `brute_force`");
}

#[test]
fn inspect_aligns_its_columns_and_says_when_a_limit_is_not_in_the_package() {
    let out = judge()
        .arg("inspect")
        .arg(package("kattis-derive"))
        .output();
    out.expect_code(0);
    let text = out.stdout();
    assert!(!text.contains("from not in the package"), "{text}");
    // Each block's second column starts at one place.
    let column = |prefix: &str, word: &str| {
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(prefix)).collect();
        assert!(!lines.is_empty(), "no {prefix:?} line: {text}");
        lines
            .iter()
            .map(|l| {
                l.find(word)
                    .unwrap_or_else(|| panic!("{word:?} not in {l:?}"))
            })
            .collect::<std::collections::BTreeSet<_>>()
    };
    // Where each limit's source starts.
    let source = |l: &str| {
        ["from ", "not in the package", "(3 x time"]
            .iter()
            .filter_map(|m| l.find(m))
            .min()
            .unwrap_or_else(|| panic!("no source in {l:?}"))
    };
    let starts: std::collections::BTreeSet<usize> = text
        .lines()
        .filter(|l| {
            ["time ", "wall time", "memory", "output     8"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(source)
        .collect();
    assert_eq!(starts.len(), 1, "{text}");
    assert!(
        text.contains("1.000 s      not in the package: `judge run` derives it"),
        "{text}"
    );
    assert_eq!(column("  submissions/", "expects").len(), 1, "{text}");
}

#[test]
fn package_errors_name_file_line_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("problem.yaml"), "name: x\nlimits: [\n").unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let out = judge().arg("inspect").arg(dir.path()).output();
    out.expect_code(2)
        .expect_stderr_contains("problem.yaml:3:1: not valid YAML")
        .expect_stderr_contains("hint: fix the YAML syntax");
}

#[test]
fn a_folder_is_one_multi_file_solution() {
    let doc = judge()
        .arg("run")
        .arg(package("kattis-2025"))
        .arg(package("kattis-2025").join("submissions/rejected/multi"))
        .args(["--json", "--all"])
        .output()
        .expect_verdict("WA");
    // main.py imports answer.py from the same folder: it ran, and passed the sample.
    assert_eq!(
        verdicts(&doc),
        [
            ("sample/1".into(), "AC".into()),
            ("secret/1".into(), "WA".into())
        ]
    );
}

#[test]
fn run_derives_a_missing_time_limit_from_the_accepted_submissions() {
    let out = judge()
        .arg("run")
        .arg(package("kattis-derive"))
        .arg(program("parity-ac.py"))
        .arg("--json")
        .output();
    out.expect_verdict("AC");
    out.expect_stderr_contains("note: submissions/accepted/wrong.py: not measured: it got WA")
        .expect_stderr_contains("note: submissions/accepted/Parity.scala: not measured:")
        .expect_stderr_contains(
            "note: time limit 1.000 s: derived: slowest accepted submission submissions/accepted/parity.py took",
        )
        .expect_stderr_contains("x 3 (limits.time_multiplier) rounded up to 1 s = 1 s");
}

#[test]
fn a_derived_time_limit_is_kept_until_the_package_changes() {
    // `judge run` measures the accepted submissions once; then the limit comes from the build
    // cache until a file of the package changes (and `--no-cache` measures again).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("derive");
    crate::harness::copy_dir(&package("kattis-derive"), &dir);
    let cache = tmp.path().join("cache");
    let run = |extra: &[&str]| {
        let out = judge()
            .env("JUDGE_CACHE_DIR", &cache)
            .arg("run")
            .arg(&dir)
            .arg(program("parity-ac.py"))
            .args(extra)
            .output();
        out.expect_verdict("AC");
        out
    };
    let kept = "(measured earlier, kept in the build cache)";
    let first = run(&["--json"]);
    assert!(!first.stderr().contains(kept), "{}", first.describe());
    run(&["--json"])
        .expect_stderr_contains(kept)
        .expect_stderr_contains("note: submissions/accepted/wrong.py: not measured: it got WA");
    assert!(!run(&["--json", "--no-cache"]).stderr().contains(kept));
    std::fs::write(dir.join("data/secret/extra.in"), "3\n").unwrap();
    std::fs::write(dir.join("data/secret/extra.ans"), "ODD\n").unwrap();
    assert!(!run(&["--json"]).stderr().contains(kept));
    run(&["--json"]).expect_stderr_contains(kept);
}

#[test]
fn verify_judges_kattis_and_polygon_solutions_by_their_expectations() {
    for name in ["kattis-legacy", "kattis-2025", "polygon-files"] {
        judge()
            .arg("verify")
            .arg(package(name))
            .output()
            .expect_code(0)
            .expect_stdout_contains("every expectation holds");
    }
}

#[test]
fn a_polygon_package_made_for_windows_is_judged_from_lf_copies_of_its_crlf_tests() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("parity");
    crate::harness::copy_dir(&package("polygon-files"), &pkg);
    // A validator that rejects a CR, as testlib's readEoln does on Linux.
    std::fs::write(
        pkg.join("files/val.cpp"),
        "#include <cstdio>\nint main() { int c; while ((c = getchar()) != EOF) if (c == '\\r') return 1; return 0; }\n",
    )
    .unwrap();
    let mut converted = 0;
    for entry in std::fs::read_dir(pkg.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace('\n', "\r\n")).unwrap();
        converted += 1;
    }
    judge()
        .arg("verify")
        .arg(&pkg)
        .output()
        .expect_code(0)
        .expect_stdout_contains("every expectation holds")
        .expect_stderr_contains(&format!(
            "{converted} test file(s) have Windows line endings"
        ));
    // The package itself is not written.
    assert!(std::fs::read(pkg.join("tests/1.txt"))
        .unwrap()
        .windows(2)
        .any(|w| w == b"\r\n"));
}

#[test]
fn verify_skips_a_solution_without_a_toolchain_and_fails_a_wrong_accepted_one() {
    let out = judge().arg("verify").arg(package("kattis-derive")).output();
    out.expect_code(1)
        .expect_stdout_contains("accepted/Parity.scala  AC        skip")
        .expect_stdout_contains("skipped: ")
        .expect_stdout_contains(
            "submissions/accepted/wrong.py: expected AC but got WA on test secret/1",
        );
}

#[test]
fn verify_runs_kattis_input_validators_with_their_args() {
    let dir = small_kattis("");
    let write = |path: &str, text: &str| write_file(dir.path(), path, text);
    write("data/sample/1.in", "4\n");
    write("data/sample/1.ans", "EVEN\n");
    write(
        "data/secret/test_group.yaml",
        "input_validator_args: [--max, '5']\n",
    );
    write("data/secret/1.in", "7\n");
    write("data/secret/1.ans", "ODD\n");
    write(
        "input_validators/bounded.py",
        "import sys\nn = int(sys.stdin.read())\nlimit = int(sys.argv[2]) if len(sys.argv) > 2 else 100\nif n > limit:\n    print(f'{n} is over {limit}', file=sys.stderr)\n    sys.exit(43)\nsys.exit(42)\n",
    );
    std::fs::create_dir_all(dir.path().join("submissions/accepted")).unwrap();
    std::fs::copy(
        program("parity-ac.py"),
        dir.path().join("submissions/accepted/a.py"),
    )
    .unwrap();
    judge()
        .arg("verify")
        .arg(dir.path())
        .output()
        .expect_code(1)
        .expect_stdout_contains("secret/1.in: invalid test (rejected by bounded.py): 7 is over 5");
    // Exit 0 is no answer in the Kattis protocol: the validator is broken (a judge error).
    write("input_validators/bounded.py", "import sys\nsys.exit(0)\n");
    judge()
        .arg("verify")
        .arg(dir.path())
        .output()
        .expect_code(2)
        .expect_stdout_contains(
            "exited with 0, which is no answer: a Kattis input validator exits 42",
        );
}

#[test]
fn kattis_included_files_and_constants_reach_the_package_programs() {
    let dir = small_kattis("constants:\n  offset: 3\n  word: {value: ODD, lower: odd}\n");
    let write = |path: &str, text: &str| write_file(dir.path(), path, text);
    write("data/sample/1.in", "4\n");
    write("data/sample/1.ans", "7\n");
    // Included into every Python submission, constants replaced.
    write("include/python3/helper.py", "OFFSET = {{offset}}\n");
    write(
        "submissions/accepted/a.py",
        "from helper import OFFSET\n\nprint(int(input()) + OFFSET)\n",
    );
    // The package's own submissions see the constants too.
    write(
        "submissions/accepted/b.py",
        "print(int(input()) + {{offset}})\n",
    );
    judge()
        .arg("verify")
        .arg(dir.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("every expectation holds");
}

#[test]
fn an_included_driver_is_the_main_file_and_calls_the_submission() {
    // A grader-style problem: the package's `main` reads the input and calls the submission's
    // function; C++ files are compiled together, a Python submission is imported by its name,
    // a Java driver's package folder is copied whole.
    let dir = small_kattis("");
    let write = |path: &str, text: &str| write_file(dir.path(), path, text);
    write("data/sample/1.in", "4\n");
    write("data/sample/1.ans", "8\n");
    write("data/secret/1.in", "21\n");
    write("data/secret/1.ans", "42\n");
    write("include/cpp/twice.h", "long twice(long x);\n");
    write(
        "include/cpp/main.cpp",
        "#include <cstdio>\n#include \"twice.h\"\nint main() { long x; if (scanf(\"%ld\", &x) != 1) return 1; printf(\"%ld\\n\", twice(x)); }\n",
    );
    write(
        "include/python3/main.py",
        "from twice import twice\n\nprint(twice(int(input())))\n",
    );
    write(
        "submissions/accepted/twice.cpp",
        "#include \"twice.h\"\nlong twice(long x) { return 2 * x; }\n",
    );
    write(
        "submissions/accepted/twice.py",
        "def twice(x):\n    return 2 * x\n",
    );
    // A Java driver using a package folder of its own.
    write(
        "include/java/Main.java",
        "import util.Read;\npublic class Main { public static void main(String[] a) { System.out.println(twice.twice(Read.number())); } }\n",
    );
    write(
        "include/java/util/Read.java",
        "package util;\npublic class Read { public static long number() { return new java.util.Scanner(System.in).nextLong(); } }\n",
    );
    write(
        "submissions/accepted/twice.java",
        "public class twice { public static long twice(long x) { return 2 * x; } }\n",
    );
    write(
        "submissions/wrong_answer/twice.py",
        "def twice(x):\n    return x + 2\n",
    );
    judge()
        .arg("verify")
        .arg(dir.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("every expectation holds");
}

#[test]
fn polygon_tests_and_answers_the_package_lacks_are_made_first() {
    let out = judge()
        .arg("run")
        .arg(package("polygon-generated"))
        .arg(program("parity-ac.py"))
        .args(["--json", "--all"])
        .output();
    let doc = out.expect_verdict("AC");
    assert_eq!(verdicts(&doc).len(), 3, "{doc}");
    out.expect_stderr_contains(
        "note: the package lacks tests: made 2 input(s) with the generator(s) gen and 3 answer(s) with the main solution solutions/main.py",
    );
    // Nothing is written into the package.
    assert!(!package("polygon-generated").join("tests/02").exists());
    assert!(!package("polygon-generated").join("tests/01.a").exists());
    let doc = run("polygon-generated", "parity-lowercase.py", "WA");
    assert_eq!(doc["tests"][2]["verdict"], "WA", "{doc}");
    judge()
        .arg("verify")
        .arg(package("polygon-generated"))
        .output()
        .expect_code(0);
}

#[test]
fn gen_writes_the_tests_a_polygon_package_lacks_where_its_patterns_say() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("parity");
    crate::harness::copy_dir(&package("polygon-generated"), &pkg);
    judge()
        .arg("gen")
        .arg(&pkg)
        .output()
        .expect_code(0)
        .expect_stdout_contains("5 file(s) written")
        .expect_stdout_contains("wrote tests/02\n");
    assert_eq!(
        std::fs::read_to_string(pkg.join("tests/03")).unwrap(),
        "10\n"
    );
    assert_eq!(
        std::fs::read_to_string(pkg.join("tests/03.a")).unwrap(),
        "EVEN\n"
    );
    judge()
        .arg("gen")
        .arg(&pkg)
        .output()
        .expect_code(0)
        .expect_stdout_contains("0 file(s) written");
}

#[test]
fn stress_uses_a_polygon_package_main_solution_and_checker() {
    let gen = format!("{} {{seed}}", program("parity-gen.py").display());
    judge()
        .arg("stress")
        .arg(package("polygon-generated"))
        .arg(program("parity-lowercase.py"))
        .args(["--gen", &gen, "--seconds", "20"])
        .output()
        .expect_code(1)
        .expect_stdout_contains("WA");
}

#[test]
fn inspect_lists_a_native_package_solutions_by_their_folders() {
    judge()
        .arg("inspect")
        .arg(root().join("tests/fixtures/problems/sum"))
        .output()
        .expect_code(0)
        .expect_stdout_contains("format     native")
        .expect_stdout_contains("time       ");
}

#[test]
fn submissions_yaml_entrypoint_names_the_main_file_of_a_folder() {
    let dir = small_kattis("");
    let write = |path: &str, text: &str| write_file(dir.path(), path, text);
    write("data/sample/1.in", "4\n");
    write("data/sample/1.ans", "EVEN\n");
    // main.py would be picked by its name; the package says run.py.
    write("submissions/accepted/multi/main.py", "print('wrong')\n");
    write(
        "submissions/accepted/multi/run.py",
        "from words import word\n\nprint(word(int(input())))\n",
    );
    write(
        "submissions/accepted/multi/words.py",
        "def word(n):\n    return 'ODD' if n % 2 else 'EVEN'\n",
    );
    write(
        "submissions/submissions.yaml",
        "accepted/multi:\n  entrypoint: run.py\n",
    );
    judge()
        .arg("verify")
        .arg(dir.path())
        .output()
        .expect_code(0)
        .expect_stdout_contains("every expectation holds");
}

/// `judge verify --format jsonl` of a package, as parsed events.
fn verify_events(name: &str) -> Vec<serde_json::Value> {
    let f = judge()
        .arg("verify")
        .arg(package(name))
        .args(["--format", "jsonl"])
        .output();
    f.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn verify_events_carry_every_allowed_verdict_and_skipped_solutions() {
    let events = verify_events("kattis-2025");
    let multi = events
        .iter()
        .find(|e| {
            e["event"] == "solution_finished"
                && e["solution"].as_str().unwrap().ends_with("rejected/multi")
        })
        .unwrap_or_else(|| panic!("no solution_finished of rejected/multi: {events:?}"));
    let allowed = multi["allowed"].as_array().expect("allowed verdicts");
    assert!(allowed.len() > 1, "{multi}");
    assert!(allowed.contains(&multi["verdict"]), "{multi}");
    assert_eq!(multi["matches"], true, "{multi}");

    let events = verify_events("kattis-derive");
    let skipped: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "solution_skipped")
        .collect();
    assert_eq!(skipped.len(), 1, "{events:?}");
    let scala = skipped[0];
    assert!(
        scala["solution"]
            .as_str()
            .unwrap()
            .ends_with("Parity.scala"),
        "{scala}"
    );
    assert_eq!(scala["expected"], "AC", "{scala}");
    assert!(!scala["reason"].as_str().unwrap().is_empty(), "{scala}");
    // Skipped, so neither judged nor counted.
    assert!(
        !events.iter().any(|e| e["event"] == "solution_finished"
            && e["solution"].as_str().unwrap().ends_with("Parity.scala")),
        "{events:?}"
    );
    let wrong = events
        .iter()
        .find(|e| {
            e["event"] == "solution_finished"
                && e["solution"].as_str().unwrap().ends_with("wrong.py")
        })
        .expect("wrong.py judged");
    assert_eq!(wrong["matches"], false, "{wrong}");
    let done = events
        .iter()
        .find(|e| e["event"] == "problem_finished")
        .unwrap();
    assert_eq!(done["judge_errors"], 0, "{done}");
    assert_eq!(done["failures"], 1, "{done}");
}

/// `judge verify --json` is the contract of issue #11: one object, each problem with its format
/// and the time limit it was judged with (and why), each solution by its file relative to the
/// package root, with its language, the verdicts allowed, its verdict, whether that holds, its
/// slowest time and tests judged; a solution in a language not installed is skipped.
#[test]
fn verify_json_is_the_contract() {
    let f = judge()
        .arg("verify")
        .arg(package("kattis-derive"))
        .arg("--json")
        .output();
    f.expect_code(1);
    let doc = f.json();
    assert_eq!(doc["schema"], 1, "{doc}");
    assert_eq!(doc["ok"], false, "{doc}");
    let problems = doc["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{doc}");
    let p = &problems[0];
    assert_eq!(p["problem"], "kattis-derive", "{p}");
    assert_eq!(
        p["path"].as_str().unwrap(),
        package("kattis-derive").display().to_string()
    );
    assert_eq!(p["format"], "kattis-legacy", "{p}");
    assert_eq!(p["ok"], false, "{p}");
    let limit = p["time_limit_ms"].as_f64().expect("time_limit_ms");
    assert!(limit >= 100.0 && limit % 100.0 == 0.0, "{p}");
    let source = p["time_limit_source"].as_str().unwrap();
    assert!(
        source.starts_with("derived: slowest accepted submission"),
        "{source}"
    );
    let solution = |file: &str| {
        p["solutions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["file"] == file)
            .unwrap_or_else(|| panic!("no {file} in {p}"))
            .clone()
    };
    let ac = solution("submissions/accepted/parity.py");
    assert_eq!(ac["language"], kattis_python(), "{ac}");
    assert_eq!(ac["expected"], serde_json::json!(["AC"]), "{ac}");
    assert_eq!(ac["verdict"], "AC", "{ac}");
    assert_eq!(ac["ok"], true, "{ac}");
    assert_eq!(ac["tests"], 2, "{ac}");
    assert!(ac["max_time_ms"].as_f64().unwrap() > 0.0, "{ac}");
    assert!(ac.get("first_failure").is_none(), "{ac}");
    let wrong = solution("submissions/accepted/wrong.py");
    assert_eq!(wrong["verdict"], "WA", "{wrong}");
    assert_eq!(wrong["ok"], false, "{wrong}");
    let failure = &wrong["first_failure"];
    assert_eq!(failure["verdict"], "WA", "{wrong}");
    assert!(
        failure["test"].is_string() && failure["message"].is_string(),
        "{wrong}"
    );
    let scala = solution("submissions/accepted/Parity.scala");
    assert!(
        scala["skipped"]
            .as_str()
            .unwrap()
            .contains("no toolchain for .scala files"),
        "{scala}"
    );
    assert!(scala.get("verdict").is_none(), "{scala}");
    // The findings and advice stay beside the contract's fields.
    assert!(p["findings"].is_array() && p["advice"].is_object(), "{p}");
}

/// The language a Kattis package's Python runs as here: PyPy where `pypy3` is installed.
fn kattis_python() -> &'static str {
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|d| d.join("pypy3").is_file()) {
        "Python 3 (PyPy)"
    } else {
        "Python 3"
    }
}

#[test]
fn a_kattis_packages_python_runs_with_pypy_where_installed_and_says_when_it_cannot() {
    let pypy = kattis_python() == "Python 3 (PyPy)";
    let parity = package("kattis-2025").join("submissions/accepted/parity.py");
    let out = judge()
        .arg("run")
        .arg(package("kattis-2025"))
        .arg(&parity)
        .arg("--json")
        .output();
    let doc = out.expect_verdict("AC");
    assert_eq!(doc["compile"]["language"], kattis_python(), "{doc}");
    let human = judge()
        .arg("run")
        .arg(package("kattis-2025"))
        .arg(&parity)
        .stderr_to_stdout()
        .output();
    let said = human.stdout();
    assert_eq!(
        said.contains("`pypy3` is not installed: Python 3 serves instead"),
        !pypy,
        "{said}"
    );
    // A native package's Python is CPython either way.
    let root = root();
    let doc = judge()
        .current_dir(&root)
        .arg("run")
        .arg("black-white-board")
        .arg(root.join("solutions/black-white-board/accepted/brute-bfs-strings.py"))
        .args(["--json", "--test", "sample*"])
        .output()
        .expect_verdict("AC");
    assert_eq!(doc["compile"]["language"], "Python 3", "{doc}");
}

/// Copies the fixture program folder `from` (under tests/fixtures/programs) to `to`.
fn copy_program(from: &str, to: &Path) {
    crate::harness::copy_dir(&program(from), to);
}

/// A Kattis submission that is a folder is built by its language's rules: every C++ source
/// together (none named main.cpp), the Python module naming `__main__`, the Java class
/// declaring `main`; a folder whose main file cannot be told is a compile error (which the
/// package may allow), never a judge error.
#[test]
fn kattis_multi_file_submissions_follow_the_language_rules() {
    let dir = small_kattis("  memory: 256\n");
    let d = dir.path();
    write_file(d, "data/sample/1.in", "3\n1 2 3\n");
    write_file(d, "data/sample/1.ans", "6\n");
    write_file(d, "data/secret/1.in", "2\n-5 5\n");
    write_file(d, "data/secret/1.ans", "0\n");
    copy_program("multi-cpp", &d.join("submissions/accepted/cpp"));
    copy_program("multi-py", &d.join("submissions/accepted/py"));
    let java = Path::new("/usr/bin/javac").exists();
    if java {
        copy_program("java/multi", &d.join("submissions/accepted/java"));
        // Two classes declaring main and neither named Main: which one runs cannot be told.
        // The package allows it (BAPCtools' `mixed/` with an @EXPECTED_RESULTS@ comment in one
        // of its files).
        let two = d.join("submissions/mixed/twomains");
        std::fs::create_dir_all(&two).unwrap();
        for class in ["A", "B"] {
            std::fs::write(
                two.join(format!("{class}.java")),
                format!("// @EXPECTED_RESULTS@: CORRECT, COMPILER-ERROR, WRONG-ANSWER\npublic class {class} {{\n    public static void main(String[] a) {{ System.out.println(0); }}\n}}\n"),
            )
            .unwrap();
        }
    }
    let f = judge().arg("verify").arg(d).arg("--json").output();
    f.expect_code(0);
    let doc = f.json();
    let solutions = doc["problems"][0]["solutions"].as_array().unwrap();
    let got: Vec<(String, String)> = solutions
        .iter()
        .map(|s| {
            let file = s["file"].as_str().unwrap();
            let name = file.rsplit_once("submissions/").unwrap().1.to_string();
            (name, s["verdict"].as_str().unwrap().to_string())
        })
        .collect();
    let mut want = vec![
        ("accepted/cpp".to_string(), "AC".to_string()),
        ("accepted/py".to_string(), "AC".to_string()),
    ];
    if java {
        want.insert(1, ("accepted/java".into(), "AC".into()));
        want.push(("mixed/twomains".into(), "CE".into()));
    }
    assert_eq!(got, want, "{doc}");
    if java {
        let f = judge()
            .arg("run")
            .arg(d)
            .arg(d.join("submissions/mixed/twomains"))
            .output();
        f.expect_code(1);
        f.expect_stdout_contains(
            "the folder holds several Java source files (A.java, B.java) and none is the main one",
        );
    }
}

/// Which Python runs a package's `.py` programs: PyPy for a Kattis package where installed,
/// CPython for a native one; problem.toml `python` chooses for a native package, and
/// `--python` for a run, over the package.
#[test]
fn python_is_pypy_or_cpython_per_package_and_per_run() {
    let pypy = Path::new("/usr/bin/pypy3").exists();
    // Prints which Python runs it: the answer says CPython.
    let which = "import platform\nprint(platform.python_implementation())\n";
    let kattis = small_kattis("");
    write_file(kattis.path(), "data/secret/1.in", "\n");
    write_file(kattis.path(), "data/secret/1.ans", "CPython\n");
    let native = tempfile::tempdir().unwrap();
    let toml = "name = \"Which\"\n[limits]\ntime_limit = 2.0\nmemory = 256\n";
    write_file(native.path(), "problem.toml", toml);
    write_file(native.path(), "tests/1.in", "\n");
    write_file(native.path(), "tests/1.ans", "CPython\n");
    let source = native.path().join("which.py");
    std::fs::write(&source, which).unwrap();
    let run = |dir: &Path, python: Option<&str>| {
        let mut j = judge().arg("run").arg(dir).arg(&source).arg("--json");
        if let Some(p) = python {
            j = j.args(["--python", p]);
        }
        let doc = j.output().json();
        (
            doc["compile"]["language"].as_str().unwrap().to_string(),
            doc["verdict"].as_str().unwrap().to_string(),
        )
    };
    let cpython = ("Python 3".to_string(), "AC".to_string());
    let pypy_ran = ("Python 3 (PyPy)".to_string(), "WA".to_string());
    assert_eq!(run(native.path(), None), cpython);
    assert_eq!(run(kattis.path(), Some("cpython")), cpython);
    if pypy {
        assert_eq!(run(kattis.path(), None), pypy_ran);
        assert_eq!(run(native.path(), Some("pypy")), pypy_ran);
        write_file(
            native.path(),
            "problem.toml",
            &format!("python = \"pypy\"\n{toml}"),
        );
        assert_eq!(run(native.path(), None), pypy_ran);
        assert_eq!(run(native.path(), Some("cpython")), cpython);
    }
    // A word that is no Python is refused, naming the key.
    write_file(
        native.path(),
        "problem.toml",
        &format!("python = \"jython\"\n{toml}"),
    );
    let f = judge().arg("run").arg(native.path()).arg(&source).output();
    f.expect_code(2)
        .expect_stderr_contains("`python` = \"jython\" is not `pypy` or `cpython`");
}
