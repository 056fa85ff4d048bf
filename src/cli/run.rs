//! `judge run <PROBLEM> <SOURCE> [--all] [--test NAME]... [--transcript] [--show-output] [--format human|json|jsonl|junit]`,
//! and `judge run --interact <PROBLEM> <SOURCE> [--save FILE | --replay FILE]`: the manual
//! console of an interactive problem (`judge_core::engine::console`).

use super::{exit, Session};
use judge_core::engine::JudgeOptions;
use judge_core::judging;
use judge_core::package::{self, Problem};
use judge_core::setter::prepare::{prepare, Request};
use judge_model::event::Event;
use judge_model::Verdict;
use judge_report as report;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Problem package: a directory, or the slug of a folder under ./problems.
    problem: String,
    /// The solution's source file (.cpp .cc .c .rs .py .java), or a folder holding a multi-file one.
    source: PathBuf,
    /// Run every test instead of stopping at the first failure.
    #[arg(long)]
    all: bool,
    /// Judge only this test (its name without .in); repeat it, or give a quoted pattern with
    /// * ? [abc] (`--test 'sample*'`).
    #[arg(long = "test", value_name = "NAME")]
    tests: Vec<String>,
    /// Interactive problems: relay the exchange through the judge and show it for the failing
    /// test (its first lines, `<` judge to solution, `>` solution to judge).
    #[arg(long)]
    transcript: bool,
    /// Show what the failing test's program printed (its output and stderr, 4 KiB each) under
    /// its diff. A runtime error's last lines of stderr are shown without it.
    #[arg(long)]
    show_output: bool,
    /// Be the judge yourself (an interactive problem without an interactor): each line you type
    /// goes to the program's stdin, each of its lines is printed with its time since the start
    /// and `>` (stdout) or `!` (stderr); end of input (Ctrl-D) closes its stdin. CPU time and
    /// memory are the problem's; the wall clock is capped at 10 minutes, 5 without a line sent.
    #[arg(long, conflicts_with_all = ["all", "tests", "transcript", "show_output"])]
    interact: bool,
    /// With --interact: write the exchange to FILE as a Kattis `.interaction` sample (`<` the
    /// lines sent, `>` the lines received).
    #[arg(long, value_name = "FILE", requires = "interact")]
    save: Option<PathBuf>,
    /// With --interact: play FILE's exchange (an `.interaction` sample) back instead: its `<`
    /// lines are the program's input, and what it writes must be its `>` lines.
    #[arg(
        long,
        value_name = "FILE",
        requires = "interact",
        conflicts_with = "save"
    )]
    replay: Option<PathBuf>,
    #[command(flatten)]
    jobs: super::JobsArgs,
    #[command(flatten)]
    format: super::FormatArgs,
}

pub fn run(args: Args, languages: Option<&std::path::Path>) -> anyhow::Result<i32> {
    let dir = package::locate(&args.problem)?;
    let problem = Problem::load(&dir)?;
    if args.interact {
        return interact(&args, problem, languages);
    }
    // The selection is checked before anything starts (and sizes the jobs); `prepare` applies it.
    let selected = package::select_tests(&problem.dir, &problem.tests, &args.tests)?.len();
    if !args.source.is_file() && !args.source.is_dir() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file (or of a folder holding a multi-file solution)",
            args.source.display()
        );
    }
    let mut reporter =
        report::reporter_showing(args.format.pick(), report::Command::Run, args.show_output);
    // Without --all, one job unless asked: the run stops at the first failure, so tests judged
    // ahead would mostly be thrown away, and a TLE judged beside them would be judged again
    // alone (the verdict comes at the limit, not at twice the limit). More jobs than tests
    // would only start idle workers.
    let wanted = if args.all {
        args.jobs.count()
    } else {
        args.jobs.given().unwrap_or(1)
    };
    let jobs = wanted.min(selected).max(1);
    let mut session = Session::with_jobs(languages, jobs)?;
    super::started(&mut *reporter, "run", &session.engine.sandbox);
    let request = Request {
        tests: args.tests.clone(),
        transcript: args.transcript,
    };
    let mut engines = session.engines();
    let prepared = prepare(
        &mut engines,
        problem,
        &request,
        &args.source,
        &mut *reporter,
    )?;
    let options = JudgeOptions {
        all: args.all,
        ..Default::default()
    };
    let report = judging::judge_one(
        &mut engines,
        &prepared,
        &args.source,
        options,
        &mut *reporter,
    )?;
    let code = exit::for_verdict(report.verdict);
    let rejected = report.verdict != Verdict::AC && report.verdict != Verdict::JE;
    reporter.event(&Event::ProblemFinished {
        problem: prepared.problem.slug.clone(),
        findings: Vec::new(),
        advice: None,
        judge_errors: usize::from(report.verdict == Verdict::JE),
        failures: usize::from(rejected),
        package: None,
    });
    reporter.event(&Event::Finished { exit: code });
    Ok(code)
}

