//! A throwaway PostgreSQL for tests: `initdb` into a temporary folder (under /dev/shm when it
//! can: [`data_base`]) as an unprivileged user (`nobody` when the tests run as root: `initdb`
//! refuses root), `postgres` listening on a Unix socket in that folder only
//! (`listen_addresses=''`), `fsync=off`. Each test takes a database of its own
//! ([`Server::fresh_db`]). [`Options`] asks for synchronous commits (a server the test
//! crashes), TCP addresses and a network namespace to run in (many machines on one).
//!
//! A [`Server`] stops its postmaster and removes its folder when dropped; [`shared`] is one
//! server per test process, stopped at the process's exit (an `atexit` handler, which also
//! runs after a failed test). Postmasters are started from one long-lived thread with a
//! parent-death signal (SIGQUIT), so a test process killed outright takes them along.

use postgres::{Client, NoTls};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A running throwaway PostgreSQL.
pub struct Server {
    /// Holds the data folder and the socket; removed after the postmaster stopped.
    dir: Option<tempfile::TempDir>,
    bin: PathBuf,
    child: Option<Child>,
    owner: Option<(u32, u32)>,
    options: Options,
}

/// How a [`Server`] runs beyond the defaults (Unix socket only, commits not waited for).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Commits wait for their WAL to reach the kernel (PostgreSQL's own default), so a crash
    /// of the server ([`Server::stop`]) loses no commit it acknowledged. Off by default:
    /// faster, and enough while the server is never crashed.
    pub synchronous_commit: bool,
    /// TCP addresses to listen on besides the Unix socket, on port 5432; clients of the
    /// addresses' networks (`samenet`) are trusted. Meant for a network namespace of the
    /// test's own ([`Options::netns`]), where the port is free.
    pub listen: Vec<String>,
    /// The network namespace to run in: a `/proc/PID/ns/net` file.
    pub netns: Option<PathBuf>,
}

/// Where `initdb` and `postgres` are: on PATH, else the newest `/usr/lib/postgresql/*/bin`.
pub fn binaries() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("initdb").is_file() && dir.join("postgres").is_file() {
                return Some(dir);
            }
        }
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

/// Where a server's folder goes: /dev/shm when it is a folder anyone may write (a tmpfs on
/// Linux), else the temporary folder. Memory is cheaper than a disk here: `CREATE DATABASE`
/// (a fresh database per test) and `initdb` each make about a thousand files, and creating
/// files costs far more CPU on a disk (measured 2026-11-27 on ext4 without a journal: 264 ms of
/// CPU a `CREATE DATABASE`, against 94 ms on /dev/shm).
fn data_base() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let writable = std::fs::metadata(shm).is_ok_and(|m| {
        m.is_dir() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o1777 == 0o1777
    });
    if writable {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// The uid and gid of `nobody` when running as root (PostgreSQL refuses to run as root).
fn unprivileged() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    // SAFETY: the name is a NUL-terminated literal; the record is read before any other
    // getpw* call of this thread.
    let pw = unsafe { libc::getpwnam(c"nobody".as_ptr()) };
    // SAFETY: a non-null result points to a valid passwd record.
    (!pw.is_null()).then(|| unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

type SpawnRequest = (Command, mpsc::Sender<std::io::Result<Child>>);

/// Spawns `command` from the keeper thread, which lives as long as the process: the parent-
/// death signal fires when the thread that forked exits, not the process.
fn spawn_kept(command: Command) -> std::io::Result<Child> {
    static KEEPER: OnceLock<Mutex<mpsc::Sender<SpawnRequest>>> = OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::spawn(move || {
            for (mut command, reply) in rx {
                let _ = reply.send(command.spawn());
            }
            // Never ends while the process lives: the sender is in a static.
        });
        Mutex::new(tx)
    });
    let (tx, rx) = mpsc::channel();
    keeper
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((command, tx))
        .map_err(|_| std::io::Error::other("the keeper thread is gone"))?;
    rx.recv()
        .map_err(|_| std::io::Error::other("the keeper thread is gone"))?
}

impl Server {
    /// Initialises a cluster in a new temporary folder and starts it; waits (up to 60 s) until
    /// it accepts connections.
    pub fn start() -> Result<Server, String> {
        Server::start_with(Options::default())
    }

