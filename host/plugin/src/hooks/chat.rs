//! The hooks around the conversation rather than one tool call: `chat-message`,
//! `chat-params`, `permission-ask`, `system-transform`, `session-compacting` and
//! `command-before`.
//!
//! All follow one pattern: the plugins that registered the hook are called in
//! discovery order; where an answer replaces a value, each plugin sees the value as the
//! previous one left it; only `mutate` plugins' answers take effect; a plugin that
//! fails changes nothing (and earns a strike).

use super::wit::{Action, CompactingOutcome, PermissionRequest, SamplingParams};
use super::{HookPoint, Subscriber};
use crate::error::CallError;
use crate::runtime::PluginHost;
use crate::state::CallScope;

/// A hook plugin's answer to a permission question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookVerdict {
    /// Allowed without asking, by `plugin`.
    Allow {
        /// The plugin.
        plugin: String,
    },
    /// Refused without asking, by `plugin`.
    Deny {
        /// The plugin.
        plugin: String,
    },
}

/// The tools a question about `permission` can be about: the file-writing tools share
/// `edit`; any other key is its own tool's name (or a key no tool has, such as
/// `external_directory`, which only a hook granted every tool sees).
fn question_tools(permission: &str) -> Vec<&str> {
    match permission {
        "edit" => vec!["edit", "write", "apply_patch"],
        other => vec![other],
    }
}

/// Folds one plugin's answer into the verdict so far: a deny wins over any allow, the
/// first allow names the verdict, `ask` changes nothing. Returns whether a final
/// verdict (a deny) was reached.
fn fold_verdict(verdict: &mut Option<HookVerdict>, plugin: &str, action: Action) -> bool {
    match action {
        Action::Ask => false,
        Action::Deny => {
            *verdict = Some(HookVerdict::Deny {
                plugin: plugin.to_string(),
            });
            true
        }
        Action::Allow => {
            if verdict.is_none() {
                *verdict = Some(HookVerdict::Allow {
                    plugin: plugin.to_string(),
                });
            }
            false
        }
    }
}

