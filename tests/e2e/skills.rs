//! Skills end to end: a Claude Code skill directory works unchanged — listed by
//! `ward skill list`, offered to the model in the `skill` tool and the system prompt,
//! loaded as `<skill_content>` — and a skill the rules deny is neither shown nor
//! loadable.

use serde_json::{Value, json};
use ward_tests::Project;
use ward_tests::llm::{ScriptedLlm, Turn};

fn claude_skill(p: &Project) {
    p.write(
        ".claude/skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files. Use when the user mentions PDFs.\nlicense: MIT\nallowed-tools: [Read, Bash]\n---\n\n# PDF tools\n\nRun `python scripts/extract.py FILE` and read the output.\n",
    );
    p.write(
        ".claude/skills/pdf-tools/scripts/extract.py",
        "print('pdf')\n",
    );
    p.write(".claude/skills/pdf-tools/reference.md", "# Reference\n");
    p.write(
        ".ward/skills/secret-notes/SKILL.md",
        "---\nname: secret-notes\ndescription: Internal notes.\n---\nDo not show.\n",
    );
    p.write(
        ".ward/skills/broken/SKILL.md",
        "---\nname: broken\n---\nNo description.\n",
    );
}

#[test]
fn skill_list_shows_where_each_skill_came_from() {
    let p = Project::new("skills-list");
    claude_skill(&p);
    p.write(
        "ward.toml",
        "[permission]\nskill = { \"secret-*\" = \"deny\" }\n",
    );
    let run = p.run(&["skill", "list"], "");
    let out = run.expect_ok();
    assert!(out.contains("pdf-tools  Extract text and tables"), "{out}");
    assert!(
        out.contains(".claude/skills/pdf-tools/SKILL.md (project)"),
        "{out}"
    );
    assert!(
        out.contains("secret-notes  Internal notes.  (denied by the permission rules)"),
        "{out}"
    );
    assert!(!out.contains("broken  "), "{out}");
    assert!(
        run.stderr().contains("broken/SKILL.md") && run.stderr().contains("no description"),
        "a skill without a description is a warning naming the file: {}",
        run.stderr()
    );
    // The tool as the loop runs it: an unknown name lists what there is (and only
    // what the rules let the agent see).
    let err = p
        .run(
            &["tool", "call", "--yes", "skill", r#"{"name": "pdf"}"#],
            "",
        )
        .expect_err();
    // (`code-review` and `ward-plugins` come from the built-in `guides` component.)
    assert!(
        err.contains("no skill named `pdf`; available: code-review, pdf-tools, ward-plugins"),
        "{err}"
    );
    let out = p
        .run(
            &["tool", "call", "--yes", "skill", r#"{"name": "pdf-tools"}"#],
            "",
        )
        .expect_ok();
    assert!(out.contains("<skill_content name=\"pdf-tools\">"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_sees_and_loads_a_claude_code_skill() {
    let p = Project::new("skills-run");
    claude_skill(&p);
    let llm = ScriptedLlm::start(vec![
        Turn::tool("s1", "skill", json!({ "name": "pdf-tools" })),
        Turn::tool("s2", "skill", json!({ "name": "secret-notes" })),
        Turn::text("Loaded."),
    ])
    .await;
    llm.configure(&p, "openai-compatible");
    let mut config = p.read("ward.toml");
    config.push_str("[permission]\nskill = { \"secret-*\" = \"deny\" }\n");
    p.write("ward.toml", &config);
    let out = p
        .run_async(&["run", "--yes", "summarise report.pdf"], "")
        .await;
    assert!(out.expect_ok().contains("Loaded."));

    let requests = llm.requests();
    let first = &requests[0].body;
    let tools = first["tools"].as_array().expect("tools");
    let skill = tools
        .iter()
        .find(|t| t["function"]["name"] == "skill")
        .expect("the skill tool is offered");
    let description = skill["function"]["description"]
        .as_str()
        .expect("description");
    assert!(
        description.contains("<name>pdf-tools</name>"),
        "{description}"
    );
    assert!(
        !description.contains("secret-notes"),
        "denied skills are hidden"
    );
    let system = first["messages"][0]["content"].to_string();
    assert!(
        system.contains("pdf-tools"),
        "the system prompt lists it: {system}"
    );
    assert!(!system.contains("secret-notes"));

    let results: Vec<&Value> = requests[2].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    let loaded = results[0]["content"].to_string();
    assert!(
        loaded.contains("<skill_content name=\\\"pdf-tools\\\">"),
        "{loaded}"
    );
    assert!(
        loaded.contains("Run `python scripts/extract.py FILE`"),
        "{loaded}"
    );
    assert!(loaded.contains(&p.path(".claude/skills/pdf-tools").display().to_string()));
    assert!(loaded.contains("scripts/extract.py") && loaded.contains("reference.md"));
    // The rules stop a call by name before the tool runs, and say which rule.
    let denied = results[1]["content"].to_string();
    assert!(
        denied.contains("Permission denied by rule `skill secret-* = deny`"),
        "{denied}"
    );
}
