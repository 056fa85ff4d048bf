//! `--jobs N`: the same verdicts and findings as one job, in the same order, near-limit verdicts
//! re-judged alone, and nothing left behind. No timing is asserted: the machine is shared.

use crate::harness::{fixture_problem, judge, program, root};
use crate::verify::repo;
use serde_json::Value;

/// The sum problem with a 0.35 s limit, a solution that needs 0.25 s on every test (within a
/// factor 1.5 of the limit, so a re-judge applies; far enough below it that a busy machine does
/// not push it over), and one solution per other verdict.
pub(crate) fn near_limit_repo() -> tempfile::TempDir {
    let r = repo(&[
        ("accepted", "ac.c"),
        ("accepted", "ac.py"),
        ("wrong_answer", "wa.c"),
        ("time_limit_exceeded", "tle-loop.c"),
        ("runtime_error", "re-segv.c"),
        ("compile_error", "ce.c"),
    ]);
    // ac-slow-sum.c at half its burn: the tests that run alone hold the machine half as long.
    let slow = std::fs::read_to_string(program("ac-slow-sum.c")).unwrap();
    let quarter = slow.replace("< 500000000L", "< 250000000L");
    assert_ne!(quarter, slow, "ac-slow-sum.c no longer burns 0.5 s");
    std::fs::write(quarter_sum(&r), quarter).unwrap();
    crate::harness::set_sum_limits(&r.path().join("problems/sum"), "time_limit = 0.35");
    r
}

/// The solution of [`near_limit_repo`] that needs 0.25 s a test.
pub(crate) fn quarter_sum(r: &tempfile::TempDir) -> std::path::PathBuf {
    r.path().join("solutions/sum/accepted/ac-quarter-sum.c")
}

/// (solution, expected, verdict, matches) of every solution, in the order reported.
pub(crate) fn verdicts(doc: &Value) -> Vec<(String, String, String, bool)> {
    doc["problems"][0]["solutions"]
        .as_array()
        .unwrap_or_else(|| panic!("no solutions in {doc}"))
        .iter()
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_string(),
                s["expected"][0].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
                s["ok"].as_bool().unwrap(),
            )
        })
        .collect()
}

pub(crate) fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn run_with_jobs_stops_at_the_first_failure_like_one_job() {
    // wa.c fails the last test, re-segv.c the first: the tests judged ahead of it must not show.
    for (prog, verdict, shown) in [
        ("wa.c", "WA", &["sample-1", "2", "10"][..]),
        ("re-segv.c", "RE", &["sample-1"][..]),
    ] {
        for jobs in ["1", "3"] {
            check_run(prog, jobs, verdict, shown);
        }
    }
}

