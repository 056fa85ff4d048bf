//! `judge worker`: a loop of claim → heartbeat → run → finish per slot, each step a function.
//!
//! A slot holds two connections (one for the job, one for its heartbeat) and an engine. While
//! it judges, a heartbeat thread renews the lease every lease/3; a heartbeat that updates
//! nothing means the job was taken from this worker (its lease expired: it froze or lost the
//! database): the engine's runs are killed at once (the sandbox's cancel flag) and nothing is
//! written. A lost connection is retried with a back-off; the job it held comes back through
//! the reaper if the lease runs out meanwhile. The engine's events are written as they happen
//! (`Publisher`) for `judge serve`'s event stream; the source is built in the language given
//! at submit time when there is one.

use crate::db::Db;
use crate::digest::Environment;
use crate::queue::{self, Claimed, Fence, Fenced, Final, TestRow};
use crate::{store, Error};
use judge_core::engine::{Engine, JudgeOptions};
use judge_core::judging::{self, Prepared};
use judge_core::package::Problem;
use judge_model::event::{Event, Reporter};
use judge_model::result::SubmissionReport;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The database (`judge worker --db`).
    pub url: String,
    /// This worker's name in the judgings (a slot adds `#N` when there are several).
    pub name: String,
    /// How long a claim holds a job without a heartbeat.
    pub lease: Duration,
    /// A requeued job waits this long × its attempts before it is claimed again.
    pub retry_delay: Duration,
    /// Where packages are unpacked, one folder per hash, reused.
    pub cache: PathBuf,
    /// What this worker judges with, recorded in each judging; claims only while no other
    /// digest is pinned. None: claims only while none is.
    pub environment: Option<Environment>,
    /// Set (a second SIGTERM): the jobs under way are given back at once (`release`), their
    /// runs killed; with `stop`, the slots end.
    pub give_back: Arc<AtomicBool>,
    /// Each slot runs on a CPU of its own while one is free on this machine
    /// (`Executor::take_cpu`); off: where the kernel puts it (`--no-pin`).
    pub pin: bool,
}

/// What a worker tells its operator (the CLI prints it on stderr).
pub trait Log: Sync {
    fn line(&self, line: &str);
}

/// The back-off between reconnection attempts: doubling from 100 ms up to 5 s.
fn backoff(failures: u32) -> Duration {
    Duration::from_millis(100u64.saturating_mul(1 << failures.min(6))).min(Duration::from_secs(5))
}

/// Connects, retrying with a back-off until it succeeds or `stop` is set.
pub fn connect_retrying(url: &str, log: &dyn Log, stop: &AtomicBool) -> Option<Db> {
    let mut failures = 0;
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match crate::connect(url) {
            Ok(client) => return Some(client),
            Err(e) => {
                if failures == 0 {
                    log.line(&format!("cannot reach the database ({e}); retrying"));
                }
                std::thread::sleep(backoff(failures));
                failures += 1;
            }
        }
    }
}

/// The job connection LISTENs on `judge_queued`, which wakes the slot when it waits for work.
fn listen(mut client: Db) -> Result<Db, Error> {
    client.listen(&[queue::QUEUED])?;
    Ok(client)
}

/// A new job connection in place of one that failed (listening, as the first was).
fn reconnect(url: &str) -> Result<Db, Error> {
    listen(crate::connect(url)?)
}

