//! The kernel's cgroup `favordynmods` mode as the judge side sees it: whether it is on (the
//! kernel's own signs, or the marker a judge left this boot), turning it on when asked
//! (`judge doctor --tune`), and the note `judge doctor` shows.

use super::lease::{lease_dir, LEASE_DIRS};
use crate::{sys, Layer};
use std::path::{Path, PathBuf};

/// Set to 1, the judge turns the kernel's cgroup `favordynmods` mode on (see
/// `worker::favor_dynmods`); `judge doctor --tune` does it at once.
pub(super) const FAVORDYNMODS_ENV: &str = "JUDGE_CGROUP_FAVORDYNMODS";

/// This boot's id: the favordynmods marker holds it, and a reboot (which turns the mode off)
/// changes it.
pub(super) fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string())
}

/// The marker a judge leaves in a lease folder when it turned favordynmods on.
pub(super) fn marker(dir: &Path) -> PathBuf {
    dir.join("favordynmods")
}

/// Whether a judge already turned favordynmods on since this boot.
pub(super) fn favordynmods_marked(dir: &Path) -> bool {
    match (std::fs::read_to_string(marker(dir)), boot_id()) {
        (Ok(marker), Some(id)) => marker.trim() == id,
        _ => false,
    }
}

pub(super) fn mark_favordynmods(dir: &Path) {
    if let Some(id) = boot_id() {
        let _ = std::fs::write(marker(dir), format!("{id}\n"));
    }
}

/// Where the kernel itself shows the mode: a cgroup hierarchy mounted with the option (listed
/// in /proc/mounts; also every hierarchy when the kernel was built to favour dynamic changes),
/// or the boot option `cgroup_favordynmods`. A hierarchy mounted with the option and unmounted at
/// once, as the judge does it, leaves no such trace: the judge's marker remembers it instead.
pub fn favordynmods_shown() -> Option<String> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    shown_in(&read("/proc/self/mounts"), &read("/proc/cmdline"))
}

/// [`favordynmods_shown`] from the text of /proc/self/mounts and /proc/cmdline.
pub(super) fn shown_in(mounts: &str, cmdline: &str) -> Option<String> {
    let mounted = mounts.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (point, fstype, options) = (f.get(1)?, f.get(2)?, f.get(3)?);
        (fstype.starts_with("cgroup") && options.split(',').any(|o| o == "favordynmods"))
            .then(|| format!("{point} is mounted with it"))
    });
    let booted = cmdline.split_whitespace().find_map(|arg| {
        let value = arg.strip_prefix("cgroup_favordynmods=")?;
        ["1", "y", "Y", "true", "on"]
            .contains(&value)
            .then(|| format!("booted with {arg}"))
    });
    mounted.or(booted)
}

/// The cgroup favordynmods mode, as `judge doctor` shows it.
#[derive(Debug, Clone)]
pub(super) enum Favor {
    /// Turned on by this judge (asked with JUDGE_CGROUP_FAVORDYNMODS=1).
    TurnedOn,
    /// A judge turned it on earlier this boot (its marker says so).
    Marked,
    /// The kernel shows it on (see [`favordynmods_shown`]).
    Shown(String),
    /// Left off: nobody asked.
    Off,
    /// Asked, but turning it on failed.
    Failed(String),
}

