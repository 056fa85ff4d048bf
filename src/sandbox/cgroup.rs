//! Per-run cgroups (v1 hierarchies memory, cpuacct and pids): limit memory and process count,
//! measure CPU time and peak memory of exactly one run's process tree, and kill that tree.
//!
//! Run cgroups are created below the judge's own cgroup in each hierarchy (read from
//! /proc/self/cgroup), so a judge that is itself confined (e.g. by a test harness) stays confined.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where the v1 controllers are mounted and where the judge sits in them.
#[derive(Debug, Clone)]
pub struct V1 {
    memory: PathBuf,
    cpuacct: PathBuf,
    pids: PathBuf,
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
            let probe = dir.join(format!("judge-probe-{}", std::process::id()));
            std::fs::create_dir(&probe)
                .map_err(|e| format!("cannot create a cgroup in {}: {e}", dir.display()))?;
            let _ = std::fs::remove_dir(&probe);
            Ok(dir)
        };
        Ok(V1 {
            memory: own("memory")?,
            cpuacct: own("cpuacct")?,
            pids: own("pids")?,
        })
    }

    /// Probes the machine's real hierarchies.
    pub fn probe_system() -> Result<V1, String> {
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        V1::probe(Path::new("/sys/fs/cgroup"), &own)
    }

    /// A fresh cgroup for one run with the given limits.
    pub fn create(&self, memory: u64, processes: u32) -> Result<RunGroup, String> {
        // The pid alone is not unique: judges in separate PID namespaces may all be pid 1.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "judge-{}-{nanos:08x}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let g = RunGroup {
            memory: self.memory.join(&name),
            cpuacct: self.cpuacct.join(&name),
            pids: self.pids.join(&name),
        };
        for d in g.dirs() {
            std::fs::create_dir(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        }
        let set = |dir: &Path, file: &str, value: String| -> Result<(), String> {
            std::fs::write(dir.join(file), value)
                .map_err(|e| format!("cannot set {}/{file}: {e}", dir.display()))
        };
        set(&g.memory, "memory.limit_in_bytes", memory.to_string())?;
        if g.memory.join("memory.memsw.limit_in_bytes").exists() {
            set(&g.memory, "memory.memsw.limit_in_bytes", memory.to_string())?;
        }
        // Swap would hide memory use and slow the machine down.
        let _ = set(&g.memory, "memory.swappiness", "0".into());
        set(&g.pids, "pids.max", processes.to_string())?;
        Ok(g)
    }
}

/// The cgroups of one run; removed on drop (after killing whatever is left).
pub struct RunGroup {
    memory: PathBuf,
    cpuacct: PathBuf,
    pids: PathBuf,
}

impl RunGroup {
    fn dirs(&self) -> [&PathBuf; 3] {
        [&self.memory, &self.cpuacct, &self.pids]
    }

    /// `cgroup.procs` paths, for the child to join between fork and exec.
    pub fn procs_files(&self) -> Vec<CString> {
        self.dirs()
            .iter()
            .map(|d| {
                CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes())
                    .expect("no NUL in paths")
            })
            .collect()
    }

    pub fn cpu_time(&self) -> Duration {
        Duration::from_nanos(read_u64(&self.cpuacct.join("cpuacct.usage")).unwrap_or(0))
    }

    pub fn peak_memory(&self) -> u64 {
        read_u64(&self.memory.join("memory.max_usage_in_bytes")).unwrap_or(0)
    }

    /// The OOM killer struck, or an allocation hit the limit.
    pub fn memory_evidence(&self) -> (bool, bool) {
        let oom = std::fs::read_to_string(self.memory.join("memory.oom_control"))
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("oom_kill ")
                        .and_then(|n| n.trim().parse::<u64>().ok())
                })
            })
            .unwrap_or(0);
        let failcnt = read_u64(&self.memory.join("memory.failcnt")).unwrap_or(0);
        (oom > 0, failcnt > 0)
    }

    /// Kills every process of the run until none is left.
    pub fn kill_all(&self) {
        for _ in 0..1000 {
            let pids = std::fs::read_to_string(self.pids.join("cgroup.procs")).unwrap_or_default();
            let pids: Vec<i32> = pids.lines().filter_map(|l| l.trim().parse().ok()).collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: SIGKILL to a process of this run's own cgroup.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for RunGroup {
    fn drop(&mut self) {
        self.kill_all();
        for d in self.dirs() {
            for _ in 0..200 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

fn read_u64(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
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
