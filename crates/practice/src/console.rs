//! The page's manual console for interactive problems (the contestant plays the judge's side;
//! `judge_core::engine::console` runs the program), the replay of a saved exchange, and the
//! comparison of several solutions on a problem's tests. Each is a [`Job::Task`] run by an
//! engine of the pool; a console session holds its engine for as long as it runs (at most
//! [`console::CONSOLE_WALL`], ended sooner after [`console::CONSOLE_IDLE`] without a line).
//!
//! Transport: the program's lines go to the page as events of `/api/events` (Server-Sent
//! Events, the stream the page already reads), and the page's lines come as `POST`s — plain
//! requests behind the same token, Host and Origin checks as every route, one line each.

use super::{Job, Practice, Source};
use judge_core::engine::console::{self, Input, Line};
use judge_core::engine::Engine;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::Mutex;

/// Console sessions not ended at once (each holds an engine while it runs).
pub const MAX_CONSOLES: usize = 4;
/// Ended sessions kept for `GET /api/console/{id}` (the oldest go first).
const KEPT: usize = 16;

/// One console session.
struct Session {
    id: u64,
    problem: String,
    state: &'static str,
    lines: Vec<Line>,
    input: Option<Sender<Input>>,
    cancel: judge_sandbox::Cancel,
    ended: Option<Value>,
}

#[derive(Default)]
pub struct Consoles {
    all: Mutex<(u64, Vec<Session>)>,
}

impl Consoles {
    fn with<T>(&self, id: u64, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let mut all = self.all.lock().unwrap_or_else(|e| e.into_inner());
        all.1.iter_mut().find(|s| s.id == id).map(f)
    }

    /// A session's state as the API shows it.
    pub fn json(&self, id: u64) -> Option<Value> {
        self.with(id, |s| {
            json!({
                "id": s.id,
                "problem": s.problem,
                "state": s.state,
                "lines": s.lines,
                "ended": s.ended,
            })
        })
    }

    /// Sends a line (or the end of input) to a running session's program. `Err`: why not.
    pub fn send(&self, id: u64, input: Input) -> Result<(), (u16, String)> {
        self.with(id, |s| match (&s.input, s.state) {
            (Some(tx), "queued" | "building" | "running") => {
                let close = input == Input::Close;
                let sent = tx.send(input).is_ok();
                if close {
                    // Nothing more can be sent: the page's field goes grey.
                    s.input = None;
                }
                if sent {
                    Ok(())
                } else {
                    Err((409, format!("console {id} has ended")))
                }
            }
            (None, "queued" | "building" | "running") => Err((
                409,
                format!("console {id}: the program's input is closed already"),
            )),
            _ => Err((409, format!("console {id} has ended"))),
        })
        .unwrap_or_else(|| Err((404, format!("no console {id}"))))
    }

    /// Stops a session's program (or the session, while it waits for an engine).
    pub fn stop(&self, id: u64) -> bool {
        // The input stays open: the run ends by the flag, and says so.
        self.with(id, |s| {
            s.cancel.store(true, std::sync::atomic::Ordering::SeqCst);
        })
        .is_some()
    }

    /// The exchange as an `.interaction` file's text, and the session's problem.
    pub fn interaction(&self, id: u64) -> Option<(String, String)> {
        self.with(id, |s| {
            (s.problem.clone(), console::interaction_text(&s.lines))
        })
    }
}

/// `POST /api/console`: a session of `source` on `problem`, queued for an engine; its id.
pub fn start(practice: &Practice, problem: &str, source: Source) -> Result<u64, (u16, String)> {
    let (tx, rx) = std::sync::mpsc::channel();
    let cancel = judge_sandbox::Cancel::default();
    let id = {
        let mut all = practice
            .consoles
            .all
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let live = all.1.iter().filter(|s| s.state != "ended").count();
        if live >= MAX_CONSOLES {
            return Err((
                429,
                format!("{MAX_CONSOLES} consoles are open already: stop one first"),
            ));
        }
        while all.1.len() >= KEPT {
            let Some(oldest) = all.1.iter().position(|s| s.state == "ended") else {
                break;
            };
            all.1.remove(oldest);
        }
        all.0 += 1;
        let id = all.0;
        all.1.push(Session {
            id,
            problem: problem.to_string(),
            state: "queued",
            lines: Vec::new(),
            input: Some(tx),
            cancel: cancel.clone(),
            ended: None,
        });
        id
    };
    let problem = problem.to_string();
    practice
        .queue
        .push(Job::Task(Box::new(move |practice, engine| {
            run(practice, engine, id, &problem, &source, rx, cancel)
        })));
    Ok(id)
}

fn set_state(practice: &Practice, id: u64, state: &'static str, ended: Option<Value>) {
    practice.consoles.with(id, |s| {
        s.state = state;
        if ended.is_some() {
            s.ended = ended.clone();
            s.input = None;
        }
    });
    practice
        .hub
        .publish(&json!({"event": "console_state", "console": id, "state": state, "ended": ended}));
}

