//! A fake [`Executor`] for unit tests: no process starts; each run plays a scripted [`Act`].
//!
//! Programs are named by their source: a source file holds a program's name on its first line
//! (write it with [`source`]). The fake language table ([`languages`]) claims every usual
//! extension and "compiles" through the fake: the build copies the source, and the fake writes
//! an executable holding the name (or, for a program registered with
//! [`FakeExecutor::compile_error`], fails like a compiler). A run then looks the name up and
//! calls its script with the [`Run`] — arguments, stdin, the test — and writes what the [`Act`]
//! says (stdout, stderr, files in a host working folder such as a Kattis validator's feedback
//! folder) into the files the spec names, applying the sandbox's limit rules to the scripted
//! CPU time, wall time, memory and output size. The engine's checking then runs unchanged:
//! built-in checkers in-process, custom checkers and validators as scripted programs.
//!
//! ```ignore
//! let fake = FakeExecutor::new()
//!     .program("sol", |run| Act::prints(run.input()).cpu_ms(1200));
//! let mut engine = fake.engine(work.path());
//! ```
//!
//! Every run is logged ([`FakeExecutor::calls`]). [`FakeExecutor::crowded`] makes every run
//! that may share the CPUs (a job not holding the gate exclusively) see another job's run
//! start beside it, so the re-judge rule of `crate::jobs` can be driven without threads racing;
//! a script tells the two apart by [`Run::alone`]. [`FakeExecutor::plain`] gives runs no private
//! scratch folder, as the sandbox without namespaces.
//!
//! A pair ([`Executor::run_pair`], an interactive test) plays both scripts: the first program's
//! stdin is empty, the second's is what the first wrote (an interactor reads the solution).
//! Each ends at its wall time and closes its output then or at [`Act::closes_output_ms`]; when
//! the one that ends first makes `stop_other` true, the other is killed at that moment (SIGKILL
//! at no limit, as the sandbox kills a partner). The judge sees the first program's output
//! close no earlier than its end, as the relay holds it. A recorded transcript holds each
//! side's output whole. [`Executor::converse`] plays a script whose stdin is what the judge
//! said, and hears its stdout.

use super::Gate;
use super::{Executor, Heard, Pair, PairOutcome};
use crate::lang::Languages;
use judge_model::transcript::{From, Transcript};
use judge_sandbox::{Layer, RunOutcome, RunSpec, SandboxError, Termination};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The fake compiler's first argument: tells a build from a program's run.
const COMPILE: &str = "fake-compile";

/// What a scripted program does on one run.
type Script = Arc<dyn Fn(&Run) -> Act + Send + Sync>;

#[derive(Clone)]
struct Program {
    script: Script,
    /// `Some(message)`: it does not compile.
    compile_error: Option<String>,
}

/// What a program does on one run: how it ends, what it costs and what it writes.
#[derive(Debug, Clone)]
pub struct Act {
    termination: Termination,
    cpu: Duration,
    wall: Option<Duration>,
    memory: u64,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    files: Vec<(PathBuf, Vec<u8>)>,
    error: Option<String>,
    /// In a pair: when it closed its output (default: when it ended).
    closes_output: Option<Duration>,
}

impl Act {
    /// Exits 0 after 1 ms of CPU, using 1 MiB, writing nothing.
    pub fn ok() -> Act {
        Act {
            termination: Termination::Exited(0),
            cpu: Duration::from_millis(1),
            wall: None,
            memory: 1 << 20,
            stdout: Vec::new(),
            stderr: Vec::new(),
            files: Vec::new(),
            error: None,
            closes_output: None,
        }
    }

    /// Prints `out` and exits 0.
    pub fn prints(out: impl AsRef<[u8]>) -> Act {
        Act::ok().stdout(out)
    }

    /// Exits with `code`.
    pub fn exits(code: i32) -> Act {
        Act::ok().code(code)
    }

