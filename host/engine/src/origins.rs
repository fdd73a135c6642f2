//! Permission rules labelled with where each was written, for
//! `ward permission explain`: the configured `[permission]` rules (merged from
//! every `ward.toml` and OpenCode file) are split into one layer per rule whose
//! source is the rule's `file:line:column`.
//!
//! Splitting changes nothing in how they are decided: the layers are plain (not
//! narrowing) and stay in order, and the last matching rule across layers wins
//! exactly as within one.

use ward_config::LoadedConfig;
use ward_permission::{Rule, Ruleset};

use crate::error::EngineError;

/// The layers [`rules`](crate::rules) returns, with the configured rules each in
/// a layer named after the file, line and column it was written at.
pub fn located_rules(config: &LoadedConfig) -> Result<Vec<Ruleset>, EngineError> {
    let configured = Ruleset::from_toml("configuration", &config.config.permission)?;
    let mut layers = vec![ward_permission::defaults()];
    for rule in configured.rules {
        let source = origin(config, &rule);
        layers.push(Ruleset::new(source, vec![rule]));
    }
    Ok(layers)
}

/// Where `rule` was written: its pattern's key, else its permission's key (for
/// the `edit = "ask"` shorthand, whose pattern is `*`).
fn origin(config: &LoadedConfig, rule: &Rule) -> String {
    let permission = rule.permission.as_str();
    config
        .origins
        .first(&[
            &["permission", permission, rule.pattern.as_str()],
            &["permission", permission],
        ])
        .map_or_else(|| "configuration".to_owned(), ToString::to_string)
}
