//! Interactive problems: the guessing game in the three formats (Kattis 2025-09 and legacy,
//! Polygon with a testlib-style interactor, native), verdicts by DOMjudge's precedence, the
//! exchange of a failing test, `verify` of an interactive package, and hostile or broken
//! partners, each ending within its limits with the stated verdict (the harness checks that
//! nothing is left running).

use crate::harness::{fixture_problem, judge, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn package(name: &str) -> PathBuf {
    root().join("tests/fixtures/packages").join(name)
}

fn submission(name: &str) -> PathBuf {
    package("kattis-guess").join("submissions").join(name)
}

/// The build cache of [`run`]: each package's interactor (a C++ program for most) and each
/// solution is built once for all the tests of this module and all their runs, not once per
/// run (none of them is about building). The judge's cache is safe to share between judges
/// running at once (an entry is renamed into place whole) and is keyed by the source, the
/// language entry and the compiler, so it can outlive a run of the tests: it lives in the
/// folder cargo gives integration tests for their data (`target/tmp`).
fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interactive-build-cache")
}

/// `judge run --json` of `source` on the package in `dir`: the document and how long it took.
fn run(dir: &Path, source: &Path, extra: &[&str]) -> (Value, Duration) {
    let start = Instant::now();
    let out = judge()
        .env("JUDGE_CACHE_DIR", shared_cache())
        .arg("run")
        .arg(dir)
        .arg(source)
        .arg("--json")
        .args(extra)
        .output();
    let doc = out.json();
    (doc, start.elapsed())
}

fn verdict(doc: &Value) -> &str {
    doc["verdict"].as_str().unwrap_or("?")
}

fn first_failure(doc: &Value) -> &Value {
    doc["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["verdict"] != "AC"))
        .unwrap_or(&Value::Null)
}

#[test]
fn kattis_2025_guessing_game_gets_every_verdict() {
    let dir = package("kattis-guess");
    let mut docs = std::collections::HashMap::new();
    for (source, want) in [
        ("accepted/bisect.py", "AC"),
        ("accepted/bisect.cpp", "AC"),
        ("accepted/Bisect.java", "AC"),
        ("wrong_answer/linear.py", "WA"),
        ("time_limit_exceeded/silent.py", "TLE"),
        ("run_time_error/crash.py", "RE"),
    ] {
        let (doc, _) = run(&dir, &submission(source), &[]);
        assert_eq!(verdict(&doc), want, "{source}: {doc}");
        docs.insert(source, doc);
    }
    let failed = first_failure(&docs["wrong_answer/linear.py"]);
    assert_eq!(
        failed["message"], "interactor: 10 guesses and the last one, 10, is wrong",
        "the interactor's judgemessage.txt: {failed}"
    );
    // The solution's time is its own: waiting for the interactor costs no CPU time.
    let failed = first_failure(&docs["time_limit_exceeded/silent.py"]);
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("wall-clock time"),
        "idle: TLE by the wall limit: {failed}"
    );
    assert!(failed["time_ms"].as_f64().unwrap() < 500.0, "{failed}");
}

#[test]
fn legacy_polygon_and_native_guessing_games() {
    let cases = [
        package("kattis-legacy-guess"),
        package("polygon-guess"),
        fixture_problem("guess"),
    ];
    for dir in &cases {
        let (doc, _) = run(dir, &submission("accepted/bisect.py"), &[]);
        assert_eq!(verdict(&doc), "AC", "{}: {doc}", dir.display());
        let (doc, _) = run(dir, &submission("wrong_answer/linear.py"), &[]);
        assert_eq!(verdict(&doc), "WA", "{}: {doc}", dir.display());
    }
    // Polygon: the interactor's verdict (exit 1, message on stderr) before the checker's.
    let (doc, _) = run(&cases[1], &submission("wrong_answer/linear.py"), &[]);
    assert_eq!(
        first_failure(&doc)["message"],
        "interactor: no correct guess in 10"
    );
}

