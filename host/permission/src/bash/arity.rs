//! The "always" pattern for a bash command: its prefix by arity.
//!
//! Owns the table of how many leading words identify what a command does
//! (`git checkout` but just `ls`), so approving `git checkout main` "always" stores
//! `git checkout *` rather than every git command or only that exact one.

/// Command prefixes and how many words (including the prefix's own) identify an
/// action. The longest listed prefix of a command wins, so `npm run` (3) beats
/// `npm` (2). Commands not listed use their first word.
#[rustfmt::skip]
const ARITY: &[(&str, usize)] = &[
    // Single-word actions: the arguments are just operands.
    ("cat", 1), ("cd", 1), ("chmod", 1), ("chown", 1), ("cp", 1), ("curl", 1),
    ("diff", 1), ("du", 1), ("echo", 1), ("env", 1), ("export", 1), ("file", 1),
    ("find", 1), ("grep", 1), ("head", 1), ("kill", 1), ("killall", 1), ("less", 1),
    ("ln", 1), ("ls", 1), ("mkdir", 1), ("mv", 1), ("node", 1), ("ps", 1), ("pwd", 1),
    ("python", 1), ("python3", 1), ("rg", 1), ("rm", 1), ("rmdir", 1), ("sed", 1),
    ("sleep", 1), ("sort", 1), ("source", 1), ("stat", 1), ("tail", 1), ("tar", 1),
    ("touch", 1), ("tree", 1), ("unset", 1), ("wc", 1), ("wget", 1), ("which", 1),
    // Tools with subcommands.
    ("bazel", 2), ("brew", 2), ("bun", 2), ("bun run", 3), ("bun x", 3),
    ("cargo", 2), ("cargo add", 3), ("cargo run", 3), ("cmake", 2), ("composer", 2),
    ("deno", 2), ("deno task", 3), ("docker", 2), ("docker compose", 3),
    ("docker container", 3), ("docker image", 3), ("docker network", 3),
    ("docker volume", 3), ("dotnet", 2), ("gh", 3), ("gcloud", 3), ("aws", 3),
    ("az", 3), ("git", 2), ("git config", 3), ("git remote", 3), ("git stash", 3),
    ("go", 2), ("gradle", 2), ("helm", 2), ("ip", 2), ("kubectl", 2),
    ("kubectl rollout", 3), ("make", 2), ("mvn", 2), ("npm", 2), ("npm exec", 3),
    ("npm init", 3), ("npm run", 3), ("npm view", 3), ("npx", 2), ("pip", 2),
    ("pip3", 2), ("pipenv", 2), ("pnpm", 2), ("pnpm dlx", 3), ("pnpm exec", 3),
    ("pnpm run", 3), ("poetry", 2), ("podman", 2), ("rustup", 2), ("swift", 2),
    ("systemctl", 2), ("terraform", 2), ("tmux", 2), ("uv", 2), ("uv run", 3),
    ("yarn", 2), ("yarn dlx", 3), ("yarn run", 3),
];

/// The pattern to store when the user approves `command` "always": its first
/// words by arity followed by ` *` (`git checkout main` → `git checkout *`,
/// `ls -la` → `ls *`; unknown commands → first word + ` *`). An empty command
/// yields an empty pattern, never a blanket `*`.
pub fn always_pattern(command: &str) -> String {
    let words = words(command);
    if words.is_empty() {
        return String::new();
    }
    let arity = (1..=words.len())
        .rev()
        .find_map(|len| {
            let prefix = words[..len].join(" ");
            ARITY
                .iter()
                .find(|(name, _)| *name == prefix)
                .map(|&(_, arity)| arity)
        })
        .unwrap_or(1);
    format!("{} *", words[..arity.min(words.len())].join(" "))
}

/// Splits on unquoted whitespace, keeping quotes in the words so the pattern still
/// matches the command text it came from.
fn words(command: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some(_), '\\') if quote == Some('"') => escaped = true,
            (Some(_), _) => {}
            (None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    words.push(&command[s..i]);
                }
                continue;
            }
            (None, _) => {}
        }
        start.get_or_insert(i);
    }
    if let Some(s) = start {
        words.push(&command[s..]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_by_arity() {
        assert_eq!(always_pattern("git checkout main"), "git checkout *");
        assert_eq!(always_pattern("git"), "git *");
        assert_eq!(always_pattern("git status"), "git status *");
        assert_eq!(always_pattern("git stash pop stash@{0}"), "git stash pop *");
        assert_eq!(always_pattern("ls -la"), "ls *");
        assert_eq!(always_pattern("ls"), "ls *");
        assert_eq!(always_pattern("rm -rf target"), "rm *");
        assert_eq!(always_pattern("cat a b"), "cat *");
        assert_eq!(always_pattern("python script.py --x"), "python *");
        assert_eq!(always_pattern("cargo test -p foo"), "cargo test *");
        assert_eq!(always_pattern("npm install lodash"), "npm install *");
        assert_eq!(
            always_pattern("npm run build -- --watch"),
            "npm run build *"
        );
        assert_eq!(
            always_pattern("docker compose up -d"),
            "docker compose up *"
        );
        assert_eq!(always_pattern("kubectl get pods"), "kubectl get *");
        assert_eq!(always_pattern("go test ./..."), "go test *");
        assert_eq!(always_pattern("pnpm add x"), "pnpm add *");
        assert_eq!(always_pattern("yarn add x"), "yarn add *");
        assert_eq!(always_pattern("pip install x"), "pip install *");
    }

    #[test]
    fn unknown_commands_use_first_word() {
        assert_eq!(always_pattern("frobnicate --all now"), "frobnicate *");
        assert_eq!(always_pattern("./run.sh a"), "./run.sh *");
    }

    #[test]
    fn empty_command_is_not_a_blanket_rule() {
        assert_eq!(always_pattern(""), "");
        assert_eq!(always_pattern("   "), "");
    }

    #[test]
    fn quoted_words_stay_whole() {
        assert_eq!(
            always_pattern(r#"git "my branch" x"#),
            r#"git "my branch" *"#
        );
        assert_eq!(
            words(r#"a 'b c' "d \" e" f\ g"#),
            ["a", "'b c'", r#""d \" e""#, r"f\ g"]
        );
        assert_eq!(words("  a\tb  "), ["a", "b"]);
    }

    #[test]
    fn table_has_no_duplicates() {
        for (i, (name, _)) in ARITY.iter().enumerate() {
            assert!(
                !ARITY[i + 1..].iter().any(|(n, _)| n == name),
                "duplicate {name}"
            );
        }
    }
}
