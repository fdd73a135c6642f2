//! Real MCP servers' tool lists, through `McpClients` as Ward runs them: two servers
//! whose tools take one name are both reported and neither is offered under it; a
//! change announced before the server could be heard does not silence later ones.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use serde_json::json;

use common::*;

fn main() {
    run(&[
        (
            "a_change_announced_too_early_does_not_silence_later_ones",
            a_change_announced_too_early_does_not_silence_later_ones,
        ),
        (
            "colliding_names_are_reported_and_offered_by_neither",
            colliding_names_are_reported_and_offered_by_neither,
        ),
    ]);
}

/// A change announced before the server answers `initialize` is dropped unhandled by
/// the protocol layer; the coalescing must not then take it as still pending and drop
/// every later announcement.
fn a_change_announced_too_early_does_not_silence_later_ones() {
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
        "early",
        "flood",
    ];
    let clients = clients(&project, &[("early", local(&command))]);
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        let out = call(&clients, &project, "early_flood", json!({"n": 1})).await;
        assert_eq!(out, "flooded 1");
        let started = std::time::Instant::now();
        while !names(&clients).contains(&"early_after".to_string()) {
            let waited = started.elapsed();
            assert!(waited.as_secs() < 10, "the change was never acted on");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
}

fn colliding_names_are_reported_and_offered_by_neither() {
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let project = t.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let script = t.join("server.py");
    write(&script, SERVER_PY);
    let python = python();
    let server = |label: &str, tools: &str| {
        local(&[
            python.to_str().unwrap(),
            script.to_str().unwrap(),
            label,
            tools,
        ])
    };
    // `a_b`'s `c` and `a`'s `b_c` are both `a_b_c`; `Z_q` and `z_Q` differ only in
    // case, which a model's call is matched regardless of.
    let clients = clients(
        &project,
        &[
            ("a_b", server("a_b", "c,y")),
            ("a", server("a", "b_c,x")),
            ("Z", server("Z", "q")),
            ("z", server("z", "Q,w")),
        ],
    );
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        let ab = warnings
            .iter()
            .find(|w| w.contains("`a_b_c`"))
            .expect("a_b_c reported");
        assert!(ab.contains("server `a_b` (its tool `c`)"), "{ab}");
        assert!(ab.contains("server `a` (its tool `b_c`)"), "{ab}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("server `Z`") && w.contains("server `z`"))
        );
        assert_eq!(names(&clients), ["a_b_y", "a_x", "z_w"]);
        // Each server's other tools still reach their own server.
        assert_eq!(call(&clients, &project, "a_b_y", json!({})).await, "a_b:y");
        assert_eq!(call(&clients, &project, "a_x", json!({})).await, "a:x");
        for status in clients.statuses() {
            let offered: Vec<&str> = status.tools.iter().map(|(n, _)| n.as_str()).collect();
            assert!(
                !offered
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case("a_b_c") || n.eq_ignore_ascii_case("z_q"))
            );
            // Every server here is in a collision: each reports it.
            let reported = status
                .problems
                .iter()
                .any(|p| p.contains("more than one server"));
            assert!(reported, "{}: {:?}", status.name, status.problems);
        }
        // Reported once to a frontend that asks again.
        assert_eq!(clients.unreported_failures().len(), 2);
        assert!(clients.unreported_failures().is_empty());
    });
}