#[test]
fn a_polygon_interactor_saying_ok_leaves_the_verdict_to_the_checker_on_tout() {
    // Answers that disagree with what the interactor writes to tout: std::wcmp rejects them.
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&package("polygon-guess"), dir.path());
    std::fs::write(dir.path().join("tests/02.a"), "999\n").unwrap();
    let (doc, _) = run(dir.path(), &submission("accepted/bisect.py"), &["--all"]);
    assert_eq!(verdict(&doc), "WA", "{doc}");
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests[0]["verdict"], "AC");
    assert_eq!(tests[1]["verdict"], "WA", "{}", tests[1]);
    assert_eq!(tests[2]["verdict"], "AC");
}

#[test]
fn transcript_shows_the_exchange_of_the_failing_test() {
    let out = judge()
        .arg("run")
        .arg(package("kattis-guess"))
        .arg(submission("wrong_answer/linear.py"))
        .arg("--transcript")
        .output();
    out.expect_stdout_contains(
        "exchange (< judge to solution, > solution to judge):\n    >1\n    <higher\n    >2\n",
    );
    out.expect_stdout_contains("    >10\n");
    // The JSON document carries it too; without --transcript, nothing is recorded.
    let (doc, _) = run(
        &package("kattis-guess"),
        &submission("wrong_answer/linear.py"),
        &["--transcript"],
    );
    let parts = first_failure(&doc)["transcript"]["parts"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        parts[0],
        serde_json::json!(["solution", "1\n"]),
        "{parts:?}"
    );
    assert_eq!(
        parts[1],
        serde_json::json!(["judge", "higher\n"]),
        "{parts:?}"
    );
    // Without --transcript nothing is recorded, but a failing sample shows its own exchange.
    let (doc, _) = run(
        &package("kattis-guess"),
        &submission("wrong_answer/linear.py"),
        &[],
    );
    let transcript = &first_failure(&doc)["transcript"];
    assert_eq!(transcript["recorded"], false, "{doc}");
    assert_eq!(transcript["parts"], serde_json::json!([]), "{doc}");
    assert_eq!(transcript["sample"][0], ">500", "{doc}");
    assert_eq!(transcript["sample"][15], "<correct", "{doc}");
    // A failing secret test has no sample exchange: nothing at all.
    let (doc, _) = run(
        &package("kattis-guess"),
        &submission("wrong_answer/linear.py"),
        &["--test", "secret/s1000"],
    );
    assert!(first_failure(&doc).get("transcript").is_none(), "{doc}");
}

#[test]
fn inspect_shows_the_interactor_and_the_sample_exchange() {
    let out = judge().arg("inspect").arg(package("kattis-guess")).output();
    out.expect_stdout_contains("interactor output_validator/interactor.cpp\n");
    out.expect_stdout_contains("checker    none: the interactor decides\n");
    out.expect_stdout_contains("[sample; group sample; exchange data/sample/1.interaction]");
    out.expect_stdout_contains(
        "exchange   sample/1 (< judge to solution, > solution to judge):\n    >500\n    <lower\n",
    );
    let doc = judge()
        .args(["inspect", "--json"])
        .arg(package("polygon-guess"))
        .output()
        .json();
    assert_eq!(doc["interactor"]["source"], "files/interactor.cpp");
    assert_eq!(doc["interactor"]["protocol"], "testlib");
}

