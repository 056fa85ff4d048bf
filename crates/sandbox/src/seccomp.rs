//! The seccomp filter every sandboxed program runs under: a deny list of what no solution or
//! compiler needs (tracing, mounting, namespaces, kernel keys, BPF, io_uring, modules, reboot...).
//! Denied calls fail with EPERM rather than killing, so a runtime that probes for a feature
//! carries on. Syscalls of a foreign ABI (x32, i386 on x86_64) are refused wholesale.

/// A classic-BPF instruction (`struct sock_filter`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

/// BPF_LD | BPF_W | BPF_ABS (BPF_LD and BPF_W are 0).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x05 | 0x10; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x05 | 0x30; // BPF_JMP | BPF_JGE | BPF_K
const BPF_JSET_K: u16 = 0x05 | 0x40; // BPF_JMP | BPF_JSET | BPF_K
const BPF_RET_K: u16 = 0x06;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;

// Offsets in `struct seccomp_data`.
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARG0_LOW: u32 = 16;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("the seccomp filter knows only x86_64 and aarch64");

/// x32 syscall numbers on x86_64 have this bit set.
const X32_BIT: u32 = 0x4000_0000;

/// Calls that fail with EPERM.
pub fn denied() -> Vec<(&'static str, libc::c_long)> {
    let mut list = vec![
        ("ptrace", libc::SYS_ptrace),
        ("process_vm_readv", libc::SYS_process_vm_readv),
        ("process_vm_writev", libc::SYS_process_vm_writev),
        ("pidfd_getfd", libc::SYS_pidfd_getfd),
        ("mount", libc::SYS_mount),
        ("umount2", libc::SYS_umount2),
        ("pivot_root", libc::SYS_pivot_root),
        ("chroot", libc::SYS_chroot),
        ("open_tree", libc::SYS_open_tree),
        ("move_mount", libc::SYS_move_mount),
        ("fsopen", libc::SYS_fsopen),
        ("fsconfig", libc::SYS_fsconfig),
        ("fsmount", libc::SYS_fsmount),
        ("fspick", libc::SYS_fspick),
        ("mount_setattr", libc::SYS_mount_setattr),
        ("unshare", libc::SYS_unshare),
        ("setns", libc::SYS_setns),
        ("bpf", libc::SYS_bpf),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("userfaultfd", libc::SYS_userfaultfd),
        ("keyctl", libc::SYS_keyctl),
        ("add_key", libc::SYS_add_key),
        ("request_key", libc::SYS_request_key),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("io_uring_enter", libc::SYS_io_uring_enter),
        ("io_uring_register", libc::SYS_io_uring_register),
        ("kexec_load", libc::SYS_kexec_load),
        ("kexec_file_load", libc::SYS_kexec_file_load),
        ("init_module", libc::SYS_init_module),
        ("finit_module", libc::SYS_finit_module),
        ("delete_module", libc::SYS_delete_module),
        ("reboot", libc::SYS_reboot),
        ("swapon", libc::SYS_swapon),
        ("swapoff", libc::SYS_swapoff),
        ("acct", libc::SYS_acct),
        ("quotactl", libc::SYS_quotactl),
        ("settimeofday", libc::SYS_settimeofday),
        ("clock_settime", libc::SYS_clock_settime),
        ("clock_adjtime", libc::SYS_clock_adjtime),
        ("adjtimex", libc::SYS_adjtimex),
        ("sethostname", libc::SYS_sethostname),
        ("setdomainname", libc::SYS_setdomainname),
        ("syslog", libc::SYS_syslog),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("name_to_handle_at", libc::SYS_name_to_handle_at),
        ("fanotify_init", libc::SYS_fanotify_init),
        ("vhangup", libc::SYS_vhangup),
        // A run's init serves the next run once it has emptied its IPC namespace; a POSIX
        // message queue cannot be found again without mounting its file system.
        ("mq_open", libc::SYS_mq_open),
        // A service slot's runs stay on the CPU it was given (`Sandbox::take_cpu`), off the
        // other slots'; a program may still read where it may run.
        ("sched_setaffinity", libc::SYS_sched_setaffinity),
    ];
    #[cfg(target_arch = "x86_64")]
    list.extend([
        ("iopl", libc::SYS_iopl),
        ("ioperm", libc::SYS_ioperm),
        ("uselib", libc::SYS_uselib),
    ]);
    list
}

