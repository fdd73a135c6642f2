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

use wasmtime::Engine;

/// How often the epoch advances. A call that exceeds its deadline is trapped within
/// one tick of it.
pub const TICK: Duration = Duration::from_millis(5);

pub use ward_engine_config::MAX_MEMORY_BYTES;

/// The shared engine plus its epoch ticker; dropping it stops the ticker.
pub struct SharedEngine {
    engine: Engine,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl SharedEngine {
    /// Builds the engine with Ward's one configuration ([`ward_engine_config::config`]).
    pub fn new() -> wasmtime::Result<Self> {
        // `WARD_PROFILE=perfmap` names the guests' functions for `perf` (in
        // `/tmp/perf-PID.map`): profiling a plugin call otherwise shows only addresses.
        let perf_map = std::env::var_os("WARD_PROFILE").is_some_and(|v| v == "perfmap");
        let engine = Engine::new(&ward_engine_config::config(perf_map))?;

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
