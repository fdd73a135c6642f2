//! Plugin-runtime benchmarks: the cost of a warm call, of a first call from the compiled
//! cache, of start-up with 50 plugins, and of the `read` and `grep` tools in the sandbox
//! against the very same tool code compiled natively into the host.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::{HostOptions, PluginHost};
use ward_sdk::Tool as _;
use ward_tests::Project;
use ward_tests::harness::Harness;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn warm_call(c: &mut Criterion) {
    let rt = runtime();
    let p = Project::new("bench-warm");
    let h = Harness::new(&p, &["noop"], &[], "");
    let plugin = rt.block_on(async {
        let (plugin, _) = h.host.find_tool("noop").await.expect("noop");
        h.host
            .call(&plugin, "noop", "{}", h.scope.clone())
            .await
            .expect("first call");
        plugin
    });
    c.bench_function("plugin/noop call, warm", |b| {
        b.to_async(&rt).iter(|| async {
            h.host
                .call(&plugin, "noop", "{}", h.scope.clone())
                .await
                .expect("call")
        })
    });
}

/// The same no-op through the whole path a call from the loop, `ward tool call` or
/// `ward mcp serve` takes (`ToolBox::execute`: name and argument checks, hooks,
/// permission rules, the call, truncation): the baseline `scripts/bench-mcp-serve.py`
/// measures the MCP layer against.
fn tool_box_call(c: &mut Criterion) {
    let rt = runtime();
    let p = Project::new("bench-toolbox");
    let h = Harness::new(&p, &["noop"], &[], "");
    let host = std::sync::Arc::new(host_over(&p, &p.path(".ward/plugins")));
    let rules = h.scope.rules.clone();
    let tools = rt.block_on(async {
        let (tools, _) = ward_session::ToolBox::load(host, &rules).await;
        tools
            .execute("noop", "{}", h.scope.clone(), &[])
            .await
            .expect("first call");
        tools
    });
    c.bench_function("plugin/noop through the tool box, warm", |b| {
        b.to_async(&rt).iter(|| async {
            tools
                .execute("noop", "{}", h.scope.clone(), &[])
                .await
                .expect("call")
        })
    });
}

fn host_over(project: &Project, dir: &Path) -> PluginHost {
    let found = discover(&[], &[(Origin::Project, dir.to_path_buf())]);
    PluginHost::new(
        found.plugins,
        HostOptions {
            project: project.root.clone(),
            cache_dir: Some(project.data.join("cache")),
            ..HostOptions::default()
        },
    )
    .expect("host")
}

fn first_call_from_cache(c: &mut Criterion) {
    let rt = runtime();
    let p = Project::new("bench-first");
    let h = Harness::new(&p, &["noop"], &[], "");
    rt.block_on(h.call("noop", "{}")).expect("warm the cache");
    let dir = p.path(".ward/plugins");
    c.bench_function("plugin/first call from the warm cache", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let (p, dir, scope) = (&p, &dir, &h.scope);
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let host = host_over(p, dir);
                    let start = Instant::now();
                    let (plugin, _) = host.find_tool("noop").await.expect("noop");
                    host.call(&plugin, "noop", "{}", scope.clone())
                        .await
                        .expect("call");
                    total += start.elapsed();
                }
                total
            }
        })
    });
}

