//! A prompt body's `file` parts (OpenCode's `FilePartInput`) as the engine's files:
//! a `data:` URL carries the bytes, a `file://` URL names a file on this machine
//! (read with the authority of the user who runs the server — whoever holds its
//! token is that user, as with `ward run -f`). Either way the engine judges the
//! bytes, stores them once as a blob and the prompt's message refers to them, as for
//! `ward run -f`. Any other URL is refused, naming the part.

use ward_engine::{ClientFile, ClientFileSource};

use crate::error::ApiError;

/// A prompt's files, in the order of its parts.
#[derive(Debug, Default)]
pub struct PromptFiles(pub Vec<ClientFile>);

impl PromptFiles {
    /// Takes part `index`, a file part of media type `mime` at `url`, named
    /// `filename` by the client.
    pub fn add(
        &mut self,
        index: usize,
        mime: String,
        url: String,
        filename: Option<String>,
    ) -> Result<(), ApiError> {
        if url.starts_with("data:") {
            self.0.push(ClientFile {
                name: filename.unwrap_or_else(|| format!("parts[{index}]")),
                mime: Some(mime),
                source: ClientFileSource::DataUrl(url),
            });
            return Ok(());
        }
        let bad = |why: &str| {
            let shown: String = url.chars().take(60).collect();
            ApiError::bad_request(format!("`parts[{index}].url` ({shown}): {why}"))
        };
        if !url.starts_with("file:") {
            return Err(bad("a file part's URL must be a data: or a file:// URL"));
        }
        let path = url::Url::parse(&url)
            .map_err(|e| bad(&format!("not a URL ({e})")))?
            .to_file_path()
            .map_err(|()| bad("not a local absolute file path"))?;
        self.0.push(ClientFile {
            name: filename.unwrap_or_else(|| path.display().to_string()),
            mime: Some(mime),
            source: ClientFileSource::Path(path),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn data_and_file_urls_are_taken_and_others_named_in_the_refusal() {
        let mut files = PromptFiles::default();
        files
            .add(
                0,
                "image/png".into(),
                "data:image/png;base64,AAAA".into(),
                None,
            )
            .expect("a data: URL");
        files
            .add(1, "image/png".into(), "file:///tmp/a%20b.png".into(), None)
            .expect("a file URL");
        assert_eq!(files.0[0].name, "parts[0]");
        assert_eq!(
            files.0[1].source,
            ClientFileSource::Path(PathBuf::from("/tmp/a b.png"))
        );
        for url in [
            "https://example.com/a.png",
            "file://host/a.png",
            "ftp:a.png",
        ] {
            let e = files
                .add(2, "image/png".into(), url.into(), None)
                .expect_err(url);
            assert!(format!("{e:?}").contains("parts[2]"), "{e:?}");
        }
    }
}
