//! Export and import of a session as one JSON document.
//!
//! Owns the file format ([`ExportFile`]: `{"ward_export": 1, "session": TREE}`, a
//! tree being `{info, messages: [{info, parts}], todos, compactions, children}`, the
//! children being the subagents' sessions, recursively) and the checks an import
//! passes before anything is stored. Every field of every record is the store's own
//! serde type, so whatever a part holds (tool calls, reasoning and its metadata,
//! compaction requests, files) is exported as stored, and an import of an export
//! stores the same rows: export → import → export is byte-identical.
//!
//! Ids are kept, so an import into a data directory that already holds one of them is
//! refused (never renamed): a renamed copy is what `fork` makes, and keeping ids is
//! what lets a session move between machines and come back as itself.
//!
//! An import file is untrusted: it is size-limited, parsed with the JSON position or
//! field path in every error, its ids must be Ward's shape (no path separators,
//! control characters or foreign prefixes), unique, and consistently linked, and it
//! is written in one transaction — with an import mark for every session in it
//! ([`ward_store::ImportedSession`]): its `patch` parts and revert point name
//! snapshots another data directory took, history to read, which undo never restores
//! files from (see [`crate::provenance`]).

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ward_store::{
    CompactionPoint, IdKind, ImportedSession, Message, MessageInfo, Session, SessionRecords,
    SqliteStore, Store, StoreError, Todo,
};

use crate::manage::ManageError;

/// The format version written and the only one read.
pub const EXPORT_FORMAT: u32 = 1;
/// The largest import file read (a bigger one is refused before it is parsed).
pub const MAX_IMPORT_BYTES: u64 = 256 * 1024 * 1024;
/// The longest string an import may hold (a tool output is cut to 50 KB; an
/// attached file as a `data:` URL is the largest thing a session stores).
pub const MAX_STRING_BYTES: usize = 32 * 1024 * 1024;
/// The longest id accepted.
const MAX_ID_BYTES: usize = 64;

/// An export: the format version and the session tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportFile {
    /// [`EXPORT_FORMAT`].
    pub ward_export: u32,
    /// The session exported, with its subagents' sessions inside.
    pub session: SessionTree,
}

/// A session with everything stored in it and under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionTree {
    /// The session record.
    pub info: Session,
    /// Its messages with their parts, in id order.
    pub messages: Vec<Message>,
    /// Its task list.
    pub todos: Vec<Todo>,
    /// Its completed compactions, oldest first.
    pub compactions: Vec<CompactionPoint>,
    /// The sessions it started (subagents), in id order, each a tree.
    pub children: Vec<SessionTree>,
}

/// Why an import file was refused. Nothing of it was stored.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("reading {path}: {error}")]
    Read {
        /// The file.
        path: String,
        /// Why (in the message, not a source: printed once).
        error: std::io::Error,
    },
    /// The file is larger than [`MAX_IMPORT_BYTES`].
    #[error("the import is larger than the {limit} bytes Ward reads")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// Not JSON, or cut short: where it stops being JSON.
    #[error("not a Ward export: invalid JSON at line {line}, column {column}: {error}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde's error (in the message, not a source: printed once).
        error: serde_json::Error,
    },
    /// JSON, but a field is missing or of the wrong type.
    #[error("not a Ward export: at `{path}`: {message}")]
    Shape {
        /// The field path, e.g. `session.messages[2].parts[0].state`.
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// A version this build does not read.
    #[error("export format {found} is not the {EXPORT_FORMAT} this build of Ward reads")]
    Format {
        /// The version in the file.
        found: u32,
    },
    /// A value is well-typed but unacceptable (an id's shape, a broken link, a
    /// duplicate, a string too long).
    #[error("refused: at `{path}`: {reason}")]
    Invalid {
        /// The field path.
        path: String,
        /// Why.
        reason: String,
    },
    /// Ids in the file are already stored here.
    #[error(
        "refused: already stored in this data directory: {}; delete it first (`ward session \
         delete ID`), or import into another data directory (WARD_DATA_DIR) — ids are kept, \
         never renamed (`ward session fork` makes a copy with new ids)", ids.join(", ")
    )]
    Taken {
        /// The first few ids in use.
        ids: Vec<String>,
    },
}

/// Session `id` and everything under it, as an export.
pub fn export(store: &SqliteStore, id: &str) -> Result<ExportFile, ManageError> {
    Ok(ExportFile {
        ward_export: EXPORT_FORMAT,
        session: tree(store, store.get_session(id)?)?,
    })
}

fn tree(store: &SqliteStore, info: Session) -> Result<SessionTree, ManageError> {
    let id = info.id.clone();
    let children = store
        .list_children(&id)?
        .into_iter()
        .map(|child| tree(store, child))
        .collect::<Result<_, _>>()?;
    Ok(SessionTree {
        messages: store.messages(&id, None)?,
        todos: store.todos(&id)?,
        compactions: store.compactions(&id)?,
        children,
        info,
    })
}

