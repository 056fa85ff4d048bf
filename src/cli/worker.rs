//! `judge worker --db URL [--slots N] [--lease SECS] [--name NAME] [--cache DIR]`: judges
//! submissions from the service's queue until stopped (`judge_service::worker`).

use super::Session;
use judge_service::digest::Environment;
use judge_service::worker::{self, Log, Options};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service's PostgreSQL database: a URL (postgresql://user@host/db) or connection words
    /// (host=/run/postgresql dbname=judge); a host that is a folder is a Unix socket.
    #[arg(long, value_name = "URL")]
    db: String,
    /// Submissions judged at a time, each with its own sandbox.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_slots)]
    slots: usize,
    /// Seconds a claimed job stays this worker's without a heartbeat (renewed every third of it).
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_secs)]
    lease: f64,
    /// This worker's name in the judgings (default: the host name and the process id).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Where packages are unpacked by hash and kept (default: JUDGE_CACHE_DIR/packages, else
    /// ~/.cache/judge/packages).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    cache: Option<PathBuf>,
    /// Tests only: seconds a requeued job waits per attempt made.
    #[arg(long, value_name = "SECS", default_value_t = 1.0, value_parser = parse_secs, hide = true)]
    retry_delay: f64,
}

fn parse_slots(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(format!("`{text}` is not a number of slots from 1 to 64")),
    }
}

pub(super) fn parse_secs(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
        _ => Err(format!("`{text}` is not a number of seconds")),
    }
}

/// The worker's lines on stderr, prefixed with its name.
struct Stderr(String);

impl Log for Stderr {
    fn line(&self, line: &str) {
        judge_report::errln!("{}: {line}", self.0);
    }
}

fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{}-{}", host.trim(), std::process::id())
}

fn default_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("JUDGE_CACHE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("packages");
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("judge").join("packages")
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let name = args.name.unwrap_or_else(default_name);
    let options = Options {
        url: args.db,
        name: name.clone(),
        lease: Duration::from_secs_f64(args.lease),
        retry_delay: Duration::from_secs_f64(args.retry_delay),
        cache: args.cache.unwrap_or_else(default_cache),
        environment: None,
        give_back: Arc::new(AtomicBool::new(false)),
    };
    // The engines (and their sandboxes) are made on this thread, which outlives the slots.
    let mut session = Session::with_jobs(languages, args.slots)?;
    super::warn_isolation(&session.engine.sandbox);
    let log = Stderr(name.clone());
    let environment = Environment::here(&session.engine.languages);
    log.line(&format!("environment digest {}", environment.digest));
    let options = Options {
        environment: Some(environment),
        ..options
    };
    log.line(&format!("{} slot(s), lease {} s", args.slots, args.lease));
    // SIGTERM (or Ctrl-C) once: no new claim, the jobs under way finish, then exit 0; twice:
    // those jobs are given back now (their runs killed); a third time: the usual clean-up.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (stop, give_back, name) = (stop.clone(), options.give_back.clone(), name.clone());
        let signals = AtomicUsize::new(0);
        judge_sandbox::interrupt::on_signal(move |_| {
            match signals.fetch_add(1, Ordering::SeqCst) {
                0 => {
                    judge_report::errln!(
                        "{name}: stopping: the jobs under way finish first (signal again to give them back now)"
                    );
                    stop.store(true, Ordering::SeqCst);
                }
                1 => {
                    judge_report::errln!("{name}: stopping now: the jobs under way are given back");
                    give_back.store(true, Ordering::SeqCst);
                }
                _ => return false,
            }
            true
        });
    }
    let several = args.slots > 1;
    std::thread::scope(|scope| {
        for (i, engine) in session.engines().into_iter().enumerate() {
            let worker = if several {
                format!("{name}#{}", i + 1)
            } else {
                name.clone()
            };
            let (options, log, stop) = (&options, &log, &*stop);
            scope.spawn(move || worker::run_slot(options, &worker, engine, log, stop));
        }
    });
    log.line("stopped");
    Ok(super::exit::OK)
}
