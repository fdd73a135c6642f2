//! Loading a plugin: from its component bytes to a linked [`InstancePre`], once per
//! process, and what the component declares about itself.
//!
//! The bytes are checked against the manifest's SHA-256, their imports against the
//! supported API versions and the manifest's ceiling (before any compile), the
//! version they were built for against the manifest's `api` (it chooses the bindings
//! their exports are called through, [`crate::bindings::guest`]), then
//! compiled — or read from the sealed artifact cache — and linked. The exports the
//! manifest's kinds promise must be there; their declarations (`list-tools`,
//! `register`, `agents`, `list-skills`) are called once, in a detached scope, and
//! cached next to the artifact, all down one path ([`crate::declare`]).

use std::sync::Arc;

use wasmtime::component::{Component, InstancePre};

use crate::bindings::ToolInfo;
use crate::bindings::guest::{AgentIndices, HooksIndices, SkillIndices, ToolIndices};
use crate::cache::{Lookup, artifact_name, sha256_hex};
use crate::declare::export;
use crate::discovery::ComponentBytes;
use crate::error::CallError;
use crate::hooks::HookRegistration;
use crate::kinds::{DeclaredAgent, DeclaredSkill};
use crate::load_error::LoadError;
use crate::runtime::{Plugin, PluginHost};
use crate::state::StoreState;
use crate::{compat, meta};
use ward_grants::PluginEvent;

/// A compiled plugin, linked and ready to instantiate, with what it declared at load.
pub(crate) struct Loaded {
    pub(crate) pre: InstancePre<StoreState>,
    /// The `tool` export, when the manifest's kinds include `tool`.
    pub(crate) tool: Option<ToolIndices>,
    /// The `hooks` export, when the manifest's kinds include `hook`.
    pub(crate) hooks: Option<HooksIndices>,
    /// The `skill` export, when the manifest's kinds include `skill`.
    pub(crate) skill: Option<SkillIndices>,
    pub(crate) tools: Vec<ToolInfo>,
    pub(crate) registration: HookRegistration,
    pub(crate) agents: Vec<DeclaredAgent>,
    pub(crate) skills: Vec<DeclaredSkill>,
}

impl PluginHost {
    /// Compiles and links `plugin` on first use; later calls share the result, failure
    /// included (a component that cannot load will not load on the next call either).
    pub(crate) async fn load(&self, plugin: &Plugin) -> Result<Arc<Loaded>, CallError> {
        self.loaded(plugin).await.map_err(|reason| CallError::Load {
            plugin: plugin.name().to_string(),
            reason,
        })
    }

    /// [`PluginHost::load`], with the reason alone.
    pub(crate) async fn loaded(&self, plugin: &Plugin) -> Result<Arc<Loaded>, LoadError> {
        plugin
            .loaded
            .get_or_init(|| async { self.compile(plugin).await.map(Arc::new) })
            .await
            .clone()
    }

    /// Compiles `plugin` (into the cache, when the host has one) and asks it what it
    /// declares, as its first use would: done when a plugin is built or installed, so
    /// that cost is not paid on the model's clock.
    pub async fn prepare(&self, plugin: &Plugin) -> Result<(), CallError> {
        self.load(plugin).await.map(|_| ())
    }

    async fn compile(&self, plugin: &Plugin) -> Result<Loaded, LoadError> {
        let name = plugin.name();
        let bytes = plugin
            .source
            .component
            .load()
            .map_err(|e| LoadError::Read(Arc::new(e)))?;
        // Bytes inside the binary were hashed when it was built, and are trusted as the
        // binary is; a file is hashed here, and checked against its manifest.
        let sha = match plugin.source.component.embedded_sha256() {
            Some(sha) => sha.to_string(),
            None => verified_sha(plugin, &bytes)?,
        };
        let names = compat::component_names(&bytes)?;
        compat::check_imports(&names.imports, &plugin.ceiling)?;
        let api = compat::api_of(&names, &plugin.source.manifest.api)?;

        let precompiled = match plugin.source.component {
            ComponentBytes::Embedded { precompiled, .. } if !precompiled.is_empty() => {
                Some(precompiled)
            }
            _ => None,
        };
        let component = self.compile_cached(name, &sha, &bytes, precompiled).await?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|e| LoadError::Link(e.to_string()))?;
        // Every export the manifest promises is looked up before any is called.
        let tool = export::<ToolIndices>(plugin, &pre, api)?;
        let hooks = export::<HooksIndices>(plugin, &pre, api)?;
        let agent = export::<AgentIndices>(plugin, &pre, api)?;
        let skill = export::<SkillIndices>(plugin, &pre, api)?;

