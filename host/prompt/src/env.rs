//! The environment block: working directory, platform, date, git status and
//! the file tree.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::{git, paths, tree};

/// The environment of `project` as `<env>`, `<git_status>` and `<files>`
/// sections, and whether git status timed out.
///
/// Git status is run unless `run_git` is false, and left out when git is
/// missing, the project is not in a repository or git does not answer within
/// [`git::STATUS_TIMEOUT`].
pub(crate) fn render(project: &Path, run_git: bool) -> (String, bool) {
    let in_git = paths::git_root(project).is_some();
    let mut out = format!(
        "<env>\nWorking directory: {}\nPlatform: {}\nToday's date: {} (UTC)\nIs a git repository: {}\n</env>",
        project.display(),
        std::env::consts::OS,
        today(SystemTime::now()),
        if in_git { "yes" } else { "no" },
    );
    let mut timed_out = false;
    if in_git && run_git {
        match git::status(project, git::STATUS_TIMEOUT) {
            git::Status::Text(status) => {
                out.push_str("\n<git_status>\n");
                out.push_str(&status);
                out.push_str("\n</git_status>");
            }
            git::Status::TimedOut => timed_out = true,
            git::Status::Unavailable => {}
        }
    }
    let files = tree::render(project);
    if !files.is_empty() {
        out.push_str("\n<files>\n");
        out.push_str(&files);
        out.push_str("\n</files>");
    }
    (out, timed_out)
}

/// The UTC calendar date of `now` as `YYYY-MM-DD`.
fn today(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), after
/// Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Both are within 1..=31 and 1..=12 by construction.
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(
            today(UNIX_EPOCH + Duration::from_secs(1_700_000_000)),
            "2023-11-14"
        );
    }
}
