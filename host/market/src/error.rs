//! [`MarketError`]: everything that can go wrong packing, fetching, verifying,
//! installing or recording a package, each naming what and where.

use std::path::PathBuf;

/// A marketplace error.
#[derive(Debug, thiserror::Error)]
pub enum MarketError {
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A plugin manifest is invalid (the message is located).
    #[error(transparent)]
    Manifest(#[from] ward_config::ConfigError),
    /// A plugin directory cannot be packed.
    #[error("cannot pack {}: {message}", path.display())]
    Pack {
        /// The offending file or directory.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// An index is malformed.
    #[error("index of source `{source_name}` ({location}): {message}")]
    Index {
        /// The source's name.
        source_name: String,
        /// Where the index was read from.
        location: String,
        /// What is wrong, with line and column for JSON errors.
        message: String,
    },
    /// An index or archive could not be fetched.
    #[error("cannot fetch {location}: {message}")]
    Fetch {
        /// The URL or path.
        location: String,
        /// Why.
        message: String,
    },
    /// No `[[marketplace.sources]]` are configured.
    #[error(
        "no marketplace sources: add `[[marketplace.sources]]` with a name and url to ward.toml"
    )]
    NoSources,
    /// A source is configured but unusable.
    #[error("marketplace source `{name}`: {message}")]
    Source {
        /// The source's name.
        name: String,
        /// Why.
        message: String,
    },
    /// No source has a plugin of that name.
    #[error("no plugin named `{name}` in {searched}")]
    NotFound {
        /// The plugin asked for.
        name: String,
        /// The sources searched, and those that failed.
        searched: String,
    },
    /// The plugin exists but not in that version.
    #[error(
        "plugin `{name}` has no version {version} in source `{source_name}` (available: {available})"
    )]
    UnknownVersion {
        /// The plugin.
        name: String,
        /// The version asked for.
        version: String,
        /// The source.
        source_name: String,
        /// The versions it has.
        available: String,
    },
    /// The downloaded archive's digest differs from the index's.
    #[error("archive {location}: sha256 is {actual}, but the index says {expected}; refusing it")]
    ArchiveDigest {
        /// Where it came from.
        location: String,
        /// The index's digest.
        expected: String,
        /// The archive's digest.
        actual: String,
    },
    /// The signature is missing or does not verify.
    #[error("{name} {version}: {message}; refusing it")]
    Signature {
        /// The plugin.
        name: String,
        /// Its version.
        version: String,
        /// What is wrong.
        message: String,
    },
    /// A file's digest differs from the one `plugin.toml` records.
    #[error(
        "package file `{file}` has sha256 {actual}, but plugin.toml records {expected}: the package was altered; refusing it"
    )]
    FileDigest {
        /// The file, relative to the package root.
        file: String,
        /// The digest in `[files]`.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// Something in the package is refused (unlisted, missing, unsafe or inconsistent).
    #[error("package {package}: {message}; refusing it")]
    Package {
        /// `NAME VERSION` or the archive's location.
        package: String,
        /// What is wrong.
        message: String,
    },
    /// `ward.lock` cannot be read or written.
    #[error("{}: {message}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The plugin is not recorded in `ward.lock`.
    #[error("`{name}` is not installed from a marketplace in this project (not in ward.lock)")]
    NotInstalled {
        /// The plugin.
        name: String,
    },
    /// A grant or revoke does not fit what the plugin requests.
    #[error("{message}")]
    Grant {
        /// What is wrong.
        message: String,
    },
    /// A signing key file is unusable.
    #[error("signing key {}: {message}", path.display())]
    Key {
        /// The key file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl MarketError {
    /// An [`MarketError::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> MarketError {
        let path = path.into();
        move |source| MarketError::Io { path, source }
    }
}
