//! One event stream: permission asks and replies and plugin events reach
//! `ward run --format json` and the plugins' `event` hooks, in order with the parts
//! of the call they belong to — the hooks before the process exits.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

/// The `type` of each JSON line `ward run --format json` printed.
fn types(stdout: &str) -> Vec<(String, Value)> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| (v["type"].as_str().unwrap_or("").to_string(), v))
        .collect()
}

/// A project with `hook-guard` granted its log directory, `rules` in `[permission]`,
/// and the model scripted with `turns` (the server lives as long as the test).
async fn guarded(name: &str, rules: &str, turns: Vec<Turn>) -> (Project, ScriptedLlm) {
    let p = Project::new(name);
    p.write("a.txt", "alpha\n");
    std::fs::create_dir_all(p.path("hook-log")).expect("log dir");
    p.install_test_plugin("hook-guard");
    let llm = ScriptedLlm::start(turns).await;
    llm.configure(&p, "openai-compatible");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!(
            "{toml}[permission]\n{rules}\n\
             [plugins.hook-guard]\ngrant = [\"hooks\", \"fs-write\"]\n"
        ),
    );
    (p, llm)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_and_plugin_events_reach_json_output_and_event_hooks_in_order() {
    let turns = vec![
        Turn::tool("r1", "read", json!({ "filePath": "a.txt" })),
        Turn::text("DONE"),
    ];
    let (p, _llm) = guarded("run-events", "read = \"ask\"", turns).await;
    let run = p
        .run_async(&["run", "--format", "json", "read a.txt"], "y\n")
        .await;
    let stdout = run.expect_ok();
    let events = types(&stdout);
    let index = |wanted: &dyn Fn(&(String, Value)) -> bool| {
        events
            .iter()
            .position(wanted)
            .unwrap_or_else(|| panic!("not in {stdout}"))
    };
    let asked = index(&|(t, v)| {
        t == "permission.asked" && v["properties"]["request"]["permission"] == "read"
    });
    let replied = index(&|(t, v)| t == "permission.replied" && v["properties"]["reply"] == "once");
    let completed = index(&|(t, v)| {
        t == "message.part.updated"
            && v["properties"]["part"]["tool"] == "read"
            && v["properties"]["part"]["state"]["status"] == "completed"
    });
    assert!(asked < replied && replied < completed, "{stdout}");
    let session = events[asked].1["properties"]["request"]["session_id"].clone();
    assert_eq!(events[replied].1["properties"]["session_id"], session);
    // Plugin events are on the stream too: the `read` component loaded for the call.
    let loaded = index(&|(t, v)| t == "plugin.loaded" && v["properties"]["plugin"] == "read");
    assert!(loaded < completed, "{stdout}");

    // The event hook was handed the ask too, and the run's last events before `ward
    // run` exited (the title, set after the loop, is a `session.updated`): it writes a
    // file named after each event that names the project, in the directory it was
    // granted, under the project's rules (nobody could answer a question there).
    for event in ["session.created", "permission.asked", "session.updated"] {
        let log = p.path(&format!("hook-log/{event}.log"));
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            seen.contains(&format!("hook-guard {event}")),
            "{event} not delivered"
        );
    }
    // Where the rules would ask, nobody answers for a hook: refused, and audited.
    let turns = vec![Turn::text("DONE")];
    let (p2, _llm2) = guarded("run-events-unattended", "edit = \"ask\"", turns).await;
    p2.run_async(&["run", "hi"], "").await.expect_ok();
    assert!(!p2.path("hook-log/session.created.log").exists());
    let audit = std::fs::read_to_string(p2.data.join("audit.log")).unwrap_or_default();
    assert!(
        audit
            .lines()
            .any(|l| l.contains("\"plugin\":\"hook-guard\"")
                && l.contains("session.created.log")
                && l.contains("\"decision\":\"deny\"")),
        "{audit}"
    );
}
