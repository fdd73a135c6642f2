//! `ward plugin pack|index|search|install|update|remove|grant|revoke`: the marketplace
//! commands, a thin layer over `ward-market` that prints and asks.
//!
//! Granting: `--grant CAP[:SCOPE]` grants exactly what it names, without a question;
//! otherwise each requested capability is asked about on a terminal, and with no
//! terminal nothing is granted. Ungranted means denied.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use ward_config::Grant;
use ward_market::grants::{carried, check_fit, new_requests};
use ward_market::sign::Key;
use ward_market::{Lock, Market, Requested, Staged, covers, describe};
use ward_term::{eoutln, inert_line, out, outln};

/// The marketplace subcommands of `ward plugin`.
#[derive(Subcommand)]
pub enum MarketCommand {
    /// Pack the plugin in DIR into one NAME-VERSION.wardpkg, the sha256 of every file
    /// recorded in its plugin.toml.
    Pack {
        /// The plugin directory (default: the current directory).
        dir: Option<PathBuf>,
        /// The archive to write, or a directory for NAME-VERSION.wardpkg (default: the
        /// current directory).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Also sign it with the ed25519 seed (64 hex digits) in KEYFILE.
        #[arg(long, value_name = "KEYFILE")]
        sign: Option<PathBuf>,
    },
    /// Add packed archives to the JSON index file INDEX (created if missing).
    Index {
        /// The index file, e.g. market/index.json.
        index: PathBuf,
        /// The .wardpkg archives.
        #[arg(required = true)]
        archives: Vec<PathBuf>,
        /// Sign each archive with the ed25519 seed (64 hex digits) in KEYFILE.
        #[arg(long, value_name = "KEYFILE")]
        sign: Option<PathBuf>,
        /// Archive URLs become URL/FILE-NAME (default: paths relative to the index).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
    },
    /// List the plugins of the configured marketplace sources matching TEXT.
    Search {
        /// Text to look for in names and descriptions (default: list everything).
        text: Option<String>,
    },
    /// Download, verify and install NAME[@VERSION] into .ward/plugins/, asking which
    /// of its requested capabilities to grant.
    Install {
        /// NAME or NAME@VERSION.
        spec: String,
        /// Grant CAP[:SCOPE] without asking (repeatable); nothing else is granted.
        #[arg(long = "grant", value_name = "CAP[:SCOPE]")]
        grants: Vec<Grant>,
    },
    /// Update NAME (default: every installed plugin) to its newest version; an update
    /// that asks for new capabilities is applied only once they are granted.
    Update {
        /// The plugin.
        name: Option<String>,
        /// Grant CAP[:SCOPE] of the new version without asking (repeatable).
        #[arg(long = "grant", value_name = "CAP[:SCOPE]")]
        grants: Vec<Grant>,
    },
    /// Delete an installed plugin's files and its grants.
    Remove {
        /// The plugin.
        name: String,
    },
    /// Grant an installed plugin capabilities it requests (recorded in ward.lock).
    Grant {
        /// The plugin.
        name: String,
        /// CAP or CAP:SCOPE, e.g. `net:https://api.example.com`.
        #[arg(required = true)]
        caps: Vec<Grant>,
    },
    /// Take grants back (`net` takes every net grant, `net:URL` that one).
    Revoke {
        /// The plugin.
        name: String,
        /// CAP or CAP:SCOPE.
        #[arg(required = true)]
        caps: Vec<Grant>,
    },
}

/// Runs a marketplace subcommand.
pub async fn run(command: MarketCommand) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let changes_project = matches!(
        command,
        MarketCommand::Install { .. }
            | MarketCommand::Update { .. }
            | MarketCommand::Remove { .. }
            | MarketCommand::Grant { .. }
            | MarketCommand::Revoke { .. }
    );
    let before = changes_project.then(|| crate::commands::trust::settled(&cwd));
    let outcome = run_command(&cwd, command).await;
    // The person's own install or grant changes what the project asks for: a project
    // they had already settled stays trusted with it.
    if let (Ok(_), Some(before)) = (&outcome, before) {
        crate::commands::trust::keep_after_own_change(&cwd, before)?;
    }
    outcome
}

