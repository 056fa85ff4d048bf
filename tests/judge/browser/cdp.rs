//! A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: Chromium reads
//! commands on its fd 3 and writes replies and events on its fd 4, each a JSON object ended by
//! a NUL byte. No WebSocket, no crate beyond serde_json, so it builds in no time and needs no
//! network; the tests use a handful of commands (navigate, evaluate, screenshot). The browser
//! tests of a test process share one Chromium, each page in a browser context of its own; a
//! test that restarts the browser starts one of its own.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long one protocol command may take before the test fails.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// The browser to drive: `$JUDGE_CHROMIUM`, else the first of the usual names on `PATH`.
pub fn find_chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("JUDGE_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let names = ["chromium", "chromium-browser", "google-chrome", "chrome"];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in names {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(format!(
        "no Chromium found (looked for {} on PATH, and JUDGE_CHROMIUM is not set): the browser \
         tests need it. Install it with `apt-get install -y chromium` (Debian; .ci/run does this \
         when it is missing), or point JUDGE_CHROMIUM at a Chromium or Chrome binary.",
        names.join(", ")
    ))
}

/// A running Chromium and the pipe to it: commands go in under a lock, and a reader thread
/// hands each reply to the command waiting for it and each event to its page's session.
struct Process {
    child: Mutex<Child>,
    to_browser: Mutex<File>,
    next_id: AtomicU64,
    routes: Arc<Routes>,
    /// The profile folder (its `stderr.log` says why a browser died); removed at close.
    profile: Mutex<Option<tempfile::TempDir>>,
    profile_path: PathBuf,
}

/// Where what the browser says goes.
#[derive(Default)]
struct Routes {
    /// The command waiting for a reply, by id.
    replies: Mutex<HashMap<u64, Sender<Value>>>,
    /// A page session's events, by session id.
    events: Mutex<HashMap<String, Sender<Value>>>,
    /// The pipe closed: the browser exited or crashed (no reply will come).
    closed: AtomicBool,
}

/// A pipe whose two ends are at fd 10 or above and close on exec (the child gets its ends as
/// fds 3 and 4 by `dup2`, which must not clobber the other one).
fn high_pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two fds into the array we own.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(r, 0, "pipe2: {}", std::io::Error::last_os_error());
    let high = fds.map(|fd| {
        // SAFETY: fcntl duplicates an fd this function just created, then closes the original.
        unsafe {
            let h = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            assert!(h >= 10, "fcntl: {}", std::io::Error::last_os_error());
            libc::close(fd);
            h
        }
    });
    (high[0], high[1])
}

