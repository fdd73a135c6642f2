//! `ward session export` / `import`: a session with reasoning, tool calls, todos, a
//! compaction and a subagent's child session goes out and comes back byte for byte;
//! hostile files are refused with the field named and the database left as it was.

use serde_json::{Value, json};
use ward_store::{SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{Item, ScriptedLlm, Turn, Usage};

/// The first session id in `events` (the run's own comes first).
pub fn session_in(events: &str) -> String {
    let start = events.find("\"ses_").expect("a session id in the events") + 1;
    let len = events[start..].find('"').expect("closing quote");
    events[start..start + len].to_string()
}

/// A session with reasoning, a `todowrite` call, a `task` call whose subagent reads a
/// file in a child session, and a compaction; returns its id.
async fn rich_session(p: &Project) -> (String, ScriptedLlm) {
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        Turn::Reply {
            items: vec![
                Item::Reasoning("Plan first.".into()),
                Item::ToolCall {
                    id: "c_todo".into(),
                    name: "todowrite".into(),
                    args: json!({ "todos": [
                        { "content": "Look at a.txt", "status": "in_progress", "priority": "high" }
                    ] }),
                },
            ],
            usage: Usage {
                input: 100,
                output: 20,
                cache_read: 0,
            },
        },
        Turn::tool(
            "c_task",
            "task",
            json!({ "description": "look", "prompt": "What is in a.txt?", "subagent_type": "explore" }),
        ),
        Turn::tool("c_read", "read", json!({ "filePath": "a.txt" })),
        Turn::text("FOUND-ALPHA"),
        Turn::text("It says alpha."),
        Turn::text("## Goal\nRead a.txt."),
    ])
    .await;
    llm.configure(p, "openai-compatible");
    let run = p
        .run_async(
            &["run", "--yes", "--format", "json", "what is in a.txt?"],
            "",
        )
        .await;
    let session = session_in(&run.expect_ok());
    p.run_async(&["session", "compact", &session], "")
        .await
        .expect_ok();
    (session, llm)
}

/// Where two JSON documents first differ, as a path; `None` if equal.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<_> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                (Some(u), Some(v)) => first_difference(u, v, &format!("{path}.{k}")),
                _ => Some(format!("{path}.{k} (present on one side only)")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(u, v, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} vs {b}")),
    }
}

