//! A group's files read: the units' files, the module trees their declarations load, and the
//! follow-up waves that parse the skipped files that what was parsed points at.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::facts::FileFacts;
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::discovery::module_tree::{self, ModuleFile};
use crate::prefilter::{Trigrams, Wanted};
use crate::rules::{self, syntax_error};
use crate::source::{ByteSpan, FileId, SourceFile, SourceMap};
use crate::timings;
use crate::unit::{LintUnit, ModDecl, UnitFile};

use super::canonical::{Canonical, PathKey};
use super::files::{analyse_file, declaring_file, read_fresh, FileOutcome};
use super::run::{in_pool, Run};

/// The analysed files of a run, each analysed once however many units list it.
pub(super) struct Analysed<'c> {
    pub(super) ids: HashMap<PathKey, FileId>,
    pub(super) sources: SourceMap,
    pub(super) facts: Vec<Option<FileFacts>>,
    /// Files read but not parsed, by id: the unit file they came from, and the three-byte
    /// sequences their text holds.
    pub(super) skipped: HashMap<FileId, (UnitFile, Trigrams)>,
    /// The out-of-line modules that files read but not parsed declare (see
    /// [`crate::prefilter::Wanted::Modules`]), by id.
    pub(super) declared: HashMap<FileId, Vec<ModDecl>>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) canonical: &'c Canonical,
    /// The cache's key of each file's entry (its text and module path), when there is a cache.
    pub(super) keys: HashMap<FileId, [u8; 32]>,
    /// The file each module declaration of a file loads (in the order of its declarations), as
    /// a unit's file, by the declaring file, the path it was reached by (declarations resolve
    /// from it, as rustc resolves them), whether it owns its directory and its module path: a
    /// library's files are in each of its package's targets (which share these), and finding a
    /// module's file looks at the disk.
    pub(super) children: HashMap<ChildrenKey, Vec<Option<(UnitFile, bool)>>>,
    /// The files whose declarations were not followed: nested [`MAX_MODULE_DEPTH`] deep.
    pub(super) too_deep: HashSet<FileId>,
    /// Each file's stamp when it was first read (see [`Run::stamp`]), if it had one: what the
    /// group's record keeps (see [`crate::replay`]).
    pub(super) stamps: HashMap<FileId, crate::cache::Stamp>,
    /// The paths module declarations were looked for at and that were not files.
    pub(super) missing: Vec<PathBuf>,
}

/// A file declaring modules: its id, the path it was reached by, whether it owns its
/// directory, and its module path.
pub(super) type ChildrenKey = (FileId, std::ffi::OsString, bool, Arc<[String]>);

impl<'c> Analysed<'c> {
    pub(super) fn new(canonical: &'c Canonical) -> Self {
        Analysed {
            ids: HashMap::new(),
            sources: SourceMap::default(),
            facts: Vec::new(),
            skipped: HashMap::new(),
            declared: HashMap::new(),
            diagnostics: Vec::new(),
            canonical,
            keys: HashMap::new(),
            children: HashMap::new(),
            too_deep: HashSet::new(),
            stamps: HashMap::new(),
            missing: Vec::new(),
        }
    }

    pub(super) fn key(&self, path: &Path) -> PathKey {
        self.canonical.of(path)
    }

    pub(super) fn id(&self, path: &Path) -> Option<FileId> {
        self.ids.get(&self.key(path)).copied()
    }

