//! A small fluent helper around the `judge` binary: `judge().run("sum", "ac.cpp").json()`.
//!
//! Every invocation is contained: the judge runs in its own PID namespace (`unshare --pid --fork
//! --kill-child`) and in its own cgroup with memory and process caps, so a sandbox bug fails a test
//! instead of taking the machine down. The judge gets a private TMPDIR (as root, a tmpfs of its
//! mount namespace: files cost far less CPU there than on this machine's disk); afterwards the
//! test fails if the judge left anything there or left a cgroup behind, or if any process
//! outlived the judge (PID 1 of the namespace is a small Python init that runs the judge, then
//! lists what is left).
//! Judges that must see each other's folders (one killed, the next cleaning up after it) share a
//! [`Shared`] TMPDIR and cgroup instead, checked once all of them are done.
//! Each judge builds through the run's shared build cache ([`run_build_cache`]), so a program
//! several tests build is compiled once a run, unless the test sets a cache itself, runs the
//! judge as another user, or is about compiling ([`Judge::private_build_cache`]: an empty one).
//!
//! The judge never gets `JUDGE_CGROUP_FAVORDYNMODS` (not from the test's environment, not from
//! [`Judge::env`]): that mode is kernel-wide until reboot.
//!
//! Its length is earned: the containment (PID namespace, cgroup caps), the fixtures and the
//! assertions every integration test shares live here once.

use std::ffi::{CString, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Memory cap of one contained judge invocation (the judge, its compilers and the program).
const MEMORY_CAP: u64 = 3 << 30;
/// Process cap of one contained invocation.
const PIDS_CAP: u32 = 512;

/// Copies the folder `from` into `to` (made if missing), files and sub-folders.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture_problem(name: &str) -> PathBuf {
    root().join("tests/fixtures/problems").join(name)
}

/// The `sum` fixture's CPU time limit in problem.toml (short, so that a deliberate TLE burns
/// little of the machine the tests share).
pub const SUM_TIME_LIMIT: &str = "time_limit = 0.25";

/// A copy of the `sum` fixture (in `sum` under the returned folder) with its limits line
/// replaced by `limits` (see [`set_sum_limits`]).
pub fn sum_with_limits(limits: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sum = dir.path().join("sum");
    copy_dir(&fixture_problem("sum"), &sum);
    set_sum_limits(&sum, limits);
    dir
}

/// A copy of the `sum` fixture (in `sum` under the returned folder) with `time_limit` in seconds.
pub fn sum_with_time_limit(seconds: f64) -> tempfile::TempDir {
    sum_with_limits(&format!("time_limit = {seconds:?}"))
}

/// Replaces the [`SUM_TIME_LIMIT`] line of the copy of `sum` in `dir` by `limits` (one or more
/// lines of its `[limits]`); fails the test if the line is not there.
pub fn set_sum_limits(dir: &Path, limits: &str) {
    let toml = dir.join("problem.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let changed = text.replace(SUM_TIME_LIMIT, limits);
    assert_ne!(
        changed, text,
        "the sum fixture's time limit is not `{SUM_TIME_LIMIT}`"
    );
    std::fs::write(&toml, changed).unwrap();
}

pub fn program(name: &str) -> PathBuf {
    root().join("tests/fixtures/programs").join(name)
}

pub fn judge<'a>() -> Judge<'a> {
    Judge {
        args: Vec::new(),
        dir: root(),
        program: PathBuf::from(env!("CARGO_BIN_EXE_judge")),
        user: None,
        signal_after: None,
        shared: None,
        stdout_lines: None,
        merge_stderr: false,
        stamp_stdout: false,
        hide_cgroups: false,
        env: Vec::new(),
        stdin: None,
        interrupt_when: None,
        private_build_cache: false,
    }
}

pub struct Judge<'a> {
    args: Vec<OsString>,
    dir: PathBuf,
    program: PathBuf,
    user: Option<u32>,
    /// A signal to send the judge after some seconds.
    signal_after: Option<(i32, f64)>,
    shared: Option<&'a Shared>,
    stdout_lines: Option<usize>,
    merge_stderr: bool,
    stamp_stdout: bool,
    hide_cgroups: bool,
    env: Vec<(OsString, OsString)>,
    /// What the judge reads on stdin (`None`: nothing, /dev/null).
    stdin: Option<Vec<u8>>,
    /// SIGINT once this gets a message or its sender is gone ([`Judge::interrupt_when`]).
    interrupt_when: Option<std::sync::mpsc::Receiver<()>>,
    /// A private, empty build cache instead of the run's ([`Judge::private_build_cache`]).
    private_build_cache: bool,
}

