//! The engine: read and parse every file once (in parallel), build its facts, join the facts of
//! each crate and run the rules over them.
//!
//! - [`groups`](mod@groups): the units that share files, linted a group at a time (or restored from their
//!   record), and their findings merged;
//! - [`waves`]: the files of a group read, the module trees followed, and the follow-up waves
//!   that parse the skipped files the parsed ones point at;
//! - [`files`]: one file read (held to the size limit and the linted directories), pre-filtered
//!   and analysed, through the cache;
//! - [`units`]: each unit's crate graph built and the rules run on it;
//! - [`run`] and [`canonical`]: what every file of a run is analysed with, and canonical paths.

mod canonical;
mod files;
mod groups;
mod run;
mod units;
mod waves;

use std::path::Path;

use crate::config::Settings;
pub use crate::result::LintResult;
use crate::rules::{self, internal_error, syntax_error};
use crate::source::SourceFile;
use crate::timings;
pub use crate::unit::{LintUnit, UnitFile};
pub use run::Overlay;
pub use waves::MAX_MODULE_DEPTH;

use canonical::Canonical;
use files::{confinement, stamp_salt};
use groups::{groups, lint_or_restore, sort_and_dedup, Merged};
use run::Run;

/// Lint the units. File paths are shown relative to `cwd`.
pub fn lint(units: &[LintUnit], cwd: &Path) -> LintResult {
    lint_with(units, cwd, &Overlay::new(), &Settings::default())
}

/// Lint the units with `settings`, reading the files of `overlay` from it rather than from disk.
pub fn lint_with(
    units: &[LintUnit],
    cwd: &Path,
    overlay: &Overlay,
    settings: &Settings,
) -> LintResult {
    lint_observed(units, cwd, overlay, settings, &|| {})
}

/// [`lint_with`], calling `on_file` (from any thread) each time a file has been read.
pub fn lint_observed(
    units: &[LintUnit],
    cwd: &Path,
    overlay: &Overlay,
    settings: &Settings,
    on_file: &(dyn Fn() + Sync),
) -> LintResult {
    let run = run_for(units, cwd, overlay, settings, on_file);
    // The units are linted a group at a time (the units that share a file: a package's
    // targets and its library; and the libraries of the packages it depends on by `path`), each
    // group's facts dropped before the next: a run holds the facts of one group, not of the
    // tree, and what one package holds decides what is found in another only through a
    // function of its library that the other calls.
    let mut merged = Merged::default();
    let canonical = Canonical::default();
    // Groups are taken from their records (see [`crate::replay`]) when the files are linted
    // from disk, stamped, and no test hook is set.
    let replay = (run.cache.is_some()
        && run.overlay.is_empty()
        && run.stamp_salt.is_some()
        && run.test_panic.is_none())
    .then(|| crate::replay::run_key(settings, cwd, &run.roots));
    for group in groups(units, &canonical, settings) {
        // The group's units, without the excluded files; the module trees extend these.
        let mut members: Vec<LintUnit> = group
            .iter()
            .map(|&index| {
                let unit = &units[index];
                LintUnit {
                    files: unit
                        .all_files()
                        .filter(|f| !settings.is_excluded(&f.path))
                        .cloned()
                        .collect(),
                    library: Default::default(),
                    ..unit.clone()
                }
            })
            .collect();
        let key = replay.as_ref().map(|run_key| {
            let units: Vec<&LintUnit> = group.iter().map(|&index| &units[index]).collect();
            let sdks: Vec<_> = (units.iter())
                .map(|unit| run.sdk(settings, unit.manifest.as_deref()))
                .collect();
            crate::replay::group_key(run_key, &units, &sdks)
        });
        let linted = lint_or_restore(&mut members, key, &run, &canonical, settings);
        merged.add(linted.sources, linted.ids, linted.diagnostics);
        drop(members);
    }
    let Merged {
        sources,
        mut diagnostics,
        ..
    } = merged;
    if let Some(cache) = run.cache {
        timings::phase("cache save", || cache.save(), |_| 0);
    }
    sort_and_dedup(&mut diagnostics, &sources);
    LintResult {
        sources,
        diagnostics,
    }
}
/// What every file of a run of `units` is analysed with: the enabled rules' collectors and
/// pre-filter, the cache (when one is set), the directories files are read in, and what keys
/// the stamps of skipped files.
fn run_for<'a>(
    units: &[LintUnit],
    cwd: &'a Path,
    overlay: &'a Overlay,
    settings: &'a Settings,
    on_file: &'a (dyn Fn() + Sync),
) -> Run<'a> {
    let collectors = rules::collectors(settings);
    let collector_keys: Vec<&str> = collectors.iter().map(|c| c.key()).collect();
    let cache = timings::phase(
        "cache load",
        || {
            settings.cache_directory.as_deref().map(|dir| {
                crate::cache::Cache::open_in_mode(
                    dir,
                    &settings.vocabulary,
                    &collector_keys,
                    settings.preview,
                )
            })
        },
        |_| 0,
    );
    let prefilter = rules::prefilter(settings);
    let roots = confinement(units);
    let stamp_salt = cache
        .as_ref()
        .and_then(|_| stamp_salt(&prefilter, settings, &roots));
    Run {
        on_file,
        max_file_size: settings.max_file_size,
        cwd,
        overlay,
        vocabulary: &settings.vocabulary,
        marks: rules::path_marks(&settings.vocabulary),
        collectors,
        prefilter,
        cache,
        test_panic: internal_error::test_panic_file(settings),
        roots,
        stamp_salt,
        sdks: Default::default(),
        features: Default::default(),
    }
}

/// Report each manifest that could not be read (when cargo mode read the workspace without
/// cargo) as a finding of `MCP000` on the manifest's own line, beside the run's other findings.
pub fn report_unreadable_manifests(
    result: &mut LintResult,
    manifests: &[crate::discovery::manifests::ManifestProblem],
    cwd: &Path,
    settings: &Settings,
) {
    for problem in manifests {
        let Some(severity) = settings.severity(
            syntax_error::META.code,
            syntax_error::META.default_severity,
            &problem.path,
        ) else {
            continue;
        };
        let id = result.sources.add(SourceFile::new(
            problem.path.clone(),
            crate::source::display_path(&problem.path, cwd),
            problem.text.clone(),
        ));
        let mut diagnostic = syntax_error::diagnostic(
            id,
            problem.span,
            problem.message.clone(),
            Some("fix the manifest: cargo's own error, shown above, says what it found".into()),
        );
        diagnostic.severity = severity;
        diagnostic.notes = vec!["the other packages of the workspace were still linted".into()];
        result.diagnostics.push(diagnostic);
    }
    result.diagnostics.sort_by_key(|d| d.sort_key());
}
