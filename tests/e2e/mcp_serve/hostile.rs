//! A hostile plugin served over MCP is contained exactly as in Ward — the deadline,
//! the memory limit, the grants — and the server stays up: later calls, the
//! plugin's own harmless tool and another plugin's, still work.

use serde_json::json;
use ward_tests::Project;

use super::{drive, stdio, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_plugin_is_contained_and_the_server_stays_up() {
    let p = Project::new("mcp-hostile");
    p.install_test_plugin("hostile");
    p.install_test_plugin("noop");
    // Everything but the network, which the manifest asks for and nobody grants here.
    p.write(
        "ward.toml",
        "[plugins.hostile]\ngrant = [\"fs-read\", \"fs-write\", \"exec\", \"env\"]\n",
    );
    std::fs::write(p.root.parent().unwrap().join("secret.txt"), "TOP SECRET").unwrap();
    let secret = p.root.parent().unwrap().join("secret.txt");
    let started = std::time::Instant::now();
    let record = drive(json!({
        "stdio": stdio(&p, &[]),
        "steps": [
            // Compiled first, so the deadline below measures the call alone.
            {"op": "call", "name": "hostile_noop", "args": {}},
            {"op": "call", "name": "spin", "args": {}},
            {"op": "call", "name": "hostile_noop", "args": {}},
            {"op": "call", "name": "bomb", "args": {}},
            {"op": "call", "name": "noop", "args": {}},
            {"op": "call", "name": "read_path", "args": {"path": secret}},
            {"op": "call", "name": "read_path", "args": {"path": "/etc/passwd"}},
            {"op": "call", "name": "fetch", "args": {"text": "http://127.0.0.1:9/"}},
            {"op": "call", "name": "exec", "args": {"text": "rm -rf /"}},
            {"op": "call", "name": "hostile_noop", "args": {}},
            {"op": "call", "name": "noop", "args": {}},
        ],
    }))
    .await;
    let r = record["results"].as_array().unwrap();
    let ok = |i: usize| {
        assert_eq!(r[i]["isError"], false, "step {i}: {record}");
    };
    let refused = |i: usize, why: &str| {
        assert_eq!(r[i]["isError"], true, "step {i}: {record}");
        assert!(text(&r[i]).contains(why), "step {i} ({why}): {record}");
    };
    ok(0);
    refused(1, "time limit of 400 ms");
    ok(2);
    refused(3, "ran out of memory (limit 64 MiB)");
    ok(4);
    refused(5, "");
    assert!(!text(&r[5]).contains("TOP SECRET"), "{record}");
    refused(6, "");
    assert!(!text(&r[6]).contains("root:"), "{record}");
    refused(7, "not granted the `net` capability");
    refused(8, "outside the exec patterns");
    ok(9);
    ok(10);
    assert_eq!(text(&r[10]), "ok");
    // The spin was stopped at its deadline, not left to run: the whole conversation
    // took far less than the spin would have.
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
}
