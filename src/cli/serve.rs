//! `judge serve --db URL [--listen ADDR] [--tokens FILE] [--problems DIR]`: the service's
//! HTTP API (`judge_service::http`) until stopped; with `--problems`, the packages of a folder
//! served and reloaded when they change (`judge_service::folder`).

use judge_service::http::{self, auth::Tokens};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The service's PostgreSQL database (as `judge worker --db`).
    #[arg(long, value_name = "URL")]
    db: String,
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
    /// Seconds between two looks at the --problems folder.
    #[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = super::worker::parse_secs, hide = true)]
    problems_poll: f64,
    /// Only workers of this environment digest (printed by each `judge worker` as it starts)
    /// claim submissions from now on; `none` lifts the pin. Kept in the database.
    #[arg(long, value_name = "DIGEST", value_parser = parse_digest)]
    pin_digest: Option<String>,
}

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

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let languages = judge_core::lang::Languages::load(languages)?;
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
    let state = http::State::new(&args.db, tokens, languages)?;
    if let Some(digest) = &args.pin_digest {
        let mut client = judge_service::connect(&args.db)?;
        let pin = Some(digest.as_str()).filter(|d| *d != "none");
        judge_service::queue::set_pin(&mut client, pin)?;
        match pin {
            Some(d) => judge_report::errln!("only workers of environment digest {d} claim"),
            None => judge_report::errln!("any worker claims (no environment digest pinned)"),
        }
    }
    if let Some(dir) = &args.problems {
        let mut folder = judge_service::folder::Folder::new(dir);
        let mut client = judge_service::connect(&args.db)?;
        folder
            .sync(&mut client, &Stderr)
            .map_err(|e| anyhow::anyhow!("--problems: {e}"))?;
        drop(client);
        let (url, every) = (args.db.clone(), Duration::from_secs_f64(args.problems_poll));
        std::thread::spawn(move || folder.watch(&url, every, &Stderr, &AtomicBool::new(false)));
    }
    let listener = std::net::TcpListener::bind(&args.listen)
        .map_err(|e| anyhow::anyhow!("listening on {}: {e}", args.listen))?;
    judge_report::errln!("listening on http://{}", listener.local_addr()?);
    // SIGTERM (or Ctrl-C) once: the requests under way are answered, event streams end, exit
    // 0; twice: the usual clean-up and exit.
    let shutdown = http::Stop::new();
    {
        let shutdown = shutdown.clone();
        let signals = std::sync::atomic::AtomicUsize::new(0);
        judge_sandbox::interrupt::on_signal(move |_| {
            if signals.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
                return false;
            }
            judge_report::errln!("stopping: answering the requests under way");
            shutdown.stop();
            true
        });
    }
    http::serve(listener, state, shutdown)?;
    judge_report::errln!("stopped");
    Ok(super::exit::OK)
}
