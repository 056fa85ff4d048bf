//! Starting the program's process, posix_spawn-style (`CLONE_VM|CLONE_VFORK` on a stack of its
//! own): for a run ([`run`]) or ahead of it by a standby ([`run_ahead`], whose process joins the
//! next run's cgroup and receives the request itself); [`Exec`] is everything between the
//! clone and the exec (cgroups, stdio, rlimits, working folder, ids), and a failed step comes
//! back to the init as (step, errno).

use super::init::{finished, join_cgroup, now, reap_until, wait_program, watch_of, InitReport};
use super::standby::identities;
use super::userns;
use crate::sys;
use crate::watchdog;
use crate::wire::{self, Request};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

/// The program, its arguments, environment and working folder as C strings.
pub(super) type Strings = (CString, Vec<CString>, Vec<CString>, CString);

pub(super) fn strings(req: &Request) -> Result<Strings, String> {
    let cstring = |b: &[u8]| {
        CString::new(b.to_vec()).map_err(|_| "a NUL byte in a path or argument".to_string())
    };
    let program = cstring(&req.program)?;
    let mut argv = vec![program.clone()];
    for a in &req.args {
        argv.push(cstring(a)?);
    }
    let env = req
        .env
        .iter()
        .map(|e| cstring(e))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((program, argv, env, cstring(&req.workdir)?))
}

/// NULL-terminated pointer arrays over `strings`.
pub(super) fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    let mut p: Vec<*const libc::c_char> = strings.iter().map(|a| a.as_ptr()).collect();
    p.push(std::ptr::null());
    p
}

/// Starts the program and reaps everything until it ends. Its process joins the run's cgroups
/// right after the fork.
pub(super) fn run(req: &Request, fds: Vec<OwnedFd>, stack: &mut [u8]) -> InitReport {
    let (program, argv, env, workdir) = match strings(req) {
        Ok(p) => p,
        Err(why) => return InitReport::Failed { why },
    };
    let (argv_p, env_p) = (pointers(&argv), pointers(&env));
    let watch = watch_of(req);
    let (err_r, err_w) = match sys::pipe() {
        Ok(p) => p,
        Err(e) => return InitReport::Failed { why: e.to_string() },
    };
    let exec = Exec {
        program: &program,
        argv: &argv_p,
        env: &env_p,
        workdir: &workdir,
        stdio: [fds[0].as_raw_fd(), fds[1].as_raw_fd(), fds[2].as_raw_fd()],
        cgroups: fds[3..3 + req.cgroup_fds]
            .iter()
            .map(|f| f.as_raw_fd())
            .collect(),
        err_w: err_w.as_raw_fd(),
        req,
        userns: userns(),
    };
    // The program's process starts like posix_spawn does: sharing the init's memory (no page
    // tables to copy) on its own stack, while the init waits until it has exec'd or failed.
    extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: arg is the &Exec passed below, alive while the init is suspended (CLONE_VFORK).
        let exec = unsafe { &*(arg as *const Exec) };
        exec.run()
    }
    let start = now();
    // SAFETY: the child only makes async-signal-safe calls on data prepared beforehand, and
    // ends in execve or _exit.
    let pid = match unsafe { vfork_on(stack, child, &exec as *const Exec as *mut libc::c_void) } {
        Ok(pid) => pid,
        Err(why) => return InitReport::Failed { why },
    };
    drop(err_w);
    // The program alone holds its stdio now.
    drop(fds);
    let failure = read_failure(&err_r);
    let status = wait_program(pid, watch.as_ref());
    finished(&req.program, start, failure, status)
}