fn startup_50_plugins(c: &mut Criterion) {
    let rt = runtime();
    let p = Project::new("bench-50");
    let installed = p.install_test_plugin("noop");
    let manifest = std::fs::read_to_string(installed.join("plugin.toml")).expect("manifest");
    let component = std::fs::read_dir(&installed)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .expect("component");
    for i in 0..50 {
        let dir = p.path(&format!("many/noop{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(
            dir.join("plugin.toml"),
            manifest.replace("name = \"noop\"", &format!("name = \"noop{i}\"")),
        )
        .expect("manifest");
        std::fs::copy(&component, dir.join(component.file_name().expect("name"))).expect("copy");
    }
    let many = p.path("many");
    // Every copy declares the same tool: one keeps the name, the other 49 are refused
    // for the clash, after all 50 tool lists were read.
    rt.block_on(async {
        let host = host_over(&p, &many);
        let (tools, failed, refused) = host.tool_table().await;
        assert_eq!((tools.len(), failed.len(), refused.len()), (1, 0, 49));
    });
    c.bench_function("plugin/discovery + start-up, 50 plugins, warm cache", |b| {
        b.to_async(&rt).iter(|| async {
            let host = host_over(&p, &many);
            let (tools, _, refused) = host.tool_table().await;
            assert_eq!(tools.len() + refused.len(), 50);
        })
    });
}

fn native_context(p: &Project) -> ward_sdk::Context {
    ward_sdk::Context {
        session_id: String::new(),
        message_id: String::new(),
        call_id: String::new(),
        agent: "build".into(),
        directory: p.root.display().to_string(),
    }
}

fn sandboxed_vs_native(c: &mut Criterion) {
    let rt = runtime();
    let p = Project::new("bench-tools");
    let body: String = (1..=10_000)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    p.write("big.txt", &body);
    for i in 0..5_000 {
        p.write(
            &format!("tree/d{}/f{i}.txt", i % 50),
            &format!(
                "file {i}\nsome text\n{}\n",
                if i % 100 == 0 { "needle here" } else { "hay" }
            ),
        );
    }
    let h = Harness::new(
        &p,
        &["read", "grep"],
        &[("read", &["fs-read"]), ("grep", &["fs-read"])],
        "",
    );
    let read_args = serde_json::json!({"filePath": "big.txt", "limit": 10000}).to_string();
    let grep_args = serde_json::json!({"pattern": "needle", "path": "tree"}).to_string();
    // No `filePath`: the floor of any `read` call, a fresh instance, the arguments parsed
    // and refused, the instance dropped. What the sandbox adds here is paid whatever the
    // file.
    let no_args = "{}";
    let ctx = native_context(&p);
    let (read, grep) = rt.block_on(async {
        let (read, _) = h.host.find_tool("read").await.expect("read");
        let (grep, _) = h.host.find_tool("grep").await.expect("grep");
        let a = h
            .host
            .call(&read, "read", &read_args, h.scope.clone())
            .await
            .expect("read");
        let b = h
            .host
            .call(&grep, "grep", &grep_args, h.scope.clone())
            .await
            .expect("grep");
        // The sandboxed and native runs must do the same work.
        let na = ward_sdk::dispatch::<ward_tool_read::Read>(&read_args, &ctx).expect("native read");
        let nb = ward_sdk::dispatch::<ward_tool_grep::Grep>(&grep_args, &ctx).expect("native grep");
        assert_eq!(a.output, na.output);
        assert_eq!(b.output, nb.output);
        // Both refuse arguments without `filePath` the same way.
        let refused = h.host.call(&read, "read", no_args, h.scope.clone()).await;
        assert!(matches!(
            refused,
            Err(ward_plugin::CallError::Tool(
                ward_plugin::ToolError::InvalidArguments(_)
            ))
        ));
        assert!(matches!(
            ward_sdk::dispatch::<ward_tool_read::Read>(no_args, &ctx),
            Err(ward_sdk::ToolError::InvalidArguments(_))
        ));
        (read, grep)
    });
    let _ = ward_tool_read::Read::NAME;
    let mut g = c.benchmark_group("tools");
    g.sample_size(20);
    g.bench_function("read 10,000 lines, sandboxed", |b| {
        b.to_async(&rt)
            .iter(|| h.host.call(&read, "read", &read_args, h.scope.clone()))
    });
    g.bench_function("read 10,000 lines, native", |b| {
        b.iter(|| ward_sdk::dispatch::<ward_tool_read::Read>(&read_args, &ctx))
    });
    g.bench_function("read, argument error (fixed cost), sandboxed", |b| {
        b.to_async(&rt)
            .iter(|| h.host.call(&read, "read", no_args, h.scope.clone()))
    });
    g.bench_function("read, argument error (fixed cost), native", |b| {
        b.iter(|| ward_sdk::dispatch::<ward_tool_read::Read>(no_args, &ctx))
    });
    g.bench_function("grep 5,000 files, sandboxed", |b| {
        b.to_async(&rt)
            .iter(|| h.host.call(&grep, "grep", &grep_args, h.scope.clone()))
    });
    g.bench_function("grep 5,000 files, native", |b| {
        b.iter(|| ward_sdk::dispatch::<ward_tool_grep::Grep>(&grep_args, &ctx))
    });
    g.finish();
}

criterion_group!(
    benches,
    warm_call,
    tool_box_call,
    first_call_from_cache,
    startup_50_plugins,
    sandboxed_vs_native
);
criterion_main!(benches);
