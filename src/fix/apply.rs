//! `--fix` on disk: compute the fixes, check the version-control guard, and write the fixed files,
//! only inside what was asked to be linted.

use std::path::{Path, PathBuf};

use super::vcs::{self, VcsOptions};
use super::{fix_from, write, FixOptions};
use crate::config::Settings;
use crate::unit::LintUnit;

/// What `--fix` is to do.
#[derive(Debug, Clone, Default)]
pub struct ApplyOptions {
    pub fix: FixOptions,
    pub vcs: VcsOptions,
    /// Only files inside these are written (see [`write_roots`]).
    pub roots: Vec<PathBuf>,
}

/// What `--fix` did.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// How many fixes the files written hold.
    pub fixes: usize,
    /// What went wrong, a line each: fixes that could not be applied, files that were not
    /// written.
    pub problems: Vec<String>,
}

/// Where `--fix` may write: inside what was asked for, the named `paths` (relative to `cwd`), or
/// without them the packages of the units.
pub fn write_roots(units: &[LintUnit], paths: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    if paths.is_empty() {
        units
            .iter()
            .filter_map(|u| u.manifest.as_deref().and_then(Path::parent))
            .map(Path::to_path_buf)
            .collect()
    } else {
        paths.iter().map(|p| cwd.join(p)).collect()
    }
}

/// Compute the fixes of the units, check the version-control guard (an error when it refuses:
/// nothing is written then), and write the fixed files.
pub fn apply_and_write(
    units: &[LintUnit],
    cwd: &Path,
    options: &ApplyOptions,
    settings: &Settings,
) -> Result<Applied, String> {
    let run = fix_from(units, cwd, options.fix, Default::default(), settings);
    let paths: Vec<PathBuf> = run.files.iter().map(|f| f.path.clone()).collect();
    vcs::check(&paths, options.vcs)?;
    let mut applied = Applied {
        fixes: 0,
        problems: run.problems.clone(),
    };
    for file in &run.files {
        match write::write_fixed(&file.path, &file.original, &file.fixed, &options.roots) {
            Ok(()) => applied.fixes += file.applied,
            Err(error) => applied
                .problems
                .push(format!("`{}` was not fixed: {error}", file.display_path)),
        }
    }
    Ok(applied)
}
