//! The sandbox against real processes: each test runs `/bin/sh -c` through a sandbox
//! server (the real `ward-sandbox` binary) under a policy and checks what the kernel
//! let it do.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use ward_sandbox::{Launcher, Mode, Policy, Program};

const HELPER: &str = env!("CARGO_BIN_EXE_ward-sandbox");

/// One launcher for the whole binary, as Ward has: its servers are shared by the tests.
static LAUNCHER: LazyLock<Launcher> = LazyLock::new(|| Launcher::new(HELPER.into()));

/// What a program did.
struct Output {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn program(cwd: &Path, script: &str) -> Program {
    Program {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        cwd: cwd.to_path_buf(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        stdin: false,
    }
}

fn run(launcher: &Launcher, policy: &Policy, program: &Program) -> Output {
    let mut launched = launcher.launch(policy, program).expect("launch");
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut err_pipe = launched.stderr;
    let err = std::thread::spawn(move || {
        let _ = err_pipe.read_to_end(&mut stderr);
        stderr
    });
    launched.stdout.read_to_end(&mut stdout).expect("stdout");
    let stderr = err.join().expect("stderr");
    let status = launched.control.wait().expect("status");
    Output {
        status,
        stdout,
        stderr,
    }
}

fn sh(policy: &Policy, cwd: &Path, script: &str) -> Output {
    run(&LAUNCHER, policy, &program(cwd, script))
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
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
    assert_eq!(o.status, Some(0), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "hi\n");

    let target = d.outside.join("escaped.txt");
    let o = sh(
        &pol,
        &d.project,
        &format!("echo x > '{}'", target.display()),
    );
    assert_ne!(o.status, Some(0), "{}", text(&o));
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
    assert_ne!(o.status, Some(0), "{}", text(&o));
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
        assert_ne!(o.status, Some(0), "`{attack}` succeeded: {}", text(&o));
    }
    assert_eq!(std::fs::read_to_string(&config).expect("read"), "# mine\n");
    assert_eq!(
        std::fs::read_to_string(dot_ward.join("plugins/x/plugin.toml")).expect("read"),
        "[plugin]\n"
    );
    // The rest of the project stays writable, and the config readable.
    let o = sh(&pol, &d.project, "cat ward.toml && touch other.txt");
    assert_eq!(o.status, Some(0), "{}", text(&o));
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
    assert_ne!(o.status, Some(0), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("s3cret"));
    // Read-only grant: no writes, not even in the project.
    let o = sh(&pol, &d.project, "touch new.txt");
    assert_ne!(o.status, Some(0), "{}", text(&o));
    if let Some(home) = std::env::var_os("HOME") {
        let o = sh(
            &pol,
            &d.project,
            &format!("ls '{}'", Path::new(&home).display()),
        );
        assert_ne!(o.status, Some(0), "home listed: {}", text(&o));
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
fn cancelling_a_launch_kills_the_command_and_its_descendants() {
    let d = dirs();
    for policy in [Policy::unconfined(), workspace(&d, &[], &[], false)] {
        let prog = program(
            &d.project,
            "(sleep 1; touch child.txt) & sleep 1; touch late.txt",
        );
        let launched = LAUNCHER.launch(&policy, &prog).expect("launch");
        std::thread::sleep(Duration::from_millis(200));
        let mut control = launched.control;
        control.cancel();
        assert_eq!(control.wait().expect("status"), Some(128 + 9));
        std::thread::sleep(Duration::from_millis(1300));
        for f in ["late.txt", "child.txt"] {
            assert!(!d.project.join(f).exists(), "{f}: the command survived");
        }
        // Dropping the control is a cancel too (an aborted call).
        let launched = LAUNCHER.launch(&policy, &prog).expect("launch");
        std::thread::sleep(Duration::from_millis(200));
        drop(launched);
        std::thread::sleep(Duration::from_millis(1300));
        assert!(!d.project.join("late.txt").exists(), "survived its drop");
    }
}

/// The pids of the sandbox servers this process started.
fn my_servers() -> Vec<i32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let ppid = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().nth(1));
            ppid == Some(me.as_str())
                && String::from_utf8_lossy(&cmdline).contains(ward_sandbox::SERVE_ARG)
        })
        .collect()
}

#[test]
fn a_dead_server_takes_its_commands_with_it_and_is_replaced() {
    let d = dirs();
    let launcher = Launcher::new(HELPER.into());
    let pol = workspace(&d, &[], &[], false);
    let launched = launcher
        .launch(&pol, &program(&d.project, "sleep 1; touch late.txt"))
        .expect("launch");
    let servers = my_servers();
    assert!(!servers.is_empty(), "no server found");
    std::thread::sleep(Duration::from_millis(200));
    for pid in servers {
        // SAFETY: kill(2) on a child process this test started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    let mut control = launched.control;
    assert_eq!(
        control.wait().expect("wait"),
        None,
        "no status without a monitor"
    );
    std::thread::sleep(Duration::from_millis(1300));
    assert!(
        !d.project.join("late.txt").exists(),
        "the command survived its server"
    );
    // The launcher notices and starts another.
    let o = run(&launcher, &pol, &program(&d.project, "echo again"));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "again\n",
        "{}",
        text(&o)
    );
}

