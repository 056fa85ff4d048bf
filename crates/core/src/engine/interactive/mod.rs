//! Interactive problems: the solution talks to the package's interactor through two pipes, each
//! program in a sandbox of its own (the engine's, and a second one made at the first interactive
//! test), each under its own limits and measured alone.
//!
//! - Kattis protocol: `interactor input answer feedback_dir/ [args]`; its stdout is the
//!   solution's stdin and the solution's stdout its stdin; exit 42 accepts, 43 rejects, anything
//!   else is a judge error.
//! - testlib protocol (Polygon, or native `protocol = "testlib"`): `interactor input tout answer`
//!   with the same pipes; exit 0 then the problem's checker checks `tout`, 1 WA, 2 PE, 3 fail.
//!
//! The verdict follows DOMjudge: an interactor that ends first with a rejection beats whatever
//! the solution does then (it is killed); an interactor that ends first with a failure is a judge
//! error; otherwise the solution's TLE, RE, MLE, OLE, and then the interactor's verdict. The
//! solution's limits are the problem's, with twice the wall limit the judge chose for a Kattis or
//! Polygon package (an idle solution is stopped at its wall limit: TLE); the
//! interactor has its own, whose wall-clock cap runs past the solution's: exceeding them is a
//! judge error, never AC.
//!
//! The two sandboxes are joined by direct pipes (no thread of the judge carries a message);
//! the judge keeps a copy of three pipe ends (`executor/direct.rs`). By polling its copy of the
//! read end of the interactor's output for a hang-up as the solution's run ends (before the
//! solution's end of output is passed on), it knows which program closed its output first,
//! which decides the precedence above where the two end within microseconds of each other (an
//! interactor rejecting and the solution failing to read, or a solution crashing and the
//! interactor failing to read): the solution can only read the interactor's end once it has
//! happened. Its copy of the solution's output passes that end on only once the solution has
//! ended (as BAPCtools does), so a solution that closes its output and then crashes is RE, not
//! the interactor's WA. What a program writes after its partner ended is read and dropped by
//! the judge, never a broken pipe. With `judge run --transcript` the judge relays the pipes
//! instead (two threads, one each way, as DOMjudge's runpipe does) and keeps the exchange (up
//! to [`TRANSCRIPT_CAP`] bytes each way), with the same rules; each message then takes one more
//! hop through the judge, which adds wall-clock time and no CPU time to either program.

use crate::build::{self, Artifact};
use crate::checker::{self, first_line, last_line, Judgement};
use crate::engine::{solution_limits, Checker, Engine, EngineError};
use crate::executor::{Pair, PairOutcome};
use crate::package::{PackageError, Problem, Protocol, TestCase};
use crate::verdict::classify_run;
use judge_model::result::TestResult;
use judge_model::Verdict;
use judge_sandbox::termination_text;
use judge_sandbox::{Limits, RunOutcome, RunSpec, SandboxError, Termination};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[cfg(test)]
mod pair_tests;
mod passes;
mod sample;
#[cfg(test)]
mod tests;

pub use judge_model::transcript::{render, From, Transcript, TRANSCRIPT_CAP, TRANSCRIPT_LINES};
use sample::attach_sample;
pub use sample::{check_samples, marked_lines, read_interaction, ExchangeLine};

/// Stderr kept from each program.
const STDERR_CAP: u64 = 64 * 1024;

/// A built interactor, and the checker of what it writes (testlib protocol).
pub struct Interactor {
    pub artifact: Artifact,
    pub protocol: Protocol,
    pub source: PathBuf,
    pub checker: Checker,
}

/// The engine's part for interactive problems: whether to record the exchanges.
#[derive(Default)]
pub struct Partner {
    /// Relay the pipes through the judge and keep the exchange in each test's result (without
    /// it, the pipes join the two sandboxes directly).
    pub record: bool,
}

