//! The process sandbox's cost per spawn: `/bin/sh -c true` started and waited for
//! directly, and through the sandbox helper — the small `ward-sandbox` binary Ward uses
//! when it is installed beside `ward`, and `ward` itself otherwise — under the `bash`
//! tool's `workspace-write` policy and under a plugin's policy (namespaces, mounts,
//! Landlock). Needs `cargo build --release -p ward -p ward-sandbox` first.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use ward_sandbox::{Mode, Policy};
use ward_tests::Project;

fn run(program: &Path, args: &[OsString], cwd: &Path) {
    let status = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    assert!(status.success(), "{program:?} {args:?}: {status}");
}

fn spawn_cost(c: &mut Criterion) {
    let p = Project::new("bench-sandbox");
    let ward = ward_tests::ward_binary();
    let small = ward_sandbox::helper_beside(&ward);
    assert_ne!(small, ward, "build ward-sandbox first");
    let sh = Path::new("/bin/sh");
    let plain = [OsString::from("-c"), OsString::from("true")];
    let protected: Vec<PathBuf> = [
        "ward.toml",
        "ward.lock",
        ".ward",
        ".git/config",
        ".git/hooks",
    ]
    .iter()
    .map(|f| p.root.join(f))
    .collect();
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let commands = Policy::for_commands(
        Mode::WorkspaceWrite,
        &p.root,
        &std::env::temp_dir(),
        &[],
        &protected,
        &ward_sandbox::home_secrets(&home),
        false,
    );
    let plugin = Policy::for_plugin(std::slice::from_ref(&p.root), &[], &protected, false);
    let through = |policy: &Policy| ward_sandbox::command_line(policy, sh, &plain);
    let (commands, plugin) = (through(&commands), through(&plugin));
    // Each must really run confined here before it is timed.
    run(&small, &commands, &p.root);
    run(&small, &plugin, &p.root);
    run(&ward, &commands, &p.root);

    let mut g = c.benchmark_group("sandbox/spawn sh -c true");
    g.sample_size(50);
    g.bench_function("unconfined", |b| b.iter(|| run(sh, &plain, &p.root)));
    g.bench_function("bash tool, workspace-write", |b| {
        b.iter(|| run(&small, &commands, &p.root))
    });
    g.bench_function("plugin exec, own grants", |b| {
        b.iter(|| run(&small, &plugin, &p.root))
    });
    g.bench_function("bash tool, workspace-write, ward as the helper", |b| {
        b.iter(|| run(&ward, &commands, &p.root))
    });
    g.finish();
}

criterion_group!(benches, spawn_cost);
criterion_main!(benches);
