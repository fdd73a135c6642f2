//! Undo end to end, with the real `ward` binary and the scripted LLM: a session
//! edits two files (one's mode too), creates one and deletes one over three steps;
//! `ward session revert` to the first step restores all four exactly (bytes and
//! modes), `unrevert` re-applies the steps, and a prompt after a revert continues
//! from the reverted point — the model's next request no longer holds what was
//! undone. Once in a git repository (whose `.git` must be left untouched) and once
//! in a directory that is not one.

mod crash;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;
use ward_store::{MessageInfo, PartKind, SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{Item, ScriptedLlm, Turn, Usage};

/// Every file under `root` but `.git`: its bytes and permission bits.
fn files(root: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                dirs.push(path);
            } else {
                let mode = meta.permissions().mode() & 0o777;
                out.insert(rel, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    out
}

/// What the user's `.git` holds: every file's path and bytes.
fn dot_git(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.join(".git")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn bash(id: &str, command: &str) -> Turn {
    Turn::tool(
        id,
        "bash",
        json!({"command": command, "description": "change files"}),
    )
}

/// The one session in `p`'s store.
fn only_session(p: &Project) -> String {
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions.len(), 1);
    sessions[0].id.clone()
}

async fn undo_and_redo(git: bool) {
    let p = Project::new(if git {
        "snapshot-git"
    } else {
        "snapshot-nogit"
    });
    if !git {
        std::fs::remove_dir_all(p.path(".git")).unwrap();
    }
    p.write("a.txt", "alpha\n");
    p.write("b.sh", "#!/bin/sh\necho b\n");
    std::fs::set_permissions(p.path("b.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    p.write("d.txt", "doomed\n");
    p.write(".gitignore", "*.log\n");
    p.write("noise.log", "ignored\n");
    let llm = ScriptedLlm::start(vec![
        bash("call_1", "printf 'alpha two\\n' > a.txt"),
        bash("call_2", "printf 'echo B\\n' >> b.sh && chmod 644 b.sh"),
        bash("call_3", "printf 'zq-made\\n' > c.txt && rm d.txt"),
        Turn::text("Done."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let before = files(&p.root);
    let git_before = dot_git(&p.root);

    p.run_async(&["run", "--yes", "change the files"], "")
        .await
        .expect_ok();
    let after = files(&p.root);
    assert_eq!(after["a.txt"].0, b"alpha two\n");
    assert_eq!(after["b.sh"].1, 0o644);
    assert!(after.contains_key("c.txt") && !after.contains_key("d.txt"));
    let id = only_session(&p);

    // One patch part per step, naming what the step changed.
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let messages = store.messages(&id, None).unwrap();
    let patches: Vec<(String, Vec<String>)> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|part| match &part.kind {
            PartKind::Patch { files, .. } => Some((part.message_id.clone(), files.clone())),
            _ => None,
        })
        .collect();
    let names: Vec<Vec<String>> = patches.iter().map(|(_, f)| f.clone()).collect();
    assert_eq!(
        names,
        [vec!["a.txt"], vec!["b.sh"], vec!["c.txt", "d.txt"]],
        "{patches:?}"
    );
    let first_step = patches[0].0.clone();
    drop(store);

    // Revert to the first step: all four files exactly as before the session.
    let out = p
        .run_async(&["session", "revert", &id, "--message", &first_step], "")
        .await
        .expect_ok();
    assert!(out.contains("4 file(s) restored"), "{out}");
    assert_eq!(
        files(&p.root),
        before,
        "bytes and modes as before the session"
    );
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let revert = store
        .get_session(&id)
        .unwrap()
        .revert
        .expect("revert state");
    assert_eq!(revert.message_id, first_step);
    drop(store);

    // Unrevert: the steps' changes are back.
    p.run_async(&["session", "unrevert", &id], "")
        .await
        .expect_ok();
    assert_eq!(files(&p.root), after);
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    assert!(store.get_session(&id).unwrap().revert.is_none());
    drop(store);

    // Revert again, then prompt: the hidden tail is gone for good, and the model
    // sees the session only up to the reverted point.
    p.run_async(&["session", "revert", &id, "--message", &first_step], "")
        .await
        .expect_ok();
    let seen = llm.requests().len();
    llm.push([Turn::text("Starting over.")]);
    p.run_async(
        &["run", "--session", &id, "--yes", "try something else"],
        "",
    )
    .await
    .expect_ok();
    let requests = llm.requests();
    assert_eq!(requests.len(), seen + 1);
    let next = requests[seen].body.to_string();
    assert!(next.contains("change the files"), "{next}");
    assert!(next.contains("try something else"), "{next}");
    for undone in ["call_1", "call_2", "call_3", "alpha two", "zq-made"] {
        assert!(!next.contains(undone), "`{undone}` was undone: {next}");
    }
    assert_eq!(files(&p.root), before);
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let session = store.get_session(&id).unwrap();
    assert!(session.revert.is_none());
    let kept: Vec<String> = store
        .messages(&id, None)
        .unwrap()
        .iter()
        .map(|m| m.info.id().to_string())
        .collect();
    assert!(
        !kept.contains(&first_step),
        "the reverted messages were discarded"
    );
    let users = store
        .messages(&id, None)
        .unwrap()
        .iter()
        .filter(|m| matches!(m.info, MessageInfo::User(_)))
        .count();
    assert_eq!(users, 2);

    // The snapshots live in Ward's data directory; the user's `.git` is as it was.
    assert!(p.data.join("snapshot").is_dir());
    if git {
        assert_eq!(dot_git(&p.root), git_before, "the user's .git was touched");
    } else {
        assert!(!p.path(".git").exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revert_and_unrevert_in_a_git_repository() {
    undo_and_redo(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revert_and_unrevert_outside_git() {
    undo_and_redo(false).await;
}

/// Steps whose tools cannot write (`read`, `grep`, `glob` have no writable directory
/// and run no command) are not snapshotted: no store is even created. A step that
/// mixes a read with a command is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steps_that_only_read_take_no_snapshot() {
    let p = Project::new("snapshot-readonly");
    p.write("a.txt", "alpha\n");
    let llm = ScriptedLlm::start(vec![
        Turn::tool("call_1", "read", json!({"filePath": "a.txt"})),
        Turn::tool("call_2", "grep", json!({"pattern": "alpha"})),
        Turn::tool("call_3", "glob", json!({"pattern": "*.txt"})),
        Turn::text("Read it."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    p.run_async(&["run", "--yes", "look around"], "")
        .await
        .expect_ok();
    assert_eq!(llm.requests().len(), 4);
    assert!(
        !p.data.join("snapshot").exists(),
        "a read-only session created a snapshot store"
    );

    llm.push([
        Turn::Reply {
            items: vec![
                Item::ToolCall {
                    id: "call_4".into(),
                    name: "read".into(),
                    args: json!({"filePath": "a.txt"}),
                },
                Item::ToolCall {
                    id: "call_5".into(),
                    name: "bash".into(),
                    args: json!({"command": "printf 'beta\\n' > b.txt", "description": "write"}),
                },
            ],
            usage: Usage {
                input: 100,
                output: 20,
                cache_read: 0,
            },
        },
        Turn::text("Wrote it."),
    ]);
    let id = only_session(&p);
    p.run_async(&["run", "--session", &id, "--yes", "now write"], "")
        .await
        .expect_ok();
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let patches: Vec<Vec<String>> = store
        .messages(&id, None)
        .unwrap()
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|part| match &part.kind {
            PartKind::Patch { files, .. } => Some(files.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(patches, [vec!["b.txt".to_string()]]);
}
