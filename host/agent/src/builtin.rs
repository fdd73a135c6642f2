//! Ward's built-in agents and their permission layers: `build`, `plan`,
//! `general`, `explore`, and the hidden `compaction`, `title` and `summary`.
//!
//! Each built-in's [`AgentInfo::rules`] is evaluated right after the global
//! defaults, so the user's `[permission]` table and the agent's own configured
//! rules can still loosen or tighten it.

use ward_permission::{Action, Rule, Ruleset};

use crate::info::{AgentInfo, AgentMode, AgentSource};

/// The name of the default primary agent.
pub const BUILD: &str = "build";

/// Where `plan` may write: its plan files, relative to the project.
pub const PLANS_PATTERN: &str = ".ward/plans/*.md";

const PLAN_PROMPT: &str = include_str!("prompt/plan.txt");
const GENERAL_PROMPT: &str = include_str!("prompt/general.txt");
const EXPLORE_PROMPT: &str = include_str!("prompt/explore.txt");
const TITLE_PROMPT: &str = include_str!("prompt/title.txt");
const SUMMARY_PROMPT: &str = include_str!("prompt/summary.txt");

/// Shell commands `plan` may run without asking: ones that only read. A
/// pattern ending in ` *` also matches the bare command. They match each simple
/// command the shell parser finds; a command it cannot vouch for is asked about
/// as a whole whatever its prefix ([`ward_permission::bash::BashQuestion`]).
const PLAN_READ_ONLY: &[&str] = &[
    "ls *",
    "pwd",
    "cat *",
    "head *",
    "tail *",
    "wc *",
    "tree *",
    "grep *",
    "rg *",
    "find *",
    "file *",
    "stat *",
    "du *",
    "which *",
    "git status *",
    "git diff *",
    "git log *",
    "git show *",
    "git blame *",
    "git ls-files *",
    "git rev-parse *",
    "git branch",
    "git branch -a",
    "git branch -v",
    "git branch -vv",
];

/// Forms of the allowed commands that write, delete or run other programs;
/// they go back to asking. Checked after [`PLAN_READ_ONLY`], so they win.
const PLAN_ASK_AGAIN: &[&str] = &[
    // `find` can delete files, run commands and write reports.
    "find *-delete*",
    "find *-exec*",
    "find *-ok*",
    "find *-fprint*",
    "find *-fls*",
    // `tree -o FILE` and `git … --output=FILE` write files; `rg --pre` runs one.
    "tree *-o *",
    "git *--output*",
    "rg *--pre*",
    // Any redirection may write a file (`ls > notes.txt`).
    "*>*",
];

/// Every built-in agent, in no particular order.
pub fn all() -> Vec<AgentInfo> {
    vec![
        build(),
        plan(),
        general(),
        explore(),
        compaction(),
        title(),
        summary(),
    ]
}

/// A built-in with `name`, `mode`, `description`, `prompt` and `rules`.
fn agent(
    name: &str,
    mode: AgentMode,
    description: &str,
    prompt: Option<&str>,
    rules: Vec<Rule>,
) -> AgentInfo {
    let mut info = AgentInfo::blank(name, AgentSource::Builtin);
    info.mode = mode;
    info.native = true;
    info.description = Some(description.to_string());
    info.prompt = prompt.map(|p| p.trim_end().to_string());
    info.rules = Ruleset::new(format!("agent {name}"), rules);
    info
}

/// `build`: the default primary agent, with every tool the rules allow and
/// the model family's base prompt.
pub(crate) fn build() -> AgentInfo {
    agent(
        BUILD,
        AgentMode::Primary,
        "The default agent: builds, edits and runs things with every tool the permission rules allow.",
        None,
        Vec::new(),
    )
}

/// `plan`: read-only exploration and planning; may only write plan files.
fn plan() -> AgentInfo {
    use Action::{Allow, Ask, Deny};
    let mut rules = vec![
        Rule::new("edit", "*", Deny),
        Rule::new("edit", PLANS_PATTERN, Allow),
        Rule::new("bash", "*", Ask),
    ];
    rules.extend(PLAN_READ_ONLY.iter().map(|p| Rule::new("bash", *p, Allow)));
    rules.extend(PLAN_ASK_AGAIN.iter().map(|p| Rule::new("bash", *p, Ask)));
    agent(
        "plan",
        AgentMode::Primary,
        "Plans without changing the project: reads and runs read-only commands; writes only plans under .ward/plans/.",
        Some(PLAN_PROMPT),
        rules,
    )
}

