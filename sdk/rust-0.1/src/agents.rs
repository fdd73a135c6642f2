//! The [`Agents`] trait and [`export_agents!`](crate::export_agents), which turns it into
//! the `ward:plugin/agent` interface.
//!
//! An agent component defines agents — a prompt, a mode, model settings and permission
//! rules — that Ward lists beside its built-ins and markdown agents. The rules can only
//! narrow what the user allows: Ward applies them as a narrowing layer, so `allow`
//! never loosens the user's own `ask` or `deny`, while `ask` and `deny` hold even where
//! the user allows. The user's `[agent.NAME]` table still overrides everything.

pub use crate::agent_bindings::exports::ward::plugin::agent::{AgentInfo, AgentMode};
pub use crate::bindings::ward::plugin::types::{Action, PermissionRule};

/// An agent plugin: the agents it defines. `agents` must have no side effects; Ward
/// calls it once per component version and caches the answer.
pub trait Agents {
    /// The agent definitions.
    fn agents() -> Vec<AgentInfo>;
}

/// An agent definition with nothing but a name, description, mode and prompt set.
pub fn agent(name: &str, description: &str, mode: AgentMode, prompt: &str) -> AgentInfo {
    AgentInfo {
        name: name.to_string(),
        description: description.to_string(),
        mode,
        hidden: false,
        prompt: Some(prompt.to_string()),
        model: None,
        temperature: None,
        top_p: None,
        steps: None,
        permission: Vec::new(),
    }
}

/// A permission rule: `permission` (e.g. `edit`, `bash`) on `pattern` gets `action`.
pub fn rule(permission: &str, pattern: &str, action: Action) -> PermissionRule {
    PermissionRule {
        permission: permission.to_string(),
        pattern: pattern.to_string(),
        action,
    }
}

/// Exports the [`Agents`] type given as this component's `ward:plugin/agent` interface;
/// its manifest lists `kinds = ["agent"]`.
#[macro_export]
macro_rules! export_agents {
    ($agents:ty) => {
        #[doc(hidden)]
        pub struct __WardExportedAgents;

        impl $crate::agent_bindings::exports::ward::plugin::agent::Guest for __WardExportedAgents {
            fn agents() -> ::std::vec::Vec<$crate::agents::AgentInfo> {
                <$agents as $crate::agents::Agents>::agents()
            }
        }

        $crate::agent_bindings::__export_agent_plugin!(__WardExportedAgents with_types_in $crate::agent_bindings);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_fill_in_the_definition() {
        let mut a = agent("reviewer", "Reviews", AgentMode::Subagent, "Review.");
        a.permission.push(rule("edit", "*", Action::Deny));
        assert_eq!(a.prompt.as_deref(), Some("Review."));
        assert_eq!(a.permission[0].permission, "edit");
        assert!(matches!(a.permission[0].action, Action::Deny));
    }
}
