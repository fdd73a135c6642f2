//! The system prompt, in two blocks: a stable one first (cacheable across calls) and
//! the environment second.

use std::path::Path;

use ward_provider::SystemBlock;

const BASE: &str = "You are Ward, an interactive agent that helps with software engineering tasks. \
Use the tools available to read, search and change the project, and run commands. \
Be concise; verify your work; do not invent file contents you have not read.";

/// The blocks for a project at `root`.
pub fn blocks(root: &Path) -> Vec<SystemBlock> {
    let env = format!(
        "<env>\nWorking directory: {}\nPlatform: {}\nIs a git repository: {}\n</env>",
        root.display(),
        std::env::consts::OS,
        root.join(".git").exists()
    );
    vec![
        SystemBlock {
            text: BASE.to_string(),
            cache: true,
        },
        SystemBlock {
            text: env,
            cache: false,
        },
    ]
}
