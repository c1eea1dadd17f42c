//! The units that share files, linted a group at a time (or restored from the group's record),
//! and the groups' findings merged.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::facts::FileFacts;
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::rules::{internal_error, syntax_error};
use crate::source::{ByteSpan, FileId, SourceFile, SourceMap};
use crate::timings;
use crate::unit::{LintUnit, UnitFile};

use super::canonical::{Canonical, PathKey};
use super::run::{in_pool, parser_pool, Run};
use super::units::check_units;
use super::waves::{feature_gated_files, test_files, Analysed};

/// A group from its record (see [`crate::replay`]) when it has one under `key` that still
/// holds; else linted (and recorded under `key`).
pub(super) fn lint_or_restore(
    members: &mut [LintUnit],
    key: Option<[u8; 32]>,
    run: &Run<'_>,
    canonical: &Canonical,
    settings: &Settings,
) -> Linted {
    let recorded = (run.cache.as_ref().zip(key)).and_then(|(cache, key)| cache.group(&key));
    if let (Some(cache), Some(record)) = (&run.cache, &recorded) {
        let restored = timings::phase(
            "groups from their records",
            || Linted::restored(record, run),
            |restored| restored.as_ref().map_or(0, |r| r.sources.len()),
        );
        if let Some(restored) = restored {
            // The entries the group used when it was recorded are kept for the next run.
            cache.keep(&record.journal);
            return restored;
        }
    }
    if let Some(cache) = &run.cache {
        cache.take_journal();
    }
    let linted = lint_group(members, run, canonical, settings);
    if let (Some(cache), Some(key)) = (&run.cache, key) {
        if let Some(record) = linted.record(cache.take_journal()) {
            cache.remember_group(key, record);
        }
    }
    linted
}

