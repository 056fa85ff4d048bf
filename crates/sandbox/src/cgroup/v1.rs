//! Run cgroups on cgroup v1: the memory, cpuacct and pids hierarchies, where the judge sits in
//! each, and a run's folder in all three.

use super::group::{remove_folder, Files, Kind, Pooled, RunGroup};
use super::{held_name, make_held, Made, RUN_PREFIX};
use std::path::{Path, PathBuf};

/// Where the v1 controllers are mounted and where the judge sits in them.
#[derive(Debug, Clone)]
pub struct V1 {
    pub(super) memory: PathBuf,
    pub(super) cpuacct: PathBuf,
    pub(super) pids: PathBuf,
}

impl V1 {
    /// The judge's own cgroup in each needed v1 hierarchy, or why they cannot be used.
    pub fn probe(root: &Path, proc_self_cgroup: &str) -> Result<V1, String> {
        let own = |controller: &str| -> Result<PathBuf, String> {
            let mount = ["", ",cpu"]
                .iter()
                .map(|suffix| root.join(format!("{controller}{suffix}")))
                .chain(std::iter::once(root.join(format!("cpu,{controller}"))))
                .find(|p| p.is_dir())
                .ok_or_else(|| {
                    format!(
                        "no cgroup v1 `{controller}` hierarchy under {}",
                        root.display()
                    )
                })?;
            let rel = proc_self_cgroup
                .lines()
                .filter_map(|l| {
                    let mut parts = l.splitn(3, ':');
                    let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
                    controllers
                        .split(',')
                        .any(|c| c == controller)
                        .then(|| path.trim_start_matches('/').to_string())
                })
                .next()
                .unwrap_or_default();
            let dir = mount.join(rel);
            // A run cgroup's name, held like one: a judge killed in between leaves a folder
            // the next one removes (and another judge's sweep may take it: another name).
            let mut tries = 0;
            let probe = loop {
                match make_held(&dir.join(held_name(RUN_PREFIX))) {
                    Err(Made::Swept(_)) if tries < 3 => tries += 1,
                    Err(Made::Swept(why) | Made::Failed(why)) => {
                        return Err(format!(
                            "cannot create a cgroup in {}: {why}",
                            dir.display()
                        ))
                    }
                    Ok(held) => break held,
                }
            };
            let _ = std::fs::remove_dir(probe.path());
            Ok(dir)
        };
        Ok(V1 {
            memory: own("memory")?,
            cpuacct: own("cpuacct")?,
            pids: own("pids")?,
        })
    }

    /// A fresh cgroup for one run with the given limits.
    pub(super) fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, Made> {
        let name = held_name(RUN_PREFIX);
        let kind = Kind::V1 {
            memory: self.memory.join(&name),
            cpuacct: self.cpuacct.join(&name),
            pids: self.pids.join(&name),
        };
        let files = Files::of(&kind);
        let mut g = RunGroup {
            kind,
            files,
            held: Vec::new(),
            registered: false,
            limits: (memory, processes),
        };
        let dirs: Vec<PathBuf> = g.dirs().into_iter().cloned().collect();
        for d in &dirs {
            let held = make_held(d)?;
            g.held.push(held);
        }
        let (mem, pids) = (self.memory.join(&name), self.pids.join(&name));
        limit_memory(&mem, memory)?;
        set(&pids, "pids.max", processes.to_string())?;
        Ok(g)
    }

    /// A run's cgroups from a pooled cpuacct and pids pair (see `janitor::recycle`) with a
    /// kept memory folder that reads as a fresh one (see `janitor::take_memory`) or else a
    /// fresh memory folder, registered with the interrupt handler; None if they could not be
    /// made (the pair is removed then, and the caller makes three fresh folders).
    pub(super) fn reuse(
        &self,
        mut pooled: Pooled,
        memory: u64,
        processes: u32,
    ) -> Option<RunGroup> {
        if !pooled.set_processes(processes) {
            return None;
        }
        // The pair's own memory folder serves only through the janitor's memory pool (see
        // `janitor::recycle`): removed here if it is still with the pair, before the
        // registry is locked below (removing a folder unregisters it).
        drop(pooled.take_memory());
        // A kept memory folder that reads as a fresh one: nothing to make.
        if let Some(kept) = super::janitor::take_memory(self, memory) {
            if let Some(group) = RunGroup::from_pooled_whole(&mut pooled, kept) {
                return Some(group);
            }
        }
        // What is not used is dropped after the registry is unlocked: dropping unregisters.
        let (mut pair, mut spoiled) = (Some(pooled), None);
        let made = crate::interrupt::create_cgroups(|| {
            let dir = self.memory.join(held_name(RUN_PREFIX));
            let Ok(held) = make_held(&dir) else {
                return Ok((None, Vec::new()));
            };
            let Some(pooled) = pair.take() else {
                remove_folder(held.path());
                return Ok((None, Vec::new()));
            };
            let mut group = match RunGroup::from_pooled(held, pooled) {
                Ok(group) => group,
                Err(held) => {
                    remove_folder(held.path());
                    return Ok((None, Vec::new()));
                }
            };
            // The pair is registered already (it stayed so in the pool).
            group.registered = true;
            group.limits.0 = memory;
            if limit_memory(&dir, memory).is_err() {
                spoiled = Some(group);
                return Ok((None, vec![dir]));
            }
            Ok((Some(group), vec![dir]))
        });
        drop((pair, spoiled));
        made.ok().flatten()
    }
}

fn set(dir: &Path, file: &str, value: String) -> Result<(), Made> {
    std::fs::write(dir.join(file), value)
        .map_err(|e| Made::Failed(format!("cannot set {}/{file}: {e}", dir.display())))
}

/// Sets the memory limits of a run's memory folder.
pub(super) fn limit_memory(mem: &Path, memory: u64) -> Result<(), Made> {
    let memsw = mem.join("memory.memsw.limit_in_bytes").exists();
    let limit = || set(mem, "memory.limit_in_bytes", memory.to_string());
    let limit_memsw = || set(mem, "memory.memsw.limit_in_bytes", memory.to_string());
    match limit() {
        Ok(()) if memsw => limit_memsw()?,
        Ok(()) => {}
        // The memory limit is never above the memory+swap one (a reused folder's may be
        // raised): that one goes first.
        Err(_) if memsw => {
            limit_memsw()?;
            limit()?;
        }
        Err(e) => return Err(e),
    }
    // Swap would hide memory use and slow the machine down.
    let _ = set(mem, "memory.swappiness", "0".into());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_judges_own_cgroup_in_each_hierarchy() {
        let root = tempfile::tempdir().unwrap();
        for c in ["memory", "cpu,cpuacct", "pids"] {
            std::fs::create_dir_all(root.path().join(c).join("outer/inner")).unwrap();
        }
        std::os::unix::fs::symlink(root.path().join("cpu,cpuacct"), root.path().join("cpuacct"))
            .unwrap();
        let own = "12:pids:/outer/inner\n5:cpu,cpuacct:/outer\n3:memory:/outer/inner\n0::/\n";
        let v1 = V1::probe(root.path(), own).unwrap();
        assert_eq!(v1.memory, root.path().join("memory/outer/inner"));
        assert_eq!(v1.cpuacct, root.path().join("cpuacct/outer"));
        assert_eq!(v1.pids, root.path().join("pids/outer/inner"));
        let missing = tempfile::tempdir().unwrap();
        let err = V1::probe(missing.path(), own).unwrap_err();
        assert!(err.contains("no cgroup v1 `memory` hierarchy"), "{err}");
    }
}
