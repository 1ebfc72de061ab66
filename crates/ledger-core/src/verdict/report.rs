//! A verdict's own report (docs/verdicts.md, The verdict's own report): one
//! regular file, excluded from the state the verdict judges.
//!
//! Excluding a path excludes everything below it, so a report that is a
//! directory would take every file in it out of the judged state, and a
//! later edit there would leave the verdict standing. A symlink, FIFO,
//! socket or device is no report either. The rule is checked wherever the
//! exclusion is applied: when the verdict is recorded, and when its scope is
//! expanded again (check, downgrade), since a report can become a directory
//! after the verdict. A report not written yet excludes nothing and is fine.

use camino::Utf8Path;

use crate::error::{DisplayPath, Error, Result};
use crate::nofollow::{self, DirProblem};
use crate::path::WorkspacePath;
use crate::platform::{self, Errno, FileType};

/// Refuses (`bad-report`) the report `report` of the workspace `workspace`
/// unless it is a regular file or does not exist; no symlink is followed,
/// its own or a parent directory's.
pub(crate) fn check_report(workspace: &Utf8Path, report: &WorkspacePath) -> Result<()> {
    let refused = |what: String| Error::BadReport {
        path: DisplayPath::from(report.as_str()),
        what,
    };
    let root = nofollow::open_workspace(workspace.as_std_path())?;
    let dir = match nofollow::open_dir(&root, report.dir()) {
        Ok(Some(dir)) => dir,
        Ok(None) => return Ok(()),
        Err(DirProblem::Symlink(link)) => {
            return Err(refused(format!(
                "below the symlink {}",
                DisplayPath::from(link.as_str())
            )));
        }
        Err(problem) => return Err(problem.for_file(report)),
    };
    match platform::stat_at(&dir, report.file_name()) {
        Ok(stat) => match stat.file_type() {
            FileType::RegularFile => Ok(()),
            other => Err(refused(format!("a {}", nofollow::describe(other)))),
        },
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(()),
        Err(e) => Err(Error::Unreadable {
            path: DisplayPath::from(report.as_str()),
            operation: "stat",
            source: e.into(),
        }),
    }
}

/// [`check_report`] of every report of a recorded verdict, whose scope is
/// about to be expanded again in `workspace`. A report the record holds that
/// is not a workspace path is left to the expansion, which refuses it.
pub(crate) fn check_reports(workspace: &Utf8Path, reports: &[String]) -> Result<()> {
    for report in reports {
        if let Ok(path) = WorkspacePath::new(report) {
            check_report(workspace, &path)?;
        }
    }
    Ok(())
}
