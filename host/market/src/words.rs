//! What a package asks for, as grant strings and in plain words for the person
//! deciding: "read files in your project", "connect to https://api.example.com",
//! "run commands matching `git *`", "read the environment variable GITHUB_TOKEN".

use ward_config::{Capabilities, Capability, Grant, HookMode};

/// One requested capability item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requested {
    /// The grant that allows exactly this item, e.g. `net:https://api.example.com`.
    pub grant: Grant,
    /// The item in plain words.
    pub words: String,
}

/// Every item a manifest's `[capabilities]` asks for, in documented order.
pub fn requested(caps: &Capabilities) -> Vec<Requested> {
    let mut out = Vec::new();
    let mut push = |capability: Capability, scope: Option<String>, words: String| {
        out.push(Requested {
            grant: Grant { capability, scope },
            words,
        });
    };
    for (capability, list) in [
        (Capability::FsRead, &caps.fs_read),
        (Capability::FsWrite, &caps.fs_write),
        (Capability::Net, &caps.net),
        (Capability::Exec, &caps.exec),
        (Capability::Env, &caps.env),
    ] {
        for item in list {
            let grant = Grant {
                capability,
                scope: Some(item.clone()),
            };
            push(capability, Some(item.clone()), describe(&grant));
        }
    }
    if let Some(hooks) = &caps.hooks {
        let tools = if hooks.tools.iter().any(|t| t == "*") {
            "every tool".to_owned()
        } else {
            format!("the tools {}", hooks.tools.join(", "))
        };
        let words = match hooks.mode {
            HookMode::Observe => format!("see the calls of {tools}"),
            HookMode::Mutate => format!("see, change or block the calls of {tools}"),
        };
        push(Capability::Hooks, None, words);
    }
    out
}

/// A grant in plain words.
pub fn describe(grant: &Grant) -> String {
    let scope = grant.scope.as_deref();
    match (grant.capability, scope) {
        (Capability::FsRead, Some(path)) => format!("read files in {}", place(path)),
        (Capability::FsRead, None) => "read files wherever its manifest asks".to_owned(),
        (Capability::FsWrite, Some(path)) => {
            format!("read and write files in {}", place(path))
        }
        (Capability::FsWrite, None) => "write files wherever its manifest asks".to_owned(),
        (Capability::Net, Some("*")) => "connect to any host on the internet".to_owned(),
        (Capability::Net, Some(host)) => format!("connect to {host}"),
        (Capability::Net, None) => "connect to the hosts its manifest names".to_owned(),
        (Capability::Exec, Some(pattern)) => format!("run commands matching `{pattern}`"),
        (Capability::Exec, None) => "run the commands its manifest names".to_owned(),
        (Capability::Env, Some(name)) => format!("read the environment variable {name}"),
        (Capability::Env, None) => "read the environment variables its manifest names".to_owned(),
        (Capability::Hooks, Some(tools)) => format!("see the calls of tools matching `{tools}`"),
        (Capability::Hooks, None) => {
            "see (and, if its manifest says so, change) tool calls".to_owned()
        }
    }
}

/// `$WORKSPACE` → "your project", `$WORKSPACE/docs` → "docs/ in your project".
fn place(path: &str) -> String {
    match path.strip_prefix("$WORKSPACE") {
        Some("") | Some("/") => "your project".to_owned(),
        Some(rest) if rest.starts_with('/') => {
            format!("{}/ in your project", rest.trim_matches('/'))
        }
        _ => path.to_owned(),
    }
}

/// Whether `grant` allows the requested `item`: same capability, and no scope,
/// the same scope, or (for paths) a directory containing it.
pub fn covers(grant: &Grant, item: &Grant) -> bool {
    if grant.capability != item.capability {
        return false;
    }
    match (&grant.scope, &item.scope) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(g), Some(i)) => {
            g == i
                || (matches!(grant.capability, Capability::FsRead | Capability::FsWrite)
                    && i.starts_with(&format!("{}/", g.trim_end_matches('/'))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ward_config::HookCaps;

    fn g(text: &str) -> Grant {
        text.parse().unwrap()
    }

    #[test]
    fn requests_read_as_plain_words() {
        let caps = Capabilities {
            fs_read: vec!["$WORKSPACE".into()],
            fs_write: vec!["$WORKSPACE/out".into()],
            net: vec!["https://api.example.com".into()],
            exec: vec!["git *".into()],
            env: vec!["GITHUB_TOKEN".into()],
            hooks: Some(HookCaps {
                tools: vec!["bash".into()],
                mode: HookMode::Mutate,
            }),
        };
        let words: Vec<(String, String)> = requested(&caps)
            .into_iter()
            .map(|r| (r.grant.to_string(), r.words))
            .collect();
        let expect = [
            ("fs-read:$WORKSPACE", "read files in your project"),
            (
                "fs-write:$WORKSPACE/out",
                "read and write files in out/ in your project",
            ),
            (
                "net:https://api.example.com",
                "connect to https://api.example.com",
            ),
            ("exec:git *", "run commands matching `git *`"),
            (
                "env:GITHUB_TOKEN",
                "read the environment variable GITHUB_TOKEN",
            ),
            ("hooks", "see, change or block the calls of the tools bash"),
        ];
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(words, expect);
    }

    #[test]
    fn coverage() {
        assert!(covers(&g("fs-read"), &g("fs-read:$WORKSPACE")));
        assert!(covers(
            &g("fs-read:$WORKSPACE"),
            &g("fs-read:$WORKSPACE/docs")
        ));
        assert!(!covers(
            &g("fs-read:$WORKSPACE/docs"),
            &g("fs-read:$WORKSPACE")
        ));
        assert!(!covers(
            &g("fs-read:$WORKSPACE/doc"),
            &g("fs-read:$WORKSPACE/docs")
        ));
        assert!(covers(&g("net:https://a.com"), &g("net:https://a.com")));
        assert!(!covers(&g("net:https://a.com"), &g("net:https://b.com")));
        assert!(!covers(&g("env:A"), &g("net:A")));
        assert!(!covers(&g("env:A"), &g("env")));
    }
}
