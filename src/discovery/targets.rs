//! What cargo mode knows of a workspace's packages, whether it asked cargo or read the manifests
//! itself: the package selection, and each package's targets.

use std::path::PathBuf;

/// Package selection, spelled as cargo spells it.
#[derive(Debug, Clone, Default)]
pub struct CargoOptions {
    pub manifest_path: Option<PathBuf>,
    pub packages: Vec<String>,
    pub workspace: bool,
    pub exclude: Vec<String>,
}

/// What a target is to the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetRole {
    /// The library (any library kind, or a proc macro).
    Library,
    /// A test or bench target: test code.
    Test,
    /// A binary or an example.
    Other,
}

impl TargetRole {
    /// The role of a binary or an example whose root file is `src` in the package whose
    /// directory is `package_dir`: test code when the file lies in the package's `tests/` or
    /// `benches/` directory (a server built for the integration tests, declared as a `[[bin]]`
    /// with `path = "tests/fixtures/server.rs"`), where cargo keeps test code.
    pub fn of_program(package_dir: &std::path::Path, src: &std::path::Path) -> Self {
        let in_test_dir = src.strip_prefix(package_dir).is_ok_and(|relative| {
            relative
                .components()
                .next()
                .is_some_and(|first| first.as_os_str() == "tests" || first.as_os_str() == "benches")
        });
        if in_test_dir {
            TargetRole::Test
        } else {
            TargetRole::Other
        }
    }
}

/// One target of a package: its name, role, root file and required features.
#[derive(Debug, Clone)]
pub struct TargetInfo {
    pub name: String,
    pub role: TargetRole,
    pub src_path: PathBuf,
    pub required_features: Vec<String>,
}

/// A package's targets, from `cargo metadata` or from its manifest.
#[derive(Debug, Clone)]
pub struct PackageTargets {
    pub name: String,
    pub manifest: PathBuf,
    pub features: std::collections::BTreeMap<String, Vec<String>>,
    pub targets: Vec<TargetInfo>,
    /// The manifests of the packages it depends on by `path` (normal dependencies: what its
    /// product code calls), as its manifest names them.
    pub path_dependencies: Vec<PathBuf>,
    /// The crates its targets may name (see [`super::extern_crates::known_crates`]); `None`
    /// when that is not known (edition 2015, whose paths may start with a module's name, or an
    /// edition the manifest inherits).
    pub extern_crates: Option<Vec<String>>,
}