#[test]
fn verify_plays_the_sample_exchange_against_the_interactor() {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&package("kattis-guess"), dir.path());
    // The sample exchange is played against the interactor alone: of the submissions, one
    // reference solution is enough (the others, a Java build and a TLE among them, took 90 % of
    // the time).
    for folder in ["run_time_error", "time_limit_exceeded", "wrong_answer"] {
        std::fs::remove_dir_all(dir.path().join("submissions").join(folder)).unwrap();
    }
    for file in ["Bisect.java", "bisect.cpp"] {
        std::fs::remove_file(dir.path().join("submissions/accepted").join(file)).unwrap();
    }
    let sample = dir.path().join("data/sample/1.interaction");
    std::fs::write(&sample, ">500\n<higher\n").unwrap();
    let out = judge().arg("verify").arg(dir.path()).output();
    out.expect_stdout_contains(
        "1.interaction:2: the interactor said `lower` where the sample says `higher`",
    );
    assert_ne!(out.code(), Some(0), "{}", out.describe());
    std::fs::write(&sample, ">500\n<lower\n>1\n<higher\n").unwrap();
    let out = judge().arg("verify").arg(dir.path()).output();
    out.expect_stdout_contains("does not accept the sample exchange (exit code 43)");
}

#[test]
fn interactive_multi_pass_runs_a_pass_for_each_nextpass_in() {
    // Every submission gets its expected verdict, the sample's two passes are played.
    let multi = package("kattis-interactive-multipass");
    let out = judge().args(["verify", "--json"]).arg(&multi).output();
    assert_eq!(out.code(), Some(0), "{}", out.describe());
    let verified = out.json();
    let submissions = multi.join("submissions");
    // The second pass fails: its number and the exchange of both passes, split by `---`.
    let (doc, _) = run(
        &multi,
        &submissions.join("wrong_answer/forgets.py"),
        &["--transcript"],
    );
    let failed = first_failure(&doc);
    assert_eq!(failed["passes"], 2, "{doc}");
    assert_eq!(
        failed["message"],
        "pass 2: interactor: second pass: `xelpmas` is not the word `sample`"
    );
    let out = judge()
        .arg("run")
        .arg(&multi)
        .arg(submissions.join("wrong_answer/forgets.py"))
        .arg("--transcript")
        .output();
    out.expect_stdout_contains(
        "exchange (< judge to solution, > solution to judge):\n    <sample\n    >xelpmas\n    ---\n    <xelpmas\n    >xelpmas\n",
    );
    // Limits hold per pass: computing forever in the second pass is a TLE of that pass.
    let thinks = verified["problems"][0]["solutions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == "submissions/time_limit_exceeded/thinks.py")
        .unwrap_or_else(|| panic!("no thinks.py in {verified}"));
    assert_eq!(thinks["verdict"], "TLE", "{thinks}");
    assert!(
        thinks["first_failure"]["message"]
            .as_str()
            .unwrap()
            .starts_with("pass 2: CPU time"),
        "{thinks}"
    );
    // A sample whose second pass the interactor does not say: verify names its line (the
    // solution that computes until its limit is not needed for it).
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&multi, dir.path());
    std::fs::remove_dir_all(dir.path().join("submissions/time_limit_exceeded")).unwrap();
    std::fs::write(
        dir.path().join("data/sample/1.interaction"),
        "<sample\n>xelpmas\n---\n<xelpmaz\n>sample\n",
    )
    .unwrap();
    let out = judge().arg("verify").arg(dir.path()).output();
    out.expect_stdout_contains(
        "1.interaction:4: the interactor said `xelpmas` where the sample says `xelpmaz`",
    );
    assert_ne!(out.code(), Some(0), "{}", out.describe());
    // More passes than the problem allows (2 by default) is the interactor's fault: a judge
    // error.
    let interactor = dir.path().join("output_validator/remember.py");
    let again = std::fs::read_to_string(&interactor).unwrap().replace(
        "    reject(f\"second pass",
        "    (feedback / \"nextpass.in\").write_text(\"code again\\n\")\n    sys.exit(42)\n    reject(f\"second pass",
    );
    std::fs::write(&interactor, again).unwrap();
    let (doc, _) = run(
        dir.path(),
        &submissions.join("wrong_answer/forgets.py"),
        &[],
    );
    assert_eq!(verdict(&doc), "JE", "{doc}");
    assert!(
        first_failure(&doc)["message"]
            .as_str()
            .unwrap()
            .contains("asks for pass 3 but the problem allows 2"),
        "{doc}"
    );
}

