//! One storage layer over two engines: PostgreSQL (`judge worker`s on many machines) and an
//! embedded SQLite file (`judge serve` alone, its workers in its own process; `judge practice`'s
//! history).
//!
//! SQL is written once, in PostgreSQL's dialect; on SQLite each statement is translated
//! (`lite::translate`: placeholders, casts, row locks, times) before it is prepared, and each
//! table definition by [`translate_ddl`]. [`Db`] is a connection, [`Tx`] a transaction on one;
//! both answer [`Sql`]. Notifications (`LISTEN`/`NOTIFY` on PostgreSQL) are [`Sql::notify`],
//! [`Db::listen`] and [`Db::wait`]; on SQLite they travel inside the process, and a
//! transaction's are delivered when it commits.
//!
//! This crate knows no table: the judging service's are `judge_service::schema`'s, the
//! practice history's `judge_practice::db`'s.

mod lite;

pub use lite::translate_ddl;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// What can go wrong talking to a database.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database: {0}")]
    Pg(#[from] postgres::Error),
    #[error("database: {0}")]
    Lite(#[from] rusqlite::Error),
    /// A result of another shape than the statement promised, or an address that is none.
    #[error("{0}")]
    Schema(String),
    /// A SQLite file that cannot be opened as asked.
    #[error("{0}")]
    Io(String),
}

/// Which engine a connection talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Postgres,
    Sqlite,
}

/// The prefix of a SQLite database's address: `sqlite:PATH`.
pub const SQLITE: &str = "sqlite:";

/// The engine an address names: `sqlite:PATH` is SQLite, anything else (a `postgresql://`
/// URL or `host=… dbname=…` words) PostgreSQL.
pub fn engine_of(url: &str) -> Engine {
    if url.starts_with(SQLITE) {
        Engine::Sqlite
    } else {
        Engine::Postgres
    }
}

/// A value a statement takes: anything both engines bind.
pub trait Param: Sync {
    fn pg(&self) -> &(dyn postgres::types::ToSql + Sync);
    fn lite(&self) -> &dyn rusqlite::ToSql;
}

impl<T: postgres::types::ToSql + rusqlite::ToSql + Sync> Param for T {
    fn pg(&self) -> &(dyn postgres::types::ToSql + Sync) {
        self
    }
    fn lite(&self) -> &dyn rusqlite::ToSql {
        self
    }
}

/// A value a row gives: anything both engines read.
pub trait Column: Sized {
    fn from_pg(row: &postgres::Row, i: usize) -> Self;
    fn try_from_pg(row: &postgres::Row, i: usize) -> Result<Self, postgres::Error>;
    fn from_lite(value: &rusqlite::types::Value) -> rusqlite::types::FromSqlResult<Self>;
}

impl<T> Column for T
where
    T: for<'a> postgres::types::FromSql<'a> + rusqlite::types::FromSql,
{
    fn from_pg(row: &postgres::Row, i: usize) -> T {
        row.get(i)
    }
    fn try_from_pg(row: &postgres::Row, i: usize) -> Result<T, postgres::Error> {
        row.try_get(i)
    }
    fn from_lite(value: &rusqlite::types::Value) -> rusqlite::types::FromSqlResult<T> {
        T::column_result(rusqlite::types::ValueRef::from(value))
    }
}

/// A column's position in a row.
pub trait RowIndex {
    fn index(self) -> usize;
}

impl RowIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// A row of a result, owned.
pub enum Row {
    Pg(postgres::Row),
    Lite(Vec<rusqlite::types::Value>),
}

impl Row {
    /// Column `i` as a `T`. A column of another type is a bug in the statement: it panics, as
    /// `postgres::Row::get` does.
    pub fn get<I: RowIndex, T: Column>(&self, i: I) -> T {
        let i = i.index();
        match self {
            Row::Pg(row) => T::from_pg(row, i),
            Row::Lite(values) => match values.get(i).map(T::from_lite) {
                Some(Ok(v)) => v,
                Some(Err(e)) => panic!("column {i} of a SQLite row: {e}"),
                None => panic!("a SQLite row has no column {i}"),
            },
        }
    }

    /// Column `i` as a `T`, or an error naming the column when it is another type (for a file
    /// that may have been written by hand or by an older program).
    pub fn try_get<I: RowIndex, T: Column>(&self, i: I) -> Result<T, Error> {
        let i = i.index();
        match self {
            Row::Pg(row) => Ok(T::try_from_pg(row, i)?),
            Row::Lite(values) => match values.get(i).map(T::from_lite) {
                Some(Ok(v)) => Ok(v),
                Some(Err(e)) => Err(Error::Schema(format!("column {i} of a SQLite row: {e}"))),
                None => Err(Error::Schema(format!("a SQLite row has no column {i}"))),
            },
        }
    }
}

