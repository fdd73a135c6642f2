//! Real MCP servers in the real sandbox, through `McpClients` as Ward runs them: a
//! file named in a server's arguments opens that file only; a command installed
//! under `~/.local/bin` (npm's and pipx's layouts) or `node_modules/.bin` opens its
//! own package, not the prefix or project around it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is how a test fails"
)]

mod common;

use std::path::Path;

use serde_json::json;

use common::*;

fn main() {
    run(&[
        (
            "a_file_argument_opens_only_that_file",
            a_file_argument_opens_only_that_file,
        ),
        (
            "a_local_bin_npm_command_opens_its_package",
            a_local_bin_npm_command_opens_its_package,
        ),
        (
            "a_local_bin_pipx_command_opens_its_environment",
            a_local_bin_pipx_command_opens_its_environment,
        ),
        (
            "a_node_modules_bin_command_opens_its_package",
            a_node_modules_bin_command_opens_its_package,
        ),
        (
            "installed_npm_servers_run_on_their_package_alone",
            installed_npm_servers_run_on_their_package_alone,
        ),
    ]);
}

/// Asserts the server offered as `read` cannot read `path` (and says why).
async fn shut(clients: &ward_mcp_client::McpClients, project: &Path, read: &str, path: &Path) {
    let out = call(clients, project, read, json!({"path": path})).await;
    assert!(
        out.starts_with("error: "),
        "{} was readable: {out}",
        path.display()
    );
}

/// Asserts the server offered as `read` reads `text` from `path`.
async fn open(
    clients: &ward_mcp_client::McpClients,
    project: &Path,
    read: &str,
    path: &Path,
    text: &str,
) {
    let out = call(clients, project, read, json!({"path": path})).await;
    assert_eq!(out, text, "{}", path.display());
}

fn a_file_argument_opens_only_that_file() {
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let project = t.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let script = t.join("scripts/server.py");
    write(&script, SERVER_PY);
    write(&t.join("scripts/beside.txt"), "BESIDE-SCRIPT");
    // A file in another project, which has a package root of its own.
    write(&t.join("other/package.json"), "{}");
    let named = t.join("other/src/notes.txt");
    write(&named, "NAMED");
    write(&t.join("other/src/secret.txt"), "SIBLING");
    let python = python();
    let command = [
        python.to_str().unwrap(),
        script.to_str().unwrap(),
        "probe",
        "read",
        named.to_str().unwrap(),
    ];
    let clients = clients(&project, &[("probe", local(&command))]);
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        open(&clients, &project, "probe_read", &named, "NAMED").await;
        shut(
            &clients,
            &project,
            "probe_read",
            &t.join("other/src/secret.txt"),
        )
        .await;
        shut(
            &clients,
            &project,
            "probe_read",
            &t.join("other/package.json"),
        )
        .await;
        shut(
            &clients,
            &project,
            "probe_read",
            &t.join("scripts/beside.txt"),
        )
        .await;
        write(&project.join("inside.txt"), "INSIDE");
        open(
            &clients,
            &project,
            "probe_read",
            &project.join("inside.txt"),
            "INSIDE",
        )
        .await;
    });
}

/// A fake home with Ward's state and another package in its `~/.local`.
fn local_prefix(home: &Path) {
    write(&home.join(".local/share/ward/server.token"), "WARD-TOKEN");
    write(
        &home.join(".local/lib/node_modules/other/index.js"),
        "OTHER",
    );
    write(
        &home.join(".local/bin/other-tool"),
        "#!/bin/sh\necho OTHER-TOOL\n",
    );
}

fn a_local_bin_npm_command_opens_its_package() {
    let Some(shebang) = node_shebang() else {
        eprintln!("no node on PATH: skipped");
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let (home, project) = (t.join("home"), t.join("project"));
    std::fs::create_dir_all(&project).unwrap();
    local_prefix(&home);
    // `npm install -g srv` with prefix ~/.local: the package under lib/node_modules,
    // its dependency inside it, a link in bin.
    let package = home.join(".local/lib/node_modules/srv");
    write(
        &package.join("package.json"),
        r#"{"name":"srv","dependencies":{"dep":"1"}}"#,
    );
    write(&package.join("bin/srv.js"), &server_js(&shebang));
    let dep = package.join("node_modules/dep");
    write(
        &dep.join("package.json"),
        r#"{"name":"dep","main":"index.js"}"#,
    );
    write(
        &dep.join("index.js"),
        r#"module.exports = { word: "DEP-LOADED" };"#,
    );
    std::os::unix::fs::symlink(
        "../lib/node_modules/srv/bin/srv.js",
        home.join(".local/bin/srv"),
    )
    .unwrap();
    let command = home.join(".local/bin/srv");
    let clients = clients(&project, &[("srv", local(&[command.to_str().unwrap()]))]);
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            call(&clients, &project, "srv_dep", json!({})).await,
            "DEP-LOADED"
        );
        open(
            &clients,
            &project,
            "srv_read",
            &dep.join("index.js"),
            &std::fs::read_to_string(dep.join("index.js")).unwrap(),
        )
        .await;
        let local = home.join(".local");
        shut(
            &clients,
            &project,
            "srv_read",
            &local.join("share/ward/server.token"),
        )
        .await;
        shut(
            &clients,
            &project,
            "srv_read",
            &local.join("lib/node_modules/other/index.js"),
        )
        .await;
        shut(
            &clients,
            &project,
            "srv_read",
            &local.join("bin/other-tool"),
        )
        .await;
    });
}

