//! Cargo mode without cargo: when `cargo metadata` cannot run (a toolchain the repository pins is
//! not installed, a path dependency lies outside the checkout, the network is off, a manifest is
//! broken), the workspace is read from its manifests directly (`cargo_toml`, which discovers
//! targets the way cargo does and fills in what members inherit from the workspace). Nothing is
//! run; every manifest is read with a size limit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::targets::{CargoOptions, PackageTargets, TargetInfo, TargetRole};
use super::DiscoveryError;
use crate::source::ByteSpan;

/// A manifest that could not be read: reported as a finding on the manifest's own line, while
/// the rest of the workspace is linted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestProblem {
    pub path: PathBuf,
    /// The manifest's text as read (empty when it could not be read at all).
    pub text: String,
    pub span: ByteSpan,
    pub message: String,
}

/// The packages selected by `options` in the workspace around `manifest`, read from the
/// manifests.
pub fn read(
    options: &CargoOptions,
    manifest: &Path,
) -> Result<(Vec<PackageTargets>, Vec<ManifestProblem>), DiscoveryError> {
    let manifest_dir = manifest.parent().unwrap_or(Path::new("."));
    let root_dir =
        super::workspace_root(manifest_dir).unwrap_or_else(|| manifest_dir.to_path_buf());
    let root_manifest = root_dir.join("Cargo.toml");
    let mut problems = Vec::new();
    let root = match parse(&root_manifest) {
        Ok(root) => root,
        Err(problem) => return Ok((Vec::new(), vec![problem])),
    };
    // The members: the workspace's (globs expanded, `exclude` left out), or the package alone.
    let mut member_dirs: Vec<PathBuf> = Vec::new();
    let mut default_dirs: Vec<PathBuf> = Vec::new();
    if let Some(workspace) = &root.workspace {
        for pattern in &workspace.members {
            member_dirs.extend(expand(&root_dir, pattern));
        }
        for pattern in &workspace.default_members {
            default_dirs.extend(expand(&root_dir, pattern));
        }
        let excluded: Vec<PathBuf> = workspace.exclude.iter().map(|e| root_dir.join(e)).collect();
        member_dirs.retain(|d| !excluded.iter().any(|e| d.starts_with(e)));
        if root.package.is_some() && !member_dirs.contains(&root_dir) {
            member_dirs.insert(0, root_dir.clone());
        }
    } else {
        member_dirs.push(root_dir.clone());
    }
    member_dirs.sort();
    member_dirs.dedup();
    let mut members: Vec<(PathBuf, PackageTargets)> = Vec::new();
    for dir in &member_dirs {
        let path = dir.join("Cargo.toml");
        if !path.is_file() {
            continue;
        }
        match package(&path, &root, &root_dir) {
            Ok(Some(targets)) => members.push((dir.clone(), targets)),
            Ok(None) => {}
            Err(problem) => problems.push(problem),
        }
    }
    // The manifest named is a package outside the workspace's members: it alone.
    let own_dir =
        std::fs::canonicalize(manifest_dir).unwrap_or_else(|_| manifest_dir.to_path_buf());
    let is_member = |d: &PathBuf| std::fs::canonicalize(d).is_ok_and(|d| d == own_dir);
    let own_unreadable = problems.iter().any(|p| {
        std::fs::canonicalize(&p.path).is_ok_and(|p| p.parent() == Some(own_dir.as_path()))
    });
    if own_unreadable && options.packages.is_empty() && !options.workspace {
        // The package asked for is the one that cannot be read: it is reported, nothing else.
        return Ok((Vec::new(), problems));
    }
    let selected = select(
        options,
        members,
        &default_dirs,
        is_member,
        manifest,
        &root,
        &root_dir,
    )?;
    Ok((selected, problems))
}

