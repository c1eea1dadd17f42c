//! `--changed-since REF`: the files changed since a git revision (committed since, staged,
//! unstaged, or untracked), so that a pull-request run reports only what the change touches.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::engine::LintResult;

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

/// `--changed-since`: keep only the result's findings that a change since `revision` touches:
/// its own file, or a file its labels point into (a call chain through a changed helper, the
/// send in a changed callee). Internal errors (MCP999) are always kept: the tool's failure is
/// never filtered away.
pub fn retain_changed(result: &mut LintResult, cwd: &Path, revision: &str) -> Result<(), String> {
    let changed = changed_files(cwd, revision)?;
    let LintResult {
        sources,
        diagnostics,
    } = result;
    let is_changed = |file: usize| {
        sources.get(file).is_some_and(|s| {
            let path = std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone());
            changed.contains(&path)
        })
    };
    diagnostics.retain(|d| {
        crate::rules::internal_error::is_internal_error(d)
            || is_changed(d.file)
            || d.labels.iter().any(|l| is_changed(l.file))
    });
    Ok(())
}