/// `general`: the all-purpose subagent; no todo list of its own.
fn general() -> AgentInfo {
    agent(
        "general",
        AgentMode::Subagent,
        "General-purpose agent for researching complex questions and carrying out multi-step tasks; use it to run several units of work in parallel.",
        Some(GENERAL_PROMPT),
        vec![
            Rule::new("todowrite", "*", Action::Deny),
            Rule::new("todoread", "*", Action::Deny),
        ],
    )
}

/// `explore`: a fast, read-only searcher.
///
/// Everything is denied except the reading tools; the defaults' guards that
/// are not tools (`.env` files ask, `doom_loop` and `external_directory` ask)
/// are restated afterwards so that `read * = allow` and `* = deny` do not
/// erase them.
fn explore() -> AgentInfo {
    use Action::{Allow, Ask, Deny};
    let mut rules = vec![Rule::new("*", "*", Deny)];
    for tool in ["read", "grep", "glob", "list", "bash", "webfetch"] {
        rules.push(Rule::new(tool, "*", Allow));
    }
    rules.extend([
        Rule::new("read", "*.env", Ask),
        Rule::new("read", "*.env.*", Ask),
        Rule::new("read", "*.env.example", Allow),
        Rule::new("doom_loop", "*", Ask),
        Rule::new("external_directory", "*", Ask),
    ]);
    agent(
        "explore",
        AgentMode::Subagent,
        "Fast agent for exploring a codebase: finds files by pattern, searches code for keywords, and answers questions about how the code works. Say how thorough it should be (quick, medium or very thorough).",
        Some(EXPLORE_PROMPT),
        rules,
    )
}

/// A hidden agent Ward runs itself, with every tool denied.
fn internal(name: &str, description: &str, prompt: Option<&str>) -> AgentInfo {
    let mut info = agent(
        name,
        AgentMode::Primary,
        description,
        prompt,
        vec![Rule::new("*", "*", Action::Deny)],
    );
    info.hidden = true;
    info
}

/// `compaction`: summarises history when the context fills up. Its prompt is
/// `None` because the session crate supplies it (`COMPACTION_AGENT` in
/// `ward-session`), together with the messages to summarise.
fn compaction() -> AgentInfo {
    internal(
        "compaction",
        "Summarises the conversation when the context window fills up.",
        None,
    )
}

/// `title`: names a session.
fn title() -> AgentInfo {
    internal(
        "title",
        "Writes a short title for a session.",
        Some(TITLE_PROMPT),
    )
}

/// `summary`: describes what a session changed.
fn summary() -> AgentInfo {
    internal(
        "summary",
        "Summarises what a session changed, like a pull request description.",
        Some(SUMMARY_PROMPT),
    )
}

#[cfg(test)]
mod tests {
    use ward_permission::{Action, bash::BashQuestion, evaluate};

    use super::*;
    use Action::{Allow, Ask, Deny};

    fn get(name: &str) -> AgentInfo {
        all()
            .into_iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no built-in {name}"))
    }

    fn layers(name: &str) -> Vec<Ruleset> {
        vec![ward_permission::defaults(), get(name).rules]
    }

    fn bash(name: &str, command: &str) -> Action {
        // As `exec` decides: parsed, and asked about as a whole when unsure.
        BashQuestion::new(command).evaluate(&layers(name))
    }

    #[test]
    fn plan_edits_only_plans() {
        let layers = layers("plan");
        let edit = |path| evaluate("edit", path, &layers).action;
        assert_eq!(edit("src/a.rs"), Deny);
        assert_eq!(edit(".ward/plans/x.md"), Allow);
        assert_eq!(edit(".ward/plans/x.txt"), Deny);
        assert_eq!(edit(".ward/agents/x.md"), Deny);
        // `write` and `apply_patch` declare that they are ruled as `edit`.
        assert_eq!(evaluate("edit", "README.md", &layers).action, Deny);
        assert_eq!(evaluate("read", "src/a.rs", &layers).action, Allow);
    }

