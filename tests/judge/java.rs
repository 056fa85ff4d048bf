//! Java: compiled with javac, run with java in the full sandbox, heap and stack from the
//! problem's limits, the class from the source. Skipped (with a note) where no JDK is installed.

use crate::harness::{self, judge, program};
use std::path::Path;

#[expect(
    clippy::print_stderr,
    reason = "a test skipped for want of a JDK says so"
)]
fn have_java() -> bool {
    let here = Path::new("/usr/bin/javac").exists() && Path::new("/usr/bin/java").exists();
    if !here {
        eprintln!("skipped: no Java on this machine");
    }
    here
}

/// `judge run sum java/<name> --json` on a copy of sum with a 1 s limit (64 MiB): the JVM's
/// start takes a good part of the fixture's own 0.25 s.
fn run_sum(name: &str) -> harness::Finished {
    let sum = harness::sum_with_time_limit(1.0);
    judge()
        .arg("run")
        .arg(sum.path().join("sum"))
        .arg(harness::program(&format!("java/{name}")))
        .arg("--json")
        .output()
}

#[test]
fn a_java_solution_is_accepted_under_its_own_class_name() {
    if !have_java() {
        return;
    }
    crate::attacks::require_full_isolation();
    // ac.java holds `public class SumAll`: the copy is named after the class, as javac wants.
    let doc = run_sum("ac.java").expect_verdict("AC");
    assert_eq!(doc["compile"]["language"], "Java", "{doc}");
    assert_eq!(doc["tests"].as_array().unwrap().len(), 3, "{doc}");
    run_sum("wa.java").expect_verdict("WA");
}

#[test]
fn a_java_loop_is_tle() {
    if !have_java() {
        return;
    }
    run_sum("tle-loop.java").expect_verdict("TLE");
}

/// Past the memory limit a Java program gets MLE, whether the sandbox stops the heap growing
/// into the limit or the JVM refuses an array larger than its heap (-Xmx is the limit).
#[test]
fn java_past_the_memory_limit_is_mle() {
    if !have_java() {
        return;
    }
    crate::attacks::require_full_isolation();
    let doc = run_sum("mle.java").expect_verdict("MLE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(message.contains("64.0 MiB"), "{message}");
    let doc = run_sum("mle-array.java").expect_verdict("MLE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("java.lang.OutOfMemoryError: Java heap space"),
        "{message}"
    );
}

#[test]
fn an_uncaught_exception_is_re_naming_it() {
    if !have_java() {
        return;
    }
    let doc = run_sum("re-exception.java").expect_verdict("RE");
    let message = doc["tests"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "stderr: Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException"
        ),
        "{message}"
    );
}

#[test]
fn a_compile_error_names_the_users_file() {
    if !have_java() {
        return;
    }
    let doc = run_sum("ce.java").expect_verdict("CE");
    let message = doc["compile"]["message"].as_str().unwrap();
    let user = program("java/ce.java").display().to_string();
    assert!(
        message.contains(&format!("{user}:4: error: incompatible types")),
        "{message}"
    );
    assert!(!message.contains("Broken.java"), "{message}");
}

/// The main thread's stack is the problem's (-Xss): 200 000 calls deep pass; the JVM's default
/// stack would overflow.
#[test]
fn deep_recursion_fits_the_stack_of_the_limit() {
    if !have_java() {
        return;
    }
    run_sum("deep.java").expect_verdict("AC");
}

/// A folder of .java files is one program: the file declaring `main` is its main class.
#[test]
fn a_folder_of_java_files_is_one_program() {
    if !have_java() {
        return;
    }
    run_sum("multi").expect_verdict("AC");
}

