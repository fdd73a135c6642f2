//! Refusing, at `ward plugin install`, a package whose plugin or tool names are taken:
//! named like a standard plugin, declaring an invalid tool name, or a tool name that a
//! standard tool or an installed plugin already has. Loading would refuse such a tool
//! anyway (see `ward_plugin::names`); refusing at install says so before anything is
//! written, with the setting that would allow it where there is one.

use std::path::Path;

use anyhow::{Result, bail};
use ward_market::Staged;
use ward_plugin::discovery::{Origin, discover};
use ward_plugin::names::tool_name_problem;
use ward_plugin::{HostOptions, PluginHost};
use ward_term::inert_line;

use ward_engine::Workspace;

/// Fails with a message naming the clash when the staged package cannot be installed
/// under its names in the project at `cwd`.
pub async fn refuse_clashes(cwd: &Path, staged: &Staged) -> Result<()> {
    let Some(manifest) = staged.manifest() else {
        return Ok(());
    };
    let package = manifest.name.as_str();
    let ws = Workspace::open(&crate::builtins::engine_options(cwd.to_path_buf())).await?;
    let replaces: Vec<String> = ws
        .config
        .config
        .plugins
        .get(package)
        .map(|p| p.replaces.clone())
        .unwrap_or_default();
    let may_replace = |name: &str| replaces.iter().any(|r| r == name);
    let standard = |origin: Origin| origin == Origin::Builtin;

    let builtin_named = ws
        .host
        .plugins()
        .iter()
        .any(|p| standard(p.source.origin) && p.name() == package);
    if builtin_named && !may_replace(package) {
        bail!(
            "refusing to install `{}`: it is named like the standard plugin `{0}`; to replace \
             the standard one, set `[plugins.{0}] replaces = [\"{0}\"]` in ward.toml first",
            inert_line(package)
        );
    }

    let tools = package_tools(ws.config.project_root.as_path(), staged.dir()).await?;
    let (offered, _) = ws.host.all_tools().await;
    for (i, tool) in tools.iter().enumerate() {
        if tools[..i].contains(tool) {
            bail!(
                "refusing to install `{}`: it declares the tool `{}` twice",
                inert_line(package),
                inert_line(tool)
            );
        }
        if let Some(problem) = tool_name_problem(tool) {
            bail!(
                "refusing to install `{}`: its {}",
                inert_line(package),
                inert_line(&problem)
            );
        }
        // The package's own earlier version (an update) is no clash.
        let holder = offered
            .iter()
            .find(|(p, t)| &t.name == tool && p.name() != package);
        let Some((holder, _)) = holder else {
            continue;
        };
        if standard(holder.source.origin) {
            if may_replace(tool) {
                continue;
            }
            bail!(
                "refusing to install `{}`: its tool `{}` clashes with the standard tool of \
                 that name (plugin `{}`); to replace it, set `[plugins.{0}] replaces = \
                 [\"{1}\"]` in ward.toml first",
                inert_line(package),
                inert_line(tool),
                holder.name()
            );
        }
        bail!(
            "refusing to install `{}`: its tool `{}` clashes with the tool of that name of the \
             installed plugin `{}`",
            inert_line(package),
            inert_line(tool),
            inert_line(holder.name())
        );
    }
    Ok(())
}

/// The tool names the package in `dir` declares, read from its component the way a
/// load would: sandboxed, granted nothing, in a scope where nothing can be asked.
async fn package_tools(project: &Path, dir: &Path) -> Result<Vec<String>> {
    let found = discover(&[], &[(Origin::Project, dir.to_path_buf())]);
    if let Some(e) = found.errors.first() {
        bail!("{}", inert_line(e));
    }
    let options = HostOptions {
        project: project.to_path_buf(),
        ..HostOptions::default()
    };
    let host = PluginHost::new(found.plugins, options)?;
    let mut names = Vec::new();
    for plugin in host.plugins() {
        names.extend(host.tools_of(plugin).await?.into_iter().map(|t| t.name));
    }
    Ok(names)
}
