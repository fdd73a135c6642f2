//! The [`Hooks`] trait and the glue [`export_hooks!`](crate::export_hooks) uses to turn
//! it into the `ward:plugin/hooks` interface.
//!
//! Every method has a default that changes nothing, so a plugin implements only the
//! hooks it lists in [`Hooks::HOOKS`]; the host calls no other. Whether an answer takes
//! effect is the host's decision: a plugin whose manifest asks for
//! `hooks = { mode = "observe" }` is called all the same, but its rewrites, blocks and
//! answers are ignored (and audited).

use serde_json::Value;

use crate::hook_bindings::exports::ward::plugin::hooks as wit;
use crate::{Context, ToolOutput};

pub use wit::{
    Action, AfterRewrite, BeforeOutcome, CompactingOutcome, HookPoint, PermissionRequest,
    Registration, SamplingParams,
};

/// What to do with a tool call about to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// Run it as it is.
    Proceed,
    /// Run it with these arguments instead (a JSON object; the host validates them
    /// against the tool's schema again).
    Rewrite(Value),
    /// Do not run it; the reason is returned to the model as the tool's error.
    Block(String),
}

/// Replacement fields for a finished tool call; `None` keeps the original.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct After {
    /// A new title.
    pub title: Option<String>,
    /// New text for the model.
    pub output: Option<String>,
    /// New metadata (a JSON object).
    pub metadata: Option<Value>,
}

/// A hook plugin. Implement the hooks named in [`HOOKS`](Self::HOOKS) and export the
/// type with [`export_hooks!`](crate::export_hooks):
///
/// ```ignore
/// use ward_sdk::hooks::{Before, HookPoint, Hooks};
/// use ward_sdk::Context;
///
/// struct Guard;
/// impl Hooks for Guard {
///     const HOOKS: &'static [HookPoint] = &[HookPoint::ToolExecuteBefore];
///     const TOOLS: &'static [&'static str] = &["bash"];
///     fn tool_execute_before(_tool: &str, args: &serde_json::Value, _ctx: &Context) -> Before {
///         match args["command"].as_str() {
///             Some(c) if c.contains("rm -rf") => Before::Block("no `rm -rf`".into()),
///             _ => Before::Proceed,
///         }
///     }
/// }
///
/// ward_sdk::export_hooks!(Guard);
/// ```
///
/// Like a tool, a hook runs in a fresh instance for every call: nothing in memory
/// survives from one call to the next.
pub trait Hooks {
    /// The hook points implemented; the host calls only these.
    const HOOKS: &'static [HookPoint];

    /// Tool-name globs (`bash`, `web*`, `*`) the tool hooks want. The manifest's
    /// `[capabilities.hooks] tools` and the user's grant narrow this further.
    const TOOLS: &'static [&'static str] = &["*"];

    /// Called before `tool` runs with `args` (a JSON object). The permission rules are
    /// checked afterwards, on the arguments as the hooks left them.
    fn tool_execute_before(tool: &str, args: &Value, context: &Context) -> Before {
        let _ = (tool, args, context);
        Before::Proceed
    }

    /// Called after `tool` ran successfully with `args` and produced `output`.
    fn tool_execute_after(
        tool: &str,
        args: &Value,
        output: &ToolOutput,
        context: &Context,
    ) -> After {
        let _ = (tool, args, output, context);
        After::default()
    }

    /// Called when a user message arrives; `message` is the message with its parts as
    /// JSON. Returns extra text parts to append to it.
    fn chat_message(session_id: &str, message: &str) -> Vec<String> {
        let _ = (session_id, message);
        Vec::new()
    }

    /// Called before each model call to `model` by `agent`; returns the parameters to
    /// use (`params.options` is a JSON object and must stay one).
    fn chat_params(
        session_id: &str,
        agent: &str,
        model: &str,
        params: SamplingParams,
    ) -> SamplingParams {
        let _ = (session_id, agent, model);
        params
    }

    /// Answers a permission question before the user sees it: `Allow` or `Deny`
    /// decide it, `Ask` leaves it to the user.
    fn permission_ask(request: &PermissionRequest) -> Action {
        let _ = request;
        Action::Ask
    }

    /// Every bus event (`session.created`, `message.part.updated`, …) with its JSON
    /// payload; observe only. The host does not wait for it.
    fn event(name: &str, payload: &str) {
        let _ = (name, payload);
    }

    /// Rewrites the system prompt blocks before a model call.
    fn system_transform(session_id: &str, system: Vec<String>) -> Vec<String> {
        let _ = session_id;
        system
    }

    /// Called before a session is compacted: extra context for the summariser, or a
    /// replacement prompt.
    fn session_compacting(session_id: &str) -> CompactingOutcome {
        let _ = session_id;
        CompactingOutcome {
            context: Vec::new(),
            prompt: None,
        }
    }

    /// Called before slash command `command` expands; returns replacement arguments,
    /// or `None` to keep `arguments`.
    fn command_before(session_id: &str, command: &str, arguments: &str) -> Option<String> {
        let _ = (session_id, command, arguments);
        None
    }
}

