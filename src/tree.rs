//! Where the linted tree lies, and how the tool touches paths in it.
//!
//! In CI the tree is written by whoever opened the pull request: every name in it may be a
//! symbolic link, a FIFO or a device, and any directory in it may hold programs. This module
//! knows which directories are the tree's ([`tops`]), finds the real git work tree around a path
//! without running git ([`work_tree`]), and checks a path before the tool writes or reads it:
//! no symbolic link on the way inside the tree, and only regular files ([`check_write`],
//! [`read_regular`]). See `docs/security.md`.

use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The paths a run named (linted paths, `--manifest-path`, `--config`), added to the tree's
/// directories. The current directory always counts.
fn named() -> &'static Mutex<Vec<PathBuf>> {
    static NAMED: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    NAMED.get_or_init(|| Mutex::new(Vec::new()))
}

/// Count `path` (relative ones against the current directory) as part of the linted tree.
pub fn add(path: &Path) {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(mut paths) = named().lock() {
        if !paths.contains(&absolute) {
            paths.push(absolute);
        }
    }
}

/// The user's home directory, as its real path: a repository or a manifest at it or above it is
/// never taken for the tree's top (a home directory kept in git would otherwise swallow every
/// project and `~/.cargo/bin`).
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .map(|h| std::fs::canonicalize(&h).unwrap_or(h))
}

/// The real path of `path`, or of its longest existing ancestor with the rest appended.
pub fn real(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(real) = std::fs::canonicalize(&absolute) {
        return real;
    }
    let mut rest = Vec::new();
    let mut current = absolute.as_path();
    loop {
        match (current.parent(), current.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                if let Ok(real) = std::fs::canonicalize(parent) {
                    let mut joined = real;
                    for part in rest.iter().rev() {
                        joined.push(part);
                    }
                    return joined;
                }
                current = parent;
            }
            _ => return absolute,
        }
    }
}

/// The ancestors of `start` (itself first) that may be the tree's top: below the home directory
/// when `start` is in it, and never the file-system root.
fn candidate_tops(start: &Path) -> impl Iterator<Item = &Path> {
    let home = home();
    let below_home = home
        .as_ref()
        .is_some_and(|h| start.starts_with(h) && start != h);
    start.ancestors().take_while(move |dir| {
        dir.parent().is_some() && !(below_home && home.as_ref().is_some_and(|h| h.starts_with(dir)))
    })
}

/// The real git work tree around `path`: the outermost directory at or above it that holds a
/// `.git` (a directory or a file), below the home directory. A repository nested in the tree
/// (`vendor/lib/.git`, delivered by an archive) is never it: its configuration is the tree's.
/// Nothing is run to find it.
pub fn work_tree(path: &Path) -> Option<PathBuf> {
    let start = real(path);
    candidate_tops(&start)
        .filter(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .last()
        .map(Path::to_path_buf)
}

/// Whether `path` lies in a repository nested inside the work tree `top`: a directory strictly
/// between them holds a `.git`.
pub fn in_nested_repository(path: &Path, top: &Path) -> Option<PathBuf> {
    let real = real(path);
    let inside = real.strip_prefix(top).ok()?;
    let mut dir = top.to_path_buf();
    let components: Vec<_> = inside.components().collect();
    for component in components.iter().take(components.len().saturating_sub(1)) {
        dir.push(component);
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return Some(dir);
        }
    }
    None
}

/// The directories whose contents the tree's author chose, as real paths: the current directory
/// and each named path (a file's directory), each widened to the outermost directory around it
/// that holds a `.git` or a `Cargo.toml` (the work tree, the cargo workspace), below the home
/// directory.
pub fn tops() -> Vec<PathBuf> {
    let mut starts = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    if let Ok(paths) = named().lock() {
        starts.extend(paths.iter().cloned());
    }
    let mut tops: Vec<PathBuf> = Vec::new();
    for start in starts {
        let start = real(&start);
        let start = if std::fs::metadata(&start).is_ok_and(|m| !m.is_dir()) {
            start.parent().map(Path::to_path_buf).unwrap_or(start)
        } else {
            start
        };
        let top = candidate_tops(&start)
            .filter(|dir| {
                std::fs::symlink_metadata(dir.join(".git")).is_ok()
                    || std::fs::symlink_metadata(dir.join("Cargo.toml")).is_ok()
            })
            .last()
            .map(Path::to_path_buf)
            .unwrap_or(start);
        if !tops.iter().any(|t| top.starts_with(t)) {
            tops.retain(|t| !t.starts_with(&top));
            tops.push(top);
        }
    }
    tops
}

/// Whether the real path `real` lies inside the tree.
pub fn inside(real: &Path, tops: &[PathBuf]) -> bool {
    tops.iter().any(|top| real.starts_with(top))
}

