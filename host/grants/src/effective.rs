//! Effective capabilities: what a plugin's manifest asks for (the ceiling) intersected
//! with what a person granted.
//!
//! A grant is a string from config or the install lock: a bare capability (`fs-read`,
//! `fs-write`, `net`, `exec`, `env`, `hooks`, or `all`) grants that whole part of the
//! ceiling; `fs-read:PATH`, `net:HOST`, `exec:PATTERN`, `env:NAME`, `hooks:TOOL-GLOB`
//! grant one item, and only if the ceiling covers it. Only people grant: nothing a
//! plugin or a model says reaches here.

use std::path::{Path, PathBuf};

use ward_config::{HookCaps, HookMode};
use ward_permission::wildcard;

/// What the manifest asks for, with `$WORKSPACE` and `~` resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ceiling {
    /// Directories readable.
    pub fs_read: Vec<PathBuf>,
    /// Directories writable (and readable).
    pub fs_write: Vec<PathBuf>,
    /// Hosts reachable: `scheme://host[:port]`, `host`, `*.domain` or `*`.
    pub net: Vec<String>,
    /// Command patterns, e.g. `git *`.
    pub exec: Vec<String>,
    /// Environment variable names.
    pub env: Vec<String>,
    /// Which tool calls its hooks may see and whether they may change them.
    pub hooks: Option<HookCaps>,
}

/// The hook rights a plugin actually has: the tools whose calls its hooks receive and
/// whether it may rewrite or block anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookGrant {
    /// Tool-name globs granted; a tool must match one of these *and* of `tools_ceiling`.
    pub tools: Vec<String>,
    /// The manifest's tool-name globs.
    pub tools_ceiling: Vec<String>,
    /// Observe only, or mutate; always the manifest's mode.
    pub mode: HookMode,
}

impl HookGrant {
    /// Whether the hooks may see calls of `tool`.
    pub fn covers(&self, tool: &str) -> bool {
        let m = |pats: &[String]| pats.iter().any(|p| wildcard::matches(p, tool));
        m(&self.tools) && m(&self.tools_ceiling)
    }

    /// Whether the hooks may rewrite, block or answer (not just observe).
    pub fn may_mutate(&self) -> bool {
        self.mode == HookMode::Mutate
    }
}

/// The rights a plugin actually has for one project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effective {
    /// Directories preopened read-only.
    pub fs_read: Vec<PathBuf>,
    /// Directories preopened read-write.
    pub fs_write: Vec<PathBuf>,
    /// Network targets; a URL must match one of these *and* one of `net_ceiling`.
    pub net: Vec<String>,
    /// Command patterns; a command must match one of these *and* of `exec_ceiling`.
    pub exec: Vec<String>,
    /// The manifest's network ceiling.
    pub net_ceiling: Vec<String>,
    /// The manifest's command ceiling.
    pub exec_ceiling: Vec<String>,
    /// Environment variables passed through.
    pub env: Vec<String>,
    /// Hook rights; `None` when `hooks` was not granted, and then no hook is called.
    pub hooks: Option<HookGrant>,
}

/// A grant that was ignored, with the reason (shown by `ward plugin list`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredGrant {
    /// The grant as written.
    pub grant: String,
    /// Why it was ignored.
    pub reason: GrantRefused,
}

/// Why a grant was ignored: it reaches past what the manifest asks for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GrantRefused {
    /// A path outside every directory of the manifest's ceiling.
    #[error("`{}` is outside what the manifest asks for", .0.display())]
    OutsidePath(PathBuf),
    /// A capability (or an item of one) the manifest does not ask for.
    #[error("the manifest does not ask for `{0}`")]
    NotAsked(String),
    /// Not a capability at all.
    #[error("unknown capability `{0}` (expected fs-read, fs-write, net, exec, env, hooks or all)")]
    UnknownCapability(String),
}

