//! The cost of turning a shell command into permission patterns, per command.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark set-up: a panic is how a broken set-up stops the run"
)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use ward_permission::bash;

/// Realistic commands an agent runs, from trivial to a long pipeline.
const COMMANDS: &[(&str, &str)] = &[
    ("simple", "git status --short"),
    (
        "pipeline",
        "rg -n 'fn main' src | head -20 && cargo build --release 2>&1 | tail -5",
    ),
    (
        "compound",
        "for f in $(git ls-files '*.rs'); do if grep -q TODO \"$f\"; then echo \"$f\" >> todo.txt; fi; done",
    ),
    (
        "long",
        "cd host && cargo test -p ward-permission -- --nocapture 2>&1 | tee /tmp/log.txt; \
         git diff --stat HEAD~3 | sort -k2 -n | awk '{print $1}' | xargs -n1 wc -l; \
         find . -name '*.toml' -not -path './target/*' -exec grep -l tree-sitter {} +",
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("shell");
    for (name, command) in COMMANDS {
        // `split_commands`, the hand-written scanner this replaced, measured on the
        // same commands before the switch: 0.56 / 1.2 / 2.5 / 2.7 µs.
        group.bench_function(format!("analyze/{name}"), |b| {
            b.iter(|| bash::analyze(black_box(command)))
        });
        group.bench_function(format!("question/{name}"), |b| {
            b.iter(|| bash::BashQuestion::new(black_box(command)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
