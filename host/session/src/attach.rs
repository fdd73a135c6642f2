//! Files that reach the model: checking and storing an attachment (a tool's or the
//! user's), and, before each model call, putting the stored bytes into the request —
//! or a note where the model does not take files.
//!
//! An attachment is judged by its bytes, not its name or the media type a tool
//! declared: the type is sniffed from the magic numbers (the `infer` crate), only the
//! types models take (PNG, JPEG, GIF, WebP, PDF) are kept, and a file over
//! [`MAX_ATTACHMENT_BYTES`] is refused. A kept attachment's bytes are stored once
//! ([`ward_store::Blobs`]) and its part refers to them; [`prepare`] turns the
//! reference into a `data:` URL only for the request being sent.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ward_provider::{Attachment, Message as Wire, UserPart};
use ward_store::{Blobs, FilePart, is_blob};

/// The largest file attached (5 MiB, the most Anthropic takes per image; OpenAI's
/// limits are higher).
pub const MAX_ATTACHMENT_BYTES: usize = 5 * 1024 * 1024;

/// The media types a model may be sent.
const ACCEPTED: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
];

/// Why a file was not attached; the text says what and why, for the user or the model.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    /// Over [`MAX_ATTACHMENT_BYTES`].
    #[error(
        "{name} is too large to attach ({size} bytes; the limit is {MAX_ATTACHMENT_BYTES} bytes, 5 MiB)"
    )]
    TooLarge {
        /// The file's name.
        name: String,
        /// Its size.
        size: usize,
    },
    /// The bytes are no image or PDF, whatever the name or declared type says.
    #[error("{name} is not an image or a PDF: its content {found}{declared}")]
    NotMedia {
        /// The file's name.
        name: String,
        /// What the bytes look like.
        found: String,
        /// ", although it was declared image/png", when a type was declared.
        declared: String,
    },
    /// The URL is not a base64 `data:` URL.
    #[error("{name}: cannot read the attachment at {url}: {reason}")]
    Unreadable {
        /// The file's name.
        name: String,
        /// The URL, shortened.
        url: String,
        /// Why.
        reason: String,
    },
    /// The blob store refused.
    #[error(transparent)]
    Store(#[from] ward_store::BlobError),
}

/// The media type of `bytes` if it is one models take.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let kind = infer::get(bytes)?;
    ACCEPTED.iter().copied().find(|m| *m == kind.mime_type())
}

/// Checks `bytes` (named `name`, declared as `declared` if a tool said) and stores them
/// once; the file part refers to the stored bytes.
pub fn store(
    blobs: &Blobs,
    bytes: &[u8],
    name: &str,
    declared: Option<&str>,
) -> Result<FilePart, AttachError> {
    let mime = check(bytes, name, declared)?;
    Ok(FilePart {
        mime: mime.to_string(),
        url: blobs.put(bytes)?,
        filename: Some(name.to_string()),
        source: None,
    })
}

/// The media type of `bytes` if they may be attached: within the size limit, and an
/// image or PDF by their magic numbers.
pub fn check(
    bytes: &[u8],
    name: &str,
    declared: Option<&str>,
) -> Result<&'static str, AttachError> {
    if bytes.len() > MAX_ATTACHMENT_BYTES {
        return Err(AttachError::TooLarge {
            name: name.to_string(),
            size: bytes.len(),
        });
    }
    let Some(mime) = sniff(bytes) else {
        let found = match infer::get(bytes) {
            Some(kind) => format!("is {}", kind.mime_type()),
            None if std::str::from_utf8(bytes).is_ok() => "is text".to_string(),
            None => "has no known format".to_string(),
        };
        return Err(AttachError::NotMedia {
            name: name.to_string(),
            found,
            declared: declared
                .map(|d| format!(", although it was declared {d}"))
                .unwrap_or_default(),
        });
    };
    Ok(mime)
}

/// Stores a tool's attachment, which must carry its bytes (a `data:` URL). A
/// `file://` URL is refused: the host would read the file with its own authority,
/// whatever the tool was granted.
pub fn store_tool_file(blobs: &Blobs, file: &Attachment) -> Result<FilePart, AttachError> {
    let name = file.filename.clone().unwrap_or_else(|| "attachment".into());
    let unreadable = |reason: String| AttachError::Unreadable {
        name: name.clone(),
        url: file.url.chars().take(60).collect(),
        reason,
    };
    let bytes = if file.url.starts_with("data:") {
        decode_data_url(&file.url, &name)?
    } else {
        // Only bytes the tool carries: a path (`file://`) would have the host read,
        // with its own authority, a file the tool may have no grant to read.
        return Err(unreadable(
            "not a base64 data: URL (a tool attaches the bytes themselves, not a path)".into(),
        ));
    };
    store(blobs, &bytes, &name, Some(&file.mime))
}

