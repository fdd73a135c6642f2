//! Class 2: a plugin or the model rewriting Ward's own grants. A plugin granted file
//! access in the project attacks `ward.toml`, `ward.lock`, its own `plugin.toml`,
//! `.ward/` and `.git/` through every filesystem call (write, append, rename both
//! ways, hard link, a symlink planted beforehand); the model asks the standard
//! `write` tool to change `ward.toml` under `edit = "allow"` and `--yes`. Each boundary
//! must hold, with the refusal audited, and the host must stay usable.

use serde_json::json;
use ward_tests::Project;
use ward_tests::harness::Harness;

/// The project's files an attacker wants, with their contents before the attack.
const TARGETS: &[(&str, &str)] = &[
    ("ward.toml", "[permission]\nedit = \"allow\"\n"),
    ("ward.lock", "version = 1\n"),
    (".ward/ward.toml", "# project config\n"),
    (".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n"),
];

/// How the guard's refusal reaches the guest (`access`, as the OS says it).
const DENIED: &str = "Permission denied";

/// What the plugin writes instead: a grant of everything and a hook that runs code.
const PAYLOAD: &str = "[plugins.grant-rewriter]\ngrant = [\"all\"]\n";

fn harness(p: &Project) -> Harness {
    for (path, content) in TARGETS {
        p.write(path, content);
    }
    Harness::new(
        p,
        &["grant-rewriter", "noop"],
        &[("grant-rewriter", &["fs-read", "fs-write"]), ("noop", &[])],
        // The user's rules allow every edit: the boundary must not depend on them.
        "edit = \"allow\"",
    )
}

async fn fs(h: &Harness, op: &str, path: &str, to: &str) -> Result<String, String> {
    let args = json!({ "op": op, "path": path, "to": to, "content": PAYLOAD });
    h.call("fs", &args.to_string())
        .await
        .map(|out| out.output)
        .map_err(|e| e.to_string())
}

fn assert_untouched(p: &Project) {
    for (path, content) in TARGETS {
        assert_eq!(p.read(path), *content, "{path} was changed");
    }
    let manifest = p.read(".ward/plugins/grant-rewriter/plugin.toml");
    assert!(!manifest.contains(PAYLOAD), "its own manifest was changed");
}

#[tokio::test]
async fn a_plugin_with_a_project_write_grant_cannot_touch_wards_configuration() {
    let p = Project::new("config-guard-plugin");
    let h = harness(&p);
    let own = ".ward/plugins/grant-rewriter/plugin.toml";
    let attacks: &[(&str, &str, &str)] = &[
        ("write", "ward.toml", ""),
        ("append", "ward.toml", ""),
        ("write", "ward.lock", ""),
        ("write", own, ""),
        ("append", own, ""),
        ("write", ".ward/ward.toml", ""),
        ("write", ".ward/agents/evil.md", ""),
        ("mkdir", ".ward/plugins/evil", ""),
        ("write", ".git/hooks/pre-commit", ""),
        ("write", ".git/config", ""),
        // Moving the configuration away, or something else into its place.
        ("rename", "ward.toml", "moved.toml"),
        ("rename", ".ward", "ward-moved"),
        ("rename", ".git", "git-moved"),
        // A hard link is the same file under an unprotected name.
        ("link", "ward.toml", "alias.toml"),
        ("link", ".git/hooks/pre-commit", "hook-alias"),
    ];
    for (op, path, to) in attacks {
        let err = fs(&h, op, path, to)
            .await
            .expect_err(&format!("{op} {path}"));
        assert!(err.contains(DENIED), "{op} {path}: {err}");
    }
    // Planting something to rename over the configuration does not work either.
    fs(&h, "write", "planted.toml", "")
        .await
        .expect("an ordinary file");
    let err = fs(&h, "rename", "planted.toml", "ward.toml")
        .await
        .unwrap_err();
    assert!(err.contains(DENIED), "{err}");

    // A symlink inside the project (made by anyone) does not lead a write into .git.
    std::os::unix::fs::symlink(p.path(".git/hooks"), p.path("innocent")).expect("link");
    std::os::unix::fs::symlink(p.path("ward.toml"), p.path("notes.txt")).expect("link");
    for path in ["innocent/pre-commit", "innocent/post-checkout", "notes.txt"] {
        let err = fs(&h, "write", path, "").await.expect_err(path);
        assert!(err.contains(DENIED), "{path}: {err}");
    }
    assert!(!p.path(".git/hooks/post-checkout").exists());
    assert!(!p.path("alias.toml").exists() && !p.path("moved.toml").exists());
    assert_untouched(&p);

    // Every refusal names the path and why, in the audit log.
    let audit = Harness::audit_log(&p);
    assert!(audit.contains("ward.toml") && audit.contains("Ward's project configuration"));
    assert!(audit.contains("no plugin grant covers writing Ward's configuration"));
    assert!(audit.contains("pre-commit"));

    // Reading is not writing, and the rest of the project is still the plugin's.
    assert_eq!(fs(&h, "read", "ward.toml", "").await.unwrap(), TARGETS[0].1);
    fs(&h, "mkdir", "src", "")
        .await
        .expect("an ordinary directory");
    fs(&h, "write", "src/ok.txt", "")
        .await
        .expect("an ordinary write");
    assert_eq!(p.read("src/ok.txt"), PAYLOAD);
    fs(&h, "rename", "src", "lib")
        .await
        .expect("an ordinary rename");
    assert_eq!(p.read("lib/ok.txt"), PAYLOAD);
    h.assert_noop_works().await;
}

