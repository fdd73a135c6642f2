//! Workspace trust: what a project's own files may do before a person trusts them.
//!
//! Every configuration layer that lives in the project tree or above it (`ward.toml`
//! files, `.ward/ward.toml`, `opencode.json(c)`) and the project's plugin directory and
//! `ward.lock` are the repository's words, not the user's. Until the user trusts the
//! project they may only tighten: deny and ask rules, lower limits, instructions,
//! agents and commands that run under the user's own rules. Everything that would
//! loosen or reach outside — starting a process or an MCP server, plugins and their
//! grants, sandbox changes, allow rules, a provider's endpoint or credentials,
//! `{env:…}`/`{file:…}` substitution, instruction paths outside the project — is
//! *held*: left out of the effective configuration and listed as a [`TrustItem`].
//!
//! The decision is pinned ([`record`]): `ward trust` records the project's path with
//! a digest of exactly the items it was shown, so any change to them (a new MCP
//! server after `git pull`) makes the project untrusted again, and says what changed.
//!
//! - [`hold`]: the tightening filter over one project layer.
//! - [`surface`]: what the project asks for outside its configuration files.
//! - [`record`]: the recorded decisions, in the data directory.
//! - `digests`: remembered file digests, so unchanged plugins are not hashed again.

pub(crate) mod assess;
mod digests;
pub(crate) mod hold;
pub mod record;
pub(crate) mod surface;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::schema::{AgentConfig, CommandConfig};

/// One thing a project's own files ask for beyond what an untrusted project gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustItem {
    /// What it does, in plain words, on one terminal-safe line: "starts MCP server
    /// `db`: `node server.js`".
    pub what: String,
    /// Where it is written: the file, and the key within it when there is one.
    pub source: String,
    /// Its exact content, canonical; hashed to pin the decision, never shown.
    pub content: String,
}

/// Where a project stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrustState {
    /// The project's files ask for nothing an untrusted project does not get.
    #[default]
    NothingAsked,
    /// A person trusted exactly these items.
    Trusted,
    /// Nobody has decided yet.
    Undecided,
    /// A person chose to keep the project restricted (for exactly these items).
    Declined,
    /// A person trusted the project, but what it asks for has changed since.
    Changed {
        /// What it asks for now and did not then.
        added: Vec<String>,
        /// What it asked for then and does not now.
        removed: Vec<String>,
    },
}

/// The project's trust: what it asks for, the decision in force, and what its
/// untrusted layers contribute under the user's rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectTrust {
    /// The project root the decision is recorded for.
    pub project: PathBuf,
    /// What the project's files ask for beyond the defaults, in file order.
    pub items: Vec<TrustItem>,
    /// The digest of `items` a decision is pinned to.
    pub digest: String,
    /// The decision in force.
    pub state: TrustState,
    /// While restricted: the project layers' rules, agents and commands, which apply
    /// only narrowed (see [`Held`]); empty when trusted.
    pub held: Held,
}

/// What untrusted project layers say that applies only narrowed: their permission
/// rules (a layer that can only make a decision stricter), and their agents and
/// commands (which may not shadow a built-in or the user's own, and whose rules only
/// narrow).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Held {
    /// `[permission]` of the project layers, merged, in their order.
    pub permission: toml::Table,
    /// `[agent.NAME]` of the project layers.
    pub agent: BTreeMap<String, AgentConfig>,
    /// `[command.NAME]` of the project layers.
    pub command: BTreeMap<String, CommandConfig>,
}

impl ProjectTrust {
    /// Whether the project's layers count only as far as they tighten: everything
    /// but a recorded trust. (A project that asks for nothing is restricted too: its
    /// rules still only narrow, so its `ask` cannot undo the user's `deny`.)
    pub fn restricted(&self) -> bool {
        self.state != TrustState::Trusted
    }

    /// Whether a person should be asked (nothing recorded for what it asks now).
    pub fn needs_decision(&self) -> bool {
        matches!(
            self.state,
            TrustState::Undecided | TrustState::Changed { .. }
        )
    }

    /// The one warning line a restricted project gets, naming every held item;
    /// `None` when nothing is held.
    pub fn warning(&self) -> Option<String> {
        if !self.restricted() || self.items.is_empty() {
            return None;
        }
        let listed: Vec<&str> = self.items.iter().map(|i| i.what.as_str()).collect();
        let why = match &self.state {
            TrustState::Changed { added, .. } if !added.is_empty() => format!(
                "what this project asks for changed since you trusted it (new: {})",
                added.join("; ")
            ),
            TrustState::Changed { .. } => {
                "what this project asks for changed since you trusted it".to_owned()
            }
            TrustState::Declined => "you chose to keep this project restricted".to_owned(),
            _ => "this project is not trusted".to_owned(),
        };
        Some(plain(&format!(
            "{why}: held back until you run `ward trust`: {}",
            listed.join("; ")
        )))
    }
}

/// The digest a decision is pinned to: every item's source and exact content, in order.
pub(crate) fn digest(items: &[TrustItem]) -> String {
    let mut hash = Sha256::new();
    for item in items {
        hash.update(item.source.as_bytes());
        hash.update([0]);
        hash.update(item.content.as_bytes());
        hash.update([0xff]);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` made safe for one terminal line: control and bidirectional-control
/// characters become `\u{…}` escapes, so a repository cannot hide or reorder what
/// the user is shown. (Written here because this crate sits below the terminal one.)
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}');
        if c.is_control() || bidi || c == crate::substitute::HELD {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// `value` shortened for a line of text.
pub(crate) fn short(value: &str) -> String {
    const MAX: usize = 160;
    if value.chars().count() <= MAX {
        return value.to_owned();
    }
    let mut cut: String = value.chars().take(MAX).collect();
    cut.push('…');
    cut
}
