//! Prune, the second line of context defence (SPEC §5.3): old tool outputs are
//! marked `compacted` and sent as a placeholder from then on. Nothing is deleted.
//!
//! Walking back from the newest message, the last `keep_turns` user turns are left
//! alone, the walk stops at a summary or at an output already pruned, and once
//! [`PROTECT`] tokens of completed tool outputs have been counted every older one is a
//! candidate — pruned only if more than [`MINIMUM`] tokens would be freed, so the
//! prompt cache is not thrown away for a trifle. Outputs of tools declared
//! `keep-output` (the host's `skill`) are never pruned.
//!
//! Beyond OpenCode: superseded outputs — a read of a file (a tool declaring
//! `access = "read"` of a file path) that was read again the same way, or changed by
//! a tool declaring `access = "write"`, later on — are stale, so they
//! go first, inside the protected window too. And the loop prunes before a request
//! would overflow (with `keep_turns = 0`, since a long loop is a single turn), not only
//! when it ends.

use std::collections::HashSet;

use serde_json::Value;
use ward_config::{Access, ToolTraits};
use ward_store::{Message, MessageInfo, PartKind, Store, ToolState};

use crate::budget::Tally;

/// Tokens of the newest tool outputs never pruned by the walk.
pub const PROTECT: u64 = 40_000;
/// Fewest tokens worth pruning.
pub const MINIMUM: u64 = 20_000;

/// What to prune.
#[derive(Debug, Default, PartialEq)]
pub struct Plan {
    /// (message index, part index) of each output to mark, in id order of messages.
    pub parts: Vec<(usize, usize)>,
    /// Tokens they hold.
    pub freed: u64,
}

/// What the host knows about a tool by name (its declared [`ToolTraits`]).
pub type TraitsOf<'a> = &'a dyn Fn(&str) -> ToolTraits;

/// Plans a prune of `messages` (id order). `keep_turns` user turns at the end are
/// left alone (2 after a loop; 0 inside one). What each tool declares decides which
/// outputs are kept (`keep-output`) and which go first (a read made stale).
pub fn plan(
    messages: &[Message],
    keep_turns: usize,
    tally: &mut Tally,
    traits: TraitsOf<'_>,
) -> Plan {
    let start = protected_from(messages, keep_turns);
    let stale = superseded(&messages[..start], traits);
    let mut plan = Plan::default();
    let mut counted = 0u64;
    'messages: for (mi, message) in messages[..start].iter().enumerate().rev() {
        if let MessageInfo::Assistant(a) = &message.info
            && a.summary
        {
            break;
        }
        for (pi, part) in message.parts.iter().enumerate().rev() {
            let PartKind::Tool(tool) = &part.kind else {
                continue;
            };
            let ToolState::Completed { output, time, .. } = &tool.state else {
                continue;
            };
            if traits(&tool.tool).keep_output {
                continue;
            }
            if time.compacted.is_some() {
                // Everything older was pruned before (or deliberately kept).
                break 'messages;
            }
            let tokens = tally.output(&part.id, output);
            if stale.contains(&(mi, pi)) {
                plan.parts.push((mi, pi));
                plan.freed += tokens;
                continue;
            }
            counted += tokens;
            if counted > PROTECT {
                plan.parts.push((mi, pi));
                plan.freed += tokens;
            }
        }
    }
    if plan.freed <= MINIMUM {
        return Plan::default();
    }
    plan.parts.reverse();
    plan
}

/// Marks the planned outputs pruned at `now`, in `messages` and in the store.
pub fn apply(
    plan: &Plan,
    messages: &mut [Message],
    store: &dyn Store,
    now: i64,
) -> ward_store::Result<()> {
    for &(mi, pi) in &plan.parts {
        let Some(part) = messages.get_mut(mi).and_then(|m| m.parts.get_mut(pi)) else {
            continue;
        };
        if let PartKind::Tool(tool) = &mut part.kind
            && let ToolState::Completed { time, .. } = &mut tool.state
        {
            time.compacted = Some(now);
            store.put_part(part)?;
        }
    }
    Ok(())
}

/// Index of the first message of the last `keep_turns` user turns (`len` for 0).
fn protected_from(messages: &[Message], keep_turns: usize) -> usize {
    if keep_turns == 0 {
        return messages.len();
    }
    let mut turns = 0;
    for (i, m) in messages.iter().enumerate().rev() {
        if matches!(m.info, MessageInfo::User(_)) {
            turns += 1;
            if turns == keep_turns {
                return i;
            }
        }
    }
    0
}

/// Completed outputs of file reads made stale by a later identical read (same file,
/// same window) or a later change of the same file, by the tools' declarations.
fn superseded(messages: &[Message], traits: TraitsOf<'_>) -> HashSet<(usize, usize)> {
    let mut stale = HashSet::new();
    // Newest first: remember which reads and which changed files come later.
    let mut later_reads: HashSet<(String, String)> = HashSet::new();
    let mut later_changes: HashSet<String> = HashSet::new();
    for (mi, message) in messages.iter().enumerate().rev() {
        for (pi, part) in message.parts.iter().enumerate().rev() {
            let PartKind::Tool(tool) = &part.kind else {
                continue;
            };
            let ToolState::Completed { input, .. } = &tool.state else {
                continue;
            };
            let declared = traits(&tool.tool);
            if declared.directory {
                continue;
            }
            let Some(path) = declared
                .path
                .as_deref()
                .and_then(|key| input.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                continue;
            };
            match declared.access {
                Some(Access::Read) => {
                    let window = format!("{}:{}", input["offset"], input["limit"]);
                    let key = (path.clone(), window);
                    if later_changes.contains(&path) || later_reads.contains(&key) {
                        stale.insert((mi, pi));
                    }
                    later_reads.insert(key);
                }
                Some(Access::Write) => {
                    later_changes.insert(path);
                }
                None => {}
            }
        }
    }
    stale
}

#[cfg(test)]
mod tests;
