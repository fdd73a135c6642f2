//! End-to-end tests over real directories: discovery, precedence, warnings,
//! visibility and loading.

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use ward_permission::{Action, Rule, Ruleset};

use crate::{Scope, SkillError, SkillRegistry, SkillRoots, tool_description};

/// A fake home and project in one temporary directory.
struct Fixture {
    tmp: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("project")).expect("project");
        Fixture { tmp }
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    fn roots(&self) -> SkillRoots {
        SkillRoots {
            home: Some(self.home()),
            config_home: None,
            global_dir: Some(self.tmp.path().join("global")),
            project: self.project(),
        }
    }

    /// Writes `text` to `relative` under `base`, creating directories.
    fn write(&self, base: &Path, relative: &str, text: &str) -> PathBuf {
        let path = base.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    fn discover(&self) -> (SkillRegistry, Vec<String>) {
        let (registry, warnings) = SkillRegistry::discover(&self.roots());
        (registry, warnings.iter().map(|w| w.to_string()).collect())
    }
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing.\n")
}

const PDF_SKILL: &str = "---
name: pdf-tools
description: Extract text and tables from PDF files. Use when the user mentions PDFs.
license: MIT
allowed-tools: [Read, Bash]
metadata:
  version: \"1.2\"
  author: someone
---

# PDF tools

Run `python scripts/extract.py input.pdf`. See reference.md for details.
";

#[test]
fn claude_code_skill_works_unchanged() {
    let f = Fixture::new();
    let project = f.project();
    let skill = f.write(&project, ".claude/skills/pdf-tools/SKILL.md", PDF_SKILL);
    f.write(
        &project,
        ".claude/skills/pdf-tools/scripts/extract.py",
        "print()\n",
    );
    f.write(&project, ".claude/skills/pdf-tools/reference.md", "# Ref\n");
    f.write(&project, ".claude/skills/pdf-tools/.DS_Store", "junk");

    let (registry, warnings) = f.discover();
    assert!(warnings.is_empty(), "{warnings:?}");
    let info = registry.get("pdf-tools").expect("discovered");
    assert_eq!(
        info.description,
        "Extract text and tables from PDF files. Use when the user mentions PDFs."
    );
    assert_eq!(info.file, skill);
    assert_eq!(info.dir, project.join(".claude/skills/pdf-tools"));
    assert_eq!(info.source.scope, Scope::Project);
    assert_eq!(info.source.root, project.join(".claude").join("skills"));

    let content = registry.load("pdf-tools").expect("loads");
    assert!(
        content.starts_with("<skill_content name=\"pdf-tools\">\n"),
        "{content}"
    );
    assert!(content.ends_with("</skill_content>"), "{content}");
    assert!(content.contains(&format!(
        "Base directory for this skill: {}\n",
        info.dir.display()
    )));
    assert!(content.contains("# PDF tools\n\nRun `python scripts/extract.py input.pdf`."));
    assert!(!content.contains("license: MIT"), "front matter left out");
    assert!(content.contains("<skill_files>\nreference.md\nscripts/extract.py\n</skill_files>"));
    assert!(!content.contains("DS_Store"));
    assert!(!content.contains("and more"));

    let description = tool_description(&registry.visible(&[]));
    assert!(description.contains("<name>pdf-tools</name>"));
}

