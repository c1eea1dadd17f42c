//! Where rustc finds the file of an out-of-line module (`mod x;`), so that cargo mode lints
//! exactly the files a target reaches.

use std::path::{Path, PathBuf};

pub use crate::unit::{InlineModule, ModDecl};

/// A file of the module tree, with what rustc needs to place its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFile {
    pub path: PathBuf,
    /// A crate root, a `mod.rs`, or a file loaded through `#[path]`: children live beside it.
    /// Otherwise (`foo.rs`) they live in `foo/`.
    pub owns_directory: bool,
}

impl ModuleFile {
    /// The directory where this file's undecorated child modules live.
    fn child_directory(&self) -> PathBuf {
        let parent = self.path.parent().unwrap_or(Path::new("")).to_path_buf();
        if self.owns_directory {
            parent
        } else {
            let stem = self
                .path
                .file_stem()
                .map(|s| s.to_os_string())
                .unwrap_or_default();
            parent.join(stem)
        }
    }
}

/// The file a declaration loads, if it exists, with whether that file owns its directory.
pub fn resolve(parent: &ModuleFile, decl: &ModDecl) -> Option<ModuleFile> {
    resolve_noting(parent, decl, &mut Vec::new())
}

/// [`resolve`], adding to `missing` each path it looked at that was not a file (a file made
/// there later could change what the declaration loads).
pub fn resolve_noting(
    parent: &ModuleFile,
    decl: &ModDecl,
    missing: &mut Vec<PathBuf>,
) -> Option<ModuleFile> {
    let mut is_file = |path: &Path| {
        let found = path.is_file();
        if !found {
            missing.push(path.to_path_buf());
        }
        found
    };
    if decl.include {
        // Relative to the including file's own directory, whatever module it is.
        let path = parent
            .path
            .parent()
            .unwrap_or(Path::new(""))
            .join(decl.path_attr.as_deref().unwrap_or_default());
        return is_file(&path).then_some(ModuleFile {
            path,
            owns_directory: parent.owns_directory,
        });
    }
    let mut directory = parent.child_directory();
    for inline in &decl.inline {
        directory = directory.join(inline.path_attr.as_deref().unwrap_or(&inline.name));
    }
    if let Some(path_attr) = &decl.path_attr {
        let base = if decl.inline.is_empty() {
            parent.path.parent().unwrap_or(Path::new("")).to_path_buf()
        } else {
            directory
        };
        let path = base.join(path_attr);
        return is_file(&path).then_some(ModuleFile {
            path,
            owns_directory: true,
        });
    }
    let flat = directory.join(format!("{}.rs", decl.name));
    if is_file(&flat) {
        return Some(ModuleFile {
            path: flat,
            owns_directory: false,
        });
    }
    let nested = directory.join(&decl.name).join("mod.rs");
    is_file(&nested).then_some(ModuleFile {
        path: nested,
        owns_directory: true,
    })
}
