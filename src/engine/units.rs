//! Each unit's crate graph (over its library's, when it has one) and the rules run on it.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::path::Path;

use rayon::prelude::*;

use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::FileFacts;
use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::features::Enabled;
use crate::rules::{self, internal_error, RuleContext};
use crate::source::{FileId, SourceMap};
use crate::timings;
use crate::unit::LintUnit;

use super::canonical::{Canonical, PathKey};
use super::run::in_pool;

/// The SDK of a unit with this manifest (see [`super::run::Run::sdk`]).
pub(super) type SdkOf<'a> = dyn Fn(Option<&Path>) -> Option<crate::sdk::Sdk> + 'a;

/// The features on by default in a unit with this manifest (see
/// [`super::run::Run::default_features`]).
pub(super) type FeaturesOf<'a> = dyn Fn(Option<&Path>) -> super::run::DefaultFeatures + 'a;

/// A set of files (the test files, the feature-gated files).
type FileSet = std::collections::HashSet<FileId>;

/// Run the enabled rules on each unit's crate graph, adding their findings to `diagnostics`.
pub(super) fn check_units(
    units: &[LintUnit],
    ids: (&HashMap<PathKey, FileId>, &Canonical),
    sources: &SourceMap,
    (facts, tests, gated): (&[Option<FileFacts>], &FileSet, &FileSet),
    (settings, sdk_of, features_of): (&Settings, &SdkOf<'_>, &FeaturesOf<'_>),
    cache: Option<(&crate::cache::Cache, &HashMap<FileId, [u8; 32]>)>,
) -> Vec<Diagnostic> {
    let rules = rules::enabled(settings);
    let inputs = unit_inputs(units, ids, facts);
    let shared = shared_files(&inputs);
    // Units with the same input (the same files with facts, crate, flags and manifest: a
    // package's targets whose own files hold nothing the analysis needs, beside its library)
    // give the same findings: each distinct input is checked once.
    let mut distinct: HashSet<&UnitInput<'_>> = HashSet::new();
    let chosen: Vec<&UnitInput<'_>> = inputs
        .iter()
        .filter(|input| distinct.insert(input))
        .collect();
    // A package's SDK and default features, read once per run from its manifest (and lock file).
    let (chosen_sdks, chosen_features): (Vec<Option<crate::sdk::Sdk>>, Vec<Enabled>) = chosen
        .iter()
        .map(|input| (sdk_of(input.manifest), features_of(input.manifest)))
        .unzip();
    let base_of = bases(&chosen);
    // A base's graph, built once, when a unit first needs it (a warm run whose units' findings
    // are cached builds none).
    let graphs: Vec<std::sync::OnceLock<CrateGraph<'_>>> =
        chosen.iter().map(|_| std::sync::OnceLock::new()).collect();
    let depends_on = dependencies(&chosen);
    let is_base = built_once(chosen.len(), &base_of, &depends_on);
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
                            let files = (sources, tests, gated, &shared);
                            let context = (files, chosen_features[index].clone());
                            let libraries: Vec<rules::Library<'_>> = (depends_on[index].iter())
                                .filter_map(|&b| Some((chosen[b].crate_name?, base_graph(b))))
                                .collect();
                            let unit = (graph, *input, libraries.as_slice());
                            check_unit(unit, sdk.as_ref(), &rules, context, settings)
                        };
                        let Some((cache, keys)) = cache else {
                            return check();
                        };
                        let inputs = crate::unit_results::UnitInputs {
                            files: &input.files,
                            libraries: depends_on[index]
                                .iter()
                                .map(|&b| chosen[b].files.as_slice())
                                .collect(),
                            crate_name: input.crate_name,
                            rooted: input.rooted,
                            whole_crate: input.whole_crate,
                            test_target: input.test_target,
                            manifest: input.manifest,
                            sdk: sdk.as_ref(),
                            features: chosen_features[index].clone(),
                        };
                        let key = crate::unit_results::key(&inputs, keys, &rules, settings);
                        crate::unit_results::checked(key, &inputs.all_files(), cache, check)
                    })
                    .collect()
            })
        },
        |_| chosen.iter().map(|u| u.files.len()).sum(),
    );
    found.into_iter().flatten().collect()
}

/// Which units' graphs are built once and kept for others: a target's library (a base), and a
/// library another package's unit depends on (for its own check and for what its dependents ask
/// of it).
fn built_once(units: usize, base_of: &[Option<usize>], depends_on: &[Vec<usize>]) -> Vec<bool> {
    let mut is_base = vec![false; units];
    base_of.iter().flatten().for_each(|&b| is_base[b] = true);
    depends_on.iter().flatten().for_each(|&b| is_base[b] = true);
    is_base
}

