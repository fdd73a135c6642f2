//! [`CommandRegistry`]: the built-in commands overlaid by the global and the
//! project's command files, and the check of the agents they name.
//!
//! Loading never fails: each problem is a [`Warning`] and the file it
//! concerns is skipped.

use std::collections::BTreeMap;
use std::path::Path;

use crate::builtin;
use crate::info::{CommandInfo, CommandSource};
use crate::invocation::{Invocation, split_invocation};
use crate::markdown;
use ward_config::{LoadedConfig, Warning};

/// Every command, by name.
#[derive(Debug, Clone)]
pub struct CommandRegistry {
    /// Sorted by name, names unique.
    commands: Vec<CommandInfo>,
    /// The line of the `agent:` key of file commands that set one, by name.
    agent_lines: BTreeMap<String, usize>,
}

impl CommandRegistry {
    /// Loads the commands, in increasing precedence: the built-ins, OpenCode's
    /// global command files (`~/.config/opencode/command(s)/`), files under
    /// `<global_dir>/commands/`, OpenCode's under `<project>/.opencode/command(s)/`,
    /// files under `<project>/.ward/commands/`.
    /// A later definition of a name replaces an earlier one as a whole.
    ///
    /// `global_dir` is Ward's global configuration directory
    /// (`ward_config::global_config_dir`), not its `commands` subdirectory.
    pub fn load(project: &Path, global_dir: Option<&Path>) -> (Self, Vec<Warning>) {
        Self::load_with_config(project, global_dir, None)
    }

    /// [`CommandRegistry::load`], with the commands `config` defines
    /// (`[command.NAME]`, or an OpenCode file's `command`) above the built-ins and
    /// below every command file.
    pub fn load_with_config(
        project: &Path,
        global_dir: Option<&Path>,
        config: Option<&LoadedConfig>,
    ) -> (Self, Vec<Warning>) {
        let mut warnings = Vec::new();
        let mut commands: BTreeMap<String, CommandInfo> = builtin::all()
            .into_iter()
            .map(|c| (c.name.clone(), c))
            .collect();
        let untrusted = config.filter(|c| c.trust.restricted());
        for (name, configured) in config.map(|c| &c.config.command).into_iter().flatten() {
            commands.insert(name.clone(), configured_info(name, configured, config));
        }
        let mut agent_lines = BTreeMap::new();
        use ward_config::opencode;
        let mut dirs = opencode::global_dirs(global_dir, opencode::COMMAND_DIRS);
        dirs.extend(global_dir.map(|global| global.join("commands")));
        for dir in dirs {
            for loaded in markdown::commands(&dir, &mut warnings) {
                add_file(&mut commands, &mut agent_lines, loaded);
            }
        }
        // The project's own commands. Untrusted, they may add commands but not
        // replace a built-in or one of the user's own (a `/init` that does something
        // else): the names taken so far are the user's.
        let taken: Vec<String> = match untrusted {
            Some(_) => commands.keys().cloned().collect(),
            None => Vec::new(),
        };
        let shadows = |name: &str, warnings: &mut Vec<Warning>| {
            let shadowing = taken.iter().any(|t| t == name);
            if shadowing {
                warnings.push(Warning::new(format!(
                    "the project's command `/{name}` would replace the built-in or your own \
                     command of that name; not used until you trust the project (`ward trust`)"
                )));
            }
            shadowing
        };
        for (name, configured) in untrusted
            .map(|c| &c.trust.held.command)
            .into_iter()
            .flatten()
        {
            if !shadows(name, &mut warnings) {
                commands.insert(name.clone(), configured_info(name, configured, config));
            }
        }
        let mut dirs = opencode::project_dirs(project, opencode::COMMAND_DIRS);
        dirs.push(project.join(".ward").join("commands"));
        for dir in dirs {
            for loaded in markdown::commands(&dir, &mut warnings) {
                if !shadows(&loaded.info.name, &mut warnings) {
                    add_file(&mut commands, &mut agent_lines, loaded);
                }
            }
        }
        let registry = CommandRegistry {
            commands: commands.into_values().collect(),
            agent_lines,
        };
        (registry, warnings)
    }

    /// The command called `name`.
    pub fn get(&self, name: &str) -> Option<&CommandInfo> {
        self.commands
            .binary_search_by(|c| c.name.as_str().cmp(name))
            .ok()
            .and_then(|i| self.commands.get(i))
    }

    /// Every command, sorted by name.
    pub fn list(&self) -> &[CommandInfo] {
        &self.commands
    }

    /// The command `input` invokes, if it is `/name arguments` and `name` is
    /// a command here, with the invocation.
    ///
    /// Unlike [`parse_invocation`](crate::parse_invocation), this does not
    /// reject names that look like filesystem paths: a command that exists
    /// can always be run.
    pub fn resolve<'a>(&'a self, input: &'a str) -> Option<(&'a CommandInfo, Invocation<'a>)> {
        let invocation = split_invocation(input)?;
        Some((self.get(invocation.name)?, invocation))
    }

    /// Warnings for commands that name an agent not in `known_agents`, each
    /// naming the command's file (and the line of its `agent:` key). The
    /// command is kept: running it would fail, or the caller falls back.
    pub fn validate(&self, known_agents: &[&str]) -> Vec<Warning> {
        let mut warnings = Vec::new();
        for command in &self.commands {
            let Some(agent) = &command.agent else {
                continue;
            };
            // A built-in's agent comes from a plugin that may be switched off; the
            // command then falls back to another agent, which is no mistake of the user's.
            if command.source == CommandSource::Builtin {
                continue;
            }
            if known_agents.contains(&agent.as_str()) {
                continue;
            }
            let message = format!(
                "the command `{}` names the agent `{agent}`, which does not exist",
                command.name
            );
            warnings.push(match &command.source {
                CommandSource::File { path } => match self.agent_lines.get(&command.name) {
                    Some(&line) => Warning::at(path, line, 1, message),
                    None => Warning::in_file(path, message),
                },
                CommandSource::Config { at } => Warning::at(&at.file, at.line, at.column, message),
                CommandSource::Builtin => Warning::new(message),
            });
        }
        warnings
    }
}

/// A command `[command.NAME]` defines, located where the configuration set it.
fn configured_info(
    name: &str,
    configured: &ward_config::CommandConfig,
    config: Option<&LoadedConfig>,
) -> CommandInfo {
    // Every key of the merged configuration has an origin; should one be missing
    // (a held project command), the command still loads, attributed to the
    // configuration.
    let at = config
        .and_then(|c| c.origins.get(&["command", name]))
        .cloned()
        .unwrap_or_else(|| ward_config::Located {
            file: "configuration".into(),
            line: 1,
            column: 1,
        });
    CommandInfo {
        name: name.to_owned(),
        description: configured.description.clone(),
        agent: configured.agent.clone(),
        model: configured.model.clone(),
        subtask: configured.subtask.unwrap_or(false),
        template: configured.template.clone(),
        source: CommandSource::Config { at },
    }
}

/// Adds a command file's command over any earlier one of its name.
fn add_file(
    commands: &mut BTreeMap<String, CommandInfo>,
    agent_lines: &mut BTreeMap<String, usize>,
    loaded: markdown::Loaded,
) {
    let name = loaded.info.name.clone();
    match loaded.agent_line {
        Some(line) => agent_lines.insert(name.clone(), line),
        None => agent_lines.remove(&name),
    };
    commands.insert(name, loaded.info);
}
