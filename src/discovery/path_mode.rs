//! Path mode: the named files, and every `.rs` file under the named directories, honouring
//! `.gitignore` (and `.ignore`) files and skipping `target/` directories.
//!
//! The files are grouped as cargo would compile them, without running cargo: into packages by
//! the nearest `Cargo.toml` above each file, and within a package into targets by cargo's layout
//! (`src/lib.rs` and the library's files, `src/main.rs`, `src/bin/*`, `examples/*`, `tests/*`,
//! `benches/*`). Every target other than the library is linted with the library's files, as
//! rustc sees them. So calls resolve within a package, one example's server does not make its
//! neighbours servers, and a package's findings do not change with what else is named.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::targets::TargetRole;
use super::DiscoveryError;
use crate::unit::{LintUnit, UnitFile};

/// Collect the files under `paths` and group them into units, one per package target.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<LintUnit>, DiscoveryError> {
    discover_reporting(paths).map(|(units, _)| units)
}

/// [`discover`], with what the walk could not read (a directory it could not open, a path too
/// long for the system), a line each: nothing is skipped unsaid.
pub fn discover_reporting(
    paths: &[PathBuf],
) -> Result<(Vec<LintUnit>, Vec<String>), DiscoveryError> {
    let mut problems = Vec::new();
    let cwd = std::env::current_dir()
        .map_err(|e| DiscoveryError(format!("cannot read the current directory: {e}")))?;
    let roots: Vec<PathBuf> = paths
        .iter()
        .map(|p| super::widen_to_repository(super::confinement_root(p, &cwd)))
        .collect();
    let mut files: Vec<PathBuf> = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|error| {
            DiscoveryError(format!("cannot read `{}`: {error}", path.display()))
        })?;
        if metadata.is_file() {
            // A file named explicitly is linted as Rust only when it is one: `notes.txt` is a
            // mistake to say, not a file with no problems.
            if path.extension().is_none_or(|e| e != "rs") {
                return Err(DiscoveryError(format!(
                    "`{}` is not a Rust file (`.rs`) or a directory",
                    path.display()
                )));
            }
            files.push(path.clone());
            continue;
        }
        if !metadata.is_dir() {
            return Err(DiscoveryError(format!(
                "`{}` is not a Rust file (`.rs`) or a directory",
                path.display()
            )));
        }
        let walker = ignore::WalkBuilder::new(path)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|entry| {
                !(entry.depth() > 0
                    && entry.file_type().is_some_and(|t| t.is_dir())
                    && entry.file_name() == "target")
            })
            .build();
        let (mut found, manifests): (Vec<PathBuf>, Vec<PathBuf>) = walker
            .filter_map(|entry| match entry {
                Ok(entry) => Some(entry),
                Err(error) => {
                    problems.push(format!(
                        "a part of `{}` was not linted: {error}",
                        path.display()
                    ));
                    None
                }
            })
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .map(|entry| entry.into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs") || p.ends_with("Cargo.toml"))
            .partition(|p| p.extension().is_some_and(|e| e == "rs"));
        // What cargo compiles is linted whatever an ignore file says: the target roots of each
        // package the walk saw (and of its workspace's members), whose module trees are then
        // followed.
        found.extend(compiled_roots(&manifests, path));
        found.sort();
        found.dedup();
        files.extend(found);
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    let mut units = group(files);
    // Named directories: a package's `mod` declarations are followed too, so that a file cargo
    // compiles is linted even where an ignore file or a directory named `target` hid it from the
    // walk (named files: only those).
    let directories = paths.iter().all(|p| p.is_dir());
    for unit in &mut units {
        unit.roots.clone_from(&roots);
        unit.follow_modules = directories && unit.manifest.is_some();
    }
    Ok((units, problems))
}