    /// [`Server::start`] with `options`.
    pub fn start_with(options: Options) -> Result<Server, String> {
        let bin = binaries().ok_or(
            "PostgreSQL is not installed: no initdb on PATH or under /usr/lib/postgresql/*/bin\n  hint: apt-get install postgresql",
        )?;
        let dir = tempfile::Builder::new()
            .prefix("judge-pg-")
            .tempdir_in(data_base())
            .map_err(|e| format!("a temporary folder: {e}"))?;
        let owner = unprivileged();
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .map_err(|e| format!("{}: {e}", dir.path().display()))?;
        }
        let data = dir.path().join("data");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb
            .args(["-D"])
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .current_dir(dir.path());
        as_owner(&mut initdb, owner);
        let out = initdb.output().map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "initdb failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if !options.listen.is_empty() {
            let hba = data.join("pg_hba.conf");
            let mut text =
                std::fs::read_to_string(&hba).map_err(|e| format!("{}: {e}", hba.display()))?;
            text.push_str("\n# The test's own links\nhost all all samenet trust\n");
            std::fs::write(&hba, text).map_err(|e| format!("{}: {e}", hba.display()))?;
        }
        let mut server = Server {
            dir: Some(dir),
            bin,
            child: None,
            owner,
            options,
        };
        server.resume()?;
        Ok(server)
    }

    /// The folder holding the socket (the `host` of a connection).
    pub fn socket_dir(&self) -> &Path {
        self.dir
            .as_ref()
            .expect("the folder lives as long as the server")
            .path()
    }

    /// Connection words for database `db`.
    pub fn url(&self, db: &str) -> String {
        format!(
            "host={} user=postgres dbname={db}",
            self.socket_dir().display()
        )
    }

    /// Connection words for database `db` over TCP to `addr` (one of [`Options::listen`]).
    pub fn tcp_url(addr: &str, db: &str) -> String {
        format!("host={addr} port=5432 user=postgres dbname={db}")
    }

    /// A new empty database; returns its name (connection words: [`Server::url`]).
    pub fn fresh_db_name(&self) -> Result<String, String> {
        let url = self.fresh_db()?;
        Ok(url.rsplit("dbname=").next().unwrap_or_default().to_string())
    }

    /// A new empty database of this server; returns its connection words.
    pub fn fresh_db(&self) -> Result<String, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut client =
            Client::connect(&self.url("postgres"), NoTls).map_err(|e| e.to_string())?;
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .map_err(|e| e.to_string())?;
        Ok(self.url(&name))
    }

    /// Stops the postmaster at once (SIGQUIT: no checkpoint), as a crash would; the data stays.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: kill has no memory preconditions; the pid is our unreaped child's.
            unsafe { libc::kill(child.id() as i32, libc::SIGQUIT) };
            let _ = child.wait();
        }
    }

    /// Starts the postmaster on the existing data (after [`Server::stop`]) and waits until it
    /// accepts connections.
    pub fn resume(&mut self) -> Result<(), String> {
        let dir = self.socket_dir().to_path_buf();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("postgres.log"))
            .map_err(|e| format!("the server's log: {e}"))?;
        let mut postgres = Command::new(self.bin.join("postgres"));
        postgres
            .arg("-D")
            .arg(dir.join("data"))
            .arg("-k")
            .arg(&dir)
            .arg("-c")
            .arg(format!(
                "listen_addresses={}",
                self.options.listen.join(",")
            ))
            .args(["-c", "port=5432", "-c", "fsync=off"])
            .arg("-c")
            .arg(format!(
                "synchronous_commit={}",
                if self.options.synchronous_commit {
                    "on"
                } else {
                    "off"
                }
            ))
            .args(["-c", "full_page_writes=off", "-c", "max_connections=200"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .current_dir(&dir);
        let netns = match &self.options.netns {
            Some(path) => {
                Some(std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?)
            }
            None => None,
        };
        // In a namespace, the uid changes after entering it (entering needs root).
        let owner = self.owner;
        match &netns {
            None => as_owner(&mut postgres, owner),
            Some(_) => {
                postgres.env("HOME", "/tmp");
            }
        }
        {
            use std::os::fd::AsRawFd;
            use std::os::unix::process::CommandExt;
            let netns = netns.as_ref().map(|f| f.as_raw_fd());
            // SAFETY: setns, setgroups, setgid, setuid and prctl are async-signal-safe; the
            // namespace's descriptor stays open until the spawn returns. The parent-death
            // signal is set after the uid change, which would clear it.
            unsafe {
                postgres.pre_exec(move || {
                    let check = |r: i32| {
                        if r != 0 {
                            Err(std::io::Error::last_os_error())
                        } else {
                            Ok(())
                        }
                    };
                    if let Some(fd) = netns {
                        check(libc::setns(fd, libc::CLONE_NEWNET))?;
                        if let Some((uid, gid)) = owner {
                            check(libc::setgroups(0, std::ptr::null()))?;
                            check(libc::setgid(gid))?;
                            check(libc::setuid(uid))?;
                        }
                    }
                    check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGQUIT))
                });
            }
        }
        let child = spawn_kept(postgres).map_err(|e| format!("postgres: {e}"))?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            match Client::connect(&self.url("postgres"), NoTls) {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > deadline => {
                    let log = std::fs::read_to_string(dir.join("postgres.log")).unwrap_or_default();
                    return Err(format!("postgres did not start in 60 s: {e}\n{log}"));
                }
                Err(_) => {
                    if let Some(status) = self
                        .child
                        .as_mut()
                        .and_then(|c| c.try_wait().ok().flatten())
                    {
                        let log =
                            std::fs::read_to_string(dir.join("postgres.log")).unwrap_or_default();
                        return Err(format!("postgres exited ({status}):\n{log}"));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }
}

fn as_owner(command: &mut Command, owner: Option<(u32, u32)>) {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid).env("HOME", "/tmp");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        if let Some(dir) = self.dir.take() {
            let _ = dir.close();
        }
    }
}

static SHARED: OnceLock<Result<Mutex<Option<Server>>, String>> = OnceLock::new();

extern "C" fn stop_shared() {
    if let Some(Ok(server)) = SHARED.get() {
        drop(server.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

/// One server for the whole test process (started at the first call), stopped and removed
/// when the process exits; each test should take a [`Server::fresh_db`] of it.
pub fn shared() -> Result<String, String> {
    let server = SHARED.get_or_init(|| {
        let server = Server::start()?;
        // SAFETY: registers a plain function that takes the server out of its static.
        unsafe { libc::atexit(stop_shared) };
        Ok(Mutex::new(Some(server)))
    });
    let server = server.as_ref().map_err(Clone::clone)?;
    let guard = server.lock().unwrap_or_else(|e| e.into_inner());
    guard
        .as_ref()
        .ok_or_else(|| "the shared server was stopped".to_string())?
        .fresh_db()
}
