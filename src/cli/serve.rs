//! `judge serve [--db URL] [--workers N] [--lease SECS] [--listen ADDR] [--tokens FILE] [--problems DIR] [--no-pin]`:
//! the service's HTTP API (`judge_service::http`) until stopped, with `--workers` slots judging
//! in this process (`super::worker::Slots`); without `--db`, everything is kept in a SQLite
//! file (`judge.sqlite` here) and one slot per CPU judges. With `--problems`, the packages of
//! a folder served and reloaded when they change (`judge_service::folder`).

use judge_service::http::{self, auth::Tokens};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service's database: a PostgreSQL URL or connection words (as `judge worker --db`),
    /// which workers on any machine share; or sqlite:PATH, a file only this process judges
    /// from. Default: sqlite:judge.sqlite, in the current folder.
    #[arg(long, value_name = "URL")]
    db: Option<String>,
    /// Submissions this process judges at a time (slots, each with its own sandbox). Default:
    /// one per CPU on SQLite; none on PostgreSQL, where `judge worker`s judge.
    #[arg(long, value_name = "N", value_parser = parse_workers)]
    workers: Option<usize>,
    /// The address to listen on (port 0: any free port; the one taken is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: String,
    /// The accepted tokens, one a line: ROLE TOKEN [NAME] (ROLE organiser or submitter).
    /// Without it, one organiser token is generated and printed.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    tokens: Option<PathBuf>,
    /// A folder of packages, each served as the problem named by its folder: loaded at start
    /// and again when its files change. One that does not load is reported and skipped.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    problems: Option<PathBuf>,
    /// Seconds a submission claimed by a --workers slot stays this process's without a
    /// heartbeat (renewed every third of it): how long a submission waits to be judged again
    /// after this process is killed mid-judging and started again.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = super::worker::parse_lease)]
    lease: f64,
    /// Let the kernel place each --workers slot anywhere, instead of on a CPU of its own
    /// (taken while one is free on this machine).
    #[arg(long)]
    no_pin: bool,
    /// Seconds between two looks at the --problems folder.
    #[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = super::worker::parse_secs, hide = true)]
    problems_poll: f64,
    /// Only workers of this environment digest (printed by each `judge worker` as it starts)
    /// claim submissions from now on; `none` lifts the pin. Kept in the database.
    #[arg(long, value_name = "DIGEST", value_parser = parse_digest)]
    pin_digest: Option<String>,
}

fn parse_workers(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 0..=64) => Ok(n),
        _ => Err(format!("`{text}` is not a number of workers from 0 to 64")),
    }
}

/// Where `judge serve` keeps everything without `--db`.
pub const DEFAULT_DB: &str = "sqlite:judge.sqlite";

fn parse_digest(text: &str) -> Result<String, String> {
    let hex = text.len() == 16 && text.chars().all(|c| c.is_ascii_hexdigit());
    if hex || text == "none" {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!(
            "`{text}` is not an environment digest: 16 hex digits, as `judge worker` prints it, or none"
        ))
    }
}

/// What the server says about its folder of packages, on stderr.
struct Stderr;

impl judge_service::worker::Log for Stderr {
    fn line(&self, line: &str) {
        judge_report::errln!("{line}");
    }
}