/// The product target roots cargo finds by its layout (`src/lib.rs`, `src/main.rs`,
/// `src/bin/x.rs`, `src/bin/x/main.rs`, `examples/x.rs`, `examples/x/main.rs`) in each package
/// whose manifest is among `manifests`, and in the members of a workspace among them, below
/// `within` and not under a `target` directory.
fn compiled_roots(manifests: &[PathBuf], within: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for manifest in manifests {
        let Some(dir) = manifest.parent() else {
            continue;
        };
        dirs.push(dir.to_path_buf());
        dirs.extend(super::manifests::member_dirs(dir));
    }
    dirs.sort();
    dirs.dedup();
    let mut roots = Vec::new();
    let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    for dir in dirs.iter().filter(|d| d.starts_with(within)) {
        let relative = dir.strip_prefix(within).unwrap_or(dir);
        if relative.components().any(|c| c.as_os_str() == "target") {
            continue;
        }
        for root in ["src/lib.rs", "src/main.rs"] {
            roots.push(dir.join(root));
        }
        for base in ["src/bin", "examples"] {
            for entry in std::fs::read_dir(dir.join(base))
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "rs") {
                    roots.push(path);
                } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    roots.push(path.join("main.rs"));
                }
            }
        }
    }
    roots.retain(|p| is_file(p));
    roots
}

/// Where a file sits in its package, by cargo's layout.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// Under `src/`, outside `src/main.rs` and `src/bin/`: the library, or the modules the
    /// binary declares (path mode cannot tell them apart without following `mod` items).
    Library,
    /// A target of its own, by its kind and name: `src/main.rs`, `src/bin/x.rs` or
    /// `src/bin/x/**`, `examples/x.rs` or `examples/x/**`, `tests/..`, `benches/..`.
    Target { kind: TargetKind, name: String },
    /// Under `tests/` or `benches/` but no target of its own (`tests/common/mod.rs`): a module
    /// the tests (or benches) declare, so test code.
    Support { kind: TargetKind },
    /// Elsewhere in the package (`build.rs`, a `fuzz/` directory without a manifest, ..).
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum TargetKind {
    Bin,
    Example,
    Test,
    Bench,
}

/// A file's place in the package rooted at `package`, and its module path inside its target.
fn place_of(package: &Path, path: &Path) -> (Place, Vec<String>) {
    let Ok(relative) = path.strip_prefix(package) else {
        return (Place::Other, module_of(path));
    };
    let parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    match parts
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["src", "main.rs"] => Some((
            Place::Target {
                kind: TargetKind::Bin,
                name: String::new(),
            },
            Vec::new(),
        )),
        ["src", "bin", rest @ ..] => target(package, &["src", "bin"], TargetKind::Bin, rest),
        ["src", rest @ ..] if !rest.is_empty() => Some((Place::Library, modules(rest))),
        ["examples", rest @ ..] => target(package, &["examples"], TargetKind::Example, rest),
        ["tests", rest @ ..] => target(package, &["tests"], TargetKind::Test, rest)
            .or_else(|| support(TargetKind::Test, rest)),
        ["benches", rest @ ..] => target(package, &["benches"], TargetKind::Bench, rest)
            .or_else(|| support(TargetKind::Bench, rest)),
        _ => None,
    }
    .unwrap_or_else(|| (Place::Other, module_of(relative)))
}

/// The target a file under a target directory (`base`: `examples`, `src/bin`, ..) belongs to,
/// as cargo finds them: `x.rs` is the target `x` (its root), and a directory `x/` holding a
/// `main.rs` is the target `x` (`x/main.rs` its root, `x/y.rs` its module `y`). Anything else
/// there is no target of its own.
fn target(
    package: &Path,
    base: &[&str],
    kind: TargetKind,
    rest: &[&str],
) -> Option<(Place, Vec<String>)> {
    let (first, inner) = rest.split_first()?;
    if inner.is_empty() {
        let name = first.strip_suffix(".rs")?.to_string();
        return Some((Place::Target { kind, name }, Vec::new()));
    }
    let mut root = package.to_path_buf();
    root.extend(base);
    root.push(first);
    root.push("main.rs");
    if !root.is_file() {
        return None;
    }
    let name = first.to_string();
    Some((Place::Target { kind, name }, modules(inner)))
}

/// A file under `tests/` or `benches/` that is no target: a module of the targets there.
fn support(kind: TargetKind, rest: &[&str]) -> Option<(Place, Vec<String>)> {
    (!rest.is_empty()).then(|| (Place::Support { kind }, modules(rest)))
}

/// The module path of a file from the directory of its crate root: `a/b.rs` is `a::b`, and
/// `lib.rs`, `main.rs` and `mod.rs` name their directory.
fn modules(rest: &[&str]) -> Vec<String> {
    let mut module: Vec<String> = rest.iter().map(|s| s.to_string()).collect();
    if let Some(last) = module.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        if !matches!(stem.as_str(), "lib" | "main" | "mod") {
            module.push(stem);
        }
    }
    module
}

