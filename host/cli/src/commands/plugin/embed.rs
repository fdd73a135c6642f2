//! `ward plugin embed-builtins --out DIR` (hidden; run by `scripts/build.sh` and
//! `scripts/test.sh`): compiles the standard plugins built into this binary with its
//! own engine and writes what the next link embeds beside each, named by the
//! component's SHA-256 — `SHA.cwasm` (its compiled code) and `SHA.declared.json` (what
//! it declares). `ward`'s build script picks them up by that name, so a file left from
//! another component is never embedded beside the wrong one.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use ward_plugin::discovery::{Builtin, discover};
use ward_plugin::{HostOptions, PluginHost};
use ward_term::outln;

use crate::builtins::BUILTINS;

/// Writes the embeddable artifacts of every built-in plugin into `out`.
pub async fn run(out: &Path) -> Result<ExitCode> {
    // Compiled afresh: what this binary may already embed is not copied forward.
    let fresh: Vec<Builtin> = BUILTINS
        .iter()
        .map(|b| Builtin {
            precompiled: &[],
            declared: "",
            ..*b
        })
        .collect();
    let found = discover(&fresh, &[]);
    if let Some(e) = found.errors.first() {
        bail!("a standard plugin: {e}");
    }
    let host = PluginHost::new(found.plugins, HostOptions::default())?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for plugin in host.plugins() {
        let made = host
            .embeddable(plugin)
            .await
            .with_context(|| format!("standard plugin `{}`", plugin.name()))?;
        // Compiling is deterministic: a file already holding these bytes is left
        // alone, so the build that follows does not relink for nothing.
        let write = |name: String, bytes: &[u8]| {
            let path = out.join(name);
            if std::fs::read(&path).is_ok_and(|old| old == bytes) {
                return Ok(());
            }
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
        };
        write(format!("{}.cwasm", made.sha256), &made.precompiled)?;
        write(
            format!("{}.declared.json", made.sha256),
            made.declared.to_string().as_bytes(),
        )?;
        outln!("{}: {}", plugin.name(), made.sha256);
    }
    Ok(ExitCode::SUCCESS)
}
