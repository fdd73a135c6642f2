//! Agents from configuration: each `[agent.NAME]` table of the merged
//! `ward.toml` becomes a [`Definition`].
//!
//! The schema (fields, types, `provider/model`) was already checked when the
//! configuration loaded; what is left is the `permission` table. When it does
//! not parse, the whole `[agent.NAME]` entry is ignored with a [`Warning`]:
//! running an agent without rules its author meant it to have could allow more
//! than intended, and half-applying a definition would be surprising.

use ward_config::Config;
use ward_permission::Ruleset;

use crate::info::AgentSource;
use crate::merge::Definition;
use ward_config::Warning;

/// The definitions in `config.agent`, in name order; problems go to `warnings`.
pub(crate) fn definitions(config: &Config, warnings: &mut Vec<Warning>) -> Vec<Definition> {
    let mut out = Vec::new();
    for (name, fields) in &config.agent {
        if name.trim().is_empty() {
            warnings.push(Warning::new(
                "[agent.\"\"]: an agent needs a non-empty name; the entry is ignored",
            ));
            continue;
        }
        let rules = match &fields.permission {
            None => None,
            Some(table) => match Ruleset::from_toml(format!("agent.{name}"), table) {
                Ok(rules) => Some(rules),
                Err(error) => {
                    warnings.push(Warning::new(format!(
                        "agent.{name}.{error}; the [agent.{name}] entry is ignored"
                    )));
                    continue;
                }
            },
        };
        out.push(Definition {
            name: name.clone(),
            fields: fields.clone(),
            rules,
            source: AgentSource::Config,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        toml::from_str(text).expect("valid config")
    }

    #[test]
    fn permission_tables_become_named_rulesets() {
        let config = config(
            r#"
            [agent.review]
            description = "Reviews"
            permission = { edit = "deny", bash = { "*" = "ask", "git diff *" = "allow" } }
            "#,
        );
        let mut warnings = Vec::new();
        let defs = definitions(&config, &mut warnings);
        assert!(warnings.is_empty());
        let rules = defs[0].rules.as_ref().expect("rules");
        assert_eq!(rules.source, "agent.review");
        assert_eq!(rules.rules.len(), 3);
    }

    #[test]
    fn a_bad_permission_table_skips_the_entry_with_a_warning() {
        let config = config(
            r#"
            [agent.review]
            permission = { bash = { "git *" = "yes" } }
            [agent.plan]
            steps = 3
            "#,
        );
        let mut warnings = Vec::new();
        let defs = definitions(&config, &mut warnings);
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].name, "plan");
        assert_eq!(
            warnings[0].to_string(),
            r#"agent.review.permission.bash."git *": expected "allow", "ask" or "deny", found "yes"; the [agent.review] entry is ignored"#
        );
    }
}