impl Ceiling {
    /// Resolves the manifest's capability lists against `project`.
    pub fn resolve(caps: &ward_config::manifest::Capabilities, project: &Path) -> Ceiling {
        let paths = |list: &[String]| list.iter().map(|p| resolve_path(p, project)).collect();
        Ceiling {
            fs_read: paths(&caps.fs_read),
            fs_write: paths(&caps.fs_write),
            net: caps.net.clone(),
            exec: caps.exec.clone(),
            env: caps.env.clone(),
            hooks: caps.hooks.clone(),
        }
    }

    /// Intersects this ceiling with `grants`.
    pub fn grant(&self, grants: &[String], project: &Path) -> (Effective, Vec<IgnoredGrant>) {
        let mut eff = Effective {
            net_ceiling: self.net.clone(),
            exec_ceiling: self.exec.clone(),
            ..Effective::default()
        };
        let mut ignored = Vec::new();
        for grant in grants {
            let (kind, item) = match grant.split_once(':') {
                Some((k, i)) => (k.trim(), Some(i.trim())),
                None => (grant.trim(), None),
            };
            let outcome = match kind {
                "all" if item.is_none() => {
                    eff.fs_read.extend(self.fs_read.iter().cloned());
                    eff.fs_write.extend(self.fs_write.iter().cloned());
                    eff.net.extend(self.net.iter().cloned());
                    eff.exec.extend(self.exec.iter().cloned());
                    eff.env.extend(self.env.iter().cloned());
                    // `all` covers hooks only when the manifest asks for them.
                    match &self.hooks {
                        Some(h) => grant_hooks(Some(h), None, &mut eff.hooks),
                        None => Ok(()),
                    }
                }
                "fs-read" => grant_paths(&self.fs_read, item, project, &mut eff.fs_read),
                "fs-write" => grant_paths(&self.fs_write, item, project, &mut eff.fs_write),
                "net" => grant_items(&self.net, item, &mut eff.net),
                "exec" => grant_items(&self.exec, item, &mut eff.exec),
                "env" => grant_env(&self.env, item, &mut eff.env),
                "hooks" => grant_hooks(self.hooks.as_ref(), item, &mut eff.hooks),
                _ => Err(GrantRefused::UnknownCapability(kind.to_string())),
            };
            if let Err(reason) = outcome {
                ignored.push(IgnoredGrant {
                    grant: grant.clone(),
                    reason,
                });
            }
        }
        for list in [&mut eff.fs_read, &mut eff.fs_write] {
            list.sort();
            list.dedup();
        }
        (eff, ignored)
    }
}

impl Effective {
    /// Whether `command` (one sub-command) is within both the grant and the ceiling.
    pub fn allows_exec(&self, command: &str) -> bool {
        let m = |pats: &[String]| pats.iter().any(|p| wildcard::matches(p, command));
        m(&self.exec) && m(&self.exec_ceiling)
    }

    /// Whether a request to `scheme://host:port` is within both the grant and the ceiling.
    pub fn allows_net(&self, scheme: &str, host: &str, port: u16) -> bool {
        let m = |pats: &[String]| pats.iter().any(|p| net_matches(p, scheme, host, port));
        m(&self.net) && m(&self.net_ceiling)
    }

    /// Whether the grant names `host` explicitly (not through `*`), which is what it
    /// takes to reach a loopback or private address.
    pub fn names_host_explicitly(&self, host: &str) -> bool {
        self.net.iter().any(|p| {
            let h = p.split_once("://").map_or(p.as_str(), |(_, rest)| rest);
            let h = h.split(['/', ':']).next().unwrap_or("");
            h.trim_end_matches('.')
                .eq_ignore_ascii_case(host.trim_end_matches('.'))
        })
    }
}