/// Runs one slot until `stop` is set: reap, claim, judge, finish; between jobs it waits for a
/// `judge_queued` notification (or polls every lease/3 at most 1 s, for back-offs and leases
/// ending).
pub fn run_slot(
    options: &Options,
    worker: &str,
    engine: &mut Engine,
    log: &dyn Log,
    stop: &AtomicBool,
) {
    // One submission at a time, its artifact dropped before the next build: every submission is
    // built in the same folder, so the sandbox's kept run inits serve the next one too.
    engine.reuse_build_folder = true;
    // Its own CPU, so that its runs (and the handoffs between this thread, the sandbox's worker
    // and the run) never wait behind another slot's: with two slots on two CPUs, a median of
    // 1.93× the submissions a second of one slot instead of 1.70× (docs/book/src/benchmarks.md).
    if options.pin {
        match engine.sandbox.take_cpu() {
            Ok(Some(cpu)) => log.line(&format!("{worker} runs on CPU {cpu}, a CPU of its own")),
            Ok(None) => log.line(&format!(
                "{worker} runs on any CPU: other slots of this machine hold every CPU"
            )),
            Err(e) => log.line(&format!("{worker} runs on any CPU: {e}")),
        }
    }
    let poll = (options.lease / 3).min(Duration::from_secs(1));
    let mut failures = 0;
    // The pin last seen while idle, to say once why this worker claims nothing.
    let mut pin: Option<String> = None;
    'connection: while !stop.load(Ordering::Relaxed) {
        let Some(client) = connect_retrying(&options.url, log, stop) else {
            return;
        };
        let Some(mut beat) = connect_retrying(&options.url, log, stop) else {
            return;
        };
        let mut client = match listen(client) {
            Ok(client) => client,
            Err(e) => {
                log.line(&format!("{e}; reconnecting"));
                continue;
            }
        };
        let registered = queue::register(
            &mut client,
            worker,
            options.environment.as_ref(),
            options.lease,
        );
        if let Err(e) = registered {
            log.line(&format!("{e}; reconnecting"));
            std::thread::sleep(backoff(failures));
            failures += 1;
            continue;
        }
        // Idle, the slot says it is alive at most once a second.
        let mut told = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let step = step(options, worker, engine, log, &mut client, &mut beat, stop);
            match step {
                Ok(true) => failures = 0,
                Ok(false) => {
                    let now = match queue::pinned(&mut client) {
                        Ok(now) => now,
                        Err(e) => {
                            log.line(&format!("{e}; reconnecting"));
                            continue 'connection;
                        }
                    };
                    if now != pin {
                        let mine = options.environment.as_ref().map(|e| e.digest.as_str());
                        match (&now, mine) {
                            (Some(d), m) if Some(d.as_str()) != m => log.line(&format!(
                                "the organiser pinned environment digest {d}; this worker's is {}: it claims nothing until they match",
                                m.unwrap_or("unknown")
                            )),
                            _ => log.line("this worker's environment may claim: claiming"),
                        }
                        pin = now;
                    }
                    if told.elapsed() >= Duration::from_secs(1) {
                        told = Instant::now();
                        if let Err(e) = queue::seen(&mut client, worker, "idle") {
                            log.line(&format!("{e}; reconnecting"));
                            continue 'connection;
                        }
                    }
                    // Nothing to claim: wait for a notification or the poll. A connection that
                    // died meanwhile (the database restarted) is made again now.
                    if let Err(e) = client.wait(poll) {
                        log.line(&format!("{e}; reconnecting"));
                        continue 'connection;
                    }
                    failures = 0;
                }
                Err(e) => {
                    log.line(&format!("{e}; reconnecting"));
                    std::thread::sleep(backoff(failures));
                    failures += 1;
                    continue 'connection;
                }
            }
        }
        let _ = queue::seen(&mut client, worker, "stopped");
    }
}

/// Whether this process's reaper is due: at its first turn, then every lease/3 (at most 1 s)
/// whichever slot turns, so an expired lease is found within that, without a reaper's
/// transaction before every claim of a busy worker.
fn reap_due(lease: Duration) -> bool {
    static LAST: Last = Last::new();
    LAST.due((lease / 3).min(Duration::from_secs(1)))
}

/// When a process-wide chore last ran, whichever slot ran it.
struct Last(std::sync::Mutex<Option<Instant>>);

impl Last {
    const fn new() -> Last {
        Last(std::sync::Mutex::new(None))
    }

    /// True (and the chore counted as run now) at the first call and once `every` has passed.
    fn due(&self, every: Duration) -> bool {
        let mut last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match *last {
            Some(at) if at.elapsed() < every => false,
            _ => {
                *last = Some(Instant::now());
                true
            }
        }
    }
}

/// Whether this process's pruning of old events is due: at its first turn, then every minute.
fn prune_due() -> bool {
    static LAST: Last = Last::new();
    LAST.due(Duration::from_secs(60))
}