fn a_local_bin_pipx_command_opens_its_environment() {
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let (home, project) = (t.join("home"), t.join("project"));
    std::fs::create_dir_all(&project).unwrap();
    local_prefix(&home);
    // `pipx install tool`: an environment of its own under ~/.local/share/pipx, its
    // interpreter a link to the one it was made from, a link in ~/.local/bin.
    let venv = home.join(".local/share/pipx/venvs/tool");
    let made = std::process::Command::new(python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|s| s.is_dir())
        .unwrap();
    write(&site.join("toolsrv.py"), SERVER_PY);
    write(
        &venv.join("bin/tool"),
        &format!(
            "#!{}\nimport runpy\nrunpy.run_module(\"toolsrv\", run_name=\"__main__\")\n",
            venv.join("bin/python").display()
        ),
    );
    write(
        &home.join(".local/share/pipx/venvs/other/secret.txt"),
        "OTHER-ENV",
    );
    std::os::unix::fs::symlink(
        "../share/pipx/venvs/tool/bin/tool",
        home.join(".local/bin/tool"),
    )
    .unwrap();
    let command = home.join(".local/bin/tool");
    let clients = clients(
        &project,
        &[(
            "tool",
            local(&[command.to_str().unwrap(), "tool", "read,hello"]),
        )],
    );
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            call(&clients, &project, "tool_hello", json!({})).await,
            "tool:hello"
        );
        open(
            &clients,
            &project,
            "tool_read",
            &site.join("toolsrv.py"),
            SERVER_PY,
        )
        .await;
        let local = home.join(".local");
        shut(
            &clients,
            &project,
            "tool_read",
            &local.join("share/ward/server.token"),
        )
        .await;
        shut(
            &clients,
            &project,
            "tool_read",
            &local.join("share/pipx/venvs/other/secret.txt"),
        )
        .await;
        shut(
            &clients,
            &project,
            "tool_read",
            &local.join("bin/other-tool"),
        )
        .await;
    });
}

fn a_node_modules_bin_command_opens_its_package() {
    let Some(shebang) = node_shebang() else {
        eprintln!("no node on PATH: skipped");
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let t = std::fs::canonicalize(t.path()).unwrap();
    let project = t.join("project");
    std::fs::create_dir_all(&project).unwrap();
    // Another directory's `npm install`: the dependency hoisted beside the package.
    let tools = t.join("tools");
    write(
        &tools.join("package.json"),
        r#"{"dependencies":{"srv":"1"}}"#,
    );
    write(&tools.join("notes.txt"), "TOOLS-NOTES");
    let modules = tools.join("node_modules");
    write(
        &modules.join("srv/package.json"),
        r#"{"name":"srv","dependencies":{"dep":"1"}}"#,
    );
    write(&modules.join("srv/bin/srv.js"), &server_js(&shebang));
    write(
        &modules.join("dep/package.json"),
        r#"{"name":"dep","main":"index.js"}"#,
    );
    write(
        &modules.join("dep/index.js"),
        r#"module.exports = { word: "HOISTED" };"#,
    );
    write(&modules.join("unrelated/index.js"), "UNRELATED");
    write(&modules.join(".cache/build.json"), "CACHED");
    std::fs::create_dir_all(modules.join(".bin")).unwrap();
    std::os::unix::fs::symlink("../srv/bin/srv.js", modules.join(".bin/srv")).unwrap();
    let command = modules.join(".bin/srv");
    let clients = clients(&project, &[("srv", local(&[command.to_str().unwrap()]))]);
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            call(&clients, &project, "srv_dep", json!({})).await,
            "HOISTED"
        );
        shut(&clients, &project, "srv_read", &tools.join("notes.txt")).await;
        shut(
            &clients,
            &project,
            "srv_read",
            &modules.join("unrelated/index.js"),
        )
        .await;
        shut(
            &clients,
            &project,
            "srv_read",
            &modules.join(".cache/build.json"),
        )
        .await;
    });
}

/// The npm servers the end-to-end tests run (`scripts/setup.sh` installs them), named
/// as `node …/dist/index.js`: the package and its dependencies open, resolved from its
/// `package.json` through the hoisted `node_modules`, are all they need.
fn installed_npm_servers_run_on_their_package_alone() {
    let Some(node) = on_path("node") else {
        eprintln!("no node on PATH: skipped");
        return;
    };
    let scoped = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/clients/mcp-servers/node_modules/@modelcontextprotocol");
    let everything = scoped.join("server-everything/dist/index.js");
    let filesystem = scoped.join("server-filesystem/dist/index.js");
    if !everything.is_file() || !filesystem.is_file() {
        eprintln!("the npm test servers are not installed (scripts/setup.sh): skipped");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(t.path()).unwrap();
    let (node, everything) = (node.to_str().unwrap(), everything.to_str().unwrap());
    let (filesystem, root) = (filesystem.to_str().unwrap(), project.to_str().unwrap());
    let clients = clients(
        &project,
        &[
            ("everything", local(&[node, everything, "stdio"])),
            ("fs", local(&[node, filesystem, root])),
        ],
    );
    runtime().block_on(async {
        let warnings = clients.ready().await;
        assert!(warnings.is_empty(), "{warnings:?}");
        let out = call(
            &clients,
            &project,
            "everything_echo",
            json!({"message": "hi"}),
        )
        .await;
        assert!(out.contains("Echo: hi"), "{out}");
        write(&project.join("listed/a.txt"), "a");
        let path = project.join("listed");
        let out = call(
            &clients,
            &project,
            "fs_list_directory",
            json!({"path": path}),
        )
        .await;
        assert!(out.contains("a.txt"), "{out}");
    });
}
