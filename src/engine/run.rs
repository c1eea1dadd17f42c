//! What every file of a run is analysed with, and the threads files are parsed on.

use foldhash::HashMap;
use std::path::{Path, PathBuf};

use crate::analysis::vocabulary::Vocabulary;
use crate::config::Settings;
use crate::unit::UnitFile;

/// The stack size of the threads that parse: deeply nested code recurses deeply.
pub(super) const PARSER_STACK: usize = 256 * 1024 * 1024;

/// The threads files are parsed on (with a stack deep enough for what the nesting pre-check
/// lets through), made once per process: a run, and each round of `--fix`, reuse them.
pub(super) fn parser_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(PARSER_STACK)
            .build()
            .ok()
    })
    .as_ref()
}

/// What every file of a run is analysed with.
pub(super) struct Run<'a> {
    pub(super) on_file: &'a (dyn Fn() + Sync),
    pub(super) max_file_size: u64,
    pub(super) cwd: &'a Path,
    pub(super) overlay: &'a Overlay,
    pub(super) vocabulary: &'a Vocabulary,
    /// The condition whose paths the send analysis follows (see [`crate::rules::path_marks`]).
    pub(super) marks: Box<dyn crate::analysis::sends::marks::PathMarks + 'a>,
    /// The enabled rules that collect facts of their own.
    pub(super) collectors: Vec<&'static dyn crate::analysis::walk::Collects>,
    pub(super) prefilter: crate::prefilter::Prefilter,
    pub(super) cache: Option<crate::cache::Cache>,
    /// The test hook's file name (see [`crate::rules::internal_error::test_panic_file`]).
    pub(super) test_panic: Option<String>,
    /// The directories files are read in (see [`crate::unit::LintUnit::roots`]); empty: anywhere.
    pub(super) roots: Vec<PathBuf>,
    /// What keys the stamps of skipped files (see [`crate::cache::Stamp`]): the pre-filter's
    /// digest and the size limit; `None` when there is no cache or every file is parsed.
    pub(super) stamp_salt: Option<[u8; 32]>,
    /// Each package's SDK, by its manifest: read once per run from the manifest and lock file
    /// (a group's key and its units' checks both need it).
    pub(super) sdks: std::sync::Mutex<HashMap<PathBuf, Option<crate::sdk::Sdk>>>,
    /// Each package's features on by default, by its manifest (see [`Run::default_features`]).
    pub(super) features: std::sync::Mutex<HashMap<PathBuf, DefaultFeatures>>,
}

/// The features a package's default build enables (see [`crate::features`]); `None` when its
/// manifest cannot be read.
pub(super) type DefaultFeatures = crate::features::Enabled;

impl Run<'_> {
    /// The SDK of a unit with this manifest: the configured one, or its package's.
    pub(super) fn sdk(
        &self,
        settings: &Settings,
        manifest: Option<&Path>,
    ) -> Option<crate::sdk::Sdk> {
        settings.sdk.clone().or_else(|| {
            let manifest = manifest?;
            let mut known = self.sdks.lock().ok()?;
            known
                .entry(manifest.to_path_buf())
                .or_insert_with(|| crate::sdk::detect(manifest))
                .clone()
        })
    }

    /// The features a package's default build enables, read once per run from the manifest of
    /// a unit; `None` without a manifest (path mode) or one that cannot be read.
    pub(super) fn default_features(&self, manifest: Option<&Path>) -> DefaultFeatures {
        let manifest = manifest?;
        let mut known = self.features.lock().ok()?;
        known
            .entry(manifest.to_path_buf())
            .or_insert_with(|| {
                crate::features::enabled_by_default(manifest).map(std::sync::Arc::new)
            })
            .clone()
    }

    /// Where the stamp of a file (by its canonical path) is kept, and its stamp now, if a file
    /// skipped before may be skipped again unread: not a file of the overlay, and one whose
    /// metadata a change must alter.
    pub(super) fn stamp(
        &self,
        canonical: &Path,
        file: &UnitFile,
        follows: bool,
    ) -> Option<([u8; 32], crate::cache::Stamp)> {
        let salt = self.stamp_salt.as_ref()?;
        if self.overlay.contains_key(&*file.path) {
            return None;
        }
        let stamp = crate::cache::Stamp::of(&std::fs::metadata(canonical).ok()?)?;
        Some((crate::cache::stamp_key(salt, canonical, follows), stamp))
    }
}

/// Texts to lint in place of what is on disk, by the path the unit names (the fixer's edits).
pub type Overlay = std::collections::HashMap<PathBuf, String>;

/// Run `work` on the parser threads (their stack is deep enough for any syntax the nesting
/// pre-check lets through), or here if they could not be made.
pub(super) fn in_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match parser_pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}
