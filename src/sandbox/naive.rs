//! Plain processes: rlimits, a process group, wait4 rusage and a polling watchdog.
//! The weakest layer; used when nothing better is available.

use super::{Layer, RunOutcome, RunSpec, SandboxError, Termination};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
        let stdout_file =
            File::create(&spec.stdout).map_err(io(format!("create {}", spec.stdout.display())))?;
        let stderr_file =
            File::create(&spec.stderr).map_err(io(format!("create {}", spec.stderr.display())))?;
        let limits = spec.limits.clone();
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&spec.workdir)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let cpu_secs = limits.cpu.as_secs() + 1;
        let stack = limits.stack;
        // SAFETY: only async-signal-safe calls (setrlimit) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                set_rlimit(libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1)?;
                set_rlimit(libc::RLIMIT_STACK, stack, stack)?;
                set_rlimit(libc::RLIMIT_CORE, 0, 0)?;
                Ok(())
            });
        }
        let start = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(io(format!("start {}", spec.program.display())))?;
        let pid = child.id() as libc::pid_t;
        let over = Arc::new(AtomicBool::new(false));
        let out_drain = drain(
            child.stdout.take(),
            stdout_file,
            limits.output,
            Some((pid, over.clone())),
        );
        let err_drain = drain(child.stderr.take(), stderr_file, limits.stderr, None);
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
        let stdout_bytes = out_drain.join().unwrap_or(0);
        let _ = err_drain.join();
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time,
            peak_memory,
            cpu_limit_exceeded: cpu_time > limits.cpu,
            wall_limit_exceeded: wall_killed,
            memory_limit_exceeded: peak_memory > limits.memory,
            output_limit_exceeded: over.load(Ordering::SeqCst),
            stdout_bytes,
        })
    }
}

/// Copies a pipe into a file, keeping at most `cap` bytes. Past the cap, stdout (with `over`) kills
/// the process group and flags OLE; stderr is read and discarded so the program never blocks.
fn drain<R: Read + Send + 'static>(
    pipe: Option<R>,
    mut file: File,
    cap: u64,
    over: Option<(libc::pid_t, Arc<AtomicBool>)>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let Some(mut pipe) = pipe else { return 0 };
        let mut kept = 0u64;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let room = cap.saturating_sub(kept) as usize;
            let take = n.min(room);
            if take > 0 && file.write_all(&buf[..take]).is_ok() {
                kept += take as u64;
            }
            if n > room {
                if let Some((pid, flag)) = &over {
                    flag.store(true, Ordering::SeqCst);
                    // SAFETY: signalling the run's own process group.
                    unsafe { libc::killpg(*pid, libc::SIGKILL) };
                    break;
                }
            }
        }
        kept
    })
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