    /// Read the files not read yet (in parallel) and parse those the pre-filter wants.
    pub(super) fn analyse(&mut self, files: Vec<(&UnitFile, bool)>, run: &Run<'_>) {
        let mut seen = HashSet::new();
        let mut fresh: Vec<(PathKey, &UnitFile, bool)> = Vec::new();
        for (file, follows) in files {
            let key = self.key(&file.path);
            if !self.ids.contains_key(&key) && seen.insert(key.clone()) {
                fresh.push((key, file, follows));
            }
        }
        let first = self.sources.len();
        type Read = (
            (SourceFile, FileOutcome, Option<[u8; 32]>),
            Option<crate::cache::Stamp>,
        );
        let outcomes: Vec<Read> = in_pool(|| {
            fresh
                .par_iter()
                .enumerate()
                .map(|(offset, (key, file, follows))| {
                    let stamp = run.stamp(&key.0, file, *follows);
                    let kept = stamp.as_ref().map(|(_, stamp)| stamp.clone());
                    (read_fresh(first + offset, file, *follows, stamp, run), kept)
                })
                .collect()
        });
        for ((key, file, _), ((source, outcome, entry), stamp)) in fresh.into_iter().zip(outcomes) {
            let id = self.sources.add(source);
            self.ids.insert(key, id);
            if let Some(entry) = entry {
                self.keys.insert(id, entry);
            }
            if let Some(stamp) = stamp {
                self.stamps.insert(id, stamp);
            }
            self.record(id, file, outcome);
        }
    }

    pub(super) fn record(&mut self, id: FileId, file: &UnitFile, outcome: FileOutcome) {
        let slot = match outcome {
            FileOutcome::Facts(f) => {
                self.skipped.remove(&id);
                Some(f)
            }
            FileOutcome::Skipped(trigrams, declared) => {
                let trigrams = trigrams.unwrap_or_else(Trigrams::any);
                self.skipped.insert(id, (file.clone(), trigrams));
                if !declared.is_empty() {
                    self.declared.insert(id, declared);
                }
                None
            }
            FileOutcome::Failed(d) => {
                self.skipped.remove(&id);
                self.diagnostics.push(d);
                None
            }
        };
        if id < self.facts.len() {
            self.facts[id] = slot;
        } else {
            self.facts.push(slot);
        }
    }

    /// Parse the skipped files that hold any of `needles` (and, if they hold
    /// [`crate::prefilter::MODULE_FILES`], those that declare modules).
    pub(super) fn parse_skipped_matching(&mut self, needles: &[String], run: &Run<'_>) -> usize {
        let module_files = needles.iter().any(|n| n == crate::prefilter::MODULE_FILES);
        let needles: Vec<String> = (needles.iter())
            .filter(|n| *n != crate::prefilter::MODULE_FILES)
            .cloned()
            .collect();
        let needles = needles.as_slice();
        let declaring = |id: &FileId| module_files && self.declared.contains_key(id);
        let Some(automaton) = crate::prefilter::NeedleSearch::new(needles) else {
            return 0;
        };
        let mut send_words: Vec<String> = crate::prefilter::SEND_WORDS
            .iter()
            .map(|w| w.to_string())
            .collect();
        send_words.extend(run.vocabulary.sink_calls.iter().cloned());
        send_words.extend(run.vocabulary.sink_paths.iter().cloned());
        let Some(sends) = crate::prefilter::automaton(&send_words) else {
            return 0;
        };
        let wanted = |text: &str| automaton.is_match(text) && sends.is_match(text);
        // The stdout writers (MCP002) need no send word: their needles stand alone.
        let stdout_writers = crate::prefilter::NeedleSearch::new(
            &needles
                .iter()
                .filter(|n| crate::prefilter::is_standalone(n))
                .cloned()
                .collect::<Vec<_>>(),
        );
        let wanted = |text: &str| {
            if wanted(text) || stdout_writers.as_ref().is_some_and(|s| s.is_match(text)) {
                Wanted::Parse
            } else {
                Wanted::Skip
            }
        };
        // Only the files that may hold a needle are read again: each needle's text (without its
        // companion word), every three-byte window of it in the file.
        let patterns: Vec<&[u8]> = needles
            .iter()
            .map(|n| {
                let n = n.trim_start_matches(crate::prefilter::STANDALONE);
                n.split(crate::prefilter::COMPANION)
                    .next()
                    .unwrap_or(n)
                    .as_bytes()
            })
            .collect();
        // A file asked for as one that declares modules is wanted whatever it holds: it is
        // taken unread from its stamp when the cache knows it (its canonical path for that).
        let skipped: Vec<(FileId, UnitFile, Option<PathKey>)> = self
            .skipped
            .iter()
            .filter_map(|(id, (f, trigrams))| {
                let declares = declaring(id);
                (declares || patterns.iter().any(|p| trigrams.may_contain(p)))
                    .then(|| (*id, f.clone(), declares.then(|| self.key(&f.path))))
            })
            .collect();
        type Parsed = (FileId, UnitFile, SourceFile, FileOutcome, Option<[u8; 32]>);
        let outcomes: Vec<Parsed> = in_pool(|| {
            skipped
                .into_par_iter()
                .filter_map(|(id, file, declares)| {
                    // A file the wave does not want stays as it was: its set is not needed.
                    let (source, outcome, entry) = match declares {
                        Some(key) => declaring_file(id, &file, &key.0, run),
                        None => analyse_file(id, &file, run, false, wanted),
                    };
                    (!matches!(outcome, FileOutcome::Skipped(..)))
                        .then_some((id, file, source, outcome, entry))
                })
                .collect()
        });
        let parsed = outcomes.len();
        for (id, file, source, outcome, entry) in outcomes {
            self.sources.replace(id, source);
            if let Some(entry) = entry {
                self.keys.insert(id, entry);
            }
            self.record(id, &file, outcome);
        }
        parsed
    }
}