/// One turn of the loop: the reaper when due, then one job if there is one (`Ok(false)`:
/// none).
pub fn step(
    options: &Options,
    worker: &str,
    engine: &mut Engine,
    log: &dyn Log,
    client: &mut Db,
    beat: &mut Db,
    stop: &AtomicBool,
) -> Result<bool, Error> {
    let reaped = if reap_due(options.lease) {
        if prune_due() {
            queue::prune_events(client, queue::EVENTS_KEPT)?;
        }
        queue::reap(client, options.retry_delay)?
    } else {
        Vec::new()
    };
    for r in reaped {
        let what = if r.failed {
            "judge error, its attempts are spent"
        } else {
            "requeued"
        };
        log.line(&format!(
            "job {} attempt {} of {}: lease expired, {what}",
            r.job, r.attempt, r.worker
        ));
    }
    let Some(job) = queue::claim_as(client, worker, options.lease, options.environment.as_ref())?
    else {
        return Ok(false);
    };
    crate::hooks::kill_point("claimed");
    log.line(&format!(
        "job {} attempt {}: submission {} ({})",
        job.fence.job, job.fence.attempt, job.submission, job.filename
    ));
    // Set by the heartbeat when the job was taken (`lost`) or is to be given back now: the
    // engine's runs are killed at once, and what is left of the judging goes by in moments
    // (each run killed as it starts).
    let cancel = Arc::new(AtomicBool::new(false));
    let lost = AtomicBool::new(false);
    engine.sandbox.set_cancel(Some(cancel.clone()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let outcome = std::thread::scope(|scope| {
        let flags = (&*cancel, &lost);
        let fence = &job.fence;
        scope.spawn(move || heartbeat_loop(options, fence, beat, &done_rx, flags, log, stop));
        let outcome = run(options, engine, client, &job, log);
        drop(done_tx);
        outcome
    });
    engine.sandbox.set_cancel(None);
    crate::hooks::kill_point("judged");
    if lost.load(Ordering::Relaxed) {
        log.line(&format!(
            "job {} attempt {}: lost (its lease was taken: another worker holds it, or it ended): judging stopped, its runs killed, nothing written",
            job.fence.job, job.fence.attempt
        ));
        return Ok(true);
    }
    let written = match outcome {
        _ if cancel.load(Ordering::Relaxed) => {
            let reason = format!("worker {worker} was stopped before it finished");
            let given = queue::hand_back(client, &job.fence, &reason)?;
            if given == Fenced::Done {
                log.line(&format!(
                    "job {} attempt {}: given back (stopped): its runs killed",
                    job.fence.job, job.fence.attempt
                ));
                return Ok(true);
            }
            Ok(given)
        }
        Ok(result) => finish_retrying(options, client, &job.fence, &result, log, stop),
        Err(reason) => queue::release(client, &job.fence, &reason, options.retry_delay),
    };
    let written = written?;
    if written == Fenced::Done {
        crate::hooks::kill_point("finished");
    }
    match written {
        Fenced::Done => log.line(&format!(
            "job {} attempt {}: done",
            job.fence.job, job.fence.attempt
        )),
        Fenced::Lost => log.line(&format!(
            "job {} attempt {}: lost (another worker holds it); nothing written",
            job.fence.job, job.fence.attempt
        )),
    }
    Ok(true)
}

/// Renews the lease every lease/3 until the job is done (`done` closed); marks `lost` and ends
/// when a renewal updates nothing. A failed renewal is retried on a new connection.
fn heartbeat_loop(
    options: &Options,
    fence: &Fence,
    beat: &mut Db,
    done: &mpsc::Receiver<()>,
    (cancel, lost): (&AtomicBool, &AtomicBool),
    log: &dyn Log,
    stop: &AtomicBool,
) {
    let every = options.lease / 3;
    let mut next = Instant::now() + every;
    loop {
        // Awake every 100 ms at most, for a stop that gives the job back now.
        let slice = next
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(100));
        if let Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) = done.recv_timeout(slice) {
            return;
        }
        if options.give_back.load(Ordering::Relaxed) {
            cancel.store(true, Ordering::Relaxed);
        }
        if Instant::now() < next {
            continue;
        }
        next = Instant::now() + every;
        match queue::heartbeat(beat, fence, options.lease) {
            Ok(Fenced::Done) => crate::hooks::kill_point("heartbeat"),
            Ok(Fenced::Lost) => {
                lost.store(true, Ordering::Relaxed);
                cancel.store(true, Ordering::Relaxed);
                return;
            }
            Err(e) => {
                log.line(&format!("heartbeat: {e}"));
                if let Ok(fresh) = crate::connect(&options.url) {
                    *beat = fresh;
                } else if stop.load(Ordering::Relaxed) {
                    return;
                }
            }
        }
    }
}