/// Calls also denied when no memory cgroup counts the run's memory: what they allocate can be
/// held by no process (a memfd or System V segment filled and then unmapped; a message queue),
/// so the watchdog, which counts the run's processes, would never see it.
pub fn uncounted_memory() -> Vec<(&'static str, libc::c_long)> {
    vec![
        ("memfd_create", libc::SYS_memfd_create),
        ("memfd_secret", libc::SYS_memfd_secret),
        ("shmget", libc::SYS_shmget),
        ("msgget", libc::SYS_msgget),
    ]
}

/// Namespace flags a `clone` may not ask for.
const CLONE_NS_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u32;

fn stmt(code: u16, k: u32) -> Insn {
    Insn {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> Insn {
    Insn { code, jt, jf, k }
}

/// The filter program.
pub fn program() -> Vec<Insn> {
    program_denying(&denied())
}

/// The filter program that denies `deny` (the [`denied`] list, and perhaps more).
pub fn program_denying(deny: &[(&'static str, libc::c_long)]) -> Vec<Insn> {
    let eperm = RET_ERRNO | libc::EPERM as u32;
    let enosys = RET_ERRNO | libc::ENOSYS as u32;
    let mut p = vec![
        stmt(BPF_LD_W_ABS, OFF_ARCH),
        jump(BPF_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(BPF_RET_K, RET_KILL_PROCESS),
        stmt(BPF_LD_W_ABS, OFF_NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.push(jump(BPF_JGE_K, X32_BIT, 0, 1));
        p.push(stmt(BPF_RET_K, eperm));
    }
    // A binary search over the sorted deny list: a short path per call, and a short emulation
    // when the kernel precomputes its allow-cache for every syscall number at install time.
    let mut numbers: Vec<u32> = deny.iter().map(|&(_, nr)| nr as u32).collect();
    numbers.sort_unstable();
    numbers.dedup();
    let tree = search(&numbers);
    // The tree ends in "matched" (deny) or "no match" (go on) returns, encoded as placeholders.
    let after = tree.len();
    for (i, insn) in tree.into_iter().enumerate() {
        p.push(match insn {
            Node::Insn(x) => x,
            Node::Deny => stmt(BPF_RET_K, eperm),
            Node::Continue => {
                // Jump to the first instruction after the tree.
                let skip = (after - i - 1) as u32;
                Insn {
                    code: 0x05, // BPF_JMP | BPF_JA
                    jt: 0,
                    jf: 0,
                    k: skip,
                }
            }
        });
    }
    // clone3 passes its flags in memory that a filter cannot read: answer ENOSYS, and the C
    // library falls back to clone, whose flags are checked below.
    p.push(jump(BPF_JEQ_K, libc::SYS_clone3 as u32, 0, 1));
    p.push(stmt(BPF_RET_K, enosys));
    p.push(jump(BPF_JEQ_K, libc::SYS_clone as u32, 0, 3));
    p.push(stmt(BPF_LD_W_ABS, OFF_ARG0_LOW));
    p.push(jump(BPF_JSET_K, CLONE_NS_FLAGS, 0, 1));
    p.push(stmt(BPF_RET_K, eperm));
    p.push(stmt(BPF_RET_K, RET_ALLOW));
    p
}

enum Node {
    Insn(Insn),
    Deny,
    Continue,
}

/// Code that, with the syscall number loaded, ends in `Deny` when it is in `sorted` and in
/// `Continue` otherwise.
fn search(sorted: &[u32]) -> Vec<Node> {
    if sorted.len() <= 3 {
        let mut out = Vec::new();
        for (i, &nr) in sorted.iter().enumerate() {
            // Equal: jump to the Deny placed after the remaining tests and the Continue.
            let remaining = sorted.len() - i - 1;
            out.push(Node::Insn(jump(BPF_JEQ_K, nr, remaining as u8 + 1, 0)));
        }
        out.push(Node::Continue);
        out.push(Node::Deny);
        return out;
    }
    let mid = sorted.len() / 2;
    let low = search(&sorted[..mid]);
    let high = search(&sorted[mid..]);
    assert!(
        low.len() <= 255,
        "the deny list is too long for 8-bit jumps"
    );
    let mut out = Vec::with_capacity(low.len() + high.len() + 1);
    // nr >= sorted[mid]: the high half, placed after the low half.
    out.push(Node::Insn(jump(BPF_JGE_K, sorted[mid], low.len() as u8, 0)));
    out.extend(low);
    out.extend(high);
    out
}

/// Installs `program` in the calling thread. Requires `no_new_privs` (or CAP_SYS_ADMIN).
/// Async-signal-safe: call between fork and exec with a program built beforehand.
pub fn install(program: &[Insn]) -> Result<(), i32> {
    #[repr(C)]
    struct Fprog {
        len: u16,
        filter: *const Insn,
    }
    let prog = Fprog {
        len: program.len() as u16,
        filter: program.as_ptr(),
    };
    // SAFETY: prog points at a live, well-formed filter for the duration of the call.
    let r = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER as libc::c_ulong,
            &prog as *const Fprog as libc::c_ulong,
            0,
            0,
        )
    };
    if r != 0 {
        // SAFETY: reading errno.
        return Err(unsafe { *libc::__errno_location() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_jump_lands_inside_the_program() {
        let p = program();
        assert!(p.len() < 4096, "a filter has at most 4096 instructions");
        for (i, insn) in p.iter().enumerate() {
            if insn.code == 0x05 {
                assert!(i + 1 + (insn.k as usize) < p.len());
            } else if insn.code & 0x07 == 0x05 {
                assert!(i + 1 + (insn.jt as usize) < p.len());
                assert!(i + 1 + (insn.jf as usize) < p.len());
            }
        }
        assert_eq!(p.last().unwrap().k, RET_ALLOW);
    }

    /// Runs the filter on one syscall (a tiny classic-BPF interpreter for the opcodes we emit).
    fn verdict(p: &[Insn], nr: u32, arg0: u32) -> u32 {
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = p[pc];
            pc += 1;
            match i.code {
                BPF_LD_W_ABS => {
                    acc = match i.k {
                        OFF_NR => nr,
                        OFF_ARCH => AUDIT_ARCH,
                        OFF_ARG0_LOW => arg0,
                        _ => panic!("unexpected load"),
                    }
                }
                BPF_RET_K => return i.k,
                0x05 => pc += i.k as usize,
                c => {
                    let taken = match c {
                        BPF_JEQ_K => acc == i.k,
                        BPF_JGE_K => acc >= i.k,
                        BPF_JSET_K => acc & i.k != 0,
                        _ => panic!("unexpected opcode {c:#x}"),
                    };
                    pc += if taken { i.jt } else { i.jf } as usize;
                }
            }
        }
    }

    #[test]
    fn denies_exactly_the_listed_calls() {
        let p = program();
        let denied: Vec<u32> = denied().iter().map(|&(_, nr)| nr as u32).collect();
        let eperm = RET_ERRNO | libc::EPERM as u32;
        for nr in 0..1024u32 {
            let v = verdict(&p, nr, 0);
            if denied.contains(&nr) {
                assert_eq!(v, eperm, "syscall {nr} must be denied");
            } else if nr == libc::SYS_clone3 as u32 {
                assert_eq!(v, RET_ERRNO | libc::ENOSYS as u32);
            } else {
                assert_eq!(v, RET_ALLOW, "syscall {nr} must be allowed");
            }
        }
        let clone = libc::SYS_clone as u32;
        assert_eq!(verdict(&p, clone, libc::SIGCHLD as u32), RET_ALLOW);
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u32;
        assert_eq!(verdict(&p, clone, thread), RET_ALLOW);
        assert_eq!(verdict(&p, clone, libc::CLONE_NEWUSER as u32), eperm);
        assert_eq!(
            verdict(&p, clone, libc::CLONE_NEWNET as u32 | thread),
            eperm
        );
        assert_eq!(verdict(&p, X32_BIT | 1, 0), eperm);
    }

    #[test]
    fn without_a_memory_cgroup_uncounted_memory_is_denied_too() {
        let eperm = RET_ERRNO | libc::EPERM as u32;
        let mut deny = denied();
        deny.extend(uncounted_memory());
        let p = program_denying(&deny);
        for &(name, nr) in &deny {
            assert_eq!(verdict(&p, nr as u32, 0), eperm, "{name}");
        }
        let shmget = libc::SYS_shmget as u32;
        assert_eq!(verdict(&program(), shmget, 0), RET_ALLOW);
        assert_eq!(verdict(&p, libc::SYS_mmap as u32, 0), RET_ALLOW);
    }
}
