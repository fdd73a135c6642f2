//! Warm call overhead of the same no-op tool written in Rust, JavaScript and Python,
//! through the real plugin host (a fresh instance per call, as for every plugin). The
//! JavaScript and Python components are built by `ward plugin build` (so `cargo build
//! -p ward` and `scripts/setup.sh` first).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ward_tests::Project;
use ward_tests::harness::Harness;

fn warm_calls(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let p = Project::new("bench-polyglot");
    p.install_built_plugin("sdk/js/examples/noop");
    p.install_built_plugin("sdk/python/examples/noop");
    let h = Harness::new(&p, &["noop"], &[], "");
    let mut group = c.benchmark_group("polyglot/no-op call, warm");
    group.measurement_time(Duration::from_secs(10));
    for (label, tool) in [
        ("rust", "noop"),
        ("javascript", "noop_js"),
        ("python", "noop_py"),
    ] {
        let plugin = rt.block_on(async {
            let (plugin, _) = h.host.find_tool(tool).await.expect(tool);
            let out = h
                .host
                .call(&plugin, tool, "{}", h.scope.clone())
                .await
                .expect("first call");
            assert_eq!(out.output, "ok");
            plugin
        });
        group.bench_function(label, |b| {
            b.to_async(&rt).iter(|| async {
                h.host
                    .call(&plugin, tool, "{}", h.scope.clone())
                    .await
                    .expect("call")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, warm_calls);
criterion_main!(benches);
