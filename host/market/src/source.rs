//! Where indexes and archives come from: a local index file, a local directory
//! holding `index.json`, or an `http://` / `https://` URL; and fetching them, with
//! a size limit, relative archive URLs resolved against the index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::Url;
use ward_config::SourceConfig;

use crate::MarketError;
use crate::index::Index;

/// Largest index or archive fetched (256 MiB).
pub const MAX_DOWNLOAD_BYTES: u64 = 256 << 20;

/// A place to read bytes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// An `http` or `https` URL.
    Http(Url),
    /// A local file.
    File(PathBuf),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Http(url) => write!(f, "{url}"),
            Location::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// A configured package source.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its name in `ward.toml` and `ward.lock`.
    pub name: String,
    /// Where its index is.
    pub index: Location,
    /// Whether its packages must carry a valid signature by a trusted key.
    pub require_signature: bool,
}

impl Source {
    /// The source `config` describes: an `http(s)://` URL, a `file://` URL, a
    /// directory (its `index.json`) or an index file. Relative paths were made
    /// absolute when the configuration was loaded.
    pub fn from_config(config: &SourceConfig) -> Result<Source, MarketError> {
        let bad = |message: String| MarketError::Source {
            name: config.name.clone(),
            message,
        };
        let url = config.url.trim();
        let index = if url.starts_with("http://") || url.starts_with("https://") {
            Location::Http(Url::parse(url).map_err(|e| bad(format!("invalid url `{url}`: {e}")))?)
        } else if url.starts_with("file://") {
            let parsed = Url::parse(url).map_err(|e| bad(format!("invalid url `{url}`: {e}")))?;
            let path = parsed
                .to_file_path()
                .map_err(|()| bad(format!("`{url}` is not a local file URL")))?;
            Location::File(index_file(path))
        } else if url.contains("://") {
            return Err(bad(format!(
                "unsupported url `{url}`: use https://, http://, file:// or a local path"
            )));
        } else {
            Location::File(index_file(PathBuf::from(url)))
        };
        Ok(Source {
            name: config.name.clone(),
            index,
            require_signature: config.require_signature,
        })
    }

    /// Fetches and validates the index.
    pub async fn fetch_index(&self, client: &reqwest::Client) -> Result<Index, MarketError> {
        let bytes = fetch(client, &self.index).await?;
        let text = String::from_utf8(bytes).map_err(|_| self.index_error("not UTF-8 text"))?;
        Index::parse(&text).map_err(|e| self.index_error(&e.to_string()))
    }

    /// An [`MarketError::Index`] about this source's index.
    pub fn index_error(&self, message: &str) -> MarketError {
        MarketError::Index {
            source_name: self.name.clone(),
            location: self.index.to_string(),
            message: message.to_owned(),
        }
    }

    /// Resolves an archive `url` from the index: absolute, or relative to the
    /// index's location. An HTTP index may only point at HTTP(S) archives.
    pub fn resolve(&self, url: &str) -> Result<Location, MarketError> {
        let bad = |message: String| self.index_error(&message);
        match &self.index {
            Location::Http(base) => {
                let joined = base
                    .join(url)
                    .map_err(|e| bad(format!("invalid archive url `{url}`: {e}")))?;
                match joined.scheme() {
                    "http" | "https" => Ok(Location::Http(joined)),
                    other => Err(bad(format!(
                        "archive url `{url}` uses `{other}:`; an HTTP index may only point at http(s) archives"
                    ))),
                }
            }
            Location::File(index) => {
                if url.starts_with("http://") || url.starts_with("https://") {
                    let parsed = Url::parse(url)
                        .map_err(|e| bad(format!("invalid archive url `{url}`: {e}")))?;
                    return Ok(Location::Http(parsed));
                }
                if url.starts_with("file://") {
                    let parsed = Url::parse(url)
                        .map_err(|e| bad(format!("invalid archive url `{url}`: {e}")))?;
                    let path = parsed
                        .to_file_path()
                        .map_err(|()| bad(format!("`{url}` is not a local file URL")))?;
                    return Ok(Location::File(path));
                }
                let base = index.parent().unwrap_or(Path::new("."));
                Ok(Location::File(base.join(url)))
            }
        }
    }
}

