//! Applying agent definitions on top of each other.
//!
//! A [`Definition`] is one source's view of one agent (an `[agent.NAME]`
//! table, a markdown file). Applying it overrides only the fields it sets, so
//! `[agent.plan] steps = 5` keeps everything else about `plan`; a name no
//! earlier source defined becomes a new agent. `disable` is a field like the
//! others: the agent is removed when the last definition that sets it says
//! `true`.

use std::collections::{BTreeMap, BTreeSet};

use ward_config::AgentConfig;
use ward_permission::Ruleset;

use crate::info::{AgentInfo, AgentSource};

/// One source's definition of one agent.
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    /// The agent's name.
    pub name: String,
    /// The fields the source sets; `permission` is ignored (see `rules`).
    pub fields: AgentConfig,
    /// The source's permission rules, already parsed.
    pub rules: Option<Ruleset>,
    /// Where the definition comes from.
    pub source: AgentSource,
}

/// Agents being assembled, with their `disable` flags.
#[derive(Debug, Default)]
pub(crate) struct Agents {
    agents: BTreeMap<String, (AgentInfo, bool)>,
}

impl Agents {
    /// Starts from `agents` (the built-ins), all enabled.
    pub fn new(agents: Vec<AgentInfo>) -> Self {
        Agents {
            agents: agents
                .into_iter()
                .map(|a| (a.name.clone(), (a, false)))
                .collect(),
        }
    }

    /// Applies `definition` over whatever is already known about its agent.
    pub fn apply(&mut self, definition: Definition) {
        let Definition {
            name,
            fields,
            rules,
            source,
        } = definition;
        let (agent, disabled) = self
            .agents
            .entry(name.clone())
            .or_insert_with(|| (AgentInfo::blank(&name, source.clone()), false));
        let AgentConfig {
            description,
            mode,
            hidden,
            model,
            temperature,
            top_p,
            variant,
            prompt,
            steps,
            permission: _,
            disable,
            color,
        } = fields;
        set(&mut agent.description, description);
        set(&mut agent.model, model);
        set(&mut agent.temperature, temperature);
        set(&mut agent.top_p, top_p);
        set(&mut agent.variant, variant);
        set(&mut agent.prompt, prompt);
        set(&mut agent.steps, steps);
        set(&mut agent.color, color);
        if let Some(mode) = mode {
            agent.mode = mode;
        }
        if let Some(hidden) = hidden {
            agent.hidden = hidden;
        }
        if let Some(disable) = disable {
            *disabled = disable;
        }
        agent.configured_rules.extend(rules);
        agent.source = source;
    }

    /// Whether an agent called `name` is known so far (enabled or not).
    pub fn has(&self, name: &str) -> bool {
        self.agents.contains_key(name)
    }

    /// The enabled agents by name, and the names of the disabled ones.
    pub fn finish(self) -> (BTreeMap<String, AgentInfo>, BTreeSet<String>) {
        let mut enabled = BTreeMap::new();
        let mut disabled = BTreeSet::new();
        for (name, (agent, off)) in self.agents {
            if off {
                disabled.insert(name);
            } else {
                enabled.insert(name, agent);
            }
        }
        (enabled, disabled)
    }
}

/// Overrides `field` when `value` is set.
fn set<T>(field: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *field = value;
    }
}

#[cfg(test)]
mod tests {
    use ward_config::AgentMode;
    use ward_permission::{Action, Rule};

    use super::*;
    use crate::builtin;

    fn definition(name: &str, fields: AgentConfig) -> Definition {
        Definition {
            name: name.to_string(),
            fields,
            rules: None,
            source: AgentSource::Config,
        }
    }

    #[test]
    fn overrides_only_what_is_set() {
        let mut agents = Agents::new(builtin::all());
        agents.apply(definition(
            "plan",
            AgentConfig {
                steps: Some(5),
                ..AgentConfig::default()
            },
        ));
        let (enabled, _) = agents.finish();
        let original = builtin::all()
            .into_iter()
            .find(|a| a.name == "plan")
            .expect("plan");
        let plan = &enabled["plan"];
        assert_eq!(plan.steps, Some(5));
        assert_eq!(plan.prompt, original.prompt);
        assert_eq!(plan.rules, original.rules);
        assert_eq!(plan.source, AgentSource::Config);
        assert!(plan.native);
    }

    #[test]
    fn new_agents_rules_accumulate_and_disable_is_last_set() {
        let mut agents = Agents::new(Vec::new());
        let mut first = definition(
            "x",
            AgentConfig {
                disable: Some(true),
                ..AgentConfig::default()
            },
        );
        first.rules = Some(Ruleset::new("a", vec![Rule::new("edit", "*", Action::Ask)]));
        agents.apply(first);
        let mut second = definition(
            "x",
            AgentConfig {
                mode: Some(AgentMode::Subagent),
                ..AgentConfig::default()
            },
        );
        second.rules = Some(Ruleset::new("b", Vec::new()));
        agents.apply(second.clone());
        let (enabled, disabled) = Agents {
            agents: agents.agents.clone(),
        }
        .finish();
        assert!(enabled.is_empty() && disabled.contains("x"));

        second.fields.disable = Some(false);
        agents.apply(second);
        let (enabled, _) = agents.finish();
        let x = &enabled["x"];
        assert_eq!(x.mode, AgentMode::Subagent);
        assert!(!x.native);
        let sources: Vec<_> = x.configured_rules.iter().map(|r| &r.source).collect();
        assert_eq!(sources, ["a", "b", "b"]);
    }
}
