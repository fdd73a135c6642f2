//! Running one hook call: a fresh instance under the plugin's own grants and limits, made
//! down the path every call takes ([`crate::instance`]), the trap turned into a
//! [`CallError`], the answer checked against what the host can use, and the outcome
//! counted toward (or clearing) the plugin's strikes.

use wasmtime::Store;

use super::wit::{AfterRewrite, BeforeOutcome, CompactingOutcome, SamplingParams};
use crate::bindings::CallContext;
use crate::bindings::guest::{HooksGuest, HooksIndices};
use crate::error::{CallError, classify};
use crate::instance::{Instance, exports};
use crate::runtime::{Plugin, PluginHost, call_context};
use crate::state::{CallScope, StoreState};

/// One instantiated hook plugin, good for exactly one call.
pub(super) struct HookInstance {
    /// The `hooks` export.
    pub guest: HooksGuest,
    /// The call's own store.
    pub store: Store<StoreState>,
    /// The context the guest sees.
    pub context: CallContext,
}

impl PluginHost {
    /// Instantiates `plugin`'s hooks in a fresh store for a call under `scope`. A
    /// failure to load or instantiate counts as a strike.
    pub(super) async fn hook_instance(
        &self,
        plugin: &Plugin,
        scope: &CallScope,
    ) -> Result<HookInstance, CallError> {
        let result = self.try_hook_instance(plugin, scope).await;
        if let Err(e) = &result {
            self.strike(plugin, e);
        }
        result
    }

    async fn try_hook_instance(
        &self,
        plugin: &Plugin,
        scope: &CallScope,
    ) -> Result<HookInstance, CallError> {
        let loaded = self.ready::<HooksIndices>(plugin).await?;
        let exports = exports::<HooksIndices>(plugin, &loaded)?;
        let env = self.call_env(plugin, scope.clone(), plugin.limits.time);
        match self.instance(&loaded.pre, exports, env).await {
            Ok(Instance { guest, store }) => Ok(HookInstance {
                guest,
                store,
                context: call_context(scope),
            }),
            Err(failed) => Err(failed.classify(plugin)),
        }
    }

    /// Turns the raw outcome of a hook call on `instance` into the answer or the
    /// reason there is none, and counts it toward `plugin`'s strikes.
    pub(super) fn settle<T: Answer>(
        &self,
        plugin: &Plugin,
        instance: &HookInstance,
        outcome: wasmtime::Result<T>,
    ) -> Result<T, CallError> {
        let result = match outcome {
            Ok(answer) => answer.check(plugin).map(|()| answer),
            Err(e) => Err(classify(
                plugin.name(),
                &plugin.limits,
                &e,
                instance.store.data().limits.memory_refused,
            )),
        };
        match &result {
            Ok(_) => self.clear_strikes(plugin),
            Err(e) => self.strike(plugin, e),
        }
        result
    }
}

/// A hook's answer, checked before the host uses it: within the plugin's output limit,
/// and JSON where the contract says JSON.
pub(super) trait Answer {
    /// `Err` with a [`CallError::BadResult`] or [`CallError::OutputTooLarge`].
    fn check(&self, plugin: &Plugin) -> Result<(), CallError>;
}

fn within_limit<'a>(
    plugin: &Plugin,
    parts: impl IntoIterator<Item = &'a str>,
) -> Result<(), CallError> {
    let size: usize = parts.into_iter().map(str::len).sum();
    if size > plugin.limits.output_bytes {
        return Err(CallError::OutputTooLarge {
            plugin: plugin.name().to_string(),
            size,
            limit: plugin.limits.output_bytes,
        });
    }
    Ok(())
}

/// Checks that `text`, which the contract says is a JSON object, is one.
fn json_object(plugin: &Plugin, what: &str, text: &str) -> Result<(), CallError> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        Ok(_) => Err(bad(plugin, format!("{what} is not a JSON object"))),
        Err(e) => Err(bad(plugin, format!("{what} is not valid JSON: {e}"))),
    }
}

fn bad(plugin: &Plugin, message: String) -> CallError {
    CallError::BadResult {
        plugin: plugin.name().to_string(),
        message,
    }
}

impl Answer for () {
    fn check(&self, _: &Plugin) -> Result<(), CallError> {
        Ok(())
    }
}

impl Answer for BeforeOutcome {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        match self {
            BeforeOutcome::Proceed => Ok(()),
            BeforeOutcome::Block(reason) => within_limit(plugin, [reason.as_str()]),
            BeforeOutcome::Rewrite(args) => {
                within_limit(plugin, [args.as_str()])?;
                json_object(plugin, "the rewritten arguments", args)
            }
        }
    }
}

impl Answer for AfterRewrite {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        let parts = [&self.title, &self.output, &self.metadata];
        within_limit(plugin, parts.into_iter().flatten().map(String::as_str))?;
        match &self.metadata {
            Some(m) => json_object(plugin, "the rewritten metadata", m),
            None => Ok(()),
        }
    }
}

impl Answer for SamplingParams {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        within_limit(plugin, [self.options.as_str()])?;
        json_object(plugin, "the options", &self.options)
    }
}

impl Answer for Vec<String> {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        within_limit(plugin, self.iter().map(String::as_str))
    }
}

impl Answer for Option<String> {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        within_limit(plugin, self.as_deref())
    }
}

impl Answer for CompactingOutcome {
    fn check(&self, plugin: &Plugin) -> Result<(), CallError> {
        let context = self.context.iter().map(String::as_str);
        within_limit(plugin, context.chain(self.prompt.as_deref()))
    }
}

impl Answer for super::wit::Action {
    fn check(&self, _: &Plugin) -> Result<(), CallError> {
        Ok(())
    }
}