/// The bytes of a base64 `data:` URL naming a file called `name`, refused before
/// decoding when they could not be kept. Hand-written: the format is one comma and a
/// `;base64` marker, and the decoding is the `base64` crate's.
pub fn decode_data_url(url: &str, name: &str) -> Result<Vec<u8>, AttachError> {
    let unreadable = |reason: String| AttachError::Unreadable {
        name: name.to_string(),
        url: url.chars().take(60).collect(),
        reason,
    };
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| unreadable("not a data: URL".into()))?;
    let (meta, data) = rest
        .split_once(',')
        .ok_or_else(|| unreadable("a data: URL without a comma".into()))?;
    if !meta.ends_with(";base64") {
        return Err(unreadable("only base64 data: URLs are taken".into()));
    }
    // Base64 is 4/3 the size: refuse before decoding what cannot be kept.
    if data.len() / 4 * 3 > MAX_ATTACHMENT_BYTES + 3 {
        return Err(AttachError::TooLarge {
            name: name.to_string(),
            size: data.len() / 4 * 3,
        });
    }
    STANDARD
        .decode(data.trim())
        .map_err(|e| unreadable(format!("invalid base64 ({e})")))
}

/// Why a file could not be read for attaching.
#[derive(Debug)]
pub enum ReadError {
    /// Larger than [`MAX_ATTACHMENT_BYTES`] (its size).
    TooLarge(usize),
    /// The OS refused.
    Io(std::io::Error),
}