impl<'a> Judge<'a> {
    /// Gives the judge `bytes` on its stdin (a pipe, closed after them).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        assert!(
            self.interrupt_when.is_none(),
            "stdin: not with interrupt_when"
        );
        self.stdin = Some(bytes.into());
        self
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, a: I) -> Self {
        self.args.extend(a.into_iter().map(Into::into));
        self
    }

    /// Runs this judge executable instead of the one cargo built (e.g. a copy others can read).
    pub fn program(mut self, path: impl AsRef<Path>) -> Self {
        self.program = path.as_ref().to_path_buf();
        self
    }

    /// Runs the judge as this unprivileged uid/gid (through `setpriv`).
    pub fn user(mut self, uid: u32) -> Self {
        self.user = Some(uid);
        self
    }

    /// Sets an environment variable for the judge.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sends SIGINT to the judge after this many seconds.
    pub fn interrupt_after(mut self, seconds: f64) -> Self {
        self.signal_after = Some((libc::SIGINT, seconds));
        self
    }

    /// Sends SIGINT to the judge when `told` gets a message or its sender is dropped: when the
    /// test is done with it, rather than after a guess at how long that takes.
    /// (Not with [`Judge::stdin`]: the judge's stdin is then /dev/null, and the harness's own
    /// is the cue.)
    pub fn interrupt_when(mut self, told: std::sync::mpsc::Receiver<()>) -> Self {
        assert!(
            self.stdin.is_none(),
            "interrupt_when: the judge reads nothing then"
        );
        self.interrupt_when = Some(told);
        self
    }

    /// Kills the judge with SIGKILL after this many seconds (it cannot clean up: use with
    /// [`Judge::shared`], whose leftovers are checked later).
    pub fn kill_after(mut self, seconds: f64) -> Self {
        self.signal_after = Some((libc::SIGKILL, seconds));
        self
    }

    /// Runs in `shared`'s TMPDIR and cgroup, and leaves the check for leftovers to
    /// [`Shared::finish`].
    pub fn shared(mut self, shared: &'a Shared) -> Self {
        self.shared = Some(shared);
        self
    }

    /// Reads this many lines of the judge's stdout, then closes it (like `judge … | head -n N`);
    /// `stdout()` holds the lines read.
    pub fn close_stdout_after(mut self, lines: usize) -> Self {
        self.stdout_lines = Some(lines);
        self
    }

    /// Sends the judge's stderr into its stdout (`2>&1`), e.g. to close both at once.
    pub fn stderr_to_stdout(mut self) -> Self {
        self.merge_stderr = true;
        self
    }

    /// Reads the judge's stdout line by line as it comes and prefixes each line with the seconds
    /// since the judge started (`1.234 {...}`), then adds `<seconds> HARNESS-EXIT` when the judge
    /// has exited: shows whether output streams or comes all at the end.
    pub fn stamp_stdout(mut self) -> Self {
        self.stamp_stdout = true;
        self
    }

    /// Hides the cgroup filesystem from the judge (an empty tmpfs over /sys/fs/cgroup in its
    /// mount namespace): as root, the sandbox without cgroups (its watchdog holds the limits).
    /// The judge itself stays in the containing cgroup.
    pub fn without_cgroups(mut self) -> Self {
        self.hide_cgroups = true;
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = dir.as_ref().to_path_buf();
        self
    }

    /// Builds through a private, empty build cache instead of the run's shared one
    /// ([`run_build_cache`]): for a test about compiling, whose judge must run the compiler.
    pub fn private_build_cache(mut self) -> Self {
        self.private_build_cache = true;
        self
    }

    /// The environment the judge gets: the test's, and the run's shared build cache unless the
    /// test keeps a private one, sets one itself, or runs the judge as another user (the
    /// shared cache is root's; the judge would refuse it with a warning).
    fn judge_env(&self) -> Vec<(OsString, OsString)> {
        let mut env = self.env.clone();
        let sets_cache = env
            .iter()
            .any(|(k, _)| k == "JUDGE_CACHE_DIR" || k == "XDG_CACHE_HOME");
        if !self.private_build_cache && !sets_cache && self.user.is_none() {
            env.push(("JUDGE_CACHE_DIR".into(), run_build_cache().into()));
        }
        env
    }

    /// `judge run <fixture problem> <fixture program> --json`.
    pub fn run_fixture(self, problem: &str, prog: &str) -> Finished {
        self.arg("run")
            .arg(fixture_problem(problem))
            .arg(program(prog))
            .arg("--json")
            .output()
    }

    pub fn output(self) -> Finished {
        let mut args = self.args.clone();
        let mut program = self.program.clone().into_os_string();
        // Without root the sandbox caps a run's processes at what its user runs already plus
        // the limit (RLIMIT_NPROC): a fork bomb of one test's judge as `nobody` would take the
        // threads of another's. One judge runs as a given user at a time.
        let _as_user = self.user.map(AsUser::take);
        if let Some(uid) = self.user {
            let mut wrapped: Vec<OsString> = [
                format!("--reuid={uid}"),
                format!("--regid={uid}"),
                "--clear-groups".into(),
            ]
            .into_iter()
            .map(OsString::from)
            .collect();
            wrapped.push(program);
            wrapped.extend(args);
            args = wrapped;
            program = "setpriv".into();
        }
        let (output, peak_memory) = contained(
            &program.to_string_lossy(),
            &args,
            &self.dir,
            Containment {
                signal_after: self.signal_after,
                stdout_lines: self.stdout_lines,
                merge_stderr: self.merge_stderr,
                stamp_stdout: self.stamp_stdout,
                hide_cgroups: self.hide_cgroups,
                host_net: false,
                interrupt_on_eof: self.interrupt_when.is_some(),
                // Set by `contained`: whether the TMPDIR is this judge's alone.
                own_tmp: false,
            },
            &self.judge_env(),
            self.shared,
            match (&self.stdin, self.interrupt_when) {
                (Some(bytes), _) => Stdin::Bytes(bytes),
                (None, Some(told)) => Stdin::CloseWhen(told),
                (None, None) => Stdin::Null,
            },
        );
        Finished {
            output,
            peak_memory,
            what: format!(
                "judge {}",
                self.args
                    .iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

impl Judge<'_> {
    /// Starts the judge as a server that keeps running: contained like [`Judge::output`] but in
    /// the host's network namespace, so the test reaches its ports on 127.0.0.1. Read what it
    /// prints with [`Serving::line`]; [`Serving::stop`] interrupts it (SIGINT) and checks that
    /// it left nothing behind.
    pub fn serve(self) -> Serving {
        assert!(
            self.user.is_none() && self.shared.is_none(),
            "serve: run as root, alone"
        );
        let beside = Beside::others();
        let cgroups = Cgroups::create(&test_cgroup_name());
        let tmp = private_tmpdir();
        let cache = tempfile::tempdir().expect("cannot create a cache folder for the judge");
        let how = Containment {
            host_net: true,
            interrupt_on_eof: true,
            own_tmp: true,
            ..Containment::default()
        };
        let mut cmd = contained_command(
            &self.program.to_string_lossy(),
            &self.args,
            &self.dir,
            how,
            &self.judge_env(),
            &cgroups,
            tmp.path(),
            cache.path(),
        );
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("cannot start the judge");
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        Serving {
            child: Some(child),
            stdout,
            read: Vec::new(),
            cgroups,
            tmp,
            _cache: cache,
            _beside: beside,
        }
    }
}

/// A judge started by [`Judge::serve`].
pub struct Serving {
    child: Option<std::process::Child>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    /// The lines read so far.
    read: Vec<String>,
    cgroups: Cgroups,
    tmp: tempfile::TempDir,
    _cache: tempfile::TempDir,
    _beside: Beside,
}

impl Serving {
    /// The next line the judge prints on stdout (without its newline); panics at the end.
    pub fn line(&mut self) -> String {
        use std::io::BufRead;
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .expect("cannot read the judge's stdout");
        assert!(n > 0, "the judge ended; it printed {:?}", self.read);
        let line = line.trim_end_matches('\n').to_string();
        self.read.push(line.clone());
        line
    }

    /// Interrupts the judge and waits for it; fails the test if it left anything behind.
    pub fn stop(mut self) -> Finished {
        use std::io::Read;
        let mut child = self.child.take().unwrap();
        drop(child.stdin.take());
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        let output = child.wait_with_output().expect("cannot wait for the judge");
        let mut stdout = self.read.join("\n").into_bytes();
        if !stdout.is_empty() {
            stdout.push(b'\n');
        }
        stdout.extend(rest);
        let output = Output { stdout, ..output };
        let (output, peak_memory) = check_contained(output, &self.cgroups, self.tmp.path(), true);
        Finished {
            output,
            peak_memory,
            what: "judge practice (served)".into(),
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        // A test that failed before `stop`: end everything (unshare --kill-child ends the
        // namespace with it) and remove the cgroups.
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            self.cgroups.kill_and_remove();
        }
    }
}

pub struct Finished {
    pub output: Output,
    /// Peak memory of everything the contained invocation ran (the judge, its worker and the
    /// programs), from the containing cgroup, in bytes.
    pub peak_memory: Option<u64>,
    what: String,
}

impl Finished {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    pub fn describe(&self) -> String {
        format!(
            "{}\n--- status: {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.what,
            self.output.status,
            self.stdout(),
            self.stderr()
        )
    }

    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code(),
            Some(code),
            "wrong exit status: {}",
            self.describe()
        );
        self
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.describe()))
    }

    /// Asserts the final verdict of a `--json` run and returns the document.
    pub fn expect_verdict(&self, verdict: &str) -> serde_json::Value {
        self.expect_verdict_among(&[verdict])
    }

    /// Asserts that the final verdict of a `--json` run is one of `verdicts`.
    pub fn expect_verdict_among(&self, verdicts: &[&str]) -> serde_json::Value {
        let doc = self.json();
        let verdict = doc["verdict"].as_str().unwrap_or_default();
        assert!(
            verdicts.contains(&verdict),
            "wrong verdict: {verdict:?}, expected one of {verdicts:?}: {}",
            self.describe()
        );
        let code = match verdict {
            "AC" => 0,
            "JE" => 2,
            _ => 1,
        };
        self.expect_code(code);
        doc
    }

    pub fn expect_stderr_contains(&self, text: &str) -> &Self {
        assert!(
            self.stderr().contains(text),
            "stderr lacks {text:?}: {}",
            self.describe()
        );
        self
    }

    pub fn expect_stdout_contains(&self, text: &str) -> &Self {
        assert!(
            self.stdout().contains(text),
            "stdout lacks {text:?}: {}",
            self.describe()
        );
        self
    }
}