#[test]
fn a_protected_path_created_after_the_server_started_is_still_read_only() {
    let d = dirs();
    let ward_dir = d.project.join(".ward");
    let config = d.project.join("ward.toml");
    let pol = workspace(&d, &[ward_dir.clone(), config.clone()], &[], false);
    let o = sh(&pol, &d.project, "echo first");
    assert_eq!(o.status, Some(0), "{}", text(&o));
    std::fs::create_dir(&ward_dir).expect("mkdir");
    std::fs::write(&config, "x = 1\n").expect("write");
    let o = sh(&pol, &d.project, "touch .ward/evil");
    assert_ne!(o.status, Some(0), "{}", text(&o));
    let o = sh(&pol, &d.project, "echo 'y = 2' >> ward.toml");
    assert_ne!(o.status, Some(0), "{}", text(&o));
    // Replaced by another directory of the same name: still covered.
    std::fs::remove_dir(&ward_dir).expect("rmdir");
    std::fs::create_dir(&ward_dir).expect("mkdir again");
    let o = sh(&pol, &d.project, "touch .ward/evil");
    assert_ne!(o.status, Some(0), "{}", text(&o));
    assert!(!ward_dir.join("evil").exists());
    assert_eq!(std::fs::read_to_string(&config).expect("read"), "x = 1\n");
}

#[test]
fn launches_run_side_by_side() {
    let d = dirs();
    let pol = workspace(&d, &[], &[], false);
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (pol, cwd) = (pol.clone(), d.project.clone());
            std::thread::spawn(move || {
                let script = format!("echo {i}; exit {i}");
                (i, sh(&pol, &cwd, &script))
            })
        })
        .collect();
    for h in handles {
        let (i, o) = h.join().expect("thread");
        assert_eq!(o.status, Some(i), "{}", text(&o));
        assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{i}\n"));
    }
}

#[test]
fn the_program_gets_its_own_environment_stdin_and_default_signals() {
    let d = dirs();
    let pol = workspace(&d, &[], &[], false);
    let prog = Program {
        argv: vec![
            "sh".into(),
            "-c".into(),
            "echo \"$A|$HOME\"; cat; yes | head -n 1".into(),
        ],
        cwd: d.project.clone(),
        env: vec![
            ("A".into(), "one".into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
        ],
        stdin: true,
    };
    let mut launched = LAUNCHER.launch(&pol, &prog).expect("launch");
    let mut input = launched.stdin.take().expect("stdin");
    std::io::Write::write_all(&mut input, b"piped\n").expect("write");
    drop(input);
    let mut out = String::new();
    launched.stdout.read_to_string(&mut out).expect("read");
    // `yes` dies of SIGPIPE (a program must not inherit Rust's ignored SIGPIPE).
    assert_eq!(out, "one|\npiped\ny\n");
    assert_eq!(launched.control.wait().expect("wait"), Some(0));
}

#[test]
fn the_program_holds_no_descriptor_but_its_streams() {
    let d = dirs();
    for policy in [Policy::unconfined(), workspace(&d, &[], &[], false)] {
        // `ls` itself opens the directory it lists: descriptor 3.
        let o = sh(&policy, &d.project, "ls /proc/self/fd | tr '\\n' ' '");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "0 1 2 3 ",
            "{}",
            text(&o)
        );
    }
}

#[test]
fn bad_requests_and_bad_helpers_are_errors() {
    let d = dirs();
    let o = sh(&Policy::unconfined(), &d.project, "exit 7");
    assert_eq!(o.status, Some(7));
    let o = sh(
        &workspace(&d, &[], &[], false),
        &d.project,
        "/no/such/program",
    );
    assert_eq!(o.status, Some(127), "{}", text(&o));
    let o = sh(
        &workspace(&d, &[], &[], false),
        &d.project.join("missing"),
        "true",
    );
    assert_eq!(o.status, Some(ward_sandbox::CONFINE_FAILED), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot enter"),
        "{}",
        text(&o)
    );
    // A server started with a setup it cannot read says so and stops.
    let o = std::process::Command::new(HELPER)
        .args([ward_sandbox::SERVE_ARG, "{not json"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(ward_sandbox::CONFINE_FAILED));
    // A helper that is not a sandbox server is refused, not trusted.
    let wrong = Launcher::new("/bin/true".into());
    let e = wrong
        .launch(&Policy::unconfined(), &program(&d.project, "true"))
        .err()
        .expect("a wrong helper must fail");
    assert!(
        e.to_string().contains("did not start as a sandbox server"),
        "{e}"
    );
}

#[test]
fn the_kernel_supports_the_sandbox_here() {
    let s = ward_sandbox::probe();
    assert!(s.sufficient(), "{s:?}");
}
