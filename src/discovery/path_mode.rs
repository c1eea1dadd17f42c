//! Path mode: the named files, and every `.rs` file under the named directories, honouring
//! `.gitignore` (and `.ignore`) files and skipping `target/` directories.

use std::path::{Component, Path, PathBuf};

use super::DiscoveryError;
use crate::unit::{LintUnit, UnitFile};

/// Collect the files under `paths` into one unit.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<LintUnit>, DiscoveryError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|error| {
            DiscoveryError(format!("cannot read `{}`: {error}", path.display()))
        })?;
        if metadata.is_file() {
            files.push(path.clone());
            continue;
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
        let mut found: Vec<PathBuf> = walker
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
            .map(|entry| entry.into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        found.sort();
        files.extend(found);
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    let files = files
        .into_iter()
        .map(|path| {
            let module = module_of(&path);
            UnitFile {
                path,
                module,
                owns_directory: false,
            }
        })
        .collect();
    Ok(vec![LintUnit {
        name: "paths".into(),
        files,
        follow_modules: false,
        manifest: paths.first().and_then(|p| crate::sdk::manifest_for(p)),
        test_target: false,
    }])
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
