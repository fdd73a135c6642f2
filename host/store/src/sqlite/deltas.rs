//! Buffering of streamed text deltas until they are written in batches.
//!
//! Owns [`DeltaQueue`] (pending deltas, coalesced per part and field as they arrive),
//! [`DeltaOptions`] (when a batch is due) and applying a batch inside a transaction.
//! Writing each token as it streams would cost one commit per token; instead the
//! deltas of every part are concatenated in memory and each part is rewritten once per
//! batch. What is buffered is bounded — a batch is due after `flush_interval` or
//! `batch_deltas` deltas, and a producer that finds `max_pending` deltas waiting
//! writes them itself — so a crash loses at most that much streamed text, and never a
//! part that was put (putting a part flushes the buffer first).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;

use crate::error::{Context, Result, StoreError};

/// When buffered deltas are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeltaOptions {
    /// A batch is written at most this long after its first delta arrived.
    pub flush_interval: Duration,
    /// A batch is written as soon as it holds this many deltas.
    pub batch_deltas: usize,
    /// A producer that finds this many deltas waiting (the writer is behind) writes
    /// them itself before returning: the bound on what a crash can lose.
    pub max_pending: usize,
}

impl Default for DeltaOptions {
    fn default() -> Self {
        DeltaOptions {
            flush_interval: Duration::from_millis(25),
            batch_deltas: 512,
            max_pending: 4096,
        }
    }
}

/// Counters of the delta path since the store was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeltaStats {
    /// Deltas accepted by `update_part_delta`.
    pub published: u64,
    /// Deltas committed to the database.
    pub flushed: u64,
    /// Transactions that committed deltas.
    pub batches: u64,
}

/// Text waiting to be appended to one part.
#[derive(Debug)]
struct PendingPart {
    /// Appended text per field, in the order the fields were first touched.
    fields: Vec<(String, String)>,
}

/// Deltas taken out of the queue to be written.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    parts: HashMap<String, PendingPart>,
    deltas: usize,
}

impl Batch {
    /// Whether there is nothing to write.
    pub(crate) fn is_empty(&self) -> bool {
        self.deltas == 0
    }
}

#[derive(Debug, Default)]
struct Pending {
    batch: Batch,
    /// When the oldest buffered delta arrived.
    since: Option<Instant>,
    /// The store is closing: the writer flushes once more and stops.
    closed: bool,
}

/// What the producer must do after buffering a delta.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Backlog {
    /// Nothing: the writer will pick it up.
    Fine,
    /// The buffer is full; write it now.
    Full,
}

/// Deltas waiting for the writer, and the writer's wake-up signal.
#[derive(Debug)]
pub(crate) struct DeltaQueue {
    pending: Mutex<Pending>,
    wake: Condvar,
    options: DeltaOptions,
    published: AtomicU64,
    flushed: AtomicU64,
    batches: AtomicU64,
}

