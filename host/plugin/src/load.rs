//! Loading a plugin: from its component bytes to a linked [`InstancePre`], once per
//! process, and what the component declares about itself.
//!
//! The bytes are checked against the manifest's SHA-256, their imports against the
//! supported API versions and the manifest's ceiling (before any compile), then
//! compiled — or read from the sealed artifact cache — and linked. The exports the
//! manifest's kinds promise must be there; their declarations (`list-tools`,
//! `register`) are called once, in a detached scope, and cached next to the artifact.

use std::sync::Arc;
use std::time::Duration;

use ward_config::Kind;
use wasmtime::component::{Component, InstancePre};

use crate::audit::PluginEvent;
use crate::bindings::{ToolInfo, hooks, tool};
use crate::cache::{Lookup, artifact_name, sha256_hex};
use crate::error::{CallError, trap_message};
use crate::hooks::HookRegistration;
use crate::runtime::{Plugin, PluginHost};
use crate::state::{CallScope, StoreState};
use crate::{compat, meta};

/// A compiled plugin, linked and ready to instantiate, with what it declared at load.
pub(crate) struct Loaded {
    pub(crate) pre: InstancePre<StoreState>,
    /// The `tool` export, when the manifest's kinds include `tool`.
    pub(crate) tool: Option<tool::GuestIndices>,
    /// The `hooks` export, when the manifest's kinds include `hook`.
    pub(crate) hooks: Option<hooks::GuestIndices>,
    pub(crate) tools: Vec<ToolInfo>,
    pub(crate) registration: HookRegistration,
}

impl PluginHost {
    /// Compiles and links `plugin` on first use; later calls share the result, failure
    /// included (a component that cannot load will not load on the next call either).
    pub(crate) async fn load(&self, plugin: &Plugin) -> Result<Arc<Loaded>, CallError> {
        let result = plugin
            .loaded
            .get_or_init(|| async { self.compile(plugin).await.map(Arc::new) })
            .await;
        result.clone().map_err(|reason| CallError::Load {
            plugin: plugin.name().to_string(),
            reason,
        })
    }

    async fn compile(&self, plugin: &Plugin) -> Result<Loaded, String> {
        let name = plugin.name();
        let bytes = plugin
            .source
            .component
            .load()
            .map_err(|e| format!("cannot read its component: {e}"))?;
        let sha = sha256_hex(&bytes);
        if let Some(expected) = &plugin.source.manifest.sha256
            && !expected.eq_ignore_ascii_case(&sha)
        {
            return Err(format!(
                "{}: component `{}` has sha256 {sha}, but the manifest says {expected}",
                plugin.source.manifest_path.display(),
                plugin.source.manifest.component
            ));
        }
        let imports = compat::import_names(&bytes)?;
        compat::check_imports(&imports, &plugin.ceiling)?;

        let component = self.compile_cached(name, &sha, &bytes).await?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|e| format!("cannot link: {e}"))?;
        let tool = match plugin.is(Kind::Tool) {
            true => Some(export("tool", tool::GuestIndices::new(&pre))?),
            false => None,
        };
        let hooks = match plugin.is(Kind::Hook) {
            true => Some(export("hooks", hooks::GuestIndices::new(&pre))?),
            false => None,
        };

        // What the component declares comes from the component itself, once, under the
        // same limits as any call, in a scope where no rule can ask anyone anything.
        let declare_time = plugin.limits.time.min(Duration::from_secs(10));
        let mut tools = Vec::new();
        if let Some(indices) = &tool {
            let env = self.call_env(plugin, CallScope::detached(&self.project), declare_time);
            let mut store = self.new_store(env);
            tools = async {
                let instance = pre.instantiate_async(&mut store).await?;
                indices
                    .load(&mut store, &instance)?
                    .call_list_tools(&mut store)
                    .await
            }
            .await
            .map_err(|e| format!("listing its tools failed: {}", trap_message(&e)))?;
            if let Some(cache) = &self.cache {
                meta::put_tools(cache, &sha, &tools);
            }
        }
        let mut registration = HookRegistration::default();
        if let Some(indices) = &hooks {
            let env = self.call_env(plugin, CallScope::detached(&self.project), declare_time);
            let mut store = self.new_store(env);
            let declared = async {
                let instance = pre.instantiate_async(&mut store).await?;
                indices
                    .load(&mut store, &instance)?
                    .call_register(&mut store)
                    .await
            }
            .await
            .map_err(|e| format!("declaring its hooks failed: {}", trap_message(&e)))?;
            registration = HookRegistration::from(declared);
            if let Some(cache) = &self.cache {
                meta::put_hooks(cache, &sha, &registration);
            }
        }
        self.audit.publish(PluginEvent::Loaded {
            plugin: name.to_string(),
        });
        Ok(Loaded {
            pre,
            tool,
            hooks,
            tools,
            registration,
        })
    }

    async fn compile_cached(
        &self,
        name: &str,
        sha: &str,
        bytes: &[u8],
    ) -> Result<Component, String> {
        let engine = self.engine.engine().clone();
        let entry = artifact_name(sha, &engine);
        if let Some(cache) = &self.cache {
            match cache.get(&entry) {
                (Lookup::Hit, Some(artifact)) => {
                    // SAFETY: the artifact's seal verified, so these are bytes this host
                    // serialized itself with a compatible engine (the entry name includes
                    // the engine's compatibility hash).
                    match unsafe { Component::deserialize(&engine, &artifact) } {
                        Ok(c) => return Ok(c),
                        Err(e) => tracing::warn!(plugin = name, "cached artifact unusable: {e}"),
                    }
                }
                (Lookup::Rejected, _) => {
                    tracing::warn!(
                        plugin = name,
                        "cached artifact failed its integrity check; recompiling"
                    );
                    self.audit
                        .deny(name, "cache", &entry, "artifact seal mismatch; recompiled");
                }
                _ => {}
            }
        }
        let owned = bytes.to_vec();
        let component = tokio::task::spawn_blocking(move || Component::new(&engine, &owned))
            .await
            .map_err(|e| format!("compile task failed: {e}"))?
            .map_err(|e| format!("cannot compile: {e}"))?;
        if let Some(cache) = &self.cache {
            match component.serialize() {
                Ok(artifact) => {
                    if let Err(e) = cache.put(&entry, &artifact) {
                        tracing::warn!(plugin = name, "cannot write the compiled cache: {e}");
                    }
                }
                Err(e) => tracing::warn!(plugin = name, "cannot serialize: {e}"),
            }
        }
        Ok(component)
    }
}

/// The lookup of an interface the manifest says the component exports.
fn export<T>(iface: &str, found: wasmtime::Result<T>) -> Result<T, String> {
    found.map_err(|e| {
        format!("it does not export the `ward:plugin/{iface}` interface it declares: {e}")
    })
}
