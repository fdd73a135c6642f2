//! A server that sends a million `notifications/tools/list_changed` costs Ward a few
//! listings and a bounded amount of memory: the notifications are coalesced where
//! they are read, not queued (a task and a `tools/list` each, as they once were).
//! Alone in its binary, so the memory it measures is its own.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::time::{Duration, Instant};

use serde_json::json;

use common::*;

/// Notifications sent.
const FLOOD: u64 = 1_000_000;
/// How much the client's resident memory may grow over them.
const MAX_GROWTH_KB: u64 = 4 * 1024;

fn main() {
    run(&[(
        "a_million_list_changed_are_coalesced",
        a_million_list_changed_are_coalesced,
    )]);
}

/// This process's resident memory, in kB.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn a_million_list_changed_are_coalesced() {
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let project = t.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let script = t.join("server.py");
    write(&script, SERVER_PY);
    let python = python();
    let command = [
        python.to_str().unwrap(),
        script.to_str().unwrap(),
        "noisy",
        "flood,count",
    ];
    let clients = clients(&project, &[("noisy", local(&command))]);
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        // Warmed up: one call made, so what is allocated once is not counted.
        assert_eq!(call(&clients, &project, "noisy_count", json!({})).await, "1");
        let before = rss_kb();
        let started = Instant::now();
        let out = call(&clients, &project, "noisy_flood", json!({"n": FLOOD})).await;
        assert_eq!(out, format!("flooded {FLOOD}"));
        // The answer came after every notification; the list they announced follows.
        while !names(&clients).contains(&"noisy_after".to_string()) {
            assert!(started.elapsed() < Duration::from_secs(60), "the new list never came");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let elapsed = started.elapsed();
        let after = rss_kb();
        let listed: u64 = call(&clients, &project, "noisy_count", json!({}))
            .await
            .parse()
            .unwrap();
        let growth = after.saturating_sub(before);
        println!(
            "{FLOOD} notifications in {} ms: {listed} listings in all, resident memory {before} kB -> {after} kB (+{growth} kB)",
            elapsed.as_millis()
        );
        assert!(listed <= 5, "{listed} listings for one flood");
        assert!(
            growth <= MAX_GROWTH_KB,
            "resident memory grew by {growth} kB over {FLOOD} notifications"
        );
    });
}
