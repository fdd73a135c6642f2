//! The set of discovered skills.
//!
//! Owns [`SkillRegistry`]: running discovery over every root in search order
//! (later roots replace earlier ones on equal names), lookup by name, the
//! per-agent view that hides skills the agent's `skill` permission denies, and
//! loading a skill for the `skill` tool.

use std::collections::BTreeMap;
use std::path::PathBuf;

use thiserror::Error;
use ward_permission::{Action, Ruleset, evaluate};

use crate::content;
use crate::discover::{Warning, scan};
use crate::roots::{Scope, SkillRoots, SkillSource};

/// The permission key skills are checked under; the pattern is the skill name.
pub const PERMISSION: &str = "skill";

/// One discovered skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillInfo {
    /// The skill's name: the front matter's `name`, else the directory name.
    pub name: String,
    /// What the skill is for and when to use it, on one line.
    pub description: String,
    /// The skill's directory (absolute); relative paths in the skill resolve here.
    pub dir: PathBuf,
    /// The skill's `SKILL.md`.
    pub file: PathBuf,
    /// The skills directory it was found under.
    pub source: SkillSource,
    /// The plugin component providing it; `None` for a `SKILL.md` on disk. A plugin
    /// skill's `dir` and `file` are `plugin:NAME` placeholders, not paths.
    pub plugin: Option<String>,
}

impl SkillInfo {
    /// A skill that plugin component `plugin` lists.
    pub fn from_plugin(plugin: &str, name: &str, description: &str) -> Self {
        let root = PathBuf::from(format!("plugin:{plugin}"));
        SkillInfo {
            name: name.to_string(),
            description: description.split_whitespace().collect::<Vec<_>>().join(" "),
            dir: root.clone(),
            file: root.join(name),
            source: SkillSource {
                scope: Scope::Plugin,
                root,
            },
            plugin: Some(plugin.to_string()),
        }
    }
}

/// A skill could not be loaded.
#[derive(Debug, Error)]
pub enum SkillError {
    /// No skill has that name (or it is not available to the agent).
    #[error("unknown skill `{name}`; available skills: {}", list(available))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names that exist, sorted.
        available: Vec<String>,
    },
    /// The skill's `SKILL.md` could not be read.
    #[error("{}: cannot read skill `{name}`: {source}", file.display())]
    Read {
        /// The skill.
        name: String,
        /// Its `SKILL.md`.
        file: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The skill's `SKILL.md` changed since discovery and no longer parses.
    #[error("cannot load skill `{name}`: {message}")]
    Invalid {
        /// The skill.
        name: String,
        /// The parse error, starting with `file:line:column`.
        message: String,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The skills found by [`SkillRegistry::discover`], one per name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillRegistry {
    /// Sorted by name, names unique.
    skills: Vec<SkillInfo>,
}

impl SkillRegistry {
    /// Scans every root of `roots` in [search order](SkillRoots::search_order).
    ///
    /// A skill in a later root replaces one of the same name from an earlier
    /// root. Two skills of the same name in the *same* root are a warning and
    /// the later directory (by name) wins. Skills that cannot be offered
    /// (unreadable, malformed front matter, bad name, no description) are
    /// skipped with a warning; discovery never fails.
    pub fn discover(roots: &SkillRoots) -> (SkillRegistry, Vec<Warning>) {
        let mut warnings = Vec::new();
        let mut by_name: BTreeMap<String, SkillInfo> = BTreeMap::new();
        for source in roots.search_order() {
            let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
            for skill in scan(&source, &mut warnings) {
                if let Some(first) = seen.insert(skill.name.clone(), skill.file.clone()) {
                    warnings.push(Warning::in_file(
                        &skill.file,
                        format!(
                            "skill `{}` is also defined in {}; this one replaces it",
                            skill.name,
                            first.display()
                        ),
                    ));
                }
                by_name.insert(skill.name.clone(), skill);
            }
        }
        let registry = SkillRegistry {
            skills: by_name.into_values().collect(),
        };
        (registry, warnings)
    }

    /// Builds a registry from already-discovered skills (e.g. from plugins);
    /// on equal names the later one wins.
    pub fn from_skills(skills: impl IntoIterator<Item = SkillInfo>) -> Self {
        let by_name: BTreeMap<String, SkillInfo> =
            skills.into_iter().map(|s| (s.name.clone(), s)).collect();
        SkillRegistry {
            skills: by_name.into_values().collect(),
        }
    }

    /// Adds skills from plugin components below the ones on disk: a skill directory
    /// with the same name wins, so a user can always replace a plugin's skill. A
    /// plugin skill with a bad name, no description, or a name another plugin
    /// already took is skipped with a warning naming the plugin.
    pub fn add_plugin_skills(&mut self, skills: Vec<SkillInfo>) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let mut from_plugins: BTreeMap<String, SkillInfo> = BTreeMap::new();
        for skill in skills {
            let problem = if let Err(e) = crate::discover::check_name(&skill.name) {
                Some(e.to_string())
            } else if skill.description.is_empty() {
                Some("it has no description, which the model needs to choose it".to_string())
            } else if from_plugins.contains_key(&skill.name) {
                Some("another plugin already provides it".to_string())
            } else {
                None
            };
            if let Some(problem) = problem {
                warnings.push(Warning::in_file(
                    &skill.dir,
                    format!("skill `{}`: {problem}; the skill is ignored", skill.name),
                ));
                continue;
            }
            from_plugins.insert(skill.name.clone(), skill);
        }
        let mut by_name: BTreeMap<String, SkillInfo> = from_plugins;
        by_name.extend(self.skills.drain(..).map(|s| (s.name.clone(), s)));
        self.skills = by_name.into_values().collect();
        warnings
    }

    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&SkillInfo> {
        self.skills
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.skills[i])
    }

    /// Every skill, sorted by name.
    pub fn list(&self) -> &[SkillInfo] {
        &self.skills
    }

    /// Whether there are no skills.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skills an agent with permission `layers` may see: those whose
    /// `skill` permission for the skill's name is not `deny` (`ask` and
    /// `allow` stay visible; asking happens when the skill is loaded).
    pub fn visible(&self, layers: &[Ruleset]) -> Vec<&SkillInfo> {
        self.skills
            .iter()
            .filter(|s| evaluate(PERMISSION, &s.name, layers).action != Action::Deny)
            .collect()
    }

    /// The `<skill_content name="…">` text for the `skill` tool: the body of
    /// `SKILL.md` (re-read now, so edits since discovery count; capped at
    /// 64 KiB), its base directory and up to 10 of its other files.
    ///
    /// This does not check permissions; look the name up among
    /// [`visible`](Self::visible) skills first and ask when the rule says so.
    pub fn load(&self, name: &str) -> Result<String, SkillError> {
        let skill = self.get(name).ok_or_else(|| SkillError::Unknown {
            name: name.to_string(),
            available: self.skills.iter().map(|s| s.name.clone()).collect(),
        })?;
        content::render(skill)
    }
}
