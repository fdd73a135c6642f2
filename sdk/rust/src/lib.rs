//! The Rust SDK for Ward plugins.
//!
//! A tool is a type implementing [`Tool`]: an arguments struct deriving `serde::Deserialize`
//! and `schemars::JsonSchema` (the JSON Schema the model sees is derived from it) and a
//! `run` function. [`export_tools!`] turns one or more tools into a component exporting
//! the `ward:plugin/tool` interface:
//!
//! ```ignore
//! use ward_sdk::{Context, Output, Tool, ToolError};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Args { name: String }
//!
//! struct Hello;
//! impl Tool for Hello {
//!     type Args = Args;
//!     const NAME: &'static str = "hello";
//!     const DESCRIPTION: &'static str = "Greet someone";
//!     fn run(args: Args, _ctx: &Context) -> Result<Output, ToolError> {
//!         Ok(Output::text("hello", format!("Hello, {}!", args.name)))
//!     }
//! }
//!
//! ward_sdk::export_tools!(Hello);
//! ```
//!
//! A hook plugin implements [`hooks::Hooks`] — every hook has a default that changes
//! nothing — and [`export_hooks!`] exports it as the `ward:plugin/hooks` interface. An
//! agent plugin implements [`agents::Agents`] ([`export_agents!`]), a skill plugin
//! [`skills::Skills`] ([`export_skills!`]). One component may export several kinds.
//!
//! The SDK builds components for `ward:plugin@0.2.0`; its WIT is inside the crate
//! (`wit/ward-plugin.wit`, a copy of the host's `wit/since_v0.2.0`). The host imports
//! [`ask`], [`exec`] and [`http_fetch`] fail with a [`HostError`] whose case — `Denied`,
//! `Invalid`, `Failed`, `Timeout` — says what happened; branch on it, not on the message:
//!
//! ```ignore
//! match ward_sdk::exec("git status", None, None) {
//!     Ok(out) => { /* … */ }
//!     Err(e) if e.is_denied() => return Err(ToolError::Denied(e.message().to_string())),
//!     Err(e) => return Err(ToolError::Failed(format!("git: {}", e.message()))),
//! }
//! ```
//!
//! A plugin's `plugin.toml` says `api = "0.2.0"`.

/// Raw bindings generated from the crate's `wit/ward-plugin.wit`, `ward:plugin@0.2.0`
/// (world `tool-plugin`).
#[allow(missing_docs, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "tool-plugin",
        pub_export_macro: true,
        export_macro_name: "__export_tool_plugin",
        default_bindings_module: "ward_sdk::bindings",
    });
}

/// Raw bindings for the `hook-plugin` world, sharing the types and host imports of
/// [`bindings`]: a component exporting both tools and hooks uses both sets, and
/// `wit-component` unites the two worlds into one component.
#[allow(missing_docs, clippy::all)]
pub mod hook_bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "hook-plugin",
        with: {
            "ward:plugin/types@0.2.0": crate::bindings::ward::plugin::types,
            "ward:plugin/host@0.2.0": crate::bindings::ward::plugin::host,
        },
        pub_export_macro: true,
        export_macro_name: "__export_hook_plugin",
        default_bindings_module: "ward_sdk::hook_bindings",
    });
}

/// Raw bindings for the `agent-plugin` world, sharing the types and host imports of
/// [`bindings`].
#[allow(missing_docs, clippy::all)]
pub mod agent_bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "agent-plugin",
        with: {
            "ward:plugin/types@0.2.0": crate::bindings::ward::plugin::types,
            "ward:plugin/host@0.2.0": crate::bindings::ward::plugin::host,
        },
        pub_export_macro: true,
        export_macro_name: "__export_agent_plugin",
        default_bindings_module: "ward_sdk::agent_bindings",
    });
}

/// Raw bindings for the `skill-plugin` world, sharing the types and host imports of
/// [`bindings`].
#[allow(missing_docs, clippy::all)]
pub mod skill_bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "skill-plugin",
        with: {
            "ward:plugin/types@0.2.0": crate::bindings::ward::plugin::types,
            "ward:plugin/host@0.2.0": crate::bindings::ward::plugin::host,
        },
        pub_export_macro: true,
        export_macro_name: "__export_skill_plugin",
        default_bindings_module: "ward_sdk::skill_bindings",
    });
}

pub mod agents;
pub mod hooks;
mod host_api;
pub mod skills;
mod tool;

pub use bindings::ward::plugin::types::{
    Attachment, CallContext as Context, ToolError, ToolInfo, ToolOutput,
};
pub use host_api::{
    ExecOutput, HostError, HttpResponse, LogLevel, ask, exec, http_fetch, log, progress,
};
pub use tool::{Output, Tool, dispatch, info};

/// Re-exported so the export macro and plugin authors use the SDK's versions.
pub use {schemars, serde, serde_json};

/// Exports the listed [`Tool`] types as this component's `ward:plugin/tool` interface.
#[macro_export]
macro_rules! export_tools {
    ($($tool:ty),+ $(,)?) => {
        #[doc(hidden)]
        pub struct __WardExportedTools;

        impl $crate::bindings::exports::ward::plugin::tool::Guest for __WardExportedTools {
            fn list_tools() -> ::std::vec::Vec<$crate::ToolInfo> {
                ::std::vec![$($crate::info::<$tool>()),+]
            }

            fn execute(
                name: ::std::string::String,
                args: ::std::string::String,
                context: $crate::Context,
            ) -> ::std::result::Result<$crate::ToolOutput, $crate::ToolError> {
                $(
                    if name == <$tool as $crate::Tool>::NAME {
                        return $crate::dispatch::<$tool>(&args, &context);
                    }
                )+
                ::std::result::Result::Err($crate::ToolError::InvalidArguments(
                    ::std::format!("this plugin has no tool named `{name}`"),
                ))
            }
        }

        $crate::bindings::__export_tool_plugin!(__WardExportedTools with_types_in $crate::bindings);
    };
}
