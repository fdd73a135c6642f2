//! The tool hooks: `tool-execute-before`, which may rewrite a call's arguments or block
//! it, and `tool-execute-after`, which may rewrite its result.
//!
//! Before-hooks fail closed: when a `mutate` plugin whose capability covers the tool
//! cannot answer (it trapped, ran out of time or memory, answered nonsense, or cannot
//! load), the call is blocked — a guard must not be bypassable by crashing it. Its
//! strikes still count, and once disabled it is skipped, with the reason shown in
//! `ward plugin list`. After-hooks fail open: the original result is kept.

use super::wit::{AfterRewrite, BeforeOutcome};
use super::{HookPoint, Subscriber};
use crate::bindings::ToolOutput;
use crate::error::CallError;
use crate::runtime::PluginHost;
use crate::state::CallScope;

/// Why a tool call must not run, for the model and the user; names the plugin.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HookBlock {
    /// A hook plugin decided the call must not run.
    #[error("plugin `{plugin}` blocked this `{tool}` call: {reason}")]
    Blocked {
        /// The plugin.
        plugin: String,
        /// The tool.
        tool: String,
        /// The plugin's reason.
        reason: String,
    },
    /// A hook plugin guarding the tool failed, so the call was not let through.
    #[error(
        "this `{tool}` call was blocked because a plugin guarding it failed: {error} \
         (a failing guard blocks the calls it guards; it is disabled after repeated failures)"
    )]
    Failed {
        /// The plugin.
        plugin: String,
        /// The tool.
        tool: String,
        /// What went wrong, naming the plugin.
        error: String,
    },
}

impl HookBlock {
    /// The plugin that stopped the call.
    pub fn plugin(&self) -> &str {
        match self {
            HookBlock::Blocked { plugin, .. } | HookBlock::Failed { plugin, .. } => plugin,
        }
    }
}

/// What one before-hook's answer does to the call, given whether the plugin may change
/// anything (`mutate`).
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Go on with the arguments as they are.
    Proceed,
    /// Go on with these arguments.
    Rewrite(String),
    /// Stop here.
    Stop(HookBlock),
    /// The plugin tried to change something (`what`) it may not; go on unchanged.
    Refused(&'static str),
    /// The plugin failed, but cannot block anyway; go on unchanged.
    FailedOpen(String),
}

fn before_step(
    plugin: &str,
    tool: &str,
    mutate: bool,
    args: &str,
    answer: Result<BeforeOutcome, CallError>,
) -> Step {
    match (answer, mutate) {
        (Ok(BeforeOutcome::Proceed), _) => Step::Proceed,
        (Ok(BeforeOutcome::Rewrite(new)), _) if new == args => Step::Proceed,
        (Ok(BeforeOutcome::Rewrite(new)), true) => Step::Rewrite(new),
        (Ok(BeforeOutcome::Rewrite(_)), false) => Step::Refused("rewrote the arguments"),
        (Ok(BeforeOutcome::Block(reason)), true) => Step::Stop(HookBlock::Blocked {
            plugin: plugin.to_string(),
            tool: tool.to_string(),
            reason,
        }),
        (Ok(BeforeOutcome::Block(_)), false) => Step::Refused("blocked the call"),
        (Err(e), true) => Step::Stop(HookBlock::Failed {
            plugin: plugin.to_string(),
            tool: tool.to_string(),
            error: e.to_string(),
        }),
        (Err(e), false) => Step::FailedOpen(e.to_string()),
    }
}

/// Applies an after-hook's rewrite to `output`; returns whether anything changed.
fn apply_after(output: &mut ToolOutput, rewrite: AfterRewrite) -> bool {
    let mut changed = false;
    for (field, new) in [
        (&mut output.title, rewrite.title),
        (&mut output.output, rewrite.output),
        (&mut output.metadata, rewrite.metadata),
    ] {
        if let Some(new) = new
            && *field != new
        {
            *field = new;
            changed = true;
        }
    }
    changed
}

impl PluginHost {
    /// Runs the `tool-execute-before` hooks for a call of `tool` with `args` (a JSON
    /// object) under `scope`, after the call's permission was granted.
    ///
    /// Every enabled hook plugin whose registered and granted tool globs both match
    /// `tool` is called in discovery order, each seeing the arguments as the previous
    /// one rewrote them; the first block wins. Returns the final arguments — a JSON
    /// object, which the caller must validate against the tool's schema again — or
    /// why the call must not run. An observe-only plugin's rewrites and blocks are
    /// ignored and audited. A `mutate` plugin that fails blocks the call (see the
    /// module documentation).
    pub async fn tool_execute_before(
        &self,
        tool: &str,
        args: &str,
        scope: &CallScope,
    ) -> Result<String, HookBlock> {
        let mut args = args.to_string();
        for sub in self
            .subscribers(HookPoint::ToolExecuteBefore, Some(tool))
            .await
        {
            let answer = self.call_before(&sub, tool, &args, scope).await;
            let name = sub.plugin.name();
            let step = before_step(name, tool, sub.grant.may_mutate(), &args, answer);
            match step {
                Step::Proceed => {}
                Step::Rewrite(new) => {
                    // Only a mutate plugin's rewrite gets here; asking again keeps one
                    // place deciding, and records the change.
                    if self.may_change(
                        &sub,
                        HookPoint::ToolExecuteBefore,
                        tool,
                        "rewrote the arguments",
                    ) {
                        args = new;
                    }
                }
                Step::Stop(block) => {
                    if let HookBlock::Blocked { reason, .. } = &block {
                        self.may_change(
                            &sub,
                            HookPoint::ToolExecuteBefore,
                            tool,
                            &format!("blocked the call: {reason}"),
                        );
                    }
                    return Err(block);
                }
                Step::Refused(what) => {
                    self.may_change(&sub, HookPoint::ToolExecuteBefore, tool, what);
                }
                Step::FailedOpen(error) => {
                    tracing::warn!(
                        plugin = name,
                        tool,
                        "observe-only before-hook failed: {error}"
                    );
                }
            }
        }
        Ok(args)
    }

