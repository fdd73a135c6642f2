//! Limits that must add up: one memory budget for all of a component's linear memories,
//! per-call budgets for what a plugin writes to the host's log and progress channel, and
//! argument checking that a hostile schema or hostile arguments cannot turn into minutes
//! of host CPU before the sandboxed call even starts.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ward_plugin::{CallError, CallScope, LoadError, PluginHost, ProgressSink};
use ward_session::ToolBox;
use ward_tests::Project;
use ward_tests::harness::Harness;

/// The hand-written component with four linear memories (see the file's comment).
const MULTI_MEMORY: &str = include_str!("limits/multi_memory.wat");

/// A WebAssembly page.
const PAGE: u32 = 64 << 10;

/// Writes the multi-memory component as plugin `name` into `project` (64 MiB limit):
/// each extra memory starts at `initial` pages and its tool grows all four memories by
/// `grow` pages each.
fn install_multi_memory(project: &Project, name: &str, initial: u32, grow: u32) {
    let text = MULTI_MEMORY
        .replace("MEM_PAGES", &initial.to_string())
        .replace("GROW_PAGES", &grow.to_string());
    let bytes = wat::parse_str(&text).expect("the multi-memory component assembles");
    let dir = project.path(&format!(".ward/plugins/{name}"));
    std::fs::create_dir_all(&dir).expect("plugin dir");
    std::fs::write(dir.join("breaker.wasm"), bytes).expect("component");
    let manifest = format!(
        "[plugin]\nname = \"{name}\"\nversion = \"0.1.0\"\napi = \"0.1.0\"\n\
         description = \"four memories\"\nkinds = [\"tool\"]\ncomponent = \"breaker.wasm\"\n\n\
         [limits]\nmemory-mib = 64\ntime-ms = 2000\n"
    );
    std::fs::write(dir.join("plugin.toml"), manifest).expect("manifest");
}

fn plugin<'a>(host: &'a PluginHost, name: &str) -> &'a ward_plugin::Plugin {
    host.plugins()
        .iter()
        .find(|p| p.name() == name)
        .expect("plugin discovered")
}

#[tokio::test]
async fn four_memories_share_one_memory_limit() {
    let p = Project::new("limits-memories");
    // 24 MiB per memory: under the 64 MiB limit one by one, 96 MiB together.
    let grow = (24 << 20) / PAGE;
    install_multi_memory(&p, "memories", 1, grow);
    // The same component growing 4 MiB per memory: it works, so what stops the big one
    // is the limit and nothing else.
    install_multi_memory(&p, "memories-small", 1, (4 << 20) / PAGE);
    let h = Harness::new(&p, &["noop"], &[], "");

    let small = plugin(&h.host, "memories-small");
    let out = h
        .host
        .call(small, "grow", "{}", h.scope.clone())
        .await
        .expect("16 MiB across four memories is within the limit");
    assert_eq!(out.output, "ok");

    let big = plugin(&h.host, "memories");
    let err = h
        .host
        .call(big, "grow", "{}", h.scope.clone())
        .await
        .expect_err("96 MiB across four memories is over the 64 MiB limit");
    assert!(matches!(err, CallError::Memory { mib: 64, .. }), "{err}");
    h.assert_noop_works().await;
}

#[tokio::test]
async fn memories_declared_at_instantiation_count_too() {
    let p = Project::new("limits-initial");
    // Three extra memories of 24 MiB each, all declared up front: 72 MiB before the
    // component runs a single instruction.
    install_multi_memory(&p, "initial", (24 << 20) / PAGE, 0);
    let h = Harness::new(&p, &["noop"], &[], "");
    let err = h
        .host
        .tools_of(plugin(&h.host, "initial"))
        .await
        .expect_err("the component cannot even be instantiated");
    assert!(
        matches!(
            &err,
            CallError::Load { reason: LoadError::Instantiate(trap), .. } if trap.contains("memory")
        ),
        "{err}"
    );
    h.assert_noop_works().await;
}

