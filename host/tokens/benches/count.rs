//! Counting speed, in MB/s, of the estimate and of o200k_base on about 50 KB each of
//! English, source code and Chinese, taken from this repository and `shared/` beside it.
//!
//! `cargo bench -p ward-tokens` (add `-- --warm-up-time 1 --measurement-time 3` to
//! shorten it further).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark set-up: a panic is how a broken set-up stops the run"
)]

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ward_tokens::{Encoding, TokenCounter, estimate};

/// Size of each sample text.
const SIZE: usize = 50_000;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files' contents, concatenated and repeated or cut to [`SIZE`] bytes (at a
/// character boundary).
fn sample(paths: &[PathBuf]) -> String {
    let mut text = String::new();
    for path in paths {
        match fs::read_to_string(path) {
            Ok(t) => text.push_str(&t),
            Err(e) => eprintln!("skipping {}: {e}", path.display()),
        }
        if text.len() >= SIZE {
            break;
        }
    }
    assert!(!text.is_empty(), "no sample text found");
    while text.len() < SIZE {
        text = text.repeat(2);
    }
    let mut end = SIZE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

/// Rust sources under `dir`, sorted, skipping `target`.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if !path.ends_with("target") {
                rust_files(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

fn samples() -> Vec<(&'static str, String)> {
    let repo = repo();
    let shared = repo.join("../shared");
    let english = sample(&[
        shared.join("SPEC.md"),
        repo.join("README.md"),
        repo.join("host/store/README.md"),
    ]);
    let mut code = Vec::new();
    rust_files(&repo.join("host/session"), &mut code);
    rust_files(&repo.join("host/store"), &mut code);
    let code = sample(&code);
    let chinese = sample(&[
        shared.join("seeds/opencode-history-and-compaction.zh.md"),
        shared.join("seeds/opencode-core-architecture.zh.md"),
        shared.join("seeds/opencode-session-loop.zh.md"),
    ]);
    vec![("english", english), ("code", code), ("chinese", chinese)]
}

fn count(c: &mut Criterion) {
    let o200k = TokenCounter::new(Encoding::O200k);
    // Build the tokenizer before measuring.
    black_box(o200k.count("warm up"));
    for (name, text) in samples() {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::BytesDecimal(text.len() as u64));
        group.bench_function("estimate", |b| b.iter(|| estimate(black_box(&text))));
        group.bench_function("o200k", |b| b.iter(|| o200k.count(black_box(&text))));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = count
}
criterion_main!(benches);