/// Writes the result, reconnecting on a database error until the lease would have run out
/// (the write is fenced, so a retry after an unseen commit changes nothing).
fn finish_retrying(
    options: &Options,
    client: &mut Db,
    fence: &Fence,
    result: &Final,
    log: &dyn Log,
    stop: &AtomicBool,
) -> Result<Fenced, Error> {
    let deadline = std::time::Instant::now() + options.lease;
    let mut failures = 0;
    loop {
        match queue::finish(client, fence, result) {
            // A retry finding the job done may find its own earlier commit, whose answer
            // the lost connection never brought.
            Ok(Fenced::Lost) if failures > 0 => {
                return Ok(if queue::finished(client, fence)? {
                    Fenced::Done
                } else {
                    Fenced::Lost
                })
            }
            Ok(f) => return Ok(f),
            Err(e) if std::time::Instant::now() < deadline && !stop.load(Ordering::Relaxed) => {
                log.line(&format!("finish: {e}; retrying"));
                std::thread::sleep(backoff(failures));
                failures += 1;
                if let Ok(fresh) = reconnect(&options.url) {
                    *client = fresh;
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Judges a claimed job: its package from the cache (fetched and unpacked by hash when
/// missing), its source in a folder of its own, every test. `Err`: the worker could not judge
/// it (the job goes back to the queue); a judge error of the engine is a verdict (`JE`).
pub fn run(
    options: &Options,
    engine: &mut Engine,
    client: &mut Db,
    job: &Claimed,
    log: &dyn Log,
) -> Result<Final, String> {
    // The reads are retried on a new connection while the lease would hold (a restarted
    // database); the heartbeat says meanwhile whether the job is still ours.
    let deadline = std::time::Instant::now() + options.lease;
    let package = read_retrying(options, client, deadline, log, |c| {
        cached_package(c, &options.cache, &job.package)
    })
    .map_err(|e| e.to_string())?;
    if !is_plain_name(&job.filename) {
        return Ok(judge_error(format!(
            "the file name {:?} is not a plain file name",
            job.filename
        )));
    }
    let source = read_retrying(options, client, deadline, log, |c| {
        store::blob(c, &job.source)
    })
    .map_err(|e| e.to_string())?;
    crate::hooks::kill_point("fetched");
    // In the engine's work folder (a tmpfs in a worker run as root), removed below.
    let folder = engine.fresh_dir("submission").map_err(|e| e.to_string())?;
    let copy = folder.join(&job.filename);
    open_up(&folder)
        .and_then(|_| std::fs::write(&copy, &source))
        .map_err(|e| format!("{}: {e}", copy.display()))?;
    // A Judge0 run returns its whole output, up to its output limit.
    let capture = read_retrying(options, client, deadline, log, |c| {
        crate::judge0::capture(c, job.submission)
    })
    .map_err(|e| e.to_string())?;
    engine.capture = capture.unwrap_or(judge_model::result::Captured::CAP);
    let mut publisher = Publisher {
        client,
        job,
        folder: format!("{}/", folder.display()),
        lost: false,
        pending: Vec::new(),
    };
    let mut outcome = judge(
        engine,
        &package,
        &copy,
        job.language.as_deref(),
        &mut publisher,
    );
    publisher.flush();
    engine.capture = judge_model::result::Captured::CAP;
    // The report names the problem and the file as submitted, not the worker's copies.
    let local = format!("{}/", folder.display());
    outcome.report = outcome.report.take().and_then(|text| {
        let mut doc: serde_json::Value = serde_json::from_str(&text.replace(&local, "")).ok()?;
        doc["problem"] = job.problem.clone().into();
        doc["solution"] = job.filename.clone().into();
        Some(doc.to_string())
    });
    let _ = std::fs::remove_dir_all(&folder);
    Ok(outcome)
}

/// Runs `read` (which changes nothing in the database), reconnecting and retrying after a
/// database error until `deadline`.
fn read_retrying<T>(
    options: &Options,
    client: &mut Db,
    deadline: std::time::Instant,
    log: &dyn Log,
    mut read: impl FnMut(&mut Db) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut failures = 0;
    loop {
        match read(client) {
            Err(e @ (Error::Db(_) | Error::Lite(_))) if std::time::Instant::now() < deadline => {
                log.line(&format!("{e}; retrying"));
                std::thread::sleep(backoff(failures));
                failures += 1;
                if let Ok(fresh) = reconnect(&options.url) {
                    *client = fresh;
                }
            }
            other => return other,
        }
    }
}

/// A file name with no folder in it.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/') && !name.contains('\0')
}

/// The sandbox runs programs as another user: the folders it reads must be open to it.
fn open_up(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
}

fn judge_error(message: String) -> Final {
    Final {
        verdict: "JE".into(),
        error: Some(message),
        ..Final::default()
    }
}

/// Judges `source` on the package in `dir` with every test, built as `judge run` builds it
/// (the package format's entries of the language table), in `language` when one was given
/// at submit time (whatever the file name says), else in the one its file name tells.
/// The engine's events go to `reporter` as they happen.
pub fn judge(
    engine: &mut Engine,
    dir: &Path,
    source: &Path,
    language: Option<&str>,
    reporter: &mut dyn Reporter,
) -> Final {
    let problem = match Problem::load(dir) {
        Ok(p) => p,
        Err(e) => return judge_error(format!("the package does not load: {e}")),
    };
    problem.set_languages(&mut engine.languages);
    if let Some(name) = language {
        if let Err(e) = engine.languages.pin_named(source, name) {
            return judge_error(e.to_string());
        }
    }
    if problem
        .tests
        .iter()
        .any(|t| t.answer_missing || t.generate.is_some())
    {
        return judge_error(
            "the package lacks some tests or answers: run `judge gen` on it first".into(),
        );
    }
    let options = JudgeOptions {
        all: true,
        ..Default::default()
    };
    let inputs = crate::provenance::of(&problem, &engine.languages, source);
    let limit = problem.limits.time;
    let mut margins = Margins {
        inner: reporter,
        beside: HashMap::new(),
    };
    let judged = Prepared::new(engine, problem).and_then(|prepared| {
        judging::judge_one(&mut [engine], &prepared, source, options, &mut margins)
    });
    let mut result = match judged {
        Ok(report) => {
            let mut result = result_of(&report);
            for test in &mut result.tests {
                test.limit_ms = Some(limit.as_millis() as i64);
                test.beside_ms = margins.beside.get(&test.name).copied();
            }
            result.report = Some(run_document(&report, engine.sandbox.level()).to_string());
            result
        }
        Err(e) => judge_error(e.to_string()),
    };
    result.inputs = inputs;
    result
}

/// `judge run --json`'s document of a judging (its problem and solution named by the caller).
fn run_document(
    report: &SubmissionReport,
    isolation: judge_model::IsolationLevel,
) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "schema": judge_model::event::SCHEMA,
        "problem": "",
        "solution": "",
        "isolation": isolation,
        "judge_memory_kib": own_peak_kib(),
    });
    if let (Some(fields), serde_json::Value::Object(rest)) = (
        doc.as_object_mut(),
        serde_json::to_value(report).expect("reports always serialize"),
    ) {
        fields.extend(rest);
    }
    doc
}

/// The worker process's own peak resident memory, in KiB.
fn own_peak_kib() -> u64 {
    // SAFETY: rusage is plain data filled by getrusage.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer for the duration of the call.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    usage.ru_maxrss.max(0) as u64
}

/// Passes the engine's events on, keeping the times of the tests judged again alone (their
/// time beside other jobs was near the limit).
struct Margins<'r> {
    inner: &'r mut dyn Reporter,
    beside: HashMap<String, i64>,
}

impl Reporter for Margins<'_> {
    fn event(&mut self, event: &Event) {
        if let Event::Rejudged { test, beside, .. } = event {
            self.beside
                .insert(test.name.clone(), beside.time.as_millis() as i64);
        }
        self.inner.event(event);
    }
}

