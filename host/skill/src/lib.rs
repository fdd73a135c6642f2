//! Skills for Ward: Claude Code's Agent Skills format (`SKILL.md`), discovered
//! on disk and loaded on demand by the `skill` tool.
//!
//! A skill is a directory holding a `SKILL.md` whose YAML front matter gives a
//! `name` and a `description`; the body is the instructions, and the other
//! files of the directory (scripts, references, assets) come with it. Fields
//! Ward does not use (`license`, `allowed-tools`, `metadata`, …) are accepted
//! and ignored, so existing Claude Code and OpenCode skills work unchanged.
//!
//! - [`roots`]: where skills are looked for, and in which order.
//! - [`discover`]: scanning a skills directory, the rules a skill must meet, and
//!   the [`Warning`]s for the ones that do not.
//! - [`registry`]: the [`SkillRegistry`]: lookup, per-agent visibility, loading.
//! - [`content`]: the `<skill_content>` text a loaded skill becomes.
//! - [`describe`]: the `skill` tool's description and the system prompt's list.
//!
//! ```no_run
//! use ward_skill::{SkillRegistry, SkillRoots, tool_description};
//!
//! let (registry, warnings) = SkillRegistry::discover(&SkillRoots::from_env("/repo"));
//! for warning in &warnings {
//!     eprintln!("warning: {warning}");
//! }
//! let visible = registry.visible(&[]);
//! let description = tool_description(&visible);
//! # let _ = description;
//! ```

#![deny(missing_docs)]

pub mod content;
pub mod describe;
pub mod discover;
pub mod registry;
pub mod roots;

pub use describe::{summaries, tool_description};
pub use discover::{MAX_NAME_LEN, NameError, SKILL_FILE, Warning, check_name};
pub use registry::{PERMISSION, SkillError, SkillInfo, SkillRegistry};
pub use roots::{Scope, SkillRoots, SkillSource};

#[cfg(test)]
mod tests;
