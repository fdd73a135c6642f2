//! Streaming: deltas are published at once, coalesced in memory, and committed in far
//! fewer transactions than there are deltas — and never after a part that replaced them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::time::{Duration, Instant};

use common::{TempDir, committed, exchange, text};
use ward_store::{DeltaOptions, Event, PartKind, SqliteOptions, SqliteStore, Store, TextPart};

/// Options under which nothing is flushed by the writer during a test.
fn manual() -> SqliteOptions {
    SqliteOptions {
        deltas: DeltaOptions {
            flush_interval: Duration::from_secs(3600),
            batch_deltas: 1_000_000,
            max_pending: 1_000_000,
        },
        ..SqliteOptions::default()
    }
}

fn stored_text(db: &std::path::Path, part_id: &str) -> String {
    committed(
        db,
        "SELECT json_extract(data, '$.text') FROM part WHERE id = ?1",
        part_id,
    )
    .unwrap_or_default()
}

#[test]
fn a_thousand_deltas_coalesce_into_few_transactions() {
    let dir = TempDir::new("coalesce");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "");
    store.put_part(&part).expect("puts");
    let mut events = store.bus().subscribe();

    let mut expected = String::new();
    for i in 0..1000 {
        let delta = format!("tok{i} ");
        expected.push_str(&delta);
        store
            .update_part_delta(&session.id, &assistant.id, &part.id, "text", &delta)
            .expect("buffers");
    }
    store.flush().expect("flushes");

    assert_eq!(stored_text(&dir.db(), &part.id), expected);
    let stats = store.delta_stats();
    assert_eq!((stats.published, stats.flushed), (1000, 1000));
    assert!(
        stats.batches <= 10,
        "{} transactions for 1000 deltas",
        stats.batches
    );

    // Every delta was published, in order, before any was durable.
    let streamed: String = std::iter::from_fn(|| events.try_recv().ok())
        .filter_map(|event| match event {
            Event::PartDelta { delta, .. } => Some(delta),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, expected);
}

#[test]
fn the_writer_flushes_on_its_own_within_the_interval() {
    let dir = TempDir::new("interval");
    let options = SqliteOptions {
        deltas: DeltaOptions {
            flush_interval: Duration::from_millis(20),
            ..DeltaOptions::default()
        },
        ..SqliteOptions::default()
    };
    let store = SqliteStore::open_with(dir.db(), options).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "");
    store.put_part(&part).expect("puts");
    store
        .update_part_delta(&session.id, &assistant.id, &part.id, "text", "tick")
        .expect("buffers");

    let deadline = Instant::now() + Duration::from_secs(5);
    while stored_text(&dir.db(), &part.id) != "tick" {
        assert!(Instant::now() < deadline, "the delta was never flushed");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(store.delta_stats().batches, 1);
}

#[test]
fn putting_a_part_commits_the_buffered_deltas_first() {
    let dir = TempDir::new("order");
    let store = SqliteStore::open_with(dir.db(), manual()).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let streaming = text(&session, &assistant.id, "");
    let other = text(&session, &assistant.id, "");
    store.put_part(&streaming).expect("puts");
    store.put_part(&other).expect("puts");

    for chunk in ["par", "tial"] {
        store
            .update_part_delta(&session.id, &assistant.id, &streaming.id, "text", chunk)
            .expect("buffers");
    }
    assert_eq!(stored_text(&dir.db(), &streaming.id), "", "still buffered");

    // Finishing another part makes the buffered text durable with it.
    let mut finished = other.clone();
    finished.kind = PartKind::Text(TextPart {
        text: "done".into(),
        ..TextPart::default()
    });
    store.put_part(&finished).expect("puts");
    assert_eq!(stored_text(&dir.db(), &streaming.id), "partial");

    // Finishing the streaming part itself replaces the text, deltas are not re-applied.
    store
        .update_part_delta(&session.id, &assistant.id, &streaming.id, "text", " more")
        .expect("buffers");
    let mut complete = streaming.clone();
    complete.kind = PartKind::Text(TextPart {
        text: "partial more".into(),
        ..TextPart::default()
    });
    store.put_part(&complete).expect("puts");
    store.flush().expect("flushes");
    assert_eq!(stored_text(&dir.db(), &streaming.id), "partial more");
}

#[test]
fn reads_see_buffered_deltas() {
    let store = SqliteStore::open_in_memory().expect("opens");
    let (session, _, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "a");
    store.put_part(&part).expect("puts");
    store
        .update_part_delta(&session.id, &assistant.id, &part.id, "text", "b")
        .expect("buffers");
    let message = store.get_message(&assistant.id).expect("reads");
    assert!(matches!(&message.parts[0].kind, PartKind::Text(t) if t.text == "ab"));
}

#[test]
fn a_full_buffer_is_written_by_the_producer() {
    let dir = TempDir::new("backlog");
    let mut options = manual();
    options.deltas.max_pending = 10;
    let store = SqliteStore::open_with(dir.db(), options).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "");
    store.put_part(&part).expect("puts");
    for _ in 0..10 {
        store
            .update_part_delta(&session.id, &assistant.id, &part.id, "text", "x")
            .expect("buffers");
    }
    assert_eq!(stored_text(&dir.db(), &part.id), "x".repeat(10));
}

#[test]
fn deltas_for_unknown_parts_or_fields_do_not_block_others() {
    let store = SqliteStore::open_in_memory().expect("opens");
    let (session, _, assistant) = exchange(&store);
    let part = text(&session, &assistant.id, "");
    store.put_part(&part).expect("puts");
    let (s, m) = (session.id.as_str(), assistant.id.as_str());
    store
        .update_part_delta(s, m, "prt_never_stored", "text", "lost")
        .expect("buffers");
    store
        .update_part_delta(s, m, &part.id, "synthetic", "not text")
        .expect("buffers");
    store
        .update_part_delta(s, m, &part.id, "text", "kept")
        .expect("buffers");
    store.flush().expect("flushes");
    let message = store.get_message(m).expect("reads");
    assert!(
        matches!(&message.parts[0].kind, PartKind::Text(t) if t.text == "kept" && !t.synthetic)
    );
}

/// A sanity floor for durable throughput; `cargo bench -p ward-store` measures it
/// properly. Deltas are published, coalesced and committed; the clock stops when the
/// last one is durable.
#[test]
fn durable_delta_throughput_exceeds_twenty_thousand_per_second() {
    let dir = TempDir::new("throughput");
    let store = SqliteStore::open(dir.db()).expect("opens");
    let (session, _, assistant) = exchange(&store);
    let parts: Vec<_> = (0..4).map(|_| text(&session, &assistant.id, "")).collect();
    for part in &parts {
        store.put_part(part).expect("puts");
    }
    let deltas = 40_000;
    let start = Instant::now();
    for i in 0..deltas {
        let part = &parts[i % parts.len()];
        store
            .update_part_delta(&session.id, &assistant.id, &part.id, "text", "token ")
            .expect("buffers");
    }
    store.flush().expect("flushes");
    let elapsed = start.elapsed();
    let rate = deltas as f64 / elapsed.as_secs_f64();
    let stats = store.delta_stats();
    println!(
        "{deltas} deltas durable in {elapsed:?}: {rate:.0}/s in {} transactions",
        stats.batches
    );
    assert_eq!(stats.flushed, deltas as u64);
    assert!(rate >= 20_000.0, "{rate:.0} deltas/s");
}