/// Every part type in a tree, recursively.
fn part_types(tree: &Value, out: &mut Vec<String>) {
    for m in tree["messages"].as_array().into_iter().flatten() {
        for part in m["parts"].as_array().into_iter().flatten() {
            let kind = part["type"].as_str().unwrap_or_default();
            let tool = part["tool"]
                .as_str()
                .map(|t| format!(":{t}"))
                .unwrap_or_default();
            out.push(format!("{kind}{tool}"));
        }
    }
    for child in tree["children"].as_array().into_iter().flatten() {
        part_types(child, out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_import_round_trips_a_session_with_tools_reasoning_compaction_and_a_child() {
    let a = Project::new("sessions-export");
    let (session, _llm) = rich_session(&a).await;
    let exported = a
        .run_async(&["session", "export", &session], "")
        .await
        .expect_ok();
    let doc: Value = serde_json::from_str(&exported).expect("the export is JSON");
    assert_eq!(doc["ward_export"], 1);
    let tree = &doc["session"];
    assert_eq!(tree["info"]["id"], session.as_str());
    let mut types = Vec::new();
    part_types(tree, &mut types);
    for wanted in [
        "reasoning",
        "tool:todowrite",
        "tool:task",
        "tool:read",
        "compaction",
    ] {
        assert!(types.iter().any(|t| t == wanted), "{wanted} in {types:?}");
    }
    assert_eq!(tree["todos"][0]["content"], "Look at a.txt");
    assert_eq!(tree["compactions"].as_array().map(Vec::len), Some(1));
    let children = tree["children"].as_array().expect("children");
    assert_eq!(children.len(), 1, "the explore subagent's session");
    assert_eq!(children[0]["info"]["parent_id"], session.as_str());
    let summary = tree["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .any(|m| m["info"]["summary"] == true);
    assert!(summary, "the compaction summary message");

    // Into another data directory, and out again: the same bytes.
    let b = Project::new("sessions-import");
    let file = b.write("export.json", &exported);
    let imported = b
        .run_async(&["session", "import", file.to_str().expect("utf-8")], "")
        .await
        .expect_ok();
    assert_eq!(imported.trim(), session);
    let again = b
        .run_async(&["session", "export", &session], "")
        .await
        .expect_ok();
    let doc_again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(first_difference(&doc, &doc_again, ""), None);
    assert_eq!(exported, again, "byte-identical");

    // The imported child is a child in the store too.
    let store = SqliteStore::open(b.data.join("ward.db")).expect("store");
    let kids = store.list_children(&session).expect("children");
    assert_eq!(kids.len(), 1);
    drop(store);

    // A second import of the same file is refused: ids are kept, never renamed.
    let twice = b
        .run_async(&["session", "import", file.to_str().expect("utf-8")], "")
        .await;
    let error = twice.expect_err();
    assert!(error.contains("already stored"), "{error}");
    assert!(error.contains(&session), "{error}");

    // Delete takes the subagent's session with it.
    let child = children[0]["info"]["id"]
        .as_str()
        .expect("child id")
        .to_string();
    a.run_async(&["session", "delete", &session], "")
        .await
        .expect_ok();
    let store = SqliteStore::open(a.data.join("ward.db")).expect("store");
    assert!(store.get_session(&session).is_err());
    assert!(store.get_session(&child).is_err(), "the child went too");
}

/// Everything stored, as one comparable string.
fn everything(p: &Project) -> String {
    let store = SqliteStore::open(p.data.join("ward.db")).expect("store");
    let mut all = Vec::new();
    let mut queue: Vec<_> = store.list_sessions().expect("sessions");
    while let Some(s) = queue.pop() {
        queue.extend(store.list_children(&s.id).expect("children"));
        let messages = store.messages(&s.id, None).expect("messages");
        all.push(json!({ "session": s, "messages": messages }));
    }
    serde_json::to_string(&all).expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_import_files_are_refused_naming_where_and_change_nothing() {
    let a = Project::new("sessions-hostile-src");
    let (session, _llm) = rich_session(&a).await;
    let exported = a
        .run_async(&["session", "export", &session], "")
        .await
        .expect_ok();
    let good: Value = serde_json::from_str(&exported).expect("JSON");
    // The target already holds a session, so "unchanged" is not "empty".
    let b = Project::new("sessions-hostile");
    let llm = ScriptedLlm::start(vec![Turn::text("hello")]).await;
    llm.configure(&b, "openai-compatible");
    b.run_async(&["run", "hi"], "").await.expect_ok();
    let before = everything(&b);

    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        f(&mut v);
        serde_json::to_string(&v).expect("json")
    };
    let part0 = good["session"]["messages"][0]["parts"][0]["id"].clone();
    let huge = "x".repeat(100 * 1024 * 1024);
    let mut cut = exported.len() / 2;
    while !exported.is_char_boundary(cut) {
        cut -= 1;
    }
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "truncated",
            exported[..cut].to_string(),
            "invalid JSON at line",
        ),
        ("not JSON", "hello".into(), "invalid JSON at line 1"),
        ("not an export", "{\"a\": 1}".into(), "`ward_export`"),
        (
            "wrong type",
            edit(&|v| v["session"]["messages"][0]["info"]["time"]["created"] = json!("yesterday")),
            "at `session.messages[0].info",
        ),
        (
            "dangling child parent",
            edit(&|v| {
                v["session"]["children"][0]["info"]["parent_id"] =
                    json!("ses_0000000000000000000000000")
            }),
            "session.children[0].info.parent_id",
        ),
        (
            "dangling root parent",
            edit(&|v| v["session"]["info"]["parent_id"] = json!("ses_0000000000000000000000000")),
            "no stored session ses_0000000000000000000000000",
        ),
        (
            "dangling assistant parent",
            edit(&|v| {
                let messages = v["session"]["messages"].as_array_mut().expect("messages");
                messages[1]["info"]["parent_id"] = json!("msg_0000000000000000000000000");
            }),
            "session.messages[1].info.parent_id",
        ),
        (
            "duplicate part id",
            edit(&|v| {
                v["session"]["children"][0]["messages"][0]["parts"][0]["id"] = part0.clone();
                v["session"]["children"][0]["messages"][0]["parts"][0]["message_id"] =
                    v["session"]["children"][0]["messages"][0]["info"]["id"].clone();
            }),
            "appears twice",
        ),
        (
            "duplicate session id",
            edit(&|v| {
                v["session"]["children"][0]["info"]["id"] = v["session"]["info"]["id"].clone()
            }),
            "session.children[0].info.id",
        ),
        (
            "path separators",
            edit(&|v| v["session"]["info"]["id"] = json!("ses_../../etc/passwd")),
            "session.info.id",
        ),
        (
            "control characters",
            edit(&|v| v["session"]["children"][0]["info"]["id"] = json!("ses_a\u{1b}[2Jb")),
            "is not a ses id",
        ),
        (
            "a 100 MB string",
            edit(&|v| v["session"]["info"]["title"] = json!(huge)),
            "session.info.title",
        ),
    ];
    for (name, content, expected) in cases {
        let file = b.write("hostile.json", &content);
        let run = b
            .run_async(&["session", "import", file.to_str().expect("utf-8")], "")
            .await;
        let error = run.expect_err();
        assert!(error.contains(expected), "{name}: {error}");
        // Never the escape itself on the terminal.
        assert!(!error.contains('\u{1b}'), "{name}: {error:?}");
        assert!(error.len() < 2000, "{name}: a short message");
        assert_eq!(everything(&b), before, "{name}: the database is unchanged");
    }
}
