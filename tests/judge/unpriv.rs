//! Limits without root: the judge run as `nobody`, in a user namespace (the usual case) and with
//! plain processes (`JUDGE_USERNS=0`, as where user namespaces are disabled). There is no cgroup
//! then; a watchdog holds the memory, CPU and process limits. Every judge runs contained by the
//! harness (its own cgroup caps everything it starts), whose cgroup also gives the true peak.

use crate::harness::{self, fixture_problem, root};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// A folder `nobody` can read: a copy of the judge, the given fixture problems and programs
/// (`programs/NAME` or `attacks/NAME` under tests/fixtures).
fn public_copy(problems: &[&str], programs: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    };
    copy(
        Path::new(env!("CARGO_BIN_EXE_judge")),
        &dir.path().join("judge"),
    );
    for name in problems {
        let from = fixture_problem(name);
        let to = dir.path().join(name);
        std::fs::create_dir_all(to.join("tests")).unwrap();
        copy(&from.join("problem.toml"), &to.join("problem.toml"));
        for e in std::fs::read_dir(from.join("tests")).unwrap().flatten() {
            copy(&e.path(), &to.join("tests").join(e.file_name()));
        }
    }
    for p in programs {
        let from = root().join("tests/fixtures").join(p);
        copy(&from, &dir.path().join(from.file_name().unwrap()));
    }
    let mut all = vec![dir.path().to_path_buf()];
    let mut i = 0;
    while i < all.len() {
        if all[i].is_dir() {
            all.extend(
                std::fs::read_dir(&all[i])
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
        i += 1;
    }
    for p in all {
        let mode = if p.is_dir() || p.ends_with("judge") {
            0o755
        } else {
            0o644
        };
        std::fs::set_permissions(&p, PermissionsExt::from_mode(mode)).unwrap();
    }
    dir
}

/// The judge of `copy`, run as `nobody` (or another unprivileged user: tests running at once
/// need not wait for each other) in `copy`; `plain` skips the user namespace.
fn judge_as_nobody(copy: &Path, plain: bool) -> harness::Judge<'static> {
    let judge = harness::judge()
        .program(copy.join("judge"))
        .user(harness::unprivileged_uid())
        .current_dir(copy);
    if plain {
        judge.env("JUDGE_USERNS", "0")
    } else {
        judge
    }
}

fn file_name(p: &str) -> PathBuf {
    PathBuf::from(Path::new(p).file_name().unwrap())
}

/// The first test of a `--json` run: (verdict, CPU ms, peak bytes).
fn first_test(doc: &serde_json::Value) -> (String, f64, u64) {
    let t = &doc["tests"][0];
    (
        t["verdict"].as_str().unwrap_or_default().to_string(),
        t["time_ms"].as_f64().unwrap_or(-1.0),
        t["memory_kib"].as_u64().unwrap_or(0) * 1024,
    )
}

/// The case: as an unprivileged user, a program touching 1 GiB under a 256 MiB limit
/// gets MLE and never holds more than the limit plus a small margin. The harness's cgroup caps
/// the whole invocation at 3 GiB and measures its true peak: the judge, its worker and the
/// program together.
fn touching_1_gib_is_stopped_near_256_mib(plain: bool) {
    let copy = public_copy(&["measure"], &["programs/touch-1gib.c", "programs/tiny.c"]);
    let run = |prog: &str| {
        judge_as_nobody(copy.path(), plain)
            .args(["run", "measure", prog, "--json"])
            .output()
    };
    // The judge, its worker, the compiler and a tiny program: what the invocation costs anyway.
    let tiny = run("tiny.c");
    let doc = tiny.expect_verdict("AC");
    assert_eq!(doc["isolation"], "partial", "{}", tiny.describe());
    let base = tiny.peak_memory.expect("the harness measures its cgroup");

    let big = run("touch-1gib.c");
    let doc = big.expect_verdict("MLE");
    let (_, _, reported) = first_test(&doc);
    let peak = big.peak_memory.expect("the harness measures its cgroup");
    let limit = 256 * MIB;
    // The watchdog polls every millisecond: a program touching memory as fast as it can passes
    // the limit by a few MiB before the kill on an idle machine; allow for a busy one.
    let margin = 32 * MIB;
    let seen = format!(
        "reported peak {} MiB, the invocation's true peak {} MiB (without the program: {} MiB)",
        reported / MIB,
        peak / MIB,
        base / MIB
    );
    assert!(
        reported > limit && reported < limit + margin,
        "{seen}: {}",
        big.describe()
    );
    assert!(
        peak < base.max(64 * MIB) + limit + margin,
        "{seen}: {}",
        big.describe()
    );
    // Shown with --nocapture: the measured peaks (the README quotes them).
    let _ = writeln!(
        std::io::stderr(),
        "{}: {seen}",
        if plain {
            "plain processes"
        } else {
            "user namespace"
        }
    );
    let message = doc["tests"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("memory limit of 256.0 MiB"), "{message}");
}

#[test]
fn without_root_touching_1_gib_under_256_mib_is_mle_near_the_limit() {
    touching_1_gib_is_stopped_near_256_mib(false);
}

