//! The findings of each unit, kept in the facts cache: a unit whose input is unchanged (its
//! files' texts and module paths, its crate, flags, manifest and SDK, the enabled rules and the
//! settings the rules read) gives the same findings, so a warm run neither builds its crate
//! graph nor runs its rules. A unit whose findings cannot be kept exactly (an internal error, a
//! finding in a file outside the unit) is checked afresh every time.

use foldhash::HashMap;

use crate::cache::{Cache, StoredFinding};
use crate::config::Settings;
use crate::diagnostic::{Diagnostic, Edit, Fix, Label};
use crate::rules::{self, Rule};
use crate::source::FileId;

/// What a unit is checked with, besides its files' facts.
pub struct UnitInputs<'a> {
    pub files: &'a [FileId],
    /// The files of the libraries the unit's code may call into (see
    /// [`crate::rules::RuleContext::libraries`]): what they do decides findings of the unit.
    pub libraries: Vec<&'a [FileId]>,
    pub crate_name: Option<&'a str>,
    pub rooted: bool,
    /// The unit holds its whole crate (see [`crate::rules::RuleContext::whole_crate`]).
    pub whole_crate: bool,
    pub test_target: bool,
    pub manifest: Option<&'a std::path::Path>,
    pub sdk: Option<&'a crate::sdk::Sdk>,
    /// The features its package's default build enables (which files are feature-gated).
    pub features: crate::features::Enabled,
}

/// The key of a unit's findings, or `None` when they are not to be cached: a file of the unit
/// has no cache key, or the test hook that makes a rule panic is set.
pub fn key(
    unit: &UnitInputs<'_>,
    keys: &HashMap<FileId, [u8; 32]>,
    rules: &[&'static dyn Rule],
    settings: &Settings,
) -> Option<[u8; 32]> {
    if settings.panic_on_file.is_some() {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"unit\0");
    hasher.update(&(unit.files.len() as u64).to_le_bytes());
    for file in unit.files {
        hasher.update(keys.get(file)?);
    }
    for library in &unit.libraries {
        hasher.update(b"library\0");
        hasher.update(&(library.len() as u64).to_le_bytes());
        for file in *library {
            hasher.update(keys.get(file)?);
        }
    }
    let described = format!(
        "{:?}\0{}\0{}\0{}\0{:?}\0{:?}\0{:?}\0{}\0{:?}\0{:?}",
        unit.crate_name,
        unit.rooted,
        unit.whole_crate,
        unit.test_target,
        unit.manifest,
        unit.sdk,
        unit.features,
        settings.preview,
        settings.protocol_versions,
        rules.iter().map(|r| r.meta().code).collect::<Vec<_>>(),
    );
    hasher.update(described.as_bytes());
    Some(*hasher.finalize().as_bytes())
}

impl UnitInputs<'_> {
    /// The unit's files, then its libraries': a finding may lie in a library's file (a write
    /// its code runs while the unit serves), so what is kept of the unit's findings names them
    /// by their place in this list.
    pub fn all_files(&self) -> Vec<FileId> {
        (self.files.iter())
            .chain(self.libraries.iter().flat_map(|files| files.iter()))
            .copied()
            .collect()
    }
}

/// The unit's findings: from the cache if `key` is there, else from `check` (and then kept).
pub fn checked(
    key: Option<[u8; 32]>,
    files: &[FileId],
    cache: &Cache,
    check: impl FnOnce() -> Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let Some(key) = key else {
        return check();
    };
    if let Some(stored) = cache.unit_findings(&key) {
        if let Some(restored) = stored.iter().map(|s| restore(s, files)).collect() {
            return restored;
        }
    }
    let found = check();
    let stored: Option<Vec<StoredFinding>> = found.iter().map(|d| store(d, files)).collect();
    if let Some(stored) = stored {
        cache.remember_unit(key, stored);
    }
    found
}

/// A finding as the cache keeps it, or `None` if it cannot be kept exactly.
pub fn store(d: &Diagnostic, files: &[FileId]) -> Option<StoredFinding> {
    let place = |file: FileId| files.iter().position(|f| *f == file);
    static_names(d.code, d.name)?;
    if d.code == rules::internal_error::META.code {
        return None;
    }
    Some(StoredFinding {
        code: d.code.to_string(),
        name: d.name.to_string(),
        severity: d.severity,
        message: d.message.clone(),
        file: place(d.file)?,
        span: d.span,
        labels: d
            .labels
            .iter()
            .map(|l| Some((place(l.file)?, l.span, l.message.clone())))
            .collect::<Option<_>>()?,
        notes: d.notes.clone(),
        help: d.help.clone(),
        fix: match &d.fix {
            None => None,
            Some(fix) => Some((
                fix.applicability,
                fix.message.clone(),
                fix.edits
                    .iter()
                    .map(|e| Some((place(e.file)?, e.span, e.replacement.clone())))
                    .collect::<Option<_>>()?,
            )),
        },
        context: d.context.clone(),
    })
}

/// The finding a stored one was, or `None` if it names a rule or a file this run does not have.
pub fn restore(s: &StoredFinding, files: &[FileId]) -> Option<Diagnostic> {
    let (code, name) = static_names(&s.code, &s.name)?;
    let file = |place: usize| files.get(place).copied();
    Some(Diagnostic {
        code,
        name,
        severity: s.severity,
        message: s.message.clone(),
        file: file(s.file)?,
        span: s.span,
        labels: s
            .labels
            .iter()
            .map(|(place, span, message)| {
                Some(Label {
                    file: file(*place)?,
                    span: *span,
                    message: message.clone(),
                })
            })
            .collect::<Option<_>>()?,
        notes: s.notes.clone(),
        help: s.help.clone(),
        fix: match &s.fix {
            None => None,
            Some((applicability, message, edits)) => Some(Fix {
                applicability: *applicability,
                message: message.clone(),
                edits: edits
                    .iter()
                    .map(|(place, span, replacement)| {
                        Some(Edit {
                            file: file(*place)?,
                            span: *span,
                            replacement: replacement.clone(),
                        })
                    })
                    .collect::<Option<_>>()?,
            }),
        },
        context: s.context.clone(),
    })
}

/// A rule's code and name as the registry holds them.
fn static_names(code: &str, name: &str) -> Option<(&'static str, &'static str)> {
    rules::registry()
        .into_iter()
        .map(|r| r.meta())
        .chain([&rules::internal_error::META])
        .find(|m| m.code == code && m.name == name)
        .map(|m| (m.code, m.name))
}