/// The most events a [`Publisher`] holds before it writes them.
const PENDING_MAX: usize = 64;

/// The events of a worker's judging, written to the `events` table (fenced by the job's
/// attempt) for `judge serve`'s event stream: each as its `--format jsonl` line, with the
/// problem's and the file's names the submitter gave in place of the worker's paths.
struct Publisher<'a> {
    client: &'a mut Db,
    job: &'a Claimed,
    /// The worker's folder of the source (`…/jobs/J-A-PID/`), left out of what is told: a
    /// compiler's message names `a.cpp`, not the worker's cache.
    folder: String,
    /// A write found the job taken, or the database gone: the rest are not sent.
    lost: bool,
    /// Events not written yet (name, data): see [`Publisher::flush`].
    pending: Vec<(String, String)>,
}

impl Publisher<'_> {
    /// Writes the pending events, in one statement or transaction. The publisher writes when
    /// the judging is about to wait (a compile or a test starts: what was told so far is in
    /// the stream while it runs) and when the judging ends (before the finish); the events in
    /// between come in bursts (a test's end, the next one's start), which one write serves.
    /// A trivial three-test judging tells its 9 events in 5 writes (before, 9).
    fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if self.lost || pending.is_empty() {
            return;
        }
        let written = queue::events(self.client, &self.job.fence, self.job.submission, &pending);
        // Events are told, not kept: a lost job or database ends them, never the judging (the
        // heartbeat and the finish decide what happens to the job).
        if !matches!(written, Ok(Fenced::Done)) {
            self.lost = true;
        }
    }
}

