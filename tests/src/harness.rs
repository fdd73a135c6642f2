//! A plugin host over a test project's `.ward/plugins`, for driving components through
//! the real runtime (the same `PluginHost` the CLI uses) without a process per call.

use std::collections::BTreeMap;
use std::sync::Arc;

use ward_permission::{MemoryApprovals, PermissionEngine, Ruleset};
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::{CallError, CallScope, HostOptions, PluginHost, ToolOutput};

use crate::Project;

/// A host plus the scope calls run under.
pub struct Harness {
    /// The host.
    pub host: PluginHost,
    /// The scope (rules: defaults, then the test's rules).
    pub scope: CallScope,
}

impl Harness {
    /// Installs `plugins` into `project`, grants each what `grants` says, and applies the
    /// permission rules in `rules_toml` (a `[permission]` table body) after the defaults.
    pub fn new(
        project: &Project,
        plugins: &[&str],
        grants: &[(&str, &[&str])],
        rules_toml: &str,
    ) -> Harness {
        Self::with_sandbox(
            project,
            plugins,
            grants,
            rules_toml,
            crate::sandbox_settings(),
        )
    }

    /// [`Harness::new`] with the process sandbox set up as `sandbox` says (say, with
    /// a data directory of its own to keep private).
    pub fn with_sandbox(
        project: &Project,
        plugins: &[&str],
        grants: &[(&str, &[&str])],
        rules_toml: &str,
        sandbox: ward_plugin::SandboxSettings,
    ) -> Harness {
        for p in plugins {
            project.install_test_plugin(p);
        }
        let found = discover(&[], &[(Origin::Project, project.path(".ward/plugins"))]);
        assert!(
            found.errors.is_empty(),
            "discovery errors: {:?}",
            found.errors
        );
        let grants: BTreeMap<String, Vec<String>> = grants
            .iter()
            .map(|(n, g)| (n.to_string(), g.iter().map(|s| s.to_string()).collect()))
            .collect();
        let options = HostOptions {
            project: project.root.clone(),
            cache_dir: Some(project.data.join("cache")),
            audit_log: Some(project.data.join("audit.log")),
            grants,
            disabled: Vec::new(),
            sandbox,
            replaces: Default::default(),
            events: None,
        };
        let host = PluginHost::new(found.plugins, options).expect("plugin host");
        let table: toml::Table = toml::from_str(rules_toml).expect("rules toml");
        let rules = vec![
            ward_permission::defaults(),
            Ruleset::from_toml("test", &table).expect("rules"),
        ];
        let (tx, _) = tokio::sync::broadcast::channel(16);
        let scope = CallScope {
            session_id: "ses_test".into(),
            message_id: "msg_test".into(),
            call_id: "call_test".into(),
            agent: "build".into(),
            project: project.root.clone(),
            rules: Arc::new(rules),
            permissions: PermissionEngine::new(Arc::new(MemoryApprovals::new()), tx),
            progress: None,
            approved: Default::default(),
        };
        Harness { host, scope }
    }

    /// Calls `tool` with `args` (JSON text).
    pub async fn call(&self, tool: &str, args: &str) -> Result<ToolOutput, CallError> {
        let (plugin, _) = self.host.find_tool(tool).await?;
        self.host
            .call(&plugin, tool, args, self.scope.clone())
            .await
    }

    /// Asserts that a well-behaved plugin still works.
    pub async fn assert_noop_works(&self) {
        let out = self
            .call("noop", "{}")
            .await
            .expect("the well-behaved plugin still works");
        assert_eq!(out.output, "ok");
    }

    /// The audit log's text.
    pub fn audit_log(project: &Project) -> String {
        std::fs::read_to_string(project.data.join("audit.log")).unwrap_or_default()
    }
}