/// The files that more than one program of the run compiles (units that are neither a library
/// nor a test target): a change to one of them changes each of those programs.
fn shared_files(inputs: &[UnitInput<'_>]) -> FileSet {
    let mut seen: FileSet = FileSet::new();
    let mut shared: FileSet = FileSet::new();
    for input in inputs.iter().filter(|i| !i.library && !i.test_target) {
        for &file in &input.files {
            if !seen.insert(file) {
                shared.insert(file);
            }
        }
    }
    shared
}

/// Per unit, the libraries (by index) of the packages its package depends on by `path`, but
/// its own package's: what its code may call by their crate names.
fn dependencies(chosen: &[&UnitInput<'_>]) -> Vec<Vec<usize>> {
    let libraries: HashMap<std::path::PathBuf, usize> = (chosen.iter().enumerate())
        .filter(|(_, input)| input.library && input.crate_name.is_some())
        .filter_map(|(index, input)| Some((crate::unit::lexical(input.manifest?), index)))
        .collect();
    chosen
        .iter()
        .map(|input| {
            input
                .dependencies
                .iter()
                .filter_map(|manifest| libraries.get(manifest).copied())
                .filter(|&b| chosen[b].manifest != input.manifest)
                .collect()
        })
        .collect()
}

/// What the rules see of a unit: its files with facts (each once, in the unit's order), and the
/// unit's crate, flags and manifest.
#[derive(PartialEq, Eq, Hash)]
pub(super) struct UnitInput<'u> {
    pub(super) files: Vec<FileId>,
    pub(super) crate_name: Option<&'u str>,
    pub(super) rooted: bool,
    /// The unit's module tree was followed from its root (see [`RuleContext::whole_crate`]).
    pub(super) whole_crate: bool,
    pub(super) test_target: bool,
    pub(super) manifest: Option<&'u Path>,
    /// The unit is its package's library (see [`LintUnit::is_library`]).
    pub(super) library: bool,
    /// The manifests of the packages its package depends on by `path`.
    pub(super) dependencies: &'u [std::path::PathBuf],
}

/// Each unit's input. A path many units share (a library's files, in each of its package's
/// targets) is looked up once.
pub(super) fn unit_inputs<'u>(
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
                whole_crate: unit.rooted && unit.follow_modules,
                test_target: unit.test_target,
                manifest: unit.manifest.as_deref(),
                library: unit.is_library,
                dependencies: &unit.path_dependencies,
            }
        })
        .collect()
}

/// Each unit's base, if it has one (see [`CrateGraph::named_over`]): the unit with the most
/// files among those of the same manifest and crate whose files are some of its own, in the same
/// order (a target's library). Ties go to the first.
pub(super) fn bases(chosen: &[&UnitInput<'_>]) -> Vec<Option<usize>> {
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
pub(super) fn unit_facts<'f>(
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
pub(super) fn target_graph<'g>(
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
pub(super) fn own_first<'f>(
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

/// One unit's findings: every enabled rule on its crate graph.
pub(super) fn check_unit<'a>(
    (graph, input, libraries): (&'a CrateGraph<'a>, &UnitInput<'_>, &'a [rules::Library<'a>]),
    sdk: Option<&'a crate::sdk::Sdk>,
    rules: &[&'static dyn rules::Rule],
    ((sources, test_files, gated_files, shared_files), default_features): (
        (&'a SourceMap, &'a FileSet, &'a FileSet, &'a FileSet),
        crate::features::Enabled,
    ),
    settings: &'a Settings,
) -> Vec<Diagnostic> {
    let context = RuleContext {
        graph,
        sources,
        settings,
        sdk,
        is_target: input.rooted,
        whole_crate: input.whole_crate,
        is_test_target: input.test_target,
        memo: Default::default(),
        test_files,
        gated_files,
        shared_files,
        libraries,
        default_features,
    };
    let mut found = Vec::new();
    timings::work("rules", || {
        for rule in rules {
            internal_error::check_caught(*rule, &context, &mut found);
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'u>(files: &[FileId], crate_name: Option<&'u str>) -> UnitInput<'u> {
        UnitInput {
            files: files.to_vec(),
            crate_name,
            rooted: true,
            whole_crate: true,
            test_target: false,
            manifest: Some(Path::new("/p/Cargo.toml")),
            library: false,
            dependencies: &[],
        }
    }

    #[test]
    fn a_targets_base_is_the_largest_unit_of_its_package_within_its_files_in_order() {
        let library = input(&[1, 2, 3], Some("p"));
        let smaller = input(&[1, 2], Some("p"));
        let binary = input(&[0, 1, 2, 3], Some("p"));
        let reordered = input(&[0, 3, 2, 1], Some("p"));
        let other_crate = input(&[0, 1, 2, 3, 4], Some("q"));
        let chosen = [&library, &smaller, &binary, &reordered, &other_crate];
        assert_eq!(
            bases(&chosen),
            [
                // The library's base is its own smaller subset.
                Some(1),
                None,
                // The binary extends the library (the largest within it, in order).
                Some(0),
                // Its files hold the library's, but not in the library's order: `3` before `1`.
                None,
                // Another crate's unit is no base.
                None,
            ]
        );
    }
}