/// A directory means its `index.json`.
fn index_file(path: PathBuf) -> PathBuf {
    if path.is_dir() {
        path.join("index.json")
    } else {
        path
    }
}

/// An HTTP client for indexes and archives.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .timeout(Duration::from_secs(600))
        .user_agent(concat!("ward/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Reads all of `location`, up to [`MAX_DOWNLOAD_BYTES`].
pub async fn fetch(client: &reqwest::Client, location: &Location) -> Result<Vec<u8>, MarketError> {
    let fail = |message: String| MarketError::Fetch {
        location: location.to_string(),
        message,
    };
    match location {
        Location::File(path) => {
            let size = std::fs::metadata(path)
                .map_err(|e| fail(e.to_string()))?
                .len();
            if size > MAX_DOWNLOAD_BYTES {
                return Err(fail(format!("larger than {MAX_DOWNLOAD_BYTES} bytes")));
            }
            std::fs::read(path).map_err(|e| fail(e.to_string()))
        }
        Location::Http(url) => {
            let mut response = client
                .get(url.clone())
                .send()
                .await
                .map_err(|e| fail(error_chain(&e)))?;
            let status = response.status();
            if !status.is_success() {
                return Err(fail(format!("HTTP {status}")));
            }
            if response
                .content_length()
                .is_some_and(|n| n > MAX_DOWNLOAD_BYTES)
            {
                return Err(fail(format!("larger than {MAX_DOWNLOAD_BYTES} bytes")));
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| fail(error_chain(&e)))? {
                if body.len() as u64 + chunk.len() as u64 > MAX_DOWNLOAD_BYTES {
                    return Err(fail(format!("larger than {MAX_DOWNLOAD_BYTES} bytes")));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(body)
        }
    }
}

/// An error with its causes, `a: b: c` (reqwest's own message says little).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(url: &str) -> Source {
        Source::from_config(&SourceConfig {
            name: "s".into(),
            url: url.into(),
            require_signature: false,
        })
        .unwrap()
    }

    #[test]
    fn archive_urls_resolve_against_the_index() {
        let http = source("https://example.com/market/index.json");
        assert_eq!(
            http.resolve("pkgs/a-1.0.0.wardpkg").unwrap().to_string(),
            "https://example.com/market/pkgs/a-1.0.0.wardpkg"
        );
        assert_eq!(
            http.resolve("https://cdn.example.com/a.wardpkg")
                .unwrap()
                .to_string(),
            "https://cdn.example.com/a.wardpkg"
        );
        let e = http.resolve("file:///etc/passwd").unwrap_err().to_string();
        assert!(e.contains("may only point at http(s) archives"), "{e}");

        let local = source("/srv/market/index.json");
        assert_eq!(
            local.resolve("a-1.0.0.wardpkg").unwrap(),
            Location::File(PathBuf::from("/srv/market/a-1.0.0.wardpkg"))
        );
        assert_eq!(
            local.resolve("/elsewhere/a.wardpkg").unwrap(),
            Location::File(PathBuf::from("/elsewhere/a.wardpkg"))
        );
    }

    #[test]
    fn unsupported_schemes_are_named() {
        let e = Source::from_config(&SourceConfig {
            name: "s".into(),
            url: "ftp://example.com/index.json".into(),
            require_signature: false,
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "marketplace source `s`: unsupported url `ftp://example.com/index.json`: use https://, http://, file:// or a local path"
        );
    }

    #[tokio::test]
    async fn an_unreachable_source_is_an_error_naming_it() {
        let missing = source("/nonexistent/ward-market-test/index.json");
        let e = missing
            .fetch_index(&client())
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cannot fetch /nonexistent/ward-market-test/index.json: "),
            "{e}"
        );
    }
}
