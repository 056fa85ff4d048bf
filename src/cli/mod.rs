//! Command-line interface: parses arguments and hands each subcommand to its module.
//! Exit statuses are a contract: see [`exit`].

mod completions;
mod doctor;
pub mod exit;
mod gen;
mod inspect;
mod new;
mod practice;
mod rejudge;
mod run;
mod serve;
mod status;
mod stress;
mod submit;
mod verify;
mod worker;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use judge_core::engine::Engine;
use judge_core::executor::LocalExecutor;
use judge_core::lang::Languages;
use judge_model::event::{Event, Reporter};
use judge_report::stream::Gone;
use judge_report::{ColourChoice, Format};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "judge",
    version,
    about = "A local online judge: build, run in a sandbox, check, report",
    after_help = format!("{TOP_EXAMPLES}\nEnvironment variables and exit statuses: judge --help"),
    after_long_help = format!("{TOP_EXAMPLES}\n{}\n{}", environment_help(), exit_help()),
)]
pub struct Cli {
    /// Language table to use instead of the built-in one (also JUDGE_LANGUAGES).
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    languages: Option<PathBuf>,
    /// When to colour the output (tables on stdout, status lines on stderr).
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: ColourChoice,
    /// Compile everything afresh: neither read nor fill the build cache (~/.cache/judge).
    #[arg(long, global = true)]
    no_cache: bool,
    /// Which Python runs .py programs, over the package's choice (default: PyPy for a Kattis
    /// package where installed, else CPython; problem.toml `python`)
    #[arg(long, global = true, value_name = "WHICH")]
    python: Option<PythonChoice>,
    #[command(subcommand)]
    command: Command,
}

/// `--python`: which Python runs `.py` programs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum PythonChoice {
    /// PyPy (`pypy3`), as Kattis runs Python
    Pypy,
    /// CPython (`python3`), as DOMjudge runs Python
    Cpython,
}

const TOP_EXAMPLES: &str = "\
Examples:
  judge run snake my.cpp                  judge one solution (stops at the first failing test)
  judge run snake my.cpp --test 'sample*' only the samples
  judge verify                            check every problem under ./problems
  judge new my-problem                    a starter package that verifies at once
  judge doctor                            which isolation layers are active
  judge practice --open                   a local practice page (competitive-companion, contests)
  judge completions bash > ~/.local/share/bash-completion/completions/judge
";

/// The environment variables the judge reads (top-level `--help`).
fn environment_help() -> String {
    "\
Environment:
  JUDGE_LANGUAGES=FILE         language table to use instead of the built-in one (as --languages)
  JUDGE_CGROUP_FAVORDYNMODS=1  let the judge switch on the kernel's cgroup favordynmods mode, so
                               runs start without waiting (kernel-wide until reboot; off unless 1)
  NO_COLOR                     set and not empty: no colour (--color auto)
  CLICOLOR_FORCE               set, not empty and not 0: colour even into a pipe (--color auto)
  CLICOLOR=0, TERM=dumb        no colour (--color auto)
  JUDGE_CACHE_DIR              the build cache folder; else $XDG_CACHE_HOME/judge, else
  XDG_CACHE_HOME               ~/.cache/judge (--no-cache: neither read nor fill it)
  JUDGE_CACHE_SIZE=SIZE        the build cache's bound (default 1G; 500M, 0 keeps nothing)
  TMPDIR                       where each session's work folder (judge-XXXXXX) goes; it is removed
                               when the judge ends, also on Ctrl-C
  XDG_DATA_HOME                judge practice's folder: $XDG_DATA_HOME/judge/practice, else
                               ~/.local/share/judge/practice (--dir DIR instead)
  JUDGE_TOKEN=T                judge submit SERVER / judge status: the API token (as --token)
  JUDGE_PRACTICE_TOKEN=T       judge practice's token instead of the folder's own (unlike --token,
                               not visible to other users in the process list)
  SUDO_UID, SUDO_GID           judge practice under sudo: the user as whom files given by path are
                               read, and whose home holds the folder (SUDO_USER)
"
    .to_string()
}

