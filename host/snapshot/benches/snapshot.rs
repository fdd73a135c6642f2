//! Snapshot cost per step and revert cost, on a 10,000-file project:
//! `cargo bench -p ward-snapshot`. Prints the median and the best of each.
//!
//! - `track, 3 files changed`: one [`Snapshots::track`] after a step changed 3
//!   files (a step that runs tools takes two: before and after), once the
//!   file-system watcher follows the project (the bench waits for it).
//! - `step: track + changed + track`: the whole per-step cost as the loop pays it.
//! - `restore 100 files`: a revert of 100 changed files.
//! - `full scan, nothing changed`: the first snapshot of a new process (a new
//!   [`Snapshots`] on the same store), which scans every file.
//! - `track, 3 files made 600`: modes git's trees do not record, so the snapshot's
//!   own record of modes changes each time.
//! - `… every file 664`: a project written under umask 002, where that record
//!   names every file: a full scan, and a snapshot after one new file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: a panic is how it fails"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use ward_snapshot::{DEFAULT_MAX_FILE_SIZE, Snapshots};

const FILES: usize = 10_000;
const ROUNDS: usize = 30;

fn write_project(root: &Path) {
    for i in 0..FILES {
        let dir = root.join(format!("src/m{:03}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("f{i}.rs")),
            format!("// file {i}\n").repeat(40),
        )
        .unwrap();
    }
}

fn file(root: &Path, i: usize) -> std::path::PathBuf {
    root.join(format!("src/m{:03}/f{i}.rs", i / 100))
}

fn chmod(path: &Path, bits: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits)).unwrap();
}

/// Waits for the watcher, then takes the full scan later snapshots build on.
fn settle(snapshots: &Snapshots) {
    let started = Instant::now();
    while !snapshots.watching() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    snapshots.track().unwrap();
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<36} median {:>7.2} ms   best {:>7.2} ms   ({} rounds)",
        ms(times[times.len() / 2]),
        ms(times[0]),
        times.len()
    );
}

fn main() {
    let base = tempfile::tempdir().unwrap();
    let (root, data) = (base.path().join("project"), base.path().join("data"));
    std::fs::create_dir_all(&root).unwrap();
    write_project(&root);
    let snapshots = Snapshots::new(&data, &root, DEFAULT_MAX_FILE_SIZE);
    let started = Instant::now();
    snapshots.watch_ahead();
    while !snapshots.watching() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_micros(200));
    }
    println!(
        "watches set on the project's directories in {:.1} ms: {}",
        started.elapsed().as_secs_f64() * 1000.0,
        snapshots.watching()
    );
    let started = Instant::now();
    snapshots.track().unwrap();
    println!(
        "first snapshot of {FILES} files: {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let started = Instant::now();
    while !snapshots.watching() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    println!(
        "watcher ready after {:.1} ms: {}",
        started.elapsed().as_secs_f64() * 1000.0,
        snapshots.watching()
    );
    snapshots.track().unwrap();
    let mut full_scans = 0;

    let mut track = Vec::new();
    let mut step = Vec::new();
    for round in 0..ROUNDS {
        for k in 0..3 {
            std::fs::write(file(&root, round * 3 + k), format!("changed {round}\n")).unwrap();
        }
        let t = Instant::now();
        full_scans += usize::from(snapshots.track().unwrap().full_scan);
        track.push(t.elapsed());

        let t = Instant::now();
        let before = snapshots.track().unwrap().hash;
        for k in 0..3 {
            std::fs::write(file(&root, 5000 + round * 3 + k), format!("step {round}\n")).unwrap();
        }
        let after = snapshots.track().unwrap().hash;
        let changed = snapshots.changed(&before, &after).unwrap();
        step.push(t.elapsed());
        assert_eq!(changed.len(), 3);
    }
    report("track, 3 files changed", track);
    report("step: track + changed + track", step);
    println!("full scans among the {ROUNDS} `track` rounds: {full_scans}");

    let mut restore = Vec::new();
    for round in 0..ROUNDS.min(10) {
        let before = snapshots.track().unwrap().hash;
        for i in 0..100 {
            std::fs::write(file(&root, 7000 + i), format!("edited {round}\n")).unwrap();
        }
        let after = snapshots.track().unwrap().hash;
        let files: Vec<(String, String)> = snapshots
            .changed(&before, &after)
            .unwrap()
            .into_iter()
            .map(|f| (f, before.clone()))
            .collect();
        assert_eq!(files.len(), 100);
        let t = Instant::now();
        snapshots.restore(&files).unwrap();
        restore.push(t.elapsed());
    }
    report("restore 100 files", restore);

    let mut full = Vec::new();
    for _ in 0..ROUNDS.min(10) {
        let fresh = Snapshots::new(&data, &root, DEFAULT_MAX_FILE_SIZE);
        let t = Instant::now();
        assert!(fresh.track().unwrap().full_scan);
        full.push(t.elapsed());
    }
    report("full scan, nothing changed", full);

    let mut private = Vec::new();
    for round in 0..ROUNDS {
        for k in 0..3 {
            chmod(&file(&root, 8000 + round * 3 + k), 0o600);
        }
        let t = Instant::now();
        assert!(!snapshots.track().unwrap().full_scan);
        private.push(t.elapsed());
    }
    report("track, 3 files made 600", private);

    for i in 0..FILES {
        chmod(&file(&root, i), 0o664);
    }
    snapshots.track().unwrap();
    settle(&snapshots);
    let mut full = Vec::new();
    for _ in 0..ROUNDS.min(10) {
        let fresh = Snapshots::new(&data, &root, DEFAULT_MAX_FILE_SIZE);
        let t = Instant::now();
        assert!(fresh.track().unwrap().full_scan);
        full.push(t.elapsed());
    }
    report("full scan, every file 664", full);
    let mut wide = Vec::new();
    for round in 0..ROUNDS {
        let new = root.join(format!("src/m000/new{round}.rs"));
        std::fs::write(&new, "new\n").unwrap();
        chmod(&new, 0o664);
        let t = Instant::now();
        assert!(!snapshots.track().unwrap().full_scan);
        wide.push(t.elapsed());
    }
    report("track, 1 new file, every file 664", wide);
}
