//! Agent-loop benchmark: a session of 100 steps against the scripted LLM server with no
//! latency, each step a real `bash echo` through the bash component (a real process
//! spawn) and real SQLite writes, then a final answer. Reports time per step.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use ward_store::Store;
use ward_tests::Project;
use ward_tests::llm::Turn;
use ward_tests::rig::LoopRig;

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
    let rig = rt.block_on(LoopRig::start(
        &p,
        &[("bash", &["exec", "fs-read", "fs-write"])],
    ));
    let (llm, runner, store) = (&rig.llm, &rig.runner, &rig.store);
    let mut g = c.benchmark_group("loop");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function(
        "session of 100 bash-echo steps + answer (time per run)",
        |b| {
            b.to_async(&rt).iter(|| async {
                llm.push(script());
                let session = rig.session(&p);
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