/// The selected packages, as cargo selects them.
fn select(
    options: &CargoOptions,
    members: Vec<(PathBuf, PackageTargets)>,
    default_dirs: &[PathBuf],
    is_own: impl Fn(&PathBuf) -> bool,
    manifest: &Path,
    root: &cargo_toml::Manifest,
    root_dir: &Path,
) -> Result<Vec<PackageTargets>, DiscoveryError> {
    if !options.packages.is_empty() {
        let mut selected = Vec::new();
        for name in &options.packages {
            let found: Vec<&PackageTargets> = members
                .iter()
                .map(|(_, p)| p)
                .filter(|p| &p.name == name)
                .collect();
            if found.is_empty() {
                return Err(DiscoveryError(format!(
                    "package `{name}` is not a member of the workspace at `{}`",
                    root_dir.display()
                )));
            }
            selected.extend(found.into_iter().cloned());
        }
        return Ok(selected);
    }
    if options.workspace {
        for name in &options.exclude {
            if !members.iter().any(|(_, p)| &p.name == name) {
                return Err(DiscoveryError(format!(
                    "excluded package `{name}` is not a member of the workspace"
                )));
            }
        }
        return Ok(members
            .into_iter()
            .map(|(_, p)| p)
            .filter(|p| !options.exclude.contains(&p.name))
            .collect());
    }
    if let Some((_, own)) = members.iter().find(|(dir, _)| is_own(dir)) {
        return Ok(vec![own.clone()]);
    }
    // A package that is not one of the members (outside any workspace).
    if members.is_empty() || root.workspace.is_none() {
        if let Ok(Some(own)) = package(manifest, root, root_dir) {
            return Ok(vec![own]);
        }
    }
    if !default_dirs.is_empty() {
        let defaults: Vec<PackageTargets> = members
            .iter()
            .filter(|(dir, _)| default_dirs.contains(dir))
            .map(|(_, p)| p.clone())
            .collect();
        if !defaults.is_empty() {
            return Ok(defaults);
        }
    }
    Ok(members.into_iter().map(|(_, p)| p).collect())
}

/// A manifest, read with the size limit, parsed without completing it.
fn parse(path: &Path) -> Result<cargo_toml::Manifest, ManifestProblem> {
    let unread = |why: &str| reported(path, String::new(), ByteSpan::default(), why);
    if outside_the_tree(path) {
        // A link to `~/.git-credentials` is not shown, not even in part.
        return Err(unread("it is a link to a file outside the linted tree"));
    }
    let text = match crate::bounded::read_capped(path, crate::bounded::MAX_MANIFEST_SIZE) {
        Ok((bytes, false)) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return Err(unread("it is not UTF-8")),
        },
        Ok((_, true)) => return Err(unread("it is larger than 16 MiB")),
        Err(error) => return Err(unread(&error.to_string())),
    };
    match cargo_toml::Manifest::from_str(&text) {
        Ok(manifest) => Ok(manifest),
        Err(cargo_toml::Error::Parse(error)) => {
            let span = error
                .span()
                .map_or(ByteSpan::default(), |r| ByteSpan::new(r.start, r.end));
            let message = error.message().to_string();
            Err(reported(path, text, span, &message))
        }
        Err(error) => {
            let message = error.to_string();
            Err(reported(path, text, ByteSpan::default(), &message))
        }
    }
}

fn reported(path: &Path, text: String, span: ByteSpan, why: &str) -> ManifestProblem {
    let end = span.end.min(text.len());
    let start = span.start.min(end);
    ManifestProblem {
        path: path.to_path_buf(),
        text,
        span: ByteSpan::new(start, end),
        message: format!(
            "this manifest could not be read ({}), so its package was not linted",
            crate::escape::inline(why.trim())
        ),
    }
}