/// The judges of tests that measure time or need the CPUs free (a run killed within 0.3 s of its
/// limit, `-j 1` and `-j 2` giving the same verdicts near a limit) and the judges of all other
/// tests: the first run alone ([`alone`]), the others beside each other. The tests run on more
/// threads than CPUs (`TEST_THREADS` in main.rs), since most of them wait on wall-time limits,
/// servers and browsers; a timing test must not share the CPUs with them.
static ALONE: std::sync::Mutex<AloneState> = std::sync::Mutex::new(AloneState {
    beside: 0,
    alone: false,
    waiting: 0,
});
static ALONE_CHANGED: std::sync::Condvar = std::sync::Condvar::new();

struct AloneState {
    /// Judges running (or servers serving) for tests not run alone.
    beside: usize,
    /// A test runs alone now.
    alone: bool,
    /// Tests waiting to run alone.
    waiting: usize,
}

/// How long a new judge holds back for a test waiting to run alone before it starts anyway: a
/// test may need a second judge to start before its first can end (a server and its client),
/// so holding back for good could leave both waiting for each other.
const HOLD_BACK: std::time::Duration = std::time::Duration::from_secs(5);

thread_local! {
    /// This thread belongs to the test that runs alone: its own judges do not wait.
    static HOLDS_ALONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn alone_state() -> std::sync::MutexGuard<'static, AloneState> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits until no other test's judge runs, then keeps every other test's judges from starting
/// until it is dropped: for a test whose assertions depend on time or on the CPUs being free.
/// Take it first thing in the test, and put the test in `alone.rs` (whose tests run first, one
/// after another); a judge the test starts from another thread needs [`Alone::enter`] there.
pub fn alone() -> Alone {
    let mut state = alone_state();
    state.waiting += 1;
    while state.alone || state.beside > 0 {
        state = ALONE_CHANGED.wait(state).unwrap_or_else(|e| e.into_inner());
    }
    state.waiting -= 1;
    state.alone = true;
    drop(state);
    HOLDS_ALONE.with(|h| h.set(true));
    Alone { _made_by_alone: () }
}

/// See [`alone`].
pub struct Alone {
    _made_by_alone: (),
}

impl Alone {
    /// Lets the judges this thread starts (another thread of the test that runs alone) go on
    /// while the returned value lives.
    pub fn enter(&self) -> AloneThread {
        HOLDS_ALONE.with(|h| h.set(true));
        AloneThread { _made_by_enter: () }
    }
}

impl Drop for Alone {
    fn drop(&mut self) {
        HOLDS_ALONE.with(|h| h.set(false));
        alone_state().alone = false;
        ALONE_CHANGED.notify_all();
    }
}

/// See [`Alone::enter`].
pub struct AloneThread {
    _made_by_enter: (),
}

impl Drop for AloneThread {
    fn drop(&mut self) {
        HOLDS_ALONE.with(|h| h.set(false));
    }
}

/// A judge of a test not run [`alone`]: it waits while such a test runs (and, up to
/// [`HOLD_BACK`], while one waits to), and keeps one from starting while it runs.
struct Beside {
    counted: bool,
}

impl Beside {
    fn others() -> Beside {
        if HOLDS_ALONE.with(|h| h.get()) {
            return Beside { counted: false };
        }
        let start = std::time::Instant::now();
        let mut state = alone_state();
        loop {
            let waited = start.elapsed();
            if !state.alone && (state.waiting == 0 || waited >= HOLD_BACK) {
                state.beside += 1;
                return Beside { counted: true };
            }
            // A judge started from another thread of the test that runs alone, without
            // `Alone::enter`, would wait for that test forever: fail instead, after far longer
            // than any test runs alone.
            assert!(
                waited < std::time::Duration::from_secs(600),
                "waited 10 minutes for a test that runs alone (a judge started from another thread of it, without Alone::enter?)"
            );
            state = ALONE_CHANGED
                .wait_timeout(state, std::time::Duration::from_millis(500))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        if self.counted {
            alone_state().beside -= 1;
            ALONE_CHANGED.notify_all();
        }
    }
}

/// The users whose judge runs now ([`Judge::user`]): one judge per user at a time.
static AS_USER: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());
static AS_USER_FREED: std::sync::Condvar = std::sync::Condvar::new();

/// A user's turn to run a judge, until dropped.
struct AsUser(u32);

impl AsUser {
    fn take(uid: u32) -> AsUser {
        let mut busy = AS_USER.lock().unwrap_or_else(|e| e.into_inner());
        while busy.contains(&uid) {
            busy = AS_USER_FREED.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        busy.push(uid);
        AsUser(uid)
    }
}

impl Drop for AsUser {
    fn drop(&mut self) {
        let mut busy = AS_USER.lock().unwrap_or_else(|e| e.into_inner());
        busy.retain(|&u| u != self.0);
        AS_USER_FREED.notify_all();
    }
}

/// An unprivileged user for a judge run without root: `nobody` (65534) or one of the three
/// unused ids below it, in turn, so that tests running at once mostly run as different users
/// and need not wait for each other ([`Judge::user`] runs one judge per user at a time).
pub fn unprivileged_uid() -> u32 {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    65534 - (NEXT.fetch_add(1, Ordering::Relaxed) % 4) as u32
}

/// The build cache the tests of this run share (see [`Judge::private_build_cache`]): a folder of
/// this process's own under cargo's folder for test data (`target/tmp`), named by its pid and
/// start time, so every run of the tests compiles each program at least once (a cache that
/// outlived the run would hide compiles from the next one), and two runs at once do not share
/// one. Those of runs that have ended are removed on the first call. The judge's cache is safe
/// to share between judges running at once (an entry is renamed into place whole).
pub fn run_build_cache() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("run-build-caches");
        std::fs::create_dir_all(&base).expect("cannot create target/tmp/run-build-caches");
        for e in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let alive = name
                .split_once('-')
                .and_then(|(pid, _)| pid.parse::<u32>().ok())
                .and_then(process_name)
                .is_some_and(|now| now == name);
            if !alive {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let me = process_name(std::process::id()).expect("cannot read /proc/self/stat");
        base.join(me)
    })
    .clone()
}

