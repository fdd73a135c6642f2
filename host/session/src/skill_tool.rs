//! The `skill` tool (SPEC §7): lists the skills the agent may use in its description
//! and loads one by name as `<skill_content>`. A host tool, not a component: skills
//! live in the user's and the project's directories (`~/.claude/skills`,
//! `.ward/skills`, …), which no plugin should be granted wholesale.
//!
//! Which skills an agent sees is decided by the `skill` permission rules, by name:
//! a skill denied to the agent is neither listed nor loadable. Loading asks
//! through the same rules (an `ask` rule asks the user) before this tool runs.
//!
//! A skill a plugin component provides is loaded by calling that component, under
//! its own grants and limits, within the tool call's scope.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use ward_permission::Ruleset;
use ward_plugin::{CallScope, PluginHost};
use ward_provider::ToolSpec;
use ward_skill::content::render_from_plugin;
use ward_skill::{SkillInfo, SkillRegistry, tool_description};

use crate::tool_error::ToolCallError;
use crate::tools::{HostTool, ToolSuccess};

/// The `skill` tool over a discovered set of skills.
pub struct SkillTool {
    registry: Arc<SkillRegistry>,
    rules: Arc<Vec<Ruleset>>,
    plugins: Option<Arc<PluginHost>>,
}

impl SkillTool {
    /// The tool for `registry`, showing what `rules` do not deny.
    pub fn new(registry: Arc<SkillRegistry>, rules: Arc<Vec<Ruleset>>) -> Self {
        Self {
            registry,
            rules,
            plugins: None,
        }
    }

    /// Loads plugin skills (those with [`SkillInfo::plugin`] set) through `host`.
    pub fn with_plugins(mut self, host: Arc<PluginHost>) -> Self {
        self.plugins = Some(host);
        self
    }

    /// The `<skill_content>` of plugin skill `skill`, from its component.
    async fn load_from_plugin(
        &self,
        skill: &SkillInfo,
        plugin: &str,
        scope: &CallScope,
    ) -> Result<String, ToolCallError> {
        let found = self.plugins.as_ref().and_then(|host| {
            let component = host.plugins().iter().find(|p| p.name() == plugin)?;
            Some((host, component))
        });
        let Some((host, component)) = found else {
            return Err(ToolCallError::respond(format!(
                "skill `{}` needs plugin `{plugin}`, which is not loaded",
                skill.name
            )));
        };
        let content = host
            .load_skill(component, &skill.name, scope.clone())
            .await?;
        Ok(render_from_plugin(
            &skill.name,
            plugin,
            &content.content,
            &content.files,
        ))
    }
}

impl HostTool for SkillTool {
    fn name(&self) -> &str {
        "skill"
    }

    /// Skills are allowed or denied by name (`skill = { "internal-*" = "deny" }`),
    /// an "always" allows that skill alone, and what a skill says stays in context.
    fn traits(&self) -> ward_config::ToolTraits {
        ward_config::ToolTraits {
            pattern: Some("name".to_string()),
            always_pattern: true,
            keep_output: true,
            ..ward_config::ToolTraits::default()
        }
    }

    /// It only hands the model a skill's text: it never writes files.
    fn may_write_files(&self) -> bool {
        false
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: tool_description(&self.registry.visible(&self.rules)),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "The name of the skill to load, as listed in <available_skills>."
                    }
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        }
    }

    fn run<'a>(
        &'a self,
        args: Value,
        scope: &'a CallScope,
    ) -> BoxFuture<'a, Result<ToolSuccess, ToolCallError>> {
        Box::pin(async move {
            let name = args.get("name").and_then(Value::as_str).ok_or_else(|| {
                ToolCallError::respond(
                    "invalid arguments for `skill`: `name` (a string) is required",
                )
            })?;
            let visible = self.registry.visible(&self.rules);
            let Some(skill) = visible.iter().find(|s| s.name == name) else {
                let names: Vec<&str> = visible.iter().map(|s| s.name.as_str()).collect();
                return Err(ToolCallError::respond(format!(
                    "no skill named `{name}`; available: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            };
            let (content, metadata) = match &skill.plugin {
                Some(plugin) => (
                    self.load_from_plugin(skill, plugin, scope).await?,
                    json!({ "name": name, "plugin": plugin }),
                ),
                None => (
                    self.registry
                        .load(name)
                        .map_err(|e| ToolCallError::respond(e.to_string()))?,
                    json!({ "name": name, "dir": skill.dir }),
                ),
            };
            Ok(ToolSuccess::text(
                format!("Loaded skill: {name}"),
                content,
                metadata,
            ))
        })
    }
}