impl PluginHost {
    /// Runs the `chat-message` hooks for a user message (`message`, the message with
    /// its parts as JSON) in `scope`'s session. Returns the extra text parts to append,
    /// in plugin order.
    pub async fn chat_message(&self, message: &str, scope: &CallScope) -> Vec<String> {
        let mut parts = Vec::new();
        for sub in self.subscribers(HookPoint::ChatMessage, None).await {
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let sid = &i.context.session_id;
                let out = i.guest.call_chat_message(&mut i.store, sid, message).await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(extra) if extra.is_empty() => {}
                Ok(extra) => {
                    let what = format!("added {} text part(s)", extra.len());
                    if self.may_change(&sub, HookPoint::ChatMessage, &scope.session_id, &what) {
                        parts.extend(extra);
                    }
                }
                Err(e) => failed(&sub, HookPoint::ChatMessage, &e),
            }
        }
        parts
    }

    /// Runs the `chat-params` hooks before a model call to `model` (`provider/model`)
    /// by `scope`'s agent in its session, and returns the sampling parameters to use.
    /// `params.options` must be a JSON object, and a plugin's must be one too.
    pub async fn chat_params(
        &self,
        model: &str,
        mut params: SamplingParams,
        scope: &CallScope,
    ) -> SamplingParams {
        for sub in self.subscribers(HookPoint::ChatParams, None).await {
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let (sid, agent) = (&i.context.session_id, &i.context.agent);
                let out = i
                    .guest
                    .call_chat_params(&mut i.store, sid, agent, model, &params)
                    .await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(new) if same_params(&new, &params) => {}
                Ok(new) => {
                    if self.may_change(&sub, HookPoint::ChatParams, model, "changed the parameters")
                    {
                        params = new;
                    }
                }
                Err(e) => failed(&sub, HookPoint::ChatParams, &e),
            }
        }
        params
    }

    /// Runs the `permission-ask` hooks for a question about to be put to the user.
    /// `None` means no plugin decided: ask the user. A deny from any `mutate` plugin
    /// wins over allows (and ends the round); otherwise an allow decides.
    ///
    /// A plugin only sees questions about the tools both its `hooks` grant and its
    /// registration name ([`question_tools`]): a hook granted `bash` cannot answer
    /// questions about `edit`.
    pub async fn permission_ask(
        &self,
        request: &PermissionRequest,
        scope: &CallScope,
    ) -> Option<HookVerdict> {
        let mut verdict = None;
        let tools = question_tools(&request.permission);
        for sub in self.subscribers(HookPoint::PermissionAsk, None).await {
            let registered = self.hooks_of(&sub.plugin).await;
            let sees = tools.iter().any(|tool| {
                sub.grant.covers(tool)
                    && registered.as_ref().is_ok_and(|r| {
                        r.tools
                            .iter()
                            .any(|glob| ward_permission::wildcard::matches(glob, tool))
                    })
            });
            if !sees {
                continue;
            }
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let out = i.guest.call_permission_ask(&mut i.store, request).await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(Action::Ask) => {}
                Ok(action) => {
                    let what = match action {
                        Action::Deny => "denied the request",
                        _ => "allowed the request",
                    };
                    let target = format!("{} {}", request.permission, request.patterns.join(" "));
                    if self.may_change(&sub, HookPoint::PermissionAsk, &target, what)
                        && fold_verdict(&mut verdict, sub.plugin.name(), action)
                    {
                        break;
                    }
                }
                Err(e) => failed(&sub, HookPoint::PermissionAsk, &e),
            }
        }
        verdict
    }

    /// Runs the `system-transform` hooks before a model call in `scope`'s session and
    /// returns the system prompt blocks to send.
    pub async fn system_transform(
        &self,
        mut system: Vec<String>,
        scope: &CallScope,
    ) -> Vec<String> {
        for sub in self.subscribers(HookPoint::SystemTransform, None).await {
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let sid = &i.context.session_id;
                let out = i
                    .guest
                    .call_system_transform(&mut i.store, sid, &system)
                    .await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(new) if new == system => {}
                Ok(new) => {
                    let target = scope.session_id.as_str();
                    if self.may_change(
                        &sub,
                        HookPoint::SystemTransform,
                        target,
                        "rewrote the system prompt",
                    ) {
                        system = new;
                    }
                }
                Err(e) => failed(&sub, HookPoint::SystemTransform, &e),
            }
        }
        system
    }

    /// Runs the `session-compacting` hooks before `scope`'s session is compacted.
    /// Extra context from every plugin is kept, in order; when several replace the
    /// prompt, the last one wins (as a later plugin overrides an earlier one).
    pub async fn session_compacting(&self, scope: &CallScope) -> CompactingOutcome {
        let mut merged = CompactingOutcome {
            context: Vec::new(),
            prompt: None,
        };
        for sub in self.subscribers(HookPoint::SessionCompacting, None).await {
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let sid = &i.context.session_id;
                let out = i.guest.call_session_compacting(&mut i.store, sid).await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(o) if o.context.is_empty() && o.prompt.is_none() => {}
                Ok(o) => {
                    let target = scope.session_id.as_str();
                    if self.may_change(
                        &sub,
                        HookPoint::SessionCompacting,
                        target,
                        "changed the compaction",
                    ) {
                        merged.context.extend(o.context);
                        merged.prompt = o.prompt.or(merged.prompt);
                    }
                }
                Err(e) => failed(&sub, HookPoint::SessionCompacting, &e),
            }
        }
        merged
    }

    /// Runs the `command-before` hooks before slash command `command` expands with
    /// `arguments`, and returns the arguments to expand it with; each plugin sees the
    /// arguments as the previous one left them.
    pub async fn command_before(
        &self,
        command: &str,
        arguments: &str,
        scope: &CallScope,
    ) -> String {
        let mut arguments = arguments.to_string();
        for sub in self.subscribers(HookPoint::CommandBefore, None).await {
            let answer = async {
                let mut i = self.hook_instance(&sub.plugin, scope).await?;
                let sid = &i.context.session_id;
                let out = i
                    .guest
                    .call_command_before(&mut i.store, sid, command, &arguments)
                    .await;
                self.settle(&sub.plugin, &i, out)
            }
            .await;
            match answer {
                Ok(Some(new)) if new != arguments => {
                    if self.may_change(
                        &sub,
                        HookPoint::CommandBefore,
                        command,
                        "replaced the arguments",
                    ) {
                        arguments = new;
                    }
                }
                Ok(_) => {}
                Err(e) => failed(&sub, HookPoint::CommandBefore, &e),
            }
        }
        arguments
    }
}

fn same_params(a: &SamplingParams, b: &SamplingParams) -> bool {
    a.temperature == b.temperature
        && a.top_p == b.top_p
        && a.max_tokens == b.max_tokens
        && a.options == b.options
}

/// A hook that failed changes nothing; the strike was already counted.
fn failed(sub: &Subscriber, point: HookPoint, error: &CallError) {
    tracing::warn!(plugin = sub.plugin.name(), "{point} hook failed: {error}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deny_wins_over_allows() {
        let mut v = None;
        assert!(!fold_verdict(&mut v, "a", Action::Ask));
        assert_eq!(v, None, "ask leaves it to the user");
        assert!(!fold_verdict(&mut v, "a", Action::Allow));
        assert!(!fold_verdict(&mut v, "b", Action::Allow));
        assert_eq!(v, Some(HookVerdict::Allow { plugin: "a".into() }));
        assert!(fold_verdict(&mut v, "c", Action::Deny), "a deny is final");
        assert_eq!(v, Some(HookVerdict::Deny { plugin: "c".into() }));
    }
}
