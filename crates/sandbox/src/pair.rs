//! `judge __sandbox-pair [--abandon] FOLDER WALL_MS A B [THEN]`: two shell snippets run side
//! by side, each in a sandbox of its own, A's stdout piped to B's stdin and B's stdout to A's
//! stdin, and how each ended as one JSON document on stdout. When one ends badly (not exit 0,
//! or at a limit) the other is killed. With `--abandon` both runs are dropped as soon as they
//! started (killed, not waited for). THEN, if given, runs afterwards in A's sandbox, which must
//! be as good as new. A hidden entry point (routed in `main.rs`) for the tests of concurrent
//! runs ([`super::Sandbox::start`], [`super::wait_all`]) until interactive problems use them.

use super::{Limits, RunIo, RunOutcome, RunSpec, Sandbox, Termination};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Entry point; the exit status is 0 when both runs were judged, 2 on a usage or sandbox error.
pub fn main(args: &[String]) -> i32 {
    let result = pair(args);
    // The runs' cgroups go before the process exits.
    super::finish();
    match result {
        Ok(doc) => {
            let _ = writeln!(std::io::stdout(), "{doc}");
            0
        }
        Err(why) => {
            let _ = writeln!(std::io::stderr(), "error: {why}");
            2
        }
    }
}

fn pair(args: &[String]) -> Result<serde_json::Value, String> {
    let abandon = args.first().is_some_and(|a| a == "--abandon");
    let args = &args[usize::from(abandon)..];
    let (folder, wall, a, b, then) = match args {
        [folder, wall, a, b] => (folder, wall, a, b, None),
        [folder, wall, a, b, then] => (folder, wall, a, b, Some(then)),
        _ => {
            return Err("usage: judge __sandbox-pair [--abandon] FOLDER WALL_MS A B [THEN]".into())
        }
    };
    let wall: u64 = wall.parse().map_err(|_| format!("bad WALL_MS `{wall}`"))?;
    let folder = Path::new(folder);
    let spec = |name: &str, script: &str| RunSpec {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        workdir: folder.join(name),
        scratch_workdir: true,
        stdin: None,
        stdout: folder.join(format!("{name}.out")),
        stderr: folder.join(format!("{name}.err")),
        readable: Vec::new(),
        limits: Limits {
            cpu: Duration::from_secs(2),
            wall: Duration::from_millis(wall),
            memory: 64 << 20,
            stack: 8 << 20,
            output: 1 << 20,
            stderr: 64 << 10,
            processes: 16,
        },
    };
    let specs = [
        spec("a", a),
        spec("b", b),
        spec("then", then.map_or("", |t| t)),
    ];
    for s in &specs {
        std::fs::create_dir_all(&s.workdir)
            .map_err(|e| format!("create {}: {e}", s.workdir.display()))?;
    }
    let mut sandboxes = [Sandbox::new(), Sandbox::new()];
    let [Ok(first), Ok(second)] = &mut sandboxes else {
        return Err("cannot start two sandboxes".into());
    };
    let error = |e: super::SandboxError| e.to_string();
    let (a_in, b_out) = super::pipe().map_err(error)?;
    let (b_in, a_out) = super::pipe().map_err(error)?;
    let io = |stdin, stdout| RunIo {
        stdin: Some(stdin),
        stdout: Some(stdout),
    };
    let mut runs = vec![
        first.start(&specs[0], io(a_in, a_out)).map_err(error)?,
        second.start(&specs[1], io(b_in, b_out)).map_err(error)?,
    ];
    if abandon {
        drop(runs);
        runs = Vec::new();
    }
    let bad = |_: usize, o: &RunOutcome| {
        o.termination != Termination::Exited(0)
            || o.cpu_limit_exceeded
            || o.wall_limit_exceeded
            || o.memory_limit_exceeded
    };
    let outcomes = super::wait_all(&mut runs, bad);
    drop(runs);
    let mut docs = Vec::new();
    for (spec, outcome) in specs.iter().zip(outcomes) {
        docs.push(describe(spec, &outcome.map_err(error)?));
    }
    let mut doc = serde_json::json!({ "runs": docs });
    if then.is_some() {
        let o = first.run(&specs[2]).map_err(error)?;
        doc["then"] = describe(&specs[2], &o);
    }
    Ok(doc)
}

/// One run's outcome and stderr as JSON.
fn describe(spec: &RunSpec, o: &RunOutcome) -> serde_json::Value {
    let (exit, signal) = match o.termination {
        Termination::Exited(c) => (Some(c), None),
        Termination::Signaled(s) => (None, Some(s)),
    };
    let stderr = std::fs::read_to_string(&spec.stderr).unwrap_or_default();
    serde_json::json!({
        "exit": exit,
        "signal": signal,
        "cpu_ms": o.cpu_time.as_secs_f64() * 1000.0,
        "wall_ms": o.wall_time.as_secs_f64() * 1000.0,
        "peak_memory": o.peak_memory,
        "cpu_limit": o.cpu_limit_exceeded,
        "wall_limit": o.wall_limit_exceeded,
        "memory_limit": o.memory_limit_exceeded,
        "stderr": stderr,
    })
}