/// The files that `#[cfg(test)] mod x;` declarations load, and those files' own children: test
/// code, whatever their directory is called. Declarations come from the parsed files' facts and
/// from the tokens of the files only read for them.
pub(super) fn test_files(
    units: &[LintUnit],
    ids: (&HashMap<PathKey, FileId>, &Canonical),
    facts: &[Option<FileFacts>],
    declared: &HashMap<FileId, Vec<ModDecl>>,
) -> std::collections::HashSet<FileId> {
    let marks = |_: &(), decl: &ModDecl| decl.test;
    loaded_under(units, ids, (facts, declared), &|_| Some(()), &marks)
}

/// The files compiled only with a feature their package's default build leaves off: those a
/// `#[cfg(feature = "x")] mod m;` declaration loads, and their children (`enabled_of` gives a
/// unit's features on by default, from its manifest; a unit without one gates nothing).
/// Declarations come from the parsed files' facts and from the tokens of the files only read
/// for them.
pub(super) fn feature_gated_files(
    units: &[LintUnit],
    ids: (&HashMap<PathKey, FileId>, &Canonical),
    facts: &[Option<FileFacts>],
    declared: &HashMap<FileId, Vec<ModDecl>>,
    enabled_of: &dyn Fn(Option<&Path>) -> super::run::DefaultFeatures,
) -> std::collections::HashSet<FileId> {
    let enabled = |unit: &LintUnit| enabled_of(unit.manifest.as_deref());
    let off = |enabled: &std::sync::Arc<std::collections::BTreeSet<String>>, decl: &ModDecl| {
        decl.features.iter().any(|f| !enabled.contains(f))
    };
    loaded_under(units, ids, (facts, declared), &enabled, &off)
}

