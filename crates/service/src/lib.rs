//! The judging service's storage and queue on PostgreSQL (or, on one machine, an embedded
//! SQLite file), and the worker that judges from it.
//!
//! Every `judge` process is stateless: the queue, the results and the files (packages and
//! sources as content-addressed blobs) live in the database. `db` is the one storage layer
//! over both engines (the crate `judge-db`, which the practice history uses too), `schema`
//! creates the tables,
//! `store` holds blobs, problems and submissions, `queue` is claim → heartbeat → finish and
//! the reaper (every write of a worker fenced by the job's attempt), `worker` the loop that
//! judges with `judge_core::judging`, `http` the API of `judge serve`, and `testdb` a
//! throwaway PostgreSQL for tests.

pub mod client;
/// The storage layer, a crate of its own (`judge-db`) since the practice history uses it too;
/// re-exported so `judge_service::db::…` and `crate::db::…` stay its paths.
pub use judge_db as db;
pub mod digest;
pub mod folder;
mod hooks;
pub mod http;
pub mod judge0;
pub mod provenance;
pub mod queue;
pub mod rejudge;
pub mod rows;
pub mod schema;
pub mod store;
pub mod testdb;
pub mod worker;

use db::Db;

/// What can go wrong talking to the service's database.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database: {0}")]
    Db(#[from] postgres::Error),
    #[error("database: {0}")]
    Lite(#[from] rusqlite::Error),
    #[error("{0}")]
    Schema(String),
    #[error("{0}")]
    Blob(String),
    #[error("{0}")]
    Unknown(String),
    #[error("{0}")]
    Io(String),
    /// A request that cannot be carried out as asked (a bad filter).
    #[error("{0}")]
    Invalid(String),
    /// A request the thing's state refuses (applying a set still judging).
    #[error("{0}")]
    Conflict(String),
}

impl From<judge_db::Error> for Error {
    fn from(e: judge_db::Error) -> Error {
        match e {
            judge_db::Error::Pg(e) => Error::Db(e),
            judge_db::Error::Lite(e) => Error::Lite(e),
            judge_db::Error::Schema(s) => Error::Schema(s),
            judge_db::Error::Io(s) => Error::Io(s),
        }
    }
}

/// A database's error answered by the API as the service's own would be (`http::ApiError`'s
/// `From<Error>`).
impl From<judge_db::Error> for http::ApiError {
    fn from(e: judge_db::Error) -> http::ApiError {
        Error::from(e).into()
    }
}

/// Connects to the database `url` (a `postgresql://` URL or `host=… dbname=…` words, where a
/// host that is a folder is a Unix socket; or `sqlite:PATH`, a file made when missing) and
/// creates the tables that are missing.
pub fn connect(url: &str) -> Result<Db, Error> {
    let mut client = Db::open(url)?;
    schema::ensure(&mut client)?;
    Ok(client)
}