/// An event as the service tells it: its `--format jsonl` object with the submission's id and
/// attempt, and its problem and solution as submitted.
pub fn event_data(event: &Event, job: &Claimed) -> serde_json::Value {
    let mut data = serde_json::to_value(event).expect("events always serialize");
    if let Some(fields) = data.as_object_mut() {
        fields.insert("schema".into(), judge_model::event::SCHEMA.into());
        fields.insert("submission".into(), job.submission.into());
        fields.insert("attempt".into(), job.fence.attempt.into());
        if fields.contains_key("problem") {
            fields.insert("problem".into(), job.problem.clone().into());
        }
        if fields.contains_key("solution") {
            fields.insert("solution".into(), job.filename.clone().into());
        }
    }
    data
}

impl Reporter for Publisher<'_> {
    fn event(&mut self, event: &Event) {
        if self.lost {
            return;
        }
        let data = event_data(event, self.job);
        let name = data["event"].as_str().unwrap_or("event").to_string();
        self.pending
            .push((name, data.to_string().replace(&self.folder, "")));
        let waits = matches!(
            event,
            Event::CompileStarted { .. } | Event::TestStarted { .. }
        );
        if waits || self.pending.len() >= PENDING_MAX {
            self.flush();
        }
    }
}

/// A report as the rows a finish writes.
pub fn result_of(report: &SubmissionReport) -> Final {
    let tests: Vec<TestRow> = report
        .tests
        .iter()
        .map(|t| TestRow {
            name: t.name.clone(),
            verdict: t.verdict.to_string(),
            time_ms: t.time.as_millis() as i64,
            memory_kib: (t.memory / 1024) as i64,
            message: t.message.clone(),
            ..TestRow::default()
        })
        .collect();
    Final {
        verdict: report.verdict.to_string(),
        score: report.score,
        time_ms: tests.iter().map(|t| t.time_ms).max(),
        memory_kib: tests.iter().map(|t| t.memory_kib).max(),
        error: None,
        tests,
        output: Some(crate::judge0::RunOutput::of(report)),
        report: None,
        inputs: None,
    }
}

/// The package `hash` unpacked under `cache` (done once per hash: unpacked beside it and
/// renamed into place, so a half-unpacked folder is never used).
pub fn cached_package(client: &mut Db, cache: &Path, hash: &str) -> Result<PathBuf, Error> {
    let dir = cache.join("packages").join(hash);
    if dir.is_dir() {
        return Ok(dir);
    }
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", cache.display()));
    let parent = cache.join("packages");
    std::fs::create_dir_all(&parent).map_err(io)?;
    open_up(cache).map_err(io)?;
    open_up(&parent).map_err(io)?;
    let data = store::blob(client, hash)?;
    let scratch = tempfile::Builder::new()
        .prefix(".unpacking-")
        .tempdir_in(&parent)
        .map_err(io)?;
    let staged = scratch.path().join("p");
    store::unpack(&data, &staged)?;
    open_up(scratch.path()).map_err(io)?;
    match std::fs::rename(&staged, &dir) {
        Ok(()) => Ok(dir),
        // Another slot or worker put it there first: the same bytes.
        Err(_) if dir.is_dir() => Ok(dir),
        Err(e) => Err(io(e)),
    }
}
