//! Run cgroups on cgroup v2 (one unified tree): where the judge sits, the controllers it
//! enables for its runs (moving itself into a leaf when it must), and without root, the subtree
//! delegated to its user.

use super::group::{Files, Kind, RunGroup};
use super::{held_name, make_held, write, Made, RUN_PREFIX, SELF_PREFIX};
use crate::leftovers::Held;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the judge sits in a cgroup2 tree; run cgroups are created in `parent`.
#[derive(Debug, Clone)]
pub struct V2 {
    pub(super) parent: PathBuf,
    /// The judge is not root: `parent` is a subtree delegated to its user (systemd gives each
    /// user such a subtree: `user@UID.service`, and scopes made with `Delegate=yes`).
    pub(super) delegated: bool,
    /// The leaf the judge moved itself into, held while the judge lives (it cannot remove the
    /// leaf it sits in: the next judge does).
    pub(super) _leaf: Option<Arc<Held>>,
}

/// How a user gets a cgroup v2 subtree of their own for the judge (systemd).
pub(super) const DELEGATE_HINT: &str =
    "run the judge in a delegated scope: `systemd-run --user --scope -p Delegate=yes judge ...`";

/// Whether `uid` may change `path` (a cgroup folder or file): its owner with write permission,
/// or anyone when others may write. systemd delegates a subtree by giving its folder and the
/// files `cgroup.procs`, `cgroup.threads` and `cgroup.subtree_control` to the user.
pub(super) fn writable_by(path: &Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    if uid == 0 {
        return true;
    }
    std::fs::metadata(path)
        .is_ok_and(|m| (m.uid() == uid && m.mode() & 0o200 != 0) || m.mode() & 0o002 != 0)
}

impl V2 {
    /// `mount` is the cgroup2 mount and `proc_self_cgroup` the text of /proc/self/cgroup. If the
    /// judge's own cgroup must be freed for children (the "no internal processes" rule: a cgroup
    /// with processes cannot give controllers to children), the judge moves into a leaf.
    pub fn probe(mount: &Path, proc_self_cgroup: &str) -> Result<V2, String> {
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        Self::probe_as(mount, proc_self_cgroup, uid)
    }

    /// [`V2::probe`] for a judge running as `uid`: without root, only a subtree delegated to
    /// that user can be used.
    pub fn probe_as(mount: &Path, proc_self_cgroup: &str, uid: u32) -> Result<V2, String> {
        let rel = proc_self_cgroup
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .ok_or("no cgroup v2 entry (`0::/...`) in /proc/self/cgroup")?;
        let own = mount.join(rel.trim_start_matches('/'));
        let read = |file: &str| std::fs::read_to_string(own.join(file)).unwrap_or_default();
        let available = read("cgroup.controllers");
        for needed in ["memory", "pids"] {
            if !available.split_whitespace().any(|c| c == needed) {
                let fix = if uid == 0 {
                    "delegate it (e.g. `systemd-run --scope -p Delegate=yes judge ...`)"
                } else {
                    DELEGATE_HINT
                };
                return Err(format!(
                    "the `{needed}` controller is not available in {}/cgroup.controllers: run as root, or {fix}",
                    own.display()
                ));
            }
        }
        let delegated = uid != 0;
        if delegated {
            for path in [
                own.clone(),
                own.join("cgroup.procs"),
                own.join("cgroup.subtree_control"),
            ] {
                if !writable_by(&path, uid) {
                    return Err(format!(
                        "the judge's cgroup {} is not delegated to uid {uid} ({} is not writable by it): {DELEGATE_HINT}, or run as root",
                        own.display(),
                        path.display()
                    ));
                }
            }
        }
        let enabled = read("cgroup.subtree_control");
        let wanted: Vec<&str> = ["memory", "pids", "cpu"]
            .into_iter()
            .filter(|c| available.split_whitespace().any(|a| a == *c))
            .filter(|c| !enabled.split_whitespace().any(|e| e == *c))
            .collect();
        let mut leaf = None;
        if !wanted.is_empty() {
            if !read("cgroup.procs").trim().is_empty() {
                // Move the judge into a leaf of its own; it stays there until it exits.
                let mut tries = 0;
                let held = loop {
                    match make_held(&own.join(held_name(SELF_PREFIX))) {
                        Err(Made::Swept(_)) if tries < 3 => tries += 1,
                        Err(Made::Swept(why) | Made::Failed(why)) => return Err(why),
                        Ok(held) => break held,
                    }
                };
                write(held.path(), "cgroup.procs", "0")?;
                leaf = Some(Arc::new(held));
            }
            let change: Vec<String> = wanted.iter().map(|c| format!("+{c}")).collect();
            let change = change.join(" ");
            std::fs::write(own.join("cgroup.subtree_control"), &change).map_err(|e| {
                let mut why = format!(
                    "cannot write `{change}` to {}/cgroup.subtree_control: {e}",
                    own.display()
                );
                if e.raw_os_error() == Some(libc::EBUSY) {
                    why += &format!(
                        " (other processes share that cgroup); {}",
                        if delegated {
                            DELEGATE_HINT
                        } else {
                            "run the judge in a cgroup of its own"
                        }
                    );
                }
                why
            })?;
        }
        Ok(V2 {
            parent: own,
            delegated,
            _leaf: leaf,
        })
    }

