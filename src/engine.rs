//! The engine: read and parse every file once (in parallel), build its facts, join the facts of
//! each crate and run the rules over them.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::discovery::module_tree::{self, ModuleFile};
use crate::prefilter::{Trigrams, Wanted};
use crate::rules::{self, internal_error, syntax_error, RuleContext};
use crate::source::{display_path, ByteSpan, FileId, SourceFile, SourceMap};
use crate::timings;
use crate::unit::ModDecl;
pub use crate::unit::{LintUnit, UnitFile};

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

/// The stack size of the threads that parse: deeply nested code recurses deeply.
const PARSER_STACK: usize = 256 * 1024 * 1024;

// One outcome per file, moved once into the run's tables: its size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
enum FileOutcome {
    Facts(FileFacts),
    /// Read, but holds nothing the analysis needs (see [`crate::prefilter`]); what the
    /// follow-up waves need to know of its text (not worked out when they will not ask), and
    /// the modules it declares (read from its tokens when the module tree needs them).
    Skipped(Option<Trigrams>, Vec<ModDecl>),
    Failed(Diagnostic),
}

/// The analysed files of a run, each analysed once however many units list it.
struct Analysed<'c> {
    ids: HashMap<PathKey, FileId>,
    sources: SourceMap,
    facts: Vec<Option<FileFacts>>,
    /// Files read but not parsed, by id: the unit file they came from, and the three-byte
    /// sequences their text holds.
    skipped: HashMap<FileId, (UnitFile, Trigrams)>,
    /// The out-of-line modules that files read but not parsed declare (see
    /// [`crate::prefilter::Wanted::Modules`]), by id.
    declared: HashMap<FileId, Vec<ModDecl>>,
    diagnostics: Vec<Diagnostic>,
    canonical: &'c Canonical,
    /// The cache's key of each file's entry (its text and module path), when there is a cache.
    keys: HashMap<FileId, [u8; 32]>,
    /// The file each module declaration of a file loads (in the order of its declarations), as
    /// a unit's file, by the declaring file, the path it was reached by (declarations resolve
    /// from it, as rustc resolves them), whether it owns its directory and its module path: a
    /// library's files are in each of its package's targets (which share these), and finding a
    /// module's file looks at the disk.
    children: HashMap<ChildrenKey, Vec<Option<(UnitFile, bool)>>>,
    /// The files whose declarations were not followed: nested [`MAX_MODULE_DEPTH`] deep.
    too_deep: HashSet<FileId>,
    /// Each file's stamp when it was first read (see [`Run::stamp`]), if it had one: what the
    /// group's record keeps (see [`crate::replay`]).
    stamps: HashMap<FileId, crate::cache::Stamp>,
    /// The paths module declarations were looked for at and that were not files.
    missing: Vec<PathBuf>,
}

/// A canonical path as a map key, hashed and compared as its bytes (a canonical path has one
/// spelling): hashing a `Path` walks its components, and the engine's maps hold a key per unit
/// entry.
#[derive(Clone, Debug)]
struct PathKey(Arc<Path>);

impl PathKey {
    fn bytes(&self) -> &[u8] {
        self.0.as_os_str().as_encoded_bytes()
    }
}

impl std::hash::Hash for PathKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for PathKey {}

/// A file declaring modules: its id, the path it was reached by, whether it owns its
/// directory, and its module path.
type ChildrenKey = (FileId, std::ffi::OsString, bool, Arc<[String]>);

/// Canonical paths (links resolved), each path resolved once: a library's files are listed in
/// every target of their package, and resolving a path costs a system call per component.
#[derive(Default)]
// Keyed by the path's bytes: hashing a `Path` walks its components, and a path spelled two
// ways is only resolved twice.
struct Canonical(std::sync::Mutex<HashMap<std::ffi::OsString, PathKey>>);

impl Canonical {
    /// `path` with links resolved, or as given when it cannot be resolved.
    fn of(&self, path: &Path) -> PathKey {
        if let Some(known) = self
            .0
            .lock()
            .ok()
            .and_then(|m| m.get(path.as_os_str()).cloned())
        {
            return known;
        }
        let resolved = PathKey(
            std::fs::canonicalize(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .into(),
        );
        if let Ok(mut known) = self.0.lock() {
            known.insert(path.as_os_str().to_os_string(), resolved.clone());
        }
        resolved
    }
}

/// The threads files are parsed on (with a stack deep enough for what the nesting pre-check
/// lets through), made once per process: a run, and each round of `--fix`, reuse them.
fn parser_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(PARSER_STACK)
            .build()
            .ok()
    })
    .as_ref()
}

