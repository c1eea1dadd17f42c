//! Cargo mode: ask `cargo metadata --no-deps` for the workspace, select packages the way cargo
//! and clippy do, and lint every target of each selected package from its root file. Nothing is
//! built and no build script or proc macro runs.

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};

pub use super::targets::CargoOptions;
use super::targets::{PackageTargets, TargetInfo, TargetRole};
use super::DiscoveryError;
use crate::unit::{LintUnit, UnitFile};

/// The nearest `Cargo.toml` at or above `dir`.
pub fn find_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|candidate| candidate.is_file())
}

/// One unit per selected package, holding the root files of its targets.
pub fn discover(options: &CargoOptions, cwd: &Path) -> Result<Vec<LintUnit>, DiscoveryError> {
    discover_reporting(options, cwd).map(|found| found.units)
}

/// What cargo mode found: the units, notes for the user (the workspace had to be read from its
/// manifests, and why: what `cargo metadata` said), and the manifests that could not be read.
#[derive(Debug, Default)]
pub struct Found {
    pub units: Vec<LintUnit>,
    pub notes: Vec<String>,
    pub unreadable: Vec<super::manifests::ManifestProblem>,
}

/// [`discover`], with what the user is told beside the findings.
pub fn discover_reporting(options: &CargoOptions, cwd: &Path) -> Result<Found, DiscoveryError> {
    let mut notes = Vec::new();
    let mut unreadable = Vec::new();
    if !options.exclude.is_empty() && !options.workspace {
        return Err(DiscoveryError(
            "--exclude can only be used together with --workspace".into(),
        ));
    }
    let manifest = match &options.manifest_path {
        Some(path) => {
            if path.file_name().is_none_or(|name| name != "Cargo.toml") {
                return Err(DiscoveryError(format!(
                    "the manifest-path must be a path to a Cargo.toml file: `{}`",
                    path.display()
                )));
            }
            if !path.is_file() {
                return Err(DiscoveryError(format!(
                    "manifest path `{}` does not exist",
                    path.display()
                )));
            }
            cwd.join(path)
        }
        None => find_manifest(cwd).ok_or_else(|| {
            DiscoveryError(format!(
                "could not find `Cargo.toml` in `{}` or any parent directory (name files or directories to lint them without cargo)",
                cwd.display()
            ))
        })?,
    };
    // Run from outside the tree: its toolchain and cargo configuration files never apply.
    let neutral = crate::programs::neutral_directory()
        .map_err(|e| DiscoveryError(format!("could not create a temporary directory: {e}")))?;
    let linked_out = super::manifests::linked_out(&manifest);
    let metadata = match crate::programs::cargo() {
        _ if linked_out.is_some() => {
            Err(cargo_metadata::Error::Io(std::io::Error::other(format!(
                "`{}` is a link to a file outside the linted tree, so cargo was not run",
                linked_out.as_deref().unwrap_or(&manifest).display()
            ))))
        }
        Some(cargo) => MetadataCommand::new()
            .cargo_path(cargo)
            .no_deps()
            .manifest_path(&manifest)
            .current_dir(neutral.path())
            .env("PATH", crate::programs::safe_path())
            .exec(),
        None => Err(cargo_metadata::Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no `cargo` found outside the linted tree",
        ))),
    };
    let (packages, root) = match metadata {
        Ok(metadata) => {
            let selected = select_packages(&metadata, options, &manifest)?;
            let packages: Vec<PackageTargets> = selected
                .into_iter()
                .map(PackageTargets::from_metadata)
                .collect();
            (packages, metadata.workspace_root.into_std_path_buf())
        }
        Err(error) => {
            // Without cargo: read the manifests, and say why.
            let cargo_said = metadata_error(error);
            let (packages, problems) =
                super::manifests::read(options, &manifest).map_err(|reading| {
                    DiscoveryError(format!(
                        "{cargo_said}\nand reading the manifests directly failed too: {reading}"
                    ))
                })?;
            unreadable = problems;
            notes.push(format!(
                "{cargo_said}\nso the workspace was read from its manifests instead (targets found as cargo finds them; nothing is built)"
            ));
            let dir = manifest.parent().unwrap_or(Path::new("."));
            (
                packages,
                super::workspace_root(dir).unwrap_or_else(|| dir.to_path_buf()),
            )
        }
    };
    let root = super::widen_to_repository(std::fs::canonicalize(&root).unwrap_or(root));
    let mut units: Vec<LintUnit> = packages
        .iter()
        .flat_map(|package| units_of(package, &mut notes))
        .collect();
    for unit in &mut units {
        unit.roots = vec![root.clone()];
    }
    Ok(Found {
        units,
        notes,
        unreadable,
    })
}