/// The package directory of `path`: where the nearest `Cargo.toml` above it lies.
fn package_of(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    absolute
        .parent()?
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Group `files` (in their order) into units: per package, per target.
fn group(files: Vec<PathBuf>) -> Vec<LintUnit> {
    // Packages in the order their first file was named; files without a package last.
    let mut packages: Vec<(Option<PathBuf>, Vec<PathBuf>)> = Vec::new();
    let mut index: BTreeMap<Option<PathBuf>, usize> = BTreeMap::new();
    for file in files {
        let package = package_of(&file);
        let slot = *index.entry(package.clone()).or_insert_with(|| {
            packages.push((package, Vec::new()));
            packages.len() - 1
        });
        packages[slot].1.push(file);
    }
    let mut units = Vec::new();
    for (package, files) in packages {
        match package {
            Some(dir) => units.extend(package_units(&dir, files)),
            None => units.push(loose_unit(files)),
        }
    }
    units
}

/// Files outside any package: one unit, with module paths guessed from their place.
fn loose_unit(files: Vec<PathBuf>) -> LintUnit {
    LintUnit {
        name: "paths".into(),
        files: files
            .into_iter()
            .map(|path| UnitFile {
                module: module_of(&path).into(),
                path: path.into(),
                owns_directory: false,
            })
            .collect(),
        follow_modules: false,
        rooted: false,
        manifest: None,
        test_target: false,
        is_library: false,
        path_dependencies: Vec::new(),
        crate_name: None,
        roots: Vec::new(),
        library: Default::default(),
    }
}

/// The units of one package's named files.
fn package_units(dir: &Path, files: Vec<PathBuf>) -> Vec<LintUnit> {
    let (manifest, declared) = (Some(dir.join("Cargo.toml")), read_manifest(dir));
    let crate_name = declared.crate_name.clone();
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "package".into());
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut library: Vec<UnitFile> = Vec::new();
    let mut targets: BTreeMap<Place, Vec<UnitFile>> = BTreeMap::new();
    for path in files {
        let full = absolute(&path);
        // A target the manifest declares with its own path, or else cargo's layout.
        let (place, module) = declared
            .place_of(&full)
            .unwrap_or_else(|| place_of(dir, &full));
        // Crate roots and `mod.rs` files hold their child modules beside them.
        let owns_directory = module.is_empty()
            || path
                .file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs");
        let file = UnitFile {
            path: path.into(),
            module: module.into(),
            owns_directory,
        };
        match place {
            Place::Library => library.push(file),
            other => targets.entry(other).or_default().push(file),
        }
    }
    let library_root = library
        .iter()
        .position(|f| f.module.is_empty() && f.path.file_name().is_some_and(|n| n == "lib.rs"));
    // The library's root first, as a target's root leads its unit.
    if let Some(root) = library_root {
        let root = library.remove(root);
        library.insert(0, root);
    }
    let mut units = Vec::new();
    let shared: std::sync::Arc<[UnitFile]> = library.as_slice().into();
    if library_root.is_some() || targets.is_empty() {
        units.push(LintUnit {
            name: format!("{name} (lib)"),
            files: library.clone(),
            follow_modules: false,
            rooted: library_root.is_some(),
            manifest: manifest.clone(),
            test_target: false,
            is_library: library_root.is_some(),
            path_dependencies: declared.path_dependencies.clone(),
            crate_name: crate_name.clone(),
            roots: Vec::new(),
            library: Default::default(),
        });
    }
    for (place, mut own) in targets {
        // A target's root leads its unit: `x.rs`, or `x/main.rs`.
        let root = own.iter().position(|f| f.module.is_empty());
        if let Some(root) = root {
            let file = own.remove(root);
            own.insert(0, file);
        }
        let (label, rooted, test_target) = match &place {
            Place::Target { kind, name } => (
                if name.is_empty() {
                    "main".to_string()
                } else {
                    name.clone()
                },
                root.is_some(),
                matches!(kind, TargetKind::Test | TargetKind::Bench)
                    || declared.is_test_support(*kind, name),
            ),
            Place::Support { kind } => (
                match kind {
                    TargetKind::Bench => "bench support".to_string(),
                    _ => "test support".to_string(),
                },
                false,
                true,
            ),
            _ => ("other files".to_string(), false, false),
        };
        units.push(LintUnit {
            name: format!("{name} ({label})"),
            files: own,
            follow_modules: false,
            rooted,
            manifest: manifest.clone(),
            test_target,
            is_library: false,
            path_dependencies: declared.path_dependencies.clone(),
            crate_name: crate_name.clone(),
            roots: Vec::new(),
            library: shared.clone(),
        });
    }
    units
}

