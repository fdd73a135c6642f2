//! The process sandbox's cost per spawn: `/bin/sh -c true` started and waited for
//! directly, and through a sandbox server (the small `ward-sandbox` binary Ward uses
//! when it is installed beside `ward`, and `ward` itself otherwise) under the `bash`
//! tool's `workspace-write` policy and under a plugin's policy (PID namespace,
//! Landlock; the user, mount and network namespaces are the server's, made once); and
//! the first launch of a setup, which starts its server. Needs
//! `cargo build --release -p ward -p ward-sandbox` first.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use ward_sandbox::{Launcher, Mode, Policy, Program};
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

/// Launches `program` as Ward does and waits for its output and exit status.
fn launch(launcher: &Launcher, policy: &Policy, program: &Program) {
    let mut launched = launcher.launch(policy, program).expect("launch");
    let mut sink = Vec::new();
    let _ = launched.stdout.read_to_end(&mut sink);
    let _ = launched.stderr.read_to_end(&mut sink);
    let status = launched.control.wait().expect("status");
    assert_eq!(status, Some(0), "{}", String::from_utf8_lossy(&sink));
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
    let program = Program {
        argv: vec![sh.into(), plain[0].clone(), plain[1].clone()],
        cwd: p.root.clone(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        stdin: false,
    };
    let small_launcher = Launcher::new(small.clone());
    let ward_launcher = Launcher::new(ward.clone());
    // Each must really run confined here before it is timed.
    launch(&small_launcher, &commands, &program);
    launch(&small_launcher, &plugin, &program);
    launch(&ward_launcher, &commands, &program);

    let mut g = c.benchmark_group("sandbox/spawn sh -c true");
    g.sample_size(50);
    g.bench_function("unconfined", |b| b.iter(|| run(sh, &plain, &p.root)));
    g.bench_function("bash tool, workspace-write", |b| {
        b.iter(|| launch(&small_launcher, &commands, &program))
    });
    g.bench_function("plugin exec, own grants", |b| {
        b.iter(|| launch(&small_launcher, &plugin, &program))
    });
    g.bench_function("bash tool, workspace-write, ward as the server", |b| {
        b.iter(|| launch(&ward_launcher, &commands, &program))
    });
    g.bench_function("first launch of a setup (starts its server)", |b| {
        b.iter(|| launch(&Launcher::new(small.clone()), &commands, &program))
    });
    g.finish();
}

criterion_group!(benches, spawn_cost);
criterion_main!(benches);
