//! The snapshot store against real files and the real `git`: exact restores, the
//! size limit, hostile symlinks (written before the defence), and a store that
//! survives processes killed in the middle of a snapshot; (`modes`) every
//! permission bit restored exactly; and (`watched`) snapshots that look only at
//! what the file-system watcher saw change, checked against a full scan of the
//! same files.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ward_snapshot::{SnapshotError, Snapshots};

mod modes;
mod watched;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

fn store(data: &Path, project: &Path) -> Snapshots {
    Snapshots::new(data, project, 1024)
}

#[test]
fn restore_puts_back_content_modes_created_and_deleted_files() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    std::fs::create_dir(p.join("src")).unwrap();
    std::fs::write(p.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(p.join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(p.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(p.join("gone.txt"), "keep me\n").unwrap();
    let snapshots = store(data.path(), p);
    let before = snapshots.track().unwrap().hash;

    std::fs::write(p.join("src/a.rs"), "fn a() { changed() }\n").unwrap();
    std::fs::set_permissions(p.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(p.join("gone.txt")).unwrap();
    std::fs::create_dir(p.join("new")).unwrap();
    std::fs::write(p.join("new/made.txt"), "made\n").unwrap();
    let after = snapshots.track().unwrap().hash;

    let mut changed = snapshots.changed(&before, &after).unwrap();
    changed.sort();
    assert_eq!(changed, ["gone.txt", "new/made.txt", "run.sh", "src/a.rs"]);
    let stats = snapshots.stats(&before, &after).unwrap();
    let a = stats.iter().find(|s| s.file == "src/a.rs").unwrap();
    assert_eq!((a.additions, a.deletions), (1, 1));

    let files: Vec<(String, String)> = changed
        .iter()
        .map(|f| (f.clone(), before.clone()))
        .collect();
    snapshots.restore(&files).unwrap();
    assert_eq!(
        std::fs::read_to_string(p.join("src/a.rs")).unwrap(),
        "fn a() {}\n"
    );
    assert_eq!(mode(&p.join("run.sh")), 0o755);
    assert_eq!(
        std::fs::read_to_string(p.join("gone.txt")).unwrap(),
        "keep me\n"
    );
    assert!(!p.join("new/made.txt").exists());
    assert!(
        !p.join("new").exists(),
        "the directory the agent made goes too"
    );
    assert_eq!(snapshots.track().unwrap().hash, before);

    // And forward again.
    let files: Vec<(String, String)> = changed.iter().map(|f| (f.clone(), after.clone())).collect();
    snapshots.restore(&files).unwrap();
    assert_eq!(snapshots.track().unwrap().hash, after);
    assert_eq!(mode(&p.join("run.sh")), 0o644);
}

#[test]
fn gitignored_and_oversized_files_are_left_out_with_a_note() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    std::fs::write(p.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(p.join("x.log"), "noise").unwrap();
    std::fs::write(p.join("big.bin"), vec![7u8; 4096]).unwrap();
    std::fs::write(p.join("small.txt"), "s").unwrap();
    let snapshots = store(data.path(), p);
    let tracked = snapshots.track().unwrap();
    assert_eq!(tracked.skipped.len(), 1);
    assert_eq!(tracked.skipped[0].path, "big.bin");
    assert_eq!(tracked.skipped[0].size, 4096);
    let empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let mut files = snapshots.changed(empty, &tracked.hash).unwrap();
    files.sort();
    assert_eq!(files, [".gitignore", "small.txt"]);
}

#[test]
fn the_users_git_repository_is_never_touched() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(p)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    git(&["init", "-q"]);
    std::fs::write(p.join("a.txt"), "a").unwrap();
    git(&["add", "a.txt"]);
    let index = std::fs::read(p.join(".git/index")).unwrap();
    let snapshots = store(data.path(), p);
    let first = snapshots.track().unwrap().hash;
    std::fs::write(p.join("a.txt"), "b").unwrap();
    std::fs::write(p.join("c.txt"), "c").unwrap();
    snapshots.track().unwrap();
    snapshots
        .restore(&[("a.txt".into(), first.clone()), ("c.txt".into(), first)])
        .unwrap();
    assert_eq!(std::fs::read(p.join(".git/index")).unwrap(), index);
    let status = String::from_utf8(git(&["status", "--porcelain"])).unwrap();
    assert_eq!(status, "A  a.txt\n");
}

/// The attack: between the snapshot and the revert, `sub` (a directory when the
/// snapshot was taken) became a symlink to a directory outside the project, and
/// `top.txt` a symlink to a file outside it. Restoring must not write through
/// either link.
#[test]
fn a_hostile_symlink_never_makes_restore_write_outside_the_project() {
    let data = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    std::fs::create_dir(p.join("sub")).unwrap();
    std::fs::write(p.join("sub/f.txt"), "inside\n").unwrap();
    std::fs::write(p.join("top.txt"), "top\n").unwrap();
    std::fs::write(outside.path().join("victim.txt"), "victim\n").unwrap();
    let snapshots = store(data.path(), p);
    let before = snapshots.track().unwrap().hash;

    std::fs::remove_dir_all(p.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.join("sub")).unwrap();
    std::fs::remove_file(p.join("top.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("victim.txt"), p.join("top.txt")).unwrap();
    let after = snapshots.track().unwrap();
    // Symlinks are recorded as links, never followed into `outside`.
    let changed = snapshots.changed(&before, &after.hash).unwrap();
    assert!(changed.iter().all(|f| !f.contains("victim")), "{changed:?}");

    snapshots
        .restore(&[
            ("sub/f.txt".into(), before.clone()),
            ("top.txt".into(), before.clone()),
        ])
        .unwrap();
    let mut outside_files: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    outside_files.sort();
    assert_eq!(outside_files, ["victim.txt"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("victim.txt")).unwrap(),
        "victim\n"
    );
    assert!(std::fs::symlink_metadata(p.join("sub")).unwrap().is_dir());
    assert_eq!(
        std::fs::read_to_string(p.join("sub/f.txt")).unwrap(),
        "inside\n"
    );
    assert!(
        std::fs::symlink_metadata(p.join("top.txt"))
            .unwrap()
            .is_file()
    );
    assert_eq!(std::fs::read_to_string(p.join("top.txt")).unwrap(), "top\n");

    // Removing a file the snapshot lacks through a linked directory removes nothing.
    std::fs::remove_dir_all(p.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.join("sub")).unwrap();
    let empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    snapshots
        .restore(&[("sub/victim.txt".into(), empty.into())])
        .unwrap();
    assert!(outside.path().join("victim.txt").exists());

    // A path that climbs out is refused before anything is written.
    let refused = snapshots.restore(&[
        ("top.txt".into(), after.hash.clone()),
        ("../escape.txt".into(), before),
    ]);
    assert!(
        matches!(refused, Err(SnapshotError::UnsafePath { .. })),
        "{refused:?}"
    );
    assert!(
        std::fs::symlink_metadata(p.join("top.txt"))
            .unwrap()
            .is_file()
    );
}

/// In a child the parent started as `role`: the project and its store, from
/// `WARD_SNAPSHOT_<role>_PROJECT` and `_DATA` (none when run as a test of its own).
fn child_store(role: &str) -> Option<(std::path::PathBuf, Snapshots)> {
    let project =
        std::path::PathBuf::from(std::env::var_os(format!("WARD_SNAPSHOT_{role}_PROJECT"))?);
    let data = std::env::var_os(format!("WARD_SNAPSHOT_{role}_DATA")).unwrap();
    let snapshots = store(Path::new(&data), &project);
    Some((project, snapshots))
}

/// A child that snapshots a changing tree forever, to be killed with SIGKILL.
#[test]
fn crash_child() {
    let Some((project, snapshots)) = child_store("CRASH") else {
        return;
    };
    for i in 0.. {
        std::fs::write(project.join(format!("f{}.txt", i % 300)), format!("{i}")).unwrap();
        let _ = snapshots.track();
    }
}

#[test]
fn a_snapshot_killed_midway_leaves_the_store_usable() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    for i in 0..2000 {
        std::fs::write(project.path().join(format!("g{i}.txt")), format!("{i}\n")).unwrap();
    }
    let me = std::env::current_exe().unwrap();
    for round in 0..6u64 {
        let mut child = Command::new(&me)
            .args(["--exact", "crash_child", "--nocapture"])
            .env("WARD_SNAPSHOT_CRASH_PROJECT", project.path())
            .env("WARD_SNAPSHOT_CRASH_DATA", data.path())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(150 + 70 * round));
        // SIGKILL: no unwinding, no cleanup; git children are left to die or finish.
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let snapshots = store(data.path(), project.path());
    let tracked = snapshots.track().unwrap();
    std::fs::write(project.path().join("g1.txt"), "changed\n").unwrap();
    let next = snapshots.track().unwrap();
    assert_eq!(
        snapshots.changed(&tracked.hash, &next.hash).unwrap(),
        ["g1.txt"]
    );
    snapshots
        .restore(&[("g1.txt".into(), tracked.hash)])
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(project.path().join("g1.txt")).unwrap(),
        "1\n"
    );
    let fsck = Command::new("git")
        .arg("--git-dir")
        .arg(snapshots.git_dir())
        .args(["fsck", "--no-dangling"])
        .output()
        .unwrap();
    assert!(fsck.status.success(), "{fsck:?}");
}

/// The `git` found on `PATH`.
fn real_git() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&path)
        .map(|dir| dir.join("git"))
        .find(|git| git.is_file())
        .unwrap()
}

