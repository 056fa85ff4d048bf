//! Command-line interface: parses arguments and hands each subcommand to its module.
//! Exit statuses are a contract: see [`exit`].

mod doctor;
pub mod exit;
mod gen;
mod inspect;
mod new;
mod run;
mod stress;
mod verify;

use crate::judge::Engine;
use crate::lang::Languages;
use crate::report::stream::Gone;
use crate::sandbox::Sandbox;
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "judge",
    version,
    about = "A local online judge: build, run in a sandbox, check, report"
)]
pub struct Cli {
    /// Language table to use instead of the built-in one (also JUDGE_LANGUAGES).
    #[arg(long, global = true, value_name = "FILE")]
    languages: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Judge one solution: a verdict per test, time and memory, and where the output went wrong.
    Run(run::Args),
    /// Check problem packages and that every solution gets the verdict of its folder.
    Verify(verify::Args),
    /// Rebuild generated tests (tests.toml) and every answer from the reference solution.
    Gen(gen::Args),
    /// Search for an input on which a solution disagrees with the reference, and shrink it.
    Stress(stress::Args),
    /// Show a problem package as the judge reads it: format, limits and their sources, tests, checker.
    Inspect(inspect::Args),
    /// Create a new problem package that verifies at once.
    New(new::Args),
    /// Show which isolation layers are active on this machine, and how to enable the missing ones.
    Doctor(doctor::Args),
}

/// Runs the CLI and returns the exit status.
pub fn main() -> i32 {
    crate::interrupt::install();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::ERROR
            } else {
                exit::OK
            };
        }
    };
    // A closed stdout or stderr unwinds to here (see `report::stream`), so the destructors on
    // the way remove the work folders and stop the sandbox before the clean-up below.
    let languages = cli.languages.as_deref();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cli.command {
        Command::Run(args) => run::run(args, languages),
        Command::Verify(args) => verify::run(args, languages),
        Command::Doctor(args) => doctor::run(args, languages),
        Command::Gen(args) => gen::run(args, languages),
        Command::Stress(args) => stress::run(args, languages),
        Command::New(args) => new::run(args, languages),
        Command::Inspect(args) => inspect::run(args),
    }));
    crate::sandbox::finish();
    let code = match result {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            exit::ERROR
        }
        Err(payload) => match payload.downcast::<Gone>() {
            Ok(gone) if gone.is_closed() => exit::CLOSED,
            Ok(gone) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "error: cannot write to {}: {}",
                    gone.stream,
                    gone.error
                );
                exit::ERROR
            }
            // A bug: its message was printed by the panic hook; keep the usual status.
            Err(_) => 101,
        },
    };
    crate::interrupt::hold_exit();
    code
}

/// An engine with a fresh work folder that is removed when the session ends (also on Ctrl-C).
pub struct Session {
    pub engine: Engine,
    work: tempfile::TempDir,
}

impl Session {
    pub fn new(languages: Option<&std::path::Path>) -> anyhow::Result<Session> {
        let languages = Languages::load(languages)?;
        let work = tempfile::Builder::new().prefix("judge-").tempdir()?;
        crate::interrupt::register(work.path().to_path_buf());
        let sandbox = Sandbox::new()?;
        let engine = Engine::new(sandbox, languages, work.path().to_path_buf());
        Ok(Session { engine, work })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Removed before it is unregistered: an interruption in between must still find it.
        let _ = std::fs::remove_dir_all(self.work.path());
        crate::interrupt::unregister(self.work.path());
    }
}

/// Warns on stderr when runs are not fully isolated, and whether measurements are exact.
pub fn warn_isolation(sandbox: &Sandbox) {
    let layers = sandbox.layers();
    let missing: Vec<&str> = layers
        .iter()
        .filter(|l| !l.active)
        .map(|l| l.name.as_str())
        .collect();
    if missing.is_empty() {
        return;
    }
    let measured_exactly = layers
        .iter()
        .filter(|l| l.name.starts_with("cgroup"))
        .all(|l| l.active);
    let measurement = if measured_exactly {
        "time and memory are still measured exactly (per-run cgroup)"
    } else {
        "time and memory measurements are approximate (no per-run cgroup)"
    };
    crate::errln!(
        "warning: isolation is {:?} (missing: {}); hostile code is not contained; {measurement}. Run `judge doctor` for details.",
        sandbox.level(),
        missing.join(", ")
    );
}
