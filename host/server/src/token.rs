//! The server's token: random per start (or given), written where local clients
//! can find it and no other user can read it — one file per server, named by its
//! port (`<data dir>/server/<port>.token`), so a second server on the same data
//! directory never hides the first one's token, and removed when the server stops.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::ServerError;

/// 32 random bytes as 64 hex digits.
pub use ward_http_guard::random_token as random;

/// A server's token file, removed when dropped (when the server stops).
#[derive(Debug)]
pub struct TokenFile(PathBuf);

impl TokenFile {
    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        // Gone already (someone cleaned up) is as good as removed.
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes `token` to `<data_dir>/server/<port>.token`, readable by the owner only
/// (the directory too).
pub fn write(data_dir: &Path, port: u16, token: &str) -> Result<TokenFile, ServerError> {
    let dir = data_dir.join("server");
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ServerError::TokenFile { path, source }
    };
    // The directory is the data directory's own: one planted there as a link to
    // somewhere else would take the token (and the chmod below) with it.
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(err(&dir)(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a symbolic link, not a directory of Ward's: remove it",
        )));
    }
    create_private_dir(&dir).map_err(err(&dir))?;
    let path = dir.join(format!("{port}.token"));
    // A new file each time: one left by an older run (or put there by someone else)
    // may have other permissions, and `mode` applies only when a file is created.
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(&path)(e)),
    }
    let mut file = private_file(&path).map_err(err(&path))?;
    file.write_all(token.as_bytes()).map_err(err(&path))?;
    Ok(TokenFile(path))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("ward-token-{}", random()));
        let file = write(&dir, 4096, "abc").unwrap();
        let path = file.path().to_path_buf();
        assert_eq!(path, dir.join("server/4096.token"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "abc");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        // Another server's file stands beside it.
        let other = write(&dir, 4097, "xyz").unwrap();
        assert_eq!(std::fs::read_to_string(other.path()).unwrap(), "xyz");
        // A file left on this port (a killed server's) is replaced, still private.
        std::mem::forget(file);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let file = write(&dir, 4096, "def").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "def");
        assert_eq!(mode(&path), 0o600);
        // Stopping removes a server's own file only.
        drop(file);
        assert!(!path.exists());
        assert!(other.path().exists());
        drop(other);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_never_receives_the_token() {
        let base = std::env::temp_dir().join(format!("ward-token-link-{}", random()));
        let elsewhere = base.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let target = elsewhere.join("stolen");
        // The token file's name, a link to a file someone else reads.
        let data = base.join("data");
        std::fs::create_dir_all(data.join("server")).unwrap();
        std::os::unix::fs::symlink(&target, data.join("server/4096.token")).unwrap();
        let file = write(&data, 4096, "secret").unwrap();
        assert!(!target.exists(), "the link is not followed");
        let meta = std::fs::symlink_metadata(file.path()).unwrap();
        assert!(
            meta.file_type().is_file(),
            "a file of its own replaces the link"
        );
        drop(file);
        // The token directory itself, a link to a directory someone else reads.
        let data = base.join("data2");
        std::fs::create_dir_all(&data).unwrap();
        std::os::unix::fs::symlink(&elsewhere, data.join("server")).unwrap();
        let refused = write(&data, 4096, "secret").unwrap_err().to_string();
        assert!(refused.contains("symbolic link"), "{refused}");
        assert!(
            refused.contains("server"),
            "the error names the path: {refused}"
        );
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        std::fs::remove_dir_all(base).unwrap();
    }
}
