//! Calling a component's exports whatever `ward:plugin` version it was built for.
//!
//! Each interface has an `…Indices` (its exports looked up once, at load, under the
//! component's version) and a `…Guest` (those exports in one instance) with one
//! variant per version. Their methods take and return the host's types: what differs
//! between versions is converted here, so a caller never learns which version ran.

use wasmtime::Store;
use wasmtime::component::{Instance, InstancePre};

use super::since_v0_1_0::exports::ward::plugin as v0_1_0;
use super::since_v0_2_0::exports::ward::plugin as v0_2_0;
use super::{Api, CallContext, ToolError, ToolInfo, ToolOutput, agent, hooks, skill};
use crate::state::StoreState;

/// One export interface of a component, whatever version it was built for: its exports
/// looked up once in the linked component, then loaded from each instance.
pub(crate) trait Interface: Sized {
    /// The interface's exports in one instance.
    type Guest;

    /// Looks the interface up in `pre` under `api`'s name.
    fn new(pre: &InstancePre<StoreState>, api: Api) -> wasmtime::Result<Self>;

    /// The exports of `instance`, checked against their types.
    fn load(
        &self,
        store: &mut Store<StoreState>,
        instance: &Instance,
    ) -> wasmtime::Result<Self::Guest>;
}

/// Declares, for export interface `$iface`, the indices and guest enums with a case per
/// version, and their version-blind [`Interface`].
macro_rules! versioned {
    ($indices:ident, $guest:ident, $iface:ident) => {
        #[doc = concat!("The `", stringify!($iface), "` exports of a component, looked up at load.")]
        pub(crate) enum $indices {
            /// Built for 0.1.0.
            V0_1_0(v0_1_0::$iface::GuestIndices),
            /// Built for 0.2.0.
            V0_2_0(v0_2_0::$iface::GuestIndices),
        }

        #[doc = concat!("The `", stringify!($iface), "` exports of one instance.")]
        pub(crate) enum $guest {
            /// Built for 0.1.0.
            V0_1_0(v0_1_0::$iface::Guest),
            /// Built for 0.2.0.
            V0_2_0(v0_2_0::$iface::Guest),
        }

        impl Interface for $indices {
            type Guest = $guest;

            fn new(pre: &InstancePre<StoreState>, api: Api) -> wasmtime::Result<Self> {
                Ok(match api {
                    Api::V0_1_0 => Self::V0_1_0(v0_1_0::$iface::GuestIndices::new(pre)?),
                    Api::V0_2_0 => Self::V0_2_0(v0_2_0::$iface::GuestIndices::new(pre)?),
                })
            }

            fn load(
                &self,
                store: &mut Store<StoreState>,
                instance: &Instance,
            ) -> wasmtime::Result<$guest> {
                Ok(match self {
                    Self::V0_1_0(i) => $guest::V0_1_0(i.load(store, instance)?),
                    Self::V0_2_0(i) => $guest::V0_2_0(i.load(store, instance)?),
                })
            }
        }
    };
}

versioned!(ToolIndices, ToolGuest, tool);
versioned!(HooksIndices, HooksGuest, hooks);
versioned!(AgentIndices, AgentGuest, agent);
versioned!(SkillIndices, SkillGuest, skill);

/// Calls the same export of whichever version the guest is, with the same arguments;
/// after `=>`, how a 0.1.0 answer becomes the host's (none: the types are shared).
macro_rules! call {
    ($guest:expr, $store:expr, $method:ident ( $($arg:expr),* )) => {
        match $guest {
            Self::V0_1_0(g) => g.$method($store, $($arg),*).await,
            Self::V0_2_0(g) => g.$method($store, $($arg),*).await,
        }
    };
    ($guest:expr, $store:expr, $method:ident ( $($arg:expr),* ) => $convert:expr) => {
        match $guest {
            Self::V0_1_0(g) => g.$method($store, $($arg),*).await.map($convert),
            Self::V0_2_0(g) => g.$method($store, $($arg),*).await,
        }
    };
}