/// The exit statuses (top-level `--help`), from the constants of [`exit`].
fn exit_help() -> String {
    format!(
        "\
Exit status (every subcommand):
  {:<4} accepted; every expectation met; nothing found to complain about
  {:<4} rejected (WA PE TLE MLE OLE RE CE); an expectation of verify failed; stress found a
       failing input
  {:<4} judge error (a checker, validator, generator or reference failed), a broken package, or a
       usage error; beats 1 when verify finds both
  {:<4} stdout or stderr was closed by its reader (judge run ... | head -1)
  128+n interrupted by signal n (Ctrl-C: 130)
",
        exit::OK,
        exit::REJECTED,
        exit::ERROR,
        exit::CLOSED
    )
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Judge one solution: a verdict per test, time and memory, and where the output went wrong.
    #[command(after_help = "\
Examples:
  judge run snake my.cpp                 stop at the first failing test
  judge run snake my.cpp --all           judge every test
  judge run snake my.py --test 3 --test 7
  judge run snake my.rs --test 'sample*' tests whose names match (* ? [abc])
  judge run problems/snake my.cpp --json")]
    Run(run::Args),
    /// Check problem packages and that every solution gets the verdict of its folder.
    #[command(after_help = "\
Examples:
  judge verify                           every problem under ./problems
  judge verify snake huarong-road        these two (slugs under ./problems, or directories)
  judge verify path/to/problem --generator-time-limit 20
  judge verify -j 1                      one run at a time (default: one job per CPU)")]
    Verify(verify::Args),
    /// Rebuild generated tests (tests.toml) and every answer from the reference solution.
    #[command(after_help = "\
Examples:
  judge gen snake                        write what changed under problems/snake/tests
  judge gen path/to/problem --generator-time-limit 20")]
    Gen(gen::Args),
    /// Search for an input on which a solution disagrees with the reference, and shrink it.
    #[command(after_help = "\
Examples:
  judge stress snake my.rs --gen 'gen/random.py {seed} {size}' --out counter.in
  judge stress snake my.py --gen '{seed} {size}' --seconds 60
  judge stress snake fast.cpp --gen '{seed} 1000' --against slow.py")]
    Stress(stress::Args),
    /// Show a problem package as the judge reads it: format, limits and their sources, tests, checker.
    #[command(after_help = "\
Examples:
  judge inspect snake                    a native package under ./problems
  judge inspect path/to/kattis-problem   problem.yaml + data/, or a Polygon problem.xml
  judge inspect path/to/problem --json")]
    Inspect(inspect::Args),
    /// Create a new problem package that verifies at once.
    #[command(after_help = "\
Examples:
  judge new sum-demo                     problems/sum-demo + solutions/sum-demo/accepted/
  judge verify sum-demo                  passes at once")]
    New(new::Args),
    /// Show which isolation layers are active on this machine, and how to enable the missing ones.
    #[command(after_help = "\
Examples:
  judge doctor
  judge doctor --json")]
    Doctor(doctor::Args),
    /// Print a completion script for bash, zsh, fish, elvish or powershell on stdout.
    #[command(after_help = "\
Examples:
  judge completions bash > ~/.local/share/bash-completion/completions/judge
  judge completions zsh > ~/.zfunc/_judge    (with fpath+=(~/.zfunc) before compinit in ~/.zshrc)
  judge completions fish > ~/.config/fish/completions/judge.fish
  judge completions powershell >> $PROFILE
  source <(judge completions bash)           this shell only")]
    Completions(completions::Args),
    /// Serve a local practice page: problems from competitive-companion, live verdicts, history, virtual contests.
    #[command(after_help = "\
Examples:
  judge practice                          page on 127.0.0.1:27180, competitive-companion on 27181
  judge practice --open                   also open the page in the browser
  judge practice --dir ~/cp --port 8080 --cc-port 8081 --jobs 2
  judge practice --rotate-token           a new token: browsers that had the old one are locked out
  judge practice --token my-long-secret-token")]
    Practice(practice::Args),
    /// Judge submissions from the service's PostgreSQL queue until stopped.
    #[command(after_help = "\
Examples:
  judge worker --db 'host=/run/postgresql dbname=judge'
  judge worker --db postgresql://judge@db.example/judge --slots 2 --lease 10
  judge worker --db postgresql://judge@db.example/judge --name room-3-pc-12")]
    Worker(worker::Args),
    /// Submit a source to judge serve (or queue it in the database with --db) and print its id.
    #[command(after_help = "\
Examples:
  judge submit http://judge.example:8080 sum sum.cpp --wait      (the token in JUDGE_TOKEN)
  judge submit http://judge.example:8080 sum sum.cpp --token T   prints the submission's id
  judge submit --db 'host=/run/postgresql dbname=judge' problems/sum sum.cpp")]
    Submit(submit::Args),
    /// Serve the service's HTTP API (submissions, problems, results) over its database.
    #[command(after_help = "\
Examples:
  judge serve --db 'host=/run/postgresql dbname=judge'          prints an organiser token
  judge serve --db postgresql://judge@db.example/judge --listen 0.0.0.0:8080 --tokens tokens.txt")]
    Serve(serve::Args),
    /// Judge submissions of judge serve again into a shadow set; show its verdict matrix, apply or cancel it.
    #[command(after_help = "\
Examples:
  judge rejudge http://judge.example:8080 --problem sum --wait      judge sum's submissions again; the matrix
  judge rejudge http://judge.example:8080 --stale --list            the results whose inputs changed, and why
  judge rejudge http://judge.example:8080 --stale --apply           rejudge those and publish the new results
  judge rejudge http://judge.example:8080 --verdict TLE --repeat 5  each TLE five times: the spread
  judge rejudge http://judge.example:8080 3 --apply                 publish set 3 (once judged)
  judge rejudge http://judge.example:8080 3 --cancel                drop set 3")]
    Rejudge(rejudge::Args),
    /// Show a submission's result from judge serve, or the submissions.
    #[command(after_help = "\
Examples:
  judge status http://judge.example:8080            the submissions (the token in JUDGE_TOKEN)
  judge status http://judge.example:8080 7 --wait   submission 7, once judged")]
    Status(status::Args),
}

