//! The sandbox as users meet it: `judge doctor` as root and without root, the unprivileged
//! fallback still judging, and Ctrl-C in the middle of a run leaving nothing behind.

use crate::harness::{self, fixture_problem, program};
use std::os::unix::fs::PermissionsExt;

#[test]
fn doctor_shows_every_layer_active_as_root() {
    let doc = harness::judge().args(["doctor", "--json"]).output().json();
    assert_eq!(doc["isolation"], "full", "{doc}");
    let layers = doc["layers"].as_array().unwrap();
    for name in [
        "pid namespace",
        "mount namespace and read-only root",
        "network namespace",
        "ipc and uts namespaces",
        "unprivileged user",
        "no_new_privs",
        "seccomp filter",
        "cgroup memory",
        "cgroup cpuacct",
        "cgroup pids",
    ] {
        let layer = layers
            .iter()
            .find(|l| l["name"] == name)
            .unwrap_or_else(|| panic!("no layer {name}: {doc}"));
        assert_eq!(layer["active"], true, "{layer}");
    }
    // The kernel-wide cgroup mode is never turned on unless asked: doctor reports it, and the
    // tests never ask.
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let major: u32 = release.split('.').next().unwrap().parse().unwrap();
    if major >= 6 {
        let speed = doc["speed"].as_array().unwrap();
        let note = speed
            .iter()
            .find(|l| l["name"] == "cgroup favordynmods")
            .unwrap_or_else(|| panic!("no favordynmods note: {doc}"));
        let detail = note["detail"].as_str().unwrap();
        assert!(!detail.contains("turned on now"), "{note}");
        // On cgroup v1 (the memory hierarchy mounted) a run joins through `tasks`: no need.
        if std::path::Path::new("/sys/fs/cgroup/memory/tasks").exists() {
            assert!(detail.contains("through `tasks`"), "{note}");
        }
    }
}

/// `judge doctor --tune` is the way to turn the kernel-wide mode on; it needs root, and says
/// what it changes. (Run here without root only: as root it would change the machine until
/// reboot.)
#[test]
fn doctor_tune_needs_root_and_says_the_mode_is_kernel_wide() {
    let copy = public_copy();
    let tune = harness::judge()
        .program(copy.path().join("judge"))
        .user(NOBODY)
        .current_dir(copy.path())
        .args(["doctor", "--tune"])
        .output();
    tune.expect_code(2)
        .expect_stderr_contains("needs root")
        .expect_stderr_contains("kernel-wide")
        .expect_stderr_contains("sudo judge doctor --tune");
}

#[test]
fn interrupting_the_judge_mid_run_kills_the_run_and_leaves_nothing() {
    // The harness fails this test if any process outlives the judge, a cgroup is left behind
    // or the judge's TMPDIR is not empty afterwards.
    let run = harness::judge()
        .interrupt_after(1.5)
        .run_fixture("measure", "sleep-with-daemon.c");
    assert_eq!(run.code(), Some(128 + libc::SIGINT), "{}", run.describe());
    run.expect_stderr_contains("interrupted");
    assert!(
        !run.stdout().contains("verdict"),
        "an interrupted run must not report a verdict: {}",
        run.describe()
    );
}

pub(crate) fn file_name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// A copy of the judge, a problem and a solution that an unprivileged user can read.
fn public_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), PermissionsExt::from_mode(0o755)).unwrap();
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        std::fs::copy(from, to).unwrap();
    };
    copy(
        std::path::Path::new(env!("CARGO_BIN_EXE_judge")),
        &dir.path().join("judge"),
    );
    let problem = dir.path().join("sum");
    std::fs::create_dir_all(problem.join("tests")).unwrap();
    let from = fixture_problem("sum");
    copy(&from.join("problem.toml"), &problem.join("problem.toml"));
    for e in std::fs::read_dir(from.join("tests")).unwrap().flatten() {
        copy(&e.path(), &problem.join("tests").join(e.file_name()));
    }
    copy(&program("ac.c"), &dir.path().join("ac.c"));
    for e in walk(dir.path()) {
        let mode = if e.is_dir() || e.ends_with("judge") {
            0o755
        } else {
            0o644
        };
        std::fs::set_permissions(&e, PermissionsExt::from_mode(mode)).unwrap();
    }
    dir
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all.extend(walk(&p));
        }
        all.push(p);
    }
    all
}

