//! Agents and skills that components provide (the `agent` and `skill` interfaces).
//!
//! What a component declares — its agents, its skill list — comes from functions the
//! contract says have no side effects, so it is read once per component, under the
//! plugin's limits in a scope where nothing can be asked, and cached by the
//! component's digest next to its compiled code: listing agents and skills at start-up
//! needs no compile after the first run. Loading a skill's content is a call like any
//! tool call, down the same path ([`crate::instance`]): a fresh store, the plugin's
//! grants, its limits and its strikes.
//!
//! Nothing here decides what a declared agent may do: the agent crate turns the
//! declared rules into a narrowing layer, so a component's agent can only tighten the
//! user's rules.

use serde::{Deserialize, Serialize};
use ward_config::Kind;

use crate::bindings::guest::SkillIndices;
use crate::bindings::{agent, skill};
use crate::error::CallError;
use crate::meta;
use crate::runtime::{Plugin, PluginHost};
use crate::state::CallScope;

/// An agent a component defines, as declared (not yet validated).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeclaredAgent {
    /// Its name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// `primary`, `subagent` or `all`.
    pub mode: String,
    /// Hidden from listings and `@` mentions.
    pub hidden: bool,
    /// Its system prompt.
    pub prompt: Option<String>,
    /// `provider/model`.
    pub model: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Nucleus sampling.
    pub top_p: Option<f32>,
    /// Maximum loop steps.
    pub steps: Option<u32>,
    /// Its rules as `(permission, pattern, action)`, action `allow`, `ask` or `deny`.
    pub permission: Vec<(String, String, String)>,
}

/// A skill a component provides, as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredSkill {
    /// Its name.
    pub name: String,
    /// What it is for and when to use it.
    pub description: String,
}

/// A skill's content, as a component returned it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillContent {
    /// The instructions (markdown).
    pub content: String,
    /// Names of the supporting files that come with it.
    pub files: Vec<String>,
}

impl PluginHost {
    /// The agents `plugin` defines (none unless its manifest says `agent`).
    pub async fn agents_of(&self, plugin: &Plugin) -> Result<Vec<DeclaredAgent>, CallError> {
        if !plugin.is(Kind::Agent) {
            return Ok(Vec::new());
        }
        if let Some(agents) = meta::agents(self.cache.as_ref(), plugin) {
            return Ok(agents);
        }
        Ok(self.load(plugin).await?.agents.clone())
    }

    /// The skills `plugin` provides (none unless its manifest says `skill`).
    pub async fn skills_of(&self, plugin: &Plugin) -> Result<Vec<DeclaredSkill>, CallError> {
        if !plugin.is(Kind::Skill) {
            return Ok(Vec::new());
        }
        if let Some(skills) = meta::skills(self.cache.as_ref(), plugin) {
            return Ok(skills);
        }
        Ok(self.load(plugin).await?.skills.clone())
    }

    /// Loads skill `name` from `plugin` under `scope`.
    pub async fn load_skill(
        &self,
        plugin: &Plugin,
        name: &str,
        scope: CallScope,
    ) -> Result<SkillContent, CallError> {
        let loaded = self.ready::<SkillIndices>(plugin).await?;
        let env = self.call_env(plugin, scope, plugin.limits.time);
        self.run::<SkillIndices, _, _>(
            plugin,
            &loaded,
            env,
            async |guest, store| guest.call_load(store, name).await,
            |answer, _| match answer {
                Ok(content) => checked_content(plugin, content),
                Err(message) => Err(CallError::BadResult {
                    plugin: plugin.name().to_string(),
                    message: format!("cannot load skill `{name}`: {message}"),
                }),
            },
        )
        .await
    }
}

/// A skill's content within the plugin's output limit.
fn checked_content(plugin: &Plugin, c: skill::SkillContent) -> Result<SkillContent, CallError> {
    let size = c.content.len() + c.files.iter().map(String::len).sum::<usize>();
    if size > plugin.limits.output_bytes {
        return Err(CallError::OutputTooLarge {
            plugin: plugin.name().to_string(),
            size,
            limit: plugin.limits.output_bytes,
        });
    }
    Ok(SkillContent {
        content: c.content,
        files: c.files,
    })
}

impl From<agent::AgentInfo> for DeclaredAgent {
    fn from(a: agent::AgentInfo) -> Self {
        let mode = match a.mode {
            agent::AgentMode::Primary => "primary",
            agent::AgentMode::Subagent => "subagent",
            agent::AgentMode::All => "all",
        };
        DeclaredAgent {
            name: a.name,
            description: a.description,
            mode: mode.to_string(),
            hidden: a.hidden,
            prompt: a.prompt,
            model: a.model,
            temperature: a.temperature,
            top_p: a.top_p,
            steps: a.steps,
            permission: a
                .permission
                .into_iter()
                .map(|r| {
                    let action = match r.action {
                        crate::bindings::types::Action::Allow => "allow",
                        crate::bindings::types::Action::Ask => "ask",
                        crate::bindings::types::Action::Deny => "deny",
                    };
                    (r.permission, r.pattern, action.to_string())
                })
                .collect(),
        }
    }
}

impl From<skill::SkillInfo> for DeclaredSkill {
    fn from(s: skill::SkillInfo) -> Self {
        DeclaredSkill {
            name: s.name,
            description: s.description,
        }
    }
}
