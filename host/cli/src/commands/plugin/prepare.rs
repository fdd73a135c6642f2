//! Compiling a plugin into the component cache when it is built or installed, so the
//! first session that lists its tools and the first call of one (on the model's clock)
//! load compiled code instead of compiling it: a JavaScript or Python component is
//! 10–20 MB of Wasm and takes seconds to compile.
//!
//! The cache is the one sessions use ([`ward_engine::paths::component_cache_dir`]); its
//! entries are keyed by the component's digest and the engine's compatibility hash, so
//! they also survive a Ward upgrade that keeps the engine's settings.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::{HostOptions, PluginHost};

/// Compiles the plugin in `dir` into the component cache and records what it declares.
/// Returns how long that took.
pub async fn into_cache(dir: &Path) -> Result<Duration> {
    let start = Instant::now();
    let found = discover(&[], &[(Origin::Project, dir.to_path_buf())]);
    if let Some(e) = found.errors.first() {
        bail!("{e}");
    }
    let options = HostOptions {
        project: dir.to_path_buf(),
        cache_dir: Some(ward_engine::paths::component_cache_dir(
            &ward_engine::paths::data_dir()?,
        )),
        ..HostOptions::default()
    };
    let host = PluginHost::new(found.plugins, options)?;
    for plugin in host.plugins() {
        host.prepare(plugin).await?;
    }
    Ok(start.elapsed())
}
