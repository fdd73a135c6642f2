//! What a project's plugins are given and where they are found: the grants in force
//! for each (config, else the install lock, pinned to what was granted), the
//! directories searched, and what loaded components declare beyond tools.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ward_config::LoadedConfig;
use ward_plugin::discovery::{Origin, PluginSource};
use ward_plugin::{DeclaredAgent, PluginHost};
use ward_skill::SkillInfo;

/// Grants per plugin: `[plugins.NAME] grant` from config, else the grants recorded in
/// `ward.lock` by `ward plugin install/grant`, pinned to what each manifest asked for
/// when they were given (what it asks for since is reported in `errors` and stays off
/// until granted). An unreadable lock grants nothing and is reported in `errors`.
pub(crate) fn grants(
    config: &LoadedConfig,
    plugins: &[PluginSource],
    errors: &mut Vec<String>,
) -> BTreeMap<String, Vec<String>> {
    let mut grants: BTreeMap<String, Vec<String>> = config
        .config
        .plugins
        .iter()
        .filter_map(|(name, p)| {
            let grants = p.grant.as_ref()?;
            Some((
                name.clone(),
                grants.iter().map(ToString::to_string).collect(),
            ))
        })
        .collect();
    // An untrusted project's lock is the repository's word, not a person's grant.
    let lock = match config.trust.restricted() {
        true => Ok(ward_market::Lock::default()),
        false => ward_market::Lock::load(&config.project_root),
    };
    match lock {
        Ok(lock) => {
            for entry in &lock.plugins {
                if grants.contains_key(&entry.name) {
                    continue;
                }
                let now: Vec<ward_config::Grant> = plugins
                    .iter()
                    .find(|p| p.manifest.name == entry.name)
                    .map(|p| ward_market::requested(&p.manifest.capabilities))
                    .map(|asks| asks.into_iter().map(|r| r.grant).collect())
                    .unwrap_or_else(|| entry.requested.clone());
                let (pinned, since) = ward_market::grants::pinned(entry, &now);
                if !since.is_empty() {
                    let since: Vec<String> = since.iter().map(ToString::to_string).collect();
                    errors.push(format!(
                        "plugin `{}` asks for {} since it was granted; not in effect until a \
                         person grants it (`ward plugin grant {} {}`)",
                        entry.name,
                        since.join(", "),
                        entry.name,
                        since.join(" ")
                    ));
                }
                let pinned = pinned.iter().map(ToString::to_string).collect();
                grants.insert(entry.name.clone(), pinned);
            }
        }
        Err(e) => errors.push(format!("{e} (its grants are ignored)")),
    }
    grants
}

/// The plugin directories of `config`: the user's, the project's, then those config
/// names.
pub(crate) fn search_path(config: &LoadedConfig) -> Vec<(Origin, PathBuf)> {
    let mut search = Vec::new();
    if let Some(dir) = ward_config::global_config_dir(&|k| std::env::var(k).ok()) {
        search.push((Origin::User, dir.join("plugins")));
    }
    // An untrusted project's plugins do not load (named by the trust warning).
    if !config.trust.restricted() {
        search.push((Origin::Project, config.project_root.join(".ward/plugins")));
    }
    for p in &config.config.plugin_paths {
        search.push((Origin::Config, PathBuf::from(p)));
    }
    for plugin in config.config.plugins.values() {
        if let Some(p) = &plugin.path {
            search.push((Origin::Config, PathBuf::from(p)));
        }
    }
    search
}

/// What plugin components declare beyond tools and hooks.
pub(crate) struct Declared {
    /// `(plugin, agent)` pairs.
    pub(crate) agents: Vec<(String, DeclaredAgent)>,
    pub(crate) skills: Vec<SkillInfo>,
}

impl Declared {
    /// Asks every enabled agent and skill plugin (from the cache when it can); a
    /// plugin that cannot answer is reported in `errors` and contributes nothing.
    pub(crate) async fn collect(host: &PluginHost, errors: &mut Vec<String>) -> Self {
        let mut declared = Declared {
            agents: Vec::new(),
            skills: Vec::new(),
        };
        for plugin in host.plugins() {
            if plugin.disabled_reason().is_some() {
                continue;
            }
            match host.agents_of(plugin).await {
                Ok(agents) => declared
                    .agents
                    .extend(agents.into_iter().map(|a| (plugin.name().to_string(), a))),
                Err(e) => errors.push(format!("plugin `{}`: {e}", plugin.name())),
            }
            match host.skills_of(plugin).await {
                Ok(skills) => declared.skills.extend(
                    skills
                        .iter()
                        .map(|s| SkillInfo::from_plugin(plugin.name(), &s.name, &s.description)),
                ),
                Err(e) => errors.push(format!("plugin `{}`: {e}", plugin.name())),
            }
        }
        declared
    }
}