/// The files a marked declaration loads, and their children, followed to a fixed point (at most
/// [`MAX_MODULE_DEPTH`] rounds deep: each round marks one more level). `marks_of` says, per
/// unit, what decides which of its declarations mark (`None`: none of the unit's), and `marks`
/// decides by it. Each file is judged by the first unit that holds it.
fn loaded_under<T>(
    units: &[LintUnit],
    (ids, canonical): (&HashMap<PathKey, FileId>, &Canonical),
    (facts, declared): (&[Option<FileFacts>], &HashMap<FileId, Vec<ModDecl>>),
    marks_of: &dyn Fn(&LintUnit) -> Option<T>,
    marks: &dyn Fn(&T, &ModDecl) -> bool,
) -> std::collections::HashSet<FileId> {
    let id_of = |path: &Path| ids.get(&canonical.of(path)).copied();
    let mut states: Vec<T> = Vec::new();
    let mut files: Vec<(FileId, &UnitFile, usize)> = Vec::new();
    let mut seen = HashSet::new();
    for unit in units {
        let Some(state) = marks_of(unit) else {
            continue;
        };
        states.push(state);
        for file in unit.all_files() {
            if let Some(id) = id_of(&file.path) {
                if seen.insert(id) {
                    files.push((id, file, states.len() - 1));
                }
            }
        }
    }
    let mut marked = std::collections::HashSet::new();
    loop {
        let before = marked.len();
        for (id, file, mark) in &files {
            let decls = match facts.get(*id).and_then(Option::as_ref) {
                Some(facts) => &facts.mod_decls,
                None => match declared.get(id) {
                    Some(decls) => decls,
                    None => continue,
                },
            };
            let in_marked = marked.contains(id);
            let parent = module_tree::ModuleFile {
                path: file.path.to_path_buf(),
                owns_directory: file.owns_directory,
            };
            for decl in decls
                .iter()
                .filter(|d| in_marked || marks(&states[*mark], d))
            {
                if let Some(child) = module_tree::resolve(&parent, decl) {
                    marked.extend(id_of(&child.path));
                }
            }
        }
        if marked.len() == before {
            return marked;
        }
    }
}

impl Analysed<'_> {
    /// Analyse the units' files and, in units that follow modules, the files their `mod x;`
    /// declarations load (added to the units), until no unit grows.
    pub(super) fn follow_module_trees(
        &mut self,
        units: &mut [LintUnit],
        run: &Run<'_>,
        settings: &Settings,
    ) {
        let mut expanded = vec![0usize; units.len()];
        // Per unit, the files it holds (canonical paths), so a module is added once.
        let mut members: Vec<HashSet<PathKey>> = units
            .iter()
            .map(|u| u.files.iter().map(|f| self.key(&f.path)).collect())
            .collect();
        // Per unit, how many of its files have been handed to `analyse`: each round hands it
        // only the files the last one added.
        let mut handed = vec![0usize; units.len()];
        loop {
            let wanted: Vec<(&UnitFile, bool)> = units
                .iter()
                .zip(&handed)
                .flat_map(|(u, from)| u.files[*from..].iter().map(move |f| (f, u.follow_modules)))
                .collect();
            for (unit, from) in units.iter().zip(handed.iter_mut()) {
                *from = unit.files.len();
            }
            self.analyse(wanted, run);
            let mut grew = false;
            for ((unit, cursor), members) in units
                .iter_mut()
                .zip(expanded.iter_mut())
                .zip(members.iter_mut())
            {
                if !unit.follow_modules {
                    continue;
                }
                let end = unit.files.len();
                for index in *cursor..end {
                    grew |= self.add_child_modules(unit, index, members, settings);
                }
                *cursor = end;
            }
            if !grew {
                break;
            }
        }
    }

    /// Add to `unit` the files that the `mod x;` declarations of its file at `index` load and
    /// that it does not hold yet. Whether any was added.
    pub(super) fn add_child_modules(
        &mut self,
        unit: &mut LintUnit,
        index: usize,
        members: &mut HashSet<PathKey>,
        settings: &Settings,
    ) -> bool {
        let Some(id) = self.id(&unit.files[index].path) else {
            return false;
        };
        // Its facts' declarations if it was parsed, else those its tokens showed.
        let declared = match self.facts[id].as_ref() {
            Some(facts) => &facts.mod_decls,
            None => match self.declared.get(&id) {
                Some(declared) => declared,
                None => return false,
            },
        };
        if declared.is_empty() {
            return false;
        }
        let parent = unit.files[index].clone();
        if parent.module.len() >= MAX_MODULE_DEPTH {
            // Each file keeps its module path: a chain of thousands of `#[path]` files would
            // cost memory by the square of its length. Real crates nest a few levels deep.
            if self.too_deep.insert(id) {
                self.diagnostics.push(syntax_error::diagnostic(
                    id,
                    ByteSpan::default(),
                    format!(
                        "this module is nested {MAX_MODULE_DEPTH} levels deep, so the modules it declares were not linted"
                    ),
                    None,
                ));
            }
            return false;
        }
        // The files the declarations load, found once per file (the path it was reached by,
        // its module path and whether it owns its directory), however many units list it:
        // the units share them.
        let key = (
            id,
            parent.path.as_os_str().to_os_string(),
            parent.owns_directory,
            parent.module.clone(),
        );
        if !self.children.contains_key(&key) {
            let found = child_files(&parent, declared, &mut self.missing);
            self.children.insert(key.clone(), found);
        }
        let Some(children) = self.children.get(&key) else {
            return false;
        };
        let mut added = Vec::new();
        for (child, test) in children.iter().flatten() {
            // Test code is compiled into test targets only (`cfg(test)`).
            if *test && !unit.test_target {
                continue;
            }
            if settings.is_excluded(&child.path) || !members.insert(self.canonical.of(&child.path))
            {
                continue;
            }
            added.push(child.clone());
        }
        let grew = !added.is_empty();
        unit.files.extend(added);
        grew
    }

    /// Parse the skipped files that what was parsed points at, until nothing new turns up.
    pub(super) fn follow_up(&mut self, run: &Run<'_>, settings: &Settings) {
        let mut looked_for: HashSet<String> = HashSet::new();
        // With every file parsed there is nothing to look for.
        while !self.skipped.is_empty() {
            let parsed: Vec<&FileFacts> = self.facts.iter().flatten().collect();
            let needles: Vec<String> = in_pool(|| rules::follow_up_needles(settings, &parsed))
                .into_iter()
                .filter(|n| !looked_for.contains(n))
                .collect();
            if needles.is_empty() {
                break;
            }
            looked_for.extend(needles.iter().cloned());
            timings::phase(
                "follow-up wave",
                || self.parse_skipped_matching(&needles, run),
                |parsed| *parsed,
            );
        }
    }
}

