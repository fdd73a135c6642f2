//! Starting the process an `exec` call asked for, confined by the kernel, and collecting
//! its output within the call's deadline.
//!
//! The process runs through the sandbox helper ([`ward_sandbox`]) under a policy built
//! from who asked: the standard `bash` tool's commands get the configured command mode
//! (`read-only` | `workspace-write` | `full`), every other plugin's processes get its
//! own grants — the system directories, the paths it was granted, a private temporary
//! directory, the network only with a `net` grant, and no inherited environment. Ward's
//! configuration and state stay read-only for all of them. The helper puts the process
//! in its own PID namespace, so nothing it starts outlives it, and the call's deadline
//! bounds the wait for its output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use ward_sandbox::{Mode, Policy};

use crate::bindings::host::{ExecOutput, ExecRequest};
use crate::sandbox::{Confinement, MissingConfig};
use crate::state::CallEnv;

/// The shell every `exec` runs under. An absolute path matters for speed: with a bare
/// name std falls back from `posix_spawn` (vfork) to `fork`, whose page-table copy grows
/// with the host's address space (the wasm instance pool).
const SHELL: &str = "/bin/sh";
/// Timeout when the request gives none.
const DEFAULT_TIMEOUT_MS: u32 = 120_000;
/// Variables the `bash` tool's commands inherit from Ward (the user's own shell
/// setup); everything else must be granted with `env`.
const COMMAND_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"];
/// `PATH` of a plugin's processes: the system's, never the user's.
const PLUGIN_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Runs `req` in `workdir`, confined as `env` says, and waits for it within the call's
/// deadline.
pub(crate) async fn spawn(
    env: &CallEnv,
    req: &ExecRequest,
    workdir: PathBuf,
) -> Result<ExecOutput, String> {
    let confinement = env.confinement;
    let scratch = match confinement {
        Confinement::Plugin => Some(Scratch::create().map_err(|e| {
            format!(
                "cannot create a temporary directory for `{}`: {e}",
                req.command
            )
        })?),
        Confinement::Commands { .. } => None,
    };
    let policy = policy_for(env, confinement, scratch.as_ref().map(|s| s.0.as_path()));
    let missing = policy
        .confine_files
        .then(|| MissingConfig::note(&env.scope.project));
    let helper = env.sandbox.helper.as_deref().ok_or_else(|| {
        "no sandbox helper is configured: processes cannot be confined, so none is started"
            .to_string()
    })?;

    let args = ward_sandbox::command_line(
        &policy,
        Path::new(SHELL),
        &[OsString::from("-c"), OsString::from(&req.command)],
    );
    let mut cmd = Command::new(helper);
    cmd.args(args)
        .current_dir(&workdir)
        .env_clear()
        .stdin(if req.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    match &scratch {
        None => {
            for name in COMMAND_ENV {
                if let Ok(v) = std::env::var(name) {
                    cmd.env(name, v);
                }
            }
        }
        Some(dir) => {
            cmd.env("PATH", PLUGIN_PATH)
                .env("HOME", &dir.0)
                .env("TMPDIR", &dir.0)
                .env("LANG", "C.UTF-8");
        }
    }
    for name in &env.caps.env {
        if let Ok(v) = std::env::var(name) {
            cmd.env(name, v);
        }
    }
    for (k, v) in &req.env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    cmd.process_group(0);

    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run `{}` in {}: {e}", req.command, workdir.display()))?;
    if let (Some(input), Some(mut stdin)) = (&req.stdin, child.stdin.take()) {
        let input = input.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(input.as_bytes()).await;
        });
    }
    let mut group = GroupKill(child.id());
    let cap = env.limits.output_bytes;
    let out = tokio::spawn(read_tail(child.stdout.take(), cap));
    let err = tokio::spawn(read_tail(child.stderr.take(), cap));

    let asked = Duration::from_millis(u64::from(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)));
    let until = (Instant::now() + asked).min(env.deadline);
    let remaining = until.saturating_duration_since(Instant::now());
    let (exit_code, timed_out) = match tokio::time::timeout(remaining, child.wait()).await {
        Ok(Ok(status)) => {
            // Reaped: the helper's PID namespace took every descendant with it, and the
            // group id may now be reused by an unrelated process, so never signal it.
            group.0 = None;
            (status.code(), false)
        }
        Ok(Err(e)) => return Err(format!("waiting for `{}`: {e}", req.command)),
        Err(_) => {
            // Not reaped yet, so the group id is still the helper's.
            group.kill();
            let _ = child.wait().await;
            (None, true)
        }
    };
    // The pipes close when the last process holding them dies; never wait past the
    // deadline for that.
    let grace = until
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let (stdout, t1) = collect(out, grace).await;
    let (mut stderr, t2) = collect(err, grace).await;
    for created in missing.iter().flat_map(MissingConfig::remove_created) {
        stderr.push_str(&format!(
            "\nward: removed {}, which the command created: Ward's configuration cannot be changed from a sandboxed command\n",
            created.display()
        ));
    }
    if let Some(code) = exit_code.filter(|c| *c == ward_sandbox::CONFINE_FAILED) {
        // The helper reports why it could not confine the command on stderr.
        if stdout.is_empty() && stderr.starts_with("ward sandbox:") {
            return Err(format!(
                "`{}` was not run: {} (exit {code})",
                req.command,
                stderr.trim_end()
            ));
        }
    }
    Ok(ExecOutput {
        exit_code,
        stdout,
        stderr,
        timed_out,
        truncated: t1 || t2,
    })
}

