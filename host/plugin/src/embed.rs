//! What a `ward` binary carries beside each standard plugin so its first run compiles
//! nothing: the component compiled by this host's own engine, and what it declares
//! (its tools, hook registration, agents and skills) in the shapes the declaration
//! cache uses ([`crate::meta`]).
//!
//! `ward`'s build makes these with the `ward` it has just built (`scripts/build.sh`
//! runs `ward plugin embed-builtins`, then links them in), so wasmtime and Cranelift
//! are compiled once, for the runtime, and what is embedded was made by exactly the
//! engine that will read it — not by a second copy of the engine in a build script.

use crate::error::CallError;
use crate::runtime::{Plugin, PluginHost};

/// A standard plugin made ready to embed.
pub struct Embeddable {
    /// The SHA-256 of the component these were made from, lowercase hex.
    pub sha256: String,
    /// The component compiled by the host's engine (`Component::serialize`).
    pub precompiled: Vec<u8>,
    /// What it declares: one JSON object with a section per kind.
    pub declared: serde_json::Value,
}

impl PluginHost {
    /// Compiles `plugin` with this host's engine and asks it what it declares, down the
    /// same path as its first use at run time.
    pub async fn embeddable(&self, plugin: &Plugin) -> Result<Embeddable, CallError> {
        let failed = |reason: String| CallError::Load {
            plugin: plugin.name().to_string(),
            reason: crate::LoadError::Compile(reason),
        };
        // The digest the build computed, or the bytes' own: the one the load checks.
        let sha256 = crate::meta::component_sha(plugin)
            .ok_or_else(|| failed("its component cannot be read".into()))?;
        let loaded = self.load(plugin).await?;
        let precompiled = loaded
            .pre
            .component()
            .serialize()
            .map_err(|e| failed(e.to_string()))?;
        Ok(Embeddable {
            sha256,
            precompiled,
            declared: crate::meta::sections(&loaded),
        })
    }
}