/// `--color WHEN` as given on the command line, read before clap parses the rest, so that
/// clap's own help and errors follow it too. The last one wins; a bad value is left to clap.
fn colour_flag(args: &[OsString]) -> Option<ColourChoice> {
    use clap::ValueEnum;
    let mut found = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            Some("--") => break,
            Some("--color") => words.next().flatten(),
            Some(w) => w.strip_prefix("--color="),
            None => None,
        };
        if let Some(choice) = value.and_then(|v| ColourChoice::from_str(v, false).ok()) {
            found = Some(choice);
        }
    }
    found
}

/// Parses the command line, with clap's messages coloured as `--color` says.
fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let flag = colour_flag(&args);
    judge_report::set_colour_choice(flag.unwrap_or_default());
    // Help goes to stdout and usage errors to stderr, which clap picks only later: colour them
    // when both streams would be coloured, by the same rule as everything else.
    let colour = judge_report::use_colour(&std::io::stdout())
        && judge_report::use_colour(&std::io::stderr());
    let mut command = Cli::command().color(if colour {
        clap::ColorChoice::Always
    } else {
        clap::ColorChoice::Never
    });
    let matches = command.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// Runs the CLI and returns the exit status.
pub fn main() -> i32 {
    judge_sandbox::interrupt::install();
    let cli = match parse(std::env::args_os().collect()) {
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
    judge_report::set_colour_choice(cli.color);
    let languages = cli.languages.as_deref();
    if let Some(python) = cli.python {
        judge_core::lang::choose_python_for_run(match python {
            PythonChoice::Pypy => judge_core::lang::Python::PyPy,
            PythonChoice::Cpython => judge_core::lang::Python::CPython,
        });
    }
    NO_CACHE.store(cli.no_cache, std::sync::atomic::Ordering::Relaxed);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cli.command {
        Command::Run(args) => run::run(args, languages),
        Command::Verify(args) => verify::run(args, languages),
        Command::Doctor(args) => doctor::run(args, languages),
        Command::Gen(args) => gen::run(args, languages),
        Command::Stress(args) => stress::run(args, languages),
        Command::New(args) => new::run(args, languages),
        Command::Inspect(args) => inspect::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Practice(args) => practice::run(args, languages),
        Command::Worker(args) => worker::run(args, languages),
        Command::Submit(args) => submit::run(args),
        Command::Serve(args) => serve::run(args, languages),
        Command::Status(args) => status::run(args),
        Command::Rejudge(args) => rejudge::run(args),
    }));
    judge_sandbox::finish();
    let code = match result {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {}", describe(&e));
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
    judge_sandbox::interrupt::hold_exit();
    code
}

