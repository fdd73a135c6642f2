//! Ward's system prompt, in layers, recomputed per call (SPEC §5.1).
//!
//! 1. The agent's prompt, else the base prompt of the model family
//!    ([`Family`]).
//! 2. Instruction files (`AGENTS.md`/`CLAUDE.md` walking up, the global one,
//!    configured paths), the available skills, and the environment
//!    (directory, platform, date, git status, a bounded file tree).
//! 3. The user message's own `system` text.
//!
//! [`SystemPrompt::blocks`] puts the stable parts (layer 1, instructions,
//! skills) in a first block marked for caching and the per-call parts after
//! it. [`NestedInstructions`] attaches the `AGENTS.md` of a directory a tool
//! reads from, once, as a system reminder.
//!
//! - [`base`]: the base prompt per family.
//! - `system`: [`PromptInputs`] and [`SystemPrompt`].
//! - `instructions`: finding and reading instruction files.
//! - `env`, `git`, `tree`: the environment block; `ahead`: computing it early.
//! - `skills`: the `<available_skills>` block.
//! - `nested`: [`NestedInstructions`].

#![warn(missing_docs)]

mod ahead;
pub mod base;
mod env;
mod git;
mod instructions;
mod nested;
mod paths;
mod skills;
mod system;
mod tree;

pub use ahead::EnvironmentAhead;
pub use base::Family;
pub use git::{STATUS_LINES, STATUS_TIMEOUT};
pub use instructions::FILE_CAP;
pub use nested::NestedInstructions;
pub use paths::default_global_dir;
pub use system::{DEFAULT_REFRESH_INTERVAL, PromptInputs, SystemPrompt};
pub use tree::{MAX_DEPTH, MAX_ENTRIES, PER_DIR};
