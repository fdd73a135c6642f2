//! The sandbox against real processes: each test runs `/bin/sh -c` through the helper
//! under a policy and checks what the kernel let it do.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use ward_sandbox::{Mode, Policy};

const HELPER: &str = env!("CARGO_BIN_EXE_ward-sandbox");

fn sh(policy: &Policy, cwd: &Path, script: &str) -> Output {
    let args = ward_sandbox::command_line(
        policy,
        Path::new("/bin/sh"),
        &[OsString::from("-c"), OsString::from(script)],
    );
    Command::new(HELPER)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run the helper")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

struct Dirs {
    _root: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    temp: PathBuf,
}

fn dirs() -> Dirs {
    let root = tempfile::tempdir().expect("tempdir");
    let project = root.path().join("project");
    let outside = root.path().join("outside");
    let temp = root.path().join("tmp");
    for d in [&project, &outside, &temp] {
        std::fs::create_dir(d).expect("mkdir");
    }
    std::fs::write(outside.join("secret.txt"), "s3cret").expect("write");
    Dirs {
        _root: root,
        project,
        outside,
        temp,
    }
}

fn workspace(d: &Dirs, protected: &[PathBuf], hidden: &[PathBuf], network: bool) -> Policy {
    Policy::for_commands(
        Mode::WorkspaceWrite,
        &d.project,
        &d.temp,
        &[],
        protected,
        hidden,
        network,
    )
}

#[test]
fn workspace_write_writes_the_project_and_nothing_else() {
    let d = dirs();
    let pol = workspace(&d, &[], &[], false);
    let o = sh(&pol, &d.project, "echo hi > made.txt && cat made.txt");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "hi\n");

    let target = d.outside.join("escaped.txt");
    let o = sh(
        &pol,
        &d.project,
        &format!("echo x > '{}'", target.display()),
    );
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!target.exists(), "a write outside the project went through");

    // Reading outside the project is allowed in the command modes.
    let o = sh(
        &pol,
        &d.project,
        &format!("cat '{}/secret.txt'", d.outside.display()),
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "s3cret", "{}", text(&o));
}

#[test]
fn read_only_mode_writes_nowhere_but_dev_null() {
    let d = dirs();
    let pol = Policy::for_commands(Mode::ReadOnly, &d.project, &d.temp, &[], &[], &[], false);
    let o = sh(&pol, &d.project, "echo x > f.txt");
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!d.project.join("f.txt").exists());
    let o = sh(
        &pol,
        &d.project,
        "echo quiet > /dev/null && ls >/dev/null && echo ok",
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ok\n", "{}", text(&o));
}

#[test]
fn protected_paths_stay_read_only_inside_the_project() {
    let d = dirs();
    let config = d.project.join("ward.toml");
    let dot_ward = d.project.join(".ward");
    std::fs::write(&config, "# mine\n").expect("write");
    std::fs::create_dir_all(dot_ward.join("plugins/x")).expect("mkdir");
    std::fs::write(dot_ward.join("plugins/x/plugin.toml"), "[plugin]\n").expect("write");
    let pol = workspace(&d, &[config.clone(), dot_ward.clone()], &[], false);
    for attack in [
        "echo '[plugins.x]' >> ward.toml",
        "rm -f ward.toml",
        "mv ward.toml gone.toml",
        "echo evil > .ward/plugins/x/plugin.toml",
        "mkdir .ward/new",
        "rm -rf .ward",
        "mv .ward elsewhere",
    ] {
        let o = sh(&pol, &d.project, attack);
        assert!(!o.status.success(), "`{attack}` succeeded: {}", text(&o));
    }
    assert_eq!(std::fs::read_to_string(&config).expect("read"), "# mine\n");
    assert_eq!(
        std::fs::read_to_string(dot_ward.join("plugins/x/plugin.toml")).expect("read"),
        "[plugin]\n"
    );
    // The rest of the project stays writable, and the config readable.
    let o = sh(&pol, &d.project, "cat ward.toml && touch other.txt");
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn hidden_paths_read_as_empty() {
    let d = dirs();
    let secret_dir = d.outside.join(".ssh");
    std::fs::create_dir(&secret_dir).expect("mkdir");
    std::fs::write(secret_dir.join("id_ed25519"), "PRIVATE").expect("write");
    let pol = workspace(
        &d,
        &[],
        &[secret_dir.clone(), d.outside.join("secret.txt")],
        false,
    );
    let o = sh(
        &pol,
        &d.project,
        &format!(
            "cat '{0}/.ssh/id_ed25519'; ls -A '{0}/.ssh'; cat '{0}/secret.txt'; echo end",
            d.outside.display()
        ),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("PRIVATE") && !out.contains("s3cret"),
        "{}",
        text(&o)
    );
    assert!(out.ends_with("end\n"), "{}", text(&o));
}

#[test]
fn a_plugin_process_reads_only_the_system_and_its_grants() {
    let d = dirs();
    std::fs::write(d.project.join("granted.txt"), "yes").expect("write");
    let pol = Policy::for_plugin(std::slice::from_ref(&d.project), &[], &[], false);
    let o = sh(&pol, &d.project, "cat granted.txt");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "yes", "{}", text(&o));
    let o = sh(
        &pol,
        &d.project,
        &format!("cat '{}/secret.txt'", d.outside.display()),
    );
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("s3cret"));
    // Read-only grant: no writes, not even in the project.
    let o = sh(&pol, &d.project, "touch new.txt");
    assert!(!o.status.success(), "{}", text(&o));
    if let Some(home) = std::env::var_os("HOME") {
        let o = sh(
            &pol,
            &d.project,
            &format!("ls '{}'", Path::new(&home).display()),
        );
        assert!(!o.status.success(), "home listed: {}", text(&o));
    }
}

