//! Files a user attaches to a prompt (`ward run -f FILE`, `files` of a
//! [`crate::PromptRequest`]): checked before anything is stored — a file too large,
//! or whose bytes are no image or PDF whatever its name says, fails the prompt with
//! the reason — then stored once and added to the prompt's message as file parts.

use std::path::{Path, PathBuf};

use ward_session::attach::{self, AttachError, ReadError};
use ward_store::{Blobs, Part, PartKind, Store};

use crate::error::EngineError;

/// A user's file, read and judged by its bytes.
pub(crate) struct Loaded {
    name: String,
    bytes: Vec<u8>,
}

/// Reads and checks every file of `paths` (relative to `directory`): the first that
/// cannot be attached is the error.
pub(crate) fn load(directory: &Path, paths: &[PathBuf]) -> Result<Vec<Loaded>, EngineError> {
    let mut loaded = Vec::new();
    for path in paths {
        let full = directory.join(path);
        let name = path.display().to_string();
        let bytes = attach::read_limited(&full).map_err(|e| match e {
            ReadError::TooLarge(size) => attachment(AttachError::TooLarge {
                name: name.clone(),
                size,
            }),
            ReadError::Io(source) => EngineError::Io {
                path: full.clone(),
                source,
            },
        })?;
        attach::check(&bytes, &name, None).map_err(attachment)?;
        loaded.push(Loaded { name, bytes });
    }
    Ok(loaded)
}

/// Stores `files` once and adds them to the message `message_id` as file parts.
pub(crate) fn attach(
    store: &dyn Store,
    blobs: &Blobs,
    session_id: &str,
    message_id: &str,
    files: Vec<Loaded>,
) -> Result<(), EngineError> {
    for file in files {
        let part = attach::store(blobs, &file.bytes, &file.name, None).map_err(attachment)?;
        store.put_part(&Part::new(session_id, message_id, PartKind::File(part)))?;
    }
    Ok(())
}

fn attachment(error: AttachError) -> EngineError {
    EngineError::Attachment(error.to_string())
}
