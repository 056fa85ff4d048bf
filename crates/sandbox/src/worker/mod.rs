//! The sandbox worker: a separate process (`judge __sandbox-worker ROOT`) that prepares an
//! isolated world once and then starts runs in it on request.
//!
//! Once, at start: new mount, network, IPC and UTS namespaces; a tmpfs at ROOT holding read-only
//! bind mounts of the system directories (/usr, /bin, /sbin, /lib*), a /etc of its own (the
//! loader's cache and the alternatives' links, see [`SystemView`]), a minimal /dev and empty
//! /proc and /tmp; `pivot_root` into it. This is the expensive part (~15 ms) and is done once per
//! worker, not per run.
//!
//! Per kind of run (cheap): a run init, cloned with a new PID, mount and IPC namespace, mounts a
//! private /proc and /tmp, attaches the run's working directory and readable paths (detached
//! mounts prepared by the judge), makes its root read-only, and locks itself down (default
//! signals, an empty capability bounding set, `no_new_privs`, the seccomp filter). Then it
//! waits for its run: it forks the program and reaps everything until the program ends. The
//! program joins the run's cgroup, gets its stdio and rlimits, drops to an unprivileged uid/gid
//! and execs; it inherits the rest from the init. When the init exits, the kernel kills whatever
//! is left in its PID namespace, and the mount namespace with its tmpfs mounts disappears.
//!
//! An init serves more runs with the same mounts ("kept"): after a run it kills every process
//! left in its PID namespace, empties /tmp and a scratch working folder (not the mount points of
//! the run's paths there), removes the System V IPC objects of its namespace (POSIX message
//! queues cannot be made: `mq_open` is denied), and only then reports; the worker then gives it
//! the next run's cgroups and keeps it as that kind's standby. A run whose init was killed (at a
//! limit) or could not be emptied gets a new standby instead. Tearing namespaces down and making
//! them again cost more machine CPU than the run of a small program (`bench/fresh_init.c`), and
//! a PID or mount namespace's end waits for RCU grace periods, serialized across the machine.
//!
//! A standby goes further: it starts the program's process ahead of time too (sharing the
//! init's memory, posix_spawn-style), which joins the cgroup of the run it is meant for (the judge
//! sends that cgroup along with the run before) and then waits for its request itself. Moving a
//! process into a cgroup may wait for an RCU grace period (10 ms or more) in the kernel's default
//! mode: it happens then while the previous run goes on. What that process does in the run's
//! cgroup before its exec (receiving and reading the request, stdio, rlimits, ids) counts as the
//! run's CPU time, as its start did when it joined right after the clone: some tens of
//! microseconds more. Its memory is the init's until the exec, as before (charged outside the
//! run), and the init itself stays outside the run's cgroup, so its exit, which tears its
//! namespaces down, is never the run's.
//!
//! Inits are ready ahead of time (as root): a kept init, or, while a run goes on whose init
//! cannot be kept, a clone of the init of the next run with the same mounts (a "standby"); a
//! request with the same mounts only hands it the program, so namespaces, mounts and the
//! seccomp filter cost nothing on the run's path.
//! The judge sends the detached mounts of each run for the next standby; the worker uses a
//! standby only if the mounts are the very same folders (same device and inode, which cannot be
//! reused while the standby holds the old ones), and otherwise starts an init for the run. It
//! keeps the standbys of the last two kinds of runs (a solution's tests and a custom checker take
//! turns), and makes one only for a kind of run it saw lately (each checker run reads other
//! files, so a standby for it would never serve).
//!
//! Files: this one is the worker's start (`main`, the user namespace without root) and its
//! loop (`serve`, `start`: a run gets a standby or a fresh init); `root.rs` the shared root made
//! once; `standby.rs` the inits the worker holds and which one serves a run; `init.rs` the run's
//! init; `mounts.rs` a run's own mounts; `spawn.rs` the program's process from clone to exec.

mod init;
mod mounts;
mod root;
mod spawn;
mod standby;

pub(super) use root::favor_dynmods;
pub use root::SystemView;
pub use standby::RECENT;

use super::seccomp;
use super::sys;
use super::wire::{self, Reply, Request};
use root::prepare;
use spawn::CHILD_STACK;
use standby::{EndedEarly, MountSpec, Recent, RunInit};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

/// The worker's socket, moved here from stdin at start.
const SOCKET_FD: RawFd = 3;

/// Without root, the worker makes its own user namespace (the invoking user becomes root inside,
/// mapped to itself outside): namespaces and mounts work, but there is no other uid to drop to
/// and no cgroup.
static USERNS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn userns() -> bool {
    USERNS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Enters a new user namespace mapping the invoking user and group to root inside.
fn enter_userns() -> io::Result<()> {
    // SAFETY: getuid/getgid/unshare with constant arguments.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: unshare with a constant flag.
    let r = unsafe { libc::unshare(libc::CLONE_NEWUSER) };
    sys::check(r as libc::c_long, || {
        "unshare a user namespace (unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces)".into()
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|e| io::Error::new(e.kind(), format!("{file}: {e}")))
    };
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("0 {uid} 1"))?;
    write("/proc/self/gid_map", format!("0 {gid} 1"))?;
    Ok(())
}