#[test]
fn without_network_no_socket_reaches_the_host() {
    let d = dirs();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let script = format!(
        "/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')\""
    );
    let o = sh(&workspace(&d, &[], &[], false), &d.project, &script);
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("connected"),
        "{}",
        text(&o)
    );
    let o = sh(&workspace(&d, &[], &[], true), &d.project, &script);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("connected"),
        "{}",
        text(&o)
    );
}

#[test]
fn no_descendant_outlives_the_command() {
    let d = dirs();
    let pol = workspace(&d, &[], &[], false);
    let start = std::time::Instant::now();
    let o = sh(
        &pol,
        &d.project,
        "(sleep 1; touch bg.txt) & setsid sh -c 'sleep 1; touch setsid.txt' & nohup sh -c 'sleep 1; touch nohup.txt' >/dev/null 2>&1 & echo started",
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "started\n",
        "{}",
        text(&o)
    );
    assert!(
        start.elapsed() < Duration::from_millis(900),
        "waited for the background"
    );
    std::thread::sleep(Duration::from_millis(1500));
    for f in ["bg.txt", "setsid.txt", "nohup.txt"] {
        assert!(
            !d.project.join(f).exists(),
            "{f}: a background process outlived the command"
        );
    }
}

#[test]
fn killing_the_helper_kills_the_command() {
    let d = dirs();
    let pol = Policy::unconfined();
    let args = ward_sandbox::command_line(
        &pol,
        Path::new("/bin/sh"),
        &[
            OsString::from("-c"),
            OsString::from("sleep 1; touch late.txt"),
        ],
    );
    let mut child = Command::new(HELPER)
        .args(args)
        .current_dir(&d.project)
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(200));
    child.kill().expect("kill");
    let _ = child.wait();
    std::thread::sleep(Duration::from_millis(1300));
    assert!(
        !d.project.join("late.txt").exists(),
        "the command survived its helper"
    );
}

#[test]
fn exit_status_and_bad_usage() {
    let d = dirs();
    let o = sh(&Policy::unconfined(), &d.project, "exit 7");
    assert_eq!(o.status.code(), Some(7));
    let o = Command::new(HELPER)
        .args([ward_sandbox::HELPER_ARG, "{not json", "--", "/bin/true"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid sandbox policy"));
    let o = sh(
        &workspace(&d, &[], &[], false),
        &d.project,
        "/no/such/program",
    );
    assert_eq!(o.status.code(), Some(127), "{}", text(&o));
}

#[test]
fn the_kernel_supports_the_sandbox_here() {
    let s = ward_sandbox::probe();
    assert!(s.sufficient(), "{s:?}");
}
