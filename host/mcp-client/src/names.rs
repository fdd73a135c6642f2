//! The names MCP tools get in Ward: `SERVER_TOOL`, each part with every character but
//! ASCII letters, digits, `_` and `-` replaced by `_`, as OpenCode spells them (so
//! permission rules written for OpenCode, `"github_*" = "ask"`, work unchanged).

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name the model sees for `tool` of `server`.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("{}_{}", sanitize(server), sanitize(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_namespaced_and_sanitized() {
        assert_eq!(tool_name("everything", "echo"), "everything_echo");
        assert_eq!(tool_name("my server", "get.sum/2"), "my_server_get_sum_2");
        assert_eq!(tool_name("fs", "read-file"), "fs_read-file");
        assert_eq!(sanitize("é"), "_");
    }
}