    #[test]
    fn plan_bash_reads_freely_and_asks_for_the_rest() {
        for command in [
            "git status",
            "git status --short",
            "ls",
            "ls -la src",
            "pwd",
            "cat Cargo.toml",
            "rg foo src | head -20",
            "find . -name '*.rs'",
            "git diff HEAD~1",
            "git log --oneline -5",
            "wc -l src/lib.rs",
            "tree",
            "ls # $(touch x)",
            "git log --oneline | head -5",
        ] {
            assert_eq!(bash("plan", command), Allow, "{command}");
        }
        for command in [
            "rm -rf x",
            "cargo build",
            "find . -delete",
            "find -delete",
            "find . -name x -exec rm {} ;",
            "ls > files.txt",
            "cat a >> b",
            "git diff --output=x.patch",
            "git push",
            "git branch -D main",
            "ls && touch x",
            "cat $(rm x)",
            // What the parser cannot vouch for is asked about, whatever its prefix.
            "ls &>/dev/null touch x",
            "cat ${x:-$(touch y)}",
            "git status; eval touch y",
            "ls $((x[$(touch p)]))",
            "cat <<EOF\n$(touch p)\nEOF",
            "cat <(touch p)",
            "PATH=/tmp ls",
        ] {
            assert_eq!(bash("plan", command), Ask, "{command}");
        }
    }

    #[test]
    fn general_has_no_todo_list() {
        let layers = layers("general");
        assert_eq!(evaluate("todowrite", "*", &layers).action, Deny);
        assert_eq!(evaluate("todoread", "*", &layers).action, Deny);
        assert_eq!(evaluate("edit", "src/a.rs", &layers).action, Allow);
        assert_eq!(bash("general", "cargo test"), Allow);
    }

    #[test]
    fn explore_only_reads() {
        let layers = layers("explore");
        let action = |permission, pattern| evaluate(permission, pattern, &layers).action;
        for tool in ["read", "grep", "glob", "list", "bash", "webfetch"] {
            assert_eq!(action(tool, "x"), Allow, "{tool}");
        }
        for tool in ["edit", "task", "todowrite", "skill", "mcp_github"] {
            assert_eq!(action(tool, "x"), Deny, "{tool}");
        }
        // The defaults' guards survive the blanket rules.
        assert_eq!(action("read", ".env"), Ask);
        assert_eq!(action("read", ".env.example"), Allow);
        assert_eq!(action("external_directory", "/etc/*"), Ask);
        assert_eq!(action("doom_loop", "read"), Ask);
    }

    #[test]
    fn internal_agents_are_hidden_and_use_no_tools() {
        for name in ["compaction", "title", "summary"] {
            let agent = get(name);
            assert!(agent.hidden && agent.is_primary() && agent.native, "{name}");
            let layers = layers(name);
            for tool in ["read", "bash", "edit", "webfetch"] {
                assert_eq!(evaluate(tool, "x", &layers).action, Deny, "{name} {tool}");
            }
        }
        assert_eq!(get("compaction").prompt, None);
        assert!(
            get("title")
                .prompt
                .is_some_and(|p| p.contains("50 characters"))
        );
        assert!(get("summary").prompt.is_some());
    }

    #[test]
    fn modes_and_prompts() {
        let build = get("build");
        assert!(build.is_primary() && !build.is_subagent() && !build.hidden);
        assert!(build.prompt.is_none() && build.rules.rules.is_empty());
        assert!(get("plan").is_primary() && get("plan").prompt.is_some());
        for name in ["general", "explore"] {
            let agent = get(name);
            assert!(agent.is_subagent() && !agent.is_primary() && !agent.hidden);
            assert!(agent.prompt.is_some() && agent.description.is_some());
        }
        let names: Vec<_> = all().into_iter().map(|a| a.name).collect();
        assert_eq!(names.len(), 7);
    }
}
