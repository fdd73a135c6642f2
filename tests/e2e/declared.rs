//! A tool is what it declares, not what it is called: a third-party component whose
//! manifest says "I read the file my `path` names" is ruled, asked about, titled and
//! given nested instructions as Ward's own `read` is — and the same component without
//! that declaration is not. The component is the hostile test plugin's `read_path`,
//! whose manifest the test writes; nothing in the host knows its name.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn, tool_names};

/// The hostile plugin's manifest, granted only reading, with `declaration` after it.
fn manifest(declaration: &str) -> String {
    format!(
        "[plugin]\nname = \"hostile\"\nversion = \"0.1.0\"\napi = \"0.1.0\"\n\
         description = \"a third-party file reader\"\nkinds = [\"tool\"]\n\
         component = \"ward_test_hostile.wasm\"\n\n\
         [capabilities]\nfs-read = [\"$WORKSPACE\"]\n\n\
         [limits]\nmemory-mib = 64\ntime-ms = 5000\noutput-bytes = 1048576\n\n{declaration}"
    )
}

/// What `read` declares in its manifest, for a tool whose path argument is `path`.
const A_FILE_READER: &str =
    "[tools.read_path]\npath = \"path\"\naccess = \"read\"\npermission = \"read\"\n";

/// A project with the reader installed and declared as `declaration`, the model
/// scripted with `turns` and `rules` under `[permission]`.
async fn project(
    name: &str,
    declaration: &str,
    rules: &str,
    turns: Vec<Turn>,
) -> (Project, ScriptedLlm) {
    let p = Project::new(name);
    p.write("notes/a.txt", "alpha\n");
    p.write("notes/AGENTS.md", "NESTED-RULE: notes are append-only\n");
    let dir = p.install_test_plugin("hostile");
    std::fs::write(dir.join("plugin.toml"), manifest(declaration)).expect("manifest");
    let llm = ScriptedLlm::start(turns).await;
    llm.configure(&p, "openai-compatible");
    let toml = p.read("ward.toml");
    p.write(
        "ward.toml",
        &format!("{toml}[permission]\n{rules}\n[plugins.hostile]\ngrant = [\"fs-read\"]\n"),
    );
    (p, llm)
}

/// The JSON events `ward run --format json` printed.
fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_third_party_file_reader_is_ruled_asked_titled_and_instructed_as_read_is() {
    let (p, llm) = project(
        "declared-reader",
        A_FILE_READER,
        r#"read = { "*" = "allow", "notes/*" = "ask" }"#,
        Vec::new(),
    )
    .await;
    // The component reads absolute paths; the script is written once the project is.
    let file = p.path("notes/a.txt").display().to_string();
    llm.push([
        Turn::tool("r1", "read_path", json!({ "path": file })),
        Turn::text("DONE"),
    ]);
    let run = p
        .run_async(&["run", "--format", "json", "read the notes"], "y\n")
        .await;
    let stdout = run.expect_ok();
    let events = events(&stdout);

    // Ruled as `read`: the user's `read` rule for `notes/*` asked, once, about the
    // file by its path in the project, and the question names the file as OpenCode's
    // do (`metadata.filepath`), so every interface can show it.
    let asked: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "permission.asked")
        .map(|e| &e["properties"]["request"])
        .collect();
    assert_eq!(asked.len(), 1, "one question: {stdout}");
    assert_eq!(asked[0]["permission"], "read", "{stdout}");
    assert_eq!(asked[0]["patterns"], json!(["notes/a.txt"]), "{stdout}");
    assert_eq!(asked[0]["metadata"]["filepath"], file.as_str(), "{stdout}");

    // Titled by what it read while it runs and once it is done (the tool gives no
    // title of its own), and given the directory's AGENTS.md as `read` is.
    let states: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["type"] == "message.part.updated" && e["properties"]["part"]["tool"] == "read_path"
        })
        .map(|e| &e["properties"]["part"]["state"])
        .collect();
    let running = states
        .iter()
        .find(|s| s["status"] == "running")
        .unwrap_or_else(|| panic!("a running state: {stdout}"));
    assert_eq!(running["title"], file.as_str(), "{stdout}");
    let done = states
        .iter()
        .find(|s| s["status"] == "completed")
        .unwrap_or_else(|| panic!("the call completed: {stdout}"));
    assert_eq!(done["title"], file.as_str(), "{stdout}");
    let output = done["output"].as_str().unwrap_or_default();
    assert!(output.contains("alpha"), "{output}");
    assert!(
        output.contains("NESTED-RULE"),
        "nested instructions: {output}"
    );
    let second = &llm.requests()[1].body;
    assert!(second.to_string().contains("NESTED-RULE"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_of_read_takes_a_declared_reader_off_the_offer_and_only_a_declared_one() {
    let offered = |declaration: &'static str, name: &'static str| async move {
        let rules = "read = \"deny\"\nbash = \"deny\"";
        let (p, llm) = project(name, declaration, rules, vec![Turn::text("DONE")]).await;
        p.run_async(&["run", "hello"], "").await.expect_ok();
        tool_names(&llm.requests()[0].body)
    };
    // Declared a reader: switched off with `read`, its sibling tools still offered.
    let tools = offered(A_FILE_READER, "declared-off").await;
    assert!(!tools.contains(&"read".to_string()), "{tools:?}");
    assert!(!tools.contains(&"read_path".to_string()), "{tools:?}");
    assert!(tools.contains(&"hostile_noop".to_string()), "{tools:?}");
    // The same component declaring nothing is ruled by its own name.
    let tools = offered("", "undeclared-on").await;
    assert!(tools.contains(&"read_path".to_string()), "{tools:?}");
    // Declaring a permission its grants do not reach (`bash`: it may run no command)
    // gets it nothing: it is ruled by its own name, so the deny of `bash` does not
    // switch it off (and an allow of `bash` could not let it through either).
    let tools = offered(
        "[tools.read_path]\npath = \"path\"\naccess = \"read\"\npermission = \"bash\"\n",
        "declared-beyond-reach",
    )
    .await;
    assert!(tools.contains(&"read_path".to_string()), "{tools:?}");
}
