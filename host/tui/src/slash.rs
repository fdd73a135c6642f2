//! Slash commands typed in the input box. The UI's own — `/new`, `/help`, `/exit`,
//! `/sessions [ID]`, `/models [PROVIDER/MODEL]`, `/agents [NAME]`, `/undo`, `/redo`, `/compact`,
//! `/export [FILE]` — act here; every other `/name` (the project's and the user's
//! commands, MCP servers' prompts) is sent to the engine as typed, which expands it
//! as it does for `ward run`. The catalogue of all of them feeds completion.

use ward_engine::Engine;

/// The UI's own commands and what they do.
const BUILTINS: [(&str, &str); 10] = [
    ("new", "start a new session"),
    ("help", "keys and commands"),
    ("exit", "leave"),
    (
        "sessions",
        "pick a session to continue, fork or delete; /sessions ID continues one",
    ),
    ("models", "pick the model; /models PROVIDER/MODEL switches"),
    (
        "agents",
        "list the agents; /agents NAME switches the primary one",
    ),
    (
        "undo",
        "revert the last prompt's file changes and hide it from the model",
    ),
    ("redo", "put back what the last /undo took away"),
    ("compact", "summarise the session's history now"),
    ("export", "write the session to a JSON file (/export FILE)"),
];

/// One of the UI's own commands, with its argument.
#[derive(Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `/new`.
    New,
    /// `/help`.
    Help,
    /// `/exit`.
    Exit,
    /// `/sessions [ID]`.
    Sessions(Option<String>),
    /// `/models [PROVIDER/MODEL]`.
    Models(Option<String>),
    /// `/agents [NAME]`.
    Agents(Option<String>),
    /// `/undo`.
    Undo,
    /// `/redo`.
    Redo,
    /// `/compact`.
    Compact,
    /// `/export [FILE]`.
    Export(Option<String>),
}

/// `text` as one of the UI's own commands, if it is one.
pub fn builtin(text: &str) -> Option<Builtin> {
    let rest = text.strip_prefix('/')?;
    let (name, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let arg = Some(arg.trim().to_string()).filter(|a| !a.is_empty());
    Some(match name {
        "new" => Builtin::New,
        "help" => Builtin::Help,
        "exit" | "quit" => Builtin::Exit,
        "sessions" => Builtin::Sessions(arg),
        "models" => Builtin::Models(arg),
        "agents" => Builtin::Agents(arg),
        "undo" => Builtin::Undo,
        "redo" => Builtin::Redo,
        "compact" => Builtin::Compact,
        "export" => Builtin::Export(arg),
        _ => return None,
    })
}

/// Every command that can be typed: name (without the slash) and description.
pub struct Catalog {
    entries: Vec<(String, String)>,
}

impl Catalog {
    /// The UI's commands, then the project's, then the MCP servers' prompts.
    pub fn new(engine: &Engine) -> Catalog {
        let mut entries: Vec<(String, String)> = BUILTINS
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect();
        for command in engine.commands() {
            if entries.iter().all(|(n, _)| *n != command.name) {
                entries.push((command.name, command.description.unwrap_or_default()));
            }
        }
        entries.extend(engine.mcp_prompts());
        Catalog { entries }
    }

    /// A catalogue of exactly `entries` (for tests).
    #[cfg(test)]
    pub fn of(entries: &[(&str, &str)]) -> Catalog {
        Catalog {
            entries: entries
                .iter()
                .map(|(n, d)| (n.to_string(), d.to_string()))
                .collect(),
        }
    }

    /// The commands `typed` may be the start of: `typed` is `/` and a partial name
    /// (no argument yet); none otherwise.
    pub fn completions(&self, typed: &str) -> Vec<&(String, String)> {
        let Some(partial) = typed.strip_prefix('/') else {
            return Vec::new();
        };
        if partial.contains(char::is_whitespace) {
            return Vec::new();
        }
        self.entries
            .iter()
            .filter(|(name, _)| name.starts_with(partial))
            .collect()
    }

    /// The help text: keys, then every command.
    pub fn help(&self) -> String {
        let mut out = String::from(
            "Keys: Enter sends · Esc or Ctrl-C stops the agent · Ctrl-C on an idle prompt \
             or Ctrl-D leaves · Tab / Shift-Tab switch agent (build, plan), or complete a \
             /command or an @file / @agent · Ctrl-O expands or collapses the newest tool \
             output · Ctrl-T shows or hides the reasoning · PageUp/PageDown, Up/Down, the \
             mouse wheel scroll (Shift-drag selects text) · Ctrl-U clears the line\n\
             Commands:",
        );
        for (name, description) in &self.entries {
            out.push_str(&format!("\n  /{name}  {description}"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_take_their_argument() {
        assert_eq!(builtin("/new"), Some(Builtin::New));
        assert_eq!(
            builtin("/sessions  ses_1 "),
            Some(Builtin::Sessions(Some("ses_1".into())))
        );
        assert_eq!(builtin("/models"), Some(Builtin::Models(None)));
        assert_eq!(builtin("/review this"), None);
        assert_eq!(builtin("new"), None);
    }

    #[test]
    fn completion_is_by_prefix_until_an_argument_starts() {
        let catalog = Catalog::of(&[("new", ""), ("models", ""), ("mcp:ask", ""), ("review", "")]);
        let names = |typed| {
            catalog
                .completions(typed)
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(names("/m"), ["models", "mcp:ask"]);
        assert_eq!(names("/"), ["new", "models", "mcp:ask", "review"]);
        assert!(names("/models x").is_empty());
        assert!(names("models").is_empty());
    }
}
