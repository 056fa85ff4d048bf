//! The attack suite: hostile programs in C, C++, Rust and Python, each judged in the full sandbox
//! with its expected verdict. Convention: a program prints `ok` (the fixture's answer) when the
//! sandbox held and `ESCAPED: ...` when an attack got through, so a hole shows up as WA; resource
//! attacks expect TLE, MLE or OLE, and the must-not-count cases (reserved memory, deep recursion,
//! stderr floods) expect AC.
//!
//! After-checks on every case, besides the verdict: the harness (see harness.rs) fails the test if
//! any process outlived the judge, if a cgroup or a temporary file was left behind; here, the
//! host sentinel file and the fixture's test files must be untouched and the judge must report
//! full isolation. Placeholders in the sources: `@ANSWER@`, `@INPUT@` (the fixture test's files),
//! `@SENTINEL@` (a host file this test creates), `@ROOT@` (the repository).

use crate::harness::{self, fixture_problem, root};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Refuses to run hostile code unless the judge says every isolation layer is active here.
pub(crate) fn require_full_isolation() {
    static FULL: OnceLock<Result<(), String>> = OnceLock::new();
    let state = FULL.get_or_init(|| {
        let doc = harness::judge().args(["doctor", "--json"]).output().json();
        if doc["isolation"] == "full" {
            Ok(())
        } else {
            Err(format!(
                "needs the full sandbox (run the tests as root); judge doctor says: {doc}"
            ))
        }
    });
    if let Err(why) = state {
        panic!("{why}");
    }
}

