//! What to do with a tool name the model got wrong: a case-insensitive match is
//! repaired (`Read` → `read`); anything else goes to the `invalid` tool, whose result
//! tells the model which tools exist so it can try again.

/// The outcome of resolving a tool name.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// The name exists as given.
    Exact(&'a str),
    /// The name exists in another case.
    Repaired(&'a str),
    /// No such tool: the message for the model.
    Invalid(String),
}

/// Resolves `name` against the tools on offer.
pub fn resolve<'a>(name: &str, available: &'a [String]) -> Resolved<'a> {
    if let Some(t) = available.iter().find(|t| t.as_str() == name) {
        return Resolved::Exact(t);
    }
    if let Some(t) = available.iter().find(|t| t.eq_ignore_ascii_case(name)) {
        return Resolved::Repaired(t);
    }
    let mut names: Vec<&str> = available.iter().map(String::as_str).collect();
    names.sort_unstable();
    Resolved::Invalid(format!(
        "Model tried to call unavailable tool '{name}'. Available tools: {}.",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<String> {
        ["read", "write", "bash"].map(String::from).to_vec()
    }

    #[test]
    fn exact_repaired_and_invalid() {
        let t = tools();
        assert_eq!(resolve("read", &t), Resolved::Exact("read"));
        assert_eq!(resolve("Bash", &t), Resolved::Repaired("bash"));
        assert_eq!(
            resolve("delete", &t),
            Resolved::Invalid(
                "Model tried to call unavailable tool 'delete'. Available tools: bash, read, write."
                    .into()
            )
        );
    }
}
