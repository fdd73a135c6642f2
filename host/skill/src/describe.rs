//! What the model is told about the available skills.
//!
//! Owns the `skill` tool's description (the `<available_skills>` listing and the
//! guidance on when to load a skill) and the compact `(name, description)` list
//! the system prompt's available-skills block is built from.

use crate::registry::SkillInfo;

/// The `skill` tool's description for an agent that can see `skills` (usually
/// [`SkillRegistry::visible`](crate::SkillRegistry::visible)).
///
/// Lists each skill as `<skill><name>…</name><description>…</description></skill>`
/// inside `<available_skills>`, with `&`, `<` and `>` escaped; with no skills it
/// says so plainly.
pub fn tool_description(skills: &[&SkillInfo]) -> String {
    let mut out = String::from(
        "Load a skill: specialised instructions, and the scripts and reference files \
         that come with them, for a particular kind of task.\n\n",
    );
    if skills.is_empty() {
        out.push_str("No skills are available. Do not call this tool; there is nothing to load.");
        return out;
    }
    out.push_str(
        "When the task at hand matches a skill's description, call this tool with that \
         skill's name before starting the work, then follow the instructions it returns. \
         Load a skill only when it is relevant, load each skill at most once per \
         conversation (its content stays in context), and use only the names listed \
         below. Paths in a skill are relative to the base directory given in its \
         content.\n\n",
    );
    out.push_str("<available_skills>\n");
    for skill in skills {
        out.push_str("  <skill>\n");
        out.push_str(&format!("    <name>{}</name>\n", escape(&skill.name)));
        out.push_str(&format!(
            "    <description>{}</description>\n",
            escape(&skill.description)
        ));
        out.push_str("  </skill>\n");
    }
    out.push_str("</available_skills>");
    out
}

/// `(name, description)` for each of `skills`, in order: the compact list the
/// system prompt's `<available_skills>` block is rendered from.
pub fn summaries(skills: &[&SkillInfo]) -> Vec<(String, String)> {
    skills
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect()
}

/// `text` with `&`, `<`, `>` and `"` escaped for XML-like markup.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::roots::{Scope, SkillSource};

    fn skill(name: &str, description: &str) -> SkillInfo {
        SkillInfo {
            name: name.to_string(),
            description: description.to_string(),
            dir: PathBuf::from("/s").join(name),
            file: PathBuf::from("/s").join(name).join("SKILL.md"),
            source: SkillSource {
                scope: Scope::Project,
                root: PathBuf::from("/s"),
            },
            plugin: None,
        }
    }

    #[test]
    fn lists_skills_escaped() {
        let a = skill("pdf-tools", "Extract text from <PDF> files & forms");
        let b = skill("deploy", "Deploy with CDK");
        let text = tool_description(&[&a, &b]);
        assert!(text.contains("<available_skills>\n  <skill>\n    <name>pdf-tools</name>"));
        assert!(text.contains(
            "<description>Extract text from &lt;PDF&gt; files &amp; forms</description>"
        ));
        assert!(text.contains("<name>deploy</name>"));
        assert!(text.ends_with("</available_skills>"));
        assert!(text.contains("call this tool with that skill's name"));
        assert_eq!(
            summaries(&[&b]),
            vec![("deploy".to_string(), "Deploy with CDK".to_string())]
        );
    }

    #[test]
    fn none_available() {
        let text = tool_description(&[]);
        assert!(text.contains("No skills are available."));
        assert!(!text.contains("<available_skills>"));
        assert!(summaries(&[]).is_empty());
    }
}