/// Without cgroups the watchdog holds the memory limit and an address-space rlimit is the
/// backstop: the JVM, which reserves far more address space than it touches, still starts, and
/// a program past the limit is still MLE.
#[test]
fn without_cgroups_java_runs_and_is_held_to_the_limit() {
    if !have_java() {
        return;
    }
    crate::attacks::require_full_isolation();
    let sum = harness::sum_with_time_limit(1.0);
    for (name, verdict) in [("ac.java", "AC"), ("deep.java", "AC"), ("mle.java", "MLE")] {
        judge()
            .without_cgroups()
            .arg("run")
            .arg(sum.path().join("sum"))
            .arg(program(&format!("java/{name}")))
            .arg("--json")
            .output()
            .expect_verdict(verdict);
    }
    // A problem with a large limit: a heap and stack of 1 GiB.
    let problem = tempfile::tempdir().unwrap();
    let from = harness::fixture_problem("sum");
    std::fs::create_dir(problem.path().join("tests")).unwrap();
    for e in std::fs::read_dir(from.join("tests")).unwrap().flatten() {
        std::fs::copy(e.path(), problem.path().join("tests").join(e.file_name())).unwrap();
    }
    std::fs::write(
        problem.path().join("problem.toml"),
        "name = \"Sum\"\n[limits]\ntime_limit = 2.0\nmemory = 1024\n[checker]\nkind = \"tokens\"\n",
    )
    .unwrap();
    judge()
        .without_cgroups()
        .arg("run")
        .arg(problem.path())
        .arg(program("java/deep.java"))
        .arg("--json")
        .output()
        .expect_verdict("AC");
}

/// A Kattis package with Java submissions: each gets a verdict its folder allows, and `verify
/// --json` names their language.
#[test]
fn a_kattis_package_with_java_submissions_verifies() {
    if !have_java() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("sum");
    let write = |rel: &str, text: &[u8]| {
        let path = p.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "problem.yaml",
        b"problem_format_version: 2025-09\nname: Sum\nlimits:\n  time_limit: 1\n  memory: 128\n",
    );
    write("data/sample/1.in", b"3\n1 2 3\n");
    write("data/sample/1.ans", b"6\n");
    write("data/secret/1.in", b"2\n-5 5\n");
    write("data/secret/1.ans", b"0\n");
    let fixture = |name: &str| std::fs::read(program(&format!("java/{name}"))).unwrap();
    write("submissions/accepted/sum.java", &fixture("ac.java"));
    write(
        "submissions/accepted/multi/Solver.java",
        &fixture("multi/Solver.java"),
    );
    write(
        "submissions/accepted/multi/Adder.java",
        &fixture("multi/Adder.java"),
    );
    write("submissions/wrong_answer/wrong.java", &fixture("wa.java"));
    write(
        "submissions/run_time_error/crash.java",
        &fixture("re-exception.java"),
    );
    write(
        "submissions/run_time_error/hoard.java",
        &fixture("mle.java"),
    );
    write(
        "submissions/time_limit_exceeded/loop.java",
        &fixture("tle-loop.java"),
    );
    // include/java/ is built with every Java submission; a folder whose two files both declare
    // main runs the class submissions.yaml names as its entrypoint.
    write(
        "include/java/Twice.java",
        b"class Twice {\n    static long of(long x) {\n        return 2 * x;\n    }\n}\n",
    );
    write(
        "submissions/accepted/entry/Run.java",
        b"import java.util.*;\n\npublic class Run {\n    public static void main(String[] a) {\n        Scanner in = new Scanner(System.in);\n        int n = in.nextInt();\n        long s = 0;\n        for (int i = 0; i < n; i++) s += in.nextLong();\n        System.out.println(Twice.of(s) / 2);\n    }\n}\n",
    );
    write(
        "submissions/accepted/entry/Other.java",
        b"public class Other {\n    public static void main(String[] a) {\n        System.out.println(\"wrong\");\n    }\n}\n",
    );
    write(
        "submissions/submissions.yaml",
        b"accepted/entry:\n  entrypoint: Run\n",
    );
    let f = judge().arg("verify").arg(&p).arg("--json").output();
    f.expect_code(0);
    let doc = f.json();
    assert_eq!(doc["ok"], true, "{doc}");
    let solutions = doc["problems"][0]["solutions"].as_array().unwrap();
    assert_eq!(solutions.len(), 7, "{doc}");
    for s in solutions {
        assert_eq!(s["language"], "Java", "{s}");
        assert_eq!(s["ok"], true, "{s}");
    }
    let verdict = |file: &str| {
        solutions
            .iter()
            .find(|s| s["file"] == file)
            .unwrap_or_else(|| panic!("no {file}: {doc}"))["verdict"]
            .clone()
    };
    assert_eq!(verdict("submissions/accepted/multi"), "AC");
    assert_eq!(verdict("submissions/accepted/entry"), "AC");
    assert_eq!(verdict("submissions/run_time_error/crash.java"), "RE");
    assert_eq!(verdict("submissions/run_time_error/hoard.java"), "MLE");
}
