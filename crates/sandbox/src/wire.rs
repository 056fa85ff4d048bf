//! The conversation between the judge and a sandbox worker: one `SOCK_SEQPACKET` socket pair,
//! JSON messages, file descriptors passed alongside with `SCM_RIGHTS`.
//!
//! judge → worker: [`Request`] + fds (stdin, stdout, stderr, cgroup.procs files of this run and
//!                 of the next, detached mounts)
//! worker → judge: [`Reply::Started`] + a pidfd of the run's init, then [`Reply::Finished`]
//!                 (or [`Reply::Failed`] when the run could not be set up).

use serde::{Deserialize, Serialize};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The most descriptors one message carries.
pub const MAX_FDS: usize = 32;
/// The largest message (requests hold paths, arguments and the environment).
pub const MAX_MESSAGE: usize = 256 * 1024;

/// One run, as the worker needs it. Byte strings are raw Unix paths and arguments.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub program: Vec<u8>,
    /// argv[1..].
    pub args: Vec<Vec<u8>>,
    pub env: Vec<Vec<u8>>,
    pub workdir: Vec<u8>,
    /// The working directory is a private scratch tmpfs instead of the host folder.
    pub scratch_workdir: bool,
    /// Paths at which the detached mounts (fds after the fixed ones) are attached, read-only.
    pub readable: Vec<Vec<u8>>,
    /// How many cgroup.procs descriptors follow stdin, stdout, stderr.
    pub cgroup_fds: usize,
    /// How many cgroup.procs descriptors follow those: the cgroups of the next run, which the
    /// standby init made during this run joins ahead of time (its program is then born there).
    pub next_cgroup_fds: usize,
    /// How many sets of detached mounts follow (one per `readable` path, then the workdir's
    /// unless it is scratch): 1 when the worker has a standby init for these mounts (the set is
    /// for the next one), else 2 (one for this run); 0 in a user namespace.
    pub mount_sets: usize,
    /// The host workdir comes as a detached mount too (the last fd) unless it is scratch.
    pub uid: u32,
    pub gid: u32,
    pub cpu_backstop_secs: u64,
    pub stack: u64,
    pub file_size: u64,
    /// Size cap of /tmp and a scratch workdir (bytes); their pages count as the run's memory.
    pub tmpfs_bytes: u64,
    pub tmpfs_inodes: u64,
    pub processes: u64,
    /// Without a cgroup: the limits the run's init enforces by watching the tree (see
    /// `watchdog/`), and the rlimits that back them up.
    pub watch: Option<super::watchdog::Watch>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Reply {
    /// The worker finished setting up its prepared root; `layers` says what is in force.
    /// `favordynmods`: the result of turning that cgroup mode on, if the judge asked.
    Ready {
        layers: Vec<(String, String)>,
        favordynmods: Option<Result<(), String>>,
    },
    /// The worker could not prepare the sandbox at all.
    Unavailable { why: String },
    /// The run started; a pidfd of its init process comes with this message.
    Started,
    /// The run ended: raw wait status of the program, its wall time, and its rusage (CPU time
    /// and peak RSS of the program and the children it waited for: the fallback measurement
    /// when there is no cgroup).
    Finished {
        status: i32,
        wall_nanos: u64,
        cpu_nanos: u64,
        max_rss: u64,
        /// The worker has an init with this run's mounts ready for the next run.
        standby: bool,
        /// That init is this run's own, kept for the next run (its namespace emptied: every
        /// process left killed, /tmp and a scratch workdir wiped, System V IPC removed). Its
        /// pidfd, which came with [`Reply::Started`], must not be used to kill the run's
        /// leftovers: there are none, and the init serves the next run.
        #[serde(default)]
        kept: bool,
        /// What the init's watchdog saw (runs without a cgroup). With it, `cpu_nanos` is the
        /// CPU time of everything the init reaped: the whole tree.
        watched: Option<super::watchdog::Watched>,
    },
    /// The run could not be started (bad path, setup failure): nothing of it ran.
    Failed { why: String },
}

/// What the worker tells an init it keeps after the init's run (see `worker/`): the next run's
/// cgroups to join ahead (`cgroup.procs` descriptors), then `spare` detached mounts that the
/// init only closes (the set the judge sent for a new standby: closing the last copy of a
/// detached mount waits for the kernel to dissolve it, so the init does it, not the worker).
#[derive(Debug, Serialize, Deserialize)]
pub struct NextRun {
    pub join: usize,
    pub spare: usize,
}

pub fn send(sock: RawFd, payload: &[u8], fds: &[RawFd]) -> io::Result<()> {
    assert!(fds.len() <= MAX_FDS);
    let mut iov = libc::iovec {
        iov_base: payload.as_ptr() as *mut libc::c_void,
        iov_len: payload.len(),
    };
    // SAFETY: CMSG_SPACE is a pure computation.
    let space = unsafe { libc::CMSG_SPACE((std::mem::size_of::<RawFd>() * MAX_FDS) as u32) };
    let mut control = vec![0u8; space as usize];
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        let len = std::mem::size_of_val(fds);
        msg.msg_control = control.as_mut_ptr().cast();
        // SAFETY: pure computation.
        msg.msg_controllen = unsafe { libc::CMSG_SPACE(len as u32) } as usize;
        // SAFETY: the control buffer is large enough for one header with `fds`.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(len as u32) as usize;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast(), fds.len());
        }
    }
    loop {
        // SAFETY: msg is fully initialised above.
        let r = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
        if r >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

thread_local! {
    /// Receive buffer, allocated once per thread: a fresh 256 KiB buffer per message (zeroed,
    /// then faulted in page by page) cost more than the rest of a message's handling.
    static BUF: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; MAX_MESSAGE]);
}

/// Receives one message. `Ok(None)` when the other side has closed the socket.
pub fn recv(sock: RawFd) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    BUF.with_borrow_mut(|buf| recv_into(sock, buf))
}

fn recv_into(sock: RawFd, buf: &mut [u8]) -> io::Result<Option<(Vec<u8>, Vec<OwnedFd>)>> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: pure computation.
    let space = unsafe { libc::CMSG_SPACE((std::mem::size_of::<RawFd>() * MAX_FDS) as u32) };
    let mut control = vec![0u8; space as usize];
    // SAFETY: msghdr is plain data; the buffers outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = control.len();
    let n = loop {
        // SAFETY: msg points at live buffers.
        let r = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if r >= 0 {
            break r as usize;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    let mut fds = Vec::new();
    // SAFETY: walking the control headers the kernel filled in.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg) as *const RawFd;
                let count =
                    ((*cmsg).cmsg_len - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<RawFd>();
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if n == 0 && fds.is_empty() {
        return Ok(None);
    }
    if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
        return Err(io::Error::other("a sandbox message was truncated"));
    }
    Ok(Some((buf[..n].to_vec(), fds)))
}

pub fn send_json<T: Serialize>(sock: &impl AsRawFd, value: &T, fds: &[RawFd]) -> io::Result<()> {
    let bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    send(sock.as_raw_fd(), &bytes, fds)
}

pub fn recv_json<T: for<'de> Deserialize<'de>>(
    sock: &impl AsRawFd,
) -> io::Result<Option<(T, Vec<OwnedFd>)>> {
    match recv(sock.as_raw_fd())? {
        None => Ok(None),
        Some((bytes, fds)) => {
            let value = serde_json::from_slice(&bytes).map_err(io::Error::other)?;
            Ok(Some((value, fds)))
        }
    }
}

/// A connected `SOCK_SEQPACKET` pair, both ends close-on-exec.
pub fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid out-array of two ints.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