/// What `cargo metadata` said, as it printed it: its lines indented under one line of ours (a
/// backtrace rustup adds when `RUST_BACKTRACE` is set is left out).
fn metadata_error(error: cargo_metadata::Error) -> String {
    match error {
        cargo_metadata::Error::CargoMetadata { stderr } => {
            let mut shown = String::from("`cargo metadata` failed:");
            for line in stderr.lines() {
                if line.trim_start().starts_with("Stack backtrace:") {
                    break;
                }
                if is_snippet_line(line) {
                    // A quoted line of a file (cargo's TOML errors show the manifest's lines):
                    // the manifest may be a file the tree links to, never shown.
                    continue;
                }
                if !line.trim().is_empty() {
                    shown.push_str("\n  ");
                    shown.push_str(line.trim_end());
                }
            }
            shown
        }
        cargo_metadata::Error::Io(error) => format!("could not run `cargo metadata`: {error}"),
        other => format!("`cargo metadata` failed: {other}"),
    }
}

/// Whether a line of cargo's error output is part of a source snippet: a gutter (`  |`,
/// `12 | text`) rather than a message or a location (`--> path:1:2`).
fn is_snippet_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    let after_number = trimmed.trim_start_matches(|c: char| c.is_ascii_digit());
    after_number.starts_with('|') || after_number.starts_with(" |") || trimmed.starts_with("...")
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn select_packages<'m>(
    metadata: &'m Metadata,
    options: &CargoOptions,
    manifest: &Path,
) -> Result<Vec<&'m Package>, DiscoveryError> {
    let members = metadata.workspace_packages();
    if !options.packages.is_empty() {
        let mut selected = Vec::new();
        for name in &options.packages {
            let found: Vec<&Package> = members
                .iter()
                .copied()
                .filter(|p| p.name.as_str() == name.as_str())
                .collect();
            if found.is_empty() {
                return Err(DiscoveryError(format!(
                    "package `{name}` is not a member of the workspace at `{}`",
                    metadata.workspace_root
                )));
            }
            selected.extend(found);
        }
        return Ok(selected);
    }
    if options.workspace {
        for name in &options.exclude {
            if !members.iter().any(|p| p.name.as_str() == name.as_str()) {
                return Err(DiscoveryError(format!(
                    "excluded package `{name}` is not a member of the workspace"
                )));
            }
        }
        return Ok(members
            .into_iter()
            .filter(|p| !options.exclude.iter().any(|e| e == p.name.as_str()))
            .collect());
    }
    if let Some(own) = members
        .iter()
        .copied()
        .find(|p| same_file(p.manifest_path.as_std_path(), manifest))
    {
        return Ok(vec![own]);
    }
    if metadata.workspace_default_members.is_available() {
        let defaults = metadata.workspace_default_packages();
        if !defaults.is_empty() {
            return Ok(defaults);
        }
    }
    Ok(members)
}