/// An error and its causes, `: `-joined as `{:#}` writes them, but without a cause whose text
/// its error already shows (an error that wraps another with `"{0}"`): a message and its hint
/// are printed once.
fn describe(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}

/// Refuses a temporary folder under /dev, /proc or /sys: the sandbox gives every run its own in
/// their place, so a work folder there could not be shown to the runs (every run would end as a
/// judge error naming a read-only mount point).
fn check_work_parent(temp: &std::path::Path) -> anyhow::Result<()> {
    let real = std::fs::canonicalize(temp).unwrap_or_else(|_| temp.to_path_buf());
    for own in ["/dev", "/proc", "/sys"] {
        if real.starts_with(own) {
            anyhow::bail!(
                "the temporary folder {} (TMPDIR) is under {own}: every sandboxed run gets a {own} of its own, so it could not see its work folder there\n  hint: set TMPDIR to a folder outside /dev, /proc and /sys (a tmpfs mounted elsewhere is as fast)",
                temp.display()
            );
        }
    }
    Ok(())
}

/// `--no-cache` was given.
static NO_CACHE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Installs the build cache the environment names (unless `--no-cache`), once per process;
/// says on stderr why it is not used.
fn open_cache() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if NO_CACHE.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let (cache, warnings) = judge_core::build::cache::open_default();
        judge_core::build::cache::install(cache);
        for w in warnings {
            judge_report::errln!("warning: {w}");
        }
    });
}

/// An engine with a fresh work folder that is removed when the session ends (also on Ctrl-C;
/// held, so that the next judge removes it if this one is killed: see `crate::leftovers`).
/// With `--jobs N`, N − 1 more engines (`helpers`), each with its own sandbox worker, uid lease
/// and part of the work folder.
pub struct Session {
    pub engine: Engine,
    pub helpers: Vec<Engine>,
    work: judge_sandbox::leftovers::Held,
    /// The tmpfs on `work` (see [`Session::in_memory`]).
    memory: Option<judge_sandbox::memory_folder::MemoryFolder>,
    /// Why the work folder is on disk although [`Session::in_memory`] was asked for.
    pub on_disk: Option<String>,
}

impl Session {
    pub fn new(languages: Option<&std::path::Path>) -> anyhow::Result<Session> {
        Session::with_jobs(languages, 1)
    }

    /// A session of `jobs` engines (at least one).
    pub fn with_jobs(languages: Option<&std::path::Path>, jobs: usize) -> anyhow::Result<Session> {
        Session::make(languages, jobs, false)
    }

