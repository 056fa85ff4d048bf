//! What the queue judges: content-addressed blobs (a package as a tar of its folder, a
//! source), problems (a name → its package's hash), submissions and their jobs; and reading a
//! submission back with its tests and every judging attempt.

use crate::db::{Db, Sql};
use crate::rows::QUEUED;
use crate::Error;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The SHA-256 of `data`, in hex: a blob's name.
pub fn hash(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Stores `data` (once: the same bytes are one blob) and returns its hash.
pub fn put_blob(client: &mut Db, data: &[u8]) -> Result<String, Error> {
    let h = hash(data);
    client.execute(
        "INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
        &[&h, &data],
    )?;
    Ok(h)
}

/// The blob named `hash`, checked against its name.
pub fn blob(client: &mut Db, hash_hex: &str) -> Result<Vec<u8>, Error> {
    let row = client
        .query_opt("SELECT data FROM blobs WHERE hash = $1", &[&hash_hex])?
        .ok_or_else(|| Error::Blob(format!("blob {hash_hex} is missing")))?;
    let data: Vec<u8> = row.get(0);
    if hash(&data) != hash_hex {
        return Err(Error::Blob(format!(
            "blob {hash_hex} does not match its hash"
        )));
    }
    Ok(data)
}

/// A package folder as a tar archive whose bytes depend only on the files' paths, contents and
/// executable bits (sorted, no times or owners), so the same package is the same blob.
pub fn pack(dir: &Path) -> Result<Vec<u8>, Error> {
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dir.display()));
    let mut files = Vec::new();
    collect(dir, Path::new(""), &mut files).map_err(io)?;
    files.sort();
    let mut builder = tar::Builder::new(Vec::new());
    for rel in files {
        let path = dir.join(&rel);
        let data = std::fs::read(&path).map_err(io)?;
        let executable = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(&path).map_err(io)?.permissions().mode() & 0o111 != 0
        };
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(if executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, &rel, data.as_slice())
            .map_err(io)?;
    }
    builder.into_inner().map_err(io)
}

/// Every regular file under `dir` (symbolic links followed), as paths relative to it.
fn collect(root: &Path, rel: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let path = rel.join(entry.file_name());
        let meta = std::fs::metadata(root.join(&path))?;
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else if meta.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Unpacks a package archive into `dest` (which must not exist), refusing entries that are
/// not plain files or folders or whose path leaves the folder.
pub fn unpack(archive: &[u8], dest: &Path) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dest.display()));
    std::fs::create_dir(dest).map_err(io)?;
    let mut tar = tar::Archive::new(archive);
    for entry in tar.entries().map_err(io)? {
        let mut entry = entry.map_err(io)?;
        let kind = entry.header().entry_type();
        if !(kind.is_file() || kind.is_dir()) {
            let path = entry.path().map_err(io)?.display().to_string();
            return Err(Error::Blob(format!(
                "the package holds {path}, which is neither a file nor a folder"
            )));
        }
        // `unpack_in` refuses paths with `..` or a root: nothing is written outside `dest`.
        if !entry.unpack_in(dest).map_err(io)? {
            let path = entry.path().map_err(io)?.display().to_string();
            return Err(Error::Blob(format!(
                "the package's path {path} leaves its folder"
            )));
        }
    }
    Ok(())
}

/// A problem's name: a folder name `judge run` would accept, and nothing a path could abuse.
pub fn check_problem_name(name: &str) -> Result<(), String> {
    let fine = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if fine {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a problem name: 1 to 64 of A-Z a-z 0-9 - _ . , not starting with ."
        ))
    }
}

/// Stores `package` (an archive from [`pack`]) as the problem `name`'s current package.
pub fn put_problem(client: &mut Db, name: &str, package: &[u8]) -> Result<String, Error> {
    let h = put_blob(client, package)?;
    client.execute(
        "INSERT INTO problems (name, package) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET package = excluded.package, updated_at = now()",
        &[&name, &h],
    )?;
    Ok(h)
}

