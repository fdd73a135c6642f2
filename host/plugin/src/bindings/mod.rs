//! The `ward:plugin` contract as the host sees it, one frozen version per module, the
//! way Zed's extension host keeps its API versions.
//!
//! Each version's bindings are generated from its own WIT directory
//! (`wit/since_v0.1.0`, `wit/since_v0.2.0`) and stay private to this module. The
//! latest version's types are the host's own ([`latest`]): the rest of the crate sees
//! one `ToolInfo`, one `SamplingParams`, one `ExecRequest`. An older version converts
//! into them (`From`, in its module), maps the interfaces that did not change onto the
//! latest's (`with`), and implements its own `host` imports over the same host code.
//! [`guest`] calls a component's exports whatever version it was built for.
//!
//! Every import is async: `ask` waits for a person, `exec` and `http-fetch` for the
//! outside world, and none of them may block the executor while they do.
//!
//! Adding a version: copy the latest WIT directory to `wit/since_vX.Y.Z`, change it,
//! add its module here as the new [`latest`], give the previous one `From`
//! conversions, and a case to [`Api`] and the [`guest`] enums.

pub(crate) mod guest;
mod since_v0_1_0;
pub(crate) mod since_v0_2_0;

use wasmtime::component::{HasSelf, Linker};

use crate::state::StoreState;

/// The newest version: its types are the host's.
pub(crate) use since_v0_2_0 as latest;

pub use latest::exports::ward::plugin::tool::{CallContext, ToolError, ToolInfo, ToolOutput};
pub(crate) use latest::exports::ward::plugin::{agent, hooks, skill};
pub(crate) use latest::ward::plugin::{host, types};

/// A `ward:plugin` API version this host implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Api {
    /// `ward:plugin@0.1.0`: host imports fail with a bare string.
    V0_1_0,
    /// `ward:plugin@0.2.0`: host imports fail with the `host-error` variant.
    V0_2_0,
}

impl Api {
    /// Every version, oldest first.
    pub(crate) const ALL: [Api; 2] = [Api::V0_1_0, Api::V0_2_0];
    /// What a component that names no version is taken for.
    pub(crate) const LATEST: Api = Api::V0_2_0;

    /// The version as WIT spells it, `0.1.0`.
    pub(crate) fn version(self) -> &'static str {
        match self {
            Api::V0_1_0 => "0.1.0",
            Api::V0_2_0 => "0.2.0",
        }
    }

    /// The version called `version`, if this host implements it.
    pub(crate) fn parse(version: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|api| api.version() == version)
    }
}

/// Links every version's `host` (and `types`) imports into `linker`, so one linker, and
/// one [`crate::PluginHost`], serves components of any supported version side by side.
pub(crate) fn add_to_linker(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    latest::FullPlugin::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |s| s)?;
    since_v0_1_0::add_to_linker(linker)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_parses_back_and_is_supported() {
        for api in Api::ALL {
            assert_eq!(Api::parse(api.version()), Some(api));
            assert!(crate::compat::SUPPORTED_API.contains(&api.version()));
        }
        assert_eq!(crate::compat::SUPPORTED_API.len(), Api::ALL.len());
        assert_eq!(Api::parse("0.9.0"), None);
    }

    #[test]
    fn the_sdk_carries_the_latest_contract() {
        // `ward-sdk` has its own copy of the WIT so it can be published; it must be the
        // latest version's, word for word.
        let sdk = include_str!("../../../../sdk/rust/wit/ward-plugin.wit");
        let latest = include_str!("../../../../wit/since_v0.2.0/ward-plugin.wit");
        assert_eq!(sdk, latest);
    }
}
