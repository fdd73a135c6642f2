//! Which permission a tool call needs before it runs, derived from its arguments:
//! `read`/`glob`/`grep`/`list` read paths, `write`/`edit`/`apply_patch` need `edit` on the
//! files they touch, a path outside the project needs `external_directory`, and any other
//! tool needs its own name. `bash` and `webfetch` are checked where they act (the `exec`
//! and `http-fetch` imports), per sub-command and per redirect.

use std::path::{Path, PathBuf};

use serde_json::Value;
use ward_permission::path::{is_external, normalize, relative_pattern};

/// One permission a call needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// The permission key.
    pub permission: String,
    /// The patterns checked.
    pub patterns: Vec<String>,
    /// What "always" would allow.
    pub always: Vec<String>,
}

/// The permissions `tool` called with `args` needs in `project`.
pub fn needs(tool: &str, args: &Value, project: &Path) -> Vec<Need> {
    let path_arg = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .map(|p| resolve(p, project))
    };
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = Vec::new();
    match tool {
        "bash" | "webfetch" => return out,
        "read" | "list" | "glob" | "grep" => {
            let key = if tool == "read" { "filePath" } else { "path" };
            let path = path_arg(key).unwrap_or_else(|| project.to_path_buf());
            let pattern = match tool {
                "read" | "list" => relative_pattern(&path, project),
                _ => args
                    .get("pattern")
                    .and_then(Value::as_str)
                    .unwrap_or("*")
                    .to_string(),
            };
            out.push(Need {
                permission: tool.to_string(),
                patterns: vec![pattern],
                always: vec!["*".to_string()],
            });
            paths.push(path);
        }
        "write" | "edit" => {
            if let Some(path) = path_arg("filePath") {
                let rel = relative_pattern(&path, project);
                out.push(Need {
                    permission: "edit".to_string(),
                    patterns: vec![rel.clone()],
                    always: vec![rel],
                });
                paths.push(path);
            }
        }
        "apply_patch" => {
            let text = args.get("patchText").and_then(Value::as_str).unwrap_or("");
            let files: Vec<PathBuf> = patch_paths(text).map(|p| resolve(p, project)).collect();
            let rels: Vec<String> = files.iter().map(|p| relative_pattern(p, project)).collect();
            out.push(Need {
                permission: "edit".to_string(),
                patterns: if rels.is_empty() {
                    vec!["*".to_string()]
                } else {
                    rels.clone()
                },
                always: rels,
            });
            paths.extend(files);
        }
        other => out.push(Need {
            permission: other.to_string(),
            patterns: vec!["*".to_string()],
            always: vec!["*".to_string()],
        }),
    }
    // File tools name a file: ask for its directory. Directory tools name a directory.
    let names_file = matches!(tool, "read" | "write" | "edit" | "apply_patch");
    let mut external: Vec<String> = paths
        .iter()
        .filter(|p| is_external(p, project, &[std::env::temp_dir()]))
        .map(|p| {
            let dir = if names_file {
                p.parent().unwrap_or(p)
            } else {
                p
            };
            format!("{}/*", dir.display())
        })
        .collect();
    external.dedup();
    if !external.is_empty() {
        out.insert(
            0,
            Need {
                permission: "external_directory".to_string(),
                patterns: external.clone(),
                always: external,
            },
        );
    }
    out
}

fn resolve(p: &str, project: &Path) -> PathBuf {
    let path = Path::new(p);
    normalize(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        project.join(path)
    })
}

fn patch_paths(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|prefix| l.strip_prefix(prefix))
        .map(str::trim)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edits_need_edit_on_the_relative_path() {
        let n = needs("write", &json!({"filePath": "src/a.rs"}), Path::new("/p"));
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].permission, "edit");
        assert_eq!(n[0].patterns, ["src/a.rs"]);
    }

    #[test]
    fn outside_the_project_needs_external_directory() {
        let n = needs("read", &json!({"filePath": "/etc/passwd"}), Path::new("/p"));
        assert_eq!(n[0].permission, "external_directory");
        assert_eq!(n[0].patterns, ["/etc/*"]);
        assert_eq!(n[1].permission, "read");
        let n = needs(
            "read",
            &json!({"filePath": "../x/y.txt"}),
            Path::new("/p/q"),
        );
        assert_eq!(n[0].patterns, ["/p/x/*"]);
    }

    #[test]
    fn patches_list_every_file() {
        let patch =
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b/c.rs\n*** End Patch";
        let n = needs("apply_patch", &json!({"patchText": patch}), Path::new("/p"));
        assert_eq!(n[0].patterns, ["a.txt", "b/c.rs"]);
    }

    #[test]
    fn other_tools_need_their_name() {
        let n = needs("my_tool", &json!({}), Path::new("/p"));
        assert_eq!(n[0].permission, "my_tool");
        assert!(needs("bash", &json!({"command": "ls"}), Path::new("/p")).is_empty());
    }
}