/// `PID-STARTTIME` of a live process (its start time in clock ticks since boot, from
/// /proc/PID/stat), so a reused pid is another name; `None` once it has ended.
fn process_name(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses and may hold anything.
    let rest = &stat[stat.rfind(')')? + 2..];
    // starttime is field 22 of the line; `rest` starts at field 3.
    let start = rest.split_whitespace().nth(22 - 3)?;
    Some(format!("{pid}-{start}"))
}

/// A TMPDIR and a containing cgroup shared by several judges; [`Shared::finish`] checks that
/// they left nothing behind, all together.
pub struct Shared {
    tmp: tempfile::TempDir,
    cgroups: Cgroups,
}

impl Shared {
    pub fn new() -> Shared {
        Shared {
            tmp: private_tmpdir(),
            cgroups: Cgroups::create(&test_cgroup_name()),
        }
    }

    /// What is in the TMPDIR and which cgroups are below the containing ones, now.
    pub fn contents(&self) -> Vec<PathBuf> {
        let mut found = files_in(self.tmp.path());
        for dir in &self.cgroups.dirs {
            found.extend(nested_cgroups(dir));
        }
        found.sort();
        found
    }

    /// Fails the test if the judges left anything in the TMPDIR or a cgroup behind.
    pub fn finish(self) {
        let left_cgroups = self.cgroups.kill_and_remove();
        assert!(
            left_cgroups.is_empty(),
            "the judges left cgroups behind: {left_cgroups:?}"
        );
        let left_files = files_in(self.tmp.path());
        assert!(
            left_files.is_empty(),
            "the judges left files in their TMPDIR: {left_files:?}"
        );
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.cgroups.kill_and_remove();
    }
}