/// Builds the problem's interactor when it has one; `checker` then checks what it writes.
pub fn prepare(
    engine: &mut Engine,
    problem: &Problem,
    checker: Checker,
) -> Result<Checker, EngineError> {
    let Some(program) = &problem.interactor else {
        return Ok(checker);
    };
    if !engine.sandbox.private_scratch() {
        // The layer that says why there is no sandbox worker.
        let why = engine
            .sandbox
            .layers()
            .into_iter()
            .find(|l| !l.active && l.name == "pid namespace")
            .map(|l| l.detail)
            .unwrap_or_else(|| "no sandbox worker".into());
        return Err(EngineError::Package(
            PackageError::new(
                problem.dir.join(problem.format.main_file()),
                format!(
                    "{} is interactive: the solution and the interactor run side by side, each in a sandbox of its own, which needs the full sandbox (its worker, with PID and mount namespaces); here programs run as plain processes ({why})",
                    problem.slug
                ),
            )
            .hint("run the judge as root, or where user namespaces are allowed (`judge doctor` says what is missing)"),
        ));
    }
    match engine.build_program_with(program, &problem.constants)? {
        (Some(artifact), _) => Ok(Checker::Interactive(Box::new(Interactor {
            artifact,
            protocol: program.protocol,
            source: program.source.clone(),
            checker,
        }))),
        (None, report) => Err(EngineError::Package(
            PackageError::new(
                &program.source,
                format!("the interactor does not compile:\n{}", report.message),
            )
            .hint("fix the interactor; no verdict can be trusted without it"),
        )),
    }
}

/// The interactor's command line for one test: `input answer feedback_dir/ [args]` (Kattis) or
/// `input tout answer` (testlib, `tout` in the feedback folder).
pub(crate) fn interactor_args(
    interactor: &Interactor,
    problem: &Problem,
    test: &TestCase,
    input: &Path,
    answer: &Path,
    feedback: &Path,
) -> Vec<OsString> {
    let mut args = crate::engine::run_args(&interactor.artifact, &interactor_limits(problem));
    match interactor.protocol {
        Protocol::Kattis => {
            let mut dir = feedback.as_os_str().to_os_string();
            dir.push("/");
            args.extend([input.into(), answer.into(), dir]);
            args.extend(test.checker_args.iter().map(OsString::from));
        }
        Protocol::Testlib => {
            args.extend([input.into(), feedback.join("tout").into(), answer.into()]);
        }
    }
    args
}

/// The solution's limits in an interactive test: the problem's, with twice its wall-clock
/// limit where the judge chose that limit (Kattis and Polygon state none): the solution waits
/// while the interactor computes (and with `--transcript` each message passes through the
/// relay), so a long exchange takes several times its CPU time on a busy machine. A native package's own wall
/// limit holds as written.
pub fn interactive_solution_limits(problem: &Problem) -> Limits {
    let mut limits = solution_limits(problem);
    if problem.format != crate::package::Format::Native {
        limits.wall *= 2;
    }
    limits
}

/// The interactor's limits: generous memory, and CPU and wall-clock time up to the solution's
/// wall-clock limit plus as much again as its time limit (at least a second), so that it
/// outlives the solution by that much before it counts as hanging.
pub fn interactor_limits(problem: &Problem) -> Limits {
    let solution = interactive_solution_limits(problem);
    let cap = solution.wall + solution.cpu.max(Duration::from_secs(1));
    Limits {
        cpu: cap,
        wall: cap,
        memory: 2 << 30,
        stack: 1 << 30,
        output: 1 << 30,
        stderr: STDERR_CAP,
        processes: 64,
    }
}

