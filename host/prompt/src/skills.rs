//! The `<available_skills>` block.

/// The skills as an `<available_skills>` block, one `- name: description`
/// line each, in the order given; `None` when there are none.
pub(crate) fn render(skills: &[(String, String)]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut out = String::from(
        "<available_skills>\nSkills give specialised instructions for particular tasks. When a task matches a skill's description, load it with the skill tool before you start.\n",
    );
    for (name, description) in skills {
        // One line per skill, whatever the description holds.
        let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!("- {name}: {description}\n"));
    }
    out.push_str("</available_skills>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn renders_or_skips() {
        assert_eq!(render(&[]), None);
        let out = render(&[
            ("pdf".to_owned(), "Read and\nfill PDF forms".to_owned()),
            ("git".to_owned(), "Git workflows".to_owned()),
        ])
        .unwrap();
        assert!(out.starts_with("<available_skills>\n"));
        assert!(out.contains("\n- pdf: Read and fill PDF forms\n- git: Git workflows\n"));
        assert!(out.ends_with("</available_skills>"));
    }
}