fn attack_source(name: &str, sentinel: &Path, dir: &Path) -> PathBuf {
    let problem = fixture_problem("attack");
    let text = std::fs::read_to_string(root().join("tests/fixtures/attacks").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .replace(
            "@ANSWER@",
            &problem.join("tests/1.ans").display().to_string(),
        )
        .replace("@INPUT@", &problem.join("tests/1.in").display().to_string())
        .replace("@SENTINEL@", &sentinel.display().to_string())
        .replace("@ROOT@", &root().display().to_string());
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Judges one attack and checks the verdict (one of `verdicts`) and the after-checks.
fn attack(name: &str, verdicts: &[&str]) -> serde_json::Value {
    require_full_isolation();
    let dir = tempfile::tempdir().unwrap();
    let sentinel = dir.path().join("sentinel");
    std::fs::write(&sentinel, "untouched\n").unwrap();
    let source = attack_source(name, &sentinel, dir.path());
    let tests = fixture_problem("attack").join("tests");
    let before = (
        std::fs::read(tests.join("1.in")).unwrap(),
        std::fs::read(tests.join("1.ans")).unwrap(),
    );
    // Compiled by this judge (a private build cache): some attacks are on the compiler.
    let run = harness::judge()
        .private_build_cache()
        .arg("run")
        .arg(fixture_problem("attack"))
        .arg(&source)
        .arg("--json")
        .output();
    let doc = run.expect_verdict_among(verdicts);
    let verdict = doc["verdict"].as_str().unwrap_or_default();
    assert_eq!(doc["isolation"], "full", "{}", run.describe());
    assert_eq!(
        std::fs::read_to_string(&sentinel).unwrap(),
        "untouched\n",
        "{name} changed a host file"
    );
    let after = (
        std::fs::read(tests.join("1.in")).unwrap(),
        std::fs::read(tests.join("1.ans")).unwrap(),
    );
    assert!(before == after, "{name} changed the test files");
    if verdict == "WA" || verdict == "AC" {
        let message = doc["tests"][0]["message"].as_str().unwrap_or("");
        assert!(!message.contains("ESCAPED"), "{name}: {message}");
    }
    doc
}

macro_rules! attacks {
    ($($test:ident: $file:literal => $($verdict:literal)|+;)*) => {
        $(
            #[test]
            fn $test() {
                attack($file, &[$($verdict),+]);
            }
        )*

        /// Every program in tests/fixtures/attacks has a case above.
        #[test]
        fn every_attack_program_is_judged() {
            let listed = [$($file),*];
            let mut missing = Vec::new();
            for e in std::fs::read_dir(root().join("tests/fixtures/attacks")).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !listed.contains(&name.as_str()) {
                    missing.push(name);
                }
            }
            assert!(missing.is_empty(), "attack programs without a case: {missing:?}");
            assert!(listed.len() >= 35);
        }
    };
}

attacks! {
    // CPU, sleeping and stopped processes.
    c_cpu_loop_ignoring_sigxcpu: "cpu-loop-ignoring-sigxcpu.c" => "TLE";
    c_pause_forever: "pause-forever.c" => "TLE";
    c_sigstop_self: "sigstop-self.c" => "TLE";
    c_threads_burn_cpu: "threads-burn-cpu.c" => "TLE";
    c_children_burn_cpu: "children-burn-cpu.c" => "TLE";
    rust_threads_burn_cpu: "threads-burn-cpu.rs" => "TLE";
    // Fork and thread bombs. A fork bomb ends on whichever limit trips first: CPU time (TLE) or
    // memory (MLE). With the process limit holding, its memory is mostly kernel memory (measured
    // here: 21 of 23 MiB for 64 processes), and every failed fork charges the run for a task and
    // an address space the kernel frees only after an RCU grace period, so on a loaded machine
    // the memory limit can come first. Either verdict means the bomb was contained.
    c_fork_bomb: "fork-bomb.c" => "TLE" | "MLE";
    cpp_thread_bomb: "thread-bomb.cpp" => "AC";
    python_fork_bomb: "fork-bomb.py" => "TLE" | "MLE";
    // Memory.
    c_heap_bomb: "heap-bomb.c" => "MLE";
    c_static_array_bomb: "static-array-bomb.c" => "MLE";
    cpp_vector_bomb: "vector-bomb.cpp" => "MLE";
    rust_heap_bomb: "heap-bomb.rs" => "MLE";
    python_memory_bomb: "memory-bomb.py" => "MLE";
    c_reserved_untouched_memory_does_not_count: "reserved-untouched.c" => "AC";
    c_deep_recursion_within_the_memory_limit: "deep-recursion.c" => "AC";
    // Output and the filesystem.
    c_stdout_flood: "stdout-flood.c" => "OLE";
    c_stderr_flood: "stderr-flood.c" => "AC";
    c_sparse_file: "sparse-file.c" => "AC";
    c_inode_bomb: "inode-bomb.c" => "AC";
    c_read_answer_file: "read-answer-file.c" => "AC";
    c_walk_the_filesystem: "walk-the-filesystem.c" => "AC";
    rust_find_answers: "find-answers.rs" => "AC";
    python_read_answer: "read-answer.py" => "AC";
    cpp_read_host_secrets: "read-host-secrets.cpp" => "AC";
    c_write_outside_the_box: "write-outside-the-box.c" => "AC";
    python_write_outside: "write-outside.py" => "AC";
    rust_spawn_shell: "spawn-shell.rs" => "AC";
    c_tamper_with_input: "tamper-with-input.c" => "AC";
    // Network.
    c_network_tcp: "network-tcp.c" => "AC";
    c_unix_sockets: "unix-sockets.c" => "AC";
    rust_network: "network.rs" => "AC";
    python_sockets: "sockets.py" => "AC";
    // Processes, signals, tracing.
    c_proc_snooping: "proc-snooping.c" => "AC";
    python_proc_snooping: "proc-snooping.py" => "AC";
    c_signal_the_judge: "signal-the-judge.c" => "AC";
    cpp_kill_everything: "kill-everything.cpp" => "AC";
    python_kill_everything: "kill-everything.py" => "AC";
    c_trace_the_judge: "trace-the-judge.c" => "AC";
    c_setsid_daemon: "setsid-daemon.c" => "AC";
    c_double_fork_sleepers: "double-fork-sleepers.c" => "AC";
    // Privileges and leaks.
    c_privilege_checks: "privilege-checks.c" => "AC";
    python_setuid_root: "setuid-root.py" => "AC";
    c_cgroup_escape: "cgroup-escape.c" => "AC";
    cpp_io_uring_and_bpf: "io-uring-and-bpf.cpp" => "AC";
    c_leaked_descriptors_and_environment: "leaked-descriptors-and-environment.c" => "AC";
    // The compile step.
    c_include_the_answer: "include-the-answer.c" => "CE";
    rust_include_str_answer: "include-str-answer.rs" => "CE";
    c_include_dev_zero: "include-dev-zero.c" => "CE";
    cpp_template_explosion: "template-explosion.cpp" => "CE";
}

/// System V IPC objects (shared memory, message queues, semaphores) live in an IPC namespace, not
/// in a process: each run gets its own, so what one run leaves is gone for the next.
#[test]
fn ipc_objects_do_not_outlive_their_run() {
    require_full_isolation();
    let run = harness::judge()
        .arg("run")
        .arg(fixture_problem("attack-twice"))
        .arg(harness::program("ipc-outlives-run.c"))
        .args(["--all", "--json"])
        .output();
    let doc = run.expect_verdict("AC");
    assert_eq!(doc["tests"].as_array().map(Vec::len), Some(2), "{doc}");
}
