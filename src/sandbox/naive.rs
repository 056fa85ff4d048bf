//! Plain processes: rlimits, a process group, wait4 rusage and a polling watchdog.
//! The weakest layer; used when nothing better is available.

use super::{Layer, RunOutcome, RunSpec, SandboxError, Termination};
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Naive;

impl Naive {
    pub fn new() -> Naive {
        Naive
    }

    pub fn layers(&self) -> Vec<Layer> {
        vec![Layer {
            name: "rlimits".into(),
            active: true,
            detail: "CPU, stack and file-size rlimits; wait4 rusage".into(),
            hint: None,
        }]
    }

    pub fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, SandboxError> {
        let io = |action: String| move |source| SandboxError::Io { action, source };
        let stdin = match &spec.stdin {
            Some(p) => Stdio::from(File::open(p).map_err(io(format!("open {}", p.display())))?),
            None => Stdio::null(),
        };
        let stdout =
            File::create(&spec.stdout).map_err(io(format!("create {}", spec.stdout.display())))?;
        let stderr =
            File::create(&spec.stderr).map_err(io(format!("create {}", spec.stderr.display())))?;
        let limits = spec.limits.clone();
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&spec.workdir)
            .stdin(stdin)
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        let cpu_secs = limits.cpu.as_secs() + 1;
        let fsize = limits.output.max(limits.stderr) + 1;
        let stack = limits.stack;
        // SAFETY: only async-signal-safe calls (setrlimit) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                set_rlimit(libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1)?;
                set_rlimit(libc::RLIMIT_FSIZE, fsize, fsize)?;
                set_rlimit(libc::RLIMIT_STACK, stack, stack)?;
                set_rlimit(libc::RLIMIT_CORE, 0, 0)?;
                Ok(())
            });
        }
        let start = Instant::now();
        let child = cmd
            .spawn()
            .map_err(io(format!("start {}", spec.program.display())))?;
        let pid = child.id() as libc::pid_t;
        let mut wall_killed = false;
        let (status, usage) = loop {
            let mut status = 0;
            // SAFETY: rusage is plain old data; wait4 fills it.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: pid is our own child; pointers are valid for the call.
            let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            if r == pid {
                break (status, usage);
            }
            if r < 0 {
                return Err(SandboxError::Io {
                    action: "wait for the program".into(),
                    source: std::io::Error::last_os_error(),
                });
            }
            if !wall_killed && start.elapsed() > limits.wall {
                wall_killed = true;
                // SAFETY: signalling our own process group.
                unsafe { libc::killpg(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let wall_time = start.elapsed();
        // SAFETY: kill any leftovers of the group.
        unsafe { libc::killpg(pid, libc::SIGKILL) };
        let termination = if libc::WIFSIGNALED(status) {
            Termination::Signaled(libc::WTERMSIG(status))
        } else {
            Termination::Exited(libc::WEXITSTATUS(status))
        };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        let cpu_time = tv(usage.ru_utime) + tv(usage.ru_stime);
        let peak_memory = usage.ru_maxrss as u64 * 1024;
        let stdout_bytes = std::fs::metadata(&spec.stdout)
            .map(|m| m.len())
            .unwrap_or(0);
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time,
            peak_memory,
            cpu_limit_exceeded: cpu_time > limits.cpu,
            wall_limit_exceeded: wall_killed,
            memory_limit_exceeded: peak_memory > limits.memory,
            output_limit_exceeded: stdout_bytes > limits.output
                || termination == Termination::Signaled(libc::SIGXFSZ),
            stdout_bytes: stdout_bytes.min(limits.output),
        })
    }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: lim is a valid rlimit.
    if unsafe { libc::setrlimit(resource, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
