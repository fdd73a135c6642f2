//! Agents defined by plugin components: each declared agent becomes a
//! [`Definition`], checked like a `[agent.NAME]` table.
//!
//! A component is third-party code, so two things are stricter than for the
//! user's own files: its permission rules become a *narrowing* layer (they can
//! tighten what the user allows, never loosen it), and it cannot redefine a
//! built-in agent or an agent another component already defined. A definition
//! that does not check out is skipped whole with a [`Warning`] naming the plugin.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use ward_config::{AgentConfig, Warning};
use ward_permission::{Action, Rule, Ruleset};
use ward_plugin::DeclaredAgent;

use crate::info::AgentSource;
use crate::merge::Definition;

/// Why a component's agent definition is skipped. The message completes "plugin `P`:
/// agent `A`: …".
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentRefused {
    /// The name is empty or has spaces.
    #[error("an agent name must be non-empty and contain no spaces")]
    BadName,
    /// The name is a built-in agent's.
    #[error("it is a built-in agent, which a plugin cannot redefine")]
    BuiltIn,
    /// An earlier plugin defines the name.
    #[error("another plugin already defines it")]
    Taken,
    /// The fields do not pass the checks of an `[agent.NAME]` table.
    #[error("{0}")]
    Fields(serde_json::Error),
    /// A sampling parameter is out of its range.
    #[error("`{name}` must be between 0 and {max}, found {value}")]
    Sampling {
        /// `temperature` or `top_p`.
        name: &'static str,
        /// Its largest allowed value.
        max: f64,
        /// The value given.
        value: f64,
    },
    /// `steps` is zero.
    #[error("`steps` must be at least 1")]
    NoSteps,
    /// A permission rule's action is not `allow`, `ask` or `deny`.
    #[error("unknown permission action `{0}`")]
    UnknownAction(String),
    /// A permission rule lacks its permission or its pattern.
    #[error("a permission rule needs a permission and a pattern")]
    IncompleteRule,
}

/// The definitions of `declared` (`(plugin, agent)` pairs, in plugin order),
/// skipping names in `taken` (the built-ins); problems go to `warnings`.
pub(crate) fn definitions(
    declared: &[(String, DeclaredAgent)],
    taken: &BTreeSet<String>,
    warnings: &mut Vec<Warning>,
) -> Vec<Definition> {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for (plugin, agent) in declared {
        let problem = if agent.name.trim().is_empty() || agent.name.chars().any(char::is_whitespace)
        {
            Some(AgentRefused::BadName)
        } else if taken.contains(&agent.name) {
            Some(AgentRefused::BuiltIn)
        } else if seen.contains(agent.name.as_str()) {
            Some(AgentRefused::Taken)
        } else {
            None
        };
        let result = match problem {
            Some(p) => Err(p),
            None => definition(plugin, agent),
        };
        match result {
            Ok(d) => {
                seen.insert(&agent.name);
                out.push(d);
            }
            Err(problem) => warnings.push(Warning::new(format!(
                "plugin `{plugin}`: agent `{}`: {problem}; the agent is ignored",
                agent.name
            ))),
        }
    }
    out
}