impl DeltaQueue {
    /// An empty queue.
    pub(crate) fn new(options: DeltaOptions) -> Self {
        DeltaQueue {
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            options: DeltaOptions {
                batch_deltas: options.batch_deltas.max(1),
                max_pending: options.max_pending.max(1),
                ..options
            },
            published: AtomicU64::new(0),
            flushed: AtomicU64::new(0),
            batches: AtomicU64::new(0),
        }
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> DeltaStats {
        DeltaStats {
            published: self.published.load(Ordering::Relaxed),
            flushed: self.flushed.load(Ordering::Relaxed),
            batches: self.batches.load(Ordering::Relaxed),
        }
    }

    /// Buffers `delta` for `field` of `part_id`.
    pub(crate) fn push(&self, part_id: &str, field: &str, delta: &str) -> Backlog {
        self.published.fetch_add(1, Ordering::Relaxed);
        let mut pending = self.lock();
        let part = match pending.batch.parts.get_mut(part_id) {
            Some(part) => part,
            None => pending
                .batch
                .parts
                .entry(part_id.to_string())
                .or_insert(PendingPart { fields: Vec::new() }),
        };
        match part.fields.iter_mut().find(|(name, _)| name == field) {
            Some((_, text)) => text.push_str(delta),
            None => part.fields.push((field.to_string(), delta.to_string())),
        }
        pending.batch.deltas += 1;
        // Wake the writer only when its wait changes: the first delta starts the
        // interval, a full batch ends it early.
        if pending.since.is_none() {
            pending.since = Some(Instant::now());
            self.wake.notify_one();
        } else if pending.batch.deltas == self.options.batch_deltas {
            self.wake.notify_one();
        }
        if pending.batch.deltas >= self.options.max_pending {
            Backlog::Full
        } else {
            Backlog::Fine
        }
    }

    /// Takes everything buffered. Call it holding the connection lock, so no other
    /// writer can commit a part between taking its deltas and applying them.
    pub(crate) fn take(&self) -> Batch {
        let mut pending = self.lock();
        pending.since = None;
        std::mem::take(&mut pending.batch)
    }

    /// Puts back a batch whose transaction failed, before anything buffered since.
    pub(crate) fn restore(&self, mut batch: Batch) {
        let mut pending = self.lock();
        for (part_id, newer) in std::mem::take(&mut pending.batch.parts) {
            let older = batch
                .parts
                .entry(part_id)
                .or_insert(PendingPart { fields: Vec::new() });
            for (field, text) in newer.fields {
                match older.fields.iter_mut().find(|(name, _)| *name == field) {
                    Some((_, existing)) => existing.push_str(&text),
                    None => older.fields.push((field, text)),
                }
            }
        }
        batch.deltas += pending.batch.deltas;
        pending.batch = batch;
        pending.since.get_or_insert_with(Instant::now);
    }

    /// Records that `batch` was committed.
    pub(crate) fn committed(&self, batch: &Batch) {
        if !batch.is_empty() {
            self.flushed
                .fetch_add(batch.deltas as u64, Ordering::Relaxed);
            self.batches.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether nothing is buffered.
    pub(crate) fn is_empty(&self) -> bool {
        self.lock().batch.is_empty()
    }

    /// Blocks the writer until a batch is due or the queue is closed; returns whether
    /// it was closed (the writer then flushes one last time and stops).
    pub(crate) fn wait_for_batch(&self) -> bool {
        let mut pending = self.lock();
        loop {
            if pending.closed {
                return true;
            }
            let Some(since) = pending.since else {
                pending = self
                    .wake
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            if pending.batch.deltas >= self.options.batch_deltas {
                return false;
            }
            let due = since + self.options.flush_interval;
            let now = Instant::now();
            if now >= due {
                return false;
            }
            pending = self
                .wake
                .wait_timeout(pending, due - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The flush interval, for the writer's back-off after a failed write.
    pub(crate) fn flush_interval(&self) -> Duration {
        self.options.flush_interval
    }

    /// Tells the writer to flush what is left and stop.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        // A panic while holding this lock leaves the buffer consistent (every update
        // is a single push), so a poisoned lock is still usable.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Appends a batch to the stored parts, rewriting each part once.
///
/// A delta for a part that is not stored, or for a field that is not text, is a bug in
/// the caller that no retry can fix: it is logged and dropped rather than failing the
/// batch, which would hold every other part's text back with it.
pub(crate) fn apply(conn: &Connection, batch: &Batch) -> Result<()> {
    for (part_id, pending) in &batch.parts {
        let data: Option<String> = conn
            .prepare_cached("SELECT data FROM part WHERE id = ?1")
            .and_then(|mut statement| statement.query_row([part_id], |row| row.get(0)).optional())
            .context(|| format!("read part {part_id} to append deltas"))?;
        let Some(data) = data else {
            tracing::warn!(part = %part_id, "dropping deltas for a part that was never stored");
            continue;
        };
        let mut value: Value =
            serde_json::from_str(&data).context(|| format!("reading stored part {part_id}"))?;
        for (field, text) in &pending.fields {
            match value.get_mut(field.as_str()) {
                Some(Value::String(existing)) => existing.push_str(text),
                _ => {
                    let error = StoreError::NotText {
                        part_id: part_id.clone(),
                        field: field.clone(),
                    };
                    tracing::warn!(%error, "dropping deltas");
                }
            }
        }
        let data = serde_json::to_string(&value).context(|| format!("encoding part {part_id}"))?;
        conn.prepare_cached("UPDATE part SET data = ?2 WHERE id = ?1")
            .and_then(|mut statement| statement.execute([part_id, &data]))
            .context(|| format!("append deltas to part {part_id}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue() -> DeltaQueue {
        DeltaQueue::new(DeltaOptions {
            flush_interval: Duration::from_secs(60),
            batch_deltas: 3,
            max_pending: 5,
        })
    }

    #[test]
    fn deltas_coalesce_per_part_and_field() {
        let queue = queue();
        assert_eq!(queue.push("p1", "text", "a"), Backlog::Fine);
        queue.push("p1", "text", "b");
        queue.push("p2", "text", "c");
        let batch = queue.take();
        assert_eq!(batch.deltas, 3);
        assert_eq!(batch.parts["p1"].fields, vec![("text".into(), "ab".into())]);
        assert!(queue.is_empty());
    }

    #[test]
    fn a_full_buffer_asks_the_producer_to_write() {
        let queue = queue();
        for _ in 0..4 {
            assert_eq!(queue.push("p", "text", "x"), Backlog::Fine);
        }
        assert_eq!(queue.push("p", "text", "x"), Backlog::Full);
        // A full batch is due without waiting for the interval.
        assert!(!queue.wait_for_batch());
    }

    #[test]
    fn a_failed_batch_goes_back_before_newer_deltas() {
        let queue = queue();
        queue.push("p", "text", "old ");
        let batch = queue.take();
        queue.push("p", "text", "new");
        queue.restore(batch);
        let again = queue.take();
        assert_eq!(again.deltas, 2);
        assert_eq!(again.parts["p"].fields[0].1, "old new");
    }

    #[test]
    fn closing_releases_the_writer() {
        let queue = queue();
        queue.close();
        assert!(queue.wait_for_batch());
    }
}