/// The note `judge doctor` shows about the cgroup mode.
pub(super) fn favordynmods_note(state: &Favor, v1: bool) -> Layer {
    let slow = "a run that starts after a pause may wait 10 ms or more to join its cgroup (wall time only; CPU time and memory are not affected)";
    let on = "joining a cgroup never waits for an RCU grace period";
    // On cgroup v1 a run joins through `tasks` (cgroup::JOIN_V1), which never waits for it.
    let not_needed = "not needed here: on cgroup v1 a run joins its cgroups through `tasks`, which moves one thread and waits for no kernel-wide lock";
    let (active, detail, hint) = match state {
        Favor::Off if v1 => (false, format!("left off, {not_needed}"), None),
        Favor::Failed(why) if v1 => (
            false,
            format!("could not be turned on ({why}); {not_needed}"),
            None,
        ),
        Favor::TurnedOn => (true, format!("{on} (turned on now by this judge, as {FAVORDYNMODS_ENV}=1 asked; the mode is kernel-wide and lasts until reboot)"), None),
        Favor::Marked => (true, format!("{on} (turned on earlier this boot by a judge; kernel-wide, until reboot)"), None),
        Favor::Shown(r#where) => (true, format!("{on} (the kernel shows it on: {where})"), None),
        Favor::Off => (
            false,
            format!("left off (it is kernel-wide and lasts until reboot, so the judge turns it on only when asked): {slow}"),
            Some(format!("`judge doctor --tune` turns it on (or {FAVORDYNMODS_ENV}=1 for any judge command)")),
        ),
        Favor::Failed(why) => (
            false,
            format!("could not be turned on ({why}): {slow}"),
            Some("Linux 6.0 or later with cgroup v1 support lets the judge turn it on; on cgroup v2, `mount -o remount,favordynmods /sys/fs/cgroup`".into()),
        ),
    };
    Layer {
        name: "cgroup favordynmods".into(),
        active,
        detail,
        hint,
    }
}

/// `judge doctor --tune`: turns the kernel's cgroup favordynmods mode on now (as root), and
/// says what that means. The mode is kernel-wide and lasts until reboot.
pub fn tune() -> Result<String, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("turning on the cgroup favordynmods mode needs root (it is a kernel-wide setting): run `sudo judge doctor --tune`".into());
    }
    let done = "the cgroup favordynmods mode is on: a run joins its cgroup without waiting for an RCU grace period. It is kernel-wide and lasts until reboot (the kernel cannot turn it off again); it makes fork and exit slightly dearer for every process on this machine";
    if let Some(r#where) = favordynmods_shown() {
        return Ok(format!("{done} (it was on already: {where})"));
    }
    let dir = LEASE_DIRS
        .map(Path::new)
        .into_iter()
        .find(|d| lease_dir(d).is_ok());
    let tmp = tempfile::Builder::new()
        .prefix("judge-tune-")
        .tempdir()
        .map_err(|e| {
            format!(
                "cannot create a folder in {}: {e}",
                std::env::temp_dir().display()
            )
        })?;
    let root = tmp.path().to_path_buf();
    // The mount goes in a mount namespace of this thread's own, gone with the thread.
    let result = std::thread::spawn(move || {
        // SAFETY: unshare of this thread's mount namespace (it gets its own fs context).
        if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
            return Err(format!(
                "unshare a mount namespace: {}",
                std::io::Error::last_os_error()
            ));
        }
        sys::mount(None, c"/", None, libc::MS_REC | libc::MS_PRIVATE, None)
            .map_err(|e| e.to_string())?;
        crate::worker::favor_dynmods(&root)
    })
    .join()
    .map_err(|_| "the thread turning the mode on panicked".to_string())?;
    result.map_err(|why| format!("cannot turn the cgroup favordynmods mode on ({why}); it needs Linux 6.0 or later with cgroup v1 support; on cgroup v2, `mount -o remount,favordynmods /sys/fs/cgroup` does it"))?;
    if let Some(dir) = dir {
        mark_favordynmods(dir);
    }
    Ok(done.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_is_seen_in_mount_options_and_the_boot_line() {
        let v1 = "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n";
        assert_eq!(shown_in(v1, "quiet reboot=k"), None);
        let v2 = "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nsdelegate,favordynmods 0 0\n";
        assert_eq!(
            shown_in(v2, "quiet").as_deref(),
            Some("/sys/fs/cgroup is mounted with it")
        );
        assert_eq!(
            shown_in(v1, "quiet cgroup_favordynmods=true").as_deref(),
            Some("booted with cgroup_favordynmods=true")
        );
        assert_eq!(shown_in(v1, "cgroup_favordynmods=false"), None);
        let other = "none /mnt tmpfs rw,favordynmods 0 0\n";
        assert_eq!(shown_in(other, ""), None, "only cgroup mounts count");
    }
}
