//! Ward's agents: the built-ins, agents from `ward.toml` and markdown files,
//! their permission layers, and the checked default agent.
//!
//! An agent ([`AgentInfo`]) is a persona (prompt, description, colour), model
//! settings (model, temperature, top_p), a limit (`steps`) and permission
//! rules. [`AgentRegistry::load`] assembles them once per project; the loop
//! asks the registry.
//!
//! # Built-in agents
//!
//! | name | mode | rules (on top of the defaults) |
//! |------|------|--------------------------------|
//! | `build` | primary, the default | none |
//! | `plan` | primary | `edit` denied except `.ward/plans/*.md`; read-only `bash` commands allowed, others ask |
//! | `general` | subagent | `todowrite`, `todoread` denied |
//! | `explore` | subagent | everything denied except `read`, `grep`, `glob`, `list`, `bash`, `webfetch` |
//! | `compaction`, `title`, `summary` | primary, hidden | everything denied |
//!
//! `build` and `compaction` have no prompt of their own: `build` uses the
//! model family's base prompt and the session crate supplies the compaction
//! prompt.
//!
//! # Where agents come from, and which wins
//!
//! In increasing precedence (OpenCode's order):
//!
//! 1. the built-ins, then the agents plugin components define (which cannot
//!    redefine a built-in);
//! 2. OpenCode's global agent files (`~/.config/opencode/agent(s)/**/*.md`),
//!    then markdown files under `<global config dir>/agents/**/*.md`;
//! 3. `[agent.NAME]` tables of the merged configuration (every `ward.toml`
//!    layer, already merged by `ward-config`);
//! 4. OpenCode's agent files under `<project>/.opencode/agent(s)/**/*.md`, then
//!    Claude Code's under `<project>/.claude/agents/**/*.md` (their `name`,
//!    `tools` allow-list and `model: inherit` are understood; OpenCode's
//!    `tools: { bash: false }` switches too);
//! 5. markdown files under `<project>/.ward/agents/**/*.md`.
//!
//! Each definition overrides only the fields it sets (`[agent.plan] steps = 5`
//! keeps the rest of `plan`); an unknown name defines a new agent (mode
//! `all` unless set). `disable = true` removes the agent, unless a later
//! definition sets `disable = false`. A definition that cannot be used (bad
//! YAML, an unknown field, a permission table that does not parse) is skipped
//! as a whole with a [`Warning`] — never applied without its rules — and
//! everything else still loads.
//!
//! # Permission layers
//!
//! A request by an agent is evaluated against, in order (the last matching
//! rule wins, see `ward_permission::evaluate`):
//!
//! 1. `ward_permission::defaults()`;
//! 2. the agent's built-in rules, [`AgentInfo::rules`];
//! 3. the configuration's `[permission]` table;
//! 4. the agent's configured rules, [`AgentInfo::configured_rules`] (from
//!    `[agent.NAME].permission` and markdown front matter, in precedence
//!    order);
//! 5. then the session's rules and stored approvals, added by the caller.
//!
//! A component's rules are a *narrowing* layer among the configured rules:
//! they can make a decision stricter (`deny` edits even where `[permission]`
//! allows them) but never looser (their `allow` cannot undo the user's `ask`),
//! because a plugin gets nothing the user did not give it.
//!
//! [`AgentInfo::layers`] builds 1–4. Because `[permission]` comes after the
//! built-in rules, a user's global `edit = "allow"` also lets `plan` edit;
//! to restrict one agent, write its own `permission` table.
//!
//! # Modules
//!
//! - [`info`](mod@info): [`AgentInfo`] and [`AgentSource`].
//! - [`builtin`](mod@builtin): the built-in agents, their prompts and rules.
//! - [`registry`](mod@registry): [`AgentRegistry`], loading and the default agent.
//! - [`Warning`] (from `ward-config`): a problem that skipped one definition.
//! - `config`, `markdown`, `merge` (private): reading `[agent.NAME]`,
//!   reading markdown files, and applying definitions over each other.

#![warn(missing_docs)]

pub mod builtin;
mod component;
mod config;
pub mod info;
mod markdown;
mod merge;
pub mod registry;

pub use info::{AgentInfo, AgentMode, AgentSource};
pub use registry::AgentRegistry;
pub use ward_config::Warning;