#[test]
fn later_roots_win_and_personal_roots_are_searched() {
    let f = Fixture::new();
    let home = f.home();
    f.write(
        &home,
        ".claude/skills/deploy/SKILL.md",
        &skill_md("deploy", "Home deploy"),
    );
    f.write(
        &home,
        ".agents/skills/notes/SKILL.md",
        &skill_md("notes", "Agents notes"),
    );
    f.write(
        &home,
        ".config/opencode/skills/oc/SKILL.md",
        &skill_md("oc", "OpenCode skill"),
    );
    let global = f.tmp.path().join("global");
    f.write(&global, "skills/g/SKILL.md", &skill_md("g", "Global skill"));
    f.write(
        &global,
        "skills/deploy/SKILL.md",
        &skill_md("deploy", "Global deploy"),
    );
    let project = f.project();
    f.write(
        &project,
        ".claude/skills/deploy/SKILL.md",
        &skill_md("deploy", "Claude deploy"),
    );
    f.write(
        &project,
        ".ward/skills/deploy-ward/SKILL.md",
        &skill_md("deploy", "Ward deploy"),
    );

    let (registry, warnings) = f.discover();
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<&str> = registry.list().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["deploy", "g", "notes", "oc"], "sorted by name");
    let deploy = registry.get("deploy").expect("deploy");
    assert_eq!(deploy.description, "Ward deploy");
    assert_eq!(deploy.dir, project.join(".ward/skills/deploy-ward"));
    assert_eq!(registry.get("g").expect("g").source.scope, Scope::Global);
    assert_eq!(registry.get("oc").expect("oc").source.scope, Scope::User);
    assert!(registry.get("missing").is_none());
}

#[test]
fn same_name_twice_in_one_root_is_a_warning() {
    let f = Fixture::new();
    let project = f.project();
    f.write(
        &project,
        ".ward/skills/a/SKILL.md",
        &skill_md("dup", "First"),
    );
    f.write(
        &project,
        ".ward/skills/b/SKILL.md",
        &skill_md("dup", "Second"),
    );
    let (registry, warnings) = f.discover();
    assert_eq!(registry.get("dup").expect("dup").description, "Second");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("b/SKILL.md: skill `dup` is also defined in"));
}

#[test]
fn missing_description_is_skipped_with_a_warning() {
    let f = Fixture::new();
    let project = f.project();
    let file = f.write(
        &project,
        ".ward/skills/quiet/SKILL.md",
        "---\nname: quiet\n---\nBody\n",
    );
    f.write(
        &project,
        ".ward/skills/empty/SKILL.md",
        "---\nname: empty\ndescription: \"  \"\n---\n",
    );
    f.write(
        &project,
        ".ward/skills/plain/SKILL.md",
        "No front matter at all.\n",
    );
    let (registry, warnings) = f.discover();
    assert!(registry.is_empty(), "{:?}", registry.list());
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings.contains(&format!(
        "{}: skill has no description; it is not offered",
        file.display()
    )));
}

#[test]
fn malformed_yaml_is_reported_with_its_line() {
    let f = Fixture::new();
    let project = f.project();
    let file = f.write(
        &project,
        ".ward/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: [unclosed\n---\nBody\n",
    );
    f.write(
        &project,
        ".ward/skills/ok/SKILL.md",
        &skill_md("ok", "Fine"),
    );
    let (registry, warnings) = SkillRegistry::discover(&f.roots());
    assert!(registry.get("ok").is_some(), "others still load");
    assert!(registry.get("broken").is_none());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert_eq!(w.file.as_deref(), Some(file.as_path()));
    assert!(w.line.is_some_and(|line| line >= 3), "{w}");
    let text = w.to_string();
    let prefix = format!("{}:{}:", file.display(), w.line.unwrap_or_default());
    assert!(text.starts_with(&prefix), "{text}");
    assert!(text.contains("skipped"), "{text}");
}

#[test]
fn bad_names_are_rejected() {
    let f = Fixture::new();
    let project = f.project();
    let file = f.write(
        &project,
        ".ward/skills/bad/SKILL.md",
        "---\ndescription: x\nname: PDF Tools\n---\n",
    );
    f.write(
        &project,
        ".ward/skills/Big_Dir/SKILL.md",
        "---\ndescription: x\n---\n",
    );
    let long = "a".repeat(65);
    f.write(
        &project,
        &format!(".ward/skills/{long}/SKILL.md"),
        "---\ndescription: x\n---\n",
    );
    let (registry, warnings) = f.discover();
    assert!(registry.is_empty());
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    let bad = format!("{}:3:1: invalid skill name \"PDF Tools\"", file.display());
    assert!(warnings.iter().any(|w| w.starts_with(&bad)), "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"Big_Dir\"") && w.contains("directory's"))
    );
    assert!(warnings.iter().any(|w| w.contains("65 characters")));
}

