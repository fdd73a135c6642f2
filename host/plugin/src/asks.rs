//! Which questions a plugin may put to the user through the `ask` import.
//!
//! A question is a request for the user's trust, so a plugin may only ask about what
//! is its own: its own tools (or a key namespaced `<plugin>:…`), and the standard
//! permissions its granted capabilities already reach — `read`-like keys with a
//! filesystem grant, `edit`-like keys with `fs-write`, `bash` for commands its `exec`
//! grant covers, `webfetch` for URLs its `net` grant covers. Every other standard key
//! (`external_directory`, `task`, `skill`, …) is the host's to ask. Without this a
//! plugin with no capabilities could ask about `bash *`, and one "always" would let
//! every shell command run.

use url::Url;

use crate::host_error::HostError;
use ward_grants::Effective;

/// The permission keys of the host and the standard tools: a plugin may use one only
/// as far as its capabilities reach ([`may_ask`]), even if it names a tool so.
const RESERVED: &[&str] = &[
    "read",
    "glob",
    "grep",
    "list",
    "edit",
    "write",
    "apply_patch",
    "bash",
    "webfetch",
    "todowrite",
    "todoread",
    "task",
    "skill",
    "doom_loop",
    "external_directory",
    "invalid",
];

/// A question a plugin may not put: the permission is neither its own nor within
/// what its capabilities reach.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "plugin `{plugin}` may not ask about `{permission}`: a plugin may only ask about its \
     own tools (or `{plugin}:…` keys) and what its granted capabilities cover"
)]
pub(crate) struct AskRefused {
    /// The plugin.
    pub(crate) plugin: String,
    /// The permission key it asked about.
    pub(crate) permission: String,
}

impl From<AskRefused> for HostError {
    /// A question out of the plugin's reach is refused, as a missing grant is.
    fn from(e: AskRefused) -> Self {
        HostError::Denied(e.to_string())
    }
}

/// Whether `plugin` — granted `caps`, declaring the tools `tools` — may ask the user
/// about `permission` for `patterns`. The error names the plugin and the permission.
pub(crate) fn may_ask(
    plugin: &str,
    caps: &Effective,
    tools: &[String],
    permission: &str,
    patterns: &[String],
) -> Result<(), AskRefused> {
    let allowed = match permission {
        "read" | "glob" | "grep" | "list" => !caps.fs_read.is_empty() || !caps.fs_write.is_empty(),
        "edit" | "write" | "apply_patch" => !caps.fs_write.is_empty(),
        // An empty list is checked as `*` by the engine, so it must be covered as `*`.
        "bash" => covered(patterns, |p| caps.allows_exec(p)),
        "webfetch" => covered(patterns, |p| url_granted(caps, p)),
        key if RESERVED.contains(&key) => false,
        key => {
            tools.iter().any(|t| t == key)
                || key
                    .strip_prefix(plugin)
                    .and_then(|rest| rest.strip_prefix(':'))
                    .is_some_and(|rest| !rest.is_empty())
        }
    };
    if allowed {
        return Ok(());
    }
    Err(AskRefused {
        plugin: plugin.to_string(),
        permission: permission.to_string(),
    })
}

/// Whether every one of `patterns` (`*` when there are none) passes `granted`.
fn covered(patterns: &[String], granted: impl Fn(&str) -> bool) -> bool {
    if patterns.is_empty() {
        return granted("*");
    }
    patterns.iter().all(|p| granted(p))
}

/// Whether `pattern` is an http(s) URL whose host the `net` grant covers.
fn url_granted(caps: &Effective, pattern: &str) -> bool {
    let Ok(url) = Url::parse(pattern) else {
        return false;
    };
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return false;
    }
    let Some(host) = url.host_str().map(|h| h.trim_matches(['[', ']'])) else {
        return false;
    };
    let port = url.port_or_known_default().unwrap_or(80);
    caps.allows_net(scheme, host, port)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_plugin_without_capabilities_asks_only_about_its_own_tools() {
        let none = Effective::default();
        let tools = strings(&["deploy"]);
        let ask =
            |perm: &str, pats: &[&str]| may_ask("forger", &none, &tools, perm, &strings(pats));
        assert!(ask("deploy", &["*"]).is_ok());
        assert!(ask("forger:release", &["prod"]).is_ok());
        for (perm, pats) in [
            ("bash", &["*"][..]),
            ("bash", &[][..]),
            ("edit", &["src/*"]),
            ("read", &["*"]),
            ("webfetch", &["https://example.com/"]),
            ("external_directory", &["/etc/*"]),
            ("noop", &["*"]),
            ("forger:", &["*"]),
            ("forgery:x", &["*"]),
        ] {
            let err = ask(perm, pats).expect_err(perm);
            assert_eq!(
                err,
                AskRefused {
                    plugin: "forger".into(),
                    permission: perm.into(),
                }
            );
            let text = err.to_string();
            assert!(
                text.starts_with(&format!("plugin `forger` may not ask about `{perm}`:")),
                "{text}"
            );
        }
    }

    #[test]
    fn capability_keys_reach_as_far_as_the_grant() {
        let caps = Effective {
            fs_write: vec![PathBuf::from("/p")],
            exec: strings(&["git *"]),
            exec_ceiling: strings(&["git *"]),
            net: strings(&["https://api.example.com"]),
            net_ceiling: strings(&["https://api.example.com"]),
            ..Effective::default()
        };
        let ask = |perm: &str, pats: &[&str]| may_ask("p", &caps, &[], perm, &strings(pats));
        assert!(ask("edit", &["src/a.rs"]).is_ok());
        assert!(ask("read", &["*"]).is_ok());
        assert!(ask("bash", &["git status"]).is_ok());
        assert!(ask("bash", &["git status", "rm -rf /"]).is_err());
        assert!(ask("bash", &["*"]).is_err());
        assert!(ask("bash", &[]).is_err());
        assert!(ask("webfetch", &["https://api.example.com/v1"]).is_ok());
        assert!(ask("webfetch", &["https://evil.test/"]).is_err());
        assert!(ask("webfetch", &["*"]).is_err());
    }
}
