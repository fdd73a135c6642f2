//! Undo against real stores: a SQLite database and a git snapshot store on disk per
//! data directory, two data directories for one project. A session exported from
//! the directory whose step changed the files, imported into the other and
//! reverted there, touches nothing and says why — also when the file names a
//! snapshot the importing store did take, and when a database with no import mark
//! names a tree the store holds but never took as a snapshot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use ward_session::StepSnapshots;
use ward_store::{
    AssistantMessage, MessageInfo, ModelRef, Part, PartKind, Session, SessionRecords,
    SessionRevert, SqliteStore, Store, UserMessage,
};

use crate::engine::Engine;
use crate::error::EngineError;
use crate::options::EngineOptions;
use crate::provenance::ForeignSnapshot;

/// A project and two data directories under one temporary directory, removed on drop.
struct Dirs {
    root: PathBuf,
}

impl Dirs {
    fn new(name: &str) -> Dirs {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "ward-provenance-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project/src")).unwrap();
        // Pins the project root here, whatever lies above the temporary directory.
        std::fs::write(root.join("project/ward.toml"), "").unwrap();
        std::fs::write(root.join("project/a.txt"), "alpha\n").unwrap();
        std::fs::write(root.join("project/d.txt"), "doomed\n").unwrap();
        std::fs::write(root.join("project/src/main.rs"), "fn main() {}\n").unwrap();
        Dirs { root }
    }

    fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    fn data(&self, which: &str) -> PathBuf {
        self.root.join(which)
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

async fn engine(dirs: &Dirs, data: &str) -> Engine {
    Engine::open(EngineOptions::new(dirs.project()).data_dir(dirs.data(data)))
        .await
        .unwrap()
}

/// Every file of the project and its bytes.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                out.insert(rel.into_owned(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A prompt and its answer in `session`; returns the prompt's id and the answer.
fn exchange(store: &SqliteStore, session: &str) -> (String, AssistantMessage) {
    let user = UserMessage::new(session, "build", ModelRef::new("p", "m"));
    store.put_message(&MessageInfo::User(user.clone())).unwrap();
    let answer = AssistantMessage::new(&user);
    store
        .put_message(&MessageInfo::Assistant(answer.clone()))
        .unwrap();
    (user.id, answer)
}

/// One step as the loop takes it: a snapshot, `change`, a snapshot, and the `patch`
/// part naming what changed. Returns the prompt's id and the "before" snapshot.
fn step(engine: &Engine, session: &str, change: impl FnOnce()) -> (String, String) {
    let store = &engine.shared.store;
    let snapshots = engine.shared.snapshots.as_ref();
    let (prompt, answer) = exchange(store, session);
    let before = StepSnapshots::track(snapshots).unwrap();
    change();
    let after = StepSnapshots::track(snapshots).unwrap();
    let changed = snapshots.changed(&before, &after);
    assert!(!changed.is_empty());
    let patch = PartKind::Patch {
        hash: before.clone(),
        files: changed,
    };
    store
        .put_part(&Part::new(session, &answer.id, patch))
        .unwrap();
    (prompt, before)
}

fn new_session(engine: &Engine, project: &Path) -> String {
    let session = Session::new(project.to_string_lossy(), "build");
    engine.shared.store.create_session(&session).unwrap();
    session.id
}

/// An export, made in a scratch store, of a session whose one step names snapshot
/// `hash` and `names` — what a hostile file can say — and optionally comes reverted.
fn crafted(hash: &str, names: &[&str], revert: Option<SessionRevert>) -> Vec<u8> {
    let store = SqliteStore::open_in_memory().unwrap();
    let session = Session::new("/anywhere", "build");
    store.create_session(&session).unwrap();
    store.set_revert(&session.id, revert.as_ref()).unwrap();
    let (_, answer) = exchange(&store, &session.id);
    let patch = PartKind::Patch {
        hash: hash.to_string(),
        files: names.iter().map(|n| n.to_string()).collect(),
    };
    store
        .put_part(&Part::new(&session.id, &answer.id, patch))
        .unwrap();
    serde_json::to_vec(&crate::transfer::export(&store, &session.id).unwrap()).unwrap()
}

fn git(store: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(store)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_session_reverts_nothing_and_says_why() {
    let dirs = Dirs::new("imported");
    let project = dirs.project();
    let here = engine(&dirs, "data-a").await;
    let session = new_session(&here, &project);
    let (first, _) = step(&here, &session, || {
        std::fs::write(project.join("a.txt"), "alpha two\n").unwrap();
        std::fs::write(project.join("c.txt"), "made\n").unwrap();
        std::fs::remove_file(project.join("d.txt")).unwrap();
    });
    let export = serde_json::to_vec(&here.export_session(&session).unwrap()).unwrap();
    let changed = files(&project);

    // Imported into another data directory for the same project: history to read.
    let there = engine(&dirs, "data-b").await;
    there.import_session(&export).unwrap();
    let error = there.revert(&session, &first, None).await.unwrap_err();
    let EngineError::ForeignSnapshot(ForeignSnapshot::Imported { files: named, .. }) = &error
    else {
        panic!("refused as imported: {error}");
    };
    assert_eq!(named, &["a.txt", "c.txt", "d.txt"]);
    let text = error.to_string();
    assert!(text.contains("`ward session import`"), "{text}");
    assert!(text.contains("nothing was changed"), "{text}");
    assert!(text.contains("\"d.txt\""), "{text}");
    assert!(error.is_bad_request());
    assert!(there.undo(&session).await.is_err(), "undo is a revert");
    assert_eq!(files(&project), changed, "nothing touched");
    assert!(there.session(&session).unwrap().revert.is_none());

    // A fork of it is the same history.
    let fork = there.fork_session(&session, None).unwrap();
    let forked = there.undo(&fork.id).await.unwrap_err();
    assert!(
        matches!(
            forked,
            EngineError::ForeignSnapshot(ForeignSnapshot::Imported { .. })
        ),
        "{forked}"
    );
    assert_eq!(files(&project), changed);

    // Where the snapshots were taken, the same revert restores, and unrevert undoes it.
    let undone = here
        .undo(&session)
        .await
        .unwrap()
        .expect("a prompt to undo");
    assert_eq!(undone.files, ["a.txt", "c.txt", "d.txt"]);
    let original = files(&project);
    assert_eq!(original["a.txt"], b"alpha\n");
    assert_eq!(original["d.txt"], b"doomed\n");
    assert!(!original.contains_key("c.txt"));
    here.redo(&session).await.unwrap().expect("redone");
    assert_eq!(files(&project), changed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_hash_the_store_did_take_still_restores_nothing() {
    let dirs = Dirs::new("crafted");
    let project = dirs.project();
    let here = engine(&dirs, "data-b").await;
    // A snapshot this store takes for a step of its own: it is on the taken list.
    let own = new_session(&here, &project);
    let (_, hash) = step(&here, &own, || {
        std::fs::write(project.join("a.txt"), "alpha local\n").unwrap();
    });
    let taken = here.shared.snapshots.taken.read().unwrap();
    assert!(taken.contains(&hash) && taken.len() == 2, "{taken:?}");
    let before = files(&project);

    // An export naming it: reverting would put `a.txt` back as that snapshot has it.
    // It also comes reverted, with the same snapshot as its revert point.
    let revert = SessionRevert {
        message_id: "msg_0".into(),
        snapshot: Some(hash.clone()),
        files: vec!["a.txt".into()],
        ..SessionRevert::default()
    };
    let bytes = crafted(&hash, &["a.txt"], Some(revert.clone()));
    let imported = here.import_session(&bytes).unwrap();
    let messages = here.shared.store.messages(&imported.id, None).unwrap();
    let error = here
        .revert(&imported.id, messages[0].info.id(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            EngineError::ForeignSnapshot(ForeignSnapshot::Imported { .. })
        ),
        "{error}"
    );
    // The store does not keep an imported revert point today; were it kept (set
    // here as it would be), undoing it is refused all the same: the mark names it.
    here.shared
        .store
        .set_revert(&imported.id, Some(&revert))
        .unwrap();
    let error = here.unrevert(&imported.id).await.unwrap_err();
    assert!(
        matches!(
            error,
            EngineError::ForeignSnapshot(ForeignSnapshot::Imported { .. })
        ),
        "{error}"
    );
    assert_eq!(files(&project), before, "nothing touched");

    // Without an import mark (a database an older Ward imported into, or edited by
    // hand), a tree the store holds but never took as a snapshot — `src/`, a
    // subtree of one it took — is refused by the taken list.
    let store_dir = here.shared.snapshots.store.git_dir().to_path_buf();
    let subtree = git(&store_dir, &["rev-parse", &format!("{hash}:src")]);
    assert_eq!(git(&store_dir, &["cat-file", "-t", &subtree]), "tree");
    let file: Value = serde_json::from_slice(&crafted(&subtree, &["main.rs"], None)).unwrap();
    let tree = &file["session"];
    let records = SessionRecords {
        sessions: vec![serde_json::from_value(tree["info"].clone()).unwrap()],
        messages: serde_json::from_value(tree["messages"].clone()).unwrap(),
        ..SessionRecords::default()
    };
    here.shared.store.insert_records(&records).unwrap();
    let unmarked = records.sessions[0].id.clone();
    let error = here.undo(&unmarked).await.unwrap_err();
    let EngineError::ForeignSnapshot(ForeignSnapshot::NotTaken {
        hash: named,
        files: listed,
    }) = &error
    else {
        panic!("refused as not taken here: {error}");
    };
    assert_eq!(
        (named, listed.as_slice()),
        (&subtree, &["main.rs".to_string()][..])
    );
    assert!(
        error
            .to_string()
            .contains("not taken by this data directory")
    );
    assert_eq!(files(&project), before, "no `main.rs` written at the root");
}