impl Process {
    /// Starts Chromium headless (as root it needs `--no-sandbox`: Chromium's own sandbox
    /// refuses to run as root) with a 1280×900 window on the profile folder `profile`.
    fn start(profile: tempfile::TempDir) -> Process {
        let chromium = find_chromium().unwrap_or_else(|e| panic!("{e}"));
        let (commands_read, commands_write) = high_pipe();
        let (replies_read, replies_write) = high_pipe();
        let mut cmd = Command::new(&chromium);
        cmd.args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Nothing but the judge on 127.0.0.1: no pings, reports, updates, and no name
            // lookups at all (without the resolver rule Chromium asks DNS for Google's hosts
            // even with every background feature off; measured with strace).
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--no-pings",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--disable-default-apps",
            "--metrics-recording-only",
            "--safebrowsing-disable-auto-update",
            "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--mute-audio",
            // Pages of tests running at once each have a window: none is a background one
            // whose timers are slowed.
            "--disable-background-timer-throttling",
            "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--window-size=1280,900",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            File::create(profile.path().join("stderr.log"))
                .map(Stdio::from)
                .unwrap_or_else(|_| Stdio::null()),
        )
        // Its own process group, so that its helpers (zygote, renderers, GPU) go with it.
        .process_group(0);
        // SAFETY: between fork and exec only dup2 on fds this process owns.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(commands_read, 3) < 0 || libc::dup2(replies_write, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let spawned = cmd.spawn();
        // SAFETY: the child has its copies; these ends are the parent's to close or own.
        let (to_browser, from_browser) = unsafe {
            libc::close(commands_read);
            libc::close(replies_write);
            (
                File::from_raw_fd(commands_write),
                File::from_raw_fd(replies_read),
            )
        };
        let child = spawned.unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
        let routes = Arc::new(Routes::default());
        let reader_routes = Arc::clone(&routes);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(from_browser);
            loop {
                let mut message = Vec::new();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                reader_routes.deliver(value);
            }
            // Whoever waits learns at once that nothing more comes.
            reader_routes.closed.store(true, Ordering::SeqCst);
            lock(&reader_routes.replies).clear();
            lock(&reader_routes.events).clear();
        });
        let profile_path = profile.path().to_path_buf();
        Process {
            child: Mutex::new(child),
            to_browser: Mutex::new(to_browser),
            next_id: AtomicU64::new(1),
            routes,
            profile: Mutex::new(Some(profile)),
            profile_path,
        }
    }

    /// Sends a command (to a page's session, or to the browser) and waits for its result.
    fn send(&self, method: &str, params: Value, session: Option<&str>) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = channel();
        lock(&self.routes.replies).insert(id, tx);
        if self.routes.closed.load(Ordering::SeqCst) {
            lock(&self.routes.replies).remove(&id);
            return Err(self.died(method));
        }
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = Value::String(s.to_string());
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        if let Err(e) = lock(&self.to_browser).write_all(&bytes) {
            lock(&self.routes.replies).remove(&id);
            return Err(format!("cannot send {method} to the browser: {e}"));
        }
        let reply = match rx.recv_timeout(COMMAND_TIMEOUT) {
            Ok(reply) => reply,
            Err(RecvTimeoutError::Timeout) => {
                lock(&self.routes.replies).remove(&id);
                return Err(format!(
                    "the browser did not answer {method} within {COMMAND_TIMEOUT:?}"
                ));
            }
            Err(RecvTimeoutError::Disconnected) => return Err(self.died(method)),
        };
        match reply.get("error") {
            Some(error) => Err(format!("{method} failed: {error}")),
            None => Ok(reply["result"].clone()),
        }
    }

    fn died(&self, method: &str) -> String {
        format!(
            "the browser closed its pipe during {method} (did it crash?); its stderr ends \
             with:\n{}",
            self.stderr_tail()
        )
    }

    /// The last lines Chromium wrote on stderr (why it could not start or died).
    fn stderr_tail(&self) -> String {
        let text =
            std::fs::read_to_string(self.profile_path.join("stderr.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Closes the browser as a user would (its profile written out), then ends whatever of its
    /// process group is left.
    fn close(&self) {
        let _ = lock(&self.to_browser)
            .write_all(b"{\"id\":0,\"method\":\"Browser.close\",\"params\":{}}\0");
        let mut child = lock(&self.child);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // The browser's own helpers, started by this process (the group's id is its pid).
        let group = child.id() as i32;
        // SAFETY: kill on the process group this process created.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = child.wait();
    }
}

impl Routes {
    fn deliver(&self, message: Value) {
        if let Some(id) = message["id"].as_u64() {
            if let Some(waiting) = lock(&self.replies).remove(&id) {
                let _ = waiting.send(message);
            }
        } else if let Some(session) = message["sessionId"].as_str() {
            if let Some(page) = lock(&self.events).get(session) {
                let _ = page.send(message);
            }
        }
    }
}

/// A lock whatever a panicking test left in it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The Chromium this test process shares between its browser tests: started by the first,
/// closed at the process's exit. Starting one takes about 1.3 s of CPU (measured 2026-11-27,
/// with its first page); a browser context of its own per test costs a fraction of that.
fn shared() -> &'static Process {
    static SHARED: OnceLock<Process> = OnceLock::new();
    let mut started = false;
    let process = SHARED.get_or_init(|| {
        started = true;
        Process::start(new_profile())
    });
    if started {
        let _ = SHARED_CLOSE.set(process);
        // SAFETY: registers a plain function that closes the browser at exit.
        unsafe { libc::atexit(close_shared) };
    }
    process
}

extern "C" fn close_shared() {
    if let Some(process) = SHARED_CLOSE.get() {
        process.close();
        drop(lock(&process.profile).take());
    }
}

/// The shared browser as [`close_shared`] finds it.
static SHARED_CLOSE: OnceLock<&'static Process> = OnceLock::new();

fn new_profile() -> tempfile::TempDir {
    tempfile::tempdir().expect("cannot create a browser profile folder")
}

/// Which Chromium a [`Browser`] drives.
enum Engine {
    /// The test process's shared one, in a browser context of the page's own.
    Shared { context: String },
    /// One of its own (for a test that restarts the browser).
    Own(Process),
}

/// A page in a headless Chromium: by default in a browser context of its own (cookies, storage
/// and cache apart from every other test's) in the Chromium the test process shares.
pub struct Browser {
    /// `None` once handed on ([`Browser::restart`]).
    engine: Option<Engine>,
    session: String,
    events: Receiver<Value>,
    /// Console messages, browser log entries (`log.error: Refused to …` for a Content Security
    /// Policy violation) and uncaught exceptions of the page.
    pub console: Vec<String>,
}

impl Browser {
    /// A new blank page, 1280×900, in a browser context of its own of the shared Chromium.
    pub fn launch() -> Browser {
        let context = shared()
            .send("Target.createBrowserContext", json!({}), None)
            .unwrap_or_else(|e| panic!("{e}"))["browserContextId"]
            .as_str()
            .expect("a browser context id")
            .to_string();
        Browser::open(Engine::Shared { context })
    }

    /// A new blank page in a Chromium of its own with a fresh profile: for a test that
    /// restarts the browser ([`Browser::restart`]).
    pub fn launch_own() -> Browser {
        Browser::open(Engine::Own(Process::start(new_profile())))
    }

    /// Closes the browser as a user would (its profile written out) and starts it again on the
    /// same profile: what a browser restart keeps (persistent cookies), it keeps. Only for a
    /// browser of its own ([`Browser::launch_own`]).
    pub fn restart(mut self) -> Browser {
        let Some(Engine::Own(process)) = self.engine.take() else {
            panic!("restart: only a browser of its own (Browser::launch_own) restarts");
        };
        process.close();
        let profile = lock(&process.profile)
            .take()
            .expect("the browser's profile folder");
        Browser::open(Engine::Own(Process::start(profile)))
    }

    fn process(&self) -> &Process {
        match &self.engine {
            Some(Engine::Own(p)) => p,
            _ => shared(),
        }
    }

    /// Opens a blank page in `engine` and attaches to it.
    fn open(engine: Engine) -> Browser {
        let process = match &engine {
            Engine::Shared { .. } => shared(),
            Engine::Own(p) => p,
        };
        let mut params = json!({"url": "about:blank"});
        if let Engine::Shared { context } = &engine {
            params["browserContextId"] = Value::String(context.clone());
        }
        let target = process
            .send("Target.createTarget", params, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let target_id = target["targetId"]
            .as_str()
            .expect("a target id")
            .to_string();
        let attached = process
            .send(
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
                None,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        let (tx, events) = channel();
        lock(&process.routes.events).insert(session.clone(), tx);
        let mut browser = Browser {
            engine: Some(engine),
            session,
            events,
            console: Vec::new(),
        };
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser.call("Log.enable", json!({}));
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        );
        // The page behaves as the focused one, as a page alone in its browser was.
        browser.call(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        );
        browser
    }

    fn note_event(&mut self, event: &Value) {
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args: Vec<String> = event["params"]["args"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|v| v["value"].to_string().trim_matches('"').to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                self.console.push(format!(
                    "console.{}: {}",
                    event["params"]["type"].as_str().unwrap_or("log"),
                    args.join(" ")
                ));
            }
            Some("Log.entryAdded") => {
                let entry = &event["params"]["entry"];
                self.console.push(format!(
                    "log.{}: {}",
                    entry["level"].as_str().unwrap_or("info"),
                    entry["text"].as_str().unwrap_or("")
                ));
            }
            Some("Runtime.exceptionThrown") => {
                let details = &event["params"]["exceptionDetails"];
                self.console.push(format!(
                    "exception: {} {}",
                    details["text"].as_str().unwrap_or(""),
                    details["exception"]["description"].as_str().unwrap_or("")
                ));
            }
            _ => {}
        }
    }

    /// A command to the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let result = self
            .process()
            .send(method, params, Some(&self.session))
            .unwrap_or_else(|e| panic!("{e}"));
        while let Ok(event) = self.events.try_recv() {
            self.note_event(&event);
        }
        result
    }

    /// Opens `url` and waits until the document and its scripts are loaded.
    pub fn goto(&mut self, url: &str) {
        let result = self.call("Page.navigate", json!({"url": url}));
        if let Some(error) = result.get("errorText") {
            panic!("cannot open {url}: {error}");
        }
        self.wait_for(
            "document.readyState === 'complete'",
            Duration::from_secs(30),
        );
    }
    /// The value of a JavaScript expression in the page (a promise is awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(details) = result.get("exceptionDetails") {
            panic!(
                "{expression}: {}",
                details["exception"]["description"]
                    .as_str()
                    .unwrap_or(&details.to_string())
            );
        }
        result["result"]["value"].clone()
    }

    /// Polls `expression` until it is truthy and returns its value; fails the test with `what`
    /// the page shows when it is not within `timeout`.
    pub fn wait_for(&mut self, expression: &str, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.eval(expression);
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return value;
            }
            if Instant::now() > deadline {
                let shown = self.eval("document.body ? document.body.innerText : ''");
                panic!(
                    "waited {timeout:?} for `{expression}`; the page shows:\n{}\nconsole:\n{}",
                    shown.as_str().unwrap_or(""),
                    self.console.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A PNG of the viewport, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = base64_decode(shot["data"].as_str().expect("screenshot data"));
        assert!(data.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        match &self.engine {
            None => {}
            Some(Engine::Shared { context }) => {
                let process = shared();
                lock(&process.routes.events).remove(&self.session);
                // Its pages close with it. (A failed test's browser may be gone: no panic here.)
                let _ = process.send(
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": context}),
                    None,
                );
            }
            Some(Engine::Own(process)) => process.close(),
        }
    }
}

/// Standard base64 (with padding) to bytes.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for chunk in clean.chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= if c == b'=' { 0 } else { value(c) } << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

#[test]
fn base64_decodes_padded_and_unpadded_ends() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGk="), b"hi");
    assert_eq!(base64_decode("aGV5"), b"hey");
    assert_eq!(base64_decode("aA=="), b"h");
}
