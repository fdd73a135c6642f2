//! The SQLite backend: one database file, one connection, one delta writer thread.
//!
//! Owns [`SqliteStore`]: opening the file (pragmas, migrations, recovery), the
//! transaction discipline shared by every operation, and the background thread that
//! writes streamed deltas. The SQL itself lives in one submodule per table.
//!
//! Every write runs in an immediate transaction that first applies the buffered deltas,
//! so writes land in the order they were made: a part put after its deltas replaces
//! text that already includes them, and a removed part takes its deltas with it. Every
//! read flushes the buffer too, so it sees every delta published before it.

mod approvals;
mod blob_refs;
mod bulk;
mod compaction;
mod deltas;
mod imported;
mod messages;
mod owner;
mod recover;
mod schema;
mod sessions;
mod store;
mod todos;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use rusqlite::{Connection, TransactionBehavior};

pub use bulk::{SessionRecords, TakenIds};
pub use deltas::{DeltaOptions, DeltaStats};
pub use imported::ImportedSession;

use crate::bus::Bus;
use crate::error::{Context, Result, StoreError};
use crate::store::{Recovery, Store};
use deltas::DeltaQueue;

/// How to open a [`SqliteStore`].
#[derive(Clone, Debug)]
pub struct SqliteOptions {
    /// Run [`Store::recover`] after opening — unless another process that opened the
    /// file with `recover` is still running (its tools are live, not interrupted).
    /// Leave it on for a process that runs sessions; turn it off for a reader.
    pub recover: bool,
    /// When streamed deltas are written.
    pub deltas: DeltaOptions,
    /// The bus to publish on; pass the host's bus to share it with other subsystems.
    pub bus: Bus,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            recover: true,
            deltas: DeltaOptions::default(),
            bus: Bus::default(),
        }
    }
}

/// The embedded [`Store`]: one SQLite file in WAL mode.
///
/// Dropping the store writes the buffered deltas and stops the writer thread.
#[derive(Debug)]
pub struct SqliteStore {
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
    path: PathBuf,
    recovered: Recovery,
    /// Held while the store is open by a process that runs sessions.
    _owner: Option<owner::Owner>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` with default options, and
    /// recovers what a previous crash left unfinished.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, SqliteOptions::default())
    }

    /// Opens (creating if needed, with its parent directory) the database at `path`.
    pub fn open_with(path: impl AsRef<Path>, options: SqliteOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let conn =
            Connection::open(&path).context(|| format!("open database {}", path.display()))?;
        Self::start(conn, path, options)
    }

    /// A private database in memory, for tests and `--no-store` runs.
    pub fn open_in_memory() -> Result<Self> {
        let conn = Connection::open_in_memory().context(|| "open database in memory".into())?;
        Self::start(conn, PathBuf::from(":memory:"), SqliteOptions::default())
    }

    fn start(mut conn: Connection, path: PathBuf, options: SqliteOptions) -> Result<Self> {
        schema::configure(&conn)?;
        schema::migrate(&mut conn)?;
        let shared = Arc::new(Shared {
            conn: Mutex::new(conn),
            deltas: DeltaQueue::new(options.deltas),
            bus: options.bus,
        });
        let writer = std::thread::Builder::new()
            .name("ward-store-deltas".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || write_deltas(&shared)
            })
            .map_err(StoreError::Spawn)?;
        let mut store = SqliteStore {
            shared,
            writer: Some(writer),
            path,
            recovered: Recovery::default(),
            _owner: None,
        };
        if options.recover {
            if store.path.as_os_str() == ":memory:" {
                store.recovered = store.recover()?;
            } else {
                let (owner, recovered) = owner::Owner::claim(&store.path, || store.recover())?;
                store._owner = Some(owner);
                store.recovered = recovered.unwrap_or_default();
            }
        }
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What recovery repaired when the store was opened.
    pub fn recovered(&self) -> Recovery {
        self.recovered
    }

    /// Counters of the delta path: deltas published, deltas committed, and the
    /// transactions that committed them.
    pub fn delta_stats(&self) -> DeltaStats {
        self.shared.deltas.stats()
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.shared.deltas.close();
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::error!("the delta writer thread panicked");
        }
        // The writer's last flush covers this unless it panicked or failed.
        if let Err(error) = self.shared.flush() {
            tracing::error!(%error, "streamed deltas were lost at shutdown");
        }
    }
}

/// What the store and its writer thread share.
#[derive(Debug)]
struct Shared {
    conn: Mutex<Connection>,
    deltas: DeltaQueue,
    bus: Bus,
}

impl Shared {
    /// Runs `f` in an immediate transaction, after the buffered deltas, and commits.
    fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        commit(&mut conn, &self.deltas, f)
    }

    /// Flushes the buffered deltas, then runs `f` in a read transaction so that its
    /// queries see one snapshot even while another process writes.
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        if !self.deltas.is_empty() {
            commit(&mut conn, &self.deltas, |_| Ok(()))?;
        }
        read_in(&mut conn, f)
    }

    /// Runs `f` in a read transaction without flushing the buffered deltas: for
    /// queries of rows deltas never change (sessions, todos). Deltas only append to
    /// parts' text, so such a read sees the same rows either way — and a prompt's
    /// session lookup does not pay for committing every other loop's streamed text.
    fn read_unstreamed<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        read_in(&mut self.lock(), f)
    }

    /// Writes the buffered deltas now.
    fn flush(&self) -> Result<()> {
        let mut conn = self.lock();
        if self.deltas.is_empty() {
            return Ok(());
        }
        commit(&mut conn, &self.deltas, |_| Ok(()))
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic inside a transaction drops it, which rolls it back: the connection
        // is usable again, so poisoning carries no information here.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs `f` in a read transaction on `conn`.
fn read_in<T>(conn: &mut Connection, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
    let tx = conn
        .transaction()
        .context(|| "begin a read transaction".into())?;
    let value = f(&tx)?;
    tx.commit().context(|| "end a read transaction".into())?;
    Ok(value)
}

/// Takes the buffered deltas and commits them with `f` in one immediate transaction;
/// if anything fails the deltas go back to the buffer for the next attempt.
///
/// Immediate, because a deferred transaction that reads before writing can fail with
/// "database is locked" without waiting when another connection writes first.
fn commit<T>(
    conn: &mut Connection,
    queue: &DeltaQueue,
    f: impl FnOnce(&Connection) -> Result<T>,
) -> Result<T> {
    let batch = queue.take();
    let result = (|| {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context(|| "begin a write transaction".into())?;
        deltas::apply(&tx, &batch)?;
        let value = f(&tx)?;
        tx.commit()
            .context(|| "commit a write transaction".into())?;
        Ok(value)
    })();
    match result {
        Ok(value) => {
            queue.committed(&batch);
            Ok(value)
        }
        Err(error) => {
            if !batch.is_empty() {
                queue.restore(batch);
            }
            Err(error)
        }
    }
}

/// The writer thread: flushes each batch when it is due, until the store closes.
fn write_deltas(shared: &Shared) {
    loop {
        let closing = shared.deltas.wait_for_batch();
        if let Err(error) = shared.flush() {
            tracing::error!(%error, "writing streamed deltas failed; they stay buffered");
            if closing {
                return;
            }
            // Without a pause a persistent failure (disk full) would spin: the batch
            // is still due.
            std::thread::sleep(shared.deltas.flush_interval());
        } else if closing {
            return;
        }
    }
}