const NOBODY: u32 = 65534;

#[test]
fn without_root_doctor_explains_and_the_judge_still_runs_with_a_warning() {
    let copy = public_copy();
    let judge = || {
        harness::judge()
            .program(copy.path().join("judge"))
            .user(NOBODY)
            .current_dir(copy.path())
    };
    let doctor = judge().arg("doctor").output();
    doctor.expect_code(0);
    let text = doctor.stdout();
    assert!(text.contains("isolation: Partial"), "{}", doctor.describe());
    assert!(
        text.lines()
            .any(|l| l.starts_with("cgroup memory") && l.contains("MISSING")),
        "{}",
        doctor.describe()
    );
    assert!(text.contains("hint: run as root"), "{}", doctor.describe());

    let run = judge().args(["run", "sum", "ac.c"]).output();
    run.expect_code(0)
        .expect_stderr_contains("warning: isolation is Partial")
        .expect_stderr_contains("measurements are approximate");
    let json = judge().args(["run", "sum", "ac.c", "--json"]).output();
    let doc = json.expect_verdict("AC");
    assert_eq!(doc["isolation"], "partial", "{}", json.describe());
}

/// One neighbours.c report: (uid, from ms, to ms, the rest of the line).
fn neighbour_report(doc: &serde_json::Value) -> (u32, u64, u64, String) {
    let message = doc["tests"][0]["message"].as_str().unwrap_or_default();
    let report = message
        .split("stderr: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no report in {doc}"));
    let field = |name: &str| -> u64 {
        report
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {report:?}"))
    };
    (
        field("uid=") as u32,
        field("from="),
        field("to="),
        report.to_string(),
    )
}

#[test]
fn runs_at_the_same_time_cannot_see_each_other_and_have_their_own_uid() {
    // Two judges at once, each running a program that leaves marks in /tmp and its folder,
    // sleeps 4 s, then lists whatever else it can see there and in /proc.
    let judges: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(|| harness::judge().run_fixture("measure", "neighbours.c")))
        .collect();
    let reports: Vec<_> = judges
        .into_iter()
        .map(|j| {
            let run = j.join().unwrap();
            let doc = run.expect_verdict("RE");
            assert_eq!(doc["isolation"], "full", "{}", run.describe());
            neighbour_report(&doc)
        })
        .collect();
    for (_, _, _, report) in &reports {
        assert!(report.ends_with("alone"), "a run saw another: {report}");
    }
    let (a, b) = (&reports[0], &reports[1]);
    assert!(
        a.1 < b.2 && b.1 < a.2,
        "the two runs did not overlap in time, so this test proved nothing: {reports:?}"
    );
    assert_ne!(
        a.0, b.0,
        "two judges ran programs as the same uid: {reports:?}"
    );
}

/// The attack-twice problem's limits with `tests` empty tests, each answered by `ok`.
fn answering_ok(tests: usize) -> tempfile::TempDir {
    let problem = tempfile::tempdir().unwrap();
    let fixture = fixture_problem("attack-twice");
    std::fs::copy(
        fixture.join("problem.toml"),
        problem.path().join("problem.toml"),
    )
    .unwrap();
    let dir = problem.path().join("tests");
    std::fs::create_dir(&dir).unwrap();
    for i in 1..=tests {
        std::fs::write(dir.join(format!("{i}.in")), "").unwrap();
        std::fs::write(dir.join(format!("{i}.ans")), "ok\n").unwrap();
    }
    problem
}

/// A run served by a standby or kept init (whose program's process started before the run) is
/// in that init's IPC namespace too: what one run leaves of System V IPC is gone for the next,
/// also when both were served so. (From the second run of a kind on, the worker keeps the run's
/// init for the next run, or makes a standby, so the third and fourth runs here are served so.)
#[test]
fn runs_served_by_standbys_have_ipc_namespaces_of_their_own() {
    crate::attacks::require_full_isolation();
    let problem = answering_ok(4);
    let run = harness::judge()
        .arg("run")
        .arg(problem.path())
        .arg(program("ipc-outlives-run.c"))
        .args(["--all", "--json"])
        .output();
    let doc = run.expect_verdict("AC");
    assert_eq!(doc["tests"].as_array().map(Vec::len), Some(4), "{doc}");
}

