//! SQL for the `approval` table: "always" answers, scoped to (project, agent).
//!
//! Rows keep insertion order (`seq`), because the last matching rule wins and a later
//! approval must be able to override an earlier one.

use rusqlite::{Connection, params};
use ward_permission::{Action, Rule};

use crate::error::{Context, Result};

/// The approvals of `agent` in `project`, oldest first.
pub(crate) fn load(conn: &Connection, project: &str, agent: &str) -> Result<Vec<Rule>> {
    let rows = conn
        .prepare_cached(
            "SELECT permission, pattern, action FROM approval \
             WHERE project = ?1 AND agent = ?2 ORDER BY seq",
        )
        .and_then(|mut statement| {
            statement
                .query_map([project, agent], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .context(|| format!("load the approvals of agent {agent} in {project}"))?;
    Ok(rows
        .into_iter()
        .filter_map(
            |(permission, pattern, action)| match action.parse::<Action>() {
                Ok(action) => Some(Rule::new(permission, pattern, action)),
                // The CHECK constraint makes this unreachable short of a hand-edited file;
                // one bad row must not hide the others.
                Err(error) => {
                    tracing::warn!(%error, permission, pattern, "skipping a stored approval");
                    None
                }
            },
        )
        .collect())
}

/// Adds `rules` after the existing approvals; rules already stored are kept once.
pub(crate) fn save(conn: &Connection, project: &str, agent: &str, rules: &[Rule]) -> Result<()> {
    let mut statement = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO approval (project, agent, permission, pattern, action) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .context(|| "prepare saving approvals".to_string())?;
    for rule in rules {
        statement
            .execute(params![
                project,
                agent,
                rule.permission,
                rule.pattern,
                rule.action.as_str()
            ])
            .context(|| format!("save approval `{rule}` of agent {agent} in {project}"))?;
    }
    Ok(())
}