/// Reads `path`, refusing (without reading it all) a file over the limit.
pub fn read_limited(path: &Path) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    if size > MAX_ATTACHMENT_BYTES as u64 {
        return Err(ReadError::TooLarge(
            usize::try_from(size).unwrap_or(usize::MAX),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_ATTACHMENT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() > MAX_ATTACHMENT_BYTES {
        return Err(ReadError::TooLarge(bytes.len()));
    }
    Ok(bytes)
}

/// What `prepare` needs to know about the model.
pub struct Target<'a> {
    /// `provider/model`, for the note.
    pub name: &'a str,
    /// Whether the model takes images and files (the registry's `attachment`).
    pub accepts: bool,
}

/// Makes the request's files sendable: stored references become `data:` URLs when
/// the model takes files; otherwise (or when the bytes are gone) each file becomes a
/// note saying so, in the user message or after the tool's output.
pub fn prepare(messages: &mut [Wire], blobs: Option<&Blobs>, target: &Target<'_>) {
    for message in messages {
        match message {
            Wire::User { content } => {
                for part in content.iter_mut() {
                    if let UserPart::File {
                        mime,
                        url,
                        filename,
                    } = part
                    {
                        match inline(mime, url, filename.as_deref(), blobs, target) {
                            Ok(data) => *url = data,
                            Err(note) => {
                                *part = UserPart::Text {
                                    text: note.to_string(),
                                }
                            }
                        }
                    }
                }
            }
            Wire::Tool(result) => {
                let files = std::mem::take(&mut result.attachments);
                for mut file in files {
                    match inline(
                        &file.mime,
                        &file.url,
                        file.filename.as_deref(),
                        blobs,
                        target,
                    ) {
                        Ok(data) => {
                            file.url = data;
                            result.attachments.push(file);
                        }
                        Err(note) => {
                            result.output.push_str("\n\n");
                            result.output.push_str(&note.to_string());
                        }
                    }
                }
            }
            Wire::Assistant { .. } => {}
        }
    }
}

/// Replaces every file by a line naming it: the summariser of a compaction reads
/// what happened, it does not need the pixels.
pub fn as_text(messages: &mut [Wire]) {
    let line = |mime: &str, name: Option<&str>| {
        format!("[attached {mime}: {}]", name.unwrap_or("unnamed"))
    };
    for message in messages {
        match message {
            Wire::User { content } => {
                for part in content.iter_mut() {
                    if let UserPart::File { mime, filename, .. } = part {
                        *part = UserPart::Text {
                            text: line(mime, filename.as_deref()),
                        };
                    }
                }
            }
            Wire::Tool(result) => {
                for file in std::mem::take(&mut result.attachments) {
                    result.output.push('\n');
                    result
                        .output
                        .push_str(&line(&file.mime, file.filename.as_deref()));
                }
            }
            Wire::Assistant { .. } => {}
        }
    }
}

/// Why a file is not sent to the model; the message is the note sent instead.
#[derive(Debug, thiserror::Error)]
enum Omitted {
    /// The model takes no images.
    #[error("[image omitted: model {model} does not accept images]")]
    Image {
        /// `provider/model`.
        model: String,
    },
    /// The model takes no files.
    #[error("[file omitted: model {model} does not accept {mime} files]")]
    File {
        /// `provider/model`.
        model: String,
        /// The file's type.
        mime: String,
    },
    /// The file is stored, and there is no store to read it from.
    #[error("[{name} omitted: no attachment store]")]
    NoStore {
        /// The file's name.
        name: String,
    },
    /// The store could not give the file's bytes (e.g. they were collected).
    #[error("[{name} omitted: {reason}]")]
    Unavailable {
        /// The file's name.
        name: String,
        /// Why.
        reason: ward_store::BlobError,
    },
}

/// The `data:` URL for a file, or why it is left out.
fn inline(
    mime: &str,
    url: &str,
    filename: Option<&str>,
    blobs: Option<&Blobs>,
    target: &Target<'_>,
) -> Result<String, Omitted> {
    if !target.accepts {
        let model = target.name.to_string();
        return Err(match mime.starts_with("image/") {
            true => Omitted::Image { model },
            false => Omitted::File {
                model,
                mime: mime.to_string(),
            },
        });
    }
    if !is_blob(url) {
        return Ok(url.to_string());
    }
    let name = filename.unwrap_or("attachment").to_string();
    let Some(blobs) = blobs else {
        return Err(Omitted::NoStore { name });
    };
    let bytes = blobs
        .get(url)
        .map_err(|reason| Omitted::Unavailable { name, reason })?;
    Ok(format!("data:{mime};base64,{}", STANDARD.encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG.
    const PNG: &[u8] = &[
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0,
        0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89,
    ];

    #[test]
    fn the_type_comes_from_the_bytes_not_the_name() {
        assert_eq!(sniff(PNG), Some("image/png"));
        assert_eq!(sniff(b"%PDF-1.7\n"), Some("application/pdf"));
        assert_eq!(sniff(b"just text, named .png"), None);
        let blobs = Blobs::new(std::env::temp_dir().join("ward-attach-test"));
        let err = store(&blobs, b"hello", "fake.png", Some("image/png")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "fake.png is not an image or a PDF: its content is text, although it was declared image/png"
        );
        let big = vec![0u8; MAX_ATTACHMENT_BYTES + 1];
        assert!(matches!(
            store(&blobs, &big, "big.png", None),
            Err(AttachError::TooLarge { .. })
        ));
    }

    /// A tool without a read grant must not get the host to read a file for it: an
    /// attachment naming a path (the project's `.env`, here a PNG to be sure the
    /// content would pass) is refused, and only bytes the tool carries are taken.
    #[test]
    fn a_tool_cannot_have_the_host_read_a_file_for_it() {
        let project = std::env::temp_dir().join(format!("ward-attach-path-{}", std::process::id()));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join(".env"), PNG).unwrap();
        let blobs = Blobs::new(project.join("blobs"));
        let by_path = Attachment {
            url: format!("file://{}", project.join(".env").display()),
            mime: "image/png".into(),
            filename: Some(".env".into()),
        };
        let err = store_tool_file(&blobs, &by_path).unwrap_err();
        assert!(matches!(err, AttachError::Unreadable { .. }), "{err}");
        assert!(!project.join("blobs").exists(), "nothing was stored");
        let carried = Attachment {
            url: format!("data:image/png;base64,{}", STANDARD.encode(PNG)),
            ..by_path
        };
        assert!(store_tool_file(&blobs, &carried).is_ok());
        std::fs::remove_dir_all(&project).unwrap();
    }

    #[test]
    fn a_model_without_attachments_gets_a_note() {
        let mut messages = vec![Wire::User {
            content: vec![UserPart::File {
                mime: "image/png".into(),
                url: "data:image/png;base64,AA==".into(),
                filename: None,
            }],
        }];
        let target = Target {
            name: "p/text-only",
            accepts: false,
        };
        prepare(&mut messages, None, &target);
        let Wire::User { content } = &messages[0] else {
            panic!()
        };
        assert_eq!(
            content[0],
            UserPart::Text {
                text: "[image omitted: model p/text-only does not accept images]".into()
            }
        );
        let pdf = inline("application/pdf", "data:,", None, None, &target);
        assert!(
            matches!(&pdf, Err(Omitted::File { mime, .. }) if mime == "application/pdf"),
            "{pdf:?}"
        );
        let target = Target {
            name: "p/vision",
            accepts: true,
        };
        let stored = inline(
            "image/png",
            "ward-blob:sha256:00",
            Some("a.png"),
            None,
            &target,
        );
        assert!(
            matches!(&stored, Err(Omitted::NoStore { name }) if name == "a.png"),
            "{stored:?}"
        );
    }
}