impl<'c> Analysed<'c> {
    fn new(canonical: &'c Canonical) -> Self {
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

    fn key(&self, path: &Path) -> PathKey {
        self.canonical.of(path)
    }

    fn id(&self, path: &Path) -> Option<FileId> {
        self.ids.get(&self.key(path)).copied()
    }

    /// Read the files not read yet (in parallel) and parse those the pre-filter wants.
    fn analyse(&mut self, files: Vec<(&UnitFile, bool)>, run: &Run<'_>) {
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

    fn record(&mut self, id: FileId, file: &UnitFile, outcome: FileOutcome) {
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
    fn parse_skipped_matching(&mut self, needles: &[String], run: &Run<'_>) -> usize {
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

/// What every file of a run is analysed with.
struct Run<'a> {
    on_file: &'a (dyn Fn() + Sync),
    max_file_size: u64,
    cwd: &'a Path,
    overlay: &'a Overlay,
    vocabulary: &'a Vocabulary,
    /// The enabled rules that collect facts of their own.
    collectors: Vec<&'static dyn crate::analysis::walk::Collects>,
    prefilter: crate::prefilter::Prefilter,
    cache: Option<crate::cache::Cache>,
    /// The test hook's file name (see [`internal_error::test_panic_file`]).
    test_panic: Option<String>,
    /// The directories files are read in (see [`LintUnit::roots`]); empty: anywhere.
    roots: Vec<PathBuf>,
    /// What keys the stamps of skipped files (see [`crate::cache::Stamp`]): the pre-filter's
    /// digest and the size limit; `None` when there is no cache or every file is parsed.
    stamp_salt: Option<[u8; 32]>,
    /// Each package's SDK, by its manifest: read once per run from the manifest and lock file
    /// (a group's key and its units' checks both need it).
    sdks: std::sync::Mutex<HashMap<PathBuf, Option<crate::sdk::Sdk>>>,
}

impl Run<'_> {
    /// The SDK of a unit with this manifest: the configured one, or its package's.
    fn sdk(&self, settings: &Settings, manifest: Option<&Path>) -> Option<crate::sdk::Sdk> {
        settings.sdk.clone().or_else(|| {
            let manifest = manifest?;
            let mut known = self.sdks.lock().ok()?;
            known
                .entry(manifest.to_path_buf())
                .or_insert_with(|| crate::sdk::detect(manifest))
                .clone()
        })
    }

    /// Where the stamp of a file (by its canonical path) is kept, and its stamp now, if a file
    /// skipped before may be skipped again unread: not a file of the overlay, and one whose
    /// metadata a change must alter.
    fn stamp(
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
    let run = Run {
        on_file,
        max_file_size: settings.max_file_size,
        cwd,
        overlay,
        vocabulary: &settings.vocabulary,
        collectors,
        prefilter,
        cache,
        test_panic: internal_error::test_panic_file(settings),
        roots,
        stamp_salt,
        sdks: Default::default(),
    };
    // The units are linted a group at a time (the units that share a file: a package's
    // targets and its library), each group's facts dropped before the next: a run holds the
    // facts of one group, not of the tree, and what one package holds never decides what is
    // found in another.
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

/// A group from its record (see [`crate::replay`]) when it has one under `key` that still
/// holds; else linted (and recorded under `key`).
fn lint_or_restore(
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
fn groups(units: &[LintUnit], canonical: &Canonical, settings: &Settings) -> Vec<Vec<usize>> {
    // Union-find over the units: each file joins the units that list it.
    let mut parent: Vec<usize> = (0..units.len()).collect();
    fn root(parent: &mut [usize], mut at: usize) -> usize {
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
fn lint_group(
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
    let found = check_units(
        units,
        (&ids, canonical),
        &sources,
        (&facts, &tests),
        (settings, &sdk),
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
struct Linted {
    sources: SourceMap,
    ids: HashMap<PathKey, FileId>,
    diagnostics: Vec<Diagnostic>,
    stamps: HashMap<FileId, crate::cache::Stamp>,
    missing: Vec<PathBuf>,
}

impl Linted {
    /// The group's record, if it can be kept (see [`crate::replay::record`]).
    fn record(&self, journal: crate::cache::Journal) -> Option<crate::cache::GroupRecord> {
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
    fn restored(record: &crate::cache::GroupRecord, run: &Run<'_>) -> Option<Linted> {
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
struct Merged {
    sources: SourceMap,
    ids: HashMap<PathKey, FileId>,
    diagnostics: Vec<Diagnostic>,
}

impl Merged {
    fn add(
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
fn check_texts(diagnostics: &mut Vec<Diagnostic>, sources: &SourceMap) {
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

/// What keys the stamps of the files a run skips: a file is skipped unread only by a run whose
/// pre-filter, size limit and confinement are those of the run that skipped it. `None` when the
/// pre-filter wants every file.
fn stamp_salt(
    prefilter: &crate::prefilter::Prefilter,
    settings: &Settings,
    roots: &[PathBuf],
) -> Option<[u8; 32]> {
    if prefilter.is_everything() {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(&prefilter.digest());
    hasher.update(&settings.max_file_size.to_le_bytes());
    for root in roots {
        hasher.update(root.as_os_str().as_encoded_bytes());
        hasher.update(&[0]);
    }
    Some(*hasher.finalize().as_bytes())
}

/// The SDK of a unit with this manifest (see [`Run::sdk`]).
type SdkOf<'a> = dyn Fn(Option<&Path>) -> Option<crate::sdk::Sdk> + 'a;

/// Run the enabled rules on each unit's crate graph, adding their findings to `diagnostics`.
fn check_units(
    units: &[LintUnit],
    ids: (&HashMap<PathKey, FileId>, &Canonical),
    sources: &SourceMap,
    (facts, tests): (&[Option<FileFacts>], &std::collections::HashSet<FileId>),
    (settings, sdk_of): (&Settings, &SdkOf<'_>),
    cache: Option<(&crate::cache::Cache, &HashMap<FileId, [u8; 32]>)>,
) -> Vec<Diagnostic> {
    let rules = rules::enabled(settings);
    let inputs = unit_inputs(units, ids, facts);
    // Units with the same input (the same files with facts, crate, flags and manifest: a
    // package's targets whose own files hold nothing the analysis needs, beside its library)
    // give the same findings: each distinct input is checked once.
    let mut distinct: HashSet<&UnitInput<'_>> = HashSet::new();
    let chosen: Vec<&UnitInput<'_>> = inputs
        .iter()
        .filter(|input| distinct.insert(input))
        .collect();
    // A package's SDK, read once per run from its manifest and lock file (see `Run::sdk`).
    let chosen_sdks: Vec<Option<crate::sdk::Sdk>> =
        chosen.iter().map(|input| sdk_of(input.manifest)).collect();
    let base_of = bases(&chosen);
    // A base's graph, built once, when a unit first needs it (a warm run whose units' findings
    // are cached builds none).
    let graphs: Vec<std::sync::OnceLock<CrateGraph<'_>>> =
        chosen.iter().map(|_| std::sync::OnceLock::new()).collect();
    let is_base: Vec<bool> = {
        let mut is_base = vec![false; chosen.len()];
        base_of.iter().flatten().for_each(|&b| is_base[b] = true);
        is_base
    };
    let base_graph = |b: usize| {
        graphs[b].get_or_init(|| {
            timings::work("crate graph", || {
                CrateGraph::named(
                    unit_facts(chosen[b], facts),
                    chosen[b].crate_name.map(str::to_string),
                )
                .as_base()
            })
        })
    };
    // The units are independent: each is checked on its own thread, and their findings are
    // joined in the units' order (then sorted), so the result does not depend on the threads.
    let found: Vec<Vec<Diagnostic>> = timings::phase(
        "crate graphs and rules",
        || {
            in_pool(|| {
                chosen
                    .par_iter()
                    .zip(&chosen_sdks)
                    .enumerate()
                    .map(|(index, (input, sdk))| {
                        let check = || {
                            let own;
                            let graph = if is_base[index] {
                                base_graph(index)
                            } else {
                                let base = base_of[index].map(|b| (chosen[b], base_graph(b)));
                                own = timings::work("crate graph", || {
                                    target_graph(input, facts, base)
                                });
                                &own
                            };
                            let context = (sources, tests);
                            check_unit(graph, input, sdk.as_ref(), &rules, context, settings)
                        };
                        let Some((cache, keys)) = cache else {
                            return check();
                        };
                        let inputs = crate::unit_results::UnitInputs {
                            files: &input.files,
                            crate_name: input.crate_name,
                            rooted: input.rooted,
                            test_target: input.test_target,
                            manifest: input.manifest,
                            sdk: sdk.as_ref(),
                        };
                        let key = crate::unit_results::key(&inputs, keys, &rules, settings);
                        crate::unit_results::checked(key, &input.files, cache, check)
                    })
                    .collect()
            })
        },
        |_| chosen.iter().map(|u| u.files.len()).sum(),
    );
    found.into_iter().flatten().collect()
}

/// What the rules see of a unit: its files with facts (each once, in the unit's order), and the
/// unit's crate, flags and manifest.
#[derive(PartialEq, Eq, Hash)]
struct UnitInput<'u> {
    files: Vec<FileId>,
    crate_name: Option<&'u str>,
    rooted: bool,
    test_target: bool,
    manifest: Option<&'u Path>,
}

/// Each unit's input. A path many units share (a library's files, in each of its package's
/// targets) is looked up once.
fn unit_inputs<'u>(
    units: &'u [LintUnit],
    (ids, canonical): (&HashMap<PathKey, FileId>, &Canonical),
    facts: &[Option<FileFacts>],
) -> Vec<UnitInput<'u>> {
    // Keyed by the path's bytes: hashing a `Path` walks its components.
    let mut id_of: HashMap<&std::ffi::OsStr, Option<FileId>> = HashMap::new();
    units
        .iter()
        .map(|unit| {
            let mut seen = HashSet::new();
            let files = unit
                .files
                .iter()
                .filter_map(|f| {
                    *id_of
                        .entry(f.path.as_os_str())
                        .or_insert_with(|| ids.get(&canonical.of(&f.path)).copied())
                })
                .filter(|id| seen.insert(*id))
                .filter(|id| facts.get(*id).is_some_and(Option::is_some))
                .collect();
            UnitInput {
                files,
                crate_name: unit.crate_name.as_deref(),
                rooted: unit.rooted,
                test_target: unit.test_target,
                manifest: unit.manifest.as_deref(),
            }
        })
        .collect()
}

/// Each unit's base, if it has one (see [`CrateGraph::named_over`]): the unit with the most
/// files among those of the same manifest and crate whose files are some of its own, in the same
/// order (a target's library). Ties go to the first.
fn bases(chosen: &[&UnitInput<'_>]) -> Vec<Option<usize>> {
    chosen
        .iter()
        .map(|unit| {
            let own: HashMap<FileId, usize> = unit
                .files
                .iter()
                .enumerate()
                .map(|(i, id)| (*id, i))
                .collect();
            let within = |other: &UnitInput<'_>| {
                let mut last = None;
                other.files.iter().all(|id| match own.get(id) {
                    Some(&at) if last.is_none_or(|l| at > l) => {
                        last = Some(at);
                        true
                    }
                    _ => false,
                })
            };
            chosen
                .iter()
                .enumerate()
                .filter(|(_, other)| {
                    other.files.len() < unit.files.len()
                        && !other.files.is_empty()
                        && other.manifest == unit.manifest
                        && other.crate_name == unit.crate_name
                })
                .filter(|(_, other)| within(other))
                .max_by_key(|(index, other)| (other.files.len(), std::cmp::Reverse(*index)))
                .map(|(index, _)| index)
        })
        .collect()
}

/// A unit's files with their facts, in its order.
fn unit_facts<'f>(
    input: &UnitInput<'_>,
    facts: &'f [Option<FileFacts>],
) -> Vec<(FileId, &'f FileFacts)> {
    input
        .files
        .iter()
        .filter_map(|id| facts.get(*id)?.as_ref().map(|f| (*id, f)))
        .collect()
}

/// A unit's graph, over its library's graph if it has one (`base`: the library's input and
/// graph).
fn target_graph<'g>(
    input: &UnitInput<'_>,
    facts: &'g [Option<FileFacts>],
    base: Option<(&UnitInput<'_>, &'g CrateGraph<'g>)>,
) -> CrateGraph<'g> {
    let files = match base {
        Some((library, _)) => own_first(unit_facts(input, facts), library),
        None => unit_facts(input, facts),
    };
    CrateGraph::named_over(
        files,
        input.crate_name.map(str::to_string),
        base.map(|(_, graph)| graph),
    )
}

/// A target's files with its library's (`base`) moved last, in the library's order, so that
/// its graph can extend the library's (see [`CrateGraph::named_over`]); as they were if the
/// target's root is one of the library's files.
fn own_first<'f>(
    files: Vec<(FileId, &'f FileFacts)>,
    base: &UnitInput<'_>,
) -> Vec<(FileId, &'f FileFacts)> {
    let library: HashSet<FileId> = base.files.iter().copied().collect();
    if files.first().is_none_or(|(id, _)| library.contains(id)) {
        return files;
    }
    let (mut own, theirs): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|(id, _)| !library.contains(id));
    own.extend(theirs);
    own
}

/// The files that `#[cfg(test)] mod x;` declarations load, and those files' own children: test
/// code, whatever their directory is called. Declarations come from the parsed files' facts and
/// from the tokens of the files only read for them.
fn test_files(
    units: &[LintUnit],
    (ids, canonical): (&HashMap<PathKey, FileId>, &Canonical),
    facts: &[Option<FileFacts>],
    declared: &HashMap<FileId, Vec<ModDecl>>,
) -> std::collections::HashSet<FileId> {
    let id_of = |path: &Path| ids.get(&canonical.of(path)).copied();
    let mut files: Vec<(FileId, &UnitFile)> = Vec::new();
    let mut seen = HashSet::new();
    for file in units.iter().flat_map(LintUnit::all_files) {
        if let Some(id) = id_of(&file.path) {
            if seen.insert(id) {
                files.push((id, file));
            }
        }
    }
    let mut tests = std::collections::HashSet::new();
    loop {
        let before = tests.len();
        for (id, file) in &files {
            let decls = match facts.get(*id).and_then(Option::as_ref) {
                Some(facts) => &facts.mod_decls,
                None => match declared.get(id) {
                    Some(decls) => decls,
                    None => continue,
                },
            };
            let in_test = tests.contains(id);
            let parent = module_tree::ModuleFile {
                path: file.path.to_path_buf(),
                owns_directory: file.owns_directory,
            };
            for decl in decls.iter().filter(|d| d.test || in_test) {
                if let Some(child) = module_tree::resolve(&parent, decl) {
                    tests.extend(id_of(&child.path));
                }
            }
        }
        if tests.len() == before {
            return tests;
        }
    }
}

/// One unit's findings: every enabled rule on its crate graph.
fn check_unit(
    graph: &CrateGraph<'_>,
    input: &UnitInput<'_>,
    sdk: Option<&crate::sdk::Sdk>,
    rules: &[&'static dyn rules::Rule],
    (sources, test_files): (&SourceMap, &std::collections::HashSet<FileId>),
    settings: &Settings,
) -> Vec<Diagnostic> {
    let context = RuleContext {
        graph,
        sources,
        settings,
        sdk,
        is_target: input.rooted,
        is_test_target: input.test_target,
        serving: std::cell::OnceCell::new(),
        test_files,
    };
    let mut found = Vec::new();
    timings::work("rules", || {
        for rule in rules {
            internal_error::check_caught(*rule, &context, &mut found);
        }
    });
    found
}

/// Run `work` on the parser threads (their stack is deep enough for any syntax the nesting
/// pre-check lets through), or here if they could not be made.
fn in_pool<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match parser_pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

impl Analysed<'_> {
    /// Analyse the units' files and, in units that follow modules, the files their `mod x;`
    /// declarations load (added to the units), until no unit grows.
    fn follow_module_trees(&mut self, units: &mut [LintUnit], run: &Run<'_>, settings: &Settings) {
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
    fn add_child_modules(
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
            let module_file = ModuleFile {
                path: parent.path.to_path_buf(),
                owns_directory: parent.owns_directory,
            };
            let missing = &mut self.missing;
            // Each declaration loads its file, and each file a `cfg_attr` may name instead (the
            // tree cannot choose which one is read); a `#[cfg(test)]` one is marked.
            let found = declared
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
                .collect();
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
    fn follow_up(&mut self, run: &Run<'_>, settings: &Settings) {
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

/// How deep the module tree is followed: a module nested deeper declares nothing that is linted
/// (an `MCP000` says so).
pub const MAX_MODULE_DEPTH: usize = 64;

/// [`crate::policy::apply`] to every diagnostic but the internal errors (MCP999), which no
/// suppression or level hides: the tool's failure is never the linted code's to silence.
fn apply_policy(
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

fn sort_and_dedup(diagnostics: &mut Vec<Diagnostic>, sources: &SourceMap) {
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

/// Why a file's text could not be had, with the text to show (empty, or the bytes decoded
/// lossily).
struct Unreadable {
    text: String,
    span: ByteSpan,
    message: String,
    help: Option<String>,
}

/// The directories the units' files are read in: all their roots, or none (anywhere) when a
/// unit has none.
fn confinement(units: &[LintUnit]) -> Vec<PathBuf> {
    if units.iter().any(|u| u.roots.is_empty()) {
        return Vec::new();
    }
    let mut roots: Vec<PathBuf> = units.iter().flat_map(|u| u.roots.clone()).collect();
    roots.sort();
    roots.dedup();
    roots
}

/// Why a file on disk must not be read: it lies outside the roots once links are resolved, or
/// it is not a regular file. The message names the path and nothing of its content.
fn refused(path: &Path, roots: &[PathBuf]) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    if !roots.is_empty() && !roots.iter().any(|root| real.starts_with(root)) {
        return Some(format!(
            "this file is `{}`, outside the linted directories, so it was not read",
            real.display()
        ));
    }
    let metadata = std::fs::metadata(&real).ok()?;
    (!metadata.is_file()).then(|| {
        format!(
            "`{}` is not a regular file, so it was not read",
            real.display()
        )
    })
}

/// A file's text: from the overlay or the disk, and valid UTF-8 (not when it is too large,
/// unreadable, or not UTF-8). A file on disk outside the run's roots, or not a regular file, is
/// not read at all.
fn read_text(file: &UnitFile, run: &Run<'_>) -> Result<String, Unreadable> {
    if run.overlay.get(&*file.path).is_none() {
        if let Some(message) = refused(&file.path, &run.roots) {
            return Err(Unreadable {
                text: String::new(),
                span: ByteSpan::default(),
                message,
                help: Some(
                    "a module file is read only inside the directories linted (cargo mode: the workspace)"
                        .to_string(),
                ),
            });
        }
        if let Ok(metadata) = std::fs::metadata(&file.path) {
            if metadata.len() > run.max_file_size {
                let message = format!(
                    "this file is {} MiB, larger than the {} MiB limit, so it was not analysed",
                    metadata.len() / (1024 * 1024),
                    run.max_file_size / (1024 * 1024)
                );
                let help = Some(
                    "raise `max-file-size-mib` in the configuration to analyse it".to_string(),
                );
                return Err(Unreadable {
                    text: String::new(),
                    span: ByteSpan::default(),
                    message,
                    help,
                });
            }
        }
    }
    // At most the limit and one byte more: a file whose size is reported as 0 (`/proc`) or
    // that grows while read is held to the limit too.
    let read = match run.overlay.get(&*file.path) {
        Some(text) => Ok((text.clone().into_bytes(), false)),
        None => crate::bounded::read_capped(&file.path, run.max_file_size),
    };
    let (bytes, more) = read.map_err(|error| Unreadable {
        text: String::new(),
        span: ByteSpan::default(),
        message: format!("could not read this file: {error}"),
        help: None,
    })?;
    if more {
        return Err(Unreadable {
            text: String::new(),
            span: ByteSpan::default(),
            message: format!(
                "this file holds more than the {} MiB limit, so it was not analysed",
                run.max_file_size / (1024 * 1024)
            ),
            help: None,
        });
    }
    String::from_utf8(bytes).map_err(|error| {
        let valid = error.utf8_error().valid_up_to();
        Unreadable {
            text: String::from_utf8_lossy(error.as_bytes()).into_owned(),
            span: ByteSpan::new(valid, valid),
            message: format!("this file is not valid UTF-8 (first invalid byte at offset {valid})"),
            help: Some("Rust source files must be UTF-8".to_string()),
        }
    })
}

fn analyse_file(
    id: FileId,
    file: &UnitFile,
    run: &Run<'_>,
    trigrams: bool,
    wanted: impl Fn(&str) -> Wanted,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    (run.on_file)();
    let shown = display_path(&file.path, run.cwd);
    let text = match timings::work("read", || read_text(file, run)) {
        Ok(text) => text,
        Err(unreadable) => {
            let source = SourceFile::new(file.path.to_path_buf(), shown, unreadable.text);
            let failure =
                syntax_error::diagnostic(id, unreadable.span, unreadable.message, unreadable.help);
            return (source, FileOutcome::Failed(failure), None);
        }
    };
    let declared = match timings::work("pre-filter", || wanted(&text)) {
        Wanted::Parse => None,
        Wanted::Skip => Some(Vec::new()),
        Wanted::Modules(declared) => Some(declared),
    };
    if let Some(declared) = declared {
        let trigrams = trigrams.then(|| Trigrams::of(text.as_bytes()));
        return (
            SourceFile::new(file.path.to_path_buf(), shown, String::new()),
            FileOutcome::Skipped(trigrams, declared),
            None,
        );
    }
    let (entry, cached) = match run.cache {
        None => (None, None),
        Some(_) => timings::work("cache lookup", || {
            let entry = run
                .cache
                .as_ref()
                .map(|_| crate::cache::entry_key(&text, &file.module));
            let cached = match (&run.cache, &entry) {
                (Some(cache), Some(entry)) => cache.get(entry),
                _ => None,
            };
            (entry, cached)
        }),
    };
    let analysed = match cached {
        Some(crate::cache::Cached::Facts(facts)) => Ok(Ok(*facts)),
        Some(crate::cache::Cached::SyntaxError(span, message)) => {
            Ok(Err(crate::analysis::ParseFailure { span, message }))
        }
        None => {
            let fresh = timings::work("parse and facts", || {
                internal_error::catch(|| {
                    internal_error::test_panic(run.test_panic.as_deref(), &file.path);
                    crate::analysis::analyse_text(
                        &text,
                        file.module.to_vec(),
                        run.vocabulary,
                        &run.collectors,
                    )
                })
            });
            if let (Some(cache), Some(entry), Ok(result)) = (&run.cache, &entry, &fresh) {
                cache.remember(
                    *entry,
                    &match result {
                        Ok(facts) => crate::cache::Cached::Facts(Box::new(facts.clone())),
                        Err(failure) => {
                            crate::cache::Cached::SyntaxError(failure.span, failure.message.clone())
                        }
                    },
                );
            }
            fresh
        }
    };
    let outcome = match analysed {
        Ok(Ok(facts)) => FileOutcome::Facts(facts),
        Ok(Err(failure)) => FileOutcome::Failed(syntax_error::diagnostic(
            id,
            failure.span,
            failure.message,
            None,
        )),
        Err(panic) => FileOutcome::Failed(internal_error::analysis_failed(id, &panic)),
    };
    let keep_text = run.overlay.get(&*file.path).is_some()
        || !matches!(outcome, FileOutcome::Facts(_))
        || text.contains(crate::suppression::MARKER);
    let mut source = SourceFile::new(file.path.to_path_buf(), shown, text);
    // The text is not kept for the run: a file with findings is read again to render them
    // (see `check_texts`). Kept: an overlay's texts (they are not on disk), a file that was
    // not analysed (its text is shown with its problem), and a file with suppression comments
    // (the policy reads them).
    if !keep_text {
        source.release();
    }
    (source, outcome, entry)
}

/// A file met for the first time in a group: taken unread from its stamp when the cache knows
/// it, else read, pre-filtered, and analysed if wanted (and its outcome stamped).
fn read_fresh(
    id: FileId,
    file: &UnitFile,
    follows: bool,
    stamp: Option<([u8; 32], crate::cache::Stamp)>,
    run: &Run<'_>,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    if let (Some(cache), Some((at, stamp))) = (&run.cache, &stamp) {
        if let Some(known) = known_unread(cache, (at, stamp), file, run) {
            return known;
        }
    }
    let analysed = analyse_file(id, file, run, true, |text| {
        run.prefilter.decide(text, follows)
    });
    if let (Some(cache), Some((at, stamp))) = (&run.cache, stamp) {
        match &analysed {
            (_, FileOutcome::Skipped(Some(trigrams), declared), _) => {
                let skipped = (trigrams.clone(), declared.clone());
                cache.remember_skipped(at, stamp, skipped);
            }
            _ => remember_wanted(cache, (at, stamp), file, &analysed),
        }
    }
    analysed
}

/// A file the cache knows by its stamp (its metadata unchanged since): skipped, or wanted and
/// analysed (its facts taken from the cache), without a read.
fn known_unread(
    cache: &crate::cache::Cache,
    (at, stamp): (&[u8; 32], &crate::cache::Stamp),
    file: &UnitFile,
    run: &Run<'_>,
) -> Option<(SourceFile, FileOutcome, Option<[u8; 32]>)> {
    if let Some((trigrams, declared)) = cache.skipped_before(at, stamp) {
        (run.on_file)();
        let shown = display_path(&file.path, run.cwd);
        let source = SourceFile::new(file.path.to_path_buf(), shown, String::new());
        return Some((source, FileOutcome::Skipped(Some(trigrams), declared), None));
    }
    wanted_unread(cache, (at, stamp), file, run)
}

/// A file the cache knows as wanted by its stamp (its metadata unchanged since): its facts,
/// taken without reading it.
fn wanted_unread(
    cache: &crate::cache::Cache,
    (at, stamp): (&[u8; 32], &crate::cache::Stamp),
    file: &UnitFile,
    run: &Run<'_>,
) -> Option<(SourceFile, FileOutcome, Option<[u8; 32]>)> {
    let shown = || display_path(&file.path, run.cwd);
    let wanted = crate::cache::wanted_key(at, &file.module);
    let (entry, len, hash) = cache.wanted_before(&wanted, stamp)?;
    let Some(crate::cache::Cached::Facts(facts)) =
        timings::work("cache lookup", || cache.get(&entry))
    else {
        return None;
    };
    (run.on_file)();
    let source = SourceFile::released(file.path.to_path_buf(), shown(), len, hash);
    Some((source, FileOutcome::Facts(*facts), Some(entry)))
}

/// Stamp a file the pre-filter wanted with its entry and its text's length and hash, when its
/// text was let go (one kept, with suppression comments, is read each run).
fn remember_wanted(
    cache: &crate::cache::Cache,
    (at, stamp): ([u8; 32], crate::cache::Stamp),
    file: &UnitFile,
    analysed: &(SourceFile, FileOutcome, Option<[u8; 32]>),
) {
    if let (source, FileOutcome::Facts(_), Some(entry)) = analysed {
        if let Some(text) = source.released_as() {
            let at = crate::cache::wanted_key(&at, &file.module);
            cache.remember_wanted(at, stamp, *entry, text);
        }
    }
}

/// A file that a follow-up wave asks for because it declares modules (see
/// [`crate::prefilter::MODULE_FILES`]): parsed whatever it holds, and stamped as wanted, so
/// that a warm run takes its facts unread.
fn declaring_file(
    id: FileId,
    file: &UnitFile,
    canonical: &Path,
    run: &Run<'_>,
) -> (SourceFile, FileOutcome, Option<[u8; 32]>) {
    // Keyed as a file whose modules are followed, in either mode: the stamp says which entry
    // the file's text at its module path has, which the mode does not change.
    let stamp = run.stamp(canonical, file, true);
    if let (Some(cache), Some((at, stamp))) = (&run.cache, &stamp) {
        if let Some(known) = wanted_unread(cache, (at, stamp), file, run) {
            return known;
        }
    }
    let analysed = analyse_file(id, file, run, false, |_| Wanted::Parse);
    if let (Some(cache), Some(stamp)) = (&run.cache, stamp) {
        remember_wanted(cache, stamp, file, &analysed);
    }
    analysed
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
