//! Retries a person can see: `ward run` against a port nothing listens on shows each
//! retry with its wait on standard error (and as `retry` status events with
//! `--format json`), and gives up on connecting after `[retry] connect_seconds`.

use std::time::{Duration, Instant};

use ward_tests::Project;

use super::ward_run;

/// A provider at a port nothing listens on, giving up on connecting after
/// `connect_seconds`; returns the address.
fn configure_refused(p: &Project, connect_seconds: u64) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    drop(listener);
    p.write(
        "ward.toml",
        &format!(
            "model = \"local/m\"\n[provider.local]\nbase_url = \"http://{address}/v1\"\n\
             [retry]\nconnect_seconds = {connect_seconds}\n"
        ),
    );
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_shows_its_retries_and_gives_up_within_the_cap() {
    let p = Project::new("run-refused");
    let address = configure_refused(&p, 3);
    let start = Instant::now();
    let run = ward_run(&p, &["hi"]).await;
    let took = start.elapsed();
    let err = run.expect_err();
    // Waits of 2 s and the rest of the 3 s; without the cap, 8 attempts take 2.5 min.
    assert!(
        took >= Duration::from_millis(2900),
        "gave up before the cap: {took:?}\n{err}"
    );
    assert!(
        took < Duration::from_secs(3 + 3),
        "gave up too late: {took:?}\n{err}"
    );
    let refused = format!("could not connect: connection refused by {address}");
    assert!(
        err.contains(&format!("retrying in 2s (attempt 2 of 8): {refused}\n")),
        "{err}"
    );
    assert!(err.contains("(attempt 3 of 8)"), "{err}");
    assert!(!err.contains("(attempt 4 of 8)"), "{err}");
    assert!(err.contains(&format!("error: {refused}")), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_are_events_in_the_json_stream() {
    let p = Project::new("run-refused-json");
    let address = configure_refused(&p, 3);
    let run = ward_run(&p, &["--format", "json", "hi"]).await;
    let out = run.stdout();
    let retries: Vec<serde_json::Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "session.status")
        .map(|e| e["properties"]["status"].clone())
        .filter(|s| s["type"] == "retry")
        .collect();
    assert_eq!(retries.len(), 2, "two retries within 3 s: {out}");
    for (retry, attempt) in retries.iter().zip(2..) {
        assert_eq!(retry["attempt"], attempt);
        assert_eq!(retry["max"], 8);
        assert_eq!(
            retry["message"],
            format!("could not connect: connection refused by {address}")
        );
    }
    assert_eq!(retries[0]["delay_ms"], 2000);
    // The second wait is what is left of the 3 s.
    let last = retries[1]["delay_ms"].as_u64().unwrap_or(0);
    assert!(last > 0 && last <= 1000, "{last}");
}
