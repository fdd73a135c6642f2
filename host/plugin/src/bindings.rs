//! Host-side bindings generated from `wit/ward-plugin.wit`.
//!
//! Generated for `full-plugin`, the world that combines every kind, so one set of
//! types serves them all; a component exporting only `tool` or only `hooks` is used
//! through the per-interface [`tool::GuestIndices`] and [`hooks::GuestIndices`],
//! which look an export up without requiring the others.
//!
//! Every import is async: `ask` waits for a person, `exec` and `http-fetch` for the
//! outside world, and none of them may block the executor while they do.

// Generated code: the WIT contract's own comments come through as docs, and the
// scaffolding around them (linkers, indices, constructors) is wasmtime's to document.
#![allow(missing_docs)]

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "full-plugin",
    imports: { default: async },
    exports: { default: async },
});

pub use exports::ward::plugin::agent;
pub use exports::ward::plugin::hooks;
pub use exports::ward::plugin::skill;
pub use exports::ward::plugin::tool;
pub use exports::ward::plugin::tool::{CallContext, ToolError, ToolInfo, ToolOutput};
pub use ward::plugin::host;
