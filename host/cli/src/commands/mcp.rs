//! `ward mcp …`: `serve` serves Ward's tools to MCP clients ([`super::mcp_serve`]);
//! `list|add|remove`: the MCP servers of `[mcp.NAME]` — each one's status
//! (started here, within its timeout), reason for failing and tools; adding and
//! removing entries in the project's `ward.toml`.
//!
//! The file is edited as text so everything else in it (comments, order, layout) stays
//! as written: `add` appends a `[mcp.NAME]` table, `remove` deletes the lines of that
//! table (and its sub-tables). Hand-written rather than with `toml_edit`, which Ward
//! does not otherwise use: appending and deleting whole tables needs no TOML
//! rewriting, and the result is parsed again before it is written.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use ward_config::{Grant, McpConfig, McpServer};
use ward_mcp_client::Status;
use ward_term::{inert_line, outln};

/// `ward mcp …`
#[derive(Subcommand)]
pub enum McpCommand {
    /// Serve the installed plugins' tools to MCP clients (stdio or streamable HTTP).
    Serve(super::mcp_serve::ServeArgs),
    /// Start every configured MCP server and show its status and tools.
    List,
    /// Add a server to the project's ward.toml: `ward mcp add NAME -- node server.js`
    /// (local) or `ward mcp add NAME --url https://host/mcp` (remote).
    Add {
        /// The server's name (its tools are offered as NAME_tool).
        name: String,
        /// A remote server's URL (streamable HTTP).
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// A variable for a local server, KEY=VALUE (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header for a remote server, NAME=VALUE (repeatable).
        #[arg(long = "header", value_name = "NAME=VALUE")]
        headers: Vec<String>,
        /// Widen a local server's confinement: fs-read[:PATH], fs-write:PATH, net, env:VAR.
        #[arg(long = "grant", value_name = "CAP[:SCOPE]")]
        grants: Vec<Grant>,
        /// Milliseconds the server may take to start, list its tools and answer a call.
        #[arg(long)]
        timeout: Option<u64>,
        /// A local server's program and arguments (after `--`).
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Remove a server from the project's ward.toml.
    Remove {
        /// The server's name.
        name: String,
    },
}

/// Runs the subcommand.
pub async fn run(command: McpCommand) -> Result<ExitCode> {
    match command {
        McpCommand::Serve(args) => super::mcp_serve::run(args).await,
        McpCommand::List => list().await,
        McpCommand::Add {
            name,
            url,
            env,
            headers,
            grants,
            timeout,
            command,
        } => {
            let server = match url {
                Some(url) => McpServer::Remote {
                    url,
                    headers: pairs(&headers)?,
                },
                None if command.is_empty() => {
                    bail!("give the server's command after `--`, or --url for a remote server")
                }
                None => McpServer::Local {
                    command,
                    environment: pairs(&env)?,
                    grant: grants,
                },
            };
            let config = McpConfig {
                enabled: true,
                timeout,
                server,
            };
            add(&name, config)
        }
        McpCommand::Remove { name } => remove(&name),
    }
}

async fn list() -> Result<ExitCode> {
    let ws = super::open_workspace().await?;
    if ws.mcp.is_empty() {
        outln!("no MCP servers are configured ([mcp.NAME] in ward.toml)");
        return Ok(ExitCode::SUCCESS);
    }
    ws.mcp.ready().await;
    for server in ws.mcp.statuses() {
        // Names, reasons, descriptions and problems come from the server: inert text.
        let status = match &server.status {
            Status::Disabled => "disabled".to_string(),
            Status::Starting => "starting".to_string(),
            Status::Connected => format!("connected, {} tools", server.tools.len()),
            Status::Failed(reason) => format!("failed: {}", inert_line(reason)),
        };
        outln!("{}  {status}", inert_line(&server.name));
        for (tool, description) in &server.tools {
            let first = description.lines().next().unwrap_or("");
            outln!("  {}  {}", inert_line(tool), inert_line(first));
        }
        for problem in &server.problems {
            outln!("  problem: {}", inert_line(problem));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `KEY=VALUE` arguments as a table.
fn pairs(args: &[String]) -> Result<BTreeMap<String, String>> {
    args.iter()
        .map(|a| {
            a.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .with_context(|| format!("expected KEY=VALUE, found `{a}`"))
        })
        .collect()
}

/// The project's `ward.toml` and its text (empty when there is none yet).
fn project_file() -> Result<(std::path::PathBuf, String)> {
    let cwd = std::env::current_dir()?;
    let file = ward_config::project_root(&cwd).join("ward.toml");
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    Ok((file, text))
}

fn add(name: &str, config: McpConfig) -> Result<ExitCode> {
    if name.is_empty() || name.contains(['.', '"', '\n']) {
        bail!("`{name}` cannot be a server name (no dots, quotes or newlines)");
    }
    let (file, text) = project_file()?;
    let current = ward_config::load_from_str(&file.display().to_string(), &text)?;
    if current.mcp.contains_key(name) {
        bail!(
            "{} already has an MCP server `{name}` (`ward mcp remove {name}` first)",
            file.display()
        );
    }
    let mut table = toml::Table::new();
    let mut mcp = toml::Table::new();
    mcp.insert(name.to_string(), toml::Value::try_from(&config)?);
    table.insert("mcp".into(), toml::Value::Table(mcp));
    let mut added = text.clone();
    if !added.is_empty() && !added.ends_with('\n') {
        added.push('\n');
    }
    if !added.is_empty() {
        added.push('\n');
    }
    added.push_str(&toml::to_string(&table)?);
    write_checked(&file, &added, |c| c.mcp.contains_key(name))?;
    outln!("added MCP server `{name}` to {}", file.display());
    Ok(ExitCode::SUCCESS)
}

fn remove(name: &str) -> Result<ExitCode> {
    let (file, text) = project_file()?;
    let current = ward_config::load_from_str(&file.display().to_string(), &text)?;
    if !current.mcp.contains_key(name) {
        bail!("{} has no MCP server `{name}`", file.display());
    }
    let kept = without_table(&text, name);
    if kept == text {
        bail!(
            "`{name}` is not written as a `[mcp.{name}]` table in {}; remove it by hand",
            file.display()
        );
    }
    write_checked(&file, &kept, |c| !c.mcp.contains_key(name))?;
    outln!("removed MCP server `{name}` from {}", file.display());
    Ok(ExitCode::SUCCESS)
}

/// `text` without the lines of the `[mcp.NAME]` table and its sub-tables.
fn without_table(text: &str, name: &str) -> String {
    let headers = [format!("mcp.{name}"), format!("mcp.\"{name}\"")];
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if let Some(header) = table_header(line) {
            skipping = headers
                .iter()
                .any(|h| &header == h || header.starts_with(&format!("{h}.")));
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out
}

/// The dotted name of a `[table]` header line (spaces around dots removed).
fn table_header(line: &str) -> Option<String> {
    let line = line.trim();
    let inner = line.strip_prefix('[')?.split(']').next()?;
    if inner.starts_with('[') {
        return None;
    }
    Some(
        inner
            .split('.')
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("."),
    )
}

/// Writes `text` to `file` if it still parses and `check` holds for it.
fn write_checked(
    file: &Path,
    text: &str,
    check: impl Fn(&ward_config::Config) -> bool,
) -> Result<()> {
    let parsed = ward_config::load_from_str(&file.display().to_string(), text)
        .context("the edited file would not parse; it was left as it was")?;
    if !check(&parsed) {
        bail!(
            "editing {} did not have the effect asked for; it was left as it was",
            file.display()
        );
    }
    std::fs::write(file, text).with_context(|| format!("writing {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_keeps_the_rest() {
        let text = "model = \"a/b\"\n# keep me\n[mcp.x]\ntype = \"local\"\ncommand = [\"n\"]\n[mcp.x.environment]\nA = \"1\"\n[mcp.y]\ntype = \"remote\"\nurl = \"http://h\"\n";
        let out = without_table(text, "x");
        assert_eq!(
            out,
            "model = \"a/b\"\n# keep me\n[mcp.y]\ntype = \"remote\"\nurl = \"http://h\"\n"
        );
        assert_eq!(without_table(text, "z"), text);
    }
}