    async fn call_before(
        &self,
        sub: &Subscriber,
        tool: &str,
        args: &str,
        scope: &CallScope,
    ) -> Result<BeforeOutcome, CallError> {
        if let Some(e) = &sub.failed {
            // The registration could not be read: the plugin cannot load. Report the
            // same error as a failure of this call, and count it.
            let error = CallError::Load {
                plugin: sub.plugin.name().to_string(),
                reason: e.clone(),
            };
            self.strike(&sub.plugin, &error);
            return Err(error);
        }
        let mut i = self.hook_instance(&sub.plugin, scope).await?;
        let outcome = i
            .guest
            .call_tool_execute_before(&mut i.store, tool, args, &i.context)
            .await;
        self.settle(&sub.plugin, &i, outcome)
    }

    /// Runs the `tool-execute-after` hooks for a successful call of `tool` with `args`
    /// that produced `output`, and returns the result to store and show.
    ///
    /// Plugins are called in discovery order, each seeing the result as the previous
    /// one rewrote it. Only `mutate` plugins' rewrites apply; a rewritten `metadata`
    /// must be a JSON object. A plugin that fails leaves the result as it was (and
    /// earns a strike).
    pub async fn tool_execute_after(
        &self,
        tool: &str,
        args: &str,
        mut output: ToolOutput,
        scope: &CallScope,
    ) -> ToolOutput {
        for sub in self
            .subscribers(HookPoint::ToolExecuteAfter, Some(tool))
            .await
        {
            let rewrite = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let outcome = i
                    .guest
                    .call_tool_execute_after(&mut i.store, tool, args, &output, &i.context)
                    .await;
                self.settle(&sub.plugin, &i, outcome)
            }
            .await;
            match rewrite {
                Ok(rewrite) => {
                    let mut candidate = output.clone();
                    if apply_after(&mut candidate, rewrite)
                        && self.may_change(
                            &sub,
                            HookPoint::ToolExecuteAfter,
                            tool,
                            "rewrote the result",
                        )
                    {
                        output = candidate;
                    }
                }
                Err(e) => {
                    tracing::warn!(plugin = sub.plugin.name(), tool, "after-hook failed: {e}");
                }
            }
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trap() -> CallError {
        CallError::Timeout {
            plugin: "guard".into(),
            ms: 300,
        }
    }

    #[test]
    fn mutate_plugins_rewrite_and_block() {
        let step = |o| before_step("guard", "bash", true, "{}", Ok(o));
        assert_eq!(step(BeforeOutcome::Proceed), Step::Proceed);
        assert_eq!(
            step(BeforeOutcome::Rewrite(r#"{"a":1}"#.into())),
            Step::Rewrite(r#"{"a":1}"#.into())
        );
        assert_eq!(
            step(BeforeOutcome::Rewrite("{}".into())),
            Step::Proceed,
            "the same arguments are no rewrite"
        );
        let Step::Stop(block) = step(BeforeOutcome::Block("no".into())) else {
            panic!("a mutate plugin's block stops the call");
        };
        assert_eq!(block.plugin(), "guard");
        assert_eq!(
            block.to_string(),
            "plugin `guard` blocked this `bash` call: no"
        );
    }

    #[test]
    fn observe_plugins_change_nothing() {
        let step = |o| before_step("spy", "bash", false, "{}", Ok(o));
        assert_eq!(step(BeforeOutcome::Proceed), Step::Proceed);
        assert!(matches!(
            step(BeforeOutcome::Rewrite(r#"{"a":1}"#.into())),
            Step::Refused(_)
        ));
        assert!(matches!(
            step(BeforeOutcome::Block("no".into())),
            Step::Refused(_)
        ));
    }

    #[test]
    fn failures_block_only_for_mutate_plugins() {
        let Step::Stop(block) = before_step("guard", "bash", true, "{}", Err(trap())) else {
            panic!("a failing guard blocks");
        };
        let text = block.to_string();
        assert!(
            text.contains("`bash`") && text.contains("plugin `guard` exceeded"),
            "{text}"
        );
        assert!(matches!(
            before_step("spy", "bash", false, "{}", Err(trap())),
            Step::FailedOpen(_)
        ));
    }

    #[test]
    fn after_rewrites_replace_only_what_they_name() {
        let mut out = ToolOutput {
            title: "t".into(),
            output: "o".into(),
            metadata: "{}".into(),
            attachments: Vec::new(),
        };
        let none = AfterRewrite {
            title: None,
            output: None,
            metadata: None,
        };
        assert!(!apply_after(&mut out, none));
        let same = AfterRewrite {
            title: Some("t".into()),
            output: None,
            metadata: None,
        };
        assert!(
            !apply_after(&mut out, same),
            "an identical value is no change"
        );
        let some = AfterRewrite {
            title: None,
            output: Some("o2".into()),
            metadata: None,
        };
        assert!(apply_after(&mut out, some));
        assert_eq!((out.title.as_str(), out.output.as_str()), ("t", "o2"));
    }
}
