//! Agent-loop benchmark: a session of 100 steps against the scripted LLM server with no
//! latency, each step a real `bash echo` through the bash component (a real process
//! spawn) and real SQLite writes, then a final answer. Reports time per step.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use ward_permission::{MemoryApprovals, PermissionEngine};
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::{HostOptions, PluginHost};
use ward_provider::{Endpoint, Protocol};
use ward_session::{ModelSetup, Runner, ToolBox};
use ward_store::{Session, SqliteStore, Store};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

const STEPS: usize = 100;

fn script() -> Vec<Turn> {
    let mut turns: Vec<Turn> = (0..STEPS)
        .map(|i| {
            Turn::tool(
                &format!("c{i}"),
                "bash",
                json!({"command": format!("echo {i}"), "description": "echo"}),
            )
        })
        .collect();
    turns.push(Turn::text("done"));
    turns
}

fn session_of_100_steps(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let p = Project::new("bench-loop");
    p.install_test_plugin("bash");
    let (llm, runner, store) = rt.block_on(async {
        let llm = ScriptedLlm::start(Vec::new()).await;
        let found = discover(&[], &[(Origin::Project, p.path(".ward/plugins"))]);
        let options = HostOptions {
            project: p.root.clone(),
            cache_dir: Some(p.data.join("cache")),
            grants: [("bash".to_string(), vec!["exec".to_string()])].into(),
            ..HostOptions::default()
        };
        let host = Arc::new(PluginHost::new(found.plugins, options).expect("host"));
        let rules = Arc::new(vec![ward_permission::defaults()]);
        let (tools, failed) = ToolBox::load(host, &rules).await;
        assert!(failed.is_empty(), "{failed:?}");
        let store = Arc::new(SqliteStore::open(p.data.join("ward.db")).expect("store"));
        let (tx, _) = tokio::sync::broadcast::channel(16);
        let runner = Runner {
            store: store.clone(),
            tools,
            model: ModelSetup {
                provider: "scripted".into(),
                model: "m".into(),
                protocol: Protocol::OpenaiChat,
                endpoint: Endpoint::new(format!("{}/v1", llm.base_url)),
                prices: [0.0; 4],
                max_tokens: None,
                limits: Default::default(),
            },
            client: ward_provider::Client::new(),
            permissions: PermissionEngine::new(Arc::new(MemoryApprovals::new()), tx),
            rules,
            project: p.root.clone(),
            agent: "build".into(),
            system: Vec::new(),
            steps: None,
            retry: ward_provider::RetryPolicy::default(),
        };
        (llm, runner, store)
    });
    let mut g = c.benchmark_group("loop");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function(
        "session of 100 bash-echo steps + answer (time per run)",
        |b| {
            b.to_async(&rt).iter(|| async {
                llm.push(script());
                let session = Session::new(p.root.to_string_lossy(), "build");
                store.create_session(&session).expect("session");
                let last = runner.prompt(&session, "count to 100").await.expect("loop");
                assert!(last.finish.is_some());
                let retries = store
                    .messages(&session.id, None)
                    .expect("messages")
                    .iter()
                    .flat_map(|m| m.parts.iter())
                    .filter(|p| matches!(p.kind, ward_store::PartKind::Retry { .. }))
                    .map(|p| format!("{:?}", p.kind))
                    .collect::<Vec<_>>();
                assert!(
                    retries.is_empty(),
                    "a step was retried, so the figure would include the backoff: {retries:?}"
                );
            })
        },
    );
    g.finish();
}

criterion_group!(benches, session_of_100_steps);
criterion_main!(benches);
