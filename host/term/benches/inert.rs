//! `inert` on a 1 MB tool output: clean ASCII (borrowed), clean CJK (borrowed, every
//! character looked up), and ASCII with an escape sequence on every line (copied).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark set-up: a panic is how a broken set-up stops the run"
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const MB: usize = 1 << 20;

fn repeat_to(line: &str, size: usize) -> String {
    line.repeat(size / line.len() + 1)
}

fn bench(c: &mut Criterion) {
    let ascii = repeat_to(
        "test result: ok. 42 passed; 0 failed; finished in 0.12s\n",
        MB,
    );
    let cjk = repeat_to("日本語のテキストと中文的文本，还有한국어 텍스트 ✅\n", MB);
    let hostile = repeat_to(
        "\x1b[32mtest result: ok\x1b[0m. 42 passed; 0 failed\r\n",
        MB,
    );
    let mut group = c.benchmark_group("inert");
    group.throughput(Throughput::Bytes(MB as u64));
    for (name, text) in [("ascii", &ascii), ("cjk", &cjk), ("escapes", &hostile)] {
        group.bench_function(name, |b| b.iter(|| ward_term::inert(black_box(text)).len()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