    /// The executor itself fails (as a sandbox whose worker is gone): the run has no outcome.
    pub fn executor_fails(why: &str) -> Act {
        Act {
            error: Some(why.to_string()),
            ..Act::ok()
        }
    }

    pub fn stdout(mut self, out: impl AsRef<[u8]>) -> Act {
        self.stdout = out.as_ref().to_vec();
        self
    }

    pub fn stderr(mut self, err: impl AsRef<[u8]>) -> Act {
        self.stderr = err.as_ref().to_vec();
        self
    }

    pub fn code(mut self, code: i32) -> Act {
        self.termination = Termination::Exited(code);
        self
    }

    /// Killed by `signal` (not by the sandbox: a crash).
    pub fn signal(mut self, signal: i32) -> Act {
        self.termination = Termination::Signaled(signal);
        self
    }

    /// CPU time used; over the run's CPU limit, the run is killed at it.
    pub fn cpu_ms(mut self, ms: u64) -> Act {
        self.cpu = Duration::from_millis(ms);
        self
    }

    /// Wall-clock time (default: the CPU time and 1 ms); over the wall limit, the run is killed.
    pub fn wall_ms(mut self, ms: u64) -> Act {
        self.wall = Some(Duration::from_millis(ms));
        self
    }

    /// In a pair ([`Executor::run_pair`]): closes its output this long after the start, before
    /// it ends (default: as it ends).
    pub fn closes_output_ms(mut self, ms: u64) -> Act {
        self.closes_output = Some(Duration::from_millis(ms));
        self
    }

    /// Peak memory; over the memory limit, the run is killed (MLE evidence).
    pub fn memory_mib(mut self, mib: u64) -> Act {
        self.memory = mib << 20;
        self
    }

    /// Writes a file: a relative name in the working folder when it is a host folder (a
    /// Kattis validator's feedback folder, a Polygon solution's folder; a private scratch
    /// folder keeps nothing), or an absolute path.
    pub fn file(mut self, name: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> Act {
        self.files
            .push((name.as_ref().to_path_buf(), bytes.as_ref().to_vec()));
        self
    }
}

/// One run as a script sees it.
pub struct Run<'a> {
    /// The program's name (the first line of its source).
    pub program: &'a str,
    /// The arguments after the program's own.
    pub args: Vec<String>,
    /// The file name of stdin without its extension (`3` for `tests/3.in`); empty without stdin.
    pub test: String,
    /// No other job's run went on beside this one (always, unless [`FakeExecutor::crowded`]).
    pub alone: bool,
    pub spec: &'a RunSpec,
    input: Vec<u8>,
}

impl Run<'_> {
    /// What stdin holds (empty without stdin).
    pub fn input(&self) -> &[u8] {
        &self.input
    }

    /// Stdin as text.
    pub fn input_text(&self) -> String {
        String::from_utf8_lossy(&self.input).into_owned()
    }

    /// The contents of a file in the working folder (a Polygon solution's input file).
    pub fn workdir_file(&self, name: &str) -> String {
        let bytes = std::fs::read(self.spec.workdir.join(name)).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The contents of the file named by argument `i` (a checker's input, output or answer).
    pub fn arg_file(&self, i: usize) -> String {
        let path = self.args.get(i).map(PathBuf::from).unwrap_or_default();
        String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
    }
}

/// What ran, in order (for tests that count runs).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub program: String,
    /// A build (the fake compiler), not a run of the program.
    pub compile: bool,
    /// See [`Run::test`].
    pub test: String,
    pub args: Vec<String>,
    pub alone: bool,
}

/// A scripted executor; clones share their programs and their log (one per engine of a test
/// with several jobs).
#[derive(Clone, Default)]
pub struct FakeExecutor {
    programs: Arc<HashMap<String, Program>>,
    calls: Arc<Mutex<Vec<Call>>>,
    gate: Option<Arc<Gate>>,
    /// Runs work in the host folder itself, as plain processes do (no private scratch folder).
    plain: bool,
}