#[test]
fn directory_name_is_used_without_a_name() {
    let f = Fixture::new();
    let project = f.project();
    f.write(
        &project,
        ".agents/skills/code-review/SKILL.md",
        "---\ndescription: Reviews code\n---\nReview.\n",
    );
    // Only one level deep, like Claude Code: nested skills are not discovered.
    f.write(
        &project,
        ".agents/skills/group/inner/SKILL.md",
        &skill_md("inner", "Nested"),
    );
    // A stray file at the root is not a skill.
    f.write(
        &project,
        ".agents/skills/SKILL.md",
        &skill_md("stray", "Stray"),
    );
    let (registry, warnings) = f.discover();
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<&str> = registry.list().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["code-review"]);
}

#[test]
fn load_lists_at_most_ten_files() {
    let f = Fixture::new();
    let project = f.project();
    f.write(
        &project,
        ".ward/skills/many/SKILL.md",
        &skill_md("many", "Many files"),
    );
    for i in 0..13 {
        f.write(
            &project,
            &format!(".ward/skills/many/data/f{i:02}.txt"),
            "x",
        );
    }
    let (registry, _) = f.discover();
    let content = registry.load("many").expect("loads");
    assert!(content.contains("Do the thing."));
    let listed: Vec<&str> = content
        .lines()
        .skip_while(|l| *l != "<skill_files>")
        .skip(1)
        .take_while(|l| *l != "</skill_files>")
        .collect();
    assert_eq!(listed.len(), 11, "{listed:?}");
    assert_eq!(listed[0], "data/f00.txt");
    assert_eq!(listed[9], "data/f09.txt");
    assert_eq!(listed[10], "… and 3 more files");
}

#[test]
fn load_caps_the_body_and_reads_current_content() {
    let f = Fixture::new();
    let project = f.project();
    let file = f.write(
        &project,
        ".ward/skills/big/SKILL.md",
        &skill_md("big", "Big"),
    );
    let (registry, _) = f.discover();
    let huge = format!(
        "---\nname: big\ndescription: Big\n---\n{}",
        "line\n".repeat(20_000)
    );
    std::fs::write(&file, huge).expect("rewrite");
    let content = registry.load("big").expect("loads");
    assert!(content.contains("[… skill body truncated at 64 KiB;"));
    assert!(content.len() < 70_000);
    assert!(content.contains("<skill_files>\n(no other files)\n</skill_files>"));

    std::fs::remove_file(&file).expect("remove");
    let err = registry.load("big").expect_err("gone");
    assert!(matches!(err, SkillError::Read { .. }));
    assert!(err.to_string().contains("cannot read skill `big`"), "{err}");
}

#[test]
fn denied_skills_are_hidden() {
    let f = Fixture::new();
    let project = f.project();
    for name in ["secret-keys", "secret-plans", "public", "careful"] {
        let text = skill_md(name, &format!("About {name}"));
        f.write(&project, &format!(".ward/skills/{name}/SKILL.md"), &text);
    }
    let (registry, _) = f.discover();
    let layers = [
        Ruleset::new("defaults", vec![Rule::new("*", "*", Action::Allow)]),
        Ruleset::new(
            "test",
            vec![
                Rule::new("skill", "secret-*", Action::Deny),
                Rule::new("skill", "careful", Action::Ask),
            ],
        ),
    ];
    let visible: Vec<&str> = registry
        .visible(&layers)
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(visible, ["careful", "public"]);
    let description = tool_description(&registry.visible(&layers));
    assert!(!description.contains("secret"));
    assert_eq!(
        registry.visible(&[]).len(),
        4,
        "no rule asks, which is visible"
    );

    let all_denied = [Ruleset::new(
        "x",
        vec![Rule::new("skill", "*", Action::Deny)],
    )];
    assert!(registry.visible(&all_denied).is_empty());
    assert!(tool_description(&registry.visible(&all_denied)).contains("No skills are available."));
}