/// Matches a `net` pattern (`*`, `host`, `*.domain`, `scheme://host[:port]`).
pub fn net_matches(pattern: &str, scheme: &str, host: &str, port: u16) -> bool {
    if pattern == "*" {
        return true;
    }
    let (pat_scheme, rest) = match pattern.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, pattern),
    };
    let rest = rest.trim_end_matches('/');
    let (pat_host, pat_port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, p.parse::<u16>().ok()),
        None => (rest, None),
    };
    if pat_scheme.is_some_and(|s| !s.eq_ignore_ascii_case(scheme)) {
        return false;
    }
    if pat_port.is_some_and(|p| p != port) {
        return false;
    }
    // Hosts are compared as `http-fetch` normalises them: lower case, no trailing dot.
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let pat_host = pat_host.trim_end_matches('.').to_ascii_lowercase();
    match pat_host.strip_prefix("*.") {
        Some(domain) => host.ends_with(&format!(".{domain}")),
        None => pat_host == "*" || pat_host == host,
    }
}

fn resolve_path(raw: &str, project: &Path) -> PathBuf {
    let expanded = if let Some(rest) = raw.strip_prefix("$WORKSPACE") {
        format!("{}{rest}", project.display())
    } else {
        wildcard::expand_home(raw)
    };
    let path = PathBuf::from(expanded);
    let path = if path.is_absolute() {
        path
    } else {
        project.join(path)
    };
    ward_permission::path::normalize(&path)
}

fn grant_paths(
    ceiling: &[PathBuf],
    item: Option<&str>,
    project: &Path,
    out: &mut Vec<PathBuf>,
) -> Result<(), GrantRefused> {
    match item {
        None => {
            out.extend(ceiling.iter().cloned());
            Ok(())
        }
        Some(raw) => {
            let path = resolve_path(raw, project);
            if ceiling.iter().any(|c| path.starts_with(c)) {
                out.push(path);
                Ok(())
            } else {
                Err(GrantRefused::OutsidePath(path))
            }
        }
    }
}

fn grant_items(
    ceiling: &[String],
    item: Option<&str>,
    out: &mut Vec<String>,
) -> Result<(), GrantRefused> {
    match item {
        None => {
            out.extend(ceiling.iter().cloned());
            Ok(())
        }
        Some(i) if ceiling.is_empty() => Err(GrantRefused::NotAsked(i.to_string())),
        // Whether `i` falls within the ceiling is checked per request: both must match.
        Some(i) => {
            out.push(i.to_string());
            Ok(())
        }
    }
}

fn grant_env(
    ceiling: &[String],
    item: Option<&str>,
    out: &mut Vec<String>,
) -> Result<(), GrantRefused> {
    match item {
        None => {
            out.extend(ceiling.iter().cloned());
            Ok(())
        }
        Some(name) if ceiling.iter().any(|c| c == name) => {
            out.push(name.to_string());
            Ok(())
        }
        Some(name) => Err(GrantRefused::NotAsked(name.to_string())),
    }
}