#[test]
fn verify_checks_the_interactive_packages_submissions() {
    // At once: each waits out its silent solution's 8 s of wall clock.
    std::thread::scope(|s| {
        for name in ["kattis-guess", "kattis-legacy-guess"] {
            s.spawn(move || {
                let out = judge()
                    .args(["verify", "--json"])
                    .arg(package(name))
                    .output();
                let text = out.stdout();
                assert!(out.code() == Some(0), "{name}: {}", out.describe());
                for source in ["bisect.py", "linear.py", "silent.py"] {
                    assert!(text.contains(source), "{name}: {source} missing: {text}");
                }
            });
        }
    });
}

/// A copy of the Kattis guessing game whose interactor is `interactor` (Python, Kattis
/// protocol) and whose time limit is 0.5 s; the solution `solution` (Python) beside it.
fn hostile(interactor: &str, solution: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    crate::harness::copy_dir(&package("kattis-guess"), dir.path());
    let _ = std::fs::remove_dir_all(dir.path().join("submissions"));
    std::fs::remove_file(dir.path().join("output_validator/interactor.cpp")).unwrap();
    std::fs::write(
        dir.path().join("output_validator/interactor.py"),
        interactor,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("problem.yaml"),
        "problem_format_version: 2025-09\ntype: interactive\nname: hostile\nlimits:\n  time_limit: 0.5\n  memory: 128\n",
    )
    .unwrap();
    let source = dir.path().join("solution.py");
    std::fs::write(&source, solution).unwrap();
    (dir, source)
}

/// The guessing game's interactor in Python; `on_guess` runs after each guess is read (hostile
/// variants put their behaviour there).
fn interactor(before: &str, on_guess: &str, after_correct: &str) -> String {
    format!(
        r#"import sys, time, os
secret = int(open(sys.argv[1]).read())
def judge_message(m):
    open(sys.argv[3] + "/judgemessage.txt", "w").write(m + "\n")
{before}
for n in range(1, 11):
    line = sys.stdin.readline()
    {on_guess}
    if not line:
        judge_message("the output ended"); sys.exit(43)
    try:
        g = int(line)
    except ValueError:
        judge_message("not a number"); sys.exit(43)
    if g == secret:
        print("correct", flush=True)
        {after_correct}
        sys.exit(42)
    print("higher" if g < secret else "lower", flush=True)
judge_message("no correct guess in 10"); sys.exit(43)
"#
    )
}

const BISECT: &str = r#"lo, hi = 1, 1000
while True:
    mid = (lo + hi) // 2
    print(mid, flush=True)
    r = input().strip()
    if r == "correct":
        break
    if r == "higher":
        lo = mid + 1
    else:
        hi = mid - 1
"#;

/// Judges `solution` against `interactor`: the first failing test, which must have `want`.
fn expect(interactor: &str, solution: &str, want: &str) -> (Value, Duration) {
    let (dir, source) = hostile(interactor, solution);
    let (doc, took) = run(dir.path(), &source, &[]);
    assert_eq!(verdict(&doc), want, "{doc}");
    assert!(
        took < Duration::from_secs(30),
        "took {took:?}: limits are 0.5 s CPU and a few seconds of wall time"
    );
    (first_failure(&doc).clone(), took)
}

fn plain() -> String {
    interactor("", "", "")
}

#[test]
fn the_plain_python_interactor_accepts_bisection() {
    let (dir, source) = hostile(&plain(), BISECT);
    let (doc, _) = run(dir.path(), &source, &[]);
    assert_eq!(verdict(&doc), "AC", "{doc}");
}

