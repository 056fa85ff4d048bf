//! The tests that need the CPUs free (they assert times, or that `-j 1` and `-j 2` agree near a
//! limit): each takes [`harness::alone`], so no other test's judge runs beside it. They are
//! gathered here, in the module whose name sorts first, because libtest starts tests in name
//! order: they run one after another at the start, before any other test has a judge running,
//! instead of waiting mid-run for every judge under way to end while the others hold back.

use crate::harness::{self, program};
use crate::jobs;
use serde_json::Value;

/// `judge run PROBLEM SOURCE --all -j JOBS --format FORMAT`.
fn run_all(
    problem: &std::path::Path,
    source: std::path::PathBuf,
    jobs: &str,
    format: &str,
) -> harness::Finished {
    harness::judge()
        .arg("run")
        .arg(problem)
        .arg(source)
        .args(["--all", "-j", jobs, "--format", format])
        .output()
}

#[test]
fn verdicts_with_one_job_and_with_two_are_the_same_and_in_the_same_order() {
    let _alone = harness::alone();
    let r = jobs::near_limit_repo();
    let one = harness::judge()
        .args(["verify", "--format", "json", "-j", "1"])
        .current_dir(r.path())
        .output();
    one.expect_code(0);
    let two = harness::judge()
        .args(["verify", "--format", "json", "--jobs", "2"])
        .current_dir(r.path())
        .output();
    two.expect_code(0);
    let (one, two) = (jobs::verdicts(&one.json()), jobs::verdicts(&two.json()));
    assert_eq!(one.len(), 7, "{one:?}");
    assert_eq!(one, two);
    assert!(one.iter().all(|s| s.3), "{one:?}");
    let human = harness::judge()
        .args(["verify", "-j", "2"])
        .current_dir(r.path())
        .output();
    human.expect_code(0);
    // The table lists the solutions in their order, whichever job finished first.
    let out = human.stdout();
    let at = |name: &str| out.find(name).unwrap_or_else(|| panic!("{name}: {out}"));
    assert!(
        at("accepted/ac-quarter-sum.c") < at("accepted/ac.c"),
        "{out}"
    );
    assert!(
        at("runtime_error/re-segv.c") < at("time_limit_exceeded/tle-loop.c"),
        "{out}"
    );
    assert!(
        at("time_limit_exceeded/tle-loop.c") < at("wrong_answer/wa.c"),
        "{out}"
    );
}

#[test]
fn a_near_limit_verdict_judged_beside_another_job_is_judged_again_alone() {
    let _alone = harness::alone();
    let r = jobs::near_limit_repo();
    let problem = r.path().join("problems/sum");
    // Three tests of 0.25 s each on two jobs: the first two run side by side.
    let f = run_all(&problem, jobs::quarter_sum(&r), "2", "jsonl");
    f.expect_code(0);
    let events = jobs::events(&f.stdout());
    let rejudged: Vec<&Value> = events.iter().filter(|e| e["event"] == "rejudged").collect();
    assert!(
        !rejudged.is_empty(),
        "no test was re-judged: {}",
        f.stdout()
    );
    for e in &rejudged {
        for id in ["problem", "solution", "run", "test"] {
            assert!(!e[id].is_null(), "{id} missing in {e}");
        }
        assert_eq!(e["alone"]["verdict"], "AC", "{e}");
        // The result that counts is the one judged alone.
        let finished = events
            .iter()
            .find(|f| f["event"] == "test_finished" && f["test"] == e["test"])
            .unwrap();
        assert_eq!(finished["result"], e["alone"], "{}", f.stdout());
    }
    // Test results come in test order, as with one job.
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "test_finished")
        .map(|e| e["test"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sample-1", "2", "10"]);
    // The human table says so too.
    let human = run_all(&problem, jobs::quarter_sum(&r), "2", "human");
    human.expect_code(0);
    if human.stderr().contains("re-judged alone") {
        human.expect_stderr_contains("beside other jobs");
    }
    // One job is always alone: nothing is judged twice.
    let one = run_all(&problem, jobs::quarter_sum(&r), "1", "jsonl");
    one.expect_code(0);
    assert!(!one.stdout().contains("\"rejudged\""), "{}", one.stdout());
}

#[test]
fn a_clear_tle_beside_another_job_runs_to_one_and_a_half_times_the_limit_and_stands() {
    let _alone = harness::alone();
    let r = jobs::near_limit_repo();
    let problem = r.path().join("problems/sum");
    // Three tests of an endless loop on two jobs, 0.35 s limit: beside the other job each run's
    // CPU cap is 0.525 s, and one killed there is a TLE that needs no run alone. (On a machine
    // so busy that the wall clock stops a run before its CPU reaches the cap, that TLE is judged
    // again alone: allowed, so no timing is asserted of it.)
    let f = run_all(&problem, program("tle-loop.c"), "2", "jsonl");
    f.expect_code(1);
    let events = jobs::events(&f.stdout());
    let finished: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "test_finished")
        .collect();
    assert_eq!(finished.len(), 3, "{}", f.stdout());
    for e in finished {
        assert_eq!(e["result"]["verdict"], "TLE", "{e}");
        let rejudged = events
            .iter()
            .any(|r| r["event"] == "rejudged" && r["test"] == e["test"]);
        let cpu = e["result"]["time_ms"].as_f64().unwrap();
        if !rejudged {
            // Killed at the cap, not at the limit (0.35 s), which the old rule judged again.
            assert!(cpu >= 525.0, "{e}");
        }
    }
}

/// A run killed at a limit ends at the limit, and the judge moves on and exits at once. (Each
/// kill used to wait for a re-read of a kept-open cgroup v1 `cgroup.procs`, which kept returning
/// the killed program's pid: a 1 s busy loop took 3.2 s of wall time, `sleep(60)` under a 4 s
/// wall limit 6.2 s, and the judge lingered another second at exit.)