/// The registration of `H`: its hook points and tool globs.
pub fn register<H: Hooks>() -> Registration {
    Registration {
        hooks: H::HOOKS.to_vec(),
        tools: H::TOOLS.iter().map(|t| t.to_string()).collect(),
    }
}

/// Parses `args` and runs `H`'s before-hook. Arguments that are not JSON cannot be
/// judged, so they are blocked rather than let through unchecked.
pub fn before<H: Hooks>(tool: &str, args: &str, context: &Context) -> BeforeOutcome {
    let args: Value = match serde_json::from_str(args) {
        Ok(v) => v,
        Err(e) => return BeforeOutcome::Block(format!("arguments are not JSON: {e}")),
    };
    match H::tool_execute_before(tool, &args, context) {
        Before::Proceed => BeforeOutcome::Proceed,
        Before::Rewrite(v) => BeforeOutcome::Rewrite(v.to_string()),
        Before::Block(reason) => BeforeOutcome::Block(reason),
    }
}

/// Parses `args` and runs `H`'s after-hook. Arguments that are not JSON are passed as
/// `null`; the after-hook cannot stop anything.
pub fn after<H: Hooks>(
    tool: &str,
    args: &str,
    output: &ToolOutput,
    context: &Context,
) -> AfterRewrite {
    let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let after = H::tool_execute_after(tool, &args, output, context);
    AfterRewrite {
        title: after.title,
        output: after.output,
        metadata: after.metadata.map(|m| m.to_string()),
    }
}

