//! The wasmtime [`Config`] every plugin is compiled and run with.
//!
//! The standard tools embedded in `ward` are compiled with it too — by the runtime
//! itself (`ward plugin embed-builtins`), since a precompiled artifact loads only into
//! an engine whose settings (target, CPU flags, tunables, features) match the one that
//! compiled it. The target
//! is explicit, so the code is compiled for a CPU baseline every machine of the target
//! has rather than for whichever machine built `ward`: on x86-64, x86-64-v2 (SSE4.2
//! and POPCNT, every x86-64 CPU since 2009; Cranelift needs SSE4.1 for Wasm SIMD).

use wasmtime::{
    Config, Enabled, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig,
    ProfilingStrategy,
};

/// The largest linear memory any plugin may be granted.
pub const MAX_MEMORY_BYTES: usize = 1 << 30;

/// How many plugin calls may be in flight at once across the process.
pub const MAX_CONCURRENT_INSTANCES: u32 = 64;

/// Bytes of each linear memory and table kept resident when a call's instance is
/// dropped, where the kernel has `PAGEMAP_SCAN` (Linux 6.7+): only the pages the call
/// wrote are reset, by copying, so the next call in that slot takes no page faults and
/// no `madvise` (measured: warm no-op call 27 µs → 12 µs). The price is up to this
/// much resident memory per pool slot in use.
const KEEP_RESIDENT: usize = 1 << 20;

/// The triple `ward` is built for.
pub const TARGET: &str = env!("WARD_ENGINE_TARGET");

/// x86-64 features beyond the baseline the compiled code may use (x86-64-v2).
#[cfg(target_arch = "x86_64")]
const CPU_FLAGS: &[&str] = &[
    "has_sse3",
    "has_ssse3",
    "has_sse41",
    "has_sse42",
    "has_popcnt",
];
#[cfg(not(target_arch = "x86_64"))]
const CPU_FLAGS: &[&str] = &[];

/// The configuration: Cranelift at `speed`, epoch interruption, the component model and
/// the pooling allocator (instantiating a component per call costs microseconds, not an
/// mmap). `perf_map`: name the guests' functions for `perf`.
pub fn config(perf_map: bool) -> Config {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(MAX_CONCURRENT_INSTANCES)
        .total_core_instances(MAX_CONCURRENT_INSTANCES * 4)
        .total_memories(MAX_CONCURRENT_INSTANCES * 2)
        .total_tables(MAX_CONCURRENT_INSTANCES * 4)
        .total_stacks(MAX_CONCURRENT_INSTANCES)
        // Caps on one memory and one table only (a component may have four memories
        // and sixteen tables): the plugin's limit is enforced on all of a call's
        // memories and tables together by the store's limiter.
        .max_memory_size(MAX_MEMORY_BYTES)
        .max_core_instances_per_component(32)
        .max_memories_per_component(4)
        .max_tables_per_component(16)
        // Return freed slots' pages to the kernel in batches: one madvise for many
        // calls instead of one per call (measured: drop 12 µs → 7.5 µs per call).
        .decommit_batch_size(32);
    // Without the scan, keeping memory resident means `memset`ting all of it on every
    // reset, touched or not: slower than the page faults it saves.
    if PoolingAllocationConfig::is_pagemap_scan_available() {
        pool.linear_memory_keep_resident(KEEP_RESIDENT)
            .table_keep_resident(KEEP_RESIDENT)
            .pagemap_scan(Enabled::Yes);
    }

    let mut config = Config::new();
    config
        .cranelift_opt_level(OptLevel::Speed)
        .epoch_interruption(true)
        .wasm_component_model(true)
        .max_wasm_stack(1 << 20)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    // An unknown triple (never: it is the one this crate is built for) leaves the
    // host's own, with its native CPU features.
    if config.target(TARGET).is_ok() {
        for flag in CPU_FLAGS {
            // SAFETY: the flags name features of the target's baseline (x86-64-v2) that
            // every machine `ward` supports has; wasmtime checks them against the
            // running CPU when the engine is built and refuses a mismatch.
            unsafe {
                config.cranelift_flag_enable(flag);
            }
        }
    }
    if perf_map {
        config.profiler(ProfilingStrategy::PerfMap);
    }
    config
}