/// The policy for this call's process.
fn policy_for(env: &CallEnv, confinement: Confinement, scratch: Option<&Path>) -> Policy {
    let settings = &env.sandbox;
    let project = &env.scope.project;
    match confinement {
        Confinement::Commands { unsandboxed: true } => Policy::unconfined(),
        Confinement::Commands { unsandboxed: false } => Policy::for_commands(
            settings.mode,
            project,
            &std::env::temp_dir(),
            &settings.writable,
            &settings.protected_for(&env.protected, project, confinement),
            &settings.hidden,
            settings.network || settings.mode == Mode::Full,
        ),
        Confinement::Plugin => {
            let mut write = env.caps.fs_write.clone();
            write.extend(scratch.map(Path::to_path_buf));
            Policy::for_plugin(
                &env.caps.fs_read,
                &write,
                &settings.protected_for(&env.protected, project, confinement),
                !env.caps.net.is_empty(),
            )
        }
    }
}

/// A private temporary directory for one plugin process, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ward-exec-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Kills the child's process group when dropped or asked: an aborted session drops the
/// call mid-`wait`, and `kill_on_drop` alone would leave the helper's group running.
struct GroupKill(Option<u32>);

impl GroupKill {
    fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.0.take() {
            // Only called while the helper, the group's leader, is not reaped.
            // SAFETY: kill(2) with a negative pid has no memory-safety preconditions.
            unsafe {
                libc::kill(-(pid as i32), libc::SIGKILL);
            }
        }
    }
}

impl Drop for GroupKill {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits at most `grace` for a pipe reader, giving up (empty) after that.
async fn collect(
    reader: tokio::task::JoinHandle<(String, bool)>,
    grace: Duration,
) -> (String, bool) {
    let abort = reader.abort_handle();
    match tokio::time::timeout(grace, reader).await {
        Ok(joined) => joined.unwrap_or_default(),
        Err(_) => {
            abort.abort();
            (String::new(), true)
        }
    }
}

/// Reads a pipe to the end, keeping at most `cap` bytes from the tail.
async fn read_tail<R: AsyncRead + Unpin>(pipe: Option<R>, cap: usize) -> (String, bool) {
    let Some(mut pipe) = pipe else {
        return (String::new(), false);
    };
    let mut kept: Vec<u8> = Vec::new();
    let mut truncated = false;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > cap.saturating_mul(2) {
                    let cut = kept.len() - cap;
                    kept.drain(..cut);
                    truncated = true;
                }
            }
        }
    }
    if kept.len() > cap {
        let cut = kept.len() - cap;
        kept.drain(..cut);
        truncated = true;
    }
    (String::from_utf8_lossy(&kept).into_owned(), truncated)
}
