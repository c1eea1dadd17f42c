//! Cargo mode: ask `cargo metadata --no-deps` for the workspace, select packages the way cargo
//! and clippy do, and lint every target of each selected package from its root file. Nothing is
//! built and no build script or proc macro runs.

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};

use super::DiscoveryError;
use crate::unit::{LintUnit, UnitFile};

/// Package selection, spelled as cargo spells it.
#[derive(Debug, Clone, Default)]
pub struct CargoOptions {
    pub manifest_path: Option<PathBuf>,
    pub packages: Vec<String>,
    pub workspace: bool,
    pub exclude: Vec<String>,
}

/// The nearest `Cargo.toml` at or above `dir`.
pub fn find_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|candidate| candidate.is_file())
}

/// One unit per selected package, holding the root files of its targets.
pub fn discover(options: &CargoOptions, cwd: &Path) -> Result<Vec<LintUnit>, DiscoveryError> {
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
    let metadata = MetadataCommand::new()
        .cargo_path(crate::programs::cargo())
        .no_deps()
        .manifest_path(&manifest)
        .current_dir(neutral.path())
        .exec()
        .map_err(|error| DiscoveryError(metadata_error(error)))?;
    let selected = select_packages(&metadata, options, &manifest)?;
    let root = metadata.workspace_root.as_std_path();
    let root = super::widen_to_repository(
        std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
    );
    let mut units: Vec<LintUnit> = selected.into_iter().flat_map(units_of).collect();
    for unit in &mut units {
        unit.roots = vec![root.clone()];
    }
    Ok(units)
}

fn metadata_error(error: cargo_metadata::Error) -> String {
    match error {
        cargo_metadata::Error::CargoMetadata { stderr } => {
            let detail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            format!("`cargo metadata` failed: {}", detail.join(" "))
        }
        cargo_metadata::Error::Io(error) => format!("could not run `cargo metadata`: {error}"),
        other => format!("`cargo metadata` failed: {other}"),
    }
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

/// One unit per target, as rustc compiles them: the library alone, and every other target with
/// the library it may call into.
fn units_of(package: &Package) -> Vec<LintUnit> {
    let root = |path: &cargo_metadata::camino::Utf8PathBuf| UnitFile {
        path: path.clone().into_std_path_buf(),
        module: Vec::new(),
        owns_directory: true,
    };
    let is_library = |target: &cargo_metadata::Target| {
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
    };
    let library: Vec<UnitFile> = package
        .targets
        .iter()
        .filter(|t| is_library(t))
        .map(|t| root(&t.src_path))
        .collect();
    // The name a binary uses the library by: the library target's (cargo turns `-` into `_`).
    let crate_name = package
        .targets
        .iter()
        .find(|t| is_library(t))
        .map(|t| t.name.replace('-', "_"));
    let mut units: Vec<LintUnit> = Vec::new();
    if !library.is_empty() {
        units.push(LintUnit {
            name: format!("{} (lib)", package.name),
            files: library.clone(),
            follow_modules: true,
            rooted: true,
            manifest: Some(package.manifest_path.clone().into_std_path_buf()),
            test_target: false,
            crate_name: crate_name.clone(),
            roots: Vec::new(),
        });
    }
    for target in &package.targets {
        if is_library(target) || target.kind.iter().all(|k| *k == TargetKind::CustomBuild) {
            continue;
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
            manifest: Some(package.manifest_path.clone().into_std_path_buf()),
            test_target: target
                .kind
                .iter()
                .any(|k| matches!(k, TargetKind::Test | TargetKind::Bench))
                || super::private_feature_target(&target.required_features, &package.features),
            crate_name: crate_name.clone(),
            roots: Vec::new(),
        });
    }
    units
}
