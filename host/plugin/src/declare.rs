//! What a component declares about itself at load, one kind at a time: its tools
//! (`list-tools`), its hooks (`register`), its agents (`agents`), its skills
//! (`list-skills`).
//!
//! Owns the one path every declaration takes ([`PluginHost::declared`]): when the
//! manifest declares the kind, the export is looked up (before any declaration is
//! read, so a missing export fails the load first); each declaration is then read once,
//! in a fresh instance under the plugin's limits (at most ten seconds) in a scope where
//! no rule can ask anyone anything, checked against what the host will keep, and
//! written next to the compiled artifact unless it came from there or with the binary.
//! What differs between the kinds is in their [`Declares`] impls.

use std::time::Duration;

use ward_config::Kind;
use wasmtime::Store;
use wasmtime::component::InstancePre;

use crate::bindings::Api;
use crate::bindings::ToolInfo;
use crate::bindings::guest::{AgentIndices, HooksIndices, Interface, SkillIndices, ToolIndices};
use crate::cache::ArtifactCache;
use crate::error::trap_message;
use crate::hooks::HookRegistration;
use crate::kinds::{DeclaredAgent, DeclaredSkill};
use crate::load_error::{DeclarationRefused, LoadError};
use crate::meta;
use crate::runtime::{Plugin, PluginHost};
use crate::state::{CallScope, StoreState};

/// An export interface through which a component declares something at load.
pub(crate) trait Declares: Interface {
    /// The kind whose export it is.
    const KIND: Kind;
    /// The interface's name, for a missing export: `tool`.
    const INTERFACE: &'static str;
    /// Reading it, for an error: `listing its tools`.
    const READING: &'static str;
    /// What the host keeps of the declaration.
    type Declared: Default;

    /// Reads the declaration from `guest`.
    async fn read(
        guest: &Self::Guest,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Self::Declared>;

    /// Refuses a declaration the host will not keep.
    fn check(plugin: &Plugin, declared: &Self::Declared) -> Result<(), DeclarationRefused>;

    /// Writes it to `cache` under the component's digest `sha`, unless `plugin` already
    /// had it from there.
    fn persist(plugin: &Plugin, cache: &ArtifactCache, sha: &str, declared: &Self::Declared);
}

impl Declares for ToolIndices {
    const KIND: Kind = Kind::Tool;
    const INTERFACE: &'static str = "tool";
    const READING: &'static str = "listing its tools";
    type Declared = Vec<ToolInfo>;

    async fn read(
        guest: &Self::Guest,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<ToolInfo>> {
        guest.call_list_tools(store).await
    }

    fn check(_: &Plugin, tools: &Vec<ToolInfo>) -> Result<(), DeclarationRefused> {
        // Checking arguments against a schema runs on the host, outside the sandbox's
        // limits: a schema that could make it costly is refused here.
        crate::tool_schema::check_tools(tools)
    }

    fn persist(plugin: &Plugin, cache: &ArtifactCache, sha: &str, tools: &Vec<ToolInfo>) {
        if plugin.tools.get().is_none() {
            meta::put_tools(cache, sha, tools);
        }
    }
}

impl Declares for HooksIndices {
    const KIND: Kind = Kind::Hook;
    const INTERFACE: &'static str = "hooks";
    const READING: &'static str = "declaring its hooks";
    type Declared = HookRegistration;

    async fn read(
        guest: &Self::Guest,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<HookRegistration> {
        guest.call_register(store).await.map(HookRegistration::from)
    }

    fn check(_: &Plugin, _: &HookRegistration) -> Result<(), DeclarationRefused> {
        Ok(())
    }

    fn persist(plugin: &Plugin, cache: &ArtifactCache, sha: &str, hooks: &HookRegistration) {
        if plugin.registration.get().is_none() {
            meta::put_hooks(cache, sha, hooks);
        }
    }
}

impl Declares for AgentIndices {
    const KIND: Kind = Kind::Agent;
    const INTERFACE: &'static str = "agent";
    const READING: &'static str = "declaring its agents";
    type Declared = Vec<DeclaredAgent>;