/// The groups of units that share files (by canonical path), each in the order of its first
/// unit, its units in their order: what is linted together.
pub(super) fn groups(
    units: &[LintUnit],
    canonical: &Canonical,
    settings: &Settings,
) -> Vec<Vec<usize>> {
    // Union-find over the units: each file joins the units that list it.
    let mut parent: Vec<usize> = (0..units.len()).collect();
    pub(super) fn root(parent: &mut [usize], mut at: usize) -> usize {
        while parent[at] != at {
            parent[at] = parent[parent[at]];
            at = parent[at];
        }
        at
    }
    let mut owner: HashMap<PathKey, usize> = HashMap::new();
    // A library list many targets share (one `Arc`) is walked once: a later target joins the
    // first one's group.
    let mut library_of: HashMap<usize, usize> = HashMap::new();
    for (index, unit) in units.iter().enumerate() {
        let mut library: &[UnitFile] = &unit.library;
        if !library.is_empty() {
            let list = Arc::as_ptr(&unit.library) as *const UnitFile as usize;
            if let Some(&first) = library_of.get(&list) {
                let (a, b) = (root(&mut parent, index), root(&mut parent, first));
                parent[a.max(b)] = a.min(b);
                library = &[];
            } else {
                library_of.insert(list, index);
            }
        }
        let files = unit.files.iter().chain(library);
        for file in files.filter(|f| !settings.is_excluded(&f.path)) {
            let key = canonical.of(&file.path);
            match owner.get(&key) {
                Some(&other) => {
                    let (a, b) = (root(&mut parent, index), root(&mut parent, other));
                    parent[a.max(b)] = a.min(b);
                }
                None => {
                    owner.insert(key, index);
                }
            }
        }
    }
    // A package is linted with the libraries of the workspace's packages it depends on by
    // `path`: what it runs of theirs (a sibling crate's function that serves stdio) is known
    // where it calls them.
    let libraries: HashMap<PathBuf, usize> = (units.iter().enumerate())
        .filter(|(_, unit)| unit.is_library)
        .filter_map(|(index, unit)| Some((crate::unit::lexical(unit.manifest.as_deref()?), index)))
        .collect();
    for (index, unit) in units.iter().enumerate() {
        for dependency in &unit.path_dependencies {
            if let Some(&library) = libraries.get(dependency) {
                let (a, b) = (root(&mut parent, index), root(&mut parent, library));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut order: Vec<usize> = Vec::new();
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for index in 0..units.len() {
        let group = root(&mut parent, index);
        let list = members.entry(group).or_default();
        if list.is_empty() {
            order.push(group);
        }
        list.push(index);
    }
    order
        .into_iter()
        .filter_map(|group| members.remove(&group))
        .collect()
}

/// One group's files read and analysed, its units checked, its suppressions and policy
/// applied: its sources, its files' ids by canonical path, and its findings (ids of its
/// sources).
pub(super) fn lint_group(
    units: &mut [LintUnit],
    run: &Run<'_>,
    canonical: &Canonical,
    settings: &Settings,
) -> Linted {
    let mut analysed = Analysed::new(canonical);
    timings::phase(
        "read, pre-filter, parse (module trees)",
        || {
            analysed.follow_module_trees(units, run, settings);
            analysed.sources.len()
        },
        |read| *read,
    );
    analysed.follow_up(run, settings);

    let Analysed {
        ids,
        sources,
        facts,
        mut diagnostics,
        canonical,
        keys,
        skipped,
        declared,
        children,
        stamps,
        missing,
        too_deep: _,
    } = analysed;
    let cached = run.cache.as_ref().map(|cache| (cache, &keys));
    let sdk = |manifest: Option<&Path>| run.sdk(settings, manifest);
    let tests = test_files(units, (&ids, canonical), &facts, &declared);
    let features = |manifest: Option<&Path>| run.default_features(manifest);
    let gated = feature_gated_files(units, (&ids, canonical), &facts, &declared, &features);
    let found = check_units(
        units,
        (&ids, canonical),
        &sources,
        (&facts, &tests, &gated),
        (settings, &sdk, &features),
        cached,
    );
    diagnostics.extend(found);
    check_texts(&mut diagnostics, &sources);
    let diagnostics = timings::phase(
        "suppressions and policy",
        || {
            sort_and_dedup(&mut diagnostics, &sources);
            apply_policy(settings, &sources, &facts, diagnostics)
        },
        |_| sources.len(),
    );
    // What only the group needed (its facts, memos and skipped files) goes before the next,
    // freed on another thread while this one goes on.
    let spent = (facts, keys, skipped, declared, children);
    match parser_pool() {
        Some(pool) => pool.spawn(move || drop(spent)),
        None => drop(spent),
    }
    Linted {
        sources,
        ids,
        diagnostics,
        stamps,
        missing,
    }
}

/// What a group gave: its sources, its files' ids by canonical path, its findings (ids of its
/// sources), and what its record keeps of what it read (see [`crate::replay`]).
pub(super) struct Linted {
    pub(super) sources: SourceMap,
    pub(super) ids: HashMap<PathKey, FileId>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) stamps: HashMap<FileId, crate::cache::Stamp>,
    pub(super) missing: Vec<PathBuf>,
}

impl Linted {
    /// The group's record, if it can be kept (see [`crate::replay::record`]).
    pub(super) fn record(
        &self,
        journal: crate::cache::Journal,
    ) -> Option<crate::cache::GroupRecord> {
        let mut canonical: Vec<Option<&Path>> = vec![None; self.sources.len()];
        for (key, &id) in &self.ids {
            if let Some(slot) = canonical.get_mut(id) {
                *slot = Some(&key.0);
            }
        }
        let files = (self.sources.iter())
            .zip(canonical)
            .map(|((id, source), canonical)| {
                Some(crate::replay::ReadFile {
                    source,
                    canonical: canonical?,
                    stamp: self.stamps.get(&id),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        crate::replay::record(&files, &self.missing, &self.diagnostics, journal)
    }

    /// A group from its record (see [`crate::replay::restore`]), if its files are unchanged
    /// and the texts its findings show can be read again as they were.
    pub(super) fn restored(record: &crate::cache::GroupRecord, run: &Run<'_>) -> Option<Linted> {
        let (files, diagnostics) = crate::replay::restore(record)?;
        let mut sources = SourceMap::default();
        let mut ids = HashMap::new();
        for (source, canonical) in files {
            (run.on_file)();
            ids.insert(PathKey(canonical.into()), sources.add(source));
        }
        let mut checked = diagnostics.clone();
        check_texts(&mut checked, &sources);
        (checked == diagnostics).then_some(Linted {
            sources,
            ids,
            diagnostics,
            stamps: HashMap::new(),
            missing: Vec::new(),
        })
    }
}

/// The groups' sources and findings, joined: a file that two groups read (a module one
/// package's tree reaches in another) is one source, its findings deduplicated.
#[derive(Default)]
pub(super) struct Merged {
    pub(super) sources: SourceMap,
    pub(super) ids: HashMap<PathKey, FileId>,
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl Merged {
    pub(super) fn add(
        &mut self,
        sources: SourceMap,
        ids: HashMap<PathKey, FileId>,
        mut diagnostics: Vec<Diagnostic>,
    ) {
        let mut key_of: Vec<Option<PathKey>> = vec![None; sources.len()];
        for (key, id) in ids {
            if let Some(slot) = key_of.get_mut(id) {
                *slot = Some(key);
            }
        }
        let mut global: Vec<FileId> = Vec::with_capacity(key_of.len());
        for (source, key) in sources.into_files().into_iter().zip(key_of) {
            let known = key.as_ref().and_then(|k| self.ids.get(k)).copied();
            // A file an earlier group read too (a module one package's tree reaches in
            // another): a reading with its text in memory (checked for this group's findings)
            // takes the place of one without (let go, or skipped unparsed).
            if let Some(id) = known {
                let held = |s: &SourceFile| s.is_resident() && !s.text().is_empty();
                if held(&source) && self.sources.get(id).is_some_and(|s| !held(s)) {
                    self.sources.replace(id, source);
                }
                global.push(id);
                continue;
            }
            let id = self.sources.add(source);
            if let Some(key) = key {
                self.ids.insert(key, id);
            }
            global.push(id);
        }
        let map = |id: &mut FileId| *id = global.get(*id).copied().unwrap_or(*id);
        for d in &mut diagnostics {
            map(&mut d.file);
            d.labels.iter_mut().for_each(|l| map(&mut l.file));
            if let Some(fix) = &mut d.fix {
                fix.edits.iter_mut().for_each(|e| map(&mut e.file));
            }
        }
        self.diagnostics.append(&mut diagnostics);
    }
}

/// Read again the texts of the files the findings show (their texts were let go once
/// analysed), on the parser threads. A file that changed since it was analysed cannot be shown:
/// its findings, and those that point into it, give way to one finding that says so.
pub(super) fn check_texts(diagnostics: &mut Vec<Diagnostic>, sources: &SourceMap) {
    let files_of = |d: &Diagnostic| {
        std::iter::once(d.file)
            .chain(d.labels.iter().map(|l| l.file))
            .chain(d.fix.iter().flat_map(|f| f.edits.iter().map(|e| e.file)))
            .collect::<Vec<FileId>>()
    };
    let mut shown: Vec<FileId> = diagnostics.iter().flat_map(files_of).collect();
    shown.sort_unstable();
    shown.dedup();
    let lost: HashSet<FileId> = timings::phase(
        "texts of the findings",
        || {
            in_pool(|| {
                shown
                    .par_iter()
                    .copied()
                    .filter(|&id| sources.get(id).is_some_and(SourceFile::is_lost))
                    .collect()
            })
        },
        |_| shown.len(),
    );
    if lost.is_empty() {
        return;
    }
    diagnostics.retain(|d| files_of(d).iter().all(|id| !lost.contains(id)));
    let mut lost: Vec<FileId> = lost.into_iter().collect();
    lost.sort_unstable();
    for id in lost {
        let mut changed = syntax_error::diagnostic(
            id,
            ByteSpan::default(),
            "this file changed while it was being linted, so its findings cannot be shown"
                .to_string(),
            Some("lint it again".to_string()),
        );
        changed.notes.clear();
        diagnostics.push(changed);
    }
}

/// [`crate::policy::apply`] to every diagnostic but the internal errors (MCP999), which no
/// suppression or level hides: the tool's failure is never the linted code's to silence.
pub(super) fn apply_policy(
    settings: &Settings,
    sources: &SourceMap,
    facts: &[Option<FileFacts>],
    diagnostics: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let (mut internal, diagnostics): (Vec<_>, Vec<_>) = diagnostics
        .into_iter()
        .partition(internal_error::is_internal_error);
    let mut kept = crate::policy::apply(settings, sources, facts, diagnostics);
    kept.append(&mut internal);
    kept
}

pub(super) fn sort_and_dedup(diagnostics: &mut Vec<Diagnostic>, sources: &SourceMap) {
    let path_of = |d: &Diagnostic| {
        sources
            .get(d.file)
            .map(|s| s.display_path.clone())
            .unwrap_or_default()
    };
    diagnostics.sort_by(|a, b| {
        (path_of(a), a.span.start, a.span.end, a.code, &a.message).cmp(&(
            path_of(b),
            b.span.start,
            b.span.end,
            b.code,
            &b.message,
        ))
    });
    diagnostics.dedup_by(|a, b| {
        a.file == b.file && a.span == b.span && a.code == b.code && a.message == b.message
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> UnitFile {
        UnitFile {
            path: Path::new(path).into(),
            module: Vec::new().into(),
            owns_directory: false,
        }
    }

    fn unit(name: &str, files: &[&str]) -> LintUnit {
        LintUnit {
            name: name.into(),
            files: files.iter().map(|f| file(f)).collect(),
            ..LintUnit::default()
        }
    }

    #[test]
    fn units_that_share_a_file_are_one_group_in_their_order() {
        // The paths do not exist: each is its own canonical path.
        let units = [
            unit("a", &["/x/a.rs", "/x/lib.rs"]),
            unit("b", &["/x/b.rs"]),
            unit("c", &["/x/c.rs", "/x/lib.rs"]),
            unit("d", &["/x/d.rs", "/x/c.rs"]),
        ];
        let groups = groups(&units, &Canonical::default(), &Settings::default());
        // `a` and `c` share the library, `d` shares `c.rs` with `c`: a chain joins them.
        assert_eq!(groups, [vec![0, 2, 3], vec![1]]);
    }

    #[test]
    fn targets_that_share_one_library_list_are_one_group() {
        let library: Arc<[UnitFile]> = vec![file("/y/lib.rs"), file("/y/m.rs")].into();
        let with_library = |name: &str, root: &str| LintUnit {
            library: library.clone(),
            ..unit(name, &[root])
        };
        let units = [
            with_library("bin", "/y/main.rs"),
            unit("other", &["/z/main.rs"]),
            with_library("example", "/y/examples/e.rs"),
        ];
        let groups = groups(&units, &Canonical::default(), &Settings::default());
        assert_eq!(groups, [vec![0, 2], vec![1]]);
    }
}