impl FakeExecutor {
    pub fn new() -> FakeExecutor {
        FakeExecutor::default()
    }

    /// Registers a program: `script` decides each of its runs.
    pub fn program(
        mut self,
        name: &str,
        script: impl Fn(&Run) -> Act + Send + Sync + 'static,
    ) -> FakeExecutor {
        Arc::make_mut(&mut self.programs).insert(
            name.to_string(),
            Program {
                script: Arc::new(script),
                compile_error: None,
            },
        );
        self
    }

    /// Registers a program that does the same on every run.
    pub fn always(self, name: &str, act: Act) -> FakeExecutor {
        self.program(name, move |_| act.clone())
    }

    /// Registers a program that does not compile: the compiler fails with `message`.
    pub fn compile_error(mut self, name: &str, message: &str) -> FakeExecutor {
        let program = Program {
            script: Arc::new(|_| panic!("a program that does not compile was run")),
            compile_error: Some(message.to_string()),
        };
        Arc::make_mut(&mut self.programs).insert(name.to_string(), program);
        self
    }

    /// Every run that does not hold `gate` exclusively sees another job's run beside it.
    pub fn crowded(mut self, gate: Arc<Gate>) -> FakeExecutor {
        self.gate = Some(gate);
        self
    }

    /// Runs asked for a scratch folder get the host folder itself, as without namespaces
    /// ([`Executor::private_scratch`] false): what the act writes there stays until the engine
    /// removes it.
    pub fn plain(mut self) -> FakeExecutor {
        self.plain = true;
        self
    }

    /// Every run so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The runs (not builds) of `program`, in order.
    pub fn runs_of(&self, program: &str) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(|c| c.program == program && !c.compile)
            .collect()
    }

    fn lookup(&self, name: &str) -> &Program {
        self.programs.get(name).unwrap_or_else(|| {
            panic!(
                "the fake executor has no program `{name}`: register it with FakeExecutor::program"
            )
        })
    }

    fn log(&self, call: Call) {
        self.calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(call);
    }

    /// A build: the source's first line names the program; write the executable, or fail.
    fn compile(&self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        let arg = |i: usize| PathBuf::from(spec.args.get(i).cloned().unwrap_or_default());
        let (src, exe) = (arg(1), arg(2));
        let name = name_in(&src);
        let program = self.lookup(&name);
        self.log(Call {
            program: name.clone(),
            compile: true,
            test: String::new(),
            args: Vec::new(),
            alone: true,
        });
        let act = match &program.compile_error {
            Some(message) => Act::exits(1).stderr(format!("{}: error: {message}\n", src.display())),
            None => {
                write(&exe, name.as_bytes());
                Act::ok().cpu_ms(50)
            }
        };
        Ok(play(spec, act, self.private_scratch()))
    }
}

impl FakeExecutor {
    /// The act of one run of the program `spec` names, with `input` as its stdin (read from
    /// the spec's stdin file when `None`); logged.
    fn act(&self, spec: &RunSpec, input: Option<Vec<u8>>) -> Act {
        let name = name_in(&spec.program);
        // Another job's run starts (and ends) while this one runs, unless this one holds the
        // gate exclusively (a re-judge, or `JudgeOptions::alone`).
        let alone = match &self.gate {
            Some(gate) => !gate.neighbour(),
            None => true,
        };
        let input = input.unwrap_or_else(|| {
            spec.stdin
                .as_ref()
                .map(|p| std::fs::read(p).unwrap_or_default())
                .unwrap_or_default()
        });
        let test = spec
            .stdin
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let run = Run {
            program: &name,
            args: spec
                .args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            test,
            alone,
            spec,
            input,
        };
        self.log(Call {
            program: name.clone(),
            compile: false,
            test: run.test.clone(),
            args: run.args.clone(),
            alone,
        });
        (self.lookup(&name).script)(&run)
    }
}