#[test]
fn without_user_namespaces_touching_1_gib_under_256_mib_is_mle_near_the_limit() {
    touching_1_gib_is_stopped_near_256_mib(true);
}

/// CPU time is the whole tree's, decided while it runs: three children each burning up to 3 s
/// are stopped soon after their sum passes the 0.5 s limit (RLIMIT_CPU, a limit per process,
/// alone would let each child burn its own); threads count too; fork and thread bombs are contained; memory bombs of
/// several kinds are MLE.
fn attacks_are_held(plain: bool) {
    let cases: [(&str, &[&str]); 7] = [
        ("attacks/children-burn-cpu.c", &["TLE"]),
        ("attacks/threads-burn-cpu.c", &["TLE"]),
        ("attacks/fork-bomb.c", &["TLE", "MLE"]),
        ("attacks/thread-bomb.cpp", &["AC"]),
        ("attacks/heap-bomb.c", &["MLE"]),
        ("attacks/memory-bomb.py", &["MLE"]),
        ("attacks/reserved-untouched.c", &["AC"]),
    ];
    let programs: Vec<&str> = cases.iter().map(|(p, _)| *p).collect();
    let copy = public_copy(&["attack"], &programs);
    for (prog, verdicts) in cases {
        let run = judge_as_nobody(copy.path(), plain)
            .arg("run")
            .arg("attack")
            .arg(file_name(prog))
            .arg("--json")
            .output();
        let doc = run.expect_verdict_among(verdicts);
        let (verdict, cpu_ms, peak) = first_test(&doc);
        if verdict == "TLE" {
            assert!(
                cpu_ms < 3000.0,
                "{prog}: {cpu_ms} ms of CPU for a 0.5 s limit: {}",
                run.describe()
            );
        }
        if verdict == "MLE" {
            assert!(
                peak < 64 * MIB + 64 * MIB,
                "{prog}: peak {} MiB for a 64 MiB limit: {}",
                peak / MIB,
                run.describe()
            );
        }
    }
}

#[test]
fn without_root_cpu_memory_and_process_limits_hold() {
    attacks_are_held(false);
}

/// Memory no process maps (memfds written to, System V segments) would escape the watchdog:
/// in a user namespace without a memory cgroup, the seccomp filter refuses to create it.
#[test]
fn without_root_memory_outside_every_process_is_refused() {
    let programs = ["programs/memfd-hoard.c", "programs/shm-hoard.c"];
    let copy = public_copy(&["attack"], &programs);
    for prog in programs {
        let run = judge_as_nobody(copy.path(), false)
            .arg("run")
            .arg("attack")
            .arg(file_name(prog))
            .arg("--json")
            .output();
        run.expect_verdict("AC");
    }
}

#[test]
fn without_user_namespaces_cpu_memory_and_process_limits_hold() {
    attacks_are_held(true);
}

#[test]
fn without_root_doctor_names_the_watchdog_and_how_exact_it_is() {
    let copy = public_copy(&[], &[]);
    for plain in [false, true] {
        let doctor = judge_as_nobody(copy.path(), plain)
            .args(["doctor", "--json"])
            .output();
        let doc = doctor.json();
        let limits = doc["limits"].as_array().unwrap_or_else(|| panic!("{doc}"));
        let get = |name: &str| {
            limits
                .iter()
                .find(|l| l["limit"] == name)
                .unwrap_or_else(|| panic!("no {name} limit: {doc}"))
        };
        let where_ = if plain {
            "in the judge"
        } else {
            "in the run's init"
        };
        for name in ["memory", "cpu time"] {
            let l = get(name);
            assert_eq!(l["exact"], false, "{l}");
            assert!(l["mechanism"].as_str().unwrap().contains(where_), "{l}");
        }
        let memory = get("memory")["detail"].as_str().unwrap().to_string();
        assert!(memory.contains("every 1 ms"), "{memory}");
        assert!(
            memory.contains("4 × the limit + 16 × the stack limit + 4 GiB"),
            "{memory}"
        );
        get("processes");
        let text = judge_as_nobody(copy.path(), plain).arg("doctor").output();
        text.expect_code(0)
            .expect_stdout_contains("limits:")
            .expect_stdout_contains("approximate");
    }
    let as_root = harness::judge().args(["doctor", "--json"]).output().json();
    for l in as_root["limits"].as_array().unwrap() {
        assert_eq!(l["exact"], true, "{l}");
        assert!(
            l["mechanism"].as_str().unwrap().starts_with("cgroup"),
            "{l}"
        );
    }
}

/// Ctrl-C kills a run of plain processes and the daemon it started (the judge is their
/// subreaper); the harness fails the test if anything outlives the judge.
#[test]
fn without_user_namespaces_interrupting_the_judge_leaves_no_process() {
    let copy = public_copy(&["measure"], &["programs/sleep-with-daemon.c"]);
    let run = judge_as_nobody(copy.path(), true)
        .interrupt_after(1.5)
        .args(["run", "measure", "sleep-with-daemon.c"])
        .output();
    assert_eq!(run.code(), Some(128 + libc::SIGINT), "{}", run.describe());
    run.expect_stderr_contains("interrupted");
}
