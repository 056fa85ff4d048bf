//! `judge practice [--dir DIR] [--port P] [--cc-port Q] [--token T | --rotate-token] [--jobs N]
//! [--open]`: the local
//! practice server (`crate::practice`). Runs until interrupted (Ctrl-C: exit status 130).

use super::Session;
use judge_practice as practice;
use judge_practice::{self, access, contest};
use std::path::PathBuf;
use std::sync::Arc;

/// The page's port by default.
pub const DEFAULT_PORT: u16 = 27180;
/// competitive-companion's port by default: none of the ports other tools take (cph 27121,
/// CP Editor 10045, cpbooster 1327, Hightail 4244, Mind Sport 6174, acmX 10042, Caide 10043,
/// CHelper 4243).
pub const DEFAULT_CC_PORT: u16 = 27181;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where problems and the history live (default: $XDG_DATA_HOME/judge/practice, else
    /// ~/.local/share/judge/practice of the user who started the judge, through sudo too).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    dir: Option<PathBuf>,
    /// The page's and the API's port on 127.0.0.1 (0: any free port).
    #[arg(long, value_name = "P", default_value_t = DEFAULT_PORT)]
    port: u16,
    /// The port competitive-companion sends problems to (add it in the extension's options as a
    /// custom port; 0: any free port).
    #[arg(long, value_name = "Q", default_value_t = DEFAULT_CC_PORT)]
    cc_port: u16,
    /// The secret the page and the API need (default: JUDGE_PRACTICE_TOKEN, else the one kept
    /// in DIR/token, made at the first start).
    #[arg(long, value_name = "T")]
    token: Option<String>,
    /// Replace DIR/token by a new random token: the old one (and the cookies that carry it)
    /// are refused from now on.
    #[arg(long, conflicts_with = "token")]
    rotate_token: bool,
    /// Judge N submissions at a time, each on an engine with its own sandbox (default: the
    /// number of CPUs). A test within a factor 1.5 of its time limit (or TLE) judged beside
    /// another submission is judged again alone; -j 1 judges one at a time.
    #[arg(long, short = 'j', value_name = "N", value_parser = super::parse_jobs)]
    jobs: Option<usize>,
    /// Open the page in the browser (as the user who started the judge).
    #[arg(long)]
    open: bool,
    /// Tests only: read "now" (milliseconds since the epoch) from this file.
    #[arg(long, value_name = "FILE", hide = true)]
    clock_file: Option<PathBuf>,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = match args.dir.clone().or_else(practice::default_dir) {
        Some(d) => d,
        None => anyhow::bail!(
            "no folder for the practice problems: HOME and XDG_DATA_HOME are unset\n  hint: give one with --dir DIR"
        ),
    };
    // From the environment, other users cannot read it (a command line they can: `ps`).
    let from_env = std::env::var("JUDGE_PRACTICE_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    if args.rotate_token && from_env.is_some() {
        anyhow::bail!(
            "--rotate-token makes a new token, but JUDGE_PRACTICE_TOKEN gives one\n  hint: unset JUDGE_PRACTICE_TOKEN to rotate the folder's token"
        );
    }
    let token = match args.token.or(from_env) {
        Some(t) => {
            access::check_token(&t)
                .map_err(|e| anyhow::anyhow!("--token (or JUDGE_PRACTICE_TOKEN): {e}"))?;
            access::TokenSource::Given(t)
        }
        None => access::TokenSource::Saved {
            rotate: args.rotate_token,
        },
    };
    if args.port != 0 && args.port == args.cc_port {
        anyhow::bail!(
            "--port and --cc-port are both {}: the page and competitive-companion need a port each",
            args.port
        );
    }
    let listening = practice::bind(args.port, args.cc_port).map_err(anyhow::Error::msg)?;
    let port = listening.page.local_addr()?.port();
    let cc_port = listening.receiver.local_addr()?.port();
    let clock: Box<dyn contest::Clock> = match args.clock_file {
        Some(f) => Box::new(contest::FileClock(f)),
        None => Box::new(contest::SystemClock),
    };
    // Folders made here for the user (under their home) are theirs, not root's.
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(PathBuf::from)
        .collect();
    // One engine per submission judged at once.
    let jobs = args.jobs.unwrap_or_else(judge_core::jobs::default_jobs);
    let mut session = Session::with_jobs(languages, jobs)?;
    super::warn_isolation(&session.engine.sandbox);
    let state = practice::Practice::new(
        &dir,
        token,
        port,
        cc_port,
        clock,
        session.engine.languages.clone(),
    )
    .map_err(anyhow::Error::msg)?;
    give_to_user(&missing, &state.user);
    let url = format!("http://127.0.0.1:{port}/?token={}", state.token);
    judge_report::outln!("page: {url}");
    judge_report::outln!("competitive-companion port: {cc_port} (add it as a custom port in the extension's options)");
    judge_report::outln!("folder: {}", dir.display());
    let at_once = if jobs == 1 {
        "one submission at a time".to_string()
    } else {
        format!("{jobs} submissions at a time")
    };
    judge_report::outln!("judging: {at_once} (--jobs)");
    judge_report::outln!("Ctrl-C stops the server");
    if args.open {
        open_browser(&url);
    }
    practice::serve(Arc::new(state), listening, session.engines())
}

/// Gives the folders the judge made (`judge practice` runs as root) to the user who started it.
fn give_to_user(made: &[PathBuf], user: &practice::user::User) {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || user.uid == 0 {
        return;
    }
    for dir in made {
        let _ = std::os::unix::fs::chown(dir, Some(user.uid), Some(user.gid));
    }
}

/// Starts `xdg-open URL` as the user who started the judge (never a browser as root).
fn open_browser(url: &str) {
    use std::os::unix::process::CommandExt;
    let user = practice::user::User::invoking();
    let mut command = std::process::Command::new("xdg-open");
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        if user.uid == 0 {
            judge_report::errln!(
                "note: not opening a browser as root; open the address above yourself"
            );
            return;
        }
        command.uid(user.uid).gid(user.gid);
    }
    match command.spawn() {
        // Reaped on a thread of its own, so it leaves no zombie.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => judge_report::errln!(
            "note: cannot open a browser (xdg-open: {e}); open the address above yourself"
        ),
    }
}