/// A child that takes one snapshot through a slow `git` (set up by the parent),
/// to be killed with SIGKILL while its `update-index` is still waiting.
#[test]
fn orphan_child() {
    if let Some((_, snapshots)) = child_store("ORPHAN") {
        let _ = snapshots.track();
    }
}

/// A Ward killed while its git child has not yet touched the index leaves that
/// child running; the next snapshot must wait for it rather than race it (the
/// orphan's `index.lock` appearing under a later `write-tree`, or its stale file
/// list landing after the new one).
#[test]
fn the_next_snapshot_waits_for_a_git_child_orphaned_by_a_killed_ward() {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    for i in 0..20 {
        std::fs::write(project.path().join(format!("g{i}.txt")), format!("{i}\n")).unwrap();
    }
    let mark = bin.path().join("mark");
    // `update-index` announces itself, waits, runs, then says it is done.
    let slow_git = bin.path().join("git");
    std::fs::write(
        &slow_git,
        format!(
            "#!/bin/sh\ncase \"$*\" in *update-index*)\n  touch '{mark}.started'; sleep 1\n  \
             '{git}' \"$@\"; rc=$?; touch '{mark}.done'; exit $rc;;\nesac\nexec '{git}' \"$@\"\n",
            mark = mark.display(),
            git = real_git().display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&slow_git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "orphan_child", "--nocapture"])
        .env("WARD_SNAPSHOT_ORPHAN_PROJECT", project.path())
        .env("WARD_SNAPSHOT_ORPHAN_DATA", data.path())
        .env("PATH", path)
        .spawn()
        .unwrap();
    let started = bin.path().join("mark.started");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "update-index never ran"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let snapshots = store(data.path(), project.path());
    let tracked = snapshots.track().unwrap();
    assert!(
        bin.path().join("mark.done").exists(),
        "the snapshot ran while the orphaned update-index was still pending"
    );
    std::fs::write(project.path().join("g1.txt"), "changed\n").unwrap();
    let next = snapshots.track().unwrap();
    assert_eq!(
        snapshots.changed(&tracked.hash, &next.hash).unwrap(),
        ["g1.txt"]
    );
}
