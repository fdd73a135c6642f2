//! Restores are exact: every permission bit a file had comes back, not only the
//! `644`/`755` git's trees record — whether the file was deleted, rewritten, or only
//! had its mode changed; through a full scan (a new process) and through the
//! file-system watcher alike.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use ward_snapshot::Snapshots;

use crate::{mode, store};

const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

fn chmod(path: &Path, bits: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits)).unwrap();
}

/// Writes `path` with permission bits `bits` (whatever the umask).
fn file(path: &Path, text: &str, bits: u32) {
    std::fs::write(path, text).unwrap();
    chmod(path, bits);
}

/// Restores every file that changed between `from` and `to` as `from` had it.
fn revert(snapshots: &Snapshots, from: &str, to: &str) -> Vec<String> {
    let mut changed = snapshots.changed(from, to).unwrap();
    changed.sort();
    let files: Vec<(String, String)> = changed
        .iter()
        .map(|f| (f.clone(), from.to_string()))
        .collect();
    snapshots.restore(&files).unwrap();
    changed
}

/// The files of the mode tests and their modes.
const FILES: [(&str, u32); 6] = [
    ("id_ed25519", 0o600),
    ("group.conf", 0o640),
    ("run.sh", 0o755),
    ("private.sh", 0o700),
    ("readonly.txt", 0o400),
    ("plain.txt", 0o644),
];

fn project_with_modes(p: &Path) {
    std::fs::create_dir(p.join("keys")).unwrap();
    for (name, bits) in FILES {
        file(&p.join("keys").join(name), &format!("{name}\n"), bits);
    }
}

#[test]
fn deleted_files_come_back_with_their_exact_modes() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    project_with_modes(p);
    let snapshots = store(data.path(), p);
    let before = snapshots.track().unwrap().hash;
    let mut listed = snapshots.changed(EMPTY_TREE, &before).unwrap();
    listed.sort();
    let mut names: Vec<String> = FILES.iter().map(|(n, _)| format!("keys/{n}")).collect();
    names.sort();
    assert_eq!(listed, names, "the record of modes is not a project file");

    std::fs::remove_dir_all(p.join("keys")).unwrap();
    let after = snapshots.track().unwrap().hash;
    assert_eq!(revert(&snapshots, &before, &after), names);
    for (name, bits) in FILES {
        let path = p.join("keys").join(name);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{name}\n"));
        assert_eq!(mode(&path), bits, "{name}");
    }
    assert_eq!(snapshots.track().unwrap().hash, before);
}

#[test]
fn a_rewritten_file_comes_back_with_its_mode() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    project_with_modes(p);
    let snapshots = store(data.path(), p);
    let before = snapshots.track().unwrap().hash;
    // A tool that writes a new file and renames it over the old one: `644` now.
    for (name, _) in FILES {
        let path = p.join("keys").join(name);
        let temporary = p.join("keys").join(format!(".{name}.tmp"));
        file(&temporary, "rewritten\n", 0o644);
        std::fs::rename(&temporary, &path).unwrap();
    }
    let after = snapshots.track().unwrap().hash;
    assert_eq!(revert(&snapshots, &before, &after).len(), FILES.len());
    for (name, bits) in FILES {
        let path = p.join("keys").join(name);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{name}\n"));
        assert_eq!(mode(&path), bits, "{name}");
    }
    assert_eq!(snapshots.track().unwrap().hash, before);
}

#[test]
fn a_change_of_mode_alone_is_a_change_and_is_undone() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    file(&p.join("id_ed25519"), "secret\n", 0o600);
    file(&p.join("notes.txt"), "notes\n", 0o644);
    let snapshots = store(data.path(), p);
    let before = snapshots.track().unwrap().hash;

    chmod(&p.join("id_ed25519"), 0o644);
    let after = snapshots.track().unwrap().hash;
    assert_ne!(after, before, "a snapshot sees a change of mode alone");
    let stats = snapshots.stats(&before, &after).unwrap();
    assert_eq!(stats.len(), 1);
    assert_eq!(
        (
            stats[0].file.as_str(),
            stats[0].additions,
            stats[0].deletions
        ),
        ("id_ed25519", 0, 0)
    );
    assert_eq!(revert(&snapshots, &before, &after), ["id_ed25519"]);
    assert_eq!(mode(&p.join("id_ed25519")), 0o600);
    assert_eq!(snapshots.track().unwrap().hash, before);

    // And forward again: redo gives the tool's `644` back.
    assert_eq!(revert(&snapshots, &after, &before), ["id_ed25519"]);
    assert_eq!(mode(&p.join("id_ed25519")), 0o644);
    assert_eq!(snapshots.track().unwrap().hash, after);

    // `640` to `600`: neither is a mode git records.
    chmod(&p.join("notes.txt"), 0o640);
    let first = snapshots.track().unwrap().hash;
    chmod(&p.join("notes.txt"), 0o600);
    let second = snapshots.track().unwrap().hash;
    assert_eq!(revert(&snapshots, &first, &second), ["notes.txt"]);
    assert_eq!(mode(&p.join("notes.txt")), 0o640);
}