// The `tool` interface uses only `types`, which both versions share: nothing to convert.
impl ToolGuest {
    /// `list-tools`.
    pub(crate) async fn call_list_tools(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<ToolInfo>> {
        call!(self, store, call_list_tools())
    }

    /// `execute`.
    pub(crate) async fn call_execute(
        &self,
        store: &mut Store<StoreState>,
        name: &str,
        args: &str,
        context: &CallContext,
    ) -> wasmtime::Result<Result<ToolOutput, ToolError>> {
        call!(self, store, call_execute(name, args, context))
    }
}

impl HooksGuest {
    /// `register`.
    pub(crate) async fn call_register(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<hooks::Registration> {
        call!(self, store, call_register() => Into::into)
    }

    /// `tool-execute-before`.
    pub(crate) async fn call_tool_execute_before(
        &self,
        store: &mut Store<StoreState>,
        tool: &str,
        args: &str,
        context: &CallContext,
    ) -> wasmtime::Result<hooks::BeforeOutcome> {
        call!(self, store, call_tool_execute_before(tool, args, context) => Into::into)
    }

    /// `tool-execute-after`.
    pub(crate) async fn call_tool_execute_after(
        &self,
        store: &mut Store<StoreState>,
        tool: &str,
        args: &str,
        outcome: &ToolOutput,
        context: &CallContext,
    ) -> wasmtime::Result<hooks::AfterRewrite> {
        call!(
            self,
            store,
            call_tool_execute_after(tool, args, outcome, context) => Into::into)
    }

    /// `chat-message`.
    pub(crate) async fn call_chat_message(
        &self,
        store: &mut Store<StoreState>,
        session_id: &str,
        message: &str,
    ) -> wasmtime::Result<Vec<String>> {
        call!(self, store, call_chat_message(session_id, message))
    }

    /// `chat-params`.
    pub(crate) async fn call_chat_params(
        &self,
        store: &mut Store<StoreState>,
        session_id: &str,
        agent: &str,
        model: &str,
        params: &hooks::SamplingParams,
    ) -> wasmtime::Result<hooks::SamplingParams> {
        match self {
            Self::V0_1_0(g) => {
                let params = v0_1_0::hooks::SamplingParams::from(params);
                g.call_chat_params(store, session_id, agent, model, &params)
                    .await
                    .map(Into::into)
            }
            Self::V0_2_0(g) => {
                g.call_chat_params(store, session_id, agent, model, params)
                    .await
            }
        }
    }

    /// `permission-ask`.
    pub(crate) async fn call_permission_ask(
        &self,
        store: &mut Store<StoreState>,
        request: &hooks::PermissionRequest,
    ) -> wasmtime::Result<super::types::Action> {
        match self {
            Self::V0_1_0(g) => {
                let request = v0_1_0::hooks::PermissionRequest::from(request);
                g.call_permission_ask(store, &request).await
            }
            Self::V0_2_0(g) => g.call_permission_ask(store, request).await,
        }
    }

    /// `event`.
    pub(crate) async fn call_event(
        &self,
        store: &mut Store<StoreState>,
        name: &str,
        payload: &str,
    ) -> wasmtime::Result<()> {
        call!(self, store, call_event(name, payload))
    }

    /// `system-transform`.
    pub(crate) async fn call_system_transform(
        &self,
        store: &mut Store<StoreState>,
        session_id: &str,
        system: &[String],
    ) -> wasmtime::Result<Vec<String>> {
        call!(self, store, call_system_transform(session_id, system))
    }

    /// `session-compacting`.
    pub(crate) async fn call_session_compacting(
        &self,
        store: &mut Store<StoreState>,
        session_id: &str,
    ) -> wasmtime::Result<hooks::CompactingOutcome> {
        call!(self, store, call_session_compacting(session_id) => Into::into)
    }

    /// `command-before`.
    pub(crate) async fn call_command_before(
        &self,
        store: &mut Store<StoreState>,
        session_id: &str,
        command: &str,
        arguments: &str,
    ) -> wasmtime::Result<Option<String>> {
        call!(
            self,
            store,
            call_command_before(session_id, command, arguments)
        )
    }
}

impl AgentGuest {
    /// `agents`.
    pub(crate) async fn call_agents(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<agent::AgentInfo>> {
        call!(self, store, call_agents() => |list| list
            .into_iter()
            .map(Into::into)
            .collect())
    }
}

impl SkillGuest {
    /// `list-skills`.
    pub(crate) async fn call_list_skills(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Vec<skill::SkillInfo>> {
        call!(self, store, call_list_skills() => |list| list
            .into_iter()
            .map(Into::into)
            .collect())
    }

    /// `load`.
    pub(crate) async fn call_load(
        &self,
        store: &mut Store<StoreState>,
        name: &str,
    ) -> wasmtime::Result<Result<skill::SkillContent, String>> {
        call!(self, store, call_load(name) => |r| r.map(Into::into))
    }
}