/// Reads the export at `path` and imports it (see [`import_bytes`]).
pub fn import_file(store: &SqliteStore, path: &Path) -> Result<Session, ManageError> {
    let read = |error| ImportError::Read {
        path: path.display().to_string(),
        error,
    };
    let file = std::fs::File::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    file.take(MAX_IMPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    import_bytes(store, &bytes)
}

/// Checks an export and stores it in one transaction; returns the top-level session.
pub fn import_bytes(store: &SqliteStore, bytes: &[u8]) -> Result<Session, ManageError> {
    let file = parse(bytes)?;
    let records = check(&file)?;
    if let Some(parent) = &file.session.info.parent_id {
        // A subagent's session exported alone: its parent must be here already.
        match store.get_session(parent) {
            Ok(_) => {}
            Err(StoreError::NotFound { .. }) => {
                return Err(invalid(
                    "session.info.parent_id",
                    format!("no stored session {parent} to attach this one to"),
                )
                .into());
            }
            Err(e) => return Err(e.into()),
        }
    }
    let sessions: Vec<&str> = records.sessions.iter().map(|s| s.id.as_str()).collect();
    let messages: Vec<&str> = records.messages.iter().map(|m| m.info.id()).collect();
    let parts: Vec<&str> = records
        .messages
        .iter()
        .flat_map(|m| m.parts.iter().map(|p| p.id.as_str()))
        .collect();
    let taken = store.taken_ids(&sessions, &messages, &parts)?;
    if !taken.is_empty() {
        let ids = [taken.sessions, taken.messages, taken.parts]
            .concat()
            .into_iter()
            .take(5)
            .collect();
        return Err(ImportError::Taken { ids }.into());
    }
    store.insert_records(&records)?;
    Ok(file.session.info)
}

/// Parses `bytes` as an export: size, syntax, string lengths, then the typed shape.
fn parse(bytes: &[u8]) -> Result<ExportFile, ImportError> {
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge {
            limit: MAX_IMPORT_BYTES,
        });
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|error| ImportError::Syntax {
        line: error.line(),
        column: error.column(),
        error,
    })?;
    long_strings(&value, &mut String::new())?;
    let version = value.get("ward_export").and_then(Value::as_u64);
    match version {
        Some(v) if v == u64::from(EXPORT_FORMAT) => {}
        Some(v) => {
            return Err(ImportError::Format {
                found: u32::try_from(v).unwrap_or(u32::MAX),
            });
        }
        None => {
            return Err(ImportError::Shape {
                path: "ward_export".into(),
                message: "missing, or not a number: this is not a Ward export".into(),
            });
        }
    }
    serde_path_to_error::deserialize(value).map_err(|e| ImportError::Shape {
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

/// Refuses any string (or object key) longer than [`MAX_STRING_BYTES`], naming where.
fn long_strings(value: &Value, path: &mut String) -> Result<(), ImportError> {
    let too_long = |path: &str, len: usize| ImportError::Invalid {
        path: if path.is_empty() {
            ".".into()
        } else {
            path.to_string()
        },
        reason: format!("a string of {len} bytes; at most {MAX_STRING_BYTES} are accepted"),
    };
    match value {
        Value::String(s) if s.len() > MAX_STRING_BYTES => Err(too_long(path.as_str(), s.len())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let at = path.len();
                path.push_str(&format!("[{i}]"));
                long_strings(item, path)?;
                path.truncate(at);
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                if key.len() > MAX_STRING_BYTES {
                    return Err(too_long(path.as_str(), key.len()));
                }
                let at = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                long_strings(item, path)?;
                path.truncate(at);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn invalid(path: impl Into<String>, reason: impl Into<String>) -> ImportError {
    ImportError::Invalid {
        path: path.into(),
        reason: reason.into(),
    }
}

/// Checks ids and links across the tree; returns the records to store, parents first.
fn check(file: &ExportFile) -> Result<SessionRecords, ImportError> {
    let mut seen = HashSet::new();
    let mut records = SessionRecords::default();
    check_tree(&file.session, "session", None, &mut seen, &mut records)?;
    Ok(records)
}

fn check_tree(
    tree: &SessionTree,
    path: &str,
    parent: Option<&str>,
    seen: &mut HashSet<String>,
    records: &mut SessionRecords,
) -> Result<(), ImportError> {
    let sid = &tree.info.id;
    check_id(sid, IdKind::Session, &format!("{path}.info.id"), seen)?;
    if let Some(parent) = parent
        && tree.info.parent_id.as_deref() != Some(parent)
    {
        return Err(invalid(
            format!("{path}.info.parent_id"),
            format!("a child of session {parent} must name it as its parent"),
        ));
    }
    let mut users = HashSet::new();
    let mut previous: Option<&str> = None;
    for (i, message) in tree.messages.iter().enumerate() {
        let at = format!("{path}.messages[{i}]");
        let id = message.info.id();
        check_id(id, IdKind::Message, &format!("{at}.info.id"), seen)?;
        if previous.is_some_and(|p| p >= id) {
            return Err(invalid(
                format!("{at}.info.id"),
                "messages must be in id order",
            ));
        }
        previous = Some(id);
        if message.info.session_id() != sid.as_str() {
            return Err(invalid(
                format!("{at}.info.session_id"),
                format!("must be {sid}, the session holding it"),
            ));
        }
        match &message.info {
            MessageInfo::User(u) => {
                users.insert(u.id.as_str());
            }
            MessageInfo::Assistant(a) if !users.contains(a.parent_id.as_str()) => {
                return Err(invalid(
                    format!("{at}.info.parent_id"),
                    format!(
                        "{} is not an earlier user message of this session",
                        a.parent_id
                    ),
                ));
            }
            MessageInfo::Assistant(_) => {}
        }
        let mut previous_part: Option<&str> = None;
        for (j, part) in message.parts.iter().enumerate() {
            let at = format!("{at}.parts[{j}]");
            check_id(&part.id, IdKind::Part, &format!("{at}.id"), seen)?;
            if previous_part.is_some_and(|p| p >= part.id.as_str()) {
                return Err(invalid(format!("{at}.id"), "parts must be in id order"));
            }
            previous_part = Some(part.id.as_str());
            if part.message_id != id || part.session_id != *sid {
                return Err(invalid(
                    at,
                    format!("must name message {id} and session {sid}, which hold it"),
                ));
            }
        }
    }
    let ids: HashSet<&str> = tree.messages.iter().map(|m| m.info.id()).collect();
    for (i, point) in tree.compactions.iter().enumerate() {
        let at = format!("{path}.compactions[{i}]");
        let summary_is_assistant = tree.messages.iter().any(|m| {
            matches!(&m.info, MessageInfo::Assistant(a)
                if a.id == point.summary_message_id && a.summary)
        });
        if point.session_id != *sid
            || usize::try_from(point.index).ok() != Some(i + 1)
            || !summary_is_assistant
            || !ids.contains(point.from_message_id.as_str())
        {
            return Err(invalid(
                at,
                "must be compaction number i+1 of this session, naming its summary message \
                 and a message of it to start from",
            ));
        }
    }
    // Messages are in id order (checked above): the last is where the file's
    // history of this session ends.
    records.imported.push(ImportedSession {
        session_id: sid.clone(),
        through_message: tree.messages.last().map(|m| m.info.id().to_string()),
        revert_snapshot: tree.info.revert.as_ref().and_then(|r| r.snapshot.clone()),
    });
    records.sessions.push(tree.info.clone());
    records.messages.extend(tree.messages.iter().cloned());
    if !tree.todos.is_empty() {
        records.todos.push((sid.clone(), tree.todos.clone()));
    }
    records.compactions.extend(tree.compactions.iter().cloned());
    let mut previous_child: Option<&str> = None;
    for (i, child) in tree.children.iter().enumerate() {
        if previous_child.is_some_and(|p| p >= child.info.id.as_str()) {
            return Err(invalid(
                format!("{path}.children[{i}].info.id"),
                "children must be in id order",
            ));
        }
        previous_child = Some(child.info.id.as_str());
        check_tree(
            child,
            &format!("{path}.children[{i}]"),
            Some(sid),
            seen,
            records,
        )?;
    }
    Ok(())
}

/// An id must be Ward's shape — `kind`'s prefix, `_`, ASCII letters and digits — and
/// unique in the file: it becomes a key, a path segment in URLs, a word on screen.
fn check_id(
    id: &str,
    kind: IdKind,
    path: &str,
    seen: &mut HashSet<String>,
) -> Result<(), ImportError> {
    let body = id
        .strip_prefix(kind.prefix())
        .and_then(|rest| rest.strip_prefix('_'));
    let shaped = body.is_some_and(|b| {
        !b.is_empty() && id.len() <= MAX_ID_BYTES && b.bytes().all(|c| c.is_ascii_alphanumeric())
    });
    if !shaped {
        return Err(invalid(
            path,
            format!(
                "{:?} is not a {} id (`{}_` then up to {MAX_ID_BYTES} letters and digits)",
                id,
                kind.prefix(),
                kind.prefix()
            ),
        ));
    }
    if !seen.insert(id.to_string()) {
        return Err(invalid(path, format!("{id} appears twice in the file")));
    }
    Ok(())
}
