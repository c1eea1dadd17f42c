//! What is linted: units of files analysed together, and their files with their module paths.
//! Discovery builds them; the engine lints them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files analysed together: calls are followed between them (one crate, or one path-mode run).
#[derive(Debug, Clone, Default)]
pub struct LintUnit {
    pub name: String,
    pub files: Vec<UnitFile>,
    /// Follow `mod x;` declarations from the files (cargo mode: the files are target roots).
    pub follow_modules: bool,
    /// The first file is a target's root (`src/main.rs`, `examples/x.rs`, ..): what it serves,
    /// the target's other files serve too.
    pub rooted: bool,
    /// The package's manifest, where its MCP SDK is read from.
    pub manifest: Option<PathBuf>,
    /// A test or bench target (cargo mode).
    pub test_target: bool,
    /// The package's library target: the workspace's other packages call into it by its crate
    /// name (`my_server::run()`).
    pub is_library: bool,
    /// The manifests of the packages its package depends on by `path` (see [`lexical`]): their
    /// libraries are linted beside it, and what their functions do is known where it calls them.
    pub path_dependencies: Vec<PathBuf>,
    /// The name the package's library is used by (`my_server` for `my-server`): a binary's
    /// `my_server::run()` calls into the library, like `crate::run()` there.
    pub crate_name: Option<String>,
    /// The directories (canonical) that the unit's files must lie in once symbolic links are
    /// resolved: the workspace root in cargo mode, the named paths in path mode (either widened to
    /// the git work tree around it, when there is one). A file outside
    /// them (a `#[path]` module naming `/proc/self/environ`, a link out of the tree) is not read.
    /// Empty: anywhere.
    pub roots: Vec<PathBuf>,
    /// More files of the unit, after `files`: its package's library, one list that each of
    /// the package's targets shares (path mode lists a library's files in every target).
    pub library: Arc<[UnitFile]>,
}

impl LintUnit {
    /// Every file of the unit: `files`, then `library`.
    pub fn all_files(&self) -> impl Iterator<Item = &UnitFile> {
        self.files.iter().chain(self.library.iter())
    }
}

/// A file of a unit, with its module path inside the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
///
/// A library's files are listed in each target of its package: the path and the module path are
/// shared, so a copy costs two reference counts, not two allocations.
pub struct UnitFile {
    pub path: Arc<Path>,
    pub module: Arc<[String]>,
    /// Whether the file's child modules live beside it (crate roots, `mod.rs`, `#[path]` files).
    pub owns_directory: bool,
}

/// An inline module enclosing a declaration: its name and its `#[path]` attribute, if any.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct InlineModule {
    pub name: String,
    pub path_attr: Option<String>,
}

/// A `mod name;` declaration found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ModDecl {
    pub name: String,
    pub path_attr: Option<String>,
    /// The inline modules around the declaration, outermost first.
    pub inline: Vec<InlineModule>,
    /// Declared under a `#[cfg(..)]` that holds only in test builds (`#[cfg(test)] mod x;`):
    /// what it loads is test code, compiled only into test targets.
    #[serde(default)]
    pub test: bool,
    /// The paths `#[cfg_attr(.., path = "..")]` may give it instead: each file is one the
    /// module may be loaded from.
    #[serde(default)]
    pub cfg_paths: Vec<String>,
    /// Not a module: an item-level `include!("file.rs")`, whose file's items are read in place
    /// (the same module, paths relative to the including file's directory). `path_attr` holds
    /// the file's path.
    #[serde(default)]
    pub include: bool,
    /// The features its `#[cfg(feature = "..")]` requires (`all(..)` parts included): what it
    /// loads is compiled only when they are on.
    #[serde(default)]
    pub features: Vec<String>,
    /// Declared with a visibility (`pub mod x;`, `pub(crate) mod x;`): what it holds may be
    /// named from outside its parent (from outside the crate, when every module around it is
    /// public too).
    #[serde(default)]
    pub public: bool,
}

/// A path made absolute and rid of `.` and `..` by its components alone, touching no file (a
/// path dependency may name a directory outside the linted tree): how the manifests of path
/// dependencies and of the units are compared.
pub fn lexical(path: &Path) -> PathBuf {
    normalise(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `a/./b/../c` without touching the file system.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
