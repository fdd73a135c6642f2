//! [`CommandInfo`] (one command: its template and settings), [`CommandSource`]
//! (where it came from) and the rule for command names, [`is_valid_name`].

use std::path::PathBuf;

/// A command: a prompt template run as `/name arguments`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// The name typed after `/`: the file's path under the commands directory
    /// without `.md`, `/` between directories (`git/commit`).
    pub name: String,
    /// One line for menus and `/help`.
    pub description: Option<String>,
    /// The agent that runs the command; `None` means the session's current
    /// agent (or, for a subtask, the caller's choice of subagent).
    pub agent: Option<String>,
    /// A model override, `provider/model`.
    pub model: Option<String>,
    /// Run as a subtask (a child session through the task tool) rather than
    /// in the current session.
    pub subtask: bool,
    /// The prompt template, expanded by [`expand`](crate::expand()).
    pub template: String,
    /// Where the command was defined.
    pub source: CommandSource,
}

/// Where a command was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandSource {
    /// Built into Ward (`init`, `review`).
    Builtin,
    /// A markdown file under a commands directory.
    File {
        /// The file, as found (under the project's or the global directory).
        path: PathBuf,
    },
    /// A `[command.NAME]` table of the configuration (or an OpenCode file's
    /// `command` key).
    Config {
        /// Where the command's name is written.
        at: ward_config::Located,
    },
}

impl CommandInfo {
    /// The placeholders the template uses, for showing what a command
    /// expects: `$1`, `$2`, … in increasing order, then `$ARGUMENTS` if used.
    pub fn hints(&self) -> Vec<String> {
        let mut hints: Vec<String> = crate::expand::positions(&self.template)
            .into_iter()
            .map(|n| format!("${n}"))
            .collect();
        if self.template.contains(crate::expand::ARGUMENTS) {
            hints.push(crate::expand::ARGUMENTS.to_string());
        }
        hints
    }
}

/// Whether `name` can name a command: one or more `/`-separated segments,
/// each non-empty, not starting with `.`, and made only of letters, digits,
/// `-`, `_` and `.`. So no spaces, no `//`, no leading or trailing `/`, and no
/// `.` or `..` segments.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|segment| {
            !segment.is_empty()
                && !segment.starts_with('.')
                && segment
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in [
            "init",
            "git/commit",
            "a-b_c",
            "v1.2",
            "deep/er/name",
            "日本",
        ] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in [
            "", "a b", "/a", "a/", "a//b", ".hidden", "a/../b", "a/./b", "a:b", "a\tb", "a$b",
        ] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn hints_list_the_placeholders() {
        let info = CommandInfo {
            name: "x".into(),
            description: None,
            agent: None,
            model: None,
            subtask: false,
            template: "$2 then $1, $2 again, all: $ARGUMENTS".into(),
            source: CommandSource::Builtin,
        };
        assert_eq!(info.hints(), ["$1", "$2", "$ARGUMENTS"]);
    }
}