impl Executor for FakeExecutor {
    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        if spec.args.first().is_some_and(|a| a == COMPILE) {
            return self.compile(spec);
        }
        let act = self.act(spec, None);
        if let Some(why) = act.error {
            return Err(SandboxError::Setup(why));
        }
        Ok(play(spec, act, self.private_scratch()))
    }

    fn run_pair(&mut self, pair: &Pair<'_>) -> Result<PairOutcome, SandboxError> {
        let [first, second] = pair.specs;
        let first_act = self.act(first, Some(Vec::new()));
        let second_act = self.act(second, Some(first_act.stdout.clone()));
        for act in [&first_act, &second_act] {
            if let Some(why) = &act.error {
                return Err(SandboxError::Setup(why.clone()));
            }
        }
        let transcript = pair.record.then(|| Transcript {
            parts: [
                (From::Solution, &first_act.stdout),
                (From::Judge, &second_act.stdout),
            ]
            .into_iter()
            .filter(|(_, out)| !out.is_empty())
            .map(|(who, out)| (who, String::from_utf8_lossy(out).into_owned()))
            .collect(),
            recorded: true,
            ..Transcript::default()
        });
        let closes = |act: &Act, end: Duration| act.closes_output.unwrap_or(end).min(end);
        let mut outcomes = [
            play(first, first_act.clone(), self.private_scratch()),
            play(second, second_act.clone(), self.private_scratch()),
        ];
        let ends = [outcomes[0].wall_time, outcomes[1].wall_time];
        let mut closed = [ends[0], closes(&second_act, ends[1])];
        // The one that ends first (the first program on a tie, as the relay sees it) may stop
        // the other, which is then killed at that moment.
        let early = usize::from(ends[1] < ends[0]);
        let late = 1 - early;
        if ends[late] > ends[early] && (pair.stop_other)(early, &outcomes[early]) {
            let at = ends[early];
            let killed = &mut outcomes[late];
            killed.termination = Termination::Signaled(libc::SIGKILL);
            killed.cpu_time = killed.cpu_time.min(at);
            killed.wall_time = at;
            killed.cpu_limit_exceeded = false;
            killed.wall_limit_exceeded = false;
            killed.memory_limit_exceeded = false;
            killed.output_limit_exceeded = false;
            closed[late] = closed[late].min(at);
        } else {
            (pair.stop_other)(late, &outcomes[late]);
        }
        let start = Instant::now();
        let [first_outcome, second_outcome] = outcomes;
        Ok(PairOutcome {
            outcomes: [Ok(first_outcome), Ok(second_outcome)],
            order: vec![early, late],
            closed: closed.map(|d| Some(start + d)),
            transcript,
        })
    }

    fn converse(
        &mut self,
        spec: &RunSpec,
        say: &[u8],
        hear_cap: u64,
    ) -> Result<Heard, SandboxError> {
        let act = self.act(spec, Some(say.to_vec()));
        if let Some(why) = act.error {
            return Err(SandboxError::Setup(why));
        }
        let said = act.stdout[..act.stdout.len().min(hear_cap as usize)].to_vec();
        Ok(Heard {
            outcome: play(spec, act, self.private_scratch()),
            said,
        })
    }

    fn another(&self) -> Result<Box<dyn Executor>, SandboxError> {
        Ok(Box::new(self.clone()))
    }

    fn private_scratch(&self) -> bool {
        !self.plain
    }

    fn layers(&self) -> Vec<Layer> {
        vec![Layer {
            name: "fake executor".into(),
            active: false,
            detail: "nothing runs: outcomes are scripted (unit tests)".into(),
            hint: None,
        }]
    }
}

/// The program named in a source or a fake executable: its first non-empty line.
fn name_in(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the fake executor cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes)
        .unwrap_or_else(|e| panic!("the fake executor cannot write {}: {e}", path.display()));
}

