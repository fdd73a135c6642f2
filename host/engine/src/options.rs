//! What a frontend tells the engine when it opens a project: the directory, where
//! state lives, the plugins that come with the binary, the sandbox helper, retries.

use std::path::PathBuf;

use ward_plugin::discovery::Builtin;

/// How to open a project; every setting but the directory has a default.
#[derive(Clone)]
pub struct EngineOptions {
    /// The directory Ward works in (its project is found from here).
    pub(crate) directory: PathBuf,
    /// The data directory (`None`: `WARD_DATA_DIR`, else the XDG default).
    pub(crate) data_dir: Option<PathBuf>,
    /// The first-party plugins compiled into the binary.
    pub(crate) builtins: &'static [Builtin],
    /// The binary that confines commands (`None`: beside the running executable).
    pub(crate) sandbox_helper: Option<PathBuf>,
    /// Attempts per model call before a retryable error is given up on.
    pub(crate) max_retries: Option<u32>,
    /// Whether what a crash left behind is repaired on open (a process that runs
    /// sessions does; a reader must not mark another process's running tools as
    /// interrupted).
    pub(crate) recover: bool,
}

impl EngineOptions {
    /// Options for the project at or above `directory`.
    pub fn new(directory: impl Into<PathBuf>) -> Self {
        EngineOptions {
            directory: directory.into(),
            data_dir: None,
            builtins: &[],
            sandbox_helper: None,
            max_retries: None,
            recover: true,
        }
    }

    /// Keep sessions, caches and saved outputs in `dir`.
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// The first-party plugins that come with the binary (default: none).
    pub fn builtins(mut self, builtins: &'static [Builtin]) -> Self {
        self.builtins = builtins;
        self
    }

    /// The helper binary that confines commands.
    pub fn sandbox_helper(mut self, helper: impl Into<PathBuf>) -> Self {
        self.sandbox_helper = Some(helper.into());
        self
    }

    /// Attempts per model call (default 8), at least one.
    pub fn max_retries(mut self, attempts: Option<u32>) -> Self {
        self.max_retries = attempts;
        self
    }

    /// Whether to repair what a crash left in the store (default: yes).
    pub fn recover(mut self, recover: bool) -> Self {
        self.recover = recover;
        self
    }

    /// The directory the project is found from.
    pub fn directory(&self) -> &std::path::Path {
        &self.directory
    }
}

/// The builtins are shown by count: their derived `Debug` would print every
/// embedded component's bytes (megabytes) into a log line.
impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("directory", &self.directory)
            .field("data_dir", &self.data_dir)
            .field("builtins", &self.builtins.len())
            .field("sandbox_helper", &self.sandbox_helper)
            .field("max_retries", &self.max_retries)
            .field("recover", &self.recover)
            .finish()
    }
}
