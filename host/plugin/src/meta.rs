//! What a component says about itself — its tool list, hook registration, agents and
//! skill list — so listing a plugin's tools or hooks never needs a compile or even a
//! load: for a standard plugin, embedded in the binary when it was built; for any other,
//! kept in the artifact cache next to its compiled code, keyed by the component's
//! SHA-256.
//!
//! All come from functions the contract says have no side effects (`list-tools`,
//! `register`, `agents`, `list-skills`), so the answer for given bytes never changes;
//! cache entries are sealed like every cache entry.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::bindings::ToolInfo;
use crate::cache::{ArtifactCache, sha256_hex};
use crate::hooks::HookRegistration;
use crate::kinds::{DeclaredAgent, DeclaredSkill};
use crate::runtime::Plugin;

/// The component's SHA-256: the one computed when `ward` was built for a standard
/// plugin, the manifest's when it gives one (verified at load), else computed from the
/// bytes.
pub(crate) fn component_sha(plugin: &Plugin) -> Option<String> {
    if let Some(sha) = plugin.source.component.embedded_sha256() {
        return Some(sha.to_string());
    }
    plugin.source.manifest.sha256.clone().or_else(|| {
        let bytes = plugin.source.component.load().ok()?;
        Some(sha256_hex(&bytes))
    })
}

/// Whether `plugin`'s declarations came with the binary (then nothing about them is
/// cached: they are already at hand).
pub(crate) fn embedded(plugin: &Plugin) -> bool {
    plugin.source.component.embedded_declarations().is_some()
}

/// The known tool list of `plugin`, if any: embedded, else cached.
pub(crate) fn tools(cache: Option<&ArtifactCache>, plugin: &Plugin) -> Option<Vec<ToolInfo>> {
    known::<Vec<ToolMeta>>(cache, plugin, "tools")
        .map(|v| v.into_iter().map(ToolInfo::from).collect())
}

/// Caches the tool list of the component with digest `sha`.
pub(crate) fn put_tools(cache: &ArtifactCache, sha: &str, tools: &[ToolInfo]) {
    let meta: Vec<ToolMeta> = tools.iter().map(ToolMeta::from).collect();
    put(cache, &format!("{sha}.tools.json"), &meta);
}

/// The known hook registration of `plugin`, if any: embedded, else cached.
pub(crate) fn hooks(cache: Option<&ArtifactCache>, plugin: &Plugin) -> Option<HookRegistration> {
    known(cache, plugin, "hooks")
}

/// Caches the hook registration of the component with digest `sha`.
pub(crate) fn put_hooks(cache: &ArtifactCache, sha: &str, registration: &HookRegistration) {
    put(cache, &format!("{sha}.hooks.json"), registration);
}

/// The known agent definitions of `plugin`, if any: embedded, else cached.
pub(crate) fn agents(cache: Option<&ArtifactCache>, plugin: &Plugin) -> Option<Vec<DeclaredAgent>> {
    known(cache, plugin, "agents")
}

/// Caches the agent definitions of the component with digest `sha`.
pub(crate) fn put_agents(cache: &ArtifactCache, sha: &str, agents: &[DeclaredAgent]) {
    put(cache, &format!("{sha}.agents.json"), agents);
}

/// The known skill list of `plugin`, if any: embedded, else cached.
pub(crate) fn skills(cache: Option<&ArtifactCache>, plugin: &Plugin) -> Option<Vec<DeclaredSkill>> {
    known(cache, plugin, "skills")
}

/// Caches the skill list of the component with digest `sha`.
pub(crate) fn put_skills(cache: &ArtifactCache, sha: &str, skills: &[DeclaredSkill]) {
    put(cache, &format!("{sha}.skills.json"), skills);
}

/// Section `section` of `plugin`'s embedded declarations, else its cache entry. An
/// embedded section that is missing or does not parse falls back to asking the
/// component (a load), never to a guess.
/// What `loaded` declared, as the JSON object embedded beside a standard plugin: a
/// section per kind, read back by [`known`].
pub(crate) fn sections(loaded: &crate::load::Loaded) -> serde_json::Value {
    let tools: Vec<ToolMeta> = loaded.tools.iter().map(ToolMeta::from).collect();
    serde_json::json!({
        "tools": tools,
        "hooks": loaded.registration,
        "agents": loaded.agents,
        "skills": loaded.skills,
    })
}

fn known<T: DeserializeOwned>(
    cache: Option<&ArtifactCache>,
    plugin: &Plugin,
    section: &str,
) -> Option<T> {
    if let Some(json) = plugin.source.component.embedded_declarations() {
        let mut all: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(json).ok()?;
        return serde_json::from_value(all.remove(section)?).ok();
    }
    let sha = component_sha(plugin)?;
    get(cache?, &format!("{sha}.{section}.json"))
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
