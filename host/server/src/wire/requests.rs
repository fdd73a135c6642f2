//! Request bodies, as OpenCode's server takes them. Unknown fields are refused (as
//! OpenCode's `additionalProperties: false` does); fields OpenCode takes that Ward
//! does not honour yet are read, so the refusal can name them.

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::session::RuleInfo;

/// `POST /session`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// The session that starts this one.
    #[serde(rename = "parentID")]
    pub parent_id: Option<String>,
    /// A title (default: written from the first prompt).
    pub title: Option<String>,
    /// The primary agent that leads it (default: the default agent).
    pub agent: Option<String>,
    /// Permission rules of this session, layered over the project's.
    pub permission: Option<Vec<RuleInfo>>,
    /// The model its prompts go to when they name none.
    pub model: Option<SessionModelInput>,
    /// Not supported by Ward: refused.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    /// Not supported by Ward: refused.
    #[serde(rename = "workspaceID")]
    pub workspace_id: Option<String>,
}

/// A session's model, as OpenCode's `POST /session` names it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionModelInput {
    /// The model id.
    pub id: String,
    /// The provider id.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// Not supported by Ward (a prompt names its own variant): refused.
    pub variant: Option<String>,
}

/// `PATCH /session/{sessionID}`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSession {
    /// A new title.
    pub title: Option<String>,
    /// New permission rules of this session (replacing its own).
    pub permission: Option<Vec<RuleInfo>>,
    /// Not supported by Ward: refused.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<Value>,
    /// Not supported by Ward: refused.
    #[schema(value_type = Option<Object>)]
    pub time: Option<Value>,
}

/// `POST /session/{sessionID}/message` and `…/prompt_async`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// What is sent, in order.
    pub parts: Vec<PartInput>,
    /// The primary agent it goes to.
    pub agent: Option<String>,
    /// The model it goes to.
    pub model: Option<ModelInput>,
    /// System text sent after the rest of the system prompt.
    pub system: Option<String>,
    /// Not supported by Ward (ids are Ward's): refused.
    #[serde(rename = "messageID")]
    pub message_id: Option<String>,
    /// Not supported by Ward: refused.
    #[serde(rename = "noReply")]
    pub no_reply: Option<bool>,
    /// Not supported by Ward (tools are governed by permission rules): refused.
    #[schema(value_type = Option<Object>)]
    pub tools: Option<Value>,
    /// Not supported by Ward: refused.
    #[schema(value_type = Option<Object>)]
    pub format: Option<Value>,
    /// The model variant (e.g. a reasoning effort): one of the model's `variants`.
    pub variant: Option<String>,
}

/// A model named by provider and model id.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelInput {
    /// The provider.
    #[serde(rename = "providerID")]
    pub provider_id: String,
    /// The model.
    #[serde(rename = "modelID")]
    pub model_id: String,
}

/// A part of a prompt.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PartInput {
    /// Text (a `/command` and `@mentions` are expanded as in the terminal).
    Text {
        /// The text.
        text: String,
        /// Accepted and ignored: a client's own id for the part.
        id: Option<String>,
        /// Accepted: text a client added rather than the user typed.
        #[serde(default)]
        synthetic: bool,
    },
    /// A file: a `data:` URL holding its bytes or a `file://` URL naming it; an
    /// image or PDF by its bytes, stored once and sent to the model as `ward run -f`
    /// does.
    File {
        /// Its media type, as the client declares it (the bytes decide).
        mime: String,
        /// Where it is.
        url: String,
        /// Its name.
        filename: Option<String>,
        /// Accepted and ignored: a client's own id for the part.
        id: Option<String>,
        /// Accepted and ignored: where in the project the client found it.
        #[schema(value_type = Option<Object>)]
        source: Option<Value>,
    },
    /// An agent mention: not supported as a part (write `@agent` in the text).
    Agent {
        /// The agent.
        name: String,
    },
    /// A subtask: not supported as a part.
    Subtask {
        /// What it is told.
        prompt: String,
    },
}

/// `POST /permission/{requestID}/reply`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionReply {
    /// `once`, `always` or `reject`.
    pub reply: ReplyName,
    /// With `reject`: told to the model.
    pub message: Option<String>,
}

/// `POST /session/{sessionID}/permissions/{permissionID}` (OpenCode's older route).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PermissionRespond {
    /// `once`, `always` or `reject`.
    pub response: ReplyName,
}

/// An answer to a permission ask.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReplyName {
    /// Allow this call.
    Once,
    /// Allow this call and, from now on, what its `always` patterns cover.
    Always,
    /// Refuse this call (and the session's other pending asks).
    Reject,
}