impl PackageTargets {
    fn from_metadata(package: &Package) -> Self {
        let targets = package
            .targets
            .iter()
            .filter(|t| !t.kind.iter().all(|k| *k == TargetKind::CustomBuild))
            .map(|t| TargetInfo {
                name: t.name.clone(),
                role: if is_library(t) {
                    TargetRole::Library
                } else if t
                    .kind
                    .iter()
                    .any(|k| matches!(k, TargetKind::Test | TargetKind::Bench))
                {
                    TargetRole::Test
                } else {
                    TargetRole::of_program(
                        package
                            .manifest_path
                            .parent()
                            .map(|d| d.as_std_path())
                            .unwrap_or(std::path::Path::new("")),
                        t.src_path.as_std_path(),
                    )
                },
                src_path: t.src_path.clone().into_std_path_buf(),
                required_features: t.required_features.clone(),
            })
            .collect();
        PackageTargets {
            name: package.name.to_string(),
            manifest: package.manifest_path.clone().into_std_path_buf(),
            features: package
                .features
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            targets,
            path_dependencies: package
                .dependencies
                .iter()
                .filter(|d| d.kind == cargo_metadata::DependencyKind::Normal)
                .filter_map(|d| d.path.as_ref())
                .map(|dir| crate::unit::lexical(dir.join("Cargo.toml").as_std_path()))
                .collect(),
            extern_crates: (package.edition != cargo_metadata::Edition::E2015).then(|| {
                super::extern_crates::known_crates(
                    package
                        .dependencies
                        .iter()
                        .map(|d| d.rename.clone().unwrap_or_else(|| d.name.clone())),
                    package
                        .targets
                        .iter()
                        .find(|t| is_library(t))
                        .map(|t| t.name.as_str()),
                )
            }),
        }
    }
}

fn is_library(target: &cargo_metadata::Target) -> bool {
    target.kind.iter().any(|k| {
        matches!(
            k,
            TargetKind::Lib
                | TargetKind::RLib
                | TargetKind::DyLib
                | TargetKind::CDyLib
                | TargetKind::StaticLib
                | TargetKind::ProcMacro
        )
    })
}

/// One unit per target, as rustc compiles them: the library alone, and every other target with
/// the library it may call into.
fn units_of(package: &PackageTargets, notes: &mut Vec<String>) -> Vec<LintUnit> {
    let root = |path: &Path| UnitFile {
        path: path.into(),
        module: std::sync::Arc::from([]),
        owns_directory: true,
    };
    let library: Vec<UnitFile> = package
        .targets
        .iter()
        .filter(|t| t.role == TargetRole::Library)
        .map(|t| root(&t.src_path))
        .collect();
    // The name a binary uses the library by: the library target's (cargo turns `-` into `_`).
    let crate_name = package
        .targets
        .iter()
        .find(|t| t.role == TargetRole::Library)
        .map(|t| t.name.replace('-', "_"));
    let mut units: Vec<LintUnit> = Vec::new();
    if !library.is_empty() {
        units.push(LintUnit {
            name: format!("{} (lib)", package.name),
            files: library.clone(),
            follow_modules: true,
            rooted: true,
            manifest: Some(package.manifest.clone()),
            test_target: false,
            is_library: true,
            path_dependencies: package.path_dependencies.clone(),
            crate_name: crate_name.clone(),
            roots: Vec::new(),
            library: Default::default(),
        });
    }
    for target in &package.targets {
        if target.role == TargetRole::Library {
            continue;
        }
        // A binary or example whose root file uses a crate its package does not have cannot
        // be built: it never runs (see [`super::extern_crates`]).
        if target.role == TargetRole::Other {
            if let Some(known) = &package.extern_crates {
                if let Some(unknown) = super::extern_crates::unknown_crate(&target.src_path, known)
                {
                    notes.push(format!(
                        "`{}` of package `{}` uses crate `{unknown}`, which the package does not depend on: it cannot be built, so it was not linted",
                        target.name, package.name
                    ));
                    continue;
                }
            }
        }
        let own = root(&target.src_path);
        let mut files: Vec<UnitFile> = library
            .iter()
            .filter(|l| l.path != own.path)
            .cloned()
            .collect();
        files.insert(0, own);
        units.push(LintUnit {
            name: format!("{} ({})", package.name, target.name),
            files,
            follow_modules: true,
            rooted: true,
            manifest: Some(package.manifest.clone()),
            test_target: target.role == TargetRole::Test
                || super::private_feature_target(&target.required_features, &package.features),
            is_library: false,
            path_dependencies: package.path_dependencies.clone(),
            crate_name: crate_name.clone(),
            roots: Vec::new(),
            library: Default::default(),
        });
    }
    units
}
