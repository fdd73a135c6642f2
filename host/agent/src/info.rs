//! [`AgentInfo`]: one agent as the rest of Ward sees it — persona (prompt,
//! description, colour), model settings, limits, and the permission layers it
//! contributes — plus [`AgentSource`], where its definition came from.

use std::path::PathBuf;

use ward_permission::{Rule, Ruleset, defaults};

pub use ward_config::AgentMode;

/// Where an agent's effective definition came from: the highest-precedence
/// definition that was applied to it (a built-in overridden in `ward.toml` is
/// [`AgentSource::Config`]; [`AgentInfo::native`] still says it is a built-in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    /// One of Ward's built-in agents, unchanged.
    Builtin,
    /// An `[agent.NAME]` table of the merged configuration. Which layer (global
    /// or project `ward.toml`, …) set it is recorded by `ward_config::Origins`,
    /// not here.
    Config,
    /// A markdown file under `.ward/agents/` or `<global config>/agents/`.
    Markdown {
        /// The file, as found under the agents directory.
        path: PathBuf,
    },
    /// A plugin component exporting the `agent` interface.
    Component {
        /// The plugin's name.
        plugin: String,
    },
}

/// One agent, after built-ins, configuration and markdown files are merged.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentInfo {
    /// Unique name; markdown agents in subdirectories use `/`, e.g.
    /// `review/security`.
    pub name: String,
    /// When to use the agent; shown to the model for subagents (task tool).
    pub description: Option<String>,
    /// Where the agent can be used: as the session's agent, through the task
    /// tool, or both.
    pub mode: AgentMode,
    /// Hidden agents (`compaction`, `title`, `summary`, or any agent with
    /// `hidden = true`) are left out of agent lists, `@` completion and the
    /// task tool; Ward runs them itself.
    pub hidden: bool,
    /// Whether this is one of Ward's built-in agents (possibly overridden).
    pub native: bool,
    /// Model override as `provider/model`; `None` uses the session's model.
    pub model: Option<String>,
    /// Sampling temperature; `None` uses the provider's default.
    pub temperature: Option<f64>,
    /// Nucleus sampling; `None` uses the provider's default.
    pub top_p: Option<f64>,
    /// The model variant (a reasoning effort, a thinking budget) by name; `None`
    /// sends the model's defaults.
    pub variant: Option<String>,
    /// The agent's system prompt. `None` means the base prompt of the model
    /// family is used (`build`), or that the caller supplies its own (the
    /// session crate's compaction prompt for `compaction`).
    pub prompt: Option<String>,
    /// Maximum loop steps before the agent must answer in text; `None` means
    /// no agent-specific limit.
    pub steps: Option<u32>,
    /// Colour shown in interfaces, e.g. `#ff8800` or a colour name.
    pub color: Option<String>,
    /// The agent's built-in permission layer (source `agent NAME`), evaluated
    /// right after [`defaults`] and *before* the configuration's
    /// `[permission]`; empty for agents that are not built-ins.
    pub rules: Ruleset,
    /// The agent's configured permission layers, evaluated *after* the
    /// configuration's `[permission]`: one per definition that set
    /// `permission` (`[agent.NAME]`, markdown front matter), in precedence
    /// order, each named after its source.
    pub configured_rules: Vec<Ruleset>,
    /// Where the effective definition came from.
    pub source: AgentSource,
}

impl AgentInfo {
    /// A new agent with nothing set: mode `all`, visible, no rules.
    pub(crate) fn blank(name: &str, source: AgentSource) -> Self {
        AgentInfo {
            name: name.to_string(),
            description: None,
            mode: AgentMode::All,
            hidden: false,
            native: false,
            model: None,
            temperature: None,
            top_p: None,
            variant: None,
            prompt: None,
            steps: None,
            color: None,
            rules: Ruleset::new(format!("agent {name}"), Vec::new()),
            configured_rules: Vec::new(),
            source,
        }
    }

    /// Whether the agent can be a session's agent (mode `primary` or `all`).
    pub fn is_primary(&self) -> bool {
        matches!(self.mode, AgentMode::Primary | AgentMode::All)
    }

    /// Whether the agent can be started through the task tool (mode
    /// `subagent` or `all`).
    pub fn is_subagent(&self) -> bool {
        matches!(self.mode, AgentMode::Subagent | AgentMode::All)
    }

