//! Ward's built-in skills, provided by a component to show (and test) skill
//! components: `code-review`, the checklist the `reviewer` agent loads, and
//! `ward-plugins`, how to write a Ward plugin. The texts live in `skills/*.md` and are
//! compiled into the component.

use ward_sdk::skills::{Embedded, SkillContent, SkillError, SkillInfo, Skills};

/// The skills, compiled in.
pub const SKILLS: &[Embedded] = &[
    Embedded {
        name: "code-review",
        description: "Checklist for reviewing a code change: correctness, errors, \
                      security, concurrency, tests. Load before reviewing a diff or a file.",
        content: include_str!("../skills/code-review.md"),
    },
    Embedded {
        name: "ward-plugins",
        description: "How to write, build and grant a Ward plugin (a WebAssembly \
                      component tool, hook, agent or skill). Load when asked to create \
                      or debug a Ward plugin.",
        content: include_str!("../skills/ward-plugins.md"),
    },
];

/// The skills this component provides.
pub struct Guides;

impl Skills for Guides {
    fn list() -> Vec<SkillInfo> {
        ward_sdk::skills::list(SKILLS)
    }

    fn load(name: &str) -> Result<SkillContent, SkillError> {
        ward_sdk::skills::load(SKILLS, name)
    }
}

#[cfg(target_arch = "wasm32")]
ward_sdk::export_skills!(Guides);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_skill_loads_and_has_a_title() {
        for info in Guides::list() {
            let content = Guides::load(&info.name).map(|c| c.content);
            assert!(content.is_ok_and(|c| c.starts_with("# ")), "{}", info.name);
        }
    }
}