/// Starts `child(arg)` posix_spawn-style: sharing the caller's memory, on `stack` (a
/// 16-byte aligned top), the caller suspended until the child execs or exits.
///
/// # Safety
/// `child` may only make async-signal-safe calls on data prepared beforehand and must end in
/// execve or _exit; `arg` must stay valid until then.
unsafe fn vfork_on(
    stack: &mut [u8],
    child: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    arg: *mut libc::c_void,
) -> Result<libc::pid_t, String> {
    // SAFETY: the top is inside `stack`, which is ours and large enough; the rest is the
    // caller's promise.
    let pid = unsafe {
        let top = stack.as_mut_ptr().add(stack.len() - 64);
        let top = top.sub(top as usize % 16);
        libc::clone(
            child,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            arg,
        )
    };
    if pid < 0 {
        return Err(format!("start the program: {}", io::Error::last_os_error()));
    }
    Ok(pid)
}

/// A standby's run: its program's process starts now, like the child of [`run`] (sharing the
/// init's memory, the init suspended until it execs), joins the cgroups of `join` (those of the
/// run this standby is meant for, when the judge knew them) and waits for the request on
/// `control` itself (see [`Ahead::start`]). Then the init reaps everything until it ends.
pub(super) fn run_ahead(
    join: Vec<OwnedFd>,
    control: RawFd,
    stack: &mut [u8],
) -> Option<InitReport> {
    let (err_r, err_w) = match sys::pipe() {
        Ok(p) => p,
        Err(e) => return Some(InitReport::Failed { why: e.to_string() }),
    };
    let mut ahead = Ahead {
        join,
        control,
        err_w: err_w.as_raw_fd(),
        request: None,
    };
    extern "C" fn child(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: arg is the &mut Ahead passed below, alive while the init is suspended
        // (CLONE_VFORK); nothing else touches it meanwhile.
        let ahead = unsafe { &mut *(arg as *mut Ahead) };
        ahead.start()
    }
    let arg = &mut ahead as *mut Ahead as *mut libc::c_void;
    // SAFETY: while the child runs the init is suspended (CLONE_VFORK), so the child may use
    // the init's memory as the init would, and it ends in execve or _exit.
    let pid = match unsafe { vfork_on(stack, child, arg) } {
        Ok(pid) => pid,
        Err(why) => return Some(InitReport::Failed { why }),
    };
    drop(err_w);
    let Some((program, start, watch)) = ahead.request.take() else {
        // It ended before its run (the worker dropped this standby, or it was killed).
        reap_until(pid);
        return None;
    };
    let failure = read_failure(&err_r);
    let status = wait_program(pid, watch.as_ref());
    Some(finished(&program, start, failure, status))
}

/// What a standby's program's process and its init share (see [`run_ahead`]).
pub(super) struct Ahead {
    /// `cgroup.procs` files to join ahead of the run.
    join: Vec<OwnedFd>,
    /// The init's control socket, on which the request comes.
    control: RawFd,
    /// Where a failed start is reported (step, errno).
    err_w: RawFd,
    /// Set once the request came: its program's path, when it started and what the init
    /// watches of it.
    request: Option<Started>,
}

/// A standby's request as its init needs it: the program's path, when it started, and what to
/// watch when the run has no cgroup (see [`watch_of`]).
pub(super) type Started = (Vec<u8>, u64, Option<(watchdog::Watch, Vec<PathBuf>)>);