/// `--interact`: the console in a terminal (or through a pipe), or `--replay`.
fn interact(
    args: &Args,
    problem: Problem,
    languages: Option<&std::path::Path>,
) -> anyhow::Result<i32> {
    use judge_core::engine::console::{self, Input, Side};
    use std::io::{BufRead, IsTerminal, Write};
    if !args.source.is_file() && !args.source.is_dir() {
        anyhow::bail!(
            "{}: no such file\n  hint: give the path of your solution's source file",
            args.source.display()
        );
    }
    let replay = match &args.replay {
        Some(path) => Some(
            judge_core::engine::interactive::read_interaction(path).map_err(anyhow::Error::msg)?,
        ),
        None => None,
    };
    if let Some(path) = &args.save {
        // Checked before the session: a typo must not cost the exchange at its end.
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if parent.is_some_and(|p| !p.is_dir()) {
            anyhow::bail!(
                "{}: its folder does not exist\n  hint: give --save a file in an existing folder",
                path.display()
            );
        }
    }
    let mut session = Session::new(languages)?;
    let engine = &mut session.engine;
    let (artifact, report) = engine.build(&args.source)?;
    let Some(artifact) = artifact else {
        judge_report::errln!("{}", report.message);
        return Ok(exit::for_verdict(Verdict::CE));
    };
    if let Some(lines) = replay {
        return Ok(match engine.replay(&problem, &artifact, &lines)? {
            None => {
                judge_report::outln!("the program wrote the exchange's {} lines", lines.len());
                exit::OK
            }
            Some(why) => {
                judge_report::outln!("differs: {why}");
                exit::REJECTED
            }
        });
    }
    let echo = !std::io::stdin().is_terminal();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(Input::Line(line)).is_err() {
                return;
            }
        }
        let _ = tx.send(Input::Close);
        // The session ends with the program, not with the end of this input.
        std::thread::park();
    });
    let limits = console::console_limits(&problem);
    judge_report::errln!("{}: you are the judge; the program has {:.1} s of CPU time and {} MiB (Ctrl-D closes its input)",
        problem.slug,
        limits.cpu.as_secs_f64(),
        limits.memory >> 20
    );
    let mut out = judge_report::stream::stdout_shared();
    let cancel = judge_sandbox::Cancel::default();
    let ended = engine.console(&problem, &artifact, rx, cancel, &mut |line| {
        let mark = match line.side {
            Side::Sent if !echo => return,
            Side::Sent => '<',
            Side::Received => '>',
            Side::Stderr => '!',
        };
        let cut = if line.cut { " [cut]" } else { "" };
        let _ = writeln!(out, "[{:>6} ms] {mark} {}{cut}", line.at_ms, line.text);
        let _ = out.flush();
    })?;
    let o = &ended.outcome;
    let how = match (&ended.stopped, &ended.verdict) {
        (Some(why), _) => format!("stopped: {why}"),
        (None, Some((verdict, message))) => format!("{verdict}: {message}"),
        (None, None) => "exited with 0".into(),
    };
    judge_report::errln!(
        "{how} (CPU {} ms, wall {} ms, {} MiB)",
        o.cpu_time.as_millis(),
        o.wall_time.as_millis(),
        o.peak_memory >> 20
    );
    if let Some(path) = &args.save {
        let text = console::interaction_text(&ended.lines);
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("{}: cannot write the exchange: {e}", path.display()))?;
        judge_report::errln!("saved the exchange to {}", path.display());
    }
    Ok(match (&ended.stopped, &ended.verdict) {
        (None, None) => exit::OK,
        (None, Some((verdict, _))) => exit::for_verdict(*verdict),
        (Some(_), _) => exit::REJECTED,
    })
}
