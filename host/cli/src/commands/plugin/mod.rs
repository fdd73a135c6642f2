//! `ward plugin …`: `list` shows every plugin, what it provides, what it asked for, what
//! it was granted, and whether it works; `new` scaffolds one; `build` compiles one (to a
//! component, then into the component cache).

mod build;
mod clash;
mod embed;
mod market;
mod prepare;
mod scaffold;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use ward_term::{inert_line, outln};

use ward_engine::Workspace;

/// `ward plugin …`
#[derive(Subcommand)]
pub enum PluginCommand {
    /// List plugins with their tools, requested and granted capabilities, and status.
    List,
    /// Create a plugin directory that builds and loads as it is.
    New {
        /// The plugin's language.
        #[arg(long, value_enum, default_value = "rust")]
        lang: Lang,
        /// The plugin's name (also its directory).
        name: String,
    },
    /// Build the plugin in DIR (default: the current directory) into its component.
    Build {
        /// The plugin directory.
        dir: Option<std::path::PathBuf>,
    },
    /// Compile the standard plugins built into this binary into DIR, for the next
    /// link to embed (run by scripts/build.sh and scripts/test.sh).
    #[command(hide = true)]
    EmbedBuiltins {
        /// Where the compiled code and declarations are written.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Marketplace: pack, index, search, install, update, remove, grant, revoke.
    #[command(flatten)]
    Market(market::MarketCommand),
}

/// Languages `ward plugin new` can scaffold.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Lang {
    /// Rust, with the `ward-sdk` crate.
    Rust,
    /// JavaScript, built with componentize-js.
    Js,
    /// Python, built with componentize-py.
    Python,
}

