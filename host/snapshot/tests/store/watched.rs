//! Snapshots taken while the file-system watcher follows the project look only at
//! the paths it saw change. Each is checked against the oracle: a fresh store's full
//! scan of the same files must give the same tree.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use ward_snapshot::Snapshots;

/// The tree a full scan of `project` gives, in a store of its own.
fn full_scan(project: &Path) -> String {
    let data = tempfile::tempdir().unwrap();
    let tracked = Snapshots::new(data.path(), project, 1024).track().unwrap();
    assert!(tracked.full_scan);
    tracked.hash
}

/// Waits for the watcher, then takes the full scan it will answer from.
fn settle(snapshots: &Snapshots) {
    let started = Instant::now();
    while !snapshots.watching() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the watcher never became ready"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(snapshots.track().unwrap().full_scan);
}

/// A snapshot now, which must match a full scan; returns whether it was one.
fn check(snapshots: &Snapshots, project: &Path, what: &str) -> bool {
    let tracked = snapshots.track().unwrap();
    assert_eq!(tracked.hash, full_scan(project), "after {what}");
    tracked.full_scan
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn project_with_ignores() -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    write(&p.join(".gitignore"), "build/\n*.log\n");
    for i in 0..20 {
        write(
            &p.join(format!("src/m{}/f{i}.rs", i % 4)),
            &format!("// {i}\n"),
        );
    }
    write(&p.join("build/out.o"), "object\n");
    project
}

/// A project with ignores, its store, and the watcher following it (baseline taken).
fn watched_project() -> (tempfile::TempDir, tempfile::TempDir, Snapshots) {
    let data = tempfile::tempdir().unwrap();
    let project = project_with_ignores();
    let snapshots = Snapshots::new(data.path(), project.path(), 1024);
    assert!(snapshots.track().unwrap().full_scan);
    settle(&snapshots);
    (data, project, snapshots)
}

/// A change made to the project, and what to call it in a failure.
type Step<'a> = (&'a str, Box<dyn Fn() + 'a>);

#[test]
fn a_watched_snapshot_sees_every_kind_of_change_a_full_scan_sees() {
    let (_data, project, snapshots) = watched_project();
    let p = project.path();
    let outside = tempfile::tempdir().unwrap();

    let steps: Vec<Step<'_>> = vec![
        ("nothing", Box::new(|| {})),
        (
            "a change",
            Box::new(|| write(&p.join("src/m1/f1.rs"), "changed\n")),
        ),
        (
            "a mode",
            Box::new(|| {
                std::fs::set_permissions(
                    p.join("src/m2/f2.rs"),
                    std::fs::Permissions::from_mode(0o755),
                )
                .unwrap()
            }),
        ),
        (
            "a mode git does not record",
            Box::new(|| {
                std::fs::set_permissions(
                    p.join("src/m2/f6.rs"),
                    std::fs::Permissions::from_mode(0o600),
                )
                .unwrap()
            }),
        ),
        (
            "another mode git does not record",
            Box::new(|| {
                std::fs::set_permissions(
                    p.join("src/m2/f6.rs"),
                    std::fs::Permissions::from_mode(0o640),
                )
                .unwrap()
            }),
        ),
        (
            "a new file",
            Box::new(|| write(&p.join("src/m0/new.rs"), "new\n")),
        ),
        (
            "a deletion",
            Box::new(|| std::fs::remove_file(p.join("src/m3/f3.rs")).unwrap()),
        ),
        (
            "new nested directories",
            Box::new(|| write(&p.join("a/b/c/deep.txt"), "deep\n")),
        ),
        (
            "an empty directory",
            Box::new(|| std::fs::create_dir(p.join("empty")).unwrap()),
        ),
        (
            "a file in the directory made empty",
            Box::new(|| write(&p.join("empty/late.txt"), "late\n")),
        ),
        (
            "ignored files",
            Box::new(|| {
                write(&p.join("build/more.o"), "more\n");
                write(&p.join("src/trace.log"), "log\n");
            }),
        ),
        (
            "an ignored directory made again, then written",
            Box::new(|| {
                std::fs::remove_dir_all(p.join("build")).unwrap();
                write(&p.join("build/sub/x.o"), "x\n");
            }),
        ),
        (
            "a file replaced by a symlink",
            Box::new(|| {
                std::fs::remove_file(p.join("src/m0/f4.rs")).unwrap();
                std::os::unix::fs::symlink("f0.rs", p.join("src/m0/f4.rs")).unwrap();
            }),
        ),
        (
            "a directory removed",
            Box::new(|| std::fs::remove_dir_all(p.join("a")).unwrap()),
        ),
        (
            "a write by a child process",
            Box::new(|| {
                let status = std::process::Command::new("sh")
                    .args([
                        "-c",
                        "printf child > src/m1/f5.rs && mkdir -p gen && echo g > gen/g.rs",
                    ])
                    .current_dir(p)
                    .status()
                    .unwrap();
                assert!(status.success());
            }),
        ),
        (
            "a directory made a symlink after a file in it changed",
            Box::new(|| {
                write(&p.join("src/m3/f7.rs"), "changed, then gone\n");
                std::fs::remove_dir_all(p.join("src/m3")).unwrap();
                std::os::unix::fs::symlink(outside.path(), p.join("src/m3")).unwrap();
            }),
        ),
        (
            "a write through that symlink",
            Box::new(|| write(&outside.path().join("f7.rs"), "outside\n")),
        ),
        (
            "a file over the size limit",
            Box::new(|| write(&p.join("big.bin"), &"x".repeat(4096))),
        ),
    ];
    for (what, step) in steps {
        step();
        assert!(!check(&snapshots, p, what), "{what}: scanned everything");
    }
}