fn test_cgroup_name() -> String {
    format!(
        "judge-test-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// A TMPDIR of its own, world-writable like /tmp, so a judge run as another user can use it too.
fn private_tmpdir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("cannot create a TMPDIR for the judge");
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o1777),
    )
    .unwrap();
    tmp
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect()
}

fn nested_cgroups(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}

/// How a contained invocation is disturbed.
#[derive(Debug, Default, Clone, Copy)]
pub struct Containment {
    /// Send this signal after this many seconds.
    pub signal_after: Option<(i32, f64)>,
    /// Close the judge's stdout after reading this many lines.
    pub stdout_lines: Option<usize>,
    /// The judge's stderr goes to its stdout.
    pub merge_stderr: bool,
    /// Stamp each stdout line with the time it arrived (see `Judge::stamp_stdout`).
    pub stamp_stdout: bool,
    /// Hide /sys/fs/cgroup from the judge (see `Judge::without_cgroups`).
    pub hide_cgroups: bool,
    /// Keep the host's network namespace (a server the test talks to on 127.0.0.1).
    pub host_net: bool,
    /// Send the judge SIGINT when the harness's stdin closes (see `Judge::serve`).
    pub interrupt_on_eof: bool,
    /// The TMPDIR is this judge's alone: the wrapper mounts a tmpfs on it in the judge's mount
    /// namespace, and says what the judge left there ([`TMPDIR_MARK`]). Creating files on this
    /// machine's disk (ext4 without a journal) costs several times the CPU; the judges of a run
    /// of the tests create hundreds of thousands.
    pub own_tmp: bool,
}

