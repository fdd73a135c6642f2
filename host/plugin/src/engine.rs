//! The one shared wasmtime [`Engine`] and the epoch ticker that bounds every call's time.
//!
//! All plugins share one engine (compiled code, the pooling allocator's slots, the type
//! registry). Time limits use epoch interruption rather than fuel: it costs a load and a
//! compare per loop back-edge instead of a counter update per block, and a background
//! thread advances the epoch every [`TICK`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig,
    ProfilingStrategy,
};

/// How often the epoch advances. A call that exceeds its deadline is trapped within
/// one tick of it.
pub const TICK: Duration = Duration::from_millis(5);

/// The largest linear memory any plugin may be granted.
pub const MAX_MEMORY_BYTES: usize = 1 << 30;

/// Bytes of each linear memory and table kept resident when a call's instance is
/// dropped, where the kernel has `PAGEMAP_SCAN` (Linux 6.7+): only the pages the call
/// wrote are reset, by copying, so the next call in that slot takes no page faults and
/// no `madvise` (measured: warm no-op call 27 µs → 12 µs). The price is up to this
/// much resident memory per pool slot in use.
const KEEP_RESIDENT: usize = 1 << 20;

/// How many plugin calls may be in flight at once across the process.
const MAX_CONCURRENT_INSTANCES: u32 = 64;

/// The shared engine plus its epoch ticker; dropping it stops the ticker.
pub struct SharedEngine {
    engine: Engine,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl SharedEngine {
    /// Builds the engine: Cranelift at `speed`, epoch interruption, and the pooling
    /// allocator so instantiating a component per call costs microseconds, not an mmap.
    pub fn new() -> wasmtime::Result<Self> {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(MAX_CONCURRENT_INSTANCES)
            .total_core_instances(MAX_CONCURRENT_INSTANCES * 4)
            .total_memories(MAX_CONCURRENT_INSTANCES * 2)
            .total_tables(MAX_CONCURRENT_INSTANCES * 4)
            .total_stacks(MAX_CONCURRENT_INSTANCES)
            // Caps on one memory and one table only (a component may have four memories
            // and sixteen tables): the plugin's limit is enforced on all of a call's
            // memories and tables together by the store's limiter (`crate::limiter`).
            .max_memory_size(MAX_MEMORY_BYTES)
            .max_core_instances_per_component(32)
            .max_memories_per_component(4)
            .max_tables_per_component(16)
            // Return freed slots' pages to the kernel in batches: one madvise for many
            // calls instead of one per call (measured: drop 12 µs → 7.5 µs per call).
            .decommit_batch_size(32);
        // Without the scan, keeping memory resident means `memset`ting all of it on
        // every reset, touched or not: slower than the page faults it saves.
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
        // `WARD_PROFILE=perfmap` names the guests' functions for `perf` (in
        // `/tmp/perf-PID.map`): profiling a plugin call otherwise shows only addresses.
        if std::env::var_os("WARD_PROFILE").is_some_and(|v| v == "perfmap") {
            config.profiler(ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config)?;

        let stop = Arc::new(AtomicBool::new(false));
        let ticker = {
            let engine = engine.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("ward-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(TICK);
                        engine.increment_epoch();
                    }
                })
                .map_err(|e| wasmtime::format_err!("cannot start the epoch thread: {e}"))?
        };
        Ok(SharedEngine {
            engine,
            stop,
            ticker: Some(ticker),
        })
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl Drop for SharedEngine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}
