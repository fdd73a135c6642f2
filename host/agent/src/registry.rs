//! [`AgentRegistry`]: every agent after built-ins, configuration and markdown
//! files are merged, and the checked default agent.
//!
//! Loading never fails: each problem is a [`Warning`] and the definition it
//! concerns is skipped, so Ward always starts with at least one usable
//! primary agent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ward_config::Config;

use crate::builtin::{self, BUILD};
use crate::info::AgentInfo;
use crate::merge::Agents;
use crate::{component, config, markdown};
use ward_config::Warning;
use ward_plugin::DeclaredAgent;

/// All agents by name, and which one a new session starts with.
#[derive(Debug, Clone)]
pub struct AgentRegistry {
    agents: BTreeMap<String, AgentInfo>,
    /// A copy of the default agent, so it can be returned without a lookup
    /// that could fail.
    default: AgentInfo,
}

impl AgentRegistry {
    /// Loads the agents, in increasing precedence: built-ins, OpenCode's global
    /// agent files (`~/.config/opencode/agent(s)/`), markdown files under
    /// `<global_dir>/agents/`, `config.agent`, OpenCode's agent files under
    /// `<project_root>/.opencode/agent(s)/`, Claude Code's under
    /// `<project_root>/.claude/agents/`, markdown files under
    /// `<project_root>/.ward/agents/`. Each definition overrides only the
    /// fields it sets.
    ///
    /// Then checks `config.default_agent`: it must name an existing, enabled,
    /// visible primary agent. If it does not, a warning explains why and
    /// `build` (or, when `build` is gone, the first primary agent by name) is
    /// used. If no primary agent is left at all, the built-in `build` is
    /// restored with a warning.
    pub fn load(
        config: &Config,
        project_root: &Path,
        global_dir: Option<&Path>,
    ) -> (AgentRegistry, Vec<Warning>) {
        Self::load_with_components(config, project_root, global_dir, &[], None)
    }

    /// [`load`](Self::load), with the agents plugin components declare
    /// (`(plugin, agent)` pairs) applied right after the built-ins, so every
    /// file and config table can still override them. A component cannot
    /// redefine a built-in agent, and its rules only narrow (see [`crate`]).
    ///
    /// `untrusted`: the project is not trusted, and these are the agents its
    /// configuration layers define (kept apart from `config`). Then every project
    /// agent — those and the project's agent files — is applied as a component's
    /// is: it may not replace a built-in agent or one of the user's own, and its
    /// rules only narrow.
    pub fn load_with_components(
        config: &Config,
        project_root: &Path,
        global_dir: Option<&Path>,
        components: &[(String, DeclaredAgent)],
        untrusted: Option<&BTreeMap<String, ward_config::AgentConfig>>,
    ) -> (AgentRegistry, Vec<Warning>) {
        let mut warnings = Vec::new();
        let builtins = builtin::all();
        let taken: BTreeSet<String> = builtins.iter().map(|a| a.name.clone()).collect();
        let mut agents = Agents::new(builtins);
        for definition in component::definitions(components, &taken, &mut warnings) {
            agents.apply(definition);
        }
        use ward_config::opencode;
        let mut global_dirs = opencode::global_dirs(global_dir, opencode::AGENT_DIRS);
        global_dirs.extend(global_dir.map(|global| global.join("agents")));
        for dir in global_dirs {
            for definition in markdown::definitions(&dir, &mut warnings) {
                agents.apply(definition);
            }
        }
        for definition in config::definitions(config, &mut warnings) {
            agents.apply(definition);
        }
        let mut project_dirs = opencode::project_dirs(project_root, opencode::AGENT_DIRS);
        project_dirs.extend([".claude", ".ward"].map(|p| project_root.join(p).join("agents")));
        let mut project = Vec::new();
        if let Some(held) = untrusted {
            let held = Config {
                agent: held.clone(),
                ..Config::default()
            };
            project.extend(config::definitions(&held, &mut warnings));
        }
        for dir in project_dirs {
            project.extend(markdown::definitions(&dir, &mut warnings));
        }
        let users: BTreeSet<String> = project
            .iter()
            .filter(|d| agents.has(&d.name))
            .map(|d| d.name.clone())
            .collect();
        for mut definition in project {
            if untrusted.is_some() {
                if users.contains(&definition.name) {
                    warnings.push(Warning::new(format!(
                        "the project's agent `{}` would replace the built-in or your own \
                         agent of that name; not used until you trust the project (`ward trust`)",
                        definition.name
                    )));
                    continue;
                }
                definition.rules = definition
                    .rules
                    .map(|r| ward_permission::Ruleset::narrowing(r.source, r.rules));
            }
            agents.apply(definition);
        }
        let (mut agents, disabled) = agents.finish();
        let default = choose_default(
            config.default_agent.as_deref(),
            &mut agents,
            &disabled,
            &mut warnings,
        );
        (AgentRegistry { agents, default }, warnings)
    }

    /// The agent called `name`, hidden ones included.
    pub fn get(&self, name: &str) -> Option<&AgentInfo> {
        self.agents.get(name)
    }

    /// Every agent, sorted by name, hidden ones included (callers filter on
    /// [`AgentInfo::hidden`] and the mode).
    pub fn list(&self) -> impl Iterator<Item = &AgentInfo> {
        self.agents.values()
    }

    /// The agent a new session starts with: a visible primary agent.
    pub fn default_agent(&self) -> &AgentInfo {
        &self.default
    }

    /// The agents the task tool and `@agent` mentions can start: mode
    /// `subagent` or `all`, not hidden, sorted by name.
    pub fn subagents(&self) -> impl Iterator<Item = &AgentInfo> {
        self.agents
            .values()
            .filter(|a| a.is_subagent() && !a.hidden)
    }
}

/// Whether `agent` can be a session's default agent.
fn usable_default(agent: &AgentInfo) -> bool {
    agent.is_primary() && !agent.hidden
}

/// Picks the default agent, warning when `requested` cannot be used, and
/// restoring `build` when no primary agent is left.
fn choose_default(
    requested: Option<&str>,
    agents: &mut BTreeMap<String, AgentInfo>,
    disabled: &BTreeSet<String>,
    warnings: &mut Vec<Warning>,
) -> AgentInfo {
    if !agents.values().any(usable_default) {
        warnings.push(Warning::new(format!(
            "no visible primary agent is left (all are disabled, hidden or subagents); \
             using the built-in `{BUILD}`"
        )));
        let build = builtin::build();
        agents.insert(build.name.clone(), build);
    }
    let primaries: Vec<&AgentInfo> = agents.values().filter(|a| usable_default(a)).collect();
    // Not empty: a usable `build` was inserted above if nothing else was.
    let fallback = primaries
        .iter()
        .find(|a| a.name == BUILD)
        .or(primaries.first())
        .map_or_else(builtin::build, |a| (*a).clone());
    let Some(name) = requested else {
        return fallback;
    };
    let problem = match agents.get(name) {
        Some(agent) if usable_default(agent) => return agent.clone(),
        Some(agent) if agent.hidden => "names a hidden agent",
        Some(_) => "names a subagent",
        None if disabled.contains(name) => "names a disabled agent",
        None => "names no agent",
    };
    let names: Vec<&str> = primaries.iter().map(|a| a.name.as_str()).collect();
    warnings.push(Warning::new(format!(
        "`default_agent = \"{name}\"` {problem}; choose a primary agent: {}; using `{}`",
        names.join(", "),
        fallback.name
    )));
    fallback
}
