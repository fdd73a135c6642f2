//! Assessing a project: every project layer read with its tokens held and passed
//! through the tightening filter, the project's other surfaces listed, and the
//! result compared with the recorded decision.

use std::path::Path;

use super::digests::Digests;
use super::hold::Holder;
use super::record::{self, Records};
use super::{Held, ProjectTrust, TrustItem, TrustState, digest, surface};
use crate::error::ConfigError;
use crate::load::{ReadLayer, read_layer};
use crate::merge::merge;
use crate::origin::Origins;
use crate::substitute::{EnvLookup, Tokens};
use crate::warning::Warning;

/// A project being assessed, one layer at a time.
pub(crate) struct Assessment<'a> {
    project: &'a Path,
    user: &'a toml::Table,
    items: Vec<TrustItem>,
    narrowed: toml::Table,
    tight: Vec<ReadLayer>,
}

/// The outcome: the trust in force, and each project layer as an untrusted project
/// gets it (used when the project is restricted).
pub(crate) struct Assessed {
    pub(crate) project: ProjectTrust,
    pub(crate) tight: Vec<ReadLayer>,
}

impl<'a> Assessment<'a> {
    /// Assesses `project` against the user's merged layers `user`.
    pub(crate) fn new(project: &'a Path, user: &'a toml::Table) -> Self {
        Assessment {
            project,
            user,
            items: Vec::new(),
            narrowed: toml::Table::new(),
            tight: Vec::new(),
        }
    }

    /// Reads one project layer without resolving any token, and filters it.
    pub(crate) fn layer(
        &mut self,
        file: &Path,
        text: &str,
        cwd: &Path,
        env: EnvLookup<'_>,
    ) -> Result<(), ConfigError> {
        let mut origins = Origins::default();
        let read = read_layer(file, text, cwd, env, Tokens::Hold, &mut origins)?;
        let shown = file.strip_prefix(self.project).unwrap_or(file);
        let mut holder = Holder::new(shown, self.user);
        let table = holder.tighten(read.table);
        self.items.extend(holder.items);
        merge(&mut self.narrowed, holder.narrowed);
        let mut located = read.origins;
        located.extend(origins.iter().map(|(path, at)| (path.to_vec(), at.clone())));
        self.tight.push(ReadLayer {
            table,
            origins: located,
            warnings: read.warnings,
        });
        Ok(())
    }

    /// Adds the project's other surfaces and looks the decision up in the data
    /// directory `env` names.
    pub(crate) fn finish(mut self, env: EnvLookup<'_>) -> Assessed {
        let data_dir = record::data_dir(env);
        let mut digests = Digests::load(data_dir.as_deref());
        self.items
            .extend(surface::items(self.project, &mut digests));
        digests.save();
        let project =
            std::fs::canonicalize(self.project).unwrap_or_else(|_| self.project.to_path_buf());
        let digest = digest(&self.items);
        let words: Vec<String> = self.items.iter().map(|i| i.what.clone()).collect();
        let mut problems = Vec::new();
        let records = match data_dir {
            Some(dir) => Records::load(&dir.join(record::FILE_NAME)).unwrap_or_else(|e| {
                problems.push(Warning::new(format!(
                    "{e}; no project is trusted until it is fixed or removed"
                )));
                Records::default()
            }),
            None => Records::default(),
        };
        let state = records.state(&project, &digest, &words);
        let held = if state == TrustState::Trusted {
            Held::default()
        } else {
            narrowed(std::mem::take(&mut self.narrowed), &mut problems)
        };
        if let Some(first) = self.tight.first_mut() {
            first.warnings.splice(0..0, problems);
        }
        Assessed {
            project: ProjectTrust {
                project,
                items: self.items,
                digest,
                state,
                held,
            },
            tight: self.tight,
        }
    }
}

/// The narrowed-only part of the project layers, typed; a part that does not fit
/// (the layers conflict) is dropped with a warning, never applied loosely.
fn narrowed(mut table: toml::Table, problems: &mut Vec<Warning>) -> Held {
    let mut held = Held::default();
    if let Some(toml::Value::Table(permission)) = table.remove("permission") {
        held.permission = permission;
    }
    if let Some(agent) = table.remove("agent") {
        match agent.try_into() {
            Ok(agent) => held.agent = agent,
            Err(e) => problems.push(Warning::new(format!(
                "the project's agents are ignored: {}",
                e.message()
            ))),
        }
    }
    if let Some(command) = table.remove("command") {
        match command.try_into() {
            Ok(command) => held.command = command,
            Err(e) => problems.push(Warning::new(format!(
                "the project's commands are ignored: {}",
                e.message()
            ))),
        }
    }
    held
}