/// Why a path is refused: shown to the user on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn shown(path: &Path) -> String {
    crate::escape::inline(&path.display().to_string()).into_owned()
}

/// The first symbolic link on the way to `path` (its last component included) that lies in the
/// tree: a link whose own directory is inside one of `tops`. Links above the tree (`/tmp` to
/// `/private/tmp`) are the machine's and are followed.
fn link_on_the_way(path: &Path, tops: &[PathBuf]) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut prefix = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                // `..` after a real directory: resolve what is above it lexically; a link was
                // caught when it was pushed.
                prefix.pop();
                continue;
            }
            Component::CurDir => continue,
            other => prefix.push(other),
        }
        let Ok(metadata) = std::fs::symlink_metadata(&prefix) else {
            // Nothing more exists below a missing name.
            return None;
        };
        if metadata.file_type().is_symlink() {
            let parent = prefix.parent().map(real).unwrap_or_default();
            if inside(&parent, tops) {
                return Some(prefix);
            }
        }
    }
    None
}

/// The first symbolic link in the tree on the way to `path`, if any (see [`link_on_the_way`]).
pub fn linked(path: &Path) -> Option<PathBuf> {
    link_on_the_way(path, &tops())
}

/// Check a path the tool is about to write (a report, a baseline, the cache): no symbolic link
/// on the way inside the tree, and the file itself absent or a regular file.
pub fn check_write(path: &Path) -> Result<(), Refused> {
    let tops = tops();
    if let Some(link) = link_on_the_way(path, &tops) {
        return Err(Refused(format!(
            "`{}` is a symbolic link in the linted tree; refusing to write `{}` through it",
            shown(&link),
            shown(path)
        )));
    }
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() || !metadata.is_file() => {
            Err(Refused(format!(
                "`{}` is a symbolic link or not a regular file; refusing to write through it",
                shown(path)
            )))
        }
        _ => Ok(()),
    }
}

/// Write `bytes` to `path` after [`check_write`]: into a new file beside it, synced, then renamed
/// over the path, which replaces a regular file and never writes through a link.
pub fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    check_write(path).map_err(|refused| std::io::Error::other(refused.0))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".to_string());
    let temporary = path.with_file_name(format!(".{name}.mcp-lint-{}.tmp", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// Read a file the user named (a baseline): no symbolic link on the way inside the tree, only a
/// regular file, opened without blocking on a FIFO, and at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, Refused> {
    let tops = tops();
    if let Some(link) = link_on_the_way(path, &tops) {
        return Err(Refused(format!(
            "`{}` is a symbolic link in the linted tree; refusing to read `{}` through it",
            shown(&link),
            shown(path)
        )));
    }
    let metadata = std::fs::symlink_metadata(path)
        .map_err(|e| Refused(format!("cannot read `{}`: {e}", shown(path))))?;
    if metadata.file_type().is_symlink() || !metadata.is_file() {
        return Err(Refused(format!(
            "`{}` is a symbolic link or not a regular file; refusing to read it",
            shown(path)
        )));
    }
    let (bytes, more) = crate::bounded::read_capped(path, limit)
        .map_err(|e| Refused(format!("cannot read `{}`: {e}", shown(path))))?;
    if more {
        return Err(Refused(format!(
            "`{}` is larger than {} MiB; refusing to read it",
            shown(path),
            limit >> 20
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_link_inside_the_tree_is_found_and_one_above_it_is_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        let root = real(dir.path());
        std::fs::create_dir(root.join("real")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), root.join("link")).expect("link");
        let tops = vec![root.clone()];
        assert_eq!(
            link_on_the_way(&root.join("link/x.sarif"), &tops),
            Some(root.join("link"))
        );
        assert_eq!(
            link_on_the_way(&root.join("real/../link/x"), &tops),
            Some(root.join("link"))
        );
        assert_eq!(link_on_the_way(&root.join("real/x.sarif"), &tops), None);
        assert_eq!(link_on_the_way(&root.join("missing/x"), &tops), None);
        // The same link, seen from a tree that does not hold it, is the machine's.
        let elsewhere = vec![root.join("real")];
        assert_eq!(link_on_the_way(&root.join("link/x"), &elsewhere), None);
    }

    #[test]
    fn nested_repositories_are_found_below_the_top() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = real(dir.path());
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::create_dir_all(root.join("vendor/lib/.git")).expect("mkdir");
        std::fs::create_dir_all(root.join("vendor/lib/src")).expect("mkdir");
        assert_eq!(
            in_nested_repository(&root.join("vendor/lib/src/x.rs"), &root),
            Some(root.join("vendor/lib"))
        );
        assert_eq!(in_nested_repository(&root.join("src/x.rs"), &root), None);
        assert_eq!(work_tree(&root.join("vendor/lib/src")), Some(root.clone()));
    }
}