/// Entry point of `judge __sandbox-worker ROOT`. The socket to the judge is stdin.
pub fn main(args: &[String]) -> i32 {
    // SAFETY: fd juggling at start-up, before any other descriptor exists.
    unsafe {
        if libc::dup3(0, SOCKET_FD, libc::O_CLOEXEC) < 0 {
            return 2;
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::close(null);
        }
        // The judge going away takes the worker with it.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    // SAFETY: SOCKET_FD was just created above and belongs to this function.
    let sock = unsafe { OwnedFd::from_raw_fd(SOCKET_FD) };
    let flag = |f: &str| args.iter().skip(1).any(|a| a == f);
    if flag("--userns") {
        USERNS.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Err(e) = enter_userns() {
            let _ = wire::send_json(&sock, &Reply::Unavailable { why: e.to_string() }, &[]);
            return 1;
        }
    }
    let Some(root) = args.first() else {
        let _ = wire::send_json(
            &sock,
            &Reply::Unavailable {
                why: "no root folder given".into(),
            },
            &[],
        );
        return 2;
    };
    match prepare(Path::new(root), flag("--favordynmods")) {
        Ok((layers, favordynmods)) => {
            let ready = Reply::Ready {
                layers,
                favordynmods,
            };
            if wire::send_json(&sock, &ready, &[]).is_err() {
                return 1;
            }
        }
        Err(e) => {
            let _ = wire::send_json(&sock, &Reply::Unavailable { why: e.to_string() }, &[]);
            return 1;
        }
    }
    let filter = if flag("--no-memory-cgroup") {
        // The watchdog counts processes: refuse memory that no process would hold.
        let mut deny = seccomp::denied();
        deny.extend(seccomp::uncounted_memory());
        seccomp::program_denying(&deny)
    } else {
        seccomp::program()
    };
    let mut stack = vec![0u8; CHILD_STACK];
    serve(&sock, &filter, &mut stack);
    0
}

/// Serves requests until the judge closes the socket.
///
/// Inits are ready ahead of time: a run's init, emptied after it, stays for the next run with
/// the same mounts (or, when it cannot, a standby init with the same mounts starts while the
/// run goes on); the next request with the same mounts only has to hand it the program. A
/// request with other mounts starts an init of its own. The worker keeps the standbys of the
/// last [`STANDBYS`] kinds of runs: a solution's tests and a custom checker take turns.
fn serve(sock: &OwnedFd, filter: &[seccomp::Insn], stack: &mut [u8]) {
    let mut standbys: Vec<RunInit> = Vec::new();
    let mut recent = Recent::default();
    loop {
        reap();
        let (req, fds) = match wire::recv_json::<Request>(sock) {
            Ok(Some(m)) => m,
            Ok(None) | Err(_) => return,
        };
        let reply = start(&req, fds, filter, stack, sock, &mut standbys, &mut recent);
        if wire::send_json(sock, &reply, &[]).is_err() {
            return;
        }
    }
}

/// Collects finished run inits without blocking.
fn reap() {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on any child, non-blocking.
        let r = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if r <= 0 {
            return;
        }
    }
}

/// How many standby inits a worker keeps, for as many kinds of runs (by their mounts).
pub const STANDBYS: usize = 2;

