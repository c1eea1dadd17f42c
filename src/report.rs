//! What the output formats and baselines are given: a run's result, with the repository root
//! that paths in reports are relative to.

use std::path::{Path, PathBuf};

use crate::engine::LintResult;
use crate::source::FileId;

/// What a format prints: a run's result, and where the repository's root is.
pub struct Report<'a> {
    pub result: &'a LintResult,
    /// Formats that name files relative to the repository (SARIF, GitLab) use this root.
    pub root: Option<PathBuf>,
}

impl Report<'_> {
    /// A file's path relative to the repository root (with `/`), or as displayed.
    pub fn repository_path(&self, file: FileId) -> String {
        let Some(source) = self.result.sources.get(file) else {
            return String::new();
        };
        if let Some(root) = &self.root {
            let absolute =
                std::fs::canonicalize(&source.path).unwrap_or_else(|_| source.path.clone());
            if let Ok(relative) = absolute.strip_prefix(root) {
                return crate::source::slash_separated(relative);
            }
        }
        source.display_path.clone()
    }
}

/// The git work tree holding `dir`, if any: git runs only in the nearest directory at or above
/// `dir` that holds a `.git`, so that a bare repository committed into the tree (a directory
/// holding `HEAD`, `objects` and `refs`) is never taken for the repository of its files.
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).ok()?;
    let top = absolute
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())?;
    let output = crate::programs::git(top)
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let top = PathBuf::from(
        String::from_utf8(output.stdout)
            .ok()?
            .trim_end_matches(['\n', '\r']),
    );
    Some(std::fs::canonicalize(&top).unwrap_or(top))
}