impl Ahead {
    /// In the program's process: joins `join`, receives its request, then starts the program
    /// like the child of [`run`] does (joining only the run's cgroups it is not in yet).
    /// Never returns.
    fn start(&mut self) -> ! {
        let joined: Vec<(u64, u64)> = identities(&self.join)
            .into_iter()
            .zip(&self.join)
            .filter(|(_, fd)| join_cgroup(fd.as_raw_fd()).is_ok())
            .map(|(id, _)| id)
            .collect();
        let fail = |errno: i32| -> ! {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&STEP_REQUEST.to_ne_bytes());
            b[4..].copy_from_slice(&errno.to_ne_bytes());
            // SAFETY: write + _exit.
            unsafe {
                libc::write(self.err_w, b.as_ptr().cast(), 8);
                libc::_exit(127);
            }
        };
        let (req, fds) = match wire::recv_json::<Request>(&self.control) {
            Ok(Some(m)) => m,
            // SAFETY: leaving without a run.
            Ok(None) | Err(_) => unsafe { libc::_exit(0) },
        };
        self.request = Some((req.program.clone(), now(), watch_of(&req)));
        if fds.len() != 3 + req.cgroup_fds {
            fail(libc::EBADF);
        }
        let Ok((program, argv, env, workdir)) = strings(&req) else {
            fail(libc::EINVAL);
        };
        let (argv_p, env_p) = (pointers(&argv), pointers(&env));
        let cgroups = &fds[3..3 + req.cgroup_fds];
        let exec = Exec {
            program: &program,
            argv: &argv_p,
            env: &env_p,
            workdir: &workdir,
            stdio: [fds[0].as_raw_fd(), fds[1].as_raw_fd(), fds[2].as_raw_fd()],
            cgroups: cgroups
                .iter()
                .zip(identities(cgroups))
                .filter(|(_, id)| !joined.contains(id))
                .map(|(f, _)| f.as_raw_fd())
                .collect(),
            err_w: self.err_w,
            req: &req,
            userns: userns(),
        };
        exec.run()
    }
}

/// The step reported when the request itself cannot be started (see [`STEPS`]).
pub(super) const STEP_REQUEST: u32 = STEPS.len() as u32 - 1;

/// Reads exactly `buf.len()` bytes; false at an early end of the pipe.
pub(super) fn read_full(fd: &OwnedFd, buf: &mut [u8]) -> bool {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reading into the rest of a buffer we own.
        let n = unsafe {
            libc::read(
                fd.as_raw_fd(),
                buf[got..].as_mut_ptr().cast(),
                buf.len() - got,
            )
        };
        match n {
            n if n > 0 => got += n as usize,
            n if n < 0 && sys::errno() == libc::EINTR => {}
            _ => return false,
        }
    }
    true
}

/// The (step, errno) a program's process reports when it cannot start its program, or None
/// once the pipe closes (at the exec).
pub(super) fn read_failure(fd: &OwnedFd) -> Option<(u32, i32)> {
    let mut b = [0u8; 8];
    read_full(fd, &mut b).then(|| {
        let step = u32::from_ne_bytes(b[..4].try_into().unwrap());
        let errno = i32::from_ne_bytes(b[4..].try_into().unwrap());
        (step, errno)
    })
}

/// Stack of the program's process between clone and exec.
pub(super) const CHILD_STACK: usize = 256 * 1024;

/// Steps of the program's start, named in error messages.
pub(super) const STEPS: [&str; 7] = [
    "join the cgroup",
    "set up stdio",
    "set rlimits",
    "enter the working directory",
    "drop privileges",
    "exec",
    "read its request",
];

/// Everything the program's process needs between fork and exec, prepared beforehand.
pub(super) struct Exec<'a> {
    program: &'a CStr,
    argv: &'a [*const libc::c_char],
    env: &'a [*const libc::c_char],
    workdir: &'a CStr,
    stdio: [RawFd; 3],
    /// The `cgroup.procs` files of the run's cgroups the process is not in yet.
    cgroups: Vec<RawFd>,
    err_w: RawFd,
    req: &'a Request,
    userns: bool,
}

