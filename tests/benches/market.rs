//! Marketplace benchmark: installing a 15 MB package from a local index — index read,
//! archive read, sha256 of the archive, unpack with every file hashed, per-file
//! verification against `[files]`, the move into `.ward/plugins/` and the `ward.lock`
//! write — in process, through the same `ward-market` calls `ward plugin install`
//! makes (without the process start-up). The package is the `noop` component plus a
//! 15 MB incompressible data file listed in `[files]`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ward_config::{MarketplaceConfig, SourceConfig};
use ward_market::{Lock, Market};
use ward_tests::test_plugin;

const DATA_BYTES: usize = 15 * 1024 * 1024;

/// Pseudo-random bytes (xorshift), so gzip cannot shrink them.
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Packs and indexes the package under `base/market`; returns the market config.
fn publish(base: &Path) -> MarketplaceConfig {
    let (_, _, wasm) = test_plugin("noop");
    let src = base.join("src");
    let market = base.join("market");
    std::fs::create_dir_all(src.join("data")).expect("src");
    std::fs::create_dir_all(&market).expect("market");
    std::fs::copy(wasm, src.join("noop.wasm")).expect("component");
    std::fs::write(
        src.join("plugin.toml"),
        "[plugin]\nname = \"big\"\nversion = \"1.0.0\"\napi = \"0.1.0\"\nkinds = [\"tool\"]\ncomponent = \"noop.wasm\"\n",
    )
    .expect("manifest");
    std::fs::write(src.join("data/blob.bin"), noise(DATA_BYTES)).expect("data");
    let packed = ward_market::pack(&src, &market).expect("pack");
    ward_market::add_to_index(&market.join("index.json"), &packed.path, None, None).expect("index");
    MarketplaceConfig {
        sources: vec![SourceConfig {
            name: "local".into(),
            url: market.display().to_string(),
            require_signature: false,
        }],
        keys: Vec::new(),
    }
}

async fn install(config: &MarketplaceConfig, project: &Path) {
    let market = Market::new(config, project).expect("market");
    let candidate = market.resolve("big", None, None).await.expect("resolve");
    let staged = market.stage(&candidate).await.expect("stage");
    let mut lock = Lock::load(project).expect("lock");
    staged.commit(&mut lock, Vec::new()).expect("commit");
}

fn install_15_mb(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let base: PathBuf =
        std::env::temp_dir().join(format!("ward-bench-market-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let config = publish(&base);
    let mut g = c.benchmark_group("market");
    g.sample_size(20).measurement_time(Duration::from_secs(15));
    g.bench_function("install 15 MB package, local index", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let config = config.clone();
            let base = base.clone();
            async move {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    let project = base.join(format!("project-{i}"));
                    std::fs::create_dir_all(&project).expect("project");
                    let start = Instant::now();
                    install(&config, &project).await;
                    total += start.elapsed();
                    let _ = std::fs::remove_dir_all(&project);
                }
                total
            }
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, install_15_mb);
criterion_main!(benches);