/// A package's targets from its manifest, completed from the file system (targets cargo
/// discovers) and the workspace (what it inherits); `None` for a manifest with no package (a
/// virtual workspace's).
fn package(
    path: &Path,
    root: &cargo_toml::Manifest,
    root_dir: &Path,
) -> Result<Option<PackageTargets>, ManifestProblem> {
    let mut manifest = parse(path)?;
    if manifest.package.is_none() {
        return Ok(None);
    }
    // A completion that fails (an inherited key the workspace lacks) or panics leaves the
    // targets the manifest spells out; the package is still linted.
    let completed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let workspace = root.workspace.as_ref().map(|_| (root, root_dir));
        manifest
            .complete_from_path_and_workspace(path, workspace)
            .is_ok()
    }));
    let _ = completed;
    let Some(package) = &manifest.package else {
        return Ok(None);
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut targets = Vec::new();
    let mut add = |product: &cargo_toml::Product, role: TargetRole, default: Option<PathBuf>| {
        let Some(src) = product.path.as_ref().map(|p| dir.join(p)).or(default) else {
            return;
        };
        // A program whose root lies in `tests/` is test code (see [`TargetRole::of_program`]).
        let role = match role {
            TargetRole::Other => TargetRole::of_program(dir, &src),
            other => other,
        };
        targets.push(TargetInfo {
            name: product
                .name
                .clone()
                .unwrap_or_else(|| package.name().replace('-', "_")),
            role,
            src_path: src,
            required_features: product.required_features.clone(),
        });
    };
    if let Some(lib) = &manifest.lib {
        add(lib, TargetRole::Library, Some(dir.join("src/lib.rs")));
    } else if dir.join("src/lib.rs").is_file() {
        add(
            &cargo_toml::Product::default(),
            TargetRole::Library,
            Some(dir.join("src/lib.rs")),
        );
    }
    for bin in &manifest.bin {
        add(bin, TargetRole::Other, None);
    }
    if manifest.bin.is_empty() && dir.join("src/main.rs").is_file() {
        add(
            &cargo_toml::Product::default(),
            TargetRole::Other,
            Some(dir.join("src/main.rs")),
        );
    }
    for product in &manifest.example {
        add(product, TargetRole::Other, None);
    }
    for product in manifest.test.iter().chain(&manifest.bench) {
        add(product, TargetRole::Test, None);
    }
    let features: BTreeMap<String, Vec<String>> = manifest.features.clone();
    let path_dependencies = manifest
        .dependencies
        .values()
        .filter_map(|d| d.detail()?.path.as_deref())
        .map(|p| crate::unit::lexical(&dir.join(p).join("Cargo.toml")))
        .collect();
    let extern_crates = extern_crates(&manifest, package);
    Ok(Some(PackageTargets {
        name: package.name().to_string(),
        manifest: path.to_path_buf(),
        features,
        targets,
        path_dependencies,
        extern_crates,
    }))
}

/// The crates a package's targets may name (see [`super::extern_crates::known_crates`]), when
/// its manifest writes out an edition other than 2015.
fn extern_crates(
    manifest: &cargo_toml::Manifest,
    package: &cargo_toml::Package,
) -> Option<Vec<String>> {
    let edition = package.edition.get().ok().copied();
    edition
        .filter(|e| *e != cargo_toml::Edition::E2015)
        .map(|_| {
            let mut tables = vec![
                &manifest.dependencies,
                &manifest.dev_dependencies,
                &manifest.build_dependencies,
            ];
            for target in manifest.target.values() {
                tables.extend([
                    &target.dependencies,
                    &target.dev_dependencies,
                    &target.build_dependencies,
                ]);
            }
            let library = manifest
                .lib
                .as_ref()
                .and_then(|l| l.name.clone())
                .unwrap_or_else(|| package.name().to_string());
            super::extern_crates::known_crates(
                tables.into_iter().flat_map(|t| t.keys().cloned()),
                Some(&library),
            )
        })
}