        // What the component declares comes from the component itself, once, under the
        // same limits as any call, in a scope where no rule can ask anyone anything.
        // Declarations that came with the binary or from the cache are not written again.
        let persist = self.cache.as_ref().filter(|_| !meta::embedded(plugin));
        let tools = self
            .declared(plugin, &pre, tool.as_ref(), persist, &sha)
            .await?;
        let registration = self
            .declared(plugin, &pre, hooks.as_ref(), persist, &sha)
            .await?;
        let agents = self
            .declared(plugin, &pre, agent.as_ref(), persist, &sha)
            .await?;
        let skills = self
            .declared(plugin, &pre, skill.as_ref(), persist, &sha)
            .await?;
        self.audit.publish(PluginEvent::Loaded {
            plugin: name.to_string(),
        });
        Ok(Loaded {
            pre,
            tool,
            hooks,
            skill,
            tools,
            registration,
            agents,
            skills,
        })
    }

    async fn compile_cached(
        &self,
        name: &str,
        sha: &str,
        bytes: &[u8],
        precompiled: Option<&'static [u8]>,
    ) -> Result<Component, LoadError> {
        let engine = self.engine.engine().clone();
        if let Some(artifact) = precompiled {
            // SAFETY: the artifact is part of this binary, compiled by this runtime's
            // engine from the component embedded beside it (the build pairs them by the
            // component's SHA-256, `crate::embed`); wasmtime still refuses it when the
            // engine's settings or the running CPU do not match (then it is compiled).
            match unsafe { Component::deserialize(&engine, artifact) } {
                Ok(c) => return Ok(c),
                Err(e) => tracing::debug!(plugin = name, "precompiled artifact not usable: {e}"),
            }
        }
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
            .map_err(|e| LoadError::CompileTask(e.to_string()))?
            .map_err(|e| LoadError::Compile(e.to_string()))?;
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

/// The SHA-256 of a plugin's component file, checked against the one its manifest gives.
fn verified_sha(plugin: &Plugin, bytes: &[u8]) -> Result<String, LoadError> {
    let sha = sha256_hex(bytes);
    match &plugin.source.manifest.sha256 {
        Some(expected) if !expected.eq_ignore_ascii_case(&sha) => Err(LoadError::ShaMismatch {
            manifest: plugin.source.manifest_path.clone(),
            component: plugin.source.manifest.component.clone(),
            actual: sha,
            expected: expected.clone(),
        }),
        _ => Ok(sha),
    }
}

#[cfg(test)]
mod tests {
    use crate::discovery::{Origin, discover};
    use crate::runtime::HostOptions;

    use super::*;

    /// A component whose bytes are not the ones its manifest names is refused before
    /// anything reads them, and the refusal says which digests differ.
    #[tokio::test]
    async fn a_component_with_another_digest_is_not_loaded() {
        let root = std::env::temp_dir().join(format!("ward-load-sha-{}", std::process::id()));
        let dir = root.join("swapped");
        std::fs::create_dir_all(&dir).expect("plugin dir");
        let bytes = b"\0asm not the component the manifest names";
        std::fs::write(dir.join("c.wasm"), bytes).expect("component");
        let expected = "00".repeat(32);
        std::fs::write(
            dir.join("plugin.toml"),
            format!(
                "[plugin]\nname = \"swapped\"\nversion = \"0.1.0\"\napi = \"0.1.0\"\n\
                 kinds = [\"tool\"]\ncomponent = \"c.wasm\"\nsha256 = \"{expected}\"\n"
            ),
        )
        .expect("manifest");
        let found = discover(&[], &[(Origin::Project, root.clone())]);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let options = HostOptions {
            project: root.clone(),
            cache_dir: None,
            audit_log: None,
            grants: Default::default(),
            disabled: Vec::new(),
            sandbox: Default::default(),
            replaces: Default::default(),
            events: None,
        };
        let host = PluginHost::new(found.plugins, options).expect("host");
        let plugin = host.plugins().first().expect("the plugin").clone();
        let err = host.prepare(&plugin).await.expect_err("refused");
        let CallError::Load {
            plugin: name,
            reason,
        } = &err
        else {
            panic!("not a load failure: {err}");
        };
        assert_eq!(name, "swapped");
        let LoadError::ShaMismatch {
            actual,
            expected: said,
            ..
        } = reason
        else {
            panic!("not a digest mismatch: {reason}");
        };
        assert_eq!(
            (actual.as_str(), said.as_str()),
            (sha256_hex(bytes).as_str(), expected.as_str())
        );
        // The failure is kept: the next use gets the same one without reading again.
        std::fs::remove_dir_all(&root).expect("cleanup");
        let again = host.prepare(&plugin).await.expect_err("still refused");
        assert!(
            matches!(
                again,
                CallError::Load {
                    reason: LoadError::ShaMismatch { .. },
                    ..
                }
            ),
            "{again}"
        );
    }
}
