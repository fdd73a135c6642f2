//! Ward's built-in commands: `init` (write or improve `AGENTS.md`) and
//! `review` (review the current changes, or the commit, branch or pull
//! request named in the arguments). A command file of the same name
//! replaces a built-in.

use crate::info::{CommandInfo, CommandSource};

/// The name of the built-in that writes `AGENTS.md`.
pub const INIT: &str = "init";
/// The name of the built-in that reviews changes.
pub const REVIEW: &str = "review";

/// The subagent `review` prefers.
pub const REVIEWER: &str = "reviewer";

const INIT_TEMPLATE: &str = include_str!("prompt/init.txt");
const REVIEW_TEMPLATE: &str = include_str!("prompt/review.txt");

/// The built-in commands, in name order.
///
/// `review` is a subtask (it runs in a child session, as in OpenCode) in the
/// `reviewer` subagent, which the built-in reviewer component defines; when that
/// plugin is switched off the subtask runs in `general`. Neither template uses
/// `` !`cmd` ``; they ask the agent to run what it needs through its tools.
pub fn all() -> Vec<CommandInfo> {
    vec![
        CommandInfo {
            name: INIT.to_string(),
            description: Some("create or improve AGENTS.md for this project".to_string()),
            agent: None,
            model: None,
            subtask: false,
            template: INIT_TEMPLATE.to_string(),
            source: CommandSource::Builtin,
        },
        CommandInfo {
            name: REVIEW.to_string(),
            description: Some(
                "review changes [commit|branch|pr], defaults to uncommitted".to_string(),
            ),
            agent: Some(REVIEWER.to_string()),
            model: None,
            subtask: true,
            template: REVIEW_TEMPLATE.to_string(),
            source: CommandSource::Builtin,
        },
    ]
}