/// The member directories a workspace manifest in `root_dir` names (globs expanded, `exclude`
/// left out); none when it declares no workspace or cannot be read.
pub fn member_dirs(root_dir: &Path) -> Vec<PathBuf> {
    let manifest = root_dir.join("Cargo.toml");
    if outside_the_tree(&manifest) {
        return Vec::new();
    }
    let Some(table) =
        crate::bounded::read_text_capped(&manifest, crate::bounded::MAX_MANIFEST_SIZE)
            .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return Vec::new();
    };
    let Some(workspace) = table.get("workspace") else {
        return Vec::new();
    };
    let strings = |key: &str| -> Vec<String> {
        workspace
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let excluded: Vec<PathBuf> = strings("exclude")
        .iter()
        .map(|e| root_dir.join(e))
        .collect();
    strings("members")
        .iter()
        .flat_map(|pattern| expand(root_dir, pattern))
        .filter(|d| !excluded.iter().any(|e| d.starts_with(e)))
        .collect()
}

/// Whether a manifest resolves (through links) to a file outside the linted tree.
fn outside_the_tree(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
        && !crate::tree::inside(&crate::tree::real(path), &crate::tree::tops())
}

/// The first manifest cargo would read for the workspace around `manifest` (the root's, each
/// member's, each member's path dependencies') that is a link to a file outside the linted tree:
/// cargo must not see it, since its errors quote the file's lines.
pub fn linked_out(manifest: &Path) -> Option<PathBuf> {
    let manifest_dir = manifest.parent().unwrap_or(Path::new("."));
    let root_dir =
        super::workspace_root(manifest_dir).unwrap_or_else(|| manifest_dir.to_path_buf());
    let mut manifests = vec![manifest.to_path_buf(), root_dir.join("Cargo.toml")];
    if let Some(found) = manifests.iter().find(|m| outside_the_tree(m)) {
        return Some(found.clone());
    }
    // Parsed only when it lies inside (checked above).
    let text = crate::bounded::read_text_capped(&manifests[1], crate::bounded::MAX_MANIFEST_SIZE)?;
    let root: toml::Table = text.parse().ok()?;
    let patterns = root
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|members| {
            members
                .iter()
                .filter_map(|m| m.as_str())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    for pattern in patterns {
        manifests.extend(
            expand(&root_dir, pattern)
                .into_iter()
                .map(|d| d.join("Cargo.toml")),
        );
    }
    let mut dependencies = Vec::new();
    for member in &manifests {
        if outside_the_tree(member) {
            return Some(member.clone());
        }
        let dir = member.parent().unwrap_or(Path::new("."));
        let table = crate::bounded::read_text_capped(member, crate::bounded::MAX_MANIFEST_SIZE)
            .and_then(|text| text.parse::<toml::Table>().ok());
        for path in table.iter().flat_map(path_dependencies) {
            dependencies.push(dir.join(path).join("Cargo.toml"));
        }
    }
    dependencies.into_iter().find(|m| outside_the_tree(m))
}

/// The `path` of each dependency a manifest declares (plain, dev, build, and per target).
fn path_dependencies(table: &toml::Table) -> Vec<String> {
    let mut tables: Vec<&toml::Table> = vec![table];
    if let Some(targets) = table.get("target").and_then(|t| t.as_table()) {
        tables.extend(targets.values().filter_map(|t| t.as_table()));
    }
    let mut paths = Vec::new();
    for table in tables {
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(dependencies) = table.get(section).and_then(|d| d.as_table()) else {
                continue;
            };
            paths.extend(
                dependencies
                    .values()
                    .filter_map(|d| d.get("path"))
                    .filter_map(|p| p.as_str())
                    .map(str::to_string),
            );
        }
    }
    paths
}

/// The directories a `members` pattern names (`crates/*`, `server`), relative to the root.
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![root.to_path_buf()];
    for part in Path::new(pattern).components() {
        let part = part.as_os_str().to_string_lossy();
        if !part.contains(['*', '?', '[']) {
            found = found.into_iter().map(|d| d.join(part.as_ref())).collect();
            continue;
        }
        let Ok(glob) = globset::Glob::new(&part) else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
        let mut next = Vec::new();
        for dir in found {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir())
                    && matcher.is_match(entry.file_name())
                {
                    next.push(entry.path());
                }
            }
        }
        next.sort();
        found = next;
    }
    found
}