#[test]
fn a_log_flood_leaves_a_bounded_log() {
    let p = Project::new("limits-log");
    p.install_test_plugin("limit-breaker");
    p.install_test_plugin("noop");
    let start = Instant::now();
    let out = p
        .ward()
        .env("WARD_LOG", "ward_plugin=trace")
        .args(["tool", "call", "log_flood", "{}"])
        .output()
        .expect("run ward");
    let took = start.elapsed();
    let run = ward_tests::Run(out);
    let log = run.stderr();
    // The call runs for its whole second, logging 64 KiB lines as fast as it can; the
    // host keeps 64 KiB of it (lines cut at 4 KiB) plus the notes saying what it dropped.
    assert!(log.len() < 128 << 10, "the log grew to {} bytes", log.len());
    assert!(log.contains("log lines dropped"), "{log}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // The host is still fine.
    let ok = p.run(&["tool", "call", "noop", "{}"], "").expect_ok();
    assert!(ok.contains("ok"), "{ok}");
}

#[tokio::test]
async fn a_progress_flood_is_coalesced_and_capped() {
    let p = Project::new("limits-progress");
    let mut h = Harness::new(&p, &["limit-breaker", "noop"], &[], "");
    let updates = Arc::new(AtomicUsize::new(0));
    let largest = Arc::new(Mutex::new(0usize));
    let sink: ProgressSink = {
        let (updates, largest) = (updates.clone(), largest.clone());
        Arc::new(move |title: Option<String>, metadata: String| {
            updates.fetch_add(1, SeqCst);
            let size = title.map_or(0, |t| t.len()) + metadata.len();
            if let Ok(mut l) = largest.lock() {
                *l = (*l).max(size);
            }
        })
    };
    h.scope.progress = Some(sink);
    let start = Instant::now();
    let err = h.call("progress_flood", "{}").await.unwrap_err();
    let took = start.elapsed();
    assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    // Give a deferred, coalesced update time to land, then count.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let n = updates.load(SeqCst);
    // At most one update per 100 ms gets through, over a one-second call.
    let allowed = usize::try_from(took.as_millis() / 100).unwrap_or(usize::MAX) + 3;
    assert!(n >= 1, "no progress at all got through");
    assert!(n <= allowed, "{n} updates in {took:?}");
    let largest = *largest.lock().unwrap();
    assert!(
        largest <= 17 << 10,
        "an update of {largest} bytes got through"
    );
    h.assert_noop_works().await;
}

/// A toolbox over `plugins`, as the agent loop builds it, with the plugins that failed
/// to load and the scope to call under.
async fn toolbox(p: &Project, plugins: &[&str]) -> (ToolBox, Vec<(String, String)>, CallScope) {
    let Harness { host, scope } = Harness::new(p, plugins, &[], "");
    let (tools, failed) = ToolBox::load(Arc::new(host), &scope.rules).await;
    (tools, failed, scope)
}

#[tokio::test]
async fn an_exponential_schema_is_refused_at_load() {
    let p = Project::new("limits-schema");
    let (tools, failed, scope) = toolbox(&p, &["schema-bomb", "noop"]).await;
    let (_, reason) = failed
        .iter()
        .find(|(name, _)| name == "schema-bomb")
        .unwrap_or_else(|| panic!("the schema bomb loaded: {failed:?}"));
    assert!(reason.contains("bomb_schema"), "{reason}");
    assert!(reason.contains("schema"), "{reason}");
    assert!(!tools.names().iter().any(|n| n == "bomb_schema"));
    // Calling it anyway costs nothing: there is no such tool.
    let start = Instant::now();
    let bait = format!(r#"{{"x": "{}!"}}"#, "a".repeat(40));
    let err = tools
        .execute("bomb_schema", &bait, scope.clone(), &[])
        .await
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(2), "{err}");
    let ok = tools
        .execute("noop", "{}", scope.clone(), &[])
        .await
        .expect("the well-behaved plugin still works");
    assert_eq!(ok.output, "ok");
}

#[tokio::test]
async fn huge_or_deep_arguments_are_refused_before_checking() {
    let p = Project::new("limits-args");
    let (tools, failed, scope) = toolbox(&p, &["limit-breaker", "noop"]).await;
    assert!(failed.is_empty(), "{failed:?}");

    let fine = tools
        .execute(
            "take_anything",
            r#"{"data": [1, {"a": "b"}]}"#,
            scope.clone(),
            &[],
        )
        .await
        .expect("ordinary arguments pass");
    assert_eq!(fine.output, "taken");

    let start = Instant::now();
    let huge = format!(r#"{{"data": "{}"}}"#, "z".repeat(8 << 20));
    let err = tools
        .execute("take_anything", &huge, scope.clone(), &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("bytes"), "{err}");
    let deep = format!(
        r#"{{"data": {}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = tools
        .execute("take_anything", &deep, scope.clone(), &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("invalid arguments"), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );

    let ok = tools
        .execute("noop", "{}", scope.clone(), &[])
        .await
        .expect("the well-behaved plugin still works");
    assert_eq!(ok.output, "ok");
}
