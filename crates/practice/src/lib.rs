//! `judge practice`: a local server for contest practice. Problems arrive from the
//! competitive-companion browser extension (`cc.rs`, its own port) and are kept as packages in
//! a practice folder (`store.rs`); a web page (`page/`, `statement.rs`) and its HTTP API
//! (`api.rs`, over axum in `http.rs`, behind the checks of `access.rs`) submit
//! solutions, pasted or by path (read as the user who started the server: `user.rs`; watched
//! and re-submitted on every save: `watch.rs`); a pool of judging engines (`--jobs`, one
//! thread each; `judging.rs`, the engine of `judge run`) works through one queue and sends the
//! judge's events to the page (Server-Sent Events, [`Hub`]) and to the history (`db.rs`, a
//! SQLite file through `judge-db`, the judging service's storage layer); virtual contests are
//! scored from the history (`contest.rs`).
//!
//! The sandbox's worker dies with the thread that started it, so every engine is made on the
//! main thread, which judges with the first one and never returns ([`serve`]); the other
//! engines' threads, the HTTP servers and the watcher have threads of their own.

pub mod access;
pub mod api;
pub mod cc;
pub mod compare;
pub mod console;
pub mod contest;
pub mod db;
pub mod http;
pub mod import;
pub mod judging;
pub mod page;
pub mod statement;
pub mod store;
pub mod user;
pub mod watch;

use contest::Clock;
use judge_core::lang::Languages;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex};

/// A source file may have at most this many bytes.
pub const MAX_SOURCE: u64 = 1 << 20;
/// Subscribers of `/api/events` at once.
pub const MAX_SUBSCRIBERS: usize = 16;
/// Events queued for one subscriber before it counts as gone.
const SUBSCRIBER_BACKLOG: usize = 4096;

/// Everything the server's threads share.
pub struct Practice {
    pub store: store::Store,
    pub db: db::Db,
    pub hub: Hub,
    pub queue: Queue,
    pub clock: Box<dyn Clock>,
    pub token: String,
    /// The page's port (for the Host and Origin checks).
    pub port: u16,
    pub cc_port: u16,
    pub user: user::User,
    pub languages: Languages,
    pub watches: watch::Watches,
    /// Stress runs by id: their state as the API shows it.
    pub stress: Mutex<Vec<Value>>,
    /// The page's console sessions (interactive problems played by hand).
    pub consoles: console::Consoles,
    /// Comparisons by id: their matrices as the API shows them (the last few).
    pub compares: Mutex<Vec<Value>>,
    /// Serialises writing received problems (ids are picked from what is on disk).
    save_lock: Mutex<()>,
}

/// Work of the page's on an engine of the pool.
pub type Task = Box<dyn FnOnce(&Practice, &mut judge_core::engine::Engine) + Send>;

/// Work for the judging engines.
pub enum Job {
    Judge(i64),
    Stress(judging::StressJob),
    /// Work of the page's on an engine: a console session, a replay, a comparison.
    Task(Task),
    /// Another engine's thread unwound with this (a closed stdout): the main thread goes on
    /// unwinding with it.
    Unwind(Box<dyn std::any::Any + Send>),
    /// The judge is going away: every other engine's thread ends after its current job (the
    /// main thread waits for them before it unwinds).
    Stop,
}

#[derive(Default)]
pub struct Queue {
    jobs: Mutex<VecDeque<Job>>,
    ready: Condvar,
}

impl Queue {
    pub fn push(&self, job: Job) {
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(job);
        self.ready.notify_one();
    }

    /// Ahead of every other job.
    fn push_front(&self, job: Job) {
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_front(job);
        self.ready.notify_one();
    }