pub fn run(args: Args, languages_file: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let languages = judge_core::lang::Languages::load(languages_file)?;
    let db = args.db.clone().unwrap_or_else(|| DEFAULT_DB.to_string());
    let sqlite = judge_service::db::engine_of(&db) == judge_service::db::Engine::Sqlite;
    if args.db.is_none() {
        judge_report::errln!(
            "keeping everything in {} (SQLite; --db postgresql://… serves judge workers on other machines)",
            &DEFAULT_DB[judge_service::db::SQLITE.len()..]
        );
    }
    let workers = args.workers.unwrap_or(if sqlite {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        0
    });
    if sqlite && workers == 0 {
        judge_report::errln!(
            "warning: --workers 0 on a SQLite database: nothing judges the submissions\n  hint: judge workers on other machines need PostgreSQL (--db postgresql://…)"
        );
    }
    let tokens = match &args.tokens {
        Some(file) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let tokens =
                Tokens::parse(&text, &file.display().to_string()).map_err(anyhow::Error::msg)?;
            if tokens.is_empty() {
                anyhow::bail!(
                    "{}: no token in it\n  hint: each line is ROLE TOKEN [NAME]",
                    file.display()
                );
            }
            tokens
        }
        None => {
            let token = http::auth::random_token()?;
            judge_report::errln!("organiser token: {token}");
            Tokens::organiser(&token)
        }
    };
    let state = http::State::new(&db, tokens, languages)?;
    if let Some(digest) = &args.pin_digest {
        let mut client = judge_service::connect(&db)?;
        let pin = Some(digest.as_str()).filter(|d| *d != "none");
        judge_service::queue::set_pin(&mut client, pin)?;
        match pin {
            Some(d) => judge_report::errln!("only workers of environment digest {d} claim"),
            None => judge_report::errln!("any worker claims (no environment digest pinned)"),
        }
    }
    if let Some(dir) = &args.problems {
        let mut folder = judge_service::folder::Folder::new(dir);
        let mut client = judge_service::connect(&db)?;
        folder
            .sync(&mut client, &Stderr)
            .map_err(|e| anyhow::anyhow!("--problems: {e}"))?;
        drop(client);
        let (url, every) = (db.clone(), Duration::from_secs_f64(args.problems_poll));
        std::thread::spawn(move || folder.watch(&url, every, &Stderr, &AtomicBool::new(false)));
    }
    // The slots are made (their sandboxes ready) before the address is announced.
    let log = super::worker::Stderr(format!("serve-{}", super::worker::default_name()));
    let mut slots = match workers {
        0 => None,
        n => Some(super::worker::Slots::new(
            db.clone(),
            true,
            log.0.clone(),
            n,
            Duration::from_secs_f64(args.lease),
            languages_file,
            &log,
        )?),
    };
    if let Some(slots) = &mut slots {
        slots.options.pin = !args.no_pin;
    }
    let listener = std::net::TcpListener::bind(&args.listen)
        .map_err(|e| anyhow::anyhow!("listening on {}: {e}", args.listen))?;
    judge_report::errln!("listening on http://{}", listener.local_addr()?);
    // SIGTERM (or Ctrl-C) once: the requests under way are answered, event streams end, the
    // submissions being judged here are finished, exit 0; twice: those are given back (their
    // runs killed); three times: the usual clean-up and exit.
    let shutdown = http::Stop::new();
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (shutdown, stop) = (shutdown.clone(), stop.clone());
        let give_back = slots.as_ref().map(|s| s.options.give_back.clone());
        let signals = std::sync::atomic::AtomicUsize::new(0);
        judge_sandbox::interrupt::on_signal(move |_| {
            match signals.fetch_add(1, Ordering::SeqCst) {
                0 => {
                    judge_report::errln!("stopping: answering the requests under way");
                    shutdown.stop();
                    stop.store(true, Ordering::SeqCst);
                }
                1 if give_back.is_some() => {
                    judge_report::errln!(
                        "stopping now: the submissions being judged are given back"
                    );
                    if let Some(g) = &give_back {
                        g.store(true, Ordering::SeqCst);
                    }
                }
                _ => return false,
            }
            true
        });
    }
    std::thread::scope(|scope| {
        if let Some(slots) = slots.as_mut() {
            let (log, stop) = (&log, &*stop);
            scope.spawn(move || slots.run(log, stop));
        }
        let served = http::serve(listener, state, shutdown);
        // However the server ended, the slots end too (after the jobs under way).
        stop.store(true, Ordering::SeqCst);
        served
    })?;
    judge_report::errln!("stopped");
    Ok(super::exit::OK)
}