#[test]
fn what_the_watcher_cannot_follow_makes_a_full_scan_and_it_resumes() {
    let (_data, project, snapshots) = watched_project();
    let p = project.path();

    // A renamed directory: its watches would follow it under a name not known.
    std::fs::rename(p.join("src/m1"), p.join("src/renamed")).unwrap();
    assert!(check(&snapshots, p, "a rename"));
    settle(&snapshots);
    write(&p.join("src/renamed/f1.rs"), "after the rename\n");
    assert!(!check(&snapshots, p, "a write after the rename"));

    // `.gitignore` changed: what git takes changed everywhere.
    write(&p.join(".gitignore"), "*.log\n");
    assert!(check(&snapshots, p, "build/ no longer ignored"));
    settle(&snapshots);
    write(&p.join("build/now-seen.o"), "seen\n");
    assert!(!check(&snapshots, p, "a write in build/"));
}

/// A small deterministic generator, so a failing sequence can be replayed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn random_changes_give_the_tree_a_full_scan_gives() {
    let (_data, project, snapshots) = watched_project();
    let p = project.path();
    let dirs = ["src/m0", "src/m1", "src/new", "x/y", "x/y/z", "build", "."];
    let mut random = Lcg(0x5eed);
    let mut watched = 0;
    for round in 0..40 {
        let mut log = Vec::new();
        for _ in 0..1 + random.below(5) {
            let dir = p.join(dirs[random.below(dirs.len())]);
            let file = dir.join(format!("r{}.txt", random.below(6)));
            match random.below(5) {
                0 | 1 => {
                    write(&file, &format!("round {round}\n"));
                    log.push(format!("write {}", file.display()));
                }
                2 => {
                    let _ = std::fs::remove_file(&file);
                    log.push(format!("remove {}", file.display()));
                }
                3 => {
                    if file.exists() {
                        let mode = [0o644, 0o755, 0o600, 0o640, 0o700][random.below(5)];
                        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode))
                            .unwrap();
                        log.push(format!("chmod {mode:o} {}", file.display()));
                    }
                }
                _ => {
                    if dir != p && dir.exists() && random.below(3) == 0 {
                        std::fs::remove_dir_all(&dir).unwrap();
                        log.push(format!("rm -r {}", dir.display()));
                    }
                }
            }
        }
        if !check(&snapshots, p, &format!("round {round}: {log:?}")) {
            watched += 1;
        }
    }
    assert_eq!(
        watched, 40,
        "every round should have been answered by the watcher"
    );
}