/// What a contained judge reads on stdin.
pub enum Stdin<'b> {
    /// /dev/null.
    Null,
    /// These bytes, then the end.
    Bytes(&'b [u8]),
    /// Nothing until this gets a message or its sender is gone, then the end (with
    /// [`Containment::interrupt_on_eof`], the wrapper's cue to interrupt the judge).
    CloseWhen(std::sync::mpsc::Receiver<()>),
}

/// Runs `program args` in its own namespaces and capped cgroup (or `shared`'s); cleans up
/// whatever is left (unless shared) and fails the test if anything was. Returns the output and
/// the peak memory of the containing cgroup.
pub fn contained(
    program: &str,
    args: &[OsString],
    dir: &Path,
    how: Containment,
    env: &[(OsString, OsString)],
    shared: Option<&Shared>,
    stdin: Stdin,
) -> (Output, Option<u64>) {
    let _beside = Beside::others();
    let own = match shared {
        Some(_) => None,
        None => Some((Cgroups::create(&test_cgroup_name()), private_tmpdir())),
    };
    let (cgroups, tmp) = match (&own, shared) {
        (Some((c, t)), _) => (c, t.path()),
        (None, Some(s)) => (&s.cgroups, s.tmp.path()),
        (None, None) => unreachable!(),
    };
    // A private, empty build cache unless the test names one (a cache shared between tests
    // would hide compiles); writable by all, so a judge run as another user makes its own in it.
    let cache = tempfile::tempdir().expect("cannot create a cache folder for the judge");
    let how = Containment {
        own_tmp: shared.is_none(),
        ..how
    };
    let mut cmd = contained_command(program, args, dir, how, env, cgroups, tmp, cache.path());
    let output = match stdin {
        Stdin::Null => cmd.output().expect("cannot start the judge"),
        Stdin::Bytes(bytes) => {
            use std::io::Write;
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("cannot start the judge");
            let mut pipe = child.stdin.take().expect("a piped stdin");
            let bytes = bytes.to_vec();
            let writer = std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
            let output = child.wait_with_output().expect("cannot wait for the judge");
            let _ = writer.join();
            output
        }
        Stdin::CloseWhen(told) => {
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("cannot start the judge");
            let pipe = child.stdin.take().expect("a piped stdin");
            // Not joined: a judge that ended by itself leaves it waiting for the test's word.
            std::thread::spawn(move || {
                let _ = told.recv();
                drop(pipe);
            });
            child.wait_with_output().expect("cannot wait for the judge")
        }
    };
    check_contained(output, cgroups, tmp, shared.is_none())
}

