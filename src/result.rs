//! What a run found: the files it read and its findings. A leaf, so that what is done with a
//! result (output, reports, baselines, statistics, fixes) need not import the engine.

use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;

/// What a run found.
#[derive(Debug, Default)]
pub struct LintResult {
    pub sources: SourceMap,
    /// Sorted by path, then position.
    pub diagnostics: Vec<Diagnostic>,
}

impl LintResult {
    pub fn files_linted(&self) -> usize {
        self.sources.len()
    }
}
