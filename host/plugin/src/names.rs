//! Tool names: which names a session may offer the model, and which plugin owns each.
//!
//! A provider rejects a request whose tools have invalid or duplicate names, so one
//! plugin declaring such a name would break every session; and with two plugins
//! declaring one name, a lookup by name could hand one's calls (and arguments) to the
//! other. So names are checked once, at load, and every name gets exactly one owner:
//!
//! - a name must match `^[a-z0-9_-]{1,64}$` (what every provider accepts);
//! - the standard (built-in) tools are assigned first and keep their names, unless the
//!   user's config names the plugin that takes one over: `[plugins.NAME] replaces =
//!   ["read"]`;
//! - between other plugins the first in discovery order keeps a name, and the later
//!   plugin's tool of that name is refused — reported, never offered, never called.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::bindings::ToolInfo;
use crate::discovery::Origin;
use crate::runtime::Plugin;

/// The longest tool name providers accept.
pub const MAX_TOOL_NAME: usize = 64;

/// Whether `name` is a valid tool name: 1 to 64 of `a-z`, `0-9`, `_` and `-`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Why `name` is not a valid tool name, or `None` if it is.
pub fn tool_name_problem(name: &str) -> Option<String> {
    if valid_tool_name(name) {
        return None;
    }
    Some(format!(
        "tool name `{}` is invalid: a tool name is 1 to {MAX_TOOL_NAME} characters of \
         a-z, 0-9, `_` and `-`",
        name.escape_debug()
    ))
}

/// A tool a plugin declares that no session offers, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedTool {
    /// The declaring plugin.
    pub plugin: String,
    /// The tool's name as declared.
    pub tool: String,
    /// Why it is refused (names the plugin that keeps the name, and the setting).
    pub reason: String,
}

/// Gives every tool name one owner. `tools` is every enabled plugin's tools in
/// discovery order; `replaces` maps a plugin to the standard tools the user lets it
/// take over. Returns the tools on offer (in the order given) and the refused ones.
pub(crate) fn assign(
    tools: Vec<(Arc<Plugin>, ToolInfo)>,
    replaces: &BTreeMap<String, Vec<String>>,
) -> (Vec<(Arc<Plugin>, ToolInfo)>, Vec<RefusedTool>) {
    let builtin = |p: &Plugin| p.source.origin == Origin::Builtin;
    // Index into `tools` of each name's owner.
    let mut owner: HashMap<&str, usize> = HashMap::new();
    let mut refused = Vec::new();
    let order = (0..tools.len())
        .filter(|&i| builtin(&tools[i].0))
        .chain((0..tools.len()).filter(|&i| !builtin(&tools[i].0)));
    for i in order {
        let (plugin, info) = &tools[i];
        let name = info.name.as_str();
        let refuse = |reason: String| RefusedTool {
            plugin: plugin.name().to_string(),
            tool: info.name.clone(),
            reason,
        };
        if let Some(problem) = tool_name_problem(name) {
            refused.push(refuse(problem));
            continue;
        }
        let Some(&held) = owner.get(name) else {
            owner.insert(name, i);
            continue;
        };
        let holder = &tools[held].0;
        let replacing = !builtin(plugin)
            && builtin(holder)
            && replaces
                .get(plugin.name())
                .is_some_and(|names| names.iter().any(|n| n == name));
        if replacing {
            owner.insert(name, i);
            continue;
        }
        let reason = if Arc::ptr_eq(plugin, holder) {
            format!(
                "tool `{name}` is declared twice by plugin `{}`",
                plugin.name()
            )
        } else if builtin(holder) && !builtin(plugin) {
            format!(
                "tool `{name}` clashes with the standard tool `{name}` (plugin `{}`), which \
                 is kept; to replace it, set `[plugins.{}] replaces = [\"{name}\"]` in ward.toml",
                holder.name(),
                plugin.name()
            )
        } else {
            format!(
                "tool `{name}` clashes with the tool of the same name of plugin `{}` \
                 (found first), which keeps it",
                holder.name()
            )
        };
        refused.push(refuse(reason));
    }
    let mut kept: Vec<bool> = vec![false; tools.len()];
    for &i in owner.values() {
        kept[i] = true;
    }
    let offered = tools
        .into_iter()
        .zip(kept)
        .filter_map(|(tool, keep)| keep.then_some(tool))
        .collect();
    (offered, refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_providers_accept() {
        for ok in ["read", "apply_patch", "my-tool", "a", "x9", &"a".repeat(64)] {
            assert!(valid_tool_name(ok), "{ok}");
        }
        for bad in [
            "",
            "Read",
            "read tool",
            "read.file",
            "röad",
            "a/b",
            "\u{1b}[2Jread",
            &"a".repeat(65),
        ] {
            assert!(!valid_tool_name(bad), "{bad:?}");
            assert!(tool_name_problem(bad).is_some());
        }
    }
}
