//! MCP prompts as slash commands: `/SERVER:PROMPT args` (each part sanitized like a
//! tool name, as OpenCode names them) asks the server for the prompt, the typed
//! arguments given to its declared arguments in order (the last one takes the rest),
//! and the messages it answers with become what the model is sent. Resources are
//! attached the same way files are: `@SERVER:URI` in a prompt.

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{GetPromptRequestParams, JsonObject};
use rmcp::service::Peer;
use serde_json::Value;

use crate::McpError;
use crate::call::request;
use crate::server::{Shared, millis};

/// One prompt of one server.
#[derive(Clone, Debug)]
pub struct McpPrompt {
    /// The command name, `SERVER:PROMPT`.
    pub command: String,
    /// The prompt's name on its server.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its arguments' names, in order.
    pub arguments: Vec<String>,
}

/// Lists the server's prompts (when it has any) and keeps them.
pub async fn refresh(shared: &Arc<Shared>, peer: &Peer<RoleClient>) {
    let has_prompts = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.prompts.is_some());
    if !has_prompts {
        return;
    }
    let listed = match tokio::time::timeout(shared.list_timeout, peer.list_all_prompts()).await {
        Ok(Ok(list)) => list,
        Ok(Err(e)) => {
            shared
                .problems
                .note(format!("listing its prompts failed: {e}"));
            return;
        }
        Err(_) => {
            shared.problems.note(format!(
                "did not list its prompts within {} ms",
                millis(shared.list_timeout)
            ));
            return;
        }
    };
    let prompts = listed
        .into_iter()
        .map(|p| McpPrompt {
            command: format!(
                "{}:{}",
                crate::names::sanitize(&shared.name),
                crate::names::sanitize(&p.name)
            ),
            description: p.description.or(p.title).unwrap_or_default(),
            arguments: p
                .arguments
                .unwrap_or_default()
                .into_iter()
                .map(|a| a.name)
                .collect(),
            name: p.name,
        })
        .collect();
    if let Ok(mut current) = shared.prompts.write() {
        *current = prompts;
    }
}

/// Asks for `prompt` with the typed `arguments`: the text of its messages.
pub async fn get(
    shared: &Arc<Shared>,
    prompt: &McpPrompt,
    arguments: &str,
) -> Result<String, McpError> {
    let params = GetPromptRequestParams::new(prompt.name.clone())
        .with_arguments(assign(&prompt.arguments, arguments));
    let what = format!("prompt `{}`", prompt.name);
    let result = request(shared, &what, |peer| async move {
        peer.get_prompt(params).await
    })
    .await?;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    let texts: Vec<String> = value
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let content = m.get("content")?;
            match content.get("type").and_then(Value::as_str) {
                Some("text") => content
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                Some("resource") => content
                    .get("resource")
                    .and_then(|r| r.get("text"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            }
        })
        .collect();
    Ok(texts.join("\n\n"))
}

/// The text of resource `uri` (text contents joined; binary ones described).
pub async fn read_resource(shared: &Arc<Shared>, uri: &str) -> Result<String, McpError> {
    let params = rmcp::model::ReadResourceRequestParams::new(uri);
    let what = format!("resource `{uri}`");
    let result = request(shared, &what, |peer| async move {
        peer.read_resource(params).await
    })
    .await?;
    let value = serde_json::to_value(&result).unwrap_or(Value::Null);
    let parts: Vec<String> = value
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| match c.get("text").and_then(Value::as_str) {
            Some(text) => text.to_string(),
            None => format!(
                "[binary {}]",
                c.get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("content")
            ),
        })
        .collect();
    Ok(parts.join("\n"))
}

/// The typed words given to `names` in order, the last name taking the rest.
fn assign(names: &[String], typed: &str) -> JsonObject {
    let mut out = JsonObject::new();
    let mut rest = typed.trim();
    for (i, name) in names.iter().enumerate() {
        if rest.is_empty() {
            break;
        }
        let value = if i + 1 == names.len() {
            std::mem::take(&mut rest).to_string()
        } else {
            let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            rest = tail.trim_start();
            word.to_string()
        };
        out.insert(name.clone(), Value::String(value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_words_fill_the_arguments_in_order() {
        let names = vec!["city".to_string(), "state".to_string()];
        let a = assign(&names, "Paris  Ile de France");
        assert_eq!(a["city"], "Paris");
        assert_eq!(a["state"], "Ile de France");
        let b = assign(&names, "Lyon");
        assert_eq!(b.len(), 1);
        assert!(assign(&names, "").is_empty());
    }
}
