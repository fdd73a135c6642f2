//! Host-side bindings generated from `wit/ward-plugin.wit`.
//!
//! Every import is async: `ask` waits for a person, `exec` and `http-fetch` for the
//! outside world, and none of them may block the executor while they do.

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "tool-plugin",
    imports: { default: async },
    exports: { default: async },
});

pub use exports::ward::plugin::tool::{CallContext, ToolError, ToolInfo, ToolOutput};
pub use ward::plugin::host;