/// The command that runs `program args` contained (see [`contained`]).
#[expect(
    clippy::too_many_arguments,
    reason = "everything a contained run is made of"
)]
fn contained_command(
    program: &str,
    args: &[OsString],
    dir: &Path,
    how: Containment,
    env: &[(OsString, OsString)],
    cgroups: &Cgroups,
    tmp: &Path,
    cache: &Path,
) -> Command {
    let mut cmd = if has_unshare() {
        let mut c = Command::new("unshare");
        // Its own PID, mount, network, IPC and UTS namespaces: a sandbox bug that kills, mounts
        // or listens stays inside the test. A server the test talks to keeps the host's
        // network (`host_net`): its ports are on 127.0.0.1 only.
        c.args([
            "--pid",
            "--fork",
            "--kill-child",
            "--mount",
            "--mount-proc",
            "--propagation",
            "private",
        ]);
        if !how.host_net {
            c.arg("--net");
        }
        c.args([
            "--ipc",
            "--uts",
            "--",
            "/usr/bin/python3",
            "-I",
            "-S",
            "-c",
            SURVIVORS,
        ])
        .arg(program);
        c
    } else {
        Command::new(program)
    };
    std::fs::set_permissions(cache, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    cmd.args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env("XDG_CACHE_HOME", cache.join("xdg"))
        .env_remove("JUDGE_CACHE_DIR")
        .env_remove("JUDGE_CACHE_SIZE")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env_remove("JUDGE_CGROUP_FAVORDYNMODS");
    if let Some((signal, seconds)) = how.signal_after {
        cmd.env("HARNESS_SIGNAL_AFTER", format!("{signal} {seconds}"));
    }
    if let Some(lines) = how.stdout_lines {
        cmd.env("HARNESS_STDOUT_LINES", lines.to_string());
    }
    if how.merge_stderr {
        cmd.env("HARNESS_STDERR_TO_STDOUT", "1");
    }
    if how.stamp_stdout {
        cmd.env("HARNESS_STAMP_STDOUT", "1");
    }
    if how.interrupt_on_eof {
        cmd.env("HARNESS_INTERRUPT_ON_EOF", "1");
    }
    if how.hide_cgroups {
        assert!(has_unshare(), "hiding the cgroups needs root and unshare");
        cmd.env("HARNESS_HIDE_CGROUPS", "1");
    }
    if how.own_tmp && has_unshare() {
        cmd.env("HARNESS_TMPFS", tmp);
    }
    let procs: Vec<CString> = cgroups
        .dirs
        .iter()
        .map(|d| {
            // On cgroup v1 through `tasks`, as the sandbox joins (the child is single-threaded
            // here): no wait for the kernel-wide thread-group lock (see JOIN_V1 in the sandbox).
            let file = if d.join("tasks").exists() {
                "tasks"
            } else {
                "cgroup.procs"
            };
            CString::new(d.join(file).to_string_lossy().into_owned()).unwrap()
        })
        .collect();
    // SAFETY: between fork and exec only open/write/close on pre-built C strings.
    unsafe {
        cmd.pre_exec(move || {
            for p in &procs {
                let fd = libc::open(p.as_ptr(), libc::O_WRONLY);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // "0" means the writing process itself.
                let r = libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
                if r < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd
}

/// Fails the test if processes outlived the judge, or (`own`: the cgroups and TMPDIR are this
/// run's alone) if it left cgroups or files behind; returns the output and the peak memory.
fn check_contained(
    output: Output,
    cgroups: &Cgroups,
    tmp: &Path,
    own: bool,
) -> (Output, Option<u64>) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains(SURVIVORS_MARK),
        "processes outlived the judge: {stderr}"
    );
    assert!(
        !stderr.contains(TMPDIR_MARK),
        "the judge left files in its TMPDIR: {stderr}"
    );
    let peak_memory = cgroups.peak_memory();
    if own {
        let left_cgroups = cgroups.kill_and_remove();
        assert!(
            left_cgroups.is_empty(),
            "the judge left cgroups behind: {left_cgroups:?}"
        );
        let left_files = files_in(tmp);
        assert!(
            left_files.is_empty(),
            "the judge left files in its TMPDIR: {left_files:?}"
        );
    }
    (output, peak_memory)
}

const SURVIVORS_MARK: &str = "HARNESS: processes outlived the judge";
const TMPDIR_MARK: &str = "HARNESS: the judge left files in its TMPDIR";

/// PID 1 of the test's PID namespace: runs the judge, then reaps and lists what is left (with
/// its own /proc, from `--mount-proc`). Anything still alive 1 s after the judge exited is
/// reported on stderr (and killed with the namespace); a process already exiting (no command
/// line left) gets 10 s. With `HARNESS_TMPFS` it mounts a tmpfs on the judge's TMPDIR first and
/// reports what the judge left there last. It starts in about 10 ms of CPU, half of what it
/// took with `subprocess` and `site` imported: it runs for every judge the tests start.
const SURVIVORS: &str = r#"
import os, sys, time
env = dict(os.environ)
after = env.pop("HARNESS_SIGNAL_AFTER", None)
lines = env.pop("HARNESS_STDOUT_LINES", None)
merge = env.pop("HARNESS_STDERR_TO_STDOUT", None) is not None
stamp = env.pop("HARNESS_STAMP_STDOUT", None) is not None
stop_on_eof = env.pop("HARNESS_INTERRUPT_ON_EOF", None) is not None
def wait(pid, timeout=None):
    # The exit code as subprocess gives it (-N for signal N), or None at the timeout.
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, 0 if deadline is None else os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)
if env.pop("HARNESS_HIDE_CGROUPS", None) is not None:
    mount = ["mount", "-t", "tmpfs", "-o", "ro,size=4k", "none", "/sys/fs/cgroup"]
    if wait(os.posix_spawnp(mount[0], mount, env)) != 0:
        sys.exit("HARNESS: could not hide the cgroups")
tmpfs = env.pop("HARNESS_TMPFS", None)
if tmpfs is not None:
    mount = ["mount", "-t", "tmpfs", "-o", "mode=1777", "none", tmpfs]
    if wait(os.posix_spawnp(mount[0], mount, env)) != 0:
        sys.exit("HARNESS: could not mount a tmpfs on the TMPDIR")
start = time.monotonic()
actions = []
out = None
if lines is not None or stamp:
    out, write_end = os.pipe()
    actions.append((os.POSIX_SPAWN_DUP2, write_end, 1))
if merge:
    actions.append((os.POSIX_SPAWN_DUP2, 1, 2))
if stop_on_eof:
    actions.append((os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0))
judge = os.posix_spawnp(sys.argv[1], sys.argv[1:], env, file_actions=actions)
if out is not None:
    os.close(write_end)
    out = os.fdopen(out, "rb")
if stop_on_eof:
    import signal, threading
    def interrupt_at_eof():
        sys.stdin.buffer.read()
        os.kill(judge, signal.SIGINT)
    threading.Thread(target=interrupt_at_eof, daemon=True).start()
code = None
if stamp:
    for line in iter(out.readline, b""):
        sys.stdout.buffer.write(b"%.3f " % (time.monotonic() - start) + line)
    code = wait(judge)
    sys.stdout.buffer.write(b"%.3f HARNESS-EXIT\n" % (time.monotonic() - start))
    sys.stdout.flush()
if lines is not None:
    # Like `| head -n N`: read N lines, pass them on, close the pipe.
    for _ in range(int(lines)):
        line = out.readline()
        if not line:
            break
        sys.stdout.buffer.write(line)
    sys.stdout.flush()
    out.close()
if after is not None and code is None:
    sig, seconds = after.split()
    code = wait(judge, float(seconds))
    if code is None:
        os.kill(judge, int(sig))
if code is None:
    code = wait(judge)
def name(p):
    try:
        return open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
# A second for everything to end; up to ten for processes already ending (their memory gone,
# so no command line: on a loaded machine a big program's exit can take more than a second).
left = []
ended = time.monotonic()
while True:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
    left = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    waited = time.monotonic() - ended
    if not left or waited > 10 or (waited > 1 and any(name(p) for p in left)):
        break
    time.sleep(0.01)
if left:
    sys.stderr.write("HARNESS: processes outlived the judge: " + "; ".join(f"{p} {name(p)}" for p in left) + "\n")
if tmpfs is not None and os.listdir(tmpfs):
    sys.stderr.write("HARNESS: the judge left files in its TMPDIR: " + ", ".join(sorted(os.listdir(tmpfs))) + "\n")
sys.exit(code if code >= 0 else 128 - code)
"#;

fn has_unshare() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root && Path::new("/usr/bin/unshare").exists()
}

/// The containing cgroups (v1 memory, pids and cpuacct here; a v2 directory elsewhere).
struct Cgroups {
    dirs: Vec<PathBuf>,
}

impl Cgroups {
    fn create(name: &str) -> Cgroups {
        let mut dirs = Vec::new();
        let v1 = [
            (
                "/sys/fs/cgroup/memory",
                vec![("memory.limit_in_bytes", MEMORY_CAP.to_string())],
            ),
            (
                "/sys/fs/cgroup/pids",
                vec![("pids.max", PIDS_CAP.to_string())],
            ),
            // No cap: contained so that the judge's run cgroups there are checked too.
            ("/sys/fs/cgroup/cpuacct", vec![]),
        ];
        for (root, settings) in v1 {
            let dir = Path::new(root).join(name);
            if Path::new(root).is_dir() && std::fs::create_dir(&dir).is_ok() {
                for (file, value) in settings {
                    std::fs::write(dir.join(file), value).expect("cannot cap the test cgroup");
                }
                dirs.push(dir);
            }
        }
        if dirs.is_empty() {
            let root = Path::new("/sys/fs/cgroup");
            let controllers =
                std::fs::read_to_string(root.join("cgroup.subtree_control")).unwrap_or_default();
            if controllers.contains("memory") && controllers.contains("pids") {
                let dir = root.join(name);
                if std::fs::create_dir(&dir).is_ok() {
                    let _ = std::fs::write(dir.join("memory.max"), MEMORY_CAP.to_string());
                    let _ = std::fs::write(dir.join("pids.max"), PIDS_CAP.to_string());
                    dirs.push(dir);
                }
            }
        }
        Cgroups { dirs }
    }

    /// The peak memory of the containing memory cgroup (v1 or v2), in bytes.
    fn peak_memory(&self) -> Option<u64> {
        self.dirs.iter().find_map(|d| {
            ["memory.max_usage_in_bytes", "memory.peak"]
                .iter()
                .find_map(|f| std::fs::read_to_string(d.join(f)).ok()?.trim().parse().ok())
        })
    }

    /// Kills what is left, removes the cgroups and returns the nested cgroups the judge left.
    fn kill_and_remove(&self) -> Vec<PathBuf> {
        let mut left = Vec::new();
        for dir in &self.dirs {
            left.extend(nested_cgroups(dir));
            for _ in 0..100 {
                let pids = all_pids(dir);
                if pids.is_empty() {
                    break;
                }
                for pid in pids {
                    // SAFETY: SIGKILL to a process of this test's own cgroup.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            remove_tree(dir);
        }
        left
    }
}

fn all_pids(dir: &Path) -> Vec<i32> {
    let mut pids: Vec<i32> = std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.path().is_dir() {
                pids.extend(all_pids(&e.path()));
            }
        }
    }
    pids
}

fn remove_tree(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.path().is_dir() {
                remove_tree(&e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}