    pub(super) fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, Made> {
        let dir = self.parent.join(held_name(RUN_PREFIX));
        let kind = Kind::V2 { dir: dir.clone() };
        let files = Files::of(&kind);
        let mut group = RunGroup {
            kind,
            files,
            held: Vec::new(),
            registered: false,
            limits: (memory, processes),
        };
        group.held.push(make_held(&dir)?);
        write(&dir, "memory.max", &memory.to_string())?;
        if dir.join("memory.swap.max").exists() {
            write(&dir, "memory.swap.max", "0")?;
        }
        write(&dir, "pids.max", &processes.to_string())?;
        Ok(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgroup::Cgroups;
    use crate::leftovers;
    use std::time::Duration;

    /// A fake cgroup2 tree: the judge sits in /outer/judge with the given files.
    fn fake_v2(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("cgroup.controllers"),
            "cpuset cpu io memory pids\n",
        )
        .unwrap();
        let own = root.path().join("outer/judge");
        std::fs::create_dir_all(&own).unwrap();
        for (file, text) in files {
            std::fs::write(own.join(file), text).unwrap();
        }
        (root, own)
    }

    #[test]
    fn v2_enables_controllers_and_moves_the_judge_into_a_leaf() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "cpu io memory pids\n"),
            ("cgroup.subtree_control", ""),
            ("cgroup.procs", "1234\n5678\n"),
        ]);
        let v2 = V2::probe(root.path(), "0::/outer/judge\n").unwrap();
        assert_eq!(v2.parent, own);
        let leaf = v2._leaf.as_ref().expect("a leaf").path().to_path_buf();
        assert_eq!(leaf.parent().unwrap(), own);
        let name = leaf.file_name().unwrap().to_str().unwrap();
        assert!(leftovers::is_held_name(name, SELF_PREFIX), "{name}");
        // "0": the writer itself (a fake tree moves no process).
        assert_eq!(
            std::fs::read_to_string(leaf.join("cgroup.procs")).unwrap(),
            "0"
        );
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids +cpu"
        );
    }

    #[test]
    fn v2_leaves_a_ready_cgroup_alone() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "memory pids\n"),
            ("cgroup.subtree_control", "memory pids\n"),
            ("cgroup.procs", "1234\n"),
        ]);
        let v2 = V2::probe(root.path(), "0::/outer/judge\n").unwrap();
        assert!(v2._leaf.is_none());
        assert_eq!(
            std::fs::read_dir(&own).unwrap().count(),
            3,
            "no folder made"
        );
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "memory pids\n"
        );
    }

    #[test]
    fn v2_without_the_memory_controller_says_how_to_fix_it() {
        let (root, _) = fake_v2(&[("cgroup.controllers", "cpu pids\n")]);
        let err = V2::probe(root.path(), "0::/outer/judge\n").unwrap_err();
        assert!(
            err.contains("`memory` controller is not available"),
            "{err}"
        );
        assert!(err.contains("cgroup.controllers"), "{err}");
        assert!(err.contains("Delegate=yes"), "{err}");
        let err = V2::probe(root.path(), "12:pids:/x\n").unwrap_err();
        assert!(err.contains("0::"), "{err}");
    }

    /// A fake tree whose judge cgroup (and its files) belong to `owner`.
    fn chown_tree(own: &Path, owner: u32) {
        for p in [
            own.to_path_buf(),
            own.join("cgroup.procs"),
            own.join("cgroup.subtree_control"),
        ] {
            std::os::unix::fs::chown(&p, Some(owner), None).unwrap();
        }
    }

    #[test]
    fn v2_without_root_uses_a_subtree_delegated_to_the_user() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: giving a fake tree to another user needs root");
            return;
        }
        const USER: u32 = 1000;
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "cpu memory pids\n"),
            ("cgroup.subtree_control", ""),
            ("cgroup.procs", "1234\n"),
        ]);
        let proc_self = "0::/outer/judge\n";
        let err = V2::probe_as(root.path(), proc_self, USER).unwrap_err();
        assert!(err.contains("is not delegated to uid 1000"), "{err}");
        assert!(
            err.contains("systemd-run --user --scope -p Delegate=yes"),
            "{err}"
        );
        chown_tree(&own, USER);
        let v2 = V2::probe_as(root.path(), proc_self, USER).unwrap();
        assert!(v2.delegated);
        let leaf = v2._leaf.as_ref().expect("a leaf").path().to_path_buf();
        assert_eq!(leaf.parent().unwrap(), own);
        let described = Cgroups::V2(v2).describe();
        assert!(described.contains("delegated to this user"), "{described}");
        assert!(described.contains("outer/judge"), "{described}");
        assert_eq!(
            std::fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory +pids +cpu"
        );
        assert!(leaf.is_dir());
        // A file the user cannot write is named.
        std::os::unix::fs::chown(own.join("cgroup.subtree_control"), Some(0), None).unwrap();
        let err = V2::probe_as(root.path(), proc_self, USER).unwrap_err();
        assert!(
            err.contains("cgroup.subtree_control is not writable"),
            "{err}"
        );
    }

    #[test]
    fn v2_without_root_and_without_controllers_says_how_to_get_them() {
        let (root, _) = fake_v2(&[("cgroup.controllers", "cpu\n")]);
        let err = V2::probe_as(root.path(), "0::/outer/judge\n", 1000).unwrap_err();
        assert!(
            err.contains("`memory` controller is not available"),
            "{err}"
        );
        assert!(
            err.contains("systemd-run --user --scope -p Delegate=yes"),
            "{err}"
        );
    }

    #[test]
    fn v2_run_groups_set_limits_and_read_the_v2_files() {
        let (root, own) = fake_v2(&[
            ("cgroup.controllers", "memory pids\n"),
            ("cgroup.subtree_control", "memory pids\n"),
        ]);
        // As root, whoever runs the tests (without root, the fake tree is not delegated).
        let v2 = V2::probe_as(root.path(), "0::/outer/judge\n", 0).unwrap();
        let group = v2.create(64 << 20, 32).unwrap();
        let Kind::V2 { dir } = &group.kind else {
            panic!("a v2 group expected");
        };
        assert_eq!(dir.parent().unwrap(), own);
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        assert_eq!(read("memory.max"), (64u64 << 20).to_string());
        assert_eq!(read("pids.max"), "32");
        assert_eq!(group.procs_files().len(), 1);
        // What the kernel would report after a run.
        let put = |f: &str, text: &str| std::fs::write(dir.join(f), text).unwrap();
        put(
            "cpu.stat",
            "usage_usec 503912\nuser_usec 500000\nsystem_usec 3912\n",
        );
        put("memory.peak", "105267200\n");
        put("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
        assert_eq!(group.cpu_time(), Duration::from_micros(503_912));
        assert_eq!(group.peak_memory(), 105_267_200);
        assert_eq!(group.memory_evidence(), (true, true));
        // Files stay open and are read from the start again: later values are seen.
        put(
            "cpu.stat",
            "usage_usec 1503912\nuser_usec 1500000\nsystem_usec 3912\n",
        );
        assert_eq!(group.cpu_time(), Duration::from_micros(1_503_912));
        let older = v2.create(64 << 20, 32).unwrap();
        let Kind::V2 { dir: older_dir } = &older.kind else {
            panic!("a v2 group expected");
        };
        std::fs::write(older_dir.join("memory.current"), "4096\n").unwrap();
        assert_eq!(
            older.peak_memory(),
            4096,
            "falls back to memory.current before 5.19"
        );
        std::mem::forget(older);
        // kill uses cgroup.kill when the kernel has it.
        put("cgroup.kill", "0");
        group.kill();
        assert_eq!(read("cgroup.kill"), "1");
        // A fake tree cannot be rmdir'ed like a real one: do not wait for it on drop.
        std::mem::forget(group);
    }
}