fn definition(plugin: &str, agent: &DeclaredAgent) -> Result<Definition, AgentRefused> {
    // Through the same deserializer as `[agent.NAME]`, so a component's model,
    // mode and numbers meet the same checks and produce the same messages.
    let mut fields = Map::new();
    fields.insert("description".into(), json!(agent.description));
    fields.insert("mode".into(), json!(agent.mode));
    fields.insert("hidden".into(), json!(agent.hidden));
    let optional = [
        ("prompt", agent.prompt.as_ref().map(|p| json!(p))),
        ("model", agent.model.as_ref().map(|m| json!(m))),
        ("temperature", agent.temperature.map(|t| json!(t))),
        ("top_p", agent.top_p.map(|t| json!(t))),
        ("steps", agent.steps.map(|s| json!(s))),
    ];
    for (key, value) in optional {
        if let Some(v) = value {
            fields.insert(key.into(), v);
        }
    }
    let fields: AgentConfig =
        serde_json::from_value(Value::Object(fields)).map_err(AgentRefused::Fields)?;
    check_sampling("temperature", fields.temperature, 2.0)?;
    check_sampling("top_p", fields.top_p, 1.0)?;
    if fields.steps == Some(0) {
        return Err(AgentRefused::NoSteps);
    }
    let rules = agent
        .permission
        .iter()
        .map(|(permission, pattern, action)| {
            let action = match action.as_str() {
                "allow" => Action::Allow,
                "ask" => Action::Ask,
                "deny" => Action::Deny,
                other => return Err(AgentRefused::UnknownAction(other.to_string())),
            };
            if permission.is_empty() || pattern.is_empty() {
                return Err(AgentRefused::IncompleteRule);
            }
            Ok(Rule::new(permission.as_str(), pattern.as_str(), action))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Definition {
        name: agent.name.clone(),
        fields,
        rules: Some(Ruleset::narrowing(format!("plugin {plugin}"), rules)),
        source: AgentSource::Component {
            plugin: plugin.to_string(),
        },
    })
}

fn check_sampling(name: &'static str, value: Option<f64>, max: f64) -> Result<(), AgentRefused> {
    match value {
        Some(v) if !(v.is_finite() && (0.0..=max).contains(&v)) => Err(AgentRefused::Sampling {
            name,
            max,
            value: v,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reviewer() -> DeclaredAgent {
        DeclaredAgent {
            name: "reviewer".into(),
            description: "Reviews".into(),
            mode: "subagent".into(),
            hidden: false,
            prompt: Some("Review.".into()),
            model: None,
            temperature: Some(0.5),
            top_p: None,
            steps: Some(3),
            permission: vec![("edit".into(), "*".into(), "deny".into())],
        }
    }

    fn check(declared: Vec<DeclaredAgent>) -> (Vec<Definition>, Vec<String>) {
        let pairs: Vec<_> = declared.into_iter().map(|a| ("p".to_string(), a)).collect();
        let taken = BTreeSet::from(["build".to_string()]);
        let mut warnings = Vec::new();
        let defs = definitions(&pairs, &taken, &mut warnings);
        (defs, warnings.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn a_declared_agent_becomes_a_definition_with_narrowing_rules() {
        let (defs, warnings) = check(vec![reviewer()]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let d = &defs[0];
        assert_eq!(d.fields.steps, Some(3));
        assert_eq!(d.fields.mode, Some(ward_config::AgentMode::Subagent));
        let rules = d.rules.as_ref().map(|r| (r.narrowing, r.source.as_str()));
        assert_eq!(rules, Some((true, "plugin p")));
    }

    #[test]
    fn bad_definitions_are_skipped_with_a_warning_naming_the_plugin() {
        let mut builtin = reviewer();
        builtin.name = "build".into();
        let mut bad_model = reviewer();
        bad_model.name = "m".into();
        bad_model.model = Some("gpt".into());
        let mut bad_mode = reviewer();
        bad_mode.name = "x".into();
        bad_mode.mode = "boss".into();
        let mut hot = reviewer();
        hot.name = "hot".into();
        hot.temperature = Some(9.0);
        let (defs, warnings) = check(vec![
            builtin,
            bad_model,
            bad_mode,
            hot,
            reviewer(),
            reviewer(),
        ]);
        assert_eq!(defs.len(), 1);
        assert_eq!(warnings.len(), 5, "{warnings:?}");
        assert!(warnings[0].contains("plugin `p`: agent `build`: it is a built-in agent"));
        assert!(warnings[1].contains("expected a model as `provider/model`, found `gpt`"));
        assert!(warnings[2].contains("unknown variant `boss`"));
        assert!(warnings[3].contains("`temperature` must be between 0 and 2, found 9"));
        assert!(warnings[4].contains("another plugin already defines it"));
    }

    #[test]
    fn each_refusal_is_its_own_case() {
        let mut hot = reviewer();
        hot.top_p = Some(1.5);
        assert!(matches!(
            definition("p", &hot),
            Err(AgentRefused::Sampling { name: "top_p", .. })
        ));
        let mut idle = reviewer();
        idle.steps = Some(0);
        assert!(matches!(definition("p", &idle), Err(AgentRefused::NoSteps)));
        let mut lax = reviewer();
        lax.permission = vec![("edit".into(), "*".into(), "maybe".into())];
        assert!(matches!(
            definition("p", &lax),
            Err(AgentRefused::UnknownAction(a)) if a == "maybe"
        ));
        lax.permission = vec![("".into(), "*".into(), "deny".into())];
        assert!(matches!(
            definition("p", &lax),
            Err(AgentRefused::IncompleteRule)
        ));
    }
}
