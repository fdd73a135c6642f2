//! Ward's private state against real processes: a launcher hiding a data directory
//! keeps it from every program it starts — beneath a directory the program was granted
//! (read or write), beneath everything a command may read, and from a program that
//! makes namespaces of its own — while a path the policy shows stays readable and
//! read-only, and Ward's secrets never reach a program's environment.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

use std::io::Read;
use std::path::{Path, PathBuf};

use ward_sandbox::{Launcher, Mode, Policy, Private, Program};

const HELPER: &str = env!("CARGO_BIN_EXE_ward-sandbox");

struct Output {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(launcher: &Launcher, policy: &Policy, cwd: &Path, script: &str) -> Output {
    let program = Program {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        cwd: cwd.to_path_buf(),
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("WARD_SERVER_TOKEN".into(), "TOKEN-IN-ENV".into()),
            ("KEPT".into(), "kept-value".into()),
        ],
        stdin: false,
    };
    let mut launched = launcher.launch(policy, &program).expect("launch");
    let mut err_pipe = launched.stderr;
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    launched.stdout.read_to_string(&mut stdout).expect("stdout");
    let stderr = err.join().expect("stderr");
    let status = launched.control.wait().expect("status");
    Output {
        status,
        stdout,
        stderr,
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status, o.stdout, o.stderr
    )
}

/// A home with a data directory under `.local`, as Ward has by default, and a project.
struct Home {
    _root: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
    project: PathBuf,
    temp: PathBuf,
}

fn home() -> Home {
    let root = tempfile::tempdir().expect("tempdir");
    let base = root.path().canonicalize().expect("canonical");
    let home = base.join("home");
    let data = home.join(".local/share/ward");
    let project = home.join("project");
    let temp = base.join("tmp");
    for d in [
        &data.join("server"),
        &data.join("tool-output"),
        &project,
        &temp,
    ] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::fs::write(data.join("server/token"), "SERVER-TOKEN").expect("write");
    std::fs::write(data.join("ward.db"), "DATABASE").expect("write");
    std::fs::write(data.join("tool-output/tool_1.txt"), "SAVED-OUTPUT").expect("write");
    std::fs::write(home.join(".local/other.txt"), "OTHER").expect("write");
    Home {
        _root: root,
        home,
        data,
        project,
        temp,
    }
}

fn launcher(h: &Home) -> Launcher {
    Launcher::new(HELPER.into()).hiding(Private {
        hidden: vec![h.data.clone()],
        env: vec!["WARD_SERVER_TOKEN".into()],
    })
}

/// What a program sees of the data directory.
fn probe(h: &Home) -> String {
    format!(
        "cat '{0}/server/token'; cat '{0}/ward.db'; ls -A '{0}'; echo end",
        h.data.display()
    )
}

fn assert_hidden(o: &Output) {
    assert!(
        !o.stdout.contains("SERVER-TOKEN") && !o.stdout.contains("DATABASE"),
        "{}",
        text(o)
    );
    // Not even the names: at most a path the policy shows is there to pass through.
    assert!(
        !o.stdout.contains("server") && !o.stdout.contains("ward.db"),
        "listed: {}",
        text(o)
    );
    assert!(o.stdout.ends_with("end\n"), "{}", text(o));
}

