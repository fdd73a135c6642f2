//! A local MCP server is a stranger's program: with no grant, the probe server cannot
//! read a secret under the user's home (`.ssh`), another project or the project's
//! `.env`, write outside the project, open a network connection or see Ward's
//! environment — while the npm servers beside it still work. A `net` grant turns
//! the network on.

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use ward_tests::Project;

use super::*;

/// A listener on 127.0.0.1 that records whether anything connected.
fn listener() -> (u16, Arc<AtomicBool>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let hit = Arc::new(AtomicBool::new(false));
    let seen = hit.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            if conn.is_ok() {
                seen.store(true, Ordering::SeqCst);
            }
        }
    });
    (port, hit)
}

#[test]
fn without_grants_a_server_reaches_only_its_own() {
    let p = Project::new("mcp-confined");
    let secret = p.home.join(".ssh/id_ed25519");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "PRIVATE-KEY-MATERIAL").unwrap();
    let other = p.home.join("other-project/src/main.rs");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "OTHER-PROJECT-CODE").unwrap();
    p.write(".env", "API_KEY=DOTENV-SECRET\n");
    let outside = p.home.join("outside.txt");
    let (port, hit) = listener();

    let everything = npm_server("server-everything");
    let filesystem = npm_server("server-filesystem");
    append_config(
        &p,
        &format!(
            "{}{}{}",
            local(
                "probe",
                &[&fixture("probe_server.mjs")],
                "environment = { GIVEN = \"given-value\" }"
            ),
            local("everything", &[&everything, "stdio"], ""),
            local("fs", &[&filesystem, p.root.to_str().unwrap()], ""),
        ),
    );

    let read = |path: &std::path::Path| tool_call(&p, "probe_read_file", json!({"path": path}));
    let (_, out) = read(&secret);
    assert!(!out.contains("PRIVATE-KEY-MATERIAL"), "{out}");
    assert!(out.contains("error: "), "{out}");
    let (_, out) = read(&other);
    assert!(
        !out.contains("OTHER-PROJECT-CODE") && out.contains("error: "),
        "{out}"
    );
    let (_, out) = read(&p.path(".env"));
    assert!(!out.contains("DOTENV-SECRET"), "{out}");

    let (_, out) = tool_call(
        &p,
        "probe_write_file",
        json!({"path": outside, "content": "escaped"}),
    );
    assert!(out.contains("error: "), "{out}");
    assert!(!outside.exists(), "nothing was written outside the project");
    let (ok, out) = tool_call(
        &p,
        "probe_write_file",
        json!({"path": p.path("inside.txt"), "content": "inside"}),
    );
    assert!(ok && out.contains("written"), "{out}");
    assert_eq!(p.read("inside.txt"), "inside");

    let (_, out) = tool_call(&p, "probe_connect", json!({"port": port}));
    assert!(out.contains("error: "), "{out}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !hit.load(Ordering::SeqCst),
        "no connection reached the listener"
    );

    let mut env_call = p.ward();
    env_call.env("WARD_TEST_LEAK", "leaked-value").args([
        "tool",
        "call",
        "--yes",
        "probe_env",
        "{}",
    ]);
    let env = String::from_utf8(env_call.output().unwrap().stdout).unwrap();
    assert!(env.contains("given-value"), "`environment` is set: {env}");
    assert!(
        !env.contains("leaked-value"),
        "Ward's environment is not inherited: {env}"
    );
    assert!(
        !env.contains(p.home.to_str().unwrap()),
        "HOME is private: {env}"
    );

    // The npm servers work under the same default.
    let (ok, out) = tool_call(&p, "everything_echo", json!({"message": "confined"}));
    assert!(ok && out.contains("Echo: confined"), "{out}");
    p.write("listed/a.txt", "a");
    let (ok, out) = tool_call(&p, "fs_list_directory", json!({"path": p.path("listed")}));
    assert!(ok && out.contains("a.txt"), "{out}");
}

/// A file named on the command line is not an installation: naming one in another
/// project (or a script kept straight in the home directory) must not open that
/// file's whole directory, or the home, to the server.
#[test]
fn a_file_argument_opens_no_directory_of_its_own() {
    let p = Project::new("mcp-file-arguments");
    let named = p.home.join("other-project/notes.txt");
    std::fs::create_dir_all(named.parent().unwrap()).unwrap();
    std::fs::write(&named, "NAMED-FILE").unwrap();
    let sibling = p.home.join("other-project/secret.txt");
    std::fs::write(&sibling, "SIBLING-SECRET").unwrap();
    let in_home = p.home.join("diary.txt");
    std::fs::write(&in_home, "HOME-DIARY").unwrap();
    // The probe kept straight in the home directory: it runs, and the home stays shut.
    let script = p.home.join("probe_server.mjs");
    std::fs::copy(fixture("probe_server.mjs"), &script).unwrap();
    append_config(
        &p,
        &local(
            "probe",
            &[script.to_str().unwrap(), named.to_str().unwrap()],
            "",
        ),
    );

    let read = |path: &std::path::Path| tool_call(&p, "probe_read_file", json!({"path": path}));
    let (_, out) = read(&sibling);
    assert!(
        !out.contains("SIBLING-SECRET") && out.contains("error: "),
        "{out}"
    );
    let (_, out) = read(&in_home);
    assert!(
        !out.contains("HOME-DIARY") && out.contains("error: "),
        "{out}"
    );
    // The server itself still works.
    p.write("inside.txt", "INSIDE");
    let (ok, out) = read(&p.path("inside.txt"));
    assert!(ok && out.contains("INSIDE"), "{out}");
}

#[test]
fn a_net_grant_lets_the_connection_through() {
    let p = Project::new("mcp-net-grant");
    let (port, hit) = listener();
    append_config(
        &p,
        &local(
            "probe",
            &[&fixture("probe_server.mjs")],
            "grant = [\"net\"]",
        ),
    );
    let (ok, out) = tool_call(&p, "probe_connect", json!({"port": port}));
    assert!(ok && out.contains("connected"), "{out}");
    assert!(hit.load(Ordering::SeqCst));
}