#[test]
fn hostile_solutions_end_in_bounded_time_with_their_verdict() {
    // Floods the pipe with guesses and never reads: ten wrong ones, the interactor rejects and
    // the solution is stopped.
    let (t, _) = expect(
        &plain(),
        "import sys\nwhile True:\n    sys.stdout.write('1\\n' * 4096)\n",
        "WA",
    );
    assert!(
        t["message"]
            .as_str()
            .unwrap()
            .contains("no correct guess in 10"),
        "{t}"
    );
    // Closes its output and ends at once.
    let (t, _) = expect(&plain(), "import os\nos.close(1)\n", "WA");
    assert!(
        t["message"].as_str().unwrap().contains("the output ended"),
        "{t}"
    );
    // Waits for input that never comes (the judge waits for its first guess): TLE by the wall
    // limit, with little CPU time.
    let (t, _) = expect(&plain(), "input()\n", "TLE");
    let message = t["message"].as_str().unwrap();
    assert!(message.contains("wall-clock"), "{t}");
    assert!(
        message.contains("the interactor had not ended either"),
        "{t}"
    );
    // Guesses once, then computes forever without reading the reply: TLE by CPU time (or by
    // the wall limit, on a machine too busy to give it 0.5 s of CPU in 2.5 s).
    let (t, _) = expect(
        &plain(),
        "print(500, flush=True)\nwhile True: pass\n",
        "TLE",
    );
    let message = t["message"].as_str().unwrap();
    assert!(
        message.contains("CPU time") || message.contains("wall-clock"),
        "{t}"
    );
    // Crashes after a guess.
    expect(
        &plain(),
        "print(500, flush=True)\nraise SystemExit(7)\n",
        "RE",
    );
}

#[test]
fn a_solution_closing_its_output_early_gets_what_it_does_next() {
    // The interactor sees the end of the solution's output only once the solution has ended
    // (as BAPCtools does), so what the solution does after closing decides: a crash is RE and
    // sleeping is TLE, not the interactor's WA for an output that ended.
    let (t, _) = expect(
        &plain(),
        "import os, time\nos.close(1)\ntime.sleep(0.3)\nraise SystemExit(3)\n",
        "RE",
    );
    assert!(
        t["message"].as_str().unwrap().contains("exit code 3"),
        "{t}"
    );
    let (t, _) = expect(
        &plain(),
        "import os, time\nos.close(1)\ntime.sleep(100)\n",
        "TLE",
    );
    assert!(t["message"].as_str().unwrap().contains("wall-clock"), "{t}");
}

#[test]
fn an_interactor_closing_its_input_then_rejecting_gets_its_wa() {
    // The interactor stops reading (closes its input), takes its time, then rejects; the
    // solution writes on meanwhile. No broken pipe reaches the solution: WA, never its RE.
    let closes_input = interactor(
        "",
        "os.close(0); time.sleep(0.3); judge_message('stopped listening'); sys.exit(43)",
        "",
    );
    for _ in 0..3 {
        let (t, _) = expect(
            &closes_input,
            "import sys\nwhile True:\n    sys.stdout.write('1\\n' * 4096)\n    sys.stdout.flush()\n",
            "WA",
        );
        assert_eq!(t["message"], "interactor: stopped listening", "{t}");
    }
}