/// What path mode reads of a package's manifest: the name its library is used by, and the
/// targets it declares with a path of their own (`[[bin]]`, `[[example]]`, `[[test]]`,
/// `[[bench]]`).
#[derive(Default)]
struct Manifest {
    crate_name: Option<String>,
    /// (absolute path, kind, name, test support: built only with private features, or a program
    /// kept in `tests/` or `benches/`).
    targets: Vec<(PathBuf, TargetKind, String, bool)>,
    /// Where each declared path is first in `targets` (a package may declare hundreds, and
    /// every file of the package is looked up).
    by_path: std::collections::HashMap<PathBuf, usize>,
    /// The manifests of the packages its `[dependencies]` name by `path` (see
    /// [`LintUnit::path_dependencies`]).
    path_dependencies: Vec<PathBuf>,
}

impl Manifest {
    /// The place of a file the manifest declares as a target of its own.
    fn place_of(&self, file: &Path) -> Option<(Place, Vec<String>)> {
        let at = *self.by_path.get(file)?;
        self.targets.get(at).map(|(_, kind, name, _)| {
            let place = Place::Target {
                kind: *kind,
                name: name.clone(),
            };
            (place, Vec::new())
        })
    }

    /// Whether the declared target is test support: built only with private features, or a
    /// program kept where cargo keeps test code.
    fn is_test_support(&self, kind: TargetKind, name: &str) -> bool {
        self.targets
            .iter()
            .any(|(_, k, n, private)| *private && *k == kind && n == name)
    }
}

/// Read `dir/Cargo.toml`; an unreadable manifest gives nothing (the layout still holds).
fn read_manifest(dir: &Path) -> Manifest {
    let manifest = dir.join("Cargo.toml");
    let Some(table) =
        crate::bounded::read_text_capped(&manifest, crate::bounded::MAX_MANIFEST_SIZE)
            .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return Manifest::default();
    };
    let named = |section: &str| {
        table
            .get(section)
            .and_then(|s| s.get("name"))
            .and_then(|n| n.as_str())
            .map(str::to_string)
    };
    let crate_name = named("lib")
        .or_else(|| named("package"))
        .map(|name| name.replace('-', "_"));
    let features: std::collections::BTreeMap<String, Vec<String>> = table
        .get("features")
        .and_then(|f| f.as_table())
        .map(|f| {
            f.iter()
                .map(|(name, implied)| {
                    let implied = implied
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    (name.clone(), implied)
                })
                .collect()
        })
        .unwrap_or_default();
    let package_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut targets = Vec::new();
    for (section, kind) in [
        ("bin", TargetKind::Bin),
        ("example", TargetKind::Example),
        ("test", TargetKind::Test),
        ("bench", TargetKind::Bench),
    ] {
        let entries = table.get(section).and_then(|t| t.as_array());
        for entry in entries.into_iter().flatten() {
            let (Some(path), Some(name)) = (
                entry.get("path").and_then(|p| p.as_str()),
                entry.get("name").and_then(|n| n.as_str()),
            ) else {
                continue;
            };
            let required: Vec<String> = entry
                .get("required-features")
                .and_then(|r| r.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let absolute = std::path::absolute(dir.join(path)).unwrap_or_else(|_| dir.join(path));
            // Test support: built only with private features, or a program kept where cargo
            // keeps test code (see [`TargetRole::of_program`]).
            let support = super::private_feature_target(&required, &features)
                || (matches!(kind, TargetKind::Bin | TargetKind::Example)
                    && TargetRole::of_program(&package_dir, &absolute) == TargetRole::Test);
            targets.push((absolute, kind, name.to_string(), support));
        }
    }
    let mut by_path = std::collections::HashMap::new();
    for (at, (path, ..)) in targets.iter().enumerate() {
        by_path.entry(path.clone()).or_insert(at);
    }
    let path_dependencies = table
        .get("dependencies")
        .and_then(|d| d.as_table())
        .into_iter()
        .flat_map(|d| d.values())
        .filter_map(|d| d.get("path")?.as_str())
        .map(|p| crate::unit::lexical(&dir.join(p).join("Cargo.toml")))
        .collect();
    Manifest {
        crate_name,
        targets,
        by_path,
        path_dependencies,
    }
}