    /// A session of `jobs` engines whose work folder is a tmpfs seen by this thread, and by the
    /// threads and processes it starts from now on, alone (see `judge_sandbox::memory_folder`):
    /// a judging service's, which makes and removes files for every test. Without root, on
    /// disk (`on_disk` says why).
    pub fn in_memory(languages: Option<&std::path::Path>, jobs: usize) -> anyhow::Result<Session> {
        Session::make(languages, jobs, true)
    }

    fn make(
        languages: Option<&std::path::Path>,
        jobs: usize,
        in_memory: bool,
    ) -> anyhow::Result<Session> {
        let languages = Languages::load(languages)?;
        open_cache();
        let temp = std::env::temp_dir();
        check_work_parent(&temp)?;
        let work = judge_sandbox::leftovers::Held::make_temp(&temp, "judge-work-")?;
        let (memory, on_disk) = match in_memory {
            false => (None, None),
            true => match judge_sandbox::memory_folder::mount(work.path()) {
                Ok(m) => (Some(m), None),
                Err(why) => (None, Some(why)),
            },
        };
        judge_sandbox::interrupt::register(work.path().to_path_buf());
        let executor = LocalExecutor::new()?;
        let mut engine = Engine::new(executor, languages, work.path().to_path_buf());
        let helpers = judge_core::jobs::helpers(&mut engine, jobs, work.path())
            .map_err(anyhow::Error::msg)?;
        let session = Session {
            engine,
            helpers,
            work,
            memory,
            on_disk,
        };
        Ok(session)
    }

    /// Every engine, the first one first.
    pub fn engines(&mut self) -> Vec<&mut Engine> {
        std::iter::once(&mut self.engine)
            .chain(self.helpers.iter_mut())
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The engines' sandboxes stop before their folders go.
        self.helpers.clear();
        // Unmounted (freeing its files) and removed before it is unregistered: an
        // interruption in between must still find it.
        if let Some(memory) = self.memory.take() {
            let _ = memory.unmount();
        }
        let _ = std::fs::remove_dir_all(self.work.path());
        judge_sandbox::interrupt::unregister(self.work.path());
    }
}

/// `--jobs N` / `-j N`, for the subcommands that judge in parallel.
#[derive(Debug, clap::Args)]
pub struct JobsArgs {
    /// Judge N runs at a time, each job with its own sandbox (default: the number of CPUs; for
    /// `run` without --all, 1). A
    /// verdict within a factor 1.5 of the time limit (or TLE) judged beside other jobs is
    /// judged again alone; -j 1 runs everything alone.
    #[arg(long, short = 'j', value_name = "N", value_parser = parse_jobs)]
    jobs: Option<usize>,
}

impl JobsArgs {
    pub fn count(&self) -> usize {
        self.jobs.unwrap_or_else(judge_core::jobs::default_jobs)
    }

    /// The number given with --jobs, if any.
    pub fn given(&self) -> Option<usize> {
        self.jobs
    }
}

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least one job is needed (-j 1 judges one run at a time)".into()),
        Ok(n) if n > 64 => Err(format!(
            "{n} jobs is more than 64; each job is a sandbox worker"
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("`{text}` is not a number of jobs")),
    }
}

/// `--format` and its synonym `--json`, for the subcommands with reporters.
#[derive(Debug, clap::Args)]
pub struct FormatArgs {
    /// Output: human (a table; status and progress on stderr), json (one document at the end),
    /// jsonl (one event per line as it happens), junit (JUnit XML for CI).
    #[arg(long, value_enum, default_value_t = Format::Human, value_name = "FORMAT")]
    format: Format,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
}

impl FormatArgs {
    pub fn pick(&self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format
        }
    }
}

/// The first events of a subcommand: `started`, and a warning when runs are not fully isolated.
pub fn started(
    reporter: &mut dyn Reporter,
    command: &str,
    sandbox: &dyn judge_core::executor::Executor,
) {
    reporter.event(&Event::Started {
        command: command.to_string(),
        isolation: sandbox.level(),
    });
    if let Some(message) = isolation_warning(sandbox) {
        reporter.event(&Event::Warning {
            problem: None,
            message,
        });
    }
}

