//! The settings of a run: rule levels (by file), excluded paths, the protocol versions and SDK
//! targeted, preview mode, and the analysis's vocabulary. The configuration ([`crate::config`]) builds them;
//! the engine, the rules and the policy read them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use globset::GlobSet;
use serde::{Deserialize, Serialize};

use crate::analysis::vocabulary::Vocabulary;
use crate::diagnostic::Severity;
use crate::protocol::ProtocolVersion;

/// What a rule is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

/// Which findings fail a run (exit status 1): `fail-on` in the configuration, `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Errors only: warnings are shown and the run passes (as a build passes with rustc's and
    /// clippy's warnings).
    Error,
    /// Every finding, warnings too (as ruff fails on any finding).
    #[default]
    Warning,
}

impl FailOn {
    /// Whether a finding of this severity fails the run.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity == Severity::Error,
            FailOn::Warning => true,
        }
    }
}

/// Where the configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    File(PathBuf),
    CargoMetadata(PathBuf),
    Default,
}

/// Everything a run is configured with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub source: ConfigSource,
    /// Glob patterns are relative to this directory.
    pub root: PathBuf,
    pub vocabulary: Vocabulary,
    pub(crate) levels: BTreeMap<&'static str, Level>,
    pub(crate) overrides: Vec<(GlobSet, Vec<String>, BTreeMap<&'static str, Level>)>,
    pub(crate) exclude: GlobSet,
    pub(crate) exclude_patterns: Vec<String>,
    pub(crate) command_line: BTreeMap<&'static str, Level>,
    /// The rules named by their code or name (not by `all`) in the configuration's levels or on
    /// the command line: naming a preview rule without preview mode earns a warning.
    pub(crate) named: BTreeSet<&'static str>,
    /// Preview mode (`--preview`, `preview = true`): the rules in preview run, and so do the
    /// shapes of stable rules that are in preview (see `RuleContext::preview`).
    pub preview: bool,
    pub protocol_versions: Vec<ProtocolVersion>,
    pub require_suppression_reason: bool,
    /// Which findings fail the run.
    pub fail_on: FailOn,
    /// The SDK the configuration names (else it is read per package).
    pub sdk: Option<crate::sdk::Sdk>,
    /// Parse every file, not only those the pre-filter wants (`--all-files`): syntax errors
    /// are then reported in every file.
    pub analyse_every_file: bool,
    /// Where the facts cache lives (`None`: no cache).
    pub cache_directory: Option<PathBuf>,
    /// Files larger than this (bytes) are reported and not analysed.
    pub max_file_size: u64,
    /// A test hook, set only by Rust code (no configuration key): the analysis of files with
    /// this name panics (see `rules::internal_error::test_panic_file`).
    #[doc(hidden)]
    pub panic_on_file: Option<String>,
}

/// The default file size limit: 2 MiB (the largest generated schema file of the ecosystem's
/// MCP crates is under 0.5 MiB).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

/// The most `max-file-size-mib` can raise the file size limit to: 2 MiB. The configuration may
/// come from the linted tree, which must not make a run read and parse without bound: parsing
/// costs up to about 380 times a file's size in memory (2 MiB of `x(1,2,3);` take 775 MB, 8 MiB
/// take 3 GB), and files over [`crate::analysis::BIG_TEXT`] are parsed one at a time, so a run
/// stays under 1 GiB.
pub const MAX_FILE_SIZE_CEILING: u64 = 2 * 1024 * 1024;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            source: ConfigSource::Default,
            root: PathBuf::from("."),
            vocabulary: Vocabulary::default(),
            levels: BTreeMap::new(),
            overrides: Vec::new(),
            exclude: GlobSet::empty(),
            exclude_patterns: Vec::new(),
            command_line: BTreeMap::new(),
            named: BTreeSet::new(),
            preview: false,
            protocol_versions: vec![ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28],
            require_suppression_reason: false,
            fail_on: FailOn::Warning,
            sdk: None,
            analyse_every_file: false,
            cache_directory: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            panic_on_file: None,
        }
    }
}

impl Settings {
    /// Everything of the settings that can change what a run finds, written out: a group whose
    /// record was made under other settings is checked afresh (see [`crate::replay`]). Every
    /// field is named, so a new one must be placed here or left out on purpose.
    pub fn findings_fingerprint(&self) -> String {
        let Settings {
            source,
            root,
            vocabulary,
            levels,
            // The globs are those of `overrides`' patterns and `exclude_patterns`.
            overrides,
            exclude: _,
            exclude_patterns,
            command_line,
            named,
            preview,
            protocol_versions,
            require_suppression_reason,
            fail_on,
            sdk,
            analyse_every_file,
            // Where the records are kept.
            cache_directory: _,
            max_file_size,
            panic_on_file,
        } = self;
        let overrides: Vec<_> = overrides.iter().map(|(_, p, l)| (p, l)).collect();
        format!(
            "{source:?}\0{root:?}\0{vocabulary:?}\0{levels:?}\0{overrides:?}\0{exclude_patterns:?}\0\
             {command_line:?}\0{named:?}\0{preview}\0{protocol_versions:?}\0\
             {require_suppression_reason}\0{fail_on:?}\0{sdk:?}\0{analyse_every_file}\0\
             {max_file_size}\0{panic_on_file:?}"
        )
    }

    /// The level a rule is set to for a file (relative to the current directory or absolute),
    /// or `None` for the rule's default.
    pub fn level(&self, code: &str, path: &Path) -> Option<Level> {
        if let Some(level) = self.command_line.get(code) {
            return Some(*level);
        }
        let relative = self.relative(path);
        for (globs, _, levels) in self.overrides.iter().rev() {
            if globs.is_match(&relative) {
                if let Some(level) = levels.get(code) {
                    return Some(*level);
                }
            }
        }
        self.levels.get(code).copied()
    }

    /// Whether a rule can report anything in this run: it is not allowed everywhere (by the
    /// command line, or by the configuration with no override that turns it back on).
    pub fn may_report(&self, code: &str) -> bool {
        if let Some(level) = self.command_line.get(code) {
            return *level != Level::Allow;
        }
        self.levels.get(code) != Some(&Level::Allow)
            || self
                .overrides
                .iter()
                .any(|(_, _, levels)| levels.get(code).is_some_and(|l| *l != Level::Allow))
    }

    /// The severity a diagnostic of `code` gets for `path`, or `None` when the rule is allowed.
    pub fn severity(&self, code: &str, default: Severity, path: &Path) -> Option<Severity> {
        match self.level(code, path) {
            Some(Level::Allow) => None,
            Some(Level::Warn) => Some(Severity::Warning),
            Some(Level::Deny) => Some(Severity::Error),
            None => Some(default),
        }
    }

    /// Whether a file is excluded from linting.
    pub fn is_excluded(&self, path: &Path) -> bool {
        !self.exclude_patterns.is_empty() && self.exclude.is_match(self.relative(path))
    }

    fn relative(&self, path: &Path) -> PathBuf {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|d| d.join(path))
                .unwrap_or_else(|_| path.to_path_buf())
        };
        let absolute = crate::unit::normalise(&absolute);
        let root = crate::unit::normalise(&self.root);
        absolute
            .strip_prefix(&root)
            .map(Path::to_path_buf)
            .unwrap_or(absolute)
    }

    /// Whether only protocol 2025-11-25 is targeted.
    pub fn targets_only_2025(&self) -> bool {
        !self
            .protocol_versions
            .contains(&ProtocolVersion::V2026_07_28)
    }
}