#[test]
fn unknown_skill_lists_the_available_names() {
    let f = Fixture::new();
    let project = f.project();
    f.write(
        &project,
        ".ward/skills/beta/SKILL.md",
        &skill_md("beta", "B"),
    );
    f.write(
        &project,
        ".ward/skills/alpha/SKILL.md",
        &skill_md("alpha", "A"),
    );
    let (registry, _) = f.discover();
    let err = registry.load("gamma").expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "unknown skill `gamma`; available skills: alpha, beta"
    );
    let empty = SkillRegistry::default();
    assert_eq!(
        empty.load("x").expect_err("unknown").to_string(),
        "unknown skill `x`; available skills: none"
    );
    // Restricting to what an agent sees keeps hidden names out of the error.
    let only_beta = SkillRegistry::from_skills(registry.get("beta").cloned());
    let err = only_beta.load("alpha").expect_err("hidden");
    assert_eq!(
        err.to_string(),
        "unknown skill `alpha`; available skills: beta"
    );
}

#[cfg(unix)]
#[test]
fn symlinked_skill_directories_are_followed() {
    let f = Fixture::new();
    let elsewhere = f.tmp.path().join("elsewhere");
    f.write(
        &elsewhere,
        "linked/SKILL.md",
        &skill_md("linked", "Linked in"),
    );
    let root = f.project().join(".claude/skills");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::os::unix::fs::symlink(elsewhere.join("linked"), root.join("linked")).expect("symlink");
    let (registry, warnings) = f.discover();
    assert!(warnings.is_empty(), "{warnings:?}");
    let info = registry.get("linked").expect("found through the link");
    assert_eq!(info.dir, root.join("linked"));
}

#[test]
fn plugin_skills_sit_below_disk_skills_and_are_checked() {
    let fx = Fixture::new();
    fx.write(
        &fx.project(),
        ".claude/skills/code-review/SKILL.md",
        &skill_md("code-review", "Mine"),
    );
    let (mut registry, _) = fx.discover();
    let warnings = registry.add_plugin_skills(vec![
        crate::SkillInfo::from_plugin("guides", "code-review", "The plugin's"),
        crate::SkillInfo::from_plugin("guides", "ward-plugins", "Writing\n  plugins"),
        crate::SkillInfo::from_plugin("other", "ward-plugins", "Again"),
        crate::SkillInfo::from_plugin("other", "Bad Name", "x"),
        crate::SkillInfo::from_plugin("other", "quiet", ""),
    ]);
    let warnings: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].starts_with("plugin:other: skill `ward-plugins`: another plugin"));
    assert!(warnings[1].contains("skill `Bad Name`: 'B' is not allowed"));
    assert!(warnings[2].contains("skill `quiet`: it has no description"));
    // The skill on disk wins over the plugin's of the same name.
    let review = registry.get("code-review").expect("code-review");
    assert_eq!(
        (review.description.as_str(), review.plugin.as_deref()),
        ("Mine", None)
    );
    let guide = registry.get("ward-plugins").expect("ward-plugins");
    assert_eq!(guide.plugin.as_deref(), Some("guides"));
    assert_eq!(guide.description, "Writing plugins");
    assert_eq!(guide.source.scope, Scope::Plugin);
    let text =
        crate::content::render_from_plugin("ward-plugins", "guides", "Body", &["a.md".to_string()]);
    assert!(text.contains("provided by the plugin `guides`"), "{text}");
    assert!(
        text.contains("Body\n\n<skill_files>\na.md\n</skill_files>"),
        "{text}"
    );
}