/// Exports the [`Hooks`] type given as this component's `ward:plugin/hooks` interface.
/// A component may also use [`export_tools!`](crate::export_tools) to provide tools;
/// its manifest then lists both kinds, `kinds = ["tool", "hook"]`.
#[macro_export]
macro_rules! export_hooks {
    ($hooks:ty) => {
        #[doc(hidden)]
        pub struct __WardExportedHooks;

        impl $crate::hook_bindings::exports::ward::plugin::hooks::Guest for __WardExportedHooks {
            fn register() -> $crate::hooks::Registration {
                $crate::hooks::register::<$hooks>()
            }

            fn tool_execute_before(
                tool: ::std::string::String,
                args: ::std::string::String,
                context: $crate::Context,
            ) -> $crate::hooks::BeforeOutcome {
                $crate::hooks::before::<$hooks>(&tool, &args, &context)
            }

            fn tool_execute_after(
                tool: ::std::string::String,
                args: ::std::string::String,
                outcome: $crate::ToolOutput,
                context: $crate::Context,
            ) -> $crate::hooks::AfterRewrite {
                $crate::hooks::after::<$hooks>(&tool, &args, &outcome, &context)
            }

            fn chat_message(
                session_id: ::std::string::String,
                message: ::std::string::String,
            ) -> ::std::vec::Vec<::std::string::String> {
                <$hooks as $crate::hooks::Hooks>::chat_message(&session_id, &message)
            }

            fn chat_params(
                session_id: ::std::string::String,
                agent: ::std::string::String,
                model: ::std::string::String,
                params: $crate::hooks::SamplingParams,
            ) -> $crate::hooks::SamplingParams {
                <$hooks as $crate::hooks::Hooks>::chat_params(&session_id, &agent, &model, params)
            }

            fn permission_ask(request: $crate::hooks::PermissionRequest) -> $crate::hooks::Action {
                <$hooks as $crate::hooks::Hooks>::permission_ask(&request)
            }

            fn event(name: ::std::string::String, payload: ::std::string::String) {
                <$hooks as $crate::hooks::Hooks>::event(&name, &payload)
            }

            fn system_transform(
                session_id: ::std::string::String,
                system: ::std::vec::Vec<::std::string::String>,
            ) -> ::std::vec::Vec<::std::string::String> {
                <$hooks as $crate::hooks::Hooks>::system_transform(&session_id, system)
            }

            fn session_compacting(session_id: ::std::string::String) -> $crate::hooks::CompactingOutcome {
                <$hooks as $crate::hooks::Hooks>::session_compacting(&session_id)
            }

            fn command_before(
                session_id: ::std::string::String,
                command: ::std::string::String,
                arguments: ::std::string::String,
            ) -> ::std::option::Option<::std::string::String> {
                <$hooks as $crate::hooks::Hooks>::command_before(&session_id, &command, &arguments)
            }
        }

        $crate::hook_bindings::__export_hook_plugin!(__WardExportedHooks with_types_in $crate::hook_bindings);
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Guard;
    impl Hooks for Guard {
        const HOOKS: &'static [HookPoint] =
            &[HookPoint::ToolExecuteBefore, HookPoint::ToolExecuteAfter];
        const TOOLS: &'static [&'static str] = &["bash"];
        fn tool_execute_before(_: &str, args: &Value, _: &Context) -> Before {
            match args["command"].as_str() {
                Some(c) if c.contains("rm -rf") => Before::Block("no".into()),
                Some(c) => Before::Rewrite(serde_json::json!({ "command": format!("{c} # ok") })),
                None => Before::Proceed,
            }
        }
        fn tool_execute_after(_: &str, _: &Value, output: &ToolOutput, _: &Context) -> After {
            After {
                output: Some(format!("{}!", output.output)),
                metadata: Some(serde_json::json!({ "seen": true })),
                ..After::default()
            }
        }
    }

    /// No hooks at all: every default changes nothing.
    struct Quiet;
    impl Hooks for Quiet {
        const HOOKS: &'static [HookPoint] = &[];
    }

    fn context() -> Context {
        Context {
            session_id: "ses_1".into(),
            message_id: String::new(),
            call_id: String::new(),
            agent: "build".into(),
            directory: "/p".into(),
        }
    }

    #[test]
    fn registration_lists_hooks_and_globs() {
        let r = register::<Guard>();
        assert_eq!(r.hooks.len(), 2);
        assert_eq!(r.tools, ["bash"]);
        assert_eq!(register::<Quiet>().tools, ["*"], "all tools by default");
    }

    #[test]
    fn before_parses_and_serialises() {
        let ctx = context();
        assert!(matches!(
            before::<Guard>("bash", r#"{"command":"rm -rf /"}"#, &ctx),
            BeforeOutcome::Block(r) if r == "no"
        ));
        let BeforeOutcome::Rewrite(args) = before::<Guard>("bash", r#"{"command":"ls"}"#, &ctx)
        else {
            panic!("rewritten");
        };
        assert_eq!(args, r#"{"command":"ls # ok"}"#);
        assert!(matches!(
            before::<Guard>("bash", "{", &ctx),
            BeforeOutcome::Block(_)
        ));
        assert!(matches!(
            before::<Quiet>("bash", "{}", &ctx),
            BeforeOutcome::Proceed
        ));
    }

    #[test]
    fn after_and_defaults() {
        let ctx = context();
        let out = ToolOutput {
            title: "t".into(),
            output: "o".into(),
            metadata: "{}".into(),
            attachments: Vec::new(),
        };
        let r = after::<Guard>("read", "{}", &out, &ctx);
        assert_eq!(r.output.as_deref(), Some("o!"));
        assert_eq!(r.metadata.as_deref(), Some(r#"{"seen":true}"#));
        assert_eq!(r.title, None);
        let r = after::<Quiet>("read", "{}", &out, &ctx);
        assert_eq!((r.title, r.output, r.metadata), (None, None, None));
        assert_eq!(
            Quiet::permission_ask(&PermissionRequest {
                session_id: String::new(),
                permission: "bash".into(),
                patterns: vec![],
                metadata: "{}".into(),
            }),
            Action::Ask
        );
        assert_eq!(Quiet::command_before("s", "c", "a"), None);
        assert_eq!(Quiet::system_transform("s", vec!["x".into()]), ["x"]);
    }
}