    /// The permission layers for a request made by this agent, in evaluation
    /// order: [`defaults`], the agent's built-in [`rules`](Self::rules),
    /// `permission` (the configuration's `[permission]`, parsed by the caller),
    /// then the agent's [`configured_rules`](Self::configured_rules). The session
    /// layer goes on top ([`session_layers`](Self::session_layers)), then the
    /// engine's approvals; the last matching rule wins.
    pub fn layers(&self, permission: &Ruleset) -> Vec<Ruleset> {
        let mut layers = Vec::with_capacity(3 + self.configured_rules.len());
        layers.push(defaults());
        layers.push(self.rules.clone());
        layers.push(permission.clone());
        layers.extend(self.configured_rules.iter().cloned());
        layers
    }

    /// [`layers`](Self::layers) with a session's own rules on top (the `session`
    /// layer: defaults → agent → config → agent config → session; the permission
    /// engine adds the approvals after it). No layer is added for a session without
    /// rules.
    pub fn session_layers(&self, permission: &Ruleset, session: &[Rule]) -> Vec<Ruleset> {
        let mut layers = self.layers(permission);
        if !session.is_empty() {
            layers.push(Ruleset::new("session", session.to_vec()));
        }
        layers
    }
}

#[cfg(test)]
mod tests {
    use ward_permission::{Action, Rule, evaluate};

    use super::*;

    #[test]
    fn modes() {
        let mut agent = AgentInfo::blank("x", AgentSource::Config);
        assert!(agent.is_primary() && agent.is_subagent());
        agent.mode = AgentMode::Primary;
        assert!(agent.is_primary() && !agent.is_subagent());
        agent.mode = AgentMode::Subagent;
        assert!(!agent.is_primary() && agent.is_subagent());
    }

    #[test]
    fn layers_put_config_between_builtin_and_configured_rules() {
        let mut agent = AgentInfo::blank("x", AgentSource::Config);
        agent.rules = Ruleset::new("agent x", vec![Rule::new("edit", "*", Action::Deny)]);
        agent.configured_rules = vec![Ruleset::new(
            "agent.x",
            vec![Rule::new("bash", "*", Action::Deny)],
        )];
        let permission = Ruleset::new(
            "ward.toml",
            vec![
                Rule::new("edit", "*", Action::Ask),
                Rule::new("bash", "*", Action::Allow),
            ],
        );
        let layers = agent.layers(&permission);
        let sources: Vec<_> = layers.iter().map(|l| l.source.as_str()).collect();
        assert_eq!(sources, ["defaults", "agent x", "ward.toml", "agent.x"]);
        // `[permission]` overrides the built-in layer; the agent's own
        // configured rules override `[permission]`.
        assert_eq!(evaluate("edit", "a.rs", &layers).action, Action::Ask);
        assert_eq!(evaluate("bash", "ls", &layers).action, Action::Deny);
    }

    #[test]
    fn session_rules_override_the_agent_and_config() {
        let mut agent = AgentInfo::blank("x", AgentSource::Config);
        agent.configured_rules = vec![Ruleset::new(
            "agent.x",
            vec![Rule::new("bash", "*", Action::Allow)],
        )];
        let permission = Ruleset::new("ward.toml", vec![Rule::new("edit", "*", Action::Deny)]);
        let session = [
            Rule::new("bash", "*", Action::Deny),
            Rule::new("edit", "*.md", Action::Allow),
        ];
        let layers = agent.session_layers(&permission, &session);
        let sources: Vec<_> = layers.iter().map(|l| l.source.as_str()).collect();
        assert_eq!(sources.last(), Some(&"session"));
        assert_eq!(evaluate("bash", "ls", &layers).action, Action::Deny);
        assert_eq!(evaluate("edit", "a.md", &layers).action, Action::Allow);
        assert_eq!(evaluate("edit", "a.rs", &layers).action, Action::Deny);
        // A session denying a tool outright takes it off the offer.
        assert_eq!(
            ward_permission::disabled_tools(&[("bash", "bash"), ("read", "read")], &layers),
            ["bash"]
        );
        // No rules, no layer.
        assert_eq!(
            agent.session_layers(&permission, &[]),
            agent.layers(&permission)
        );
    }
}