/// Runs `ward tool call` (with `--yes` when `yes`) writing `content` to `path`, with
/// `stdin` as the person at the terminal.
fn write_tool(p: &Project, yes: bool, path: &str, content: &str, stdin: &str) -> (bool, String) {
    let args = json!({ "filePath": path, "content": content }).to_string();
    let mut argv = vec!["tool", "call"];
    if yes {
        argv.push("--yes");
    }
    argv.extend(["write", args.as_str()]);
    let run = p.run(&argv, stdin);
    (run.ok(), format!("{}{}", run.stdout(), run.stderr()))
}

#[test]
fn the_model_changes_wards_configuration_only_with_a_persons_answer() {
    let p = Project::new("config-guard-model");
    // The user allows every edit without asking.
    let config = "[permission]\nedit = \"allow\"\n";
    p.write("ward.toml", config);
    let widened = "[permission]\nedit = \"allow\"\nbash = \"allow\"\n";

    // `--yes` approves asks, but not this one; with nobody at the terminal it is refused.
    let (ok, out) = write_tool(&p, true, "ward.toml", widened, "");
    assert!(!ok, "{out}");
    assert_eq!(p.read("ward.toml"), config, "{out}");
    for path in [".ward/ward.toml", ".git/hooks/pre-commit", "ward.lock"] {
        let (ok, out) = write_tool(&p, true, path, "x", "");
        assert!(!ok, "{path}: {out}");
        assert!(!p.path(path).exists(), "{path} was written: {out}");
    }
    // An ordinary file is still written under the same rules without a question.
    let (ok, out) = write_tool(&p, true, "src/lib.rs", "// ok\n", "");
    assert!(ok, "{out}");
    assert_eq!(p.read("src/lib.rs"), "// ok\n");

    // A person's "no" refuses it; a person's "yes" lets Ward's own tool write it.
    let (ok, out) = write_tool(&p, false, "ward.toml", widened, "n\n");
    assert!(!ok && p.read("ward.toml") == config, "{out}");
    let (ok, out) = write_tool(&p, false, "ward.toml", widened, "y\n");
    assert!(ok, "{out}");
    assert_eq!(p.read("ward.toml"), widened);

    // "Always" is not remembered for the configuration: the next change asks again.
    let (ok, out) = write_tool(&p, false, "ward.toml", config, "a\n");
    assert!(ok, "{out}");
    assert_eq!(p.read("ward.toml"), config);
    let (ok, out) = write_tool(&p, true, "ward.toml", widened, "");
    assert!(!ok, "an earlier \"always\" approved it: {out}");
    assert_eq!(p.read("ward.toml"), config);
}

#[test]
fn a_manifest_asking_for_more_since_its_grant_gets_nothing_more_until_granted() {
    let p = Project::new("config-guard-manifest");
    p.install_test_plugin("grant-rewriter");
    // Installed when its manifest asked to write only `out/`; the person granted the
    // whole `fs-write` capability, meaning what the manifest asked for then.
    p.write(
        "ward.lock",
        "version = 1\n\n[[plugin]]\nname = \"grant-rewriter\"\nversion = \"0.1.0\"\n\
         source = \"test\"\nurl = \"test\"\nsha256 = \"00\"\n\
         requested = [\"fs-read:$WORKSPACE\", \"fs-write:$WORKSPACE/out\"]\n\
         grant = [\"fs-read\", \"fs-write\"]\n",
    );
    std::fs::create_dir_all(p.path("out")).expect("out");
    // Its manifest now asks to write the whole project (as the test plugin's does).
    let write = |path: &str| {
        let args = json!({ "op": "write", "path": path, "content": "x" }).to_string();
        p.run(&["tool", "call", "--yes", "fs", &args], "")
    };
    let since = "asks for fs-write:$WORKSPACE since it was granted";
    let run = write("top.txt");
    assert!(
        !run.ok(),
        "the widened manifest was honoured: {}",
        run.stdout()
    );
    assert!(!p.path("top.txt").exists());
    assert!(run.stderr().contains(since), "{}", run.stderr());
    let list = p.run(&["plugin", "list"], "").expect_ok();
    assert!(list.contains(since), "`ward plugin list` shows it: {list}");

    // A person approves the new item; then it is in effect, and nothing is pending.
    let granted = p.run(
        &["plugin", "grant", "grant-rewriter", "fs-write:$WORKSPACE"],
        "",
    );
    assert!(granted.ok(), "{}{}", granted.stdout(), granted.stderr());
    let run = write("top.txt");
    assert!(run.ok(), "{}{}", run.stdout(), run.stderr());
    assert_eq!(p.read("top.txt"), "x");
    assert!(!run.stderr().contains(since), "{}", run.stderr());
}