/// A new process's first snapshot scans every file: git does not report a change
/// of mode alone, so the scan must see it itself.
#[test]
fn a_full_scan_sees_a_change_of_mode_alone() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    project_with_modes(p);
    let before = store(data.path(), p).track().unwrap().hash;

    chmod(&p.join("keys/id_ed25519"), 0o644);
    chmod(&p.join("keys/plain.txt"), 0o600);
    let snapshots = store(data.path(), p);
    let tracked = snapshots.track().unwrap();
    assert!(tracked.full_scan);
    assert_eq!(
        revert(&snapshots, &before, &tracked.hash),
        ["keys/id_ed25519", "keys/plain.txt"]
    );
    assert_eq!(mode(&p.join("keys/id_ed25519")), 0o600);
    assert_eq!(mode(&p.join("keys/plain.txt")), 0o644);
    assert_eq!(store(data.path(), p).track().unwrap().hash, before);
    // Nothing changed since: the same tree, from a scan that builds its record of
    // modes afresh.
    assert_eq!(store(data.path(), p).track().unwrap().hash, before);
}

#[test]
fn a_watched_snapshot_sees_a_change_of_mode_alone() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    project_with_modes(p);
    let snapshots = store(data.path(), p);
    snapshots.track().unwrap();
    let started = Instant::now();
    while !snapshots.watching() {
        assert!(started.elapsed() < Duration::from_secs(20), "no watcher");
        std::thread::sleep(Duration::from_millis(5));
    }
    let before = snapshots.track().unwrap();
    assert!(before.full_scan, "the baseline");

    chmod(&p.join("keys/group.conf"), 0o644);
    let after = snapshots.track().unwrap();
    assert!(!after.full_scan, "answered by the watcher");
    assert_eq!(
        revert(&snapshots, &before.hash, &after.hash),
        ["keys/group.conf"]
    );
    assert_eq!(mode(&p.join("keys/group.conf")), 0o640);
    let again = snapshots.track().unwrap();
    assert!(!again.full_scan);
    assert_eq!(again.hash, before.hash);
}

/// A project file where the record of modes would go (`.ward` a file): the
/// project's file is kept in the snapshot, and modes are not recorded.
#[test]
fn a_project_file_at_the_records_place_is_kept() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    file(&p.join(".ward"), "not a directory\n", 0o644);
    file(&p.join("id_ed25519"), "secret\n", 0o600);
    let snapshots = store(data.path(), p);
    let tracked = snapshots.track().unwrap().hash;
    let mut listed = snapshots.changed(EMPTY_TREE, &tracked).unwrap();
    listed.sort();
    assert_eq!(listed, [".ward", "id_ed25519"]);
    std::fs::remove_file(p.join(".ward")).unwrap();
    std::fs::remove_file(p.join("id_ed25519")).unwrap();
    snapshots
        .restore(&[
            (".ward".into(), tracked.clone()),
            ("id_ed25519".into(), tracked),
        ])
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(p.join(".ward")).unwrap(),
        "not a directory\n"
    );
    assert_eq!(
        mode(&p.join("id_ed25519")),
        0o644,
        "git's mode: not recorded"
    );
}

/// Two Wards on one project (each with its own watcher and record of modes in
/// memory, one store): each one's snapshot gives the tree a full scan gives, though
/// the other rewrote the record of modes in between.
#[test]
fn two_processes_on_one_store_agree_on_modes() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    project_with_modes(p);
    let first = store(data.path(), p);
    first.track().unwrap();
    let started = Instant::now();
    while !first.watching() {
        assert!(started.elapsed() < Duration::from_secs(20), "no watcher");
        std::thread::sleep(Duration::from_millis(5));
    }
    first.track().unwrap();
    let oracle = |what: &str, hash: &str| {
        let fresh = tempfile::tempdir().unwrap();
        let full = Snapshots::new(fresh.path(), p, 1024).track().unwrap().hash;
        assert_eq!(hash, full, "{what}");
    };

    chmod(&p.join("keys/id_ed25519"), 0o644);
    let second = store(data.path(), p).track().unwrap().hash;
    oracle("the second process's snapshot", &second);
    chmod(&p.join("keys/id_ed25519"), 0o600);
    let tracked = first.track().unwrap();
    assert!(!tracked.full_scan);
    oracle("the first process's, after the second's", &tracked.hash);
    assert_eq!(
        revert(&first, &tracked.hash, &second),
        ["keys/id_ed25519"],
        "the mode the second recorded is a change"
    );
}
