//! Where the server's project is, as OpenCode's clients ask for it: its paths
//! (`GET /path`), its version control (`GET /vcs`) and the project itself
//! (`GET /project/current`), which OpenCode's terminal UI reads when it opens.

use std::path::Path;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::App;
use crate::error::ApiError;

/// `GET /path` (OpenCode's `Path`).
#[derive(Serialize, ToSchema)]
pub struct PathInfo {
    /// The user's home directory.
    home: String,
    /// Where Ward keeps its state (the data directory).
    state: String,
    /// The user's configuration directory for Ward.
    config: String,
    /// The project's root.
    worktree: String,
    /// The directory the server serves (the project's root).
    directory: String,
}

/// The directories the server works with.
#[utoipa::path(get, path = "/path", tag = "path", responses((status = 200, body = PathInfo)))]
pub async fn paths(State(app): State<App>) -> Json<PathInfo> {
    let env = |name: &str| std::env::var(name).ok();
    let text = |p: &Path| p.to_string_lossy().into_owned();
    Json(PathInfo {
        home: env("HOME").unwrap_or_default(),
        state: text(app.engine.data_dir()),
        config: ward_engine::Engine::global_config_dir()
            .map(|dir| text(&dir))
            .unwrap_or_default(),
        worktree: app.root.clone(),
        directory: app.root.clone(),
    })
}

/// `GET /vcs` (OpenCode's `VcsInfo`): the branch checked out, when there is one.
#[derive(Serialize, ToSchema)]
pub struct VcsInfo {
    /// The branch `HEAD` is on; absent when it is detached or there is no repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
}

/// The project's version control state.
#[utoipa::path(get, path = "/vcs", tag = "vcs", responses((status = 200, body = VcsInfo)))]
pub async fn vcs(State(app): State<App>) -> Json<VcsInfo> {
    Json(VcsInfo {
        branch: branch(Path::new(&app.root)),
    })
}

/// The branch `root`'s git `HEAD` names (`ref: refs/heads/NAME`), read from the file
/// rather than by running git: the server runs no command for a client's read.
fn branch(root: &Path) -> Option<String> {
    let head = std::fs::read_to_string(root.join(".git/HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// `GET /project/current` (OpenCode's `Project`).
#[derive(Serialize, ToSchema)]
pub struct ProjectInfo {
    /// A stable hash of its root, as sessions' `projectID`.
    id: String,
    /// Its root.
    worktree: String,
    /// `git` when it is a git repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    vcs: Option<String>,
    /// When its first session was made and its last one changed (now, without any).
    time: ProjectTime,
    /// Other checkouts of it (Ward keeps none).
    sandboxes: Vec<String>,
}

/// A project's times, Unix milliseconds.
#[derive(Serialize, ToSchema)]
pub struct ProjectTime {
    /// Its first session's creation.
    created: i64,
    /// Its sessions' last change.
    updated: i64,
}

/// The project this server serves.
#[utoipa::path(get, path = "/project/current", tag = "project",
    responses((status = 200, body = ProjectInfo), (status = 500, body = crate::wire::message::ErrorInfo)))]
pub async fn current(State(app): State<App>) -> Result<Json<ProjectInfo>, ApiError> {
    let root = Path::new(&app.root);
    let now = ward_protocol::now_ms();
    let sessions: Vec<_> = app
        .engine
        .sessions()?
        .into_iter()
        .filter(|s| Path::new(&s.directory) == root)
        .collect();
    let created = sessions.iter().map(|s| s.time.created).min().unwrap_or(now);
    let updated = sessions.iter().map(|s| s.time.updated).max().unwrap_or(now);
    Ok(Json(ProjectInfo {
        id: crate::wire::session::project_id(&app.root),
        worktree: app.root.clone(),
        vcs: root.join(".git").exists().then(|| "git".to_string()),
        time: ProjectTime { created, updated },
        sandboxes: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_is_read_from_head() {
        let dir = std::env::temp_dir().join(format!("ward-vcs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(branch(&dir).as_deref(), Some("feature/x"));
        std::fs::write(dir.join(".git/HEAD"), "0123abcd\n").unwrap();
        assert_eq!(branch(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(branch(&dir), None);
    }
}
