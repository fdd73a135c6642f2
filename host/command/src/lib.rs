//! Ward's commands: prompt templates run as `/name arguments` (SPEC §7,
//! OpenCode's custom commands).
//!
//! # Where commands come from, and which wins
//!
//! In increasing precedence; a later definition of a name replaces an
//! earlier one as a whole:
//!
//! 1. the built-ins, `init` and `review` ([`builtin`]);
//! 2. OpenCode's global command files (`~/.config/opencode/command(s)/**/*.md`),
//!    then markdown files under `<global config dir>/commands/**/*.md`;
//! 3. OpenCode's command files under `<project>/.opencode/command(s)/**/*.md`,
//!    then markdown files under `<project>/.ward/commands/**/*.md`.
//!
//! A file's name is its path under the commands directory without `.md`
//! (`git/commit.md` is `/git/commit`); names follow [`is_valid_name`]. The
//! front matter may set `description`, `agent`, `model` (`provider/model`)
//! and `subtask` (any other key is an error); the body is the template:
//!
//! ```markdown
//! ---
//! description: Commit the staged changes
//! agent: build
//! model: local/qwen
//! ---
//! Write a commit message for these changes and commit them. $ARGUMENTS
//!
//! !`git diff --cached`
//! ```
//!
//! A file that cannot be used is skipped with a [`Warning`] naming
//! `file:line:column`; everything else loads. [`CommandRegistry::validate`]
//! later reports commands naming an agent that does not exist.
//!
//! # Running a command
//!
//! [`parse_invocation`] (or [`CommandRegistry::resolve`]) recognises
//! `/name arguments` in a prompt; [`expand()`] turns the template into the
//! prompt to send, running `` !`cmd` `` through a callback the host supplies
//! (this crate never starts processes) and listing the `@path` files to
//! attach.
//!
//! # Modules
//!
//! - [`info`](mod@info): [`CommandInfo`], [`CommandSource`], [`is_valid_name`].
//! - [`builtin`]: the built-in commands and their templates.
//! - [`registry`](mod@registry): [`CommandRegistry`], loading and checking.
//! - [`invocation`](mod@invocation): [`parse_invocation`], [`Invocation`].
//! - [`expand`](mod@expand): [`expand()`], [`Expanded`], [`ShellFn`],
//!   [`split_arguments`].
//! - [`Warning`] (from `ward-config`): a problem that skipped one definition.
//! - `markdown` (private): reading command files.

#![warn(missing_docs)]

pub mod builtin;
pub mod expand;
pub mod info;
pub mod invocation;
mod markdown;
pub mod registry;

pub use expand::{BoxFuture, Expanded, ShellFn, expand, mentions, split_arguments};
pub use info::{CommandInfo, CommandSource, is_valid_name};
pub use invocation::{Invocation, parse_invocation};
pub use registry::CommandRegistry;
pub use ward_config::Warning;