async fn run_command(cwd: &Path, command: MarketCommand) -> Result<ExitCode> {
    let cwd = cwd.to_path_buf();
    match command {
        MarketCommand::Pack { dir, out, sign } => pack(
            &dir.unwrap_or_else(|| cwd.clone()),
            &out.unwrap_or(cwd),
            sign,
        ),
        MarketCommand::Index {
            index,
            archives,
            sign,
            base_url,
        } => {
            let key = sign.as_deref().map(Key::read).transpose()?;
            for archive in &archives {
                let entry =
                    ward_market::add_to_index(&index, archive, base_url.as_deref(), key.as_ref())?;
                outln!(
                    "added {} as version {} ({}){}",
                    archive.display(),
                    inert_line(&entry.version),
                    inert_line(&entry.url),
                    if entry.signature.is_some() {
                        ", signed"
                    } else {
                        ""
                    }
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        MarketCommand::Search { text } => search(&cwd, text.as_deref()).await,
        MarketCommand::Install { spec, grants } => install(&cwd, &spec, &grants).await,
        MarketCommand::Update { name, grants } => update(&cwd, name.as_deref(), &grants).await,
        MarketCommand::Remove { name } => {
            let (project, _) = open(&cwd)?;
            let mut lock = Lock::load(&project)?;
            let entry = ward_market::remove(&project, &mut lock, &name)?;
            outln!(
                "removed {} {} (its files and grants)",
                inert_line(&entry.name),
                inert_line(&entry.version)
            );
            Ok(ExitCode::SUCCESS)
        }
        MarketCommand::Grant { name, caps } => edit_grants(&cwd, &name, &caps, true),
        MarketCommand::Revoke { name, caps } => edit_grants(&cwd, &name, &caps, false),
    }
}

/// The project root and its market.
fn open(cwd: &Path) -> Result<(PathBuf, Market)> {
    let config = ward_config::load(cwd)?;
    let market = Market::new(&config.config.marketplace, &config.project_root)?;
    Ok((config.project_root, market))
}

fn pack(dir: &Path, out: &Path, sign: Option<PathBuf>) -> Result<ExitCode> {
    let key = sign.as_deref().map(Key::read).transpose()?;
    let packed = ward_market::pack(dir, out)?;
    outln!("packed {}", packed.path.display());
    outln!("  files:  {}", packed.manifest.files.len() + 1);
    outln!("  sha256: {}", packed.sha256);
    if let Some(key) = key {
        let signature = key
            .sign(&packed.sha256)
            .context("signing the archive digest")?;
        outln!("  signature:  {signature}");
        outln!("  public key: {}", key.public_hex());
    }
    Ok(ExitCode::SUCCESS)
}

async fn search(cwd: &Path, text: Option<&str>) -> Result<ExitCode> {
    let (_, market) = open(cwd)?;
    let (found, failed) = market.search(text).await;
    for e in &failed {
        eoutln!("warning: {}", inert_line(&e.to_string()));
    }
    if found.is_empty() {
        if !failed.is_empty() {
            bail!("no source could be searched");
        }
        outln!("no plugins found");
    }
    for f in &found {
        let p = &f.plugin;
        let kinds: Vec<String> = p
            .kinds
            .iter()
            .map(|k| format!("{k:?}").to_lowercase())
            .collect();
        let latest = p.pick(None);
        // An index entry is a server's words: each field on one line, inert, so an
        // entry can neither forge another nor hide what it asks for.
        outln!(
            "{} {} ({}) from `{}`",
            inert_line(&p.name),
            inert_line(latest.map_or("-", |v| v.version.as_str())),
            kinds.join(", "),
            inert_line(&f.source)
        );
        if !p.description.is_empty() {
            outln!("  {}", inert_line(&p.description));
        }
        outln!("  versions: {}", inert_line(&p.version_list()));
        if let Some(v) = latest {
            let asks: Vec<String> = v.capabilities.iter().map(describe).collect();
            if !asks.is_empty() {
                outln!("  asks to:  {}", inert_line(&asks.join("; ")));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn install(cwd: &Path, spec: &str, flag_grants: &[Grant]) -> Result<ExitCode> {
    let (project, market) = open(cwd)?;
    let (name, version) = match spec.split_once('@') {
        Some((name, version)) => (name, Some(version)),
        None => (spec, None),
    };
    let mut lock = Lock::load(&project)?;
    if let Some(entry) = lock.get(name) {
        bail!(
            "{name} {} is already installed: `ward plugin update {name}` updates it, `ward plugin remove {name}` removes it",
            entry.version
        );
    }
    ward_market::check_free(&project, &lock, name)?;
    let candidate = market.resolve(name, version, None).await?;
    let staged = market.stage(&candidate).await?;
    super::clash::refuse_clashes(cwd, &staged).await?;
    introduce(&staged, &candidate.label());
    let requested: Vec<Grant> = staged.requested.iter().map(|r| r.grant.clone()).collect();
    check_fit(name, flag_grants, &requested)?;
    let chosen = choose(name, &staged.requested, flag_grants)?;
    let entry = staged.commit(&mut lock, chosen)?;
    outln!(
        "installed {} {} into {}/{} (ward.lock updated)",
        inert_line(&entry.name),
        inert_line(&entry.version),
        ward_market::PLUGINS_DIR,
        inert_line(&entry.name)
    );
    compile_installed(&project, &entry.name).await;
    Ok(ExitCode::SUCCESS)
}

async fn update(cwd: &Path, name: Option<&str>, flag_grants: &[Grant]) -> Result<ExitCode> {
    let (project, market) = open(cwd)?;
    let mut lock = Lock::load(&project)?;
    let names: Vec<String> = match name {
        Some(n) => vec![n.to_owned()],
        None => lock.plugins.iter().map(|p| p.name.clone()).collect(),
    };
    if names.is_empty() {
        outln!("nothing is installed from a marketplace in this project");
    }
    let mut held = false;
    for name in names {
        let Some(installed) = lock.get(&name).cloned() else {
            return Err(ward_market::MarketError::NotInstalled { name }.into());
        };
        let candidate = market.resolve(&name, None, Some(&installed.source)).await?;
        let newer = match (candidate.version.semver(), semver_of(&installed.version)) {
            (Some(new), Some(old)) => new > old,
            _ => false,
        };
        if !newer {
            outln!(
                "{} {} is up to date",
                inert_line(&name),
                inert_line(&installed.version)
            );
            continue;
        }
        let staged = market.stage(&candidate).await?;
        introduce(&staged, &candidate.label());
        let requested: Vec<Grant> = staged.requested.iter().map(|r| r.grant.clone()).collect();
        check_fit(&name, flag_grants, &requested)?;
        let mut grants = carried(&installed, &staged.requested);
        let new = new_requests(&installed, &staged.requested);
        if !new.is_empty() {
            outln!(
                "{} {} asks for more than {} did:",
                inert_line(&name),
                inert_line(&candidate.version.version),
                inert_line(&installed.version)
            );
            let yes = choose(&name, &new, flag_grants)?;
            let missing: Vec<&Requested> = new
                .iter()
                .filter(|r| !yes.iter().chain(&grants).any(|g| covers(g, &r.grant)))
                .collect();
            if !missing.is_empty() {
                held = true;
                let caps: Vec<String> = missing
                    .iter()
                    .map(|r| inert_line(&r.grant.to_string()).into_owned())
                    .collect();
                let (name, version) = (inert_line(&name), inert_line(&installed.version));
                eoutln!(
                    "not updated: {name} stays at {version} because {} {} not granted; to update, grant {}: ward plugin update {name} {}",
                    caps.join(", "),
                    if caps.len() == 1 { "was" } else { "were" },
                    if caps.len() == 1 { "it" } else { "them" },
                    caps.iter()
                        .map(|c| format!("--grant '{c}'"))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                continue;
            }
        }
        for g in flag_grants {
            if !grants.contains(g) {
                grants.push(g.clone());
            }
        }
        let entry = staged.commit(&mut lock, grants)?;
        outln!(
            "updated {} {} -> {} (grants: {})",
            inert_line(&name),
            inert_line(&installed.version),
            inert_line(&entry.version),
            inert_line(&list(&entry.grant))
        );
        compile_installed(&project, &name).await;
    }
    Ok(if held {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn semver_of(version: &str) -> Option<ward_market::index::Version> {
    ward_market::index::Version::parse(version).ok()
}

fn edit_grants(cwd: &Path, name: &str, caps: &[Grant], add: bool) -> Result<ExitCode> {
    let config = ward_config::load(cwd)?;
    let project = &config.project_root;
    let mut lock = Lock::load(project)?;
    let entry = if add {
        ward_market::grants::grant(project, &mut lock, name, caps)?
    } else {
        ward_market::grants::revoke(project, &mut lock, name, caps)?
    };
    outln!(
        "{} grants: {}",
        inert_line(name),
        inert_line(&list(&entry.grant))
    );
    if config
        .config
        .plugins
        .get(name)
        .is_some_and(|p| p.grant.is_some())
    {
        eoutln!(
            "warning: ward.toml sets [plugins.{name}] grant, which applies instead of ward.lock's grants"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints what was verified and what the package asks for.
fn introduce(staged: &Staged, label: &str) {
    let signed = match &staged.signed_by {
        Some(key) => format!(
            ", signature verified with key {}…",
            &key[..16.min(key.len())]
        ),
        None => String::new(),
    };
    outln!(
        "{} from `{}`: sha256 {} and {} file digests verified{signed}",
        inert_line(label),
        inert_line(&staged.source),
        inert_line(&staged.sha256),
        staged.files.len() - 1
    );
    if staged.requested.is_empty() {
        outln!("it asks for no capabilities");
    } else {
        outln!("it asks to:");
        for r in &staged.requested {
            outln!(
                "  - {} ({})",
                inert_line(&r.words),
                inert_line(&r.grant.to_string())
            );
        }
    }
}

/// Which of `items` to grant: the `--grant` flags when there are any, else a
/// question per item on a terminal, else none.
fn choose(name: &str, items: &[Requested], flag_grants: &[Grant]) -> Result<Vec<Grant>> {
    if items.is_empty() {
        return Ok(flag_grants.to_vec());
    }
    if !flag_grants.is_empty() {
        for r in items {
            let granted = flag_grants.iter().any(|g| covers(g, &r.grant));
            outln!(
                "  {} {}",
                if granted {
                    "granted:    "
                } else {
                    "not granted:"
                },
                inert_line(&r.grant.to_string())
            );
        }
        return Ok(flag_grants.to_vec());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        outln!(
            "nothing granted (no terminal to ask on): grant later with `ward plugin grant {name} CAP`, or install with --grant CAP"
        );
        return Ok(Vec::new());
    }
    let mut chosen = Vec::new();
    for r in items {
        out!(
            "grant {} to {} ({})? [y/N] ",
            inert_line(name),
            inert_line(&r.words),
            inert_line(&r.grant.to_string())
        );
        let mut answer = String::new();
        stdin.lock().read_line(&mut answer)?;
        if matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
            chosen.push(r.grant.clone());
        }
    }
    Ok(chosen)
}

fn list(grants: &[Grant]) -> String {
    if grants.is_empty() {
        "none".to_owned()
    } else {
        grants
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Compiles a just-installed plugin into the component cache (see [`super::prepare`]).
/// The install stands either way: a plugin that does not load is reported now, and
/// again, as any broken plugin, by the sessions that find it.
async fn compile_installed(project: &Path, name: &str) {
    let dir = project.join(ward_market::PLUGINS_DIR).join(name);
    if let Err(e) = super::prepare::into_cache(&dir).await {
        eoutln!(
            "warning: {}: {}",
            inert_line(name),
            inert_line(&format!("{e:#}"))
        );
    }
}
