//! `--changed-since REF`: the files changed since a git revision (committed since, staged,
//! unstaged, or untracked), so that a pull-request run reports only what the change touches.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::result::LintResult;

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = crate::programs::git(dir)
        .ok_or("no `git` found outside the linted tree")?
        .args(args)
        .output()
        .map_err(|e| format!("could not run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// The files changed since `revision`, as canonical paths.
pub fn changed_files(cwd: &Path, revision: &str) -> Result<HashSet<PathBuf>, String> {
    let top = crate::report::repository_root(cwd)
        .ok_or_else(|| format!("`{}` is not inside a git work tree", cwd.display()))?;
    git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{revision}^{{commit}}"),
        ],
    )
    .map_err(|_| format!("`{revision}` is not a git revision"))?;
    let mut files = HashSet::new();
    for listing in [
        git(
            &top,
            &[
                "diff",
                "--name-only",
                "-z",
                "--no-ext-diff",
                "--no-textconv",
                "--ignore-submodules=all",
                revision,
                "--",
            ],
        )?,
        git(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?,
    ] {
        for name in listing.split(|b| *b == 0).filter(|n| !n.is_empty()) {
            let path = top.join(String::from_utf8_lossy(name).as_ref());
            files.insert(std::fs::canonicalize(&path).unwrap_or(path));
        }
    }
    Ok(files)
}

/// Whether a changed file changes what every finding may be: a manifest or lock file (the SDK
/// version a rule judges by, the targets, the members), the tool's configuration, a toolchain
/// or cargo configuration file, or an ignore file (what path mode selects).
fn changes_everything(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let in_cargo_dir = path
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|d| d == ".cargo");
    matches!(
        name,
        "Cargo.toml"
            | "Cargo.lock"
            | "mcp-lint.toml"
            | ".mcp-lint.toml"
            | "rust-toolchain"
            | "rust-toolchain.toml"
            | ".gitignore"
            | ".ignore"
    ) || (in_cargo_dir && matches!(name, "config" | "config.toml"))
}

/// The package directory a file belongs to: the nearest directory at or above it with a
/// `Cargo.toml` (its crate's module tree, `#[path]` modules included, lies there as a rule).
fn package_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// `--changed-since`: keep only the result's findings that a change since `revision` may have
/// made or moved: every finding when a manifest, lock file, configuration, toolchain or ignore
/// file changed; else those whose package (its crates' module trees: a `#[path]` switched to a
/// committed file, a module declared anew) holds a changed file, and those whose file, or a file
/// their labels point into (a call chain through a changed helper), changed. Internal errors
/// (MCP999) are always kept: the tool's failure is never filtered away.
pub fn retain_changed(result: &mut LintResult, cwd: &Path, revision: &str) -> Result<(), String> {
    let changed = changed_files(cwd, revision)?;
    if changed.iter().any(|path| changes_everything(path)) {
        return Ok(());
    }
    // A changed directory (a nested repository or submodule, seen from the top) stands for
    // everything below it.
    let changed_dirs: Vec<&PathBuf> = changed.iter().filter(|p| p.is_dir()).collect();
    let changed_packages: HashSet<PathBuf> = changed.iter().filter_map(|p| package_of(p)).collect();
    let LintResult {
        sources,
        diagnostics,
    } = result;
    let real = |file: usize| {
        sources
            .get(file)
            .map(|s| std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone()))
    };
    let is_changed = |file: usize| {
        real(file).is_some_and(|path| {
            changed.contains(&path) || changed_dirs.iter().any(|d| path.starts_with(d))
        })
    };
    let in_changed_package = |file: usize| {
        real(file)
            .and_then(|path| package_of(&path))
            .is_some_and(|package| changed_packages.contains(&package))
    };
    diagnostics.retain(|d| {
        crate::rules::internal_error::is_internal_error(d)
            || is_changed(d.file)
            || in_changed_package(d.file)
            || d.labels.iter().any(|l| is_changed(l.file))
    });
    Ok(())
}