    /// The next job, waiting for one.
    pub fn pop(&self) -> Job {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = jobs.pop_front() {
                return job;
            }
            jobs = self.ready.wait(jobs).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub fn len(&self) -> usize {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The subscribers of `/api/events`. Publishing never blocks: a subscriber that falls
/// [`SUBSCRIBER_BACKLOG`] events behind is dropped (its stream ends; the page reconnects).
#[derive(Default)]
pub struct Hub {
    subscribers: Mutex<Vec<SyncSender<Arc<str>>>>,
}

impl Hub {
    pub fn publish(&self, event: &Value) {
        let text: Arc<str> = Arc::from(event.to_string());
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        subs.retain(|s| match s.try_send(text.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => false,
        });
    }

    /// A new subscriber, unless there are [`MAX_SUBSCRIBERS`] already.
    pub fn subscribe(&self) -> Option<Receiver<Arc<str>>> {
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        // Those whose stream ended are gone from the count.
        subs.retain(|s| s.try_send(Arc::from("")).is_ok());
        if subs.len() >= MAX_SUBSCRIBERS {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(SUBSCRIBER_BACKLOG);
        subs.push(tx);
        Some(rx)
    }
}

/// A submission's source: pasted text with its language, or a file.
pub struct Source {
    pub file_name: String,
    pub language: String,
    pub text: String,
    pub path: Option<PathBuf>,
}

impl Practice {
    /// The practice folder `dir` (locked while the server runs), its history, and the token
    /// (the folder's saved one is read, or made, once the folder is locked).
    pub fn new(
        dir: &Path,
        token: access::TokenSource,
        port: u16,
        cc_port: u16,
        clock: Box<dyn Clock>,
        languages: Languages,
    ) -> Result<Practice, String> {
        let store = store::Store::open(dir)?;
        let token = match token {
            access::TokenSource::Given(t) => t,
            access::TokenSource::Saved { rotate } => access::saved_token(dir, rotate)?,
        };
        let db = db::Db::open(&dir.join("history.sqlite"))?;
        Ok(Practice {
            store,
            db,
            hub: Hub::default(),
            queue: Queue::default(),
            clock,
            token,
            port,
            cc_port,
            user: user::User::invoking(),
            languages,
            watches: watch::Watches::default(),
            stress: Mutex::new(Vec::new()),
            consoles: Default::default(),
            compares: Mutex::new(Vec::new()),
            save_lock: Mutex::new(()),
        })
    }

    pub fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Pasted source in `language` (its name in the language table, or an extension).
    pub fn pasted(&self, text: &str, language: &str) -> Result<Source, String> {
        if text.len() as u64 > MAX_SOURCE {
            return Err(format!("the source is over {} KiB", MAX_SOURCE / 1024));
        }
        let wanted = language.trim().to_lowercase();
        let lang = self
            .languages
            .general()
            .find(|l| l.name.to_lowercase() == wanted || l.extensions.contains(&wanted))
            .ok_or_else(|| {
                let names: Vec<&str> = self.languages.general().map(|l| l.name.as_str()).collect();
                format!(
                    "unknown language `{language}`; one of: {}",
                    names.join(", ")
                )
            })?;
        let ext = lang.extensions.first().cloned().unwrap_or_default();
        Ok(Source {
            file_name: format!("main.{ext}"),
            language: lang.name.clone(),
            text: text.to_string(),
            path: None,
        })
    }

    /// The source file at `path`, read as the user who started the server. Only a file whose
    /// extension is a language's is read at all, and errors never quote it.
    pub fn from_path(&self, path: &Path) -> Result<Source, String> {
        if !path.is_absolute() {
            return Err(format!("{}: give an absolute path", path.display()));
        }
        let lang = self.languages.for_source(path).map_err(|_| {
            let exts: Vec<String> = self
                .languages
                .general()
                .flat_map(|l| l.extensions.iter().map(|e| format!(".{e}")))
                .collect();
            format!(
                "{}: not a source file (its extension is none of {})",
                path.display(),
                exts.join(" ")
            )
        })?;
        let bytes = user::read_as(&self.user, path, MAX_SOURCE)?;
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "main".into());
        Ok(Source {
            file_name,
            language: lang.name.clone(),
            text,
            path: Some(path.to_path_buf()),
        })
    }

    /// Records a submission and queues it; returns its id. A problem without tests takes none
    /// (nothing to judge it on: it would be accepted on nothing).
    pub fn submit(&self, problem: &str, source: &Source) -> Result<i64, String> {
        if self.store.problem_dir(problem).is_none() {
            return Err(format!("no problem `{problem}`"));
        }
        if self.store.load(problem).is_ok_and(|p| p.tests.is_empty()) {
            return Err(no_tests(problem));
        }
        let path = source.path.as_ref().map(|p| p.display().to_string());
        let id = self.db.insert(&db::NewSubmission {
            problem,
            language: &source.language,
            source: &source.text,
            file_name: &source.file_name,
            path: path.as_deref(),
            created_at: self.now(),
        })?;
        self.hub.publish(&json!({
            "event": "submission_queued",
            "submission": id,
            "problem": problem,
            "path": path,
        }));
        self.queue.push(Job::Judge(id));
        Ok(id)
    }

    /// Stores a received problem (and its batch's contest); returns its id.
    pub fn receive(&self, problem: &cc::Received) -> Result<String, String> {
        let _held = self.save_lock.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.now();
        let id = self.store.save(problem, now).map_err(|e| {
            format!(
                "{}: cannot store the problem: {e}",
                self.store.dir.display()
            )
        })?;
        let mut contest = None;
        if let Some(batch) = &problem.batch {
            if batch.size > 1 {
                contest = Some(self.db.add_to_batch(
                    &batch.id,
                    batch.size as i64,
                    &problem.group,
                    &id,
                    now,
                )?);
            }
        }
        self.hub
            .publish(&json!({"event": "problem_received", "problem": id, "contest": contest}));
        Ok(id)
    }
}

/// Why a problem without tests takes no submission, and what to do.
pub fn no_tests(problem: &str) -> String {
    format!("problem `{problem}` has no tests yet (it came without samples): add one first, with its input and expected output (on its page, or POST /api/problems/{problem}/tests)")
}

/// Where the practice folder is by default: `$XDG_DATA_HOME/judge/practice`, else
/// `~/.local/share/judge/practice` of the user who started the judge (through sudo too).
pub fn default_dir() -> Option<PathBuf> {
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(data).join("judge/practice"));
    }
    let home = match std::env::var_os("SUDO_USER").filter(|v| !v.is_empty()) {
        Some(user) => home_of(&user.to_string_lossy()),
        None => std::env::var_os("HOME").map(PathBuf::from),
    }?;
    Some(home.join(".local/share/judge/practice"))
}

fn home_of(name: &str) -> Option<PathBuf> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 6 && fields[0] == name).then(|| PathBuf::from(fields[5]))
    })
}