#[test]
fn a_run_killed_at_a_limit_ends_at_the_limit() {
    let _alone = harness::alone();
    // `sum` with a wall-clock limit of 0.6 s (the other CPUs wait while the sleeper does).
    let sum = harness::sum_with_limits(&format!(
        "{}\nwall_time_limit = 0.6",
        harness::SUM_TIME_LIMIT
    ));
    // (program, the limit it hits in ms: 0.25 s of CPU, or 0.6 s of wall time)
    for (prog, limit) in [("tle-loop.c", 250.0), ("tle-sleep.c", 600.0)] {
        let start = std::time::Instant::now();
        let run = harness::judge()
            .arg("run")
            .arg(sum.path().join("sum"))
            .arg(program(prog))
            .arg("--json")
            .output();
        let elapsed = start.elapsed().as_secs_f64() * 1000.0;
        let doc = run.expect_verdict("TLE");
        let test = &doc["tests"][0];
        let (time, wall) = (
            test["time_ms"].as_f64().unwrap(),
            test["wall_ms"].as_f64().unwrap(),
        );
        let compile = doc["compile"]["time_ms"].as_f64().unwrap();
        // Killed within 0.3 s of the limit: CPU time for the loop, wall time for the sleeper.
        // (The loop's wall time is not bounded here: on a machine busy with other tests its
        // share of a CPU, not the judge, decides it. Measured alone: about 0.27 s.)
        let used = if prog == "tle-loop.c" { time } else { wall };
        assert!(
            (limit..limit + 300.0).contains(&used),
            "{prog}: killed late: {time} ms of CPU, {wall} ms of wall time ({limit} ms limit)"
        );
        // Everything but compiling and the run itself (start-up, the worker, the kill, cleaning
        // up, exiting; and the harness's own start) takes well under a second: the old kill
        // waited a second after the run, and the judge another one before exiting.
        let rest = elapsed - compile - wall;
        assert!(
            rest < 800.0,
            "{prog}: the judge took {rest:.0} ms beyond compiling ({compile} ms) and the run ({wall} ms)"
        );
    }
}

/// A judge killed with SIGKILL in the middle of a run cannot clean up: the next judge removes
/// its work folders and cgroups, and leaves those of a judge still running beside it alone.

#[test]
fn the_next_judge_removes_what_a_killed_one_left_and_spares_a_live_one() {
    let alone = harness::alone();
    let shared = harness::Shared::new();
    let killed = harness::judge()
        .shared(&shared)
        .kill_after(1.5)
        .run_fixture("measure", "sleep-with-daemon.c");
    assert_eq!(
        killed.code(),
        Some(128 + libc::SIGKILL),
        "{}",
        killed.describe()
    );
    let left = shared.contents();
    let named = |prefix: &str| {
        left.iter()
            .filter(|p| crate::sandbox::file_name(p).starts_with(prefix))
            .count()
    };
    assert!(
        named("judge-work-") == 1 && named("judge-sandbox-") == 1 && named("judge-run-") >= 3,
        "a killed judge leaves its work folders and its run's cgroups: {left:?}"
    );
    std::thread::scope(|scope| {
        // A judge in the middle of a run (sleeping until it is interrupted) beside the next one,
        // interrupted once the checks are done (or, should one fail, as `done` goes with it).
        let (done, interrupt) = std::sync::mpsc::channel::<()>();
        let live = scope.spawn(|| {
            let _in = alone.enter();
            harness::judge()
                .shared(&shared)
                .interrupt_when(interrupt)
                .run_fixture("measure", "tle-sleep.c")
        });
        let start = std::time::Instant::now();
        let mut mid_run = Vec::new();
        // The program built at an earlier look: its compiler's cgroups (which hold processes
        // for a moment after the program is written) are gone by now.
        let mut built = false;
        while start.elapsed() < std::time::Duration::from_secs(6) {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let now: Vec<_> = shared
                .contents()
                .into_iter()
                .filter(|p| !left.contains(p))
                .collect();
            // Its work folders, and the cgroups of its test run: those that hold a process. The
            // janitor's spare cgroups (empty, made ahead and removed as it sees fit) come and go
            // by themselves, and the program may be built already (the build cache).
            let held = |p: &std::path::PathBuf| {
                !p.starts_with("/sys/fs/cgroup")
                    || std::fs::read_to_string(p.join("cgroup.procs"))
                        .is_ok_and(|procs| !procs.trim().is_empty())
            };
            let running = now
                .iter()
                .any(|p| p.starts_with("/sys/fs/cgroup") && held(p));
            if running && built {
                mid_run = now.into_iter().filter(held).collect();
                break;
            }
            built = now.iter().any(|p| p.join("build-1/prog").exists());
        }
        assert!(!mid_run.is_empty(), "the live judge never got to its run");
        std::thread::sleep(std::time::Duration::from_millis(500));
        harness::judge()
            .shared(&shared)
            .run_fixture("sum", "ac.c")
            .expect_verdict("AC");
        let after = shared.contents();
        let gone: Vec<_> = left.iter().filter(|p| after.contains(p)).collect();
        assert!(
            gone.is_empty(),
            "the killed judge's leftovers are still there: {gone:?}"
        );
        let missing: Vec<_> = mid_run.iter().filter(|p| !after.contains(p)).collect();
        assert!(missing.is_empty(), "the live judge lost {missing:?}");
        drop(done);
        let live = live.join().unwrap();
        assert_eq!(live.code(), Some(128 + libc::SIGINT), "{}", live.describe());
    });
    shared.finish();
}
