//! Files a user attaches to a prompt (`ward run -f FILE`, `files` of a
//! [`crate::PromptRequest`]): checked before anything is stored — a file too large,
//! or whose bytes are no image or PDF whatever its name says, fails the prompt with
//! the reason — then stored once and added to the prompt's message as file parts.
//! An API client's files ([`ClientFile`]: a `data:` URL holding the bytes, or a
//! path) are judged the same way and keep the client's order.

use std::path::{Path, PathBuf};

use ward_session::attach::{self, AttachError, ReadError};
use ward_store::{Blobs, Part, PartKind, Store};

use crate::error::EngineError;

/// A user's file, read and judged by its bytes.
pub(crate) struct Loaded {
    name: String,
    bytes: Vec<u8>,
}

/// A file an API client attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientFile {
    /// Its name, as the client gave it.
    pub name: String,
    /// The media type the client declared (the bytes decide; this only names it in
    /// an error).
    pub mime: Option<String>,
    /// Where its bytes are.
    pub source: ClientFileSource,
}

/// Where a [`ClientFile`]'s bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientFileSource {
    /// A base64 `data:` URL holding them.
    DataUrl(String),
    /// A file on this machine (relative paths are the project's).
    Path(PathBuf),
}

/// Reads and checks every file of `request` (paths relative to `directory`, then the
/// inline ones): the first that cannot be attached is the error.
pub(crate) fn load(
    directory: &Path,
    request: &crate::PromptRequest,
) -> Result<Vec<Loaded>, EngineError> {
    let mut loaded = load_paths(directory, &request.files)?;
    for file in &request.client_files {
        match &file.source {
            ClientFileSource::DataUrl(url) => {
                let bytes = attach::decode_data_url(url, &file.name).map_err(attachment)?;
                attach::check(&bytes, &file.name, file.mime.as_deref()).map_err(attachment)?;
                loaded.push(Loaded {
                    name: file.name.clone(),
                    bytes,
                });
            }
            ClientFileSource::Path(path) => {
                for mut file_read in load_paths(directory, std::slice::from_ref(path))? {
                    file_read.name.clone_from(&file.name);
                    loaded.push(file_read);
                }
            }
        }
    }
    Ok(loaded)
}

/// Reads and checks every file of `paths` (relative to `directory`).
fn load_paths(directory: &Path, paths: &[PathBuf]) -> Result<Vec<Loaded>, EngineError> {
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