/// What the interactor decided, from how it ended: `Err` is a judge error.
fn interactor_says(
    run: &RunOutcome,
    protocol: Protocol,
    message: &str,
    cap: Duration,
) -> Result<checker::Outcome, String> {
    if run.wall_limit_exceeded {
        return Err(format!(
            "the interactor did not end within its wall-clock cap of {:.1} s",
            cap.as_secs_f64()
        ));
    }
    if run.cpu_limit_exceeded || run.memory_limit_exceeded {
        return Err(format!(
            "the interactor exceeded its limits ({})",
            if run.cpu_limit_exceeded {
                "CPU time"
            } else {
                "memory"
            }
        ));
    }
    let code = match run.termination {
        Termination::Exited(c) => Some(c),
        Termination::Signaled(_) => None,
    };
    let how = termination_text(run.termination);
    match protocol {
        Protocol::Kattis => checker::kattis_exit(code, message)
            .map_err(|why| format!("interactor failure ({how}): {why}")),
        Protocol::Testlib => {
            let judgement = match code {
                Some(0) => Judgement::Accepted,
                Some(1) => Judgement::WrongAnswer,
                Some(2) => Judgement::PresentationError,
                Some(3) => return Err(format!("the interactor reports a failure: {message}")),
                _ => {
                    return Err(format!(
                        "the interactor ended with {how} (testlib: 0 OK, 1 WA, 2 PE, 3 fail): {message}"
                    ))
                }
            };
            Ok(checker::Outcome {
                judgement,
                message: message.to_string(),
                mismatch: None,
                score: None,
            })
        }
    }
}

/// Whether the interactor's exit lets the solution go on (it accepted, or said OK and leaves the
/// verdict to the checker).
fn interactor_accepts(run: &RunOutcome, protocol: Protocol) -> bool {
    let ok = match protocol {
        Protocol::Kattis => 42,
        Protocol::Testlib => 0,
    };
    run.termination == Termination::Exited(ok)
        && !(run.cpu_limit_exceeded || run.wall_limit_exceeded || run.memory_limit_exceeded)
}

/// Whether the interactor ended before the solution. Who closed its output first, as the
/// judge saw it (`closed`: interactor, solution), is exact for a program that ended by itself:
/// the solution's end of output is passed on only after the judge noted it, and the judge
/// looks for the end of the interactor's output before that (direct pipes) or notes it before
/// passing it on (the relay). A program the judge killed because the other one ended was still
/// running then, whatever the judge saw (its output closes only when its run's init is gone,
/// which can be after the other's). Without either, the order the sandbox saw them end in
/// (`order`: 0 the solution, 1 the interactor).
pub fn partner_ended_first(
    solution: &RunOutcome,
    partner: &RunOutcome,
    closed: [Option<Instant>; 2],
    order: &[usize],
) -> bool {
    if killed_for_partner(solution) {
        return true;
    }
    if killed_for_partner(partner) {
        return false;
    }
    match closed {
        [Some(partner), Some(solution)] => partner < solution,
        [Some(_), None] => true,
        [None, Some(_)] => false,
        [None, None] => order.first() == Some(&1),
    }
}

/// Killed by the judge, not at a limit: stopped because its partner ended.
fn killed_for_partner(run: &RunOutcome) -> bool {
    run.termination == Termination::Signaled(libc::SIGKILL)
        && !(run.cpu_limit_exceeded || run.wall_limit_exceeded || run.memory_limit_exceeded)
}

/// A solution run that ended badly (its partner need not go on).
fn ended_badly(run: &RunOutcome) -> bool {
    classify_run(run, u64::MAX).is_some() || run.memory_limit_exceeded
}

/// The verdict of one interactive test before the checker, from both outcomes.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// The verdict and its message.
    Verdict(Verdict, String),
    /// The interactor accepted with the testlib protocol: the checker decides on `tout`.
    Check,
}

