//! The `reviewer` agent: a subagent that reviews changes and reports findings without
//! changing anything. Defined by a component to show (and test) agent components: its
//! rules deny every edit and ask before any command other than read-only `git`, and
//! Ward applies them as a narrowing layer, so they hold whatever the user's own
//! configuration allows.

use ward_sdk::agents::{Action, AgentInfo, AgentMode, Agents, agent, rule};

/// The reviewer's system prompt.
pub const PROMPT: &str = "\
You are a code reviewer. Review the change or the files you are pointed at and report \
what is wrong, in order of severity: bugs and data loss first, then security, then \
behaviour the author probably did not intend, then maintainability. For each finding \
give the file and line, what happens, and a concrete fix. Say plainly when you find \
nothing worth changing. You cannot edit files: read them, search them, and use \
`git diff`, `git log` and `git show` to see what changed. Load the `code-review` skill \
for the checklist.";

/// The agents this component defines.
pub struct Reviewer;

impl Agents for Reviewer {
    fn agents() -> Vec<AgentInfo> {
        let mut reviewer = agent(
            "reviewer",
            "Reviews code changes and reports bugs, security problems and risky \
             behaviour with file, line and a fix; never edits. Use after a change, \
             or to review a file or a diff.",
            AgentMode::Subagent,
            PROMPT,
        );
        reviewer.steps = Some(30);
        reviewer.permission = vec![
            rule("edit", "*", Action::Deny),
            rule("todowrite", "*", Action::Deny),
            rule("task", "*", Action::Deny),
            rule("bash", "*", Action::Ask),
            rule("bash", "git diff*", Action::Allow),
            rule("bash", "git log*", Action::Allow),
            rule("bash", "git show*", Action::Allow),
            rule("bash", "git status*", Action::Allow),
        ];
        vec![reviewer]
    }
}

#[cfg(target_arch = "wasm32")]
ward_sdk::export_agents!(Reviewer);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reviewer_cannot_edit() {
        let agents = Reviewer::agents();
        let r = &agents[0];
        assert_eq!(r.name, "reviewer");
        assert!(
            r.permission
                .iter()
                .any(|p| p.permission == "edit" && matches!(p.action, Action::Deny))
        );
    }
}