/// Runs the subcommand.
pub async fn run(command: PluginCommand) -> Result<ExitCode> {
    match command {
        PluginCommand::List => list().await,
        PluginCommand::Market(command) => market::run(command).await,
        PluginCommand::EmbedBuiltins { out } => embed::run(&out).await,
        PluginCommand::New { lang, name } => {
            let parent = std::env::current_dir()?;
            let dir = match lang {
                Lang::Rust => scaffold::new_rust(&parent, &name)?,
                Lang::Js => scaffold::new_js(&parent, &name)?,
                Lang::Python => scaffold::new_python(&parent, &name)?,
            };
            outln!("created {}", dir.display());
            match lang {
                Lang::Rust => {}
                Lang::Js => outln!(
                    "install its build tool with: (cd {} && npm install)",
                    dir.display()
                ),
                Lang::Python => outln!(
                    "install its build tool with: pip install -r {}",
                    dir.join("requirements.txt").display()
                ),
            }
            outln!("build it with: ward plugin build {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        PluginCommand::Build { dir } => {
            let dir = match dir {
                Some(d) => d,
                None => std::env::current_dir()?,
            };
            let out = build::build(&dir)?;
            outln!("built {}", out.display());
            // A component that does not load is a failed build, said now rather than
            // at its first call.
            let took = prepare::into_cache(&dir)
                .await
                .with_context(|| format!("{} was built but does not load", out.display()))?;
            outln!(
                "compiled into the component cache in {} ms",
                took.as_millis()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn list() -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let ws = Workspace::open(&crate::builtins::engine_options(cwd.clone())).await?;
    // Tools refused for an invalid or clashing name are shown with their plugin.
    let (_, _, refused) = ws.host.tool_table().await;
    let support = ward_sandbox::probe();
    outln!(
        "process sandbox: Landlock ABI {}, user namespaces {} — {}\n",
        support.landlock_abi,
        if support.user_namespaces {
            "available"
        } else {
            "unavailable"
        },
        if support.sufficient() {
            "every process a plugin starts is confined"
        } else {
            "processes that must be confined are refused"
        }
    );
    for p in ws.host.plugins() {
        let m = &p.source.manifest;
        let kinds: Vec<String> = m
            .kinds
            .iter()
            .map(|k| format!("{k:?}").to_lowercase())
            .collect();
        // Everything a manifest or a component says is shown on one line, inert.
        outln!(
            "{} {} ({}, {})",
            inert_line(&m.name),
            inert_line(&m.version),
            p.source.origin.as_str(),
            kinds.join(", ")
        );
        outln!(
            "  from:      {}",
            inert_line(&p.source.manifest_path.display().to_string())
        );
        let status = match p.disabled_reason() {
            Some(reason) => format!("disabled: {}", inert_line(&reason)),
            None => match provided(&ws.host, p).await {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("error: {}", inert_line(&e.to_string())),
            },
        };
        let c = &p.ceiling;
        let e = &p.effective;
        let paths = |v: &[std::path::PathBuf]| {
            v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        let requested_hooks = c.hooks.as_ref().map(|h| hooks_cap(&h.tools, h.mode));
        // A call needs a match in both the granted and the requested globs.
        let granted_hooks = e.hooks.as_ref().map(|h| hooks_cap(&h.tools, h.mode));
        outln!(
            "  requested: {}",
            inert_line(&caps(
                &paths(&c.fs_read),
                &paths(&c.fs_write),
                &c.net,
                &c.exec,
                &c.env,
                requested_hooks.as_deref(),
            ))
        );
        outln!(
            "  granted:   {}",
            inert_line(&caps(
                &paths(&e.fs_read),
                &paths(&e.fs_write),
                &e.net,
                &e.exec,
                &e.env,
                granted_hooks.as_deref(),
            ))
        );
        for i in &p.ignored_grants {
            outln!(
                "  ignored grant `{}`: {}",
                inert_line(&i.grant),
                inert_line(&i.reason.to_string())
            );
        }
        for r in refused.iter().filter(|r| r.plugin == p.name()) {
            outln!("  refused:   {}", inert_line(&r.reason));
        }
        if let Some(how) = ward_plugin::sandbox::describe_processes(p, ws.host.sandbox()) {
            outln!("  processes: {}", inert_line(&how));
        }
        outln!("  status:    {status}\n");
    }
    for e in &ws.discovery_errors {
        outln!("error: {e}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the tools and hooks `plugin` provides (loading it if nothing is cached).
async fn provided(host: &ward_plugin::PluginHost, plugin: &ward_plugin::Plugin) -> Result<()> {
    if plugin.is(ward_config::Kind::Tool) {
        let tools = host.tools_of(plugin).await?;
        let names: Vec<String> = tools.into_iter().map(|t| t.name).collect();
        outln!("  tools:     {}", inert_line(&names.join(", ")));
    }
    if plugin.is(ward_config::Kind::Hook) {
        let r = host.hooks_of(plugin).await?;
        let points: Vec<&str> = r.hooks.iter().map(|h| h.as_str()).collect();
        let points = if points.is_empty() {
            "none".to_string()
        } else {
            points.join(", ")
        };
        let tools = if r.hooks.iter().any(|h| h.is_tool_hook()) {
            format!(" (tools: {})", r.tools.join(", "))
        } else {
            String::new()
        };
        outln!("  hooks:     {points}{}", inert_line(&tools));
    }
    Ok(())
}

/// `hooks [GLOBS] MODE`, e.g. `hooks [bash, edit] mutate`.
fn hooks_cap(tools: &[String], mode: ward_config::HookMode) -> String {
    let mode = match mode {
        ward_config::HookMode::Observe => "observe",
        ward_config::HookMode::Mutate => "mutate",
    };
    format!("[{}] {mode}", tools.join(", "))
}

fn caps(
    read: &[String],
    write: &[String],
    net: &[String],
    exec: &[String],
    env: &[String],
    hooks: Option<&str>,
) -> String {
    let mut parts = Vec::new();
    for (name, list) in [
        ("fs-read", read),
        ("fs-write", write),
        ("net", net),
        ("exec", exec),
        ("env", env),
    ] {
        if !list.is_empty() {
            parts.push(format!("{name} [{}]", list.join(", ")));
        }
    }
    if let Some(hooks) = hooks {
        parts.push(format!("hooks {hooks}"));
    }
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join("; ")
    }
}
