//! `kill -9` in the middle of a snapshot — Ward and the git process writing the
//! store, every descendant of Ward — leaves a store the next run snapshots into and
//! reverts from.

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use ward_store::{PartKind, SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

/// The store's git directory, once the first snapshot has made it.
fn store_dir(p: &Project) -> Option<std::path::PathBuf> {
    std::fs::read_dir(p.data.join("snapshot"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|d| d.join("HEAD").exists())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_killed_midway_leaves_the_store_usable() {
    let p = Project::new("snapshot-crash");
    // Enough files that the first snapshot takes a while to write.
    for i in 0..20_000 {
        p.write(
            &format!("many/d{}/f{i}.txt", i / 500),
            &format!("file {i}\n"),
        );
    }
    p.write("a.txt", "before\n");
    let llm = ScriptedLlm::start(vec![Turn::tool(
        "call_1",
        "bash",
        json!({"command": "echo after > a.txt", "description": "edit"}),
    )])
    .await;
    llm.configure(&p, "openai-compatible");

    let mut ward = p.ward();
    ward.args(["run", "--yes", "edit a.txt"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = ward.spawn().unwrap();
    let pid = child.id();
    // Wait for git to be writing the store's index, then kill everything.
    let deadline = Instant::now() + Duration::from_secs(60);
    let killed_while_writing = loop {
        if let Some(dir) = store_dir(&p)
            && dir.join("index.lock").exists()
        {
            break true;
        }
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_micros(500));
    };
    kill_tree(pid);
    let _ = child.wait();
    assert!(killed_while_writing, "never caught a snapshot in progress");
    let dir = store_dir(&p).expect("the store was made");
    // The kill races git finishing its write: if git won, leave what a git killed
    // mid-write leaves (a partly written lock file), so the next run always meets it.
    if !dir.join("index.lock").exists() {
        std::fs::write(dir.join("index.lock"), b"DIRC\0\0\0\x02partial").unwrap();
    }

    // The next run snapshots and records its patch; revert restores from it.
    std::fs::write(p.path("a.txt"), "before\n").unwrap();
    llm.push([
        Turn::tool(
            "call_2",
            "bash",
            json!({"command": "echo again > a.txt", "description": "edit"}),
        ),
        Turn::text("Done."),
    ]);
    let out = p.run_async(&["run", "--yes", "edit a.txt again"], "").await;
    out.expect_ok();
    assert_eq!(p.read("a.txt"), "again\n");
    let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
    let sessions = store.list_sessions().unwrap();
    let session = sessions
        .iter()
        .find(|s| {
            store
                .messages(&s.id, None)
                .unwrap()
                .iter()
                .flat_map(|m| &m.parts)
                .any(|p| matches!(&p.kind, PartKind::Patch { files, .. } if files == &["a.txt"]))
        })
        .expect("a patch part after the crash");
    let id = session.id.clone();
    drop(store);
    let first = {
        let store = SqliteStore::open(p.data.join("ward.db")).unwrap();
        store.messages(&id, None).unwrap()[0].info.id().to_string()
    };
    p.run_async(&["session", "revert", &id, "--message", &first], "")
        .await
        .expect_ok();
    assert_eq!(p.read("a.txt"), "before\n");
    let fsck = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(&dir)
        .args(["fsck", "--no-dangling"])
        .output()
        .unwrap();
    assert!(fsck.status.success(), "{fsck:?}");
}

/// SIGKILLs `pid` and every process descended from it, each by its own id: the
/// descendants are found first, so none is reparented away before its turn.
fn kill_tree(pid: u32) {
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid …`: comm may hold spaces, so split after `)`.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse::<u32>().ok());
            if ppid == Some(parent) && !tree.contains(&child) {
                tree.push(child);
            }
        }
        i += 1;
    }
    let _ = std::process::Command::new("kill")
        .arg("-9")
        .args(tree.iter().map(u32::to_string))
        .status();
}