/// A submission to enqueue.
#[derive(Debug, Clone)]
pub struct NewSubmission<'a> {
    pub problem: &'a str,
    pub filename: &'a str,
    pub source: &'a [u8],
    /// None: the language is guessed from the file name.
    pub language: Option<&'a str>,
    /// None: the table's default (3).
    pub max_attempts: Option<i32>,
    /// The submitter token's name it came with (`judge serve`); none: an organiser or the CLI.
    pub submitter: Option<&'a str>,
}

/// Stores the source and queues a submission of it on the problem's current package; returns
/// its id. Workers waiting for work are told.
pub fn submit(client: &mut Db, new: &NewSubmission<'_>) -> Result<i64, Error> {
    let mut tx = client.transaction()?;
    let source = hash(new.source);
    tx.execute(
        "INSERT INTO blobs (hash, data) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
        &[&source, &new.source],
    )?;
    let package: String = tx
        .query_opt(
            "SELECT package FROM problems WHERE name = $1",
            &[&new.problem],
        )?
        .ok_or_else(|| Error::Unknown(format!("no problem named {}", new.problem)))?
        .get(0);
    let id: i64 = tx
        .query_one(
            "INSERT INTO submissions (problem, package, language, filename, source, submitter)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            &[
                &new.problem,
                &package,
                &new.language,
                &new.filename,
                &source,
                &new.submitter,
            ],
        )?
        .get(0);
    tx.execute(
        "INSERT INTO jobs (submission, max_attempts) VALUES ($1, coalesce($2, 3))",
        &[&id, &new.max_attempts],
    )?;
    tx.notify(QUEUED, "")?;
    tx.commit()?;
    Ok(id)
}

/// A submission as stored: its state, final result, tests and every judging attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Submission {
    pub id: i64,
    pub problem: String,
    pub state: String,
    pub verdict: Option<String>,
    pub error: Option<String>,
    pub time_ms: Option<i64>,
    pub memory_kib: Option<i64>,
    pub tests: Vec<crate::rows::TestRow>,
    pub judgings: Vec<Judging>,
}

/// One attempt at judging a submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Judging {
    pub attempt: i32,
    pub worker: String,
    /// 'done', 'lost' (its lease expired), 'failed' (the worker gave it back); none: running.
    pub outcome: Option<String>,
    pub reason: Option<String>,
    pub finished: bool,
}

/// The submission `id`, if there is one.
pub fn submission(client: &mut Db, id: i64) -> Result<Option<Submission>, Error> {
    let Some(row) = client.query_opt(
        "SELECT problem, state, verdict, error, time_ms, memory_kib FROM submissions WHERE id = $1",
        &[&id],
    )?
    else {
        return Ok(None);
    };
    let tests = client
        .query(
            "SELECT name, verdict, time_ms, memory_kib, message, limit_ms, beside_ms
             FROM test_results WHERE submission = $1 ORDER BY ordinal",
            &[&id],
        )?
        .into_iter()
        .map(|r| crate::rows::TestRow {
            name: r.get(0),
            verdict: r.get(1),
            time_ms: r.get(2),
            memory_kib: r.get(3),
            message: r.get(4),
            limit_ms: r.get(5),
            beside_ms: r.get(6),
        })
        .collect();
    let judgings = client
        .query(
            "SELECT j.attempt, j.worker, j.outcome, j.reason, j.finished_at IS NOT NULL
             FROM judgings j JOIN jobs ON jobs.id = j.job
             WHERE jobs.submission = $1 ORDER BY j.attempt",
            &[&id],
        )?
        .into_iter()
        .map(|r| Judging {
            attempt: r.get(0),
            worker: r.get(1),
            outcome: r.get(2),
            reason: r.get(3),
            finished: r.get(4),
        })
        .collect();
    Ok(Some(Submission {
        id,
        problem: row.get(0),
        state: row.get(1),
        verdict: row.get(2),
        error: row.get(3),
        time_ms: row.get(4),
        memory_kib: row.get(5),
        tests,
        judgings,
    }))
}

#[cfg(test)]
mod tests;