/// A best guess at a file's module path from its location: the components after the last `src`
/// directory, with `lib.rs`, `main.rs` and `mod.rs` naming their directory.
pub fn module_of(path: &Path) -> Vec<String> {
    let components: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let start = components
        .iter()
        .rposition(|c| c == "src")
        .map_or(components.len().saturating_sub(1), |i| i + 1);
    let mut module: Vec<String> = components[start..].to_vec();
    if let Some(last) = module.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        if !matches!(stem.as_str(), "lib" | "main" | "mod") {
            module.push(stem);
        }
    }
    module
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str) -> PathBuf {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create");
        std::fs::write(&path, "").expect("write");
        path
    }

    /// A unit as (name, rooted, test target, files relative to the root with their module).
    type Shown = (String, bool, bool, Vec<(String, String)>);

    fn units(root: &Path, files: &[&str]) -> Vec<Shown> {
        let paths: Vec<PathBuf> = files.iter().map(|f| write(root, f)).collect();
        group(paths)
            .into_iter()
            .map(|u| {
                let files = u
                    .all_files()
                    .map(|f| {
                        let relative = f.path.strip_prefix(root).expect("under the root");
                        (relative.display().to_string(), f.module.join("::"))
                    })
                    .collect();
                (u.name, u.rooted, u.test_target, files)
            })
            .collect()
    }

    #[test]
    fn files_are_grouped_by_package_and_by_cargos_target_layout() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path().join("pkg");
        write(&root, "Cargo.toml");
        let found = units(
            &root,
            &[
                "src/lib.rs",
                "src/server/mod.rs",
                "src/main.rs",
                "src/bin/tool/main.rs",
                "src/bin/tool/args.rs",
                "examples/demo.rs",
                "tests/common/mod.rs",
                "tests/it.rs",
                "build.rs",
            ],
        );
        let lib = vec![
            ("src/lib.rs".to_string(), String::new()),
            ("src/server/mod.rs".to_string(), "server".to_string()),
        ];
        let with_lib = |own: Vec<(&str, &str)>| {
            let mut files: Vec<(String, String)> = own
                .into_iter()
                .map(|(p, m)| (p.to_string(), m.to_string()))
                .collect();
            files.extend(lib.clone());
            files
        };
        assert_eq!(
            found,
            vec![
                ("pkg (lib)".to_string(), true, false, lib.clone()),
                (
                    "pkg (main)".to_string(),
                    true,
                    false,
                    with_lib(vec![("src/main.rs", "")])
                ),
                (
                    "pkg (tool)".to_string(),
                    true,
                    false,
                    with_lib(vec![
                        ("src/bin/tool/main.rs", ""),
                        ("src/bin/tool/args.rs", "args")
                    ])
                ),
                (
                    "pkg (demo)".to_string(),
                    true,
                    false,
                    with_lib(vec![("examples/demo.rs", "")])
                ),
                (
                    "pkg (it)".to_string(),
                    true,
                    true,
                    with_lib(vec![("tests/it.rs", "")])
                ),
                (
                    "pkg (test support)".to_string(),
                    false,
                    true,
                    with_lib(vec![("tests/common/mod.rs", "common")])
                ),
                (
                    "pkg (other files)".to_string(),
                    false,
                    false,
                    with_lib(vec![("build.rs", "build")])
                ),
            ]
        );
    }

    #[test]
    fn files_of_different_packages_never_share_a_unit() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        write(dir.path(), "a/Cargo.toml");
        write(dir.path(), "b/Cargo.toml");
        let found = units(dir.path(), &["a/src/main.rs", "b/src/main.rs", "loose.rs"]);
        let names: Vec<&str> = found.iter().map(|u| u.0.as_str()).collect();
        assert_eq!(names, ["a (main)", "b (main)", "paths"]);
        assert!(found.iter().all(|u| u.3.len() == 1));
    }
}