/// What connections and transactions both do.
pub trait Sql {
    /// Runs a statement; the rows it changed (or returned).
    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<u64, Error>;
    /// Runs a query; every row.
    fn query(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error>;
    /// Runs statements separated by `;`, without parameters.
    fn batch_execute(&mut self, sql: &str) -> Result<(), Error>;
    /// Tells the listeners of `channel` (on commit, in a transaction).
    fn notify(&mut self, channel: &str, payload: &str) -> Result<(), Error>;
    /// Which engine this is.
    fn engine(&self) -> Engine;

    /// The one row or none (more is an error).
    fn query_opt(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Option<Row>, Error> {
        let mut rows = self.query(sql, params)?;
        match rows.len() {
            0 => Ok(None),
            1 => Ok(rows.pop()),
            n => Err(Error::Schema(format!(
                "a query expected to give one row gave {n}"
            ))),
        }
    }

    /// Exactly one row.
    fn query_one(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Row, Error> {
        self.query_opt(sql, params)?
            .ok_or_else(|| Error::Schema("a query expected to give one row gave none".into()))
    }
}

/// Whether `table` has `column` (for a column added to a table after its first release: added
/// when missing, since neither engine says `ADD COLUMN IF NOT EXISTS` alike).
pub fn has_column(sql: &mut impl Sql, table: &str, column: &str) -> Result<bool, Error> {
    let found = match sql.engine() {
        Engine::Postgres => sql.query_opt(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
             AND table_name = $1 AND column_name = $2",
            &[&table, &column],
        )?,
        Engine::Sqlite => sql.query_opt(
            "SELECT 1 FROM pragma_table_info($1) WHERE name = $2",
            &[&table, &column],
        )?,
    };
    Ok(found.is_some())
}

/// A connection to a database.
pub enum Db {
    Pg(Box<Pg>),
    Lite(lite::Lite),
}

/// A PostgreSQL connection and the statements it prepared, each once (a statement is parsed
/// and planned once per connection, and later runs cost one round trip, not two).
pub struct Pg {
    client: postgres::Client,
    prepared: HashMap<String, postgres::Statement>,
}

/// The statement `sql`, prepared on `client` the first time.
fn prepared<C: postgres::GenericClient>(
    client: &mut C,
    cache: &mut HashMap<String, postgres::Statement>,
    sql: &str,
) -> Result<postgres::Statement, Error> {
    if let Some(statement) = cache.get(sql) {
        return Ok(statement.clone());
    }
    let statement = client.prepare(sql)?;
    cache.insert(sql.to_string(), statement.clone());
    Ok(statement)
}

/// How long connecting to PostgreSQL may take, unless the address says (`connect_timeout`).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long data sent to PostgreSQL over TCP may stay unacknowledged before the connection is
/// given up, unless the address says (`tcp_user_timeout`): a worker cut off from the network
/// notices within it and reconnects, instead of waiting minutes for the kernel's retries.
pub const TCP_USER_TIMEOUT: Duration = Duration::from_secs(30);

/// The connection settings of a PostgreSQL address, with [`CONNECT_TIMEOUT`] and
/// [`TCP_USER_TIMEOUT`] where it gives none.
pub fn pg_config(url: &str) -> Result<postgres::Config, Error> {
    let mut config: postgres::Config = url.parse().map_err(|e| {
        Error::Schema(format!(
            "`{url}` is not a database address ({e})\n  hint: postgresql://USER@HOST/DB, `host=… dbname=…`, or sqlite:PATH"
        ))
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    Ok(config)
}

fn pg_params<'a>(params: &'a [&'a dyn Param]) -> Vec<&'a (dyn postgres::types::ToSql + Sync)> {
    params.iter().map(|p| p.pg()).collect()
}

impl Db {
    /// Connects to `url` (see [`engine_of`]) without touching the tables.
    pub fn open(url: &str) -> Result<Db, Error> {
        match url.strip_prefix(SQLITE) {
            Some(path) => Db::open_sqlite(Path::new(path)),
            None => Ok(Db::Pg(Box::new(Pg {
                client: pg_config(url)?.connect(postgres::NoTls)?,
                prepared: HashMap::new(),
            }))),
        }
    }

    /// Opens (creating it when missing) the SQLite file `path`, in WAL mode, without touching
    /// the tables: [`Db::open`] of `sqlite:PATH` for a path that need not be UTF-8.
    pub fn open_sqlite(path: &Path) -> Result<Db, Error> {
        Ok(Db::Lite(lite::Lite::open(path)?))
    }

    /// Starts a transaction (on SQLite: `BEGIN IMMEDIATE`, so it holds the write lock from the
    /// start and never fails half-way to take it). Dropped without [`Tx::commit`], it rolls
    /// back.
    pub fn transaction(&mut self) -> Result<Tx<'_>, Error> {
        match self {
            Db::Pg(pg) => {
                let Pg { client, prepared } = &mut **pg;
                Ok(Tx::Pg(client.transaction()?, prepared))
            }
            Db::Lite(lite) => Ok(Tx::Lite(lite.begin()?)),
        }
    }

    /// Whether the connection is known to be gone (PostgreSQL: closed by the server).
    pub fn is_closed(&self) -> bool {
        match self {
            Db::Pg(pg) => pg.client.is_closed(),
            Db::Lite(_) => false,
        }
    }

    /// Whether the connection answers within `timeout`.
    pub fn is_valid(&mut self, timeout: Duration) -> bool {
        match self {
            Db::Pg(pg) => pg.client.is_valid(timeout).is_ok(),
            Db::Lite(_) => true,
        }
    }

    /// From now on this connection hears `channels` ([`Db::wait`]).
    pub fn listen(&mut self, channels: &[&str]) -> Result<(), Error> {
        match self {
            Db::Pg(pg) => {
                let sql: String = channels.iter().map(|c| format!("LISTEN {c};")).collect();
                pg.client.batch_execute(&sql)?;
                Ok(())
            }
            Db::Lite(lite) => {
                lite.listen(channels);
                Ok(())
            }
        }
    }

    /// The next notification on a channel this connection listens to, `(channel, payload)`,
    /// waiting at most `timeout`; none when it passed.
    pub fn wait(&mut self, timeout: Duration) -> Result<Option<(String, String)>, Error> {
        match self {
            Db::Pg(pg) => {
                use postgres::fallible_iterator::FallibleIterator;
                let mut notes = pg.client.notifications();
                let next = notes.timeout_iter(timeout).next()?;
                Ok(next.map(|n| (n.channel().to_string(), n.payload().to_string())))
            }
            Db::Lite(lite) => Ok(lite.wait(timeout)),
        }
    }
}

impl Sql for Db {
    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<u64, Error> {
        match self {
            Db::Pg(pg) => {
                let statement = prepared(&mut pg.client, &mut pg.prepared, sql)?;
                Ok(pg.client.execute(&statement, &pg_params(params))?)
            }
            Db::Lite(lite) => lite.run(sql, |conn| lite::execute(conn, sql, params)),
        }
    }
    fn query(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
        match self {
            Db::Pg(pg) => {
                let statement = prepared(&mut pg.client, &mut pg.prepared, sql)?;
                Ok(pg
                    .client
                    .query(&statement, &pg_params(params))?
                    .into_iter()
                    .map(Row::Pg)
                    .collect())
            }
            Db::Lite(lite) => lite.run(sql, |conn| lite::query(conn, sql, params)),
        }
    }
    fn batch_execute(&mut self, sql: &str) -> Result<(), Error> {
        match self {
            Db::Pg(pg) => Ok(pg.client.batch_execute(sql)?),
            Db::Lite(lite) => lite.run(sql, |conn| lite::batch(conn, sql)),
        }
    }
    fn notify(&mut self, channel: &str, payload: &str) -> Result<(), Error> {
        match self {
            Db::Pg(_) => {
                self.execute("SELECT pg_notify($1, $2)", &[&channel, &payload])?;
                Ok(())
            }
            Db::Lite(lite) => {
                lite.hub().send(channel, payload);
                Ok(())
            }
        }
    }
    fn engine(&self) -> Engine {
        match self {
            Db::Pg(_) => Engine::Postgres,
            Db::Lite(_) => Engine::Sqlite,
        }
    }
}

/// A transaction; dropped without [`Tx::commit`], nothing of it is kept.
pub enum Tx<'a> {
    Pg(
        postgres::Transaction<'a>,
        &'a mut HashMap<String, postgres::Statement>,
    ),
    Lite(lite::LiteTx<'a>),
}

impl Tx<'_> {
    /// Makes the transaction's writes durable and delivers its notifications.
    pub fn commit(self) -> Result<(), Error> {
        match self {
            Tx::Pg(tx, _) => Ok(tx.commit()?),
            Tx::Lite(tx) => tx.commit(),
        }
    }
}

impl Sql for Tx<'_> {
    fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<u64, Error> {
        match self {
            Tx::Pg(tx, cache) => {
                let statement = prepared(tx, cache, sql)?;
                Ok(tx.execute(&statement, &pg_params(params))?)
            }
            Tx::Lite(tx) => lite::execute(tx.conn(), sql, params),
        }
    }
    fn query(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
        match self {
            Tx::Pg(tx, cache) => {
                let statement = prepared(tx, cache, sql)?;
                Ok(tx
                    .query(&statement, &pg_params(params))?
                    .into_iter()
                    .map(Row::Pg)
                    .collect())
            }
            Tx::Lite(tx) => lite::query(tx.conn(), sql, params),
        }
    }
    fn batch_execute(&mut self, sql: &str) -> Result<(), Error> {
        match self {
            Tx::Pg(tx, _) => Ok(tx.batch_execute(sql)?),
            Tx::Lite(tx) => lite::batch(tx.conn(), sql),
        }
    }
    fn notify(&mut self, channel: &str, payload: &str) -> Result<(), Error> {
        match self {
            Tx::Pg(..) => {
                self.execute("SELECT pg_notify($1, $2)", &[&channel, &payload])?;
                Ok(())
            }
            Tx::Lite(tx) => {
                tx.notify(channel, payload);
                Ok(())
            }
        }
    }
    fn engine(&self) -> Engine {
        match self {
            Tx::Pg(..) => Engine::Postgres,
            Tx::Lite(_) => Engine::Sqlite,
        }
    }
}

#[cfg(test)]
mod tests;