fn check_run(prog: &str, jobs: &str, verdict: &str, shown: &[&str]) {
    {
        let f = judge()
            .arg("run")
            .arg(fixture_problem("sum"))
            .arg(program(prog))
            .args(["--json", "-j", jobs])
            .output();
        f.expect_code(1);
        let doc = f.json();
        let tests: Vec<&str> = doc["tests"]
            .as_array()
            .unwrap_or_else(|| panic!("{doc}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(tests, shown, "{prog} -j {jobs}: {doc}");
        assert_eq!(doc["verdict"], verdict, "{prog} -j {jobs}: {doc}");
    }
}

#[test]
fn zero_jobs_is_a_usage_error() {
    let f = judge()
        .arg("verify")
        .args(["-j", "0"])
        .current_dir(root())
        .output();
    f.expect_code(2).expect_stderr_contains("at least one job");
    judge()
        .args(["run", "sum", "x.c", "--jobs", "many"])
        .output()
        .expect_code(2)
        .expect_stderr_contains("not a number of jobs");
}

#[test]
fn interrupting_a_parallel_verify_kills_every_job_and_leaves_nothing() {
    // Two jobs each in a 60 s sleeper when the interruption comes; the harness fails the test
    // if a process, a cgroup or a file outlives the judge.
    let r = repo(&[
        ("accepted", "ac.c"),
        ("time_limit_exceeded", "tle-sleep.c"),
        ("time_limit_exceeded", "tle-loop.c"),
        ("wrong_answer", "wa.c"),
    ]);
    crate::harness::set_sum_limits(
        &r.path().join("problems/sum"),
        "time_limit = 30.0\nwall_time_limit = 60.0",
    );
    let f = judge()
        .args(["verify", "-j", "2"])
        .current_dir(r.path())
        .interrupt_after(2.5)
        .output();
    assert_eq!(f.code(), Some(128 + libc::SIGINT), "{}", f.describe());
    f.expect_stderr_contains("interrupted");
    assert!(
        !f.stdout().contains("every expectation"),
        "{}",
        f.describe()
    );
}

#[test]
fn gen_with_jobs_writes_what_one_job_writes() {
    // A shipped problem with its generated tests removed: two jobs write them back byte for byte.
    let dir = tempfile::tempdir().unwrap();
    let from = root().join("problems/snake");
    crate::harness::copy_dir(&from, &dir.path().join("problems/snake"));
    crate::harness::copy_dir(
        &root().join("solutions/snake"),
        &dir.path().join("solutions/snake"),
    );
    let package = dir.path().join("problems/snake");
    let _ = std::fs::remove_file(package.join(".judge-cache.json"));
    // Every generated input and every answer goes; hand-made inputs stay.
    let recipe: toml::Table =
        toml::from_str(&std::fs::read_to_string(package.join("tests.toml")).unwrap()).unwrap();
    let mut generated: Vec<String> = recipe["test"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{}.in", t["name"].as_str().unwrap()))
        .collect();
    generated.extend(
        std::fs::read_dir(package.join("tests"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".ans")),
    );
    assert!(generated.len() > 20, "{generated:?}");
    for name in &generated {
        std::fs::remove_file(package.join("tests").join(name)).unwrap();
    }
    let f = judge()
        .args(["gen", "snake", "-j", "2"])
        .current_dir(dir.path())
        .output();
    f.expect_code(0);
    for name in &generated {
        let want = std::fs::read(from.join("tests").join(name)).unwrap();
        let got = std::fs::read(package.join("tests").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", f.describe()));
        assert!(want == got, "{name} differs after gen -j 2");
    }
}

#[test]
#[ignore = "slow system test, run by .ci/run: cargo test --test judge -- --ignored"]
fn stress_with_jobs_finds_what_one_job_finds() {
    let root = crate::setter::new_package("st");
    let wrong = root.path().join("wrong.py");
    std::fs::write(&wrong, crate::setter::WRONG_ABOVE_FIVE).unwrap();
    let found: Vec<Value> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let f = judge()
                .args(["stress", "st"])
                .arg(&wrong)
                .args(["--gen", "{seed} {size}", "--seconds", "60", "-j", jobs])
                .args(["--format", "jsonl"])
                .current_dir(root.path())
                .output();
            f.expect_code(1);
            let done = events(&f.stdout())
                .into_iter()
                .find(|e| e["event"] == "stress_finished")
                .unwrap_or_else(|| panic!("no stress_finished: {}", f.stdout()));
            done["found"].clone()
        })
        .collect();
    assert_eq!(found[0]["input"], found[1]["input"], "{found:?}");
    assert_eq!(found[0]["tries"], found[1]["tries"], "{found:?}");
    assert_eq!(found[0]["verdict"], "WA", "{found:?}");
}

/// The pids of the sandbox workers of the judge whose working folder is `dir`.
fn workers_of_judge_in(dir: &std::path::Path) -> Vec<i32> {
    let pids = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
    };
    let Some(judge) = pids().find(|p| {
        std::fs::read_link(format!("/proc/{p}/cwd")).is_ok_and(|c| c == dir)
            && std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with(env!("CARGO_BIN_EXE_judge").as_bytes()))
    }) else {
        return Vec::new();
    };
    let mut found: Vec<i32> = pids()
        .filter(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            let ppid = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse::<i32>().ok());
            ppid == Some(judge)
                && std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| c.windows(16).any(|w| w == b"__sandbox-worker"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_job_whose_sandbox_dies_fails_its_solution_cleanly_and_the_others_go_on() {
    let r = repo(&[
        ("accepted", "ac.c"),
        ("accepted", "ac.py"),
        ("time_limit_exceeded", "tle-loop.c"),
        ("time_limit_exceeded", "tle-loop.cpp"),
        ("runtime_error", "re-segv.c"),
        ("wrong_answer", "wa.c"),
        ("wrong_answer", "wa.py"),
    ]);
    let dir = std::fs::canonicalize(r.path()).unwrap();
    let killer = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            let workers = workers_of_judge_in(&dir);
            if workers.len() >= 2 {
                std::thread::sleep(std::time::Duration::from_millis(300));
                // SAFETY: SIGKILL to the second job's sandbox worker of the judge under test.
                unsafe { libc::kill(workers[1], libc::SIGKILL) };
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        false
    });
    let f = judge()
        .args(["verify", "-j", "2", "--format", "json"])
        .current_dir(r.path())
        .output();
    assert!(
        killer.join().unwrap(),
        "never saw two workers: {}",
        f.describe()
    );
    let doc = f.json();
    let solutions = verdicts(&doc);
    // Every solution is in the report: judged, or not judged with the sandbox's error.
    assert_eq!(solutions.len(), 7, "{doc}");
    let errors: Vec<&Value> = doc["problems"][0]["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !s["error"].is_null())
        .collect();
    for e in &errors {
        assert_eq!(e["verdict"], "JE", "{e}");
        assert!(e["error"].as_str().unwrap().contains("sandbox"), "{e}");
    }
    // The healthy job judged the rest (the broken one gives up after its first failure).
    assert!(errors.len() <= 2, "{doc}");
    for s in solutions.iter().filter(|s| s.2 != "JE") {
        assert!(s.3, "{s:?} in {doc}");
    }
    // A run the dead worker was asked for is a judge error (a solution not judged, a JE
    // verdict on a test, a finding); or it died between uses and the other job did the rest.
    let broken = solutions.iter().filter(|s| s.2 == "JE").count()
        + doc["problems"][0]["judge_errors"].as_u64().unwrap() as usize;
    f.expect_code(if broken == 0 { 0 } else { 2 });
}