/// The listeners and where they are.
pub struct Listening {
    pub page: std::net::TcpListener,
    pub receiver: std::net::TcpListener,
}

/// Binds both ports on 127.0.0.1 (0: any free port).
pub fn bind(port: u16, cc_port: u16) -> Result<Listening, String> {
    let bind = |p: u16, what: &str, flag: &str| {
        std::net::TcpListener::bind(("127.0.0.1", p)).map_err(|e| {
            format!("cannot listen on 127.0.0.1:{p} ({what}): {e}\n  hint: another program uses it; pick another with {flag} PORT (0: any free port)")
        })
    };
    Ok(Listening {
        page: bind(port, "the page", "--port")?,
        receiver: bind(cc_port, "competitive-companion", "--cc-port")?,
    })
}

/// Starts the servers' threads and the watcher, then judges forever: one thread per engine
/// (`engines[0]` on this one), each taking the next job from the queue, so `engines.len()`
/// submissions are judged at once. The engines were made on this thread (their sandbox workers
/// end with it) and share a gate when there are several (`judge_core::jobs::helpers`).
pub fn serve(
    practice: Arc<Practice>,
    listening: Listening,
    engines: Vec<&mut judge_core::engine::Engine>,
) -> ! {
    // The saved watches first: the API answers as soon as its thread runs.
    for (id, problem, path, last) in practice.db.watches().unwrap_or_default() {
        let _ = practice.watches.add(
            id as u64,
            &problem,
            PathBuf::from(path),
            last.unwrap_or_default(),
            false,
        );
    }
    let (tx, rx) = std::sync::mpsc::sync_channel::<cc::Received>(64);
    {
        let practice = practice.clone();
        std::thread::spawn(move || {
            for problem in rx {
                if let Err(e) = practice.receive(&problem) {
                    practice
                        .hub
                        .publish(&json!({"event": "receive_failed", "message": e}));
                }
            }
        });
    }
    {
        let practice = practice.clone();
        std::thread::spawn(move || {
            http::serve(listening.receiver, cc::MAX_BODY, move |r| {
                api::receiver(&practice, &tx, r)
            })
        });
    }
    {
        let practice = practice.clone();
        std::thread::spawn(move || {
            http::serve(listening.page, cc::MAX_BODY, move |r| {
                api::handle(&practice, r)
            })
        });
    }
    {
        let practice = practice.clone();
        std::thread::spawn(move || watch::run(&practice));
    }
    for id in practice.db.unfinished().unwrap_or_default() {
        practice.queue.push(Job::Judge(id));
    }
    judge_with(&practice, engines)
}

/// The pool: a thread per engine but the first, which judges on this thread; never returns
/// (unwinds, once every other engine's thread has ended, when stdout or stderr is closed).
fn judge_with(practice: &Practice, engines: Vec<&mut judge_core::engine::Engine>) -> ! {
    std::thread::scope(|scope| {
        let mut engines = engines.into_iter();
        let first = engines.next().expect("at least one engine");
        for (k, engine) in engines.enumerate() {
            std::thread::Builder::new()
                .name(format!("practice-judge-{}", k + 2))
                .spawn_scoped(scope, move || judge_forever(practice, engine, false))
                .expect("a judging thread");
        }
        judge_forever(practice, first, true);
        unreachable!("the main thread's engine judges until the judge ends")
    })
}