/// The files the `mod x;` declarations of `parent` load, as files of its unit (their module
/// paths from `parent`'s), each marked when its declaration is `#[cfg(test)]`; `None` for a
/// declaration whose file is missing (noted in `missing`). Each declaration loads its file, and
/// each file a `cfg_attr` may name instead (the tree cannot choose which one is read).
fn child_files(
    parent: &UnitFile,
    declared: &[ModDecl],
    missing: &mut Vec<PathBuf>,
) -> Vec<Option<(UnitFile, bool)>> {
    let module_file = ModuleFile {
        path: parent.path.to_path_buf(),
        owns_directory: parent.owns_directory,
    };
    declared
        .iter()
        .flat_map(|decl| {
            let alternatives = decl.cfg_paths.iter().map(|path| ModDecl {
                path_attr: Some(path.clone()),
                cfg_paths: Vec::new(),
                ..decl.clone()
            });
            std::iter::once(decl.clone()).chain(alternatives)
        })
        .map(|decl| {
            let child = module_tree::resolve_noting(&module_file, &decl, missing)?;
            let mut module = parent.module.to_vec();
            module.extend(decl.inline.iter().map(|m| m.name.clone()));
            if !decl.include {
                module.push(decl.name.clone());
            }
            let file = UnitFile {
                path: child.path.as_path().into(),
                module: module.into(),
                owns_directory: child.owns_directory,
            };
            Some((file, decl.test))
        })
        .collect()
}

/// How deep the module tree is followed: a module nested deeper declares nothing that is linted
/// (an `MCP000` says so).
pub const MAX_MODULE_DEPTH: usize = 64;
