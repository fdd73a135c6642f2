//! `ward trust`: what this project's own files ask for beyond the defaults, and a
//! person's decision about it, recorded in the data directory and pinned to exactly
//! those items (see `ward_config::trust`).

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use ward_config::trust::record::{self, Decision, Records};
use ward_config::{ProjectTrust, TrustState};
use ward_term::{inert_line, out, outln};

/// `ward trust [--restrict | --revoke | --list | --show] [--yes]`
#[derive(Args)]
pub struct TrustArgs {
    /// Keep the project restricted, and stop asking about it until what it asks
    /// for changes.
    #[arg(long, conflicts_with_all = ["revoke", "list", "show"])]
    restrict: bool,
    /// Forget the decision about this project: it is restricted, and asked about
    /// again.
    #[arg(long, conflicts_with_all = ["list", "show"])]
    revoke: bool,
    /// List every project with a recorded decision.
    #[arg(long, conflicts_with = "show")]
    list: bool,
    /// Show what the project asks for and where it stands, deciding nothing.
    #[arg(long)]
    show: bool,
    /// Decide without the question (for a person scripting their own setup; with
    /// no terminal, `ward trust` needs it).
    #[arg(long, short = 'y')]
    yes: bool,
}

/// The file the decisions are recorded in, and what it holds.
fn records() -> Result<(std::path::PathBuf, Records)> {
    let env = |name: &str| std::env::var(name).ok();
    let data = record::data_dir(&env).context("no data directory: set HOME or WARD_DATA_DIR")?;
    let file = data.join(record::FILE_NAME);
    let records = Records::load(&file)?;
    Ok((file, records))
}

/// Records `decision` about what `trust` asks for now.
fn decide(trust: &ProjectTrust, decision: Decision) -> Result<()> {
    let (file, mut records) = records()?;
    records.decide(trust, decision);
    records.save(&file)?;
    Ok(())
}

/// Runs `ward trust`.
pub fn run(args: TrustArgs) -> Result<ExitCode> {
    let (file, mut records) = records()?;
    if args.list {
        for entry in &records.projects {
            let decision = match entry.decision {
                Decision::Trusted => "trusted",
                Decision::Restricted => "restricted",
            };
            outln!(
                "{decision:<10} {}  ({} items)",
                inert_line(&entry.path.display().to_string()),
                entry.items.len()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = ward_config::load(&std::env::current_dir()?)?;
    let trust = loaded.trust;
    if args.revoke {
        if records.forget(&trust.project) {
            records.save(&file)?;
            outln!(
                "{} is no longer trusted: its own files only tighten until you run `ward trust`.",
                inert_line(&trust.project.display().to_string())
            );
        } else {
            outln!("nothing was recorded for this project.");
        }
        return Ok(ExitCode::SUCCESS);
    }
    describe(&trust);
    if args.show {
        return Ok(ExitCode::SUCCESS);
    }
    let decision = if args.restrict {
        Decision::Restricted
    } else {
        Decision::Trusted
    };
    if decision == Decision::Trusted && !args.yes && !confirm()? {
        outln!("Nothing recorded: the project stays restricted.");
        return Ok(ExitCode::FAILURE);
    }
    decide(&trust, decision)?;
    match decision {
        Decision::Trusted => outln!("Trusted. A change to any of these makes it ask again."),
        Decision::Restricted => {
            outln!("Kept restricted. Ward will not ask again until what it asks for changes.")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints where the project stands and what it asks for, each item one inert line.
fn describe(trust: &ProjectTrust) {
    outln!(
        "Project: {}",
        inert_line(&trust.project.display().to_string())
    );
    let state = match &trust.state {
        TrustState::NothingAsked => "its files ask for nothing beyond the defaults",
        TrustState::Trusted => "trusted",
        TrustState::Undecided => "not trusted: its own files only tighten",
        TrustState::Declined => "kept restricted",
        TrustState::Changed { .. } => "changed since you trusted it: restricted again",
    };
    outln!("Status: {state}");
    if let TrustState::Changed { added, removed } = &trust.state {
        for item in added {
            outln!("  new:  {}", inert_line(item));
        }
        for item in removed {
            outln!("  gone: {}", inert_line(item));
        }
    }
    if trust.items.is_empty() {
        return;
    }
    outln!("Trusting it lets its files:");
    for item in &trust.items {
        outln!(
            "  - {}  ({})",
            inert_line(&item.what),
            inert_line(&item.source)
        );
    }
}

/// Asks the person at the terminal; without one, refuses (a decision is a person's).
fn confirm() -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("no terminal to ask on: run `ward trust --yes` to trust what is listed above");
    }
    out!("Trust this project? [y/N] ");
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// Whether the project in `cwd` asks for nothing its user has not accepted: trusted,
/// or asking for nothing at all.
pub fn settled(cwd: &std::path::Path) -> bool {
    ward_config::load(cwd).is_ok_and(|c| {
        matches!(
            c.trust.state,
            TrustState::Trusted | TrustState::NothingAsked
        )
    })
}

/// After a person's own command changed what the project asks for (`ward plugin
/// install`, `grant`, …): a project that was `settled` before is recorded trusted with
/// the change; one that was not stays restricted, and the person is told.
pub fn keep_after_own_change(cwd: &std::path::Path, settled: bool) -> Result<()> {
    let loaded = ward_config::load(cwd)?;
    if loaded.trust.state == TrustState::Trusted {
        return Ok(());
    }
    if !settled {
        ward_term::eoutln!(
            "note: this project is not trusted, so its plugins stay inert until you run \
             `ward trust`"
        );
        return Ok(());
    }
    decide(&loaded.trust, Decision::Trusted)
}

/// On opening the project in `cwd` where a person sits at the terminal (the TUI and
/// the line mode): when nobody has decided about what it asks for now, shows the
/// list and asks once — trust it, or keep it restricted (recorded, so the question
/// comes back only when what it asks for changes). A configuration that does not
/// load is left for the engine to report.
pub fn ask_on_open(cwd: &std::path::Path) -> Result<()> {
    if !std::io::stdin().is_terminal() {
        return Ok(());
    }
    let Ok(loaded) = ward_config::load(cwd) else {
        return Ok(());
    };
    if !loaded.trust.needs_decision() {
        return Ok(());
    }
    describe(&loaded.trust);
    out!("Trust this project? [y] trust / [N] stay restricted: ");
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let decision = match answer.trim() {
        "y" | "Y" | "yes" | "Yes" | "t" | "trust" => Decision::Trusted,
        _ => Decision::Restricted,
    };
    decide(&loaded.trust, decision)?;
    match decision {
        Decision::Trusted => outln!("Trusted."),
        Decision::Restricted => {
            outln!("Staying restricted: its files only tighten. `ward trust` changes your mind.")
        }
    }
    Ok(())
}