#[test]
fn an_interactor_that_rejects_first_beats_the_solutions_tle() {
    // The interactor rejects the first guess at once; the solution then spins: WA, not TLE.
    let rejects = interactor("", "judge_message('rejected at once'); sys.exit(43)", "");
    let (t, took) = expect(&rejects, "print(500, flush=True)\nwhile True: pass\n", "WA");
    assert_eq!(t["message"], "interactor: rejected at once", "{t}");
    assert!(t["time_ms"].as_f64().unwrap() < 500.0, "stopped early: {t}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn an_interactor_that_rejects_first_beats_the_solution_failing_to_read_then() {
    // The interactor rejects the first guess and ends; the solution then reads the end of its
    // input and crashes (EOFError): the two end within a moment of each other, and the one
    // that closed its output first decides, with the relay (which passes the end on) or
    // without (the judge looks for the end of the interactor's output as the solution ends).
    let rejects = interactor("", "judge_message('rejected at once'); sys.exit(43)", "");
    let (dir, source) = hostile(&rejects, BISECT);
    for extra in [
        &[][..],
        &["--transcript"][..],
        &[][..],
        &["--transcript"][..],
    ] {
        let (doc, _) = run(dir.path(), &source, extra);
        assert_eq!(verdict(&doc), "WA", "{extra:?}: {doc}");
        assert_eq!(
            first_failure(&doc)["message"],
            "interactor: rejected at once",
            "{extra:?}: {doc}"
        );
    }
}

#[test]
fn an_interactor_closing_its_output_gives_the_solution_its_end() {
    // The interactor sends every number, closes its output, then reads the sum: the solution
    // reads to the end of its input. Any other process holding a copy of the pipe's write end
    // (a run's init, a standby) would leave the solution waiting: TLE.
    let closes = r#"import sys, os
numbers = list(range(1, 101))
sys.stdout.write("".join(f"{x}\n" for x in numbers))
sys.stdout.flush()
os.close(1)
line = sys.stdin.readline()
if line.strip() != str(sum(numbers)):
    open(sys.argv[3] + "/judgemessage.txt", "w").write(f"got {line!r}\n")
    sys.exit(43)
sys.exit(42)
"#;
    let to_the_end = "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))\n";
    let (dir, source) = hostile(closes, to_the_end);
    for _ in 0..3 {
        let (doc, took) = run(dir.path(), &source, &[]);
        assert_eq!(verdict(&doc), "AC", "{doc}");
        assert!(took < Duration::from_secs(20), "{took:?}");
    }
}

#[test]
fn what_either_side_writes_after_its_partner_ended_is_dropped_with_or_without_the_relay() {
    // The solution writes 1 MiB more after the interactor accepted and ended; the interactor
    // writes 1 MiB more after saying "correct" to a solution that ends at once. The judge
    // reads it and drops it (direct pipes: its copies of the read ends, drained once the
    // reader ended; the relay: its threads): neither writer is left waiting on a full pipe
    // (TLE, or the interactor's wall-clock cap: JE) nor sent a broken pipe (RE, JE).
    let flood = "sys.stdout.write('x' * (1 << 20)); sys.stdout.flush()";
    let writes_on = format!("{BISECT}import sys\n{flood}\n");
    let cases = [
        (plain(), writes_on),
        (interactor("", "", flood), BISECT.to_string()),
    ];
    for (interactor, solution) in cases {
        let (dir, source) = hostile(&interactor, &solution);
        for extra in [&[][..], &["--transcript"][..]] {
            let (doc, took) = run(dir.path(), &source, extra);
            assert_eq!(verdict(&doc), "AC", "{extra:?}: {doc}");
            assert!(took < Duration::from_secs(20), "{extra:?}: {took:?}");
        }
    }
}

#[test]
fn broken_interactors_are_judge_errors_never_accepted() {
    // (the interactor's code before, on each guess and after "correct"; what the message says)
    let cases = [
        // Crashes at the start.
        (("sys.exit(1)", "", ""), "exited with code 1"),
        // Killed by a signal in the middle of the exchange.
        (
            ("", "os.kill(os.getpid(), 11) if n == 3 else None", ""),
            "SIGSEGV",
        ),
        // Exits 0, which is no Kattis verdict.
        (("", "", "sys.exit(0)"), "exited with 0"),
        // Says "correct", then never ends: stopped at its wall-clock cap.
        (("", "", "time.sleep(1000)"), "wall-clock cap"),
        // Computes forever instead of answering while the solution waits.
        (("", "while n == 2: pass", ""), "without answering"),
    ];
    // At once: two of them wait out a cap.
    std::thread::scope(|s| {
        for ((before, on_guess, after), said) in cases {
            s.spawn(move || {
                let (t, _) = expect(&interactor(before, on_guess, after), BISECT, "JE");
                assert!(t["message"].as_str().unwrap().contains(said), "{t}");
            });
        }
    });
}

#[test]
fn plain_processes_cannot_run_pairs_and_say_what_is_missing() {
    // As `nobody` with plain processes (`JUDGE_USERNS=0`, as where user namespaces are off).
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path();
    std::fs::copy(env!("CARGO_BIN_EXE_judge"), copy.join("judge")).unwrap();
    crate::harness::copy_dir(&fixture_problem("guess"), &copy.join("guess"));
    std::fs::copy(submission("accepted/bisect.py"), copy.join("bisect.py")).unwrap();
    let mut all = vec![copy.to_path_buf()];
    while let Some(p) = all.pop() {
        let mode = if p.is_dir() || p.ends_with("judge") {
            0o755
        } else {
            0o644
        };
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        if p.is_dir() {
            all.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        }
    }
    let out = judge()
        .program(copy.join("judge"))
        .user(65534)
        .current_dir(copy)
        .env("JUDGE_USERNS", "0")
        .args(["run", "guess", "bisect.py"])
        .output();
    assert_ne!(out.code(), Some(0), "{}", out.describe());
    out.expect_stderr_contains(
        "guess is interactive: the solution and the interactor run side by side",
    );
    out.expect_stderr_contains("which needs the full sandbox (its worker, with PID and mount namespaces); here programs run as plain processes (no sandbox worker: JUDGE_USERNS=0");
    out.expect_stderr_contains("hint: run the judge as root");
}

// ---------- `judge run --interact`: the console in a terminal, driven through a pipe ----------

/// A native guessing-game package without an interactor (as competitive-companion sends an
/// interactive problem), and a binary-search solution that says what it asks on stderr too.
fn console_problem(dir: &Path) -> (PathBuf, PathBuf) {
    let pkg = dir.join("guess");
    std::fs::create_dir_all(pkg.join("tests")).unwrap();
    std::fs::write(
        pkg.join("problem.toml"),
        "name = \"Guess\"\n[limits]\ntime_limit = 1.0\nmemory = 256\n[checker]\nkind = \"tokens\"\n",
    )
    .unwrap();
    std::fs::write(pkg.join("tests/1.in"), "25\n").unwrap();
    std::fs::write(pkg.join("tests/1.ans"), "25\n").unwrap();
    let solution = dir.join("guess.py");
    std::fs::write(
        &solution,
        "import sys\nlo, hi = 1, 100\nwhile True:\n    mid = (lo + hi) // 2\n    print('?', mid, flush=True)\n    \
         print('asked', mid, file=sys.stderr, flush=True)\n    r = input().strip()\n    if r == '=':\n        \
         print('!', mid, flush=True)\n        break\n    if r == '<':\n        hi = mid - 1\n    else:\n        lo = mid + 1\n",
    )
    .unwrap();
    (pkg, solution)
}

#[test]
fn run_interact_feeds_typed_lines_prints_the_programs_with_marks_and_times_and_saves_the_exchange()
{
    let dir = tempfile::tempdir().unwrap();
    let (pkg, solution) = console_problem(dir.path());
    let saved = dir.path().join("played.interaction");
    let out = judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&solution)
        .arg("--save")
        .arg(&saved)
        .stdin("<\n=\n")
        .output();
    out.expect_code(0);
    // Every line with its time; what was sent (echoed: stdin is no terminal), received, stderr.
    let lines: Vec<(u64, String)> = out
        .stdout()
        .lines()
        .map(|l| {
            let (at, rest) = l
                .strip_prefix('[')
                .and_then(|l| l.split_once(" ms] "))
                .unwrap_or_else(|| panic!("no time in {l:?}"));
            (at.trim().parse().unwrap(), rest.to_string())
        })
        .collect();
    let shown: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    for expected in [
        "< <",
        "< =",
        "> ? 50",
        "> ? 25",
        "> ! 25",
        "! asked 50",
        "! asked 25",
    ] {
        assert!(shown.contains(&expected), "{expected:?} not in {shown:#?}");
    }
    let received: Vec<&str> = shown
        .iter()
        .copied()
        .filter(|l| l.starts_with('>'))
        .collect();
    assert_eq!(received, ["> ? 50", "> ? 25", "> ! 25"]);
    assert!(lines.iter().all(|(at, _)| *at < 30_000), "{lines:?}");
    out.expect_stderr_contains("you are the judge; the program has 1.0 s of CPU time and 256 MiB");
    out.expect_stderr_contains("exited with 0");
    // The exchange as Kattis writes it: `<` judge to solution, `>` solution to judge, in the
    // order the judge saw the lines (through a pipe, both sent lines go in at once).
    let text = std::fs::read_to_string(&saved).unwrap();
    let marks: Vec<&str> = text.lines().collect();
    assert_eq!(marks.len(), 5, "{text}");
    let heard: Vec<&str> = marks
        .iter()
        .copied()
        .filter(|l| l.starts_with('>'))
        .collect();
    assert_eq!(heard, [">? 50", ">? 25", ">! 25"], "{text}");
    let mut sent: Vec<&str> = marks
        .iter()
        .copied()
        .filter(|l| l.starts_with('<'))
        .collect();
    sent.sort();
    assert_eq!(sent, ["<<", "<="]);

    // Played back: the same program writes the same lines; one that guesses otherwise differs.
    judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&solution)
        .arg("--replay")
        .arg(&saved)
        .output()
        .expect_code(0)
        .expect_stdout_contains("the program wrote the exchange's 5 lines");
    let other = dir.path().join("other.py");
    std::fs::write(
        &other,
        std::fs::read_to_string(&solution)
            .unwrap()
            .replace("(lo + hi) // 2", "(lo + hi + 1) // 2"),
    )
    .unwrap();
    judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&other)
        .arg("--replay")
        .arg(&saved)
        .output()
        .expect_code(1)
        .expect_stdout_contains(
            "differs: token 2: the program wrote `51` where the exchange has `50`",
        );
}

