//! What a session changed in the project's files, from the same snapshots undo
//! uses: after each prompt's loop the session's summary (files changed, lines
//! added and removed: OpenCode's `session.summary`) and the prompt's own (its
//! per-file diffs) are computed and stored, and the `summary` agent — on the small
//! model, like titles — writes a short title-like description of the prompt's
//! changes. All of it runs in the background, owned by the engine: a prompt's
//! answer never waits for it.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures_util::StreamExt;
use ward_provider::{ChatRequest, Event, Message as Wire, SystemBlock, UserPart};
use ward_session::title::Titles;
use ward_store::{
    FileDiff, MessageInfo, MessageSummary, PartKind, SessionSummary, SqliteStore, Store,
};

use crate::engine::Shared;
use crate::error::EngineError;
use crate::snapshot::ProjectSnapshots;

/// The turn of one prompt: its user message and the earliest snapshot of each file
/// its steps changed.
struct Turn {
    user: ward_store::UserMessage,
    /// The prompt's text, for the `summary` agent.
    text: String,
    files: BTreeMap<String, String>,
}

impl Shared {
    /// Starts the summary of `session_id` in the background (see the module doc).
    pub(crate) fn summarize_in_background(&self, session_id: &str) {
        let (store, snapshots) = (self.store.clone(), self.snapshots.clone());
        let (session_id, describe) = (session_id.to_string(), self.summaries.clone());
        let client = self.client.clone();
        let task = tokio::spawn(async move {
            let summarized = {
                let (store, snapshots, id) = (store.clone(), snapshots, session_id.clone());
                tokio::task::spawn_blocking(move || summarize(&store, &snapshots, &id)).await
            };
            let latest = match summarized {
                Ok(Ok(latest)) => latest,
                Ok(Err(e)) => {
                    tracing::warn!("session {session_id}: summary: {e}");
                    return;
                }
                Err(_) => return,
            };
            if let (Some(titles), Some((user, text))) = (describe, latest) {
                describe_turn(&store, &client, &titles, user, &text).await;
            }
        });
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.retain(|t| !t.is_finished());
            tasks.push(task);
        }
    }
}

/// Stores the session's summary and each prompt's diffs; returns the latest prompt
/// that changed files (with its text), for the `summary` agent to describe.
fn summarize(
    store: &SqliteStore,
    snapshots: &ProjectSnapshots,
    session_id: &str,
) -> Result<Option<(ward_store::UserMessage, String)>, EngineError> {
    if snapshots.is_off() {
        return Ok(None);
    }
    let session = store.get_session(session_id)?;
    let mut messages = store.messages(session_id, None)?;
    if let Some(revert) = &session.revert
        && let Some(at) = messages
            .iter()
            .position(|m| m.info.id() == revert.message_id)
    {
        messages.truncate(at);
    }
    let mut turns: Vec<Turn> = Vec::new();
    for message in &messages {
        match &message.info {
            MessageInfo::User(user) => turns.push(Turn {
                user: user.clone(),
                text: prompt_text(message),
                files: BTreeMap::new(),
            }),
            MessageInfo::Assistant(_) => {
                let Some(turn) = turns.last_mut() else {
                    continue;
                };
                for part in &message.parts {
                    if let PartKind::Patch { hash, files } = &part.kind {
                        for file in files {
                            turn.files
                                .entry(file.clone())
                                .or_insert_with(|| hash.clone());
                        }
                    }
                }
            }
        }
    }
    if turns.iter().all(|t| t.files.is_empty()) {
        // Nothing shown changed files (any more: a revert's tail was discarded).
        if session.summary.is_some() {
            store.set_summary(session_id, &SessionSummary::default())?;
        }
        return Ok(None);
    }
    let now = snapshots.latest_or_track()?;
    let mut whole: BTreeMap<String, String> = BTreeMap::new();
    let mut latest = None;
    for (i, turn) in turns.iter().enumerate() {
        for (file, hash) in &turn.files {
            whole.entry(file.clone()).or_insert_with(|| hash.clone());
        }
        if turn.files.is_empty() {
            continue;
        }
        // A turn ends where the next turn that changed files began.
        let end = turns[i + 1..]
            .iter()
            .find_map(|t| t.files.values().next().cloned())
            .unwrap_or_else(|| now.clone());
        let diffs = stats(snapshots, &turn.files, &end)?;
        let mut user = turn.user.clone();
        let title = user.summary.as_ref().and_then(|s| s.title.clone());
        let summary = MessageSummary { title, diffs };
        if user.summary.as_ref() != Some(&summary) {
            user.summary = Some(summary);
            store.put_message(&MessageInfo::User(user.clone()))?;
        }
        latest = Some((user, turn.text.clone()));
    }
    let diffs = stats(snapshots, &whole, &now)?;
    let summary = SessionSummary {
        additions: diffs.iter().map(|d| d.additions).sum(),
        deletions: diffs.iter().map(|d| d.deletions).sum(),
        files: diffs.len() as u64,
        diffs,
    };
    if session.summary.as_ref() != Some(&summary) {
        store.set_summary(session_id, &summary)?;
    }
    Ok(latest)
}

