//! `judge worker --db URL [--slots N] [--lease SECS] [--name NAME] [--cache DIR] [--no-pin]`: judges
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
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_lease)]
    lease: f64,
    /// This worker's name in the judgings (default: the host name and the process id).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Where packages are unpacked by hash and kept (default: JUDGE_CACHE_DIR/packages, else
    /// ~/.cache/judge/packages).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    cache: Option<PathBuf>,
    /// Let the kernel place each slot anywhere, instead of on a CPU of its own (taken while
    /// one is free on this machine; a slot's runs then never wait behind another slot's).
    #[arg(long)]
    no_pin: bool,
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

/// A lease: at least a tenth of a second (its heartbeat comes every third of it).
pub(super) fn parse_lease(text: &str) -> Result<f64, String> {
    match parse_secs(text)? {
        s if s >= 0.1 => Ok(s),
        _ => Err(format!(
            "`{text}` is too short a lease: at least 0.1 seconds (10 is the default)"
        )),
    }
}

/// The worker's lines on stderr, prefixed with its name.
pub(super) struct Stderr(pub String);

impl Log for Stderr {
    fn line(&self, line: &str) {
        judge_report::errln!("{}: {line}", self.0);
    }
}

pub(super) fn default_name() -> String {
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

/// A worker's slots: one engine each, sharing its options; `judge worker`'s and, in its own
/// process, `judge serve`'s.
pub(super) struct Slots {
    pub options: Options,
    name: String,
    session: Session,
}

impl Slots {
    /// `n` slots judging from `url` as `name`, each with a sandbox of its own; says the
    /// environment digest they claim with. `in_server`: in `judge serve`'s process (the only
    /// place a SQLite database is judged from: its notifications stay within a process).
    pub fn new(
        url: String,
        in_server: bool,
        name: String,
        n: usize,
        lease: Duration,
        languages: Option<&std::path::Path>,
        log: &dyn Log,
    ) -> anyhow::Result<Slots> {
        if judge_service::db::engine_of(&url) == judge_service::db::Engine::Sqlite && !in_server {
            anyhow::bail!(
                "{url}: a SQLite database is judged only by `judge serve --workers N`, in its own process\n  hint: for workers on other processes or machines, use PostgreSQL (--db postgresql://…)"
            );
        }
        // The engines (and their sandboxes) are made on this thread, which outlives the slots
        // and starts them: they share its mount namespace, where the work folder is a tmpfs.
        let session = Session::in_memory(languages, n)?;
        super::warn_isolation(&session.engine.sandbox);
        match &session.on_disk {
            None => log.line("work folder in memory (a tmpfs this process alone sees)"),
            Some(why) => log.line(&format!("work folder on disk: {why}")),
        }
        let environment = Environment::here(&session.engine.languages);
        log.line(&format!("environment digest {}", environment.digest));
        log.line(&format!("{n} slot(s), lease {} s", lease.as_secs_f64()));
        let options = Options {
            url,
            name: name.clone(),
            lease,
            retry_delay: Duration::from_secs(1),
            cache: default_cache(),
            environment: Some(environment),
            give_back: Arc::new(AtomicBool::new(false)),
            pin: true,
        };
        Ok(Slots {
            options,
            name,
            session,
        })
    }

    /// Judges until `stop` is set and the jobs under way are done (or given back).
    pub fn run(&mut self, log: &dyn Log, stop: &AtomicBool) {
        let engines = self.session.engines();
        let several = engines.len() > 1;
        std::thread::scope(|scope| {
            for (i, engine) in engines.into_iter().enumerate() {
                let worker = if several {
                    format!("{}#{}", self.name, i + 1)
                } else {
                    self.name.clone()
                };
                let options = &self.options;
                scope.spawn(move || worker::run_slot(options, &worker, engine, log, stop));
            }
        });
    }
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let name = args.name.unwrap_or_else(default_name);
    let log = Stderr(name.clone());
    let lease = Duration::from_secs_f64(args.lease);
    let mut slots = Slots::new(
        args.db,
        false,
        name.clone(),
        args.slots,
        lease,
        languages,
        &log,
    )?;
    slots.options.retry_delay = Duration::from_secs_f64(args.retry_delay);
    slots.options.pin = !args.no_pin;
    if let Some(cache) = args.cache {
        slots.options.cache = cache;
    }
    // SIGTERM (or Ctrl-C) once: no new claim, the jobs under way finish, then exit 0; twice:
    // those jobs are given back now (their runs killed); a third time: the usual clean-up.
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (stop, give_back, name) = (stop.clone(), slots.options.give_back.clone(), name.clone());
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
    slots.run(&log, &stop);
    log.line("stopped");
    Ok(super::exit::OK)
}