/// Warns on stderr when runs are not fully isolated, and whether measurements are exact.
pub fn warn_isolation(sandbox: &dyn judge_core::executor::Executor) {
    if let Some(message) = isolation_warning(sandbox) {
        judge_report::errln!("warning: {message}");
    }
}

/// Whether runs are not fully isolated, and whether measurements are exact.
pub fn isolation_warning(sandbox: &dyn judge_core::executor::Executor) -> Option<String> {
    let layers = sandbox.layers();
    let missing: Vec<&str> = layers
        .iter()
        .filter(|l| !l.active)
        .map(|l| l.name.as_str())
        .collect();
    if missing.is_empty() {
        return None;
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
    Some(format!(
        "isolation is {:?} (missing: {}); hostile code is not contained; {measurement}. Run `judge doctor` for details.",
        sandbox.level(),
        missing.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_wrapping_its_cause_with_its_text_shows_it_once() {
        /// As `#[error("{0}")] Package(#[from] PackageError)` does.
        #[derive(Debug)]
        struct Wraps(std::io::Error);
        impl std::fmt::Display for Wraps {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
        impl std::error::Error for Wraps {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let cause = std::io::Error::other("the folder holds no source file\n  hint: add one");
        let e = anyhow::Error::from(Wraps(cause));
        assert_eq!(
            describe(&e),
            "the folder holds no source file\n  hint: add one"
        );
        // A cause that adds something is kept, as `{:#}` keeps it.
        let e = anyhow::Error::from(std::io::Error::other("denied")).context("cannot read x");
        assert_eq!(describe(&e), "cannot read x: denied");
    }

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn every_subcommand_help_shows_examples() {
        let mut cli = Cli::command();
        for sub in cli.get_subcommands_mut() {
            let help = sub.render_long_help().to_string();
            assert!(
                help.contains("Examples:\n  judge "),
                "{}: no examples in\n{help}",
                sub.get_name()
            );
        }
    }

    #[test]
    fn the_top_level_help_lists_environment_variables_and_exit_statuses() {
        let help = Cli::command().render_long_help().to_string();
        for var in [
            "JUDGE_LANGUAGES",
            "JUDGE_CGROUP_FAVORDYNMODS",
            "NO_COLOR",
            "CLICOLOR_FORCE",
            "CLICOLOR=0",
            "JUDGE_CACHE_DIR",
            "XDG_CACHE_HOME",
            "JUDGE_CACHE_SIZE",
            "TMPDIR",
        ] {
            assert!(help.contains(&format!("\n  {var}")), "no {var} in\n{help}");
        }
        for status in [exit::OK, exit::REJECTED, exit::ERROR, exit::CLOSED] {
            assert!(
                help.contains(&format!("\n  {status:<4} ")),
                "no exit status {status} in\n{help}"
            );
        }
        let short = Cli::command().render_help().to_string();
        assert!(short.contains("Examples:"), "{short}");
        assert!(short.contains("judge --help"), "{short}");
    }

    #[test]
    fn the_color_flag_is_read_before_parsing_wherever_it_is() {
        assert_eq!(colour_flag(&words("judge run a b")), None);
        assert_eq!(
            colour_flag(&words("judge --color never run a b")),
            Some(ColourChoice::Never)
        );
        assert_eq!(
            colour_flag(&words("judge run a b --color=always")),
            Some(ColourChoice::Always)
        );
        assert_eq!(
            colour_flag(&words("judge --color=never run --color auto")),
            Some(ColourChoice::Auto)
        );
        assert_eq!(colour_flag(&words("judge run --color bogus")), None);
        assert_eq!(colour_flag(&words("judge run -- --color never")), None);
        let cli = parse(words("judge run a b --color never --test 1 --test 'x*'")).unwrap();
        assert_eq!(cli.color, ColourChoice::Never);
    }
}