/// Writes what `act` wrote and measures it under the spec's limits, by the sandbox's rules: CPU
/// time over the limit (strictly) is a kill at the limit, as is wall time, memory and output.
fn play(spec: &RunSpec, act: Act, private_scratch: bool) -> RunOutcome {
    let limits = &spec.limits;
    let wall = act.wall.unwrap_or(act.cpu + Duration::from_millis(1));
    let cpu_limit_exceeded = act.cpu > limits.cpu;
    let wall_limit_exceeded = !cpu_limit_exceeded && wall > limits.wall;
    let memory_limit_exceeded = act.memory > limits.memory;
    let output_limit_exceeded = act.stdout.len() as u64 > limits.output;
    let stdout = &act.stdout[..act.stdout.len().min(limits.output as usize)];
    let stderr = &act.stderr[..act.stderr.len().min(limits.stderr as usize)];
    write(&spec.stdout, stdout);
    write(&spec.stderr, stderr);
    if !spec.scratch_workdir || !private_scratch {
        for (name, bytes) in &act.files {
            write(&spec.workdir.join(name), bytes);
        }
    }
    let killed =
        cpu_limit_exceeded || wall_limit_exceeded || memory_limit_exceeded || output_limit_exceeded;
    RunOutcome {
        termination: if killed {
            Termination::Signaled(libc::SIGKILL)
        } else {
            act.termination
        },
        cpu_time: act.cpu,
        wall_time: if wall_limit_exceeded {
            limits.wall
        } else {
            wall
        },
        peak_memory: act.memory.min(limits.memory),
        cpu_limit_exceeded,
        wall_limit_exceeded,
        memory_limit_exceeded,
        output_limit_exceeded,
        stdout_bytes: stdout.len() as u64,
    }
}

/// The fake language table: every usual extension is the fake language, whose compiler is the
/// fake executor (the compile command's first word is this test binary, a file that exists).
pub fn languages() -> Languages {
    static TABLE: OnceLock<Languages> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("the test binary's path");
            let text = format!(
                "[[language]]\nname = \"Fake\"\nextensions = [\"fake\", \"cpp\", \"cc\", \"c\", \"rs\", \"py\", \"java\"]\nsource_name = \"main.fake\"\ncompile = [{exe:?}, \"{COMPILE}\", \"{{src}}\", \"{{exe}}\"]\nrun = [\"{{exe}}\"]\n"
            );
            // Removed when loaded.
            let file = tempfile::NamedTempFile::new().expect("a temporary file");
            write(file.path(), text.as_bytes());
            Languages::load(Some(file.path())).expect("the fake language table")
        })
        .clone()
}

/// Writes the source of program `name` at `dir/path` (folders made as needed), and returns its
/// path.
pub fn source(dir: &Path, path: &str, name: &str) -> PathBuf {
    file(dir, path, &format!("{name}\n"))
}

/// Writes `text` at `dir/path` (folders made as needed), and returns its path.
pub fn file(dir: &Path, path: &str, text: &str) -> PathBuf {
    let path = dir.join(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("a folder in the test's package");
    }
    write(&path, text.as_bytes());
    path
}

/// A native package in `dir`: `problem.toml` with these limits (seconds, MiB) and `extra`
/// lines, and `tests/<name>.in` / `.ans` for each test.
pub fn native(dir: &Path, time: f64, memory: u64, extra: &str, tests: &[(&str, &str, &str)]) {
    file(
        dir,
        "problem.toml",
        &format!("name = \"Fake\"\n{extra}\n[limits]\ntime_limit = {time}\nmemory = {memory}\n"),
    );
    for (name, input, answer) in tests {
        file(dir, &format!("tests/{name}.in"), input);
        file(dir, &format!("tests/{name}.ans"), answer);
    }
}

#[cfg(test)]
#[path = "fake_tests.rs"]
mod tests;