/// DOMjudge's precedence for interactive runs (see the module's documentation).
pub fn decide(
    solution: &RunOutcome,
    interactor: Result<checker::Outcome, String>,
    interactor_first: bool,
    memory_limit: u64,
    protocol: Protocol,
) -> Decision {
    if interactor_first {
        match &interactor {
            Err(why) => return Decision::Verdict(Verdict::JE, why.clone()),
            Ok(o) if o.judgement != Judgement::Accepted => {
                return Decision::Verdict(
                    o.judgement.verdict(),
                    with_prefix("interactor", &o.message),
                )
            }
            Ok(_) => {}
        }
    }
    if let Some((verdict, message)) = classify_run(solution, memory_limit) {
        return Decision::Verdict(verdict, message);
    }
    match interactor {
        Ok(o) if o.judgement == Judgement::Accepted => match protocol {
            Protocol::Kattis => Decision::Verdict(Verdict::AC, o.message),
            Protocol::Testlib => Decision::Check,
        },
        Ok(o) => Decision::Verdict(o.judgement.verdict(), with_prefix("interactor", &o.message)),
        Err(why) => Decision::Verdict(Verdict::JE, why),
    }
}

fn with_prefix(who: &str, message: &str) -> String {
    if message.is_empty() {
        format!("the {who} rejected the exchange")
    } else {
        format!("{who}: {message}")
    }
}

