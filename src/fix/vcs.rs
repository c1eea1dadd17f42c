//! The version-control guard of `--fix`, as `cargo fix` has it: refuse to change files with
//! uncommitted changes, or files outside any git work tree, unless told to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the user allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct VcsOptions {
    pub allow_dirty: bool,
    pub allow_staged: bool,
    pub allow_no_vcs: bool,
}

/// `git status` of files of one work tree: path (relative to the work tree) to its `XY` code.
fn status(top: &Path, files: &[PathBuf]) -> Result<BTreeMap<String, (char, char)>, String> {
    let output = crate::programs::git(top)
        .ok_or("no `git` found outside the linted tree")?
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=all",
            "--no-renames",
            "--",
        ])
        .args(files)
        .output()
        .map_err(|e| format!("could not run `git status`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git status` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let mut entries = BTreeMap::new();
    let mut records = output.stdout.split(|b| *b == 0).peekable();
    while let Some(record) = records.next() {
        if record.len() < 4 {
            continue;
        }
        let x = record[0] as char;
        let y = record[1] as char;
        let path = String::from_utf8_lossy(&record[3..]).into_owned();
        if x == 'R' || x == 'C' {
            // A rename is followed by its source path.
            records.next();
        }
        entries.insert(path, (x, y));
    }
    Ok(entries)
}

/// Check the files to be fixed. `Err` holds the message to show (exit status 2).
pub fn check(files: &[PathBuf], options: VcsOptions) -> Result<(), String> {
    if files.is_empty() || (options.allow_dirty && options.allow_no_vcs) {
        return Ok(());
    }
    let mut by_tree: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        let directory = real.parent().unwrap_or(Path::new(".")).to_path_buf();
        // Git runs only at the top of the real work tree: a file in a repository nested in it
        // has no state git there can tell, and is treated as outside version control.
        let top = crate::report::repository_root(&directory)
            .filter(|top| crate::tree::in_nested_repository(&real, top).is_none());
        match top {
            Some(top) => by_tree.entry(top).or_default().push(real),
            None if options.allow_no_vcs => {}
            None => {
                return Err(format!(
                "no VCS found for `{}`, and `--fix` can potentially perform destructive changes; \
                     pass `--allow-no-vcs` to fix it anyway",
                file.display()
            ))
            }
        }
    }
    if options.allow_dirty {
        return Ok(());
    }
    let mut refused = Vec::new();
    for (top, files) in by_tree {
        let relative: Vec<PathBuf> = files
            .iter()
            .map(|f| f.strip_prefix(&top).unwrap_or(f).to_path_buf())
            .collect();
        for (path, (x, y)) in status(&top, &relative)? {
            if y != ' ' {
                refused.push(format!("  * {} (dirty)", crate::escape::inline(&path)));
            } else if x != ' ' && !options.allow_staged {
                refused.push(format!("  * {} (staged)", crate::escape::inline(&path)));
            }
        }
    }
    if refused.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the files to fix have uncommitted changes, and `--fix` can potentially perform destructive changes; \
         commit them first, or pass `--allow-dirty` (or `--allow-staged` for staged changes) to fix anyway:\n{}",
        refused.join("\n")
    ))
}