/// Runs one request, and leaves a standby init for the next one when it can.
///
/// The request's detached mounts come in `mount_sets` equal sets: the first for this run when
/// the standby does not match, the last for the next run's standby (root only: in a user
/// namespace the init binds host paths by name, and a name may mean another folder by then).
fn start(
    req: &Request,
    mut fds: Vec<OwnedFd>,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
    sock: &OwnedFd,
    standbys: &mut Vec<RunInit>,
    recent: &mut Recent,
) -> Reply {
    let fixed = 3 + req.cgroup_fds;
    let per_set = if userns() {
        0
    } else {
        req.readable.len() + usize::from(!req.scratch_workdir)
    };
    let sets = req.mount_sets;
    let expected = fixed + req.next_cgroup_fds + per_set * sets;
    if fds.len() != expected || userns() != (sets == 0) || sets > 2 {
        let why = format!(
            "expected {expected} descriptors in 1 or 2 mount sets (0 in a user namespace), got {} descriptors and {sets} sets",
            fds.len()
        );
        return Reply::Failed { why };
    }
    let mut mounts = fds.split_off(fixed + req.next_cgroup_fds);
    let next_cgroups = fds.split_off(fixed);
    let mut sets: Vec<Vec<OwnedFd>> = (0..sets)
        .map(|_| {
            let rest = mounts.split_off(per_set);
            std::mem::replace(&mut mounts, rest)
        })
        .collect();
    let first = sets.first().map(Vec::as_slice).unwrap_or_default();
    let spec = MountSpec::of(req, first);
    // Whether runs like this one repeat (a custom checker's runs each read other files: a
    // standby for them would never serve).
    let repeats = recent.saw(&spec);
    let matched = standbys.iter().position(|s| s.spec == spec);
    let mut init = match matched {
        Some(i) => standbys.remove(i),
        None => {
            // A standby of this kind with other folders behind its mounts never serves (and it
            // may sit in the cgroup the judge gave this run): it goes.
            standbys.retain(|s| !s.spec.same_kind(&spec));
            let set = if sets.is_empty() {
                Vec::new()
            } else {
                sets.remove(0)
            };
            match RunInit::spawn(spec, set, None, filter, stack) {
                Ok(s) => s,
                Err(e) => return Reply::Failed { why: e.to_string() },
            }
        }
    };
    if !init.hand_over(req, &fds) {
        // The init ended before its run: a failed set-up says why. A standby that ended with
        // nothing to say was killed from outside: the run gets a fresh init from its own set.
        let ended = init.ended_early();
        if matched.is_none() || sets.is_empty() || matches!(ended, EndedEarly::SetUpFailed(_)) {
            return ended.into();
        }
        let spec = MountSpec::of(req, &sets[0]);
        init = match RunInit::spawn(spec, sets.remove(0), None, filter, stack) {
            Ok(s) => s,
            Err(e) => return Reply::Failed { why: e.to_string() },
        };
        if !init.hand_over(req, &fds) {
            return init.ended_early().into();
        }
    }
    // The program alone holds its stdio now.
    drop(fds);
    if let Err(e) = wire::send_json(sock, &Reply::Started, &[init.pidfd.as_raw_fd()]) {
        let why = format!("report the start of a run: {e}");
        return Reply::Failed { why };
    }
    // The next run like this one gets this init, kept after its run (it empties its
    // namespace), or, when it cannot be kept, a new standby made while the program runs.
    let keep = repeats && !userns() && init.runs < MAX_RUNS;
    let mut spare = sets.pop().filter(|_| repeats);
    let mut next_cgroups = Some(next_cgroups);
    let mut ready = false;
    if !keep {
        if let Some(set) = spare.take() {
            ready = new_standby(req, set, next_cgroups.take(), filter, stack, standbys);
        }
    }
    // Sets left unused close here; the new standby holds copies, so closing them does not
    // wait for the kernel to dissolve a detached mount.
    drop(sets);
    let (reply, clean) = init.report();
    let mut kept = false;
    if keep && clean {
        // The spare set goes to the init, which closes it (see `wire::NextRun`).
        let join = next_cgroups.take().unwrap_or_default();
        let spare = spare.take().unwrap_or_default();
        if init.next(&join, &spare) {
            push_standby(init, standbys);
            (ready, kept) = (true, true);
        }
    } else if keep {
        // Killed at a limit, or something of the run could not be removed: a new standby.
        if let Some(set) = spare.take() {
            ready = new_standby(req, set, next_cgroups.take(), filter, stack, standbys);
        }
    }
    match reply {
        Reply::Finished {
            status,
            wall_nanos,
            cpu_nanos,
            max_rss,
            watched,
            ..
        } => Reply::Finished {
            status,
            wall_nanos,
            cpu_nanos,
            max_rss,
            standby: ready,
            kept,
            watched,
        },
        other => other,
    }
}

/// How many runs one init serves at most (each after the last one's namespace was emptied).
const MAX_RUNS: u32 = 256;

/// Starts a standby init for runs like `req` on the detached mounts `set`; its program's
/// process joins `join`. Whether it started.
fn new_standby(
    req: &Request,
    set: Vec<OwnedFd>,
    join: Option<Vec<OwnedFd>>,
    filter: &[seccomp::Insn],
    stack: &mut [u8],
    standbys: &mut Vec<RunInit>,
) -> bool {
    let spec = MountSpec::of(req, &set);
    match RunInit::spawn(spec, set, join, filter, stack) {
        Ok(s) => {
            push_standby(s, standbys);
            true
        }
        Err(_) => false,
    }
}

/// One standby per kind of run (one left with other folders behind its mounts would never
/// serve); the least recently made goes beyond [`STANDBYS`] (the judge keeps the same list).
fn push_standby(s: RunInit, standbys: &mut Vec<RunInit>) {
    standbys.retain(|old| !old.spec.same_kind(&s.spec));
    standbys.push(s);
    if standbys.len() > STANDBYS {
        standbys.remove(0);
    }
}
