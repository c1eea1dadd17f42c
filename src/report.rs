//! What the output formats and baselines are given: a run's result, with the repository root
//! that paths in reports are relative to.

use std::path::PathBuf;

use crate::result::LintResult;
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

pub use crate::programs::repository_root;
