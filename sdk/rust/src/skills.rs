//! The [`Skills`] trait and [`export_skills!`](crate::export_skills), which turns it into
//! the `ward:plugin/skill` interface.
//!
//! A skill component provides skills — instructions the model loads on demand with the
//! `skill` tool — without any files on the user's disk. Ward lists each skill's name
//! and description to the model and calls [`Skills::load`] when the model asks for one.

use std::fmt;

pub use crate::skill_bindings::exports::ward::plugin::skill::{SkillContent, SkillInfo};

/// Why a skill could not be loaded. Ward shows the message to the model, which asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillError {
    /// This component has no skill of that name.
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The skill exists but could not be produced; the message says why.
    Failed(String),
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillError::Unknown { name } => write!(f, "no skill named `{name}`"),
            SkillError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for SkillError {}

/// A skill plugin. `list` must have no side effects; Ward calls it once per component
/// version and caches the answer.
pub trait Skills {
    /// The skills, by name and description.
    fn list() -> Vec<SkillInfo>;
    /// The skill called `name`: its instructions and the names of its supporting files.
    fn load(name: &str) -> Result<SkillContent, SkillError>;
}

/// A skill embedded in the component: its name, description and markdown body.
#[derive(Clone, Copy, Debug)]
pub struct Embedded {
    /// The skill's name.
    pub name: &'static str,
    /// What it is for and when to use it.
    pub description: &'static str,
    /// The instructions.
    pub content: &'static str,
}

/// The listing of `skills`.
pub fn list(skills: &[Embedded]) -> Vec<SkillInfo> {
    skills
        .iter()
        .map(|s| SkillInfo {
            name: s.name.to_string(),
            description: s.description.to_string(),
        })
        .collect()
}

/// The skill of `skills` called `name`.
pub fn load(skills: &[Embedded], name: &str) -> Result<SkillContent, SkillError> {
    skills
        .iter()
        .find(|s| s.name == name)
        .map(|s| SkillContent {
            content: s.content.to_string(),
            files: Vec::new(),
        })
        .ok_or_else(|| SkillError::Unknown {
            name: name.to_string(),
        })
}

/// Exports the [`Skills`] type given as this component's `ward:plugin/skill` interface;
/// its manifest lists `kinds = ["skill"]`.
#[macro_export]
macro_rules! export_skills {
    ($skills:ty) => {
        #[doc(hidden)]
        pub struct __WardExportedSkills;

        impl $crate::skill_bindings::exports::ward::plugin::skill::Guest for __WardExportedSkills {
            fn list_skills() -> ::std::vec::Vec<$crate::skills::SkillInfo> {
                <$skills as $crate::skills::Skills>::list()
            }

            fn load(
                name: ::std::string::String,
            ) -> ::std::result::Result<$crate::skills::SkillContent, ::std::string::String> {
                // The interface carries the reason as text, for the model.
                <$skills as $crate::skills::Skills>::load(&name).map_err(|e| e.to_string())
            }
        }

        $crate::skill_bindings::__export_skill_plugin!(__WardExportedSkills with_types_in $crate::skill_bindings);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILLS: &[Embedded] = &[Embedded {
        name: "a",
        description: "A skill",
        content: "Do A.",
    }];

    #[test]
    fn embedded_skills_list_and_load() {
        assert_eq!(list(SKILLS)[0].name, "a");
        assert_eq!(
            load(SKILLS, "a").map(|c| c.content),
            Ok("Do A.".to_string())
        );
        assert_eq!(
            load(SKILLS, "b").map(|c| c.content),
            Err(SkillError::Unknown {
                name: "b".to_string()
            })
        );
        assert_eq!(
            load(SKILLS, "b")
                .map(|c| c.content)
                .map_err(|e| e.to_string()),
            Err("no skill named `b`".to_string())
        );
    }
}