fn grant_hooks(
    ceiling: Option<&HookCaps>,
    item: Option<&str>,
    out: &mut Option<HookGrant>,
) -> Result<(), GrantRefused> {
    let Some(ceiling) = ceiling else {
        return Err(GrantRefused::NotAsked("hooks".to_string()));
    };
    let grant = out.get_or_insert_with(|| HookGrant {
        tools: Vec::new(),
        tools_ceiling: ceiling.tools.clone(),
        mode: ceiling.mode,
    });
    match item {
        None => grant.tools.extend(ceiling.tools.iter().cloned()),
        // Whether the glob falls within the ceiling is checked per call: both must match.
        Some(glob) => grant.tools.push(glob.to_string()),
    }
    grant.tools.dedup();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ceiling() -> Ceiling {
        Ceiling {
            fs_read: vec![PathBuf::from("/p")],
            fs_write: vec![PathBuf::from("/p/out")],
            net: vec!["https://*.example.com".into(), "api.test".into()],
            exec: vec!["git *".into()],
            env: vec!["TOKEN".into()],
            hooks: None,
        }
    }

    #[test]
    fn nothing_granted_means_nothing() {
        let (eff, ignored) = ceiling().grant(&[], Path::new("/p"));
        assert_eq!(eff.fs_read, Vec::<PathBuf>::new());
        assert!(!eff.allows_exec("git status"));
        assert!(!eff.allows_net("https", "a.example.com", 443));
        assert!(ignored.is_empty());
    }

    #[test]
    fn grants_are_cut_to_the_ceiling() {
        let grants = [
            "fs-read:/p/src".to_string(),
            "fs-read:/etc".to_string(),
            "exec:*".to_string(),
            "env:HOME".to_string(),
            "net".to_string(),
            "sockets".to_string(),
        ];
        let (eff, ignored) = ceiling().grant(&grants, Path::new("/p"));
        assert_eq!(eff.fs_read, vec![PathBuf::from("/p/src")]);
        // `exec:*` is granted, but the ceiling still limits it to `git *`.
        assert!(eff.allows_exec("git log"));
        assert!(!eff.allows_exec("rm -rf /"));
        assert!(eff.env.is_empty());
        assert!(eff.allows_net("https", "a.example.com", 443));
        assert!(!eff.allows_net("http", "a.example.com", 80));
        assert!(!eff.allows_net("https", "example.com.evil", 443));
        let names: Vec<_> = ignored.iter().map(|i| i.grant.as_str()).collect();
        assert_eq!(names, ["fs-read:/etc", "env:HOME", "sockets"]);
        let reasons: Vec<_> = ignored.iter().map(|i| i.reason.clone()).collect();
        assert_eq!(
            reasons,
            [
                GrantRefused::OutsidePath(PathBuf::from("/etc")),
                GrantRefused::NotAsked("HOME".into()),
                GrantRefused::UnknownCapability("sockets".into()),
            ]
        );
    }

    #[test]
    fn net_patterns() {
        assert!(net_matches(
            "http://127.0.0.1:8080",
            "http",
            "127.0.0.1",
            8080
        ));
        assert!(!net_matches(
            "http://127.0.0.1:8080",
            "http",
            "127.0.0.1",
            8081
        ));
        assert!(net_matches("*.a.org", "https", "x.a.org", 443));
        assert!(!net_matches("*.a.org", "https", "a.org.evil.net", 443));
        assert!(net_matches("*", "https", "anything", 1));
    }

    #[test]
    fn hooks_are_granted_within_the_ceiling() {
        let mut c = ceiling();
        let (eff, _) = c.grant(&["all".to_string()], Path::new("/p"));
        assert_eq!(eff.hooks, None, "no hooks asked for, none granted");
        let (_, ignored) = c.grant(&["hooks".to_string()], Path::new("/p"));
        assert_eq!(ignored.len(), 1);
        assert_eq!(ignored[0].reason, GrantRefused::NotAsked("hooks".into()));

        c.hooks = Some(HookCaps {
            tools: vec!["bash".into(), "edit".into()],
            mode: HookMode::Mutate,
        });
        let (eff, _) = c.grant(&[], Path::new("/p"));
        assert_eq!(eff.hooks, None, "not granted, not called");
        let (eff, _) = c.grant(&["hooks".to_string()], Path::new("/p"));
        let hooks = eff.hooks.expect("granted");
        assert!(hooks.covers("bash") && hooks.covers("edit") && !hooks.covers("read"));
        assert!(hooks.may_mutate());
        // A narrower grant narrows; a wider one is still cut to the ceiling.
        let (eff, _) = c.grant(
            &["hooks:bash".to_string(), "hooks:r*".to_string()],
            Path::new("/p"),
        );
        let hooks = eff.hooks.expect("granted");
        assert!(hooks.covers("bash") && !hooks.covers("edit") && !hooks.covers("read"));
        let (eff, _) = c.grant(&["all".to_string()], Path::new("/p"));
        assert!(eff.hooks.expect("all includes hooks").covers("edit"));
    }
}