/// One engine of the pool: the next job, again and again. On the first engine (`main`) it never
/// returns; another engine's thread ends when the judge is going away.
fn judge_forever(practice: &Practice, engine: &mut judge_core::engine::Engine, main: bool) {
    loop {
        let job = practice.queue.pop();
        let submission = match &job {
            Job::Judge(id) => Some(*id),
            Job::Stress(_) | Job::Task(_) => None,
            Job::Unwind(_) | Job::Stop if !main => {
                // Handed on (to the main thread, to the other engines); this engine stops.
                practice.queue.push_front(job);
                return;
            }
            Job::Unwind(_) | Job::Stop => None,
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            judging::run(practice, engine, job)
        }));
        if let Err(payload) = outcome {
            // A closed stdout or stderr ends the judge as everywhere else (`report::stream`):
            // on the main thread, where `cli::main` sees it (and the session cleans up).
            if payload.is::<judge_report::stream::Gone>() {
                if main {
                    practice.queue.push_front(Job::Stop);
                    std::panic::resume_unwind(payload);
                }
                practice.queue.push_front(Job::Unwind(payload));
                return;
            }
            // A bug (its message was printed by the panic hook): the server goes on, and the
            // submission is not judged again at every start.
            if let Some(id) = submission {
                let message =
                    "internal error: the judge failed on this submission (its stderr says why)";
                let _ = practice.db.finish(
                    id,
                    "JE",
                    Some(message),
                    None,
                    &json!([]),
                    None,
                    None,
                    practice.now(),
                );
                practice.hub.publish(&json!({
                    "event": "submission_finished",
                    "submission": id,
                    "verdict": "JE",
                    "error": message,
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_never_blocks_and_drops_a_subscriber_that_falls_behind() {
        // `subscribe` checks who is still there with an empty message (skipped by the stream).
        let next = |rx: &Receiver<Arc<str>>| loop {
            let text = rx.recv().unwrap();
            if !text.is_empty() {
                return text;
            }
        };
        let hub = Hub::default();
        let reader = hub.subscribe().unwrap();
        let sleeper = hub.subscribe().unwrap();
        for i in 0..SUBSCRIBER_BACKLOG + 10 {
            hub.publish(&json!({"event": "x", "i": i}));
            // The reader keeps up; the sleeper never reads.
            assert!(next(&reader).contains(&format!("\"i\":{i}")));
        }
        // The sleeper was dropped once its backlog was full: what it holds ends there.
        assert_eq!(sleeper.try_iter().count(), SUBSCRIBER_BACKLOG);
        assert!(sleeper.recv().is_err());
        hub.publish(&json!({"event": "y"}));
        assert!(next(&reader).contains("\"y\""));
        // At most MAX_SUBSCRIBERS at once; a closed one frees its place.
        let mut held: Vec<_> = (1..MAX_SUBSCRIBERS)
            .map(|_| hub.subscribe().unwrap())
            .collect();
        assert!(hub.subscribe().is_none());
        held.pop();
        assert!(hub.subscribe().is_some());
        drop(reader);
    }

    #[test]
    fn a_closed_stdout_in_any_engine_ends_every_engine_and_then_unwinds_the_main_thread() {
        use judge_core::engine::Engine;
        use judge_core::executor::fake::FakeExecutor;
        let tmp = tempfile::tempdir().unwrap();
        let languages = Languages::load(None).unwrap();
        let practice = Practice::new(
            &tmp.path().join("practice"),
            access::TokenSource::Given("0123456789abcdef".into()),
            1,
            2,
            Box::new(contest::SystemClock),
            languages.clone(),
        )
        .unwrap();
        let mut engines: Vec<Engine> = (0..3)
            .map(|k| {
                let work = tmp.path().join(format!("work-{k}"));
                std::fs::create_dir(&work).unwrap();
                Engine::new(FakeExecutor::new(), languages.clone(), work)
            })
            .collect();
        let (done, ended) = std::sync::mpsc::channel();
        let practice = Arc::new(practice);
        let shared = practice.clone();
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                judge_with(&shared, engines.iter_mut().collect())
            }));
            let _ = done.send(outcome.err().map(|p| p.is::<judge_report::stream::Gone>()));
        });
        // Every engine waits for work; then, as if one of them found stdout closed:
        std::thread::sleep(std::time::Duration::from_millis(200));
        let gone = judge_report::stream::Gone {
            stream: "stdout",
            error: std::io::ErrorKind::BrokenPipe.into(),
        };
        practice.queue.push(Job::Unwind(Box::new(gone)));
        // The scope ended (every engine's thread with it) and the payload went on.
        let unwound = ended
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the pool ended");
        assert_eq!(unwound, Some(true));
        // What is left tells the next engines to stop, and nothing else.
        assert_eq!(practice.queue.len(), 1);
        assert!(matches!(practice.queue.pop(), Job::Stop));
    }

    #[test]
    fn the_queue_hands_out_jobs_in_order() {
        let queue = Queue::default();
        queue.push(Job::Judge(1));
        queue.push(Job::Judge(2));
        assert_eq!(queue.len(), 2);
        assert!(matches!(queue.pop(), Job::Judge(1)));
        assert!(matches!(queue.pop(), Job::Judge(2)));
        assert!(queue.is_empty());
    }
}