    async fn read(
        guest: &Self::Guest,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<DeclaredAgent>> {
        let declared = guest.call_agents(store).await?;
        Ok(declared.into_iter().map(DeclaredAgent::from).collect())
    }

    fn check(plugin: &Plugin, agents: &Vec<DeclaredAgent>) -> Result<(), DeclarationRefused> {
        within_limit(plugin, "its agent definitions", agents)
    }

    fn persist(_: &Plugin, cache: &ArtifactCache, sha: &str, agents: &Vec<DeclaredAgent>) {
        meta::put_agents(cache, sha, agents);
    }
}

impl Declares for SkillIndices {
    const KIND: Kind = Kind::Skill;
    const INTERFACE: &'static str = "skill";
    const READING: &'static str = "listing its skills";
    type Declared = Vec<DeclaredSkill>;

    async fn read(
        guest: &Self::Guest,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<DeclaredSkill>> {
        let declared = guest.call_list_skills(store).await?;
        Ok(declared.into_iter().map(DeclaredSkill::from).collect())
    }

    fn check(plugin: &Plugin, skills: &Vec<DeclaredSkill>) -> Result<(), DeclarationRefused> {
        within_limit(plugin, "its skill list", skills)
    }

    fn persist(_: &Plugin, cache: &ArtifactCache, sha: &str, skills: &Vec<DeclaredSkill>) {
        meta::put_skills(cache, sha, skills);
    }
}

/// Export `D` of the linked component `pre` (built for `api`), when `plugin`'s
/// manifest declares its kind; an error when the component does not export it.
pub(crate) fn export<D: Declares>(
    plugin: &Plugin,
    pre: &InstancePre<StoreState>,
    api: Api,
) -> Result<Option<D>, LoadError> {
    if !plugin.is(D::KIND) {
        return Ok(None);
    }
    D::new(pre, api)
        .map(Some)
        .map_err(|e| LoadError::MissingExport {
            interface: D::INTERFACE,
            message: e.to_string(),
        })
}

impl PluginHost {
    /// What `plugin` declares through `exports` (nothing without them), read from a
    /// fresh instance of `pre`, checked, and written to `persist` under `sha`.
    pub(crate) async fn declared<D: Declares>(
        &self,
        plugin: &Plugin,
        pre: &InstancePre<StoreState>,
        exports: Option<&D>,
        persist: Option<&ArtifactCache>,
        sha: &str,
    ) -> Result<D::Declared, LoadError> {
        let Some(exports) = exports else {
            return Ok(D::Declared::default());
        };
        let time = plugin.limits.time.min(Duration::from_secs(10));
        let env = self.call_env(plugin, CallScope::detached(&self.project), time);
        let declared = match self.instance(pre, exports, env).await {
            Ok(mut i) => D::read(&i.guest, &mut i.store).await,
            Err(failed) if failed.instantiating => {
                return Err(LoadError::Instantiate(trap_message(&failed.trap)));
            }
            Err(failed) => Err(failed.trap),
        }
        .map_err(|e| LoadError::Declaring {
            reading: D::READING,
            message: trap_message(&e),
        })?;
        D::check(plugin, &declared)?;
        if let Some(cache) = persist {
            D::persist(plugin, cache, sha, &declared);
        }
        Ok(declared)
    }
}

/// Refuses a declaration larger than the plugin's output limit: a component cannot
/// make the host keep (and cache, and send to the model) more than a call could return.
fn within_limit<T: serde::Serialize>(
    plugin: &Plugin,
    what: &'static str,
    value: &T,
) -> Result<(), DeclarationRefused> {
    let size = serde_json::to_vec(value).map_or(usize::MAX, |v| v.len());
    let limit = plugin.limits.output_bytes;
    if size > limit {
        return Err(DeclarationRefused::TooLarge { what, size, limit });
    }
    Ok(())
}
