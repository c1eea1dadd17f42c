//! Which files to lint: cargo mode (the targets of the selected packages, following the module
//! tree) or path mode (the files and directories named on the command line).

pub mod cargo_mode;
pub mod extern_crates;
pub mod manifests;
pub mod module_tree;
pub mod path_mode;
pub mod targets;

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Why the files to lint could not be found. Shown to the user as one line; exit status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveryError(pub String);

impl fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiscoveryError {}

/// The directory that a path named on the command line confines reads (and fixes) to: the path
/// itself, or a file's directory, with symbolic links resolved. A path written inside the current
/// directory that a link takes outside it confines to the current directory instead, so that the
/// files reached through the link count as outside.
pub fn confinement_root(path: &Path, cwd: &Path) -> PathBuf {
    let joined = cwd.join(path);
    let real = std::fs::canonicalize(&joined).unwrap_or_else(|_| joined.clone());
    let real = if real.is_file() {
        real.parent().map(Path::to_path_buf).unwrap_or(real)
    } else {
        real
    };
    let real_cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    if written_inside(path) && !real.starts_with(&real_cwd) {
        return real_cwd;
    }
    real
}

/// The git work tree around a root, when the root lies in one: the tree a pull request brings is
/// the repository, so a module a package includes from elsewhere in it (`#[path =
/// "../../shared/x.rs"]`) is read, and only what lies outside it is refused.
pub fn widen_to_repository(root: PathBuf) -> PathBuf {
    match crate::programs::repository_root(&root) {
        Some(top) if root.starts_with(&top) => top,
        _ => root,
    }
}

/// Whether a path names something inside the current directory by its spelling: relative, and
/// never climbing above its start.
fn written_inside(path: &Path) -> bool {
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// Whether a target that needs `required` features is test support that no default build
/// compiles: each feature it needs is off by default (not reached from `default`) and private
/// by its name (`_test`, `test-utils`, `mock-server`), as crates name the features that build
/// their test mocks. Such a target's code is test code.
pub fn private_feature_target(
    required: &[String],
    features: &std::collections::BTreeMap<String, Vec<String>>,
) -> bool {
    if required.is_empty() {
        return false;
    }
    let enabled = crate::features::enabled(features);
    let private = |name: &str| {
        let lower = name.to_ascii_lowercase();
        lower.starts_with('_') || lower.contains("test") || lower.contains("mock")
    };
    required
        .iter()
        .all(|f| !enabled.contains(f.as_str()) && private(f))
}

/// The units a run lints unless told to lint every target: the product's. A test or bench
/// target, the files its tests share (`tests/common/mod.rs`) and a target built only for test
/// features ([`private_feature_target`]) are test code, which no rule judges (a mock's answer
/// serves no client) and which cost a third of a run on crates with large test suites; as
/// `cargo clippy` checks them only with `--all-targets`, so does this tool. But what the command
/// line points into is linted: a test unit is kept when one of its files lies under a path
/// named (`named`, path mode) that lies below the unit's package directory (`tests/`,
/// `tests/it.rs`; not `.` or the package itself).
pub fn product_units(
    units: Vec<crate::unit::LintUnit>,
    named: &[PathBuf],
) -> Vec<crate::unit::LintUnit> {
    // Compared as absolute paths (lexically, as path mode finds packages: no file is read).
    let plain = |path: &Path| -> PathBuf {
        std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
    };
    let named: Vec<PathBuf> = named.iter().map(|p| plain(p)).collect();
    units
        .into_iter()
        .filter(|unit| {
            if !unit.test_target {
                return true;
            }
            let Some(package) = unit.manifest.as_deref().and_then(Path::parent).map(plain) else {
                return false;
            };
            named.iter().any(|pointed| {
                pointed != &package
                    && pointed.starts_with(&package)
                    && unit
                        .files
                        .iter()
                        .any(|f| plain(&f.path).starts_with(pointed))
            })
        })
        .collect()
}

/// Where the facts cache of a run lives: `mcp-lint/` in the target directory of the cargo
/// workspace around `start` (a directory or file named on the command line, or where cargo mode
/// starts), as cargo would place it (`$CARGO_TARGET_DIR`, else `target/` at the workspace root:
/// the nearest directory above the nearest `Cargo.toml` whose manifest has a `[workspace]`, else
/// that package's own); outside any cargo project, a directory of the user's cache directory
/// named after the start's path, so that nothing is written into a directory that is not a
/// cargo project. `None` when there is nowhere to put it (no user cache directory), or when the
/// target directory or its `mcp-lint/` is not a directory (a link the tree commits in its place
/// turns the cache off).
pub fn cache_directory(start: &Path, cwd: &Path) -> Option<PathBuf> {
    let joined = cwd.join(start);
    let real = std::fs::canonicalize(&joined).unwrap_or(joined);
    let dir = if real.is_file() {
        real.parent().map(Path::to_path_buf).unwrap_or(real)
    } else {
        real
    };
    let Some(root) = workspace_root(&dir) else {
        let key = blake3::hash(dir.as_os_str().as_encoded_bytes()).to_hex();
        return dirs::cache_dir().map(|cache| {
            cache
                .join("cargo-mcp-lint")
                .join("facts")
                .join(&key.as_str()[..16])
        });
    };
    let target = match std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        Some(dir) => cwd.join(dir),
        None => root.join("target"),
    };
    let directory = target.join("mcp-lint");
    let not_a_directory =
        |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| !m.file_type().is_dir());
    if not_a_directory(&target)
        || not_a_directory(&directory)
        || crate::tree::linked(&directory.join("facts")).is_some()
    {
        return None;
    }
    Some(directory)
}