impl Exec<'_> {
    /// In the forked child: never returns. Only async-signal-safe calls.
    fn run(&self) -> ! {
        let fail = |step: u32| -> ! {
            let errno = sys::errno();
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&step.to_ne_bytes());
            b[4..].copy_from_slice(&errno.to_ne_bytes());
            // SAFETY: write + _exit are async-signal-safe.
            unsafe {
                libc::write(self.err_w, b.as_ptr().cast(), 8);
                libc::_exit(127);
            }
        };
        // SAFETY: only async-signal-safe system calls on prepared data follow.
        unsafe {
            for &fd in &self.cgroups {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    fail(0);
                }
            }
            // The error pipe goes to fd 3 (close-on-exec); stdio to 0, 1, 2; everything else closes.
            let [i, o, e] = self.stdio;
            let moved = [
                libc::fcntl(i, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(o, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(e, libc::F_DUPFD_CLOEXEC, 10),
            ];
            let err_w = libc::fcntl(self.err_w, libc::F_DUPFD_CLOEXEC, 10);
            if moved.iter().any(|&f| f < 0) || err_w < 0 {
                fail(1);
            }
            if libc::dup3(err_w, 3, libc::O_CLOEXEC) < 0 {
                fail(1);
            }
            for (target, &fd) in moved.iter().enumerate() {
                if libc::dup2(fd, target as RawFd) < 0 {
                    fail(1);
                }
            }
            let err_fail = |step: u32| -> ! {
                let errno = sys::errno();
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&step.to_ne_bytes());
                b[4..].copy_from_slice(&errno.to_ne_bytes());
                libc::write(3, b.as_ptr().cast(), 8);
                libc::_exit(127);
            };
            libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
            let r = &self.req;
            let limits = [
                (libc::RLIMIT_STACK, r.stack, r.stack),
                (
                    libc::RLIMIT_CPU,
                    r.cpu_backstop_secs,
                    r.cpu_backstop_secs + 1,
                ),
                (libc::RLIMIT_CORE, 0, 0),
                (libc::RLIMIT_FSIZE, r.file_size, r.file_size),
            ];
            // Without a cgroup, the backstops of the watchdog: an address-space cap and, where
            // it counts only this judge's processes, the process rlimit.
            let (address_space, nproc) = match &r.watch {
                Some(w) => (Some(w.address_space), w.nproc),
                None => (None, None),
            };
            let backstops = [
                (libc::RLIMIT_AS, address_space),
                (libc::RLIMIT_NPROC, nproc),
            ]
            .into_iter()
            .filter_map(|(res, v)| v.map(|v| (res, v, v)));
            for (res, soft, hard) in limits.into_iter().chain(backstops) {
                let lim = libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                };
                if libc::setrlimit(res, &lim) != 0 {
                    err_fail(2);
                }
            }
            if libc::chdir(self.workdir.as_ptr()) != 0 {
                err_fail(3);
            }
            // Signals, the bounding set, no_new_privs and the seccomp filter come from the init
            // (`lock_down`); what is left is the unprivileged ids.
            if self.userns {
                // uid 0 of the user namespace is the invoking user outside; make sure it can
                // never hold a capability: no root fix-ups, and all capability sets emptied.
                // NOROOT, NOROOT_LOCKED, NO_SETUID_FIXUP, NO_SETUID_FIXUP_LOCKED, KEEP_CAPS_LOCKED.
                const SECBITS: libc::c_ulong = 0x01 | 0x02 | 0x04 | 0x08 | 0x20;
                #[repr(C)]
                struct CapHeader {
                    version: u32,
                    pid: i32,
                }
                #[repr(C)]
                struct CapData {
                    effective: u32,
                    permitted: u32,
                    inheritable: u32,
                }
                let header = CapHeader {
                    version: 0x2008_0522,
                    pid: 0,
                };
                let data = [
                    CapData {
                        effective: 0,
                        permitted: 0,
                        inheritable: 0,
                    },
                    CapData {
                        effective: 0,
                        permitted: 0,
                        inheritable: 0,
                    },
                ];
                if libc::prctl(libc::PR_SET_SECUREBITS, SECBITS, 0, 0, 0) != 0
                    || libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr())
                        != 0
                {
                    err_fail(4);
                }
            } else if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(r.gid, r.gid, r.gid) != 0
                || libc::setresuid(r.uid, r.uid, r.uid) != 0
                || libc::getuid() == 0
            {
                err_fail(4);
            }
            libc::execve(self.program.as_ptr(), self.argv.as_ptr(), self.env.as_ptr());
            err_fail(5);
        }
    }
}