#[test]
fn run_interact_gives_the_programs_verdict_under_the_problems_limits() {
    let dir = tempfile::tempdir().unwrap();
    let (pkg, solution) = console_problem(dir.path());
    // An answer the program does not expect: it reads past its input's end (RE).
    let out = judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&solution)
        .stdin("<\n")
        .output();
    out.expect_code(1);
    out.expect_stderr_contains("RE");
    out.expect_stdout_contains("! EOFError");
    // A program spinning on the CPU is stopped at the problem's time limit, not the console's.
    let spin = dir.path().join("spin.py");
    std::fs::write(&spin, "print('?', 1, flush=True)\nwhile True:\n    pass\n").unwrap();
    let started = Instant::now();
    let out = judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&spin)
        .stdin("")
        .output();
    out.expect_code(1);
    out.expect_stderr_contains("TLE");
    assert!(started.elapsed() < Duration::from_secs(60));
    // A program that writes without end is stopped at the console's cap (1 MiB).
    let flood = dir.path().join("flood.py");
    std::fs::write(&flood, "while True:\n    print('x' * 100)\n").unwrap();
    let out = judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&flood)
        .stdin("")
        .output();
    out.expect_code(1);
    out.expect_stderr_contains("stopped: the program wrote more than 1024 KiB");
    let shown = out.stdout().lines().count();
    assert!((10_000..=10_400).contains(&shown), "{shown} lines shown");
    // --save into a folder that does not exist is refused before anything runs.
    judge()
        .arg("run")
        .arg("--interact")
        .arg(&pkg)
        .arg(&solution)
        .arg("--save")
        .arg(dir.path().join("no/such/x.interaction"))
        .output()
        .expect_code(2)
        .expect_stderr_contains("its folder does not exist");
}