/// A source written into a folder of its own under `submissions/`; the folder.
fn write_source(practice: &Practice, what: &str, source: &Source) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let folder = practice.store.dir.join("submissions").join(format!(
        "{what}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&folder)
        .and_then(|_| std::fs::write(folder.join(&source.file_name), &source.text))
        .map_err(|e| format!("cannot write the source: {e}"))?;
    Ok(folder)
}

fn run(
    practice: &Practice,
    engine: &mut Engine,
    id: u64,
    problem_id: &str,
    source: &Source,
    input: std::sync::mpsc::Receiver<Input>,
    cancel: judge_sandbox::Cancel,
) {
    let fail = |message: String| {
        set_state(
            practice,
            id,
            "ended",
            Some(json!({"verdict": "JE", "message": message})),
        )
    };
    if cancel.load(std::sync::atomic::Ordering::SeqCst) {
        return set_state(
            practice,
            id,
            "ended",
            Some(json!({"stopped": "stopped before it started"})),
        );
    }
    let problem = match practice.store.load(problem_id) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    set_state(practice, id, "building", None);
    let folder = match write_source(practice, "console", source) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let copy = folder.join(&source.file_name);
    let shown = source
        .path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| source.file_name.clone());
    let rename = |text: &str| text.replace(&copy.display().to_string(), &shown);
    let built = engine.build(&copy);
    let artifact = match built {
        Ok((Some(artifact), _)) => artifact,
        Ok((None, report)) => {
            let _ = std::fs::remove_dir_all(&folder);
            return set_state(
                practice,
                id,
                "ended",
                Some(json!({"verdict": "CE", "message": rename(&report.message)})),
            );
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&folder);
            return fail(rename(&e.to_string()));
        }
    };
    if cancel.load(std::sync::atomic::Ordering::SeqCst) {
        let _ = std::fs::remove_dir_all(&folder);
        return set_state(
            practice,
            id,
            "ended",
            Some(json!({"stopped": "stopped before it started"})),
        );
    }
    set_state(practice, id, "running", None);
    let ended = engine.console(&problem, &artifact, input, cancel, &mut |line| {
        // `n`: the line's place in the exchange (a page that missed some reads them back).
        let n = practice.consoles.with(id, |s| {
            s.lines.push(line.clone());
            s.lines.len() - 1
        });
        practice
            .hub
            .publish(&json!({"event": "console_line", "console": id, "n": n, "line": line}));
    });
    let _ = std::fs::remove_dir_all(&folder);
    match ended {
        Ok(ended) => {
            let o = &ended.outcome;
            let (verdict, message) = match &ended.verdict {
                Some((v, m)) => (Some(v.to_string()), Some(rename(m))),
                None => (None, None),
            };
            set_state(
                practice,
                id,
                "ended",
                Some(json!({
                    "verdict": verdict,
                    "message": message,
                    "stopped": ended.stopped,
                    "exit": judge_sandbox::termination_text(o.termination),
                    "cpu_ms": o.cpu_time.as_millis() as u64,
                    "wall_ms": o.wall_time.as_millis() as u64,
                    "memory_kib": o.peak_memory / 1024,
                    "limits": {
                        "cpu_ms": console::console_limits(&problem).cpu.as_millis() as u64,
                        "wall_ms": console::CONSOLE_WALL.as_millis() as u64,
                        "idle_ms": console::CONSOLE_IDLE.as_millis() as u64,
                    },
                })),
            );
        }
        Err(e) => fail(e.to_string()),
    }
}

/// Runs `task` on an engine of the pool and waits for its answer (at most `wait`).
pub fn on_engine<T: Send + 'static>(
    practice: &Practice,
    wait: std::time::Duration,
    task: impl FnOnce(&Practice, &mut Engine) -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    practice
        .queue
        .push(Job::Task(Box::new(move |practice, engine| {
            let _ = tx.send(task(practice, engine));
        })));
    rx.recv_timeout(wait)
        .map_err(|_| "the judge is busy: no answer in time; try again".to_string())
}

/// `POST /api/problems/{id}/interactions/{name}/replay`: the saved exchange played back to
/// `source` (its `<` lines as input, its `>` lines expected).
pub fn replay(
    practice: &Practice,
    engine: &mut Engine,
    problem_id: &str,
    file: &std::path::Path,
    source: &Source,
) -> Result<Value, String> {
    let lines = judge_core::engine::interactive::read_interaction(file)?;
    let problem = practice.store.load(problem_id)?;
    let folder = write_source(practice, "replay", source)?;
    let copy = folder.join(&source.file_name);
    let result = (|| -> Result<Value, String> {
        let (artifact, report) = engine.build(&copy).map_err(|e| e.to_string())?;
        let Some(artifact) = artifact else {
            return Ok(json!({"same": false, "verdict": "CE", "message": report.message}));
        };
        Ok(
            match engine
                .replay(&problem, &artifact, &lines)
                .map_err(|e| e.to_string())?
            {
                None => json!({"same": true, "lines": lines.len()}),
                Some(why) => json!({"same": false, "message": why}),
            },
        )
    })();
    let _ = std::fs::remove_dir_all(&folder);
    result
}