/// The root of the cargo workspace around a directory: the nearest ancestor (or itself) whose
/// `Cargo.toml` has a `[workspace]` table, above the nearest `Cargo.toml`; else that package's
/// directory; `None` outside any cargo project.
pub(crate) fn workspace_root(dir: &Path) -> Option<PathBuf> {
    let package = dir.ancestors().find(|d| d.join("Cargo.toml").is_file())?;
    let declares_workspace = |d: &Path| {
        crate::bounded::read_text_capped(&d.join("Cargo.toml"), crate::bounded::MAX_MANIFEST_SIZE)
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|table| table.contains_key("workspace"))
    };
    let workspace = package
        .ancestors()
        .filter(|d| d.join("Cargo.toml").is_file())
        .find(|d| declares_workspace(d));
    Some(workspace.unwrap_or(package).to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::{private_feature_target, written_inside};

    #[test]
    fn paths_written_inside_the_current_directory() {
        for inside in ["a", "a/b", ".", "a/../b", "./a"] {
            assert!(written_inside(std::path::Path::new(inside)), "{inside}");
        }
        for outside in ["..", "../a", "a/../../b", "/a"] {
            assert!(!written_inside(std::path::Path::new(outside)), "{outside}");
        }
    }
    use std::collections::BTreeMap;

    #[test]
    fn only_private_features_off_by_default_make_test_support() {
        let features: BTreeMap<String, Vec<String>> = [
            ("default".to_string(), vec!["mcp".to_string()]),
            ("mcp".to_string(), vec!["dep:rmcp".to_string()]),
            ("_test".to_string(), vec![]),
            ("test-utils".to_string(), vec![]),
            ("server".to_string(), vec![]),
        ]
        .into_iter()
        .collect();
        let needs =
            |names: &[&str]| -> Vec<String> { names.iter().map(|n| n.to_string()).collect() };
        assert!(private_feature_target(&needs(&["_test"]), &features));
        assert!(private_feature_target(&needs(&["test-utils"]), &features));
        // An optional product feature, a default one, or none at all: product code.
        assert!(!private_feature_target(&needs(&["server"]), &features));
        assert!(!private_feature_target(&needs(&["mcp"]), &features));
        assert!(!private_feature_target(
            &needs(&["_test", "server"]),
            &features
        ));
        assert!(!private_feature_target(&[], &features));
    }
}
