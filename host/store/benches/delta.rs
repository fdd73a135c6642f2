//! Durable throughput of streamed deltas.
//!
//! Each measurement publishes N deltas through `update_part_delta` and stops the clock
//! only when `flush` has committed the last of them, so the rate is of deltas made
//! durable, not merely buffered. `put_part per delta` is the baseline without
//! coalescing: one transaction per token, as a naive store would do.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark set-up: a panic is how a broken set-up stops the run"
)]

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ward_store::{
    AssistantMessage, ModelRef, Part, PartKind, Session, SqliteStore, Store, TextPart, UserMessage,
};

/// A typical streamed token.
const TOKEN: &str = "tok ";

struct Fixture {
    store: SqliteStore,
    session: String,
    message: String,
    _dir: TempDir,
}

/// A directory removed when the bench ends.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixture() -> Fixture {
    let dir = std::env::temp_dir().join(format!("ward-store-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = SqliteStore::open(dir.join("ward.db")).expect("opens the bench database");
    let session = Session::new("/bench", "build");
    store.create_session(&session).expect("creates session");
    let user = UserMessage::new(&session.id, "build", ModelRef::new("local", "bench"));
    store.put_message(&user.clone().into()).expect("puts user");
    let assistant = AssistantMessage::new(&user);
    store
        .put_message(&assistant.clone().into())
        .expect("puts assistant");
    Fixture {
        store,
        session: session.id,
        message: assistant.id,
        _dir: TempDir(dir),
    }
}

impl Fixture {
    /// `count` fresh, empty text parts (fresh so the text rewritten per batch stays the
    /// size of one answer rather than growing across iterations).
    fn parts(&self, count: usize) -> Vec<Part> {
        (0..count)
            .map(|_| {
                let part = Part::new(
                    &self.session,
                    &self.message,
                    PartKind::Text(TextPart::default()),
                );
                self.store.put_part(&part).expect("puts part");
                part
            })
            .collect()
    }

    /// Streams `iters` deltas round-robin over `streams` parts; time until durable.
    fn stream(&self, iters: u64, streams: usize) -> Duration {
        let parts = self.parts(streams);
        let start = Instant::now();
        for i in 0..iters {
            let part = &parts[i as usize % streams];
            self.store
                .update_part_delta(&self.session, &self.message, &part.id, "text", TOKEN)
                .expect("buffers");
        }
        self.store.flush().expect("flushes");
        start.elapsed()
    }

    /// The baseline: rewrites the part in its own transaction for every token.
    fn put_each(&self, iters: u64) -> Duration {
        let mut part = self.parts(1).remove(0);
        let mut text = String::new();
        let start = Instant::now();
        for _ in 0..iters {
            text.push_str(TOKEN);
            part.kind = PartKind::Text(TextPart {
                text: text.clone(),
                ..TextPart::default()
            });
            self.store.put_part(&part).expect("puts");
        }
        start.elapsed()
    }
}

fn deltas(c: &mut Criterion) {
    let fixture = fixture();
    let mut group = c.benchmark_group("delta");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("durable, 1 stream", |b| {
        b.iter_custom(|iters| fixture.stream(iters, 1))
    });
    group.bench_function("durable, 8 streams", |b| {
        b.iter_custom(|iters| fixture.stream(iters, 8))
    });
    group.bench_function("put_part per delta (no coalescing)", |b| {
        b.iter_custom(|iters| fixture.put_each(iters))
    });
    group.finish();
    let stats = fixture.store.delta_stats();
    println!(
        "delta path: {} deltas committed in {} transactions ({:.0} deltas per transaction)",
        stats.flushed,
        stats.batches,
        stats.flushed as f64 / stats.batches.max(1) as f64
    );
}

criterion_group!(benches, deltas);
criterion_main!(benches);