/// Per-file line counts of `files` (each from its own snapshot) against `end`;
/// files that ended as they began are left out.
fn stats(
    snapshots: &ProjectSnapshots,
    files: &BTreeMap<String, String>,
    end: &str,
) -> Result<Vec<FileDiff>, EngineError> {
    let mut by_start: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (file, hash) in files {
        by_start.entry(hash).or_default().push(file);
    }
    let mut diffs = Vec::new();
    for (start, wanted) in by_start {
        for stat in snapshots.store.stats(start, end)? {
            if wanted.contains(&stat.file.as_str()) {
                diffs.push(FileDiff {
                    file: stat.file,
                    additions: stat.additions,
                    deletions: stat.deletions,
                });
            }
        }
    }
    diffs.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(diffs)
}

/// What the user typed in `message`.
fn prompt_text(message: &ward_store::Message) -> String {
    message
        .parts
        .iter()
        .filter_map(|p| match &p.kind {
            PartKind::Text(t) if !t.synthetic => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asks the `summary` agent for a title-like line describing `user`'s changes and
/// stores it in the message's summary. A failure is a warning, never an error.
async fn describe_turn(
    store: &Arc<SqliteStore>,
    client: &ward_provider::Client,
    titles: &Titles,
    user: ward_store::UserMessage,
    text: &str,
) {
    let Some(summary) = user.summary.clone() else {
        return;
    };
    if summary.title.is_some() || summary.diffs.is_empty() {
        return;
    }
    let changes: String = summary
        .diffs
        .iter()
        .map(|d| format!("{} (+{} -{})\n", d.file, d.additions, d.deletions))
        .collect();
    let request = ChatRequest {
        model: titles.model.model.clone(),
        system: vec![SystemBlock {
            text: titles.prompt.clone(),
            cache: false,
        }],
        messages: vec![Wire::User {
            content: vec![UserPart::Text {
                text: format!(
                    "Describe these changes in one short line, like a title.\n\nThe request:\n\
                     {text}\n\nThe files changed:\n{changes}"
                ),
            }],
        }],
        max_tokens: Some(64),
        ..ChatRequest::default()
    };
    let model = &titles.model;
    let mut stream = std::pin::pin!(ward_provider::stream(
        client,
        model.protocol,
        &model.endpoint,
        &request
    ));
    let mut line = String::new();
    while let Some(event) = stream.next().await {
        match event {
            Event::TextDelta(delta) => line.push_str(&delta),
            Event::Error(e) => {
                tracing::warn!("change summary failed: {e}");
                return;
            }
            Event::Finish(_) => break,
            _ => {}
        }
    }
    let title = ward_session::title::clean(&line);
    if title.is_empty() {
        return;
    }
    // Re-read: the diffs may have been refreshed meanwhile.
    let Ok(stored) = store.get_message(&user.id) else {
        return;
    };
    if let MessageInfo::User(mut current) = stored.info {
        let mut summary = current.summary.take().unwrap_or_default();
        summary.title = Some(title);
        current.summary = Some(summary);
        let _ = store.put_message(&MessageInfo::User(current));
    }
}

/// The `summary` agent's prompt on `small_model`, when both are there.
pub(crate) fn summary_agent(ws: &crate::workspace::Workspace) -> Option<Titles> {
    let small = ws.config.config.small_model.as_deref()?;
    let prompt = ws.agents.get("summary")?.prompt.clone()?;
    let model = ws
        .models
        .resolve_variant(&ws.config, Some(small), None)
        .ok()?;
    Some(Titles { model, prompt })
}