/// A run's init serves the next run with the same mounts once it has emptied its namespace: the
/// next run finds no file the last one left in /tmp or in its working folder, no process, no
/// System V IPC object (and no POSIX message queue: `mq_open` is refused), and is PID 2 as in a
/// fresh namespace. The fixture prints its PID namespace and PID on stderr: from the second run
/// of a kind on, one init serves them all.
#[test]
fn a_kept_init_serves_the_next_run_with_nothing_of_the_last_one_left() {
    crate::attacks::require_full_isolation();
    let problem = answering_ok(5);
    let run = harness::judge()
        .arg("run")
        .arg(problem.path())
        .arg(program("leaves-traces.c"))
        // One job: one worker serves every run.
        .args(["--all", "-j", "1", "--json"])
        .output();
    let doc = run.expect_verdict("AC");
    let namespaces: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["stderr"]["text"].as_str().unwrap_or("").trim())
        .collect();
    assert_eq!(namespaces.len(), 5, "{doc}");
    // Every program is PID 2 of its namespace, as in a fresh one.
    assert!(
        namespaces
            .iter()
            .all(|n| n.starts_with("pid:[") && n.ends_with(" pid 2")),
        "{namespaces:?}"
    );
    // The first run's init is its own; the second's is kept and serves the rest.
    assert_ne!(namespaces[0], namespaces[1], "{namespaces:?}");
    assert!(
        namespaces[2..].iter().all(|n| *n == namespaces[1]),
        "runs 3 to 5 were not served by the init of run 2: {namespaces:?}"
    );
}

/// As root without cgroups, the run's init watches the tree (memory, CPU, tasks): also in a run
/// served by a standby init, whose program's process started before the request came (the
/// third and fourth runs here). A program touching 1 GiB under 64 MiB is stopped near the limit
/// in every run (without the watchdog it would touch it all, and still be MLE).
#[test]
fn without_cgroups_the_watchdog_holds_runs_served_by_standbys() {
    crate::attacks::require_full_isolation();
    const LIMIT: u64 = 64 << 20;
    let problem = tempfile::tempdir().unwrap();
    std::fs::write(
        problem.path().join("problem.toml"),
        "name = \"Four\"\n[limits]\ntime_limit = 2.0\nmemory = 64\n",
    )
    .unwrap();
    let tests = problem.path().join("tests");
    std::fs::create_dir(&tests).unwrap();
    for i in 1..=4 {
        std::fs::write(tests.join(format!("{i}.in")), "1\n").unwrap();
        std::fs::write(tests.join(format!("{i}.ans")), "ok\n").unwrap();
    }
    let doctor = harness::judge()
        .without_cgroups()
        .args(["doctor", "--json"])
        .output()
        .json();
    let memory = doctor["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "cgroup memory")
        .unwrap_or_else(|| panic!("no cgroup memory layer: {doctor}"));
    assert_eq!(memory["active"], false, "{doctor}");
    let run = harness::judge()
        .without_cgroups()
        .arg("run")
        .arg(problem.path())
        .arg(program("touch-1gib.c"))
        .args(["--all", "--json"])
        .output();
    let doc = run.json();
    let tests = doc["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests: {}", run.describe()));
    assert_eq!(tests.len(), 4, "{doc}");
    for t in tests {
        assert_eq!(t["verdict"], "MLE", "{t}");
        let peak = t["memory_kib"].as_u64().unwrap_or(0) * 1024;
        assert!(
            // Polled, not enforced by the kernel: a fast toucher overshoots more on a busy
            // machine, but is stopped long before its 1 GiB.
            peak > LIMIT / 2 && peak < 4 * LIMIT,
            "stopped near the limit: {t}"
        );
    }
}

/// Without cgroups a run shorter than the watchdog's first look still shows the memory it
/// used (the program's own rusage peak), not "0.0 MiB".
#[test]
fn without_cgroups_a_short_run_shows_its_memory() {
    crate::attacks::require_full_isolation();
    let doc = harness::judge()
        .without_cgroups()
        .arg("run")
        .arg(harness::fixture_problem("sum"))
        .arg(program("ac.c"))
        .args(["--all", "--json"])
        .output()
        .expect_verdict("AC");
    for t in doc["tests"].as_array().unwrap() {
        let kib = t["memory_kib"].as_u64().unwrap_or_else(|| panic!("{t}"));
        // A C program's resident set: at least a hundred KiB, far below the 64 MiB limit.
        assert!((100..64 << 10).contains(&kib), "{t}");
    }
}