#[test]
fn the_data_directory_is_hidden_even_beneath_a_granted_directory() {
    let h = home();
    let launcher = launcher(&h);
    let local = h.home.join(".local");
    // The attack: a plugin or MCP server granted `fs-read:~/.local`.
    let granted = Policy::for_plugin(std::slice::from_ref(&local), &[], &[], false);
    let o = run(&launcher, &granted, &h.project, &probe(&h));
    assert_hidden(&o);
    let o = run(
        &launcher,
        &granted,
        &h.project,
        &format!("cat '{}/other.txt'", local.display()),
    );
    assert_eq!(o.stdout, "OTHER", "the grant still works: {}", text(&o));

    // Granted writing there too: nothing beneath the data directory moves or changes.
    let writer = Policy::for_plugin(
        std::slice::from_ref(&local),
        std::slice::from_ref(&local),
        &[],
        false,
    );
    let o = run(
        &launcher,
        &writer,
        &h.project,
        &format!(
            "echo forged > '{0}/server/token'; rm -rf '{0}'; mv '{0}' '{0}.moved'; \
             touch '{0}/planted'; echo end",
            h.data.display()
        ),
    );
    assert!(o.stdout.ends_with("end\n"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(h.data.join("server/token")).expect("token"),
        "SERVER-TOKEN"
    );
    assert!(h.data.join("ward.db").exists() && !h.data.join("planted").exists());

    // A command reading everywhere, as the `bash` tool's do.
    let commands = Policy::for_commands(
        Mode::WorkspaceWrite,
        &h.project,
        &h.temp,
        &[],
        &[],
        &[],
        false,
    );
    let o = run(&launcher, &commands, &h.project, &probe(&h));
    assert_hidden(&o);
}

#[test]
fn a_program_with_namespaces_of_its_own_cannot_uncover_it() {
    let h = home();
    let launcher = launcher(&h);
    let commands = Policy::for_commands(
        Mode::WorkspaceWrite,
        &h.project,
        &h.temp,
        &[],
        &[],
        &[],
        false,
    );
    if !Path::new("/usr/bin/unshare").exists() {
        eprintln!("no unshare(1) here: skipped");
        return;
    }
    let o = run(
        &launcher,
        &commands,
        &h.project,
        &format!(
            "unshare -Urm sh -c \"umount -l '{0}'; cat '{0}/server/token'\"; \
             umount -l '{0}'; cat '{0}/server/token'; echo end",
            h.data.display()
        ),
    );
    assert!(!o.stdout.contains("SERVER-TOKEN"), "{}", text(&o));
    assert!(o.stdout.ends_with("end\n"), "{}", text(&o));
}

#[test]
fn a_path_the_policy_keeps_read_only_is_shown_through_the_stand_in() {
    let h = home();
    let launcher = launcher(&h);
    let saved = h.data.join("tool-output");
    let commands = Policy::for_commands(
        Mode::WorkspaceWrite,
        &h.project,
        &h.temp,
        &[],
        std::slice::from_ref(&saved),
        &[],
        false,
    );
    let o = run(
        &launcher,
        &commands,
        &h.project,
        &format!("cat '{}/tool_1.txt'", saved.display()),
    );
    assert_eq!(o.stdout, "SAVED-OUTPUT", "{}", text(&o));
    let o = run(
        &launcher,
        &commands,
        &h.project,
        &format!(
            "echo x > '{0}/tool_1.txt'; touch '{0}/new.txt'; echo end",
            saved.display()
        ),
    );
    assert!(o.stdout.ends_with("end\n"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(saved.join("tool_1.txt")).expect("read"),
        "SAVED-OUTPUT"
    );
    assert!(!saved.join("new.txt").exists());
    // Everything else in the data directory stays hidden, its names too.
    let o = run(&launcher, &commands, &h.project, &probe(&h));
    assert_hidden(&o);
    // A plugin's process, not granted the data directory, does not read it either.
    let plugin = Policy::for_plugin(&[], &[], std::slice::from_ref(&saved), false);
    let o = run(
        &launcher,
        &plugin,
        &h.project,
        &format!("cat '{}/tool_1.txt'", saved.display()),
    );
    assert!(!o.stdout.contains("SAVED-OUTPUT"), "{}", text(&o));
}

#[test]
fn wards_secrets_never_reach_a_programs_environment() {
    let h = home();
    let launcher = launcher(&h);
    for policy in [
        Policy::unconfined(),
        Policy::for_plugin(&[], &[], &[], false),
    ] {
        let o = run(&launcher, &policy, &h.project, "env");
        assert!(!o.stdout.contains("TOKEN-IN-ENV"), "{}", text(&o));
        assert!(o.stdout.contains("KEPT=kept-value"), "{}", text(&o));
    }
    // A launcher hiding nothing passes what it is given (the spawner decides).
    let plain = Launcher::new(HELPER.into());
    let o = run(&plain, &Policy::unconfined(), &h.project, "env");
    assert!(o.stdout.contains("TOKEN-IN-ENV"), "{}", text(&o));
}
