//! What a component says about itself — its tool list, hook registration, agents and
//! skill list —
//! kept in the artifact cache next to its compiled code, keyed by the component's
//! SHA-256, so listing a plugin's tools or hooks never needs a compile.
//!
//! Both come from functions the contract says have no side effects (`list-tools`,
//! `register`), so the answer for given bytes never changes; entries are sealed like
//! every cache entry.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::bindings::ToolInfo;
use crate::cache::{ArtifactCache, sha256_hex};
use crate::hooks::HookRegistration;
use crate::kinds::{DeclaredAgent, DeclaredSkill};
use crate::runtime::Plugin;

/// The component's SHA-256: the manifest's when it gives one (verified at load),
/// else computed from the bytes.
pub(crate) fn component_sha(plugin: &Plugin) -> Option<String> {
    plugin.source.manifest.sha256.clone().or_else(|| {
        let bytes = plugin.source.component.load().ok()?;
        Some(sha256_hex(&bytes))
    })
}

/// The cached tool list of `plugin`, if any.
pub(crate) fn tools(cache: &ArtifactCache, plugin: &Plugin) -> Option<Vec<ToolInfo>> {
    let sha = component_sha(plugin)?;
    get::<Vec<ToolMeta>>(cache, &format!("{sha}.tools.json"))
        .map(|v| v.into_iter().map(ToolInfo::from).collect())
}

/// Caches the tool list of the component with digest `sha`.
pub(crate) fn put_tools(cache: &ArtifactCache, sha: &str, tools: &[ToolInfo]) {
    let meta: Vec<ToolMeta> = tools.iter().map(ToolMeta::from).collect();
    put(cache, &format!("{sha}.tools.json"), &meta);
}

/// The cached hook registration of `plugin`, if any.
pub(crate) fn hooks(cache: &ArtifactCache, plugin: &Plugin) -> Option<HookRegistration> {
    let sha = component_sha(plugin)?;
    get(cache, &format!("{sha}.hooks.json"))
}

/// Caches the hook registration of the component with digest `sha`.
pub(crate) fn put_hooks(cache: &ArtifactCache, sha: &str, registration: &HookRegistration) {
    put(cache, &format!("{sha}.hooks.json"), registration);
}

/// The cached agent definitions of `plugin`, if any.
pub(crate) fn agents(cache: &ArtifactCache, plugin: &Plugin) -> Option<Vec<DeclaredAgent>> {
    let sha = component_sha(plugin)?;
    get(cache, &format!("{sha}.agents.json"))
}

/// Caches the agent definitions of the component with digest `sha`.
pub(crate) fn put_agents(cache: &ArtifactCache, sha: &str, agents: &[DeclaredAgent]) {
    put(cache, &format!("{sha}.agents.json"), agents);
}

/// The cached skill list of `plugin`, if any.
pub(crate) fn skills(cache: &ArtifactCache, plugin: &Plugin) -> Option<Vec<DeclaredSkill>> {
    let sha = component_sha(plugin)?;
    get(cache, &format!("{sha}.skills.json"))
}

/// Caches the skill list of the component with digest `sha`.
pub(crate) fn put_skills(cache: &ArtifactCache, sha: &str, skills: &[DeclaredSkill]) {
    put(cache, &format!("{sha}.skills.json"), skills);
}

fn get<T: DeserializeOwned>(cache: &ArtifactCache, name: &str) -> Option<T> {
    let (_, bytes) = cache.get(name);
    serde_json::from_slice(&bytes?).ok()
}

fn put<T: Serialize + ?Sized>(cache: &ArtifactCache, name: &str, value: &T) {
    // A failed write only costs a compile next time.
    if let Ok(json) = serde_json::to_vec(value)
        && let Err(e) = cache.put(name, &json)
    {
        tracing::debug!("cannot cache {name}: {e}");
    }
}

/// The serialized form of a [`ToolInfo`].
#[derive(serde::Serialize, serde::Deserialize)]
struct ToolMeta {
    name: String,
    description: String,
    parameters: String,
}

impl From<&ToolInfo> for ToolMeta {
    fn from(t: &ToolInfo) -> Self {
        ToolMeta {
            name: t.name.clone(),
            description: t.description.clone(),
            parameters: t.parameters.clone(),
        }
    }
}

impl From<ToolMeta> for ToolInfo {
    fn from(t: ToolMeta) -> Self {
        ToolInfo {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        }
    }
}