/// Runs one interactive test; `result` comes with the test's name and a JE verdict. A
/// multi-pass problem's test runs again on each `nextpass.in` the interactor writes (see
/// [`passes`]).
pub fn run_test(
    engine: &mut Engine,
    problem: &Problem,
    interactor: &Interactor,
    artifact: &Artifact,
    test: &TestCase,
    mut result: TestResult,
) -> TestResult {
    let work = match engine.fresh_dir("interactive") {
        Ok(d) => d,
        Err(e) => {
            result.message = format!("could not prepare the run: {e}");
            return result;
        }
    };
    let feedback = work.join("feedback");
    let judged = match std::fs::create_dir(&feedback) {
        Err(e) => Err(format!("could not create the interactor's folder: {e}")),
        Ok(()) => match problem.passes {
            Some(passes) => {
                let pass = |engine: &mut Engine, input: &Path, result: &mut TestResult| {
                    judge_pair(
                        engine,
                        problem,
                        interactor,
                        artifact,
                        test,
                        input,
                        (&work, &feedback),
                        result,
                    )
                };
                passes::run(engine, pass, test, &work, &feedback, passes, &mut result)
            }
            None => judge_pair(
                engine,
                problem,
                interactor,
                artifact,
                test,
                &absolute(&test.input),
                (&work, &feedback),
                &mut result,
            ),
        },
    };
    if let Err(e) = judged {
        result.verdict = Verdict::JE;
        result.message = e;
    }
    attach_sample(&mut result, test);
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// One exchange between the solution and the interactor on `input` (the test's, or a pass's
/// `nextpass.in`), in `work` with the interactor's feedback folder `feedback`.
#[allow(clippy::too_many_arguments)]
fn judge_pair(
    engine: &mut Engine,
    problem: &Problem,
    interactor: &Interactor,
    artifact: &Artifact,
    test: &TestCase,
    input: &Path,
    (work, feedback): (&Path, &Path),
    result: &mut TestResult,
) -> Result<(), String> {
    let specs = pair_specs(
        engine, problem, interactor, artifact, test, input, work, feedback,
    )?;
    let ended = run_both(engine, &specs, interactor.protocol)?;
    if let Some(transcript) = ended.transcript {
        result.transcript = Some(Box::new(transcript));
    }
    let (solution_run, partner_run, partner_first) =
        (ended.solution, ended.partner, ended.partner_first);
    let memory_limit = specs[0].limits.memory;
    let wall_cap = specs[1].limits.wall;
    let protocol = interactor.protocol;
    let (input, answer, tout) = (
        input.to_path_buf(),
        absolute(&test.answer),
        feedback.join("tout"),
    );
    result.time = solution_run.cpu_time;
    result.wall = solution_run.wall_time;
    result.memory = solution_run.peak_memory;
    // Its stdout went to the interactor (the exchange is the transcript); its stderr is its own.
    result.stderr = Some(crate::engine::capture_tail(
        &work.join("solution.err"),
        judge_model::Captured::CAP,
    ));

    let stderr = build::read_capped(&work.join("interactor.err"), STDERR_CAP as usize);
    // judgemessage.txt's first line; else stderr's last (progress first, the reason last).
    let message = match protocol {
        Protocol::Kattis => {
            let judge = build::read_capped(&feedback.join("judgemessage.txt"), STDERR_CAP as usize);
            first_line(&judge).or_else(|| last_line(&stderr))
        }
        Protocol::Testlib => last_line(&stderr),
    }
    .unwrap_or_default();
    let mut says = interactor_says(&partner_run, protocol, &message, wall_cap);
    // An interactor that exited after a traceback, panic or abort crashed, whatever its exit
    // code says under its protocol (testlib's 1 is WA); a signal already is a judge error.
    let limited = partner_run.cpu_limit_exceeded
        || partner_run.wall_limit_exceeded
        || partner_run.memory_limit_exceeded;
    if let (Termination::Exited(_), false) = (partner_run.termination, limited) {
        let source = &interactor.source;
        let who = format!("the interactor `{}`", crate::engine::file_name(source));
        let named = build::name_source(&stderr, &interactor.artifact, source);
        if let Some(crash) = checker::crash::report(&who, partner_run.termination, &named) {
            says = Err(format!("interactor failure: {crash}"));
        }
    }
    // An interactor that wrote to a solution that had already ended (and closed its input):
    // the solution stopped listening, not a judge failure.
    if !partner_first && partner_run.termination == Termination::Signaled(libc::SIGPIPE) {
        says = Ok(checker::Outcome {
            judgement: Judgement::WrongAnswer,
            message: "the solution ended while the interactor was still writing to it".into(),
            mismatch: None,
            score: None,
        });
    }
    let waited =
        solution_run.wall_limit_exceeded && !solution_run.cpu_limit_exceeded && !partner_first;
    // The solution waited to its wall limit while the interactor computed: the interactor hung.
    // A waiting interactor uses next to no CPU time; one computing gets at least a quarter of
    // the wall time even on a machine busy with three other programs per core.
    if waited && partner_run.cpu_time * 4 > solution_run.wall_time {
        result.verdict = Verdict::JE;
        result.message = format!(
            "the interactor computed for {:.1} s without answering while the solution waited",
            partner_run.cpu_time.as_secs_f64()
        );
        return Ok(());
    }
    match decide(&solution_run, says, partner_first, memory_limit, protocol) {
        Decision::Verdict(Verdict::AC, message) => {
            // A scoring problem's interactor gives the test's score as an output validator does.
            result.checker_score = crate::engine::reported_score(feedback)?;
            result.verdict = Verdict::AC;
            result.message = message;
        }
        Decision::Verdict(verdict, mut message) => {
            if verdict == Verdict::TLE && waited {
                message.push_str(
                    "; the interactor had not ended either (both waiting for each other?)",
                );
            }
            if verdict == Verdict::RE {
                let err = build::read_capped(&work.join("solution.err"), 300);
                if let Some(line) = err.lines().rev().find(|l| !l.trim().is_empty()) {
                    message.push_str(&format!("; stderr: {}", line.trim()));
                }
            }
            result.verdict = verdict;
            result.message = message;
        }
        Decision::Check => {
            if !tout.is_file() {
                return Err(format!(
                    "the interactor said OK but wrote no {} for the checker",
                    tout.display()
                ));
            }
            let checked = engine.check_with(
                &interactor.checker,
                &input,
                &tout,
                &answer,
                &test.checker_args,
            )?;
            result.verdict = checked.judgement.verdict();
            result.message = checked.message;
            result.mismatch = checked.mismatch;
        }
    }
    Ok(())
}

/// The solution's and the interactor's runs of one exchange: the solution in the engine's
/// scratch folder under its interactive limits, the interactor in the feedback folder with the
/// test's input and answer readable.
#[allow(clippy::too_many_arguments)]
fn pair_specs(
    engine: &mut Engine,
    problem: &Problem,
    interactor: &Interactor,
    artifact: &Artifact,
    test: &TestCase,
    input: &Path,
    work: &Path,
    feedback: &Path,
) -> Result<[RunSpec; 2], String> {
    let solution_dir = match &engine.scratch {
        Some(d) => d.clone(),
        None => {
            let d = engine.fresh_dir("run").map_err(|e| e.to_string())?;
            engine.scratch = Some(d.clone());
            d
        }
    };
    let limits = interactive_solution_limits(problem);
    let solution = RunSpec {
        program: artifact.program.clone(),
        args: crate::engine::run_args(artifact, &limits),
        env: build::base_env(&solution_dir),
        workdir: solution_dir,
        scratch_workdir: true,
        stdin: None,
        stdout: work.join("solution.out"),
        stderr: work.join("solution.err"),
        readable: artifact.readable.clone(),
        limits,
    };
    let answer = absolute(&test.answer);
    let args = interactor_args(interactor, problem, test, input, &answer, feedback);
    let mut readable = interactor.artifact.readable.clone();
    readable.extend([input.to_path_buf(), answer]);
    let partner = RunSpec {
        program: interactor.artifact.program.clone(),
        args,
        env: build::base_env(feedback),
        workdir: feedback.to_path_buf(),
        scratch_workdir: false,
        stdin: None,
        stdout: work.join("interactor.out"),
        stderr: work.join("interactor.err"),
        readable,
        limits: interactor_limits(problem),
    };
    Ok([solution, partner])
}

/// How both runs of an exchange ended, and which ended first.
struct Ended {
    solution: RunOutcome,
    partner: RunOutcome,
    /// The interactor ended before the solution ([`partner_ended_first`]).
    partner_first: bool,
    transcript: Option<Transcript>,
}

/// Runs the solution and the interactor as a pair (holding the jobs' gate like any run): a
/// solution that ends badly, or an interactor that does not accept, ends the other.
fn run_both(
    engine: &mut Engine,
    specs: &[RunSpec; 2],
    protocol: Protocol,
) -> Result<Ended, String> {
    let stop_other = |i: usize, o: &RunOutcome| {
        if i == 0 {
            ended_badly(o)
        } else {
            !interactor_accepts(o, protocol)
        }
    };
    let gate = engine.gate.clone();
    let ticket = gate.as_deref().map(|g| g.enter(engine.exclusive));
    let ran = engine.sandbox.run_pair(&Pair {
        specs: [&specs[0], &specs[1]],
        record: engine.partner.record,
        stop_other: &stop_other,
    });
    let ran = match ran {
        Ok(r) => r,
        Err(e) => {
            drop(ticket);
            engine.sandbox_failed = true;
            return Err(format!(
                "could not start the solution and the interactor: {e}"
            ));
        }
    };
    engine.last_alone = ticket.is_none_or(|t| t.alone());
    let PairOutcome {
        outcomes: [solution, partner],
        order,
        closed: [solution_closed, partner_closed],
        transcript,
    } = ran;
    let failed = |who: &'static str| move |e: SandboxError| format!("could not run the {who}: {e}");
    let (solution, partner) = match (solution, partner) {
        (Ok(s), Ok(p)) => (s, p),
        (Err(e), _) => {
            engine.sandbox_failed = true;
            return Err(failed("solution")(e));
        }
        (_, Err(e)) => {
            engine.sandbox_failed = true;
            return Err(failed("interactor")(e));
        }
    };
    let partner_first = partner_ended_first(
        &solution,
        &partner,
        [partner_closed, solution_closed],
        &order,
    );
    Ok(Ended {
        solution,
        partner,
        partner_first,
        transcript,
    })
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
