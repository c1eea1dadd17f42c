//! Writing a fixed file: atomically (a temporary file in the same directory, renamed over the
//! original), keeping its permissions, and only if it still holds what was read, is a regular
//! file inside the linted roots, is writable by its owner, and is owned by the user running the
//! fix (a rename would give another user's file to this one). Temporary files a killed run left
//! behind are removed before a directory is written to.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The file changed on disk since it was read: the fix is not applied to it.
    ChangedOnDisk,
    /// The file (through a symbolic link) lies outside the linted roots: it is not written.
    OutsideRoots(PathBuf),
    /// The file is read-only: it is not replaced.
    ReadOnly,
    /// The file belongs to another user: replacing it would change its owner.
    OtherOwner,
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::ChangedOnDisk => {
                f.write_str("it changed on disk while it was being fixed; it was left as it is")
            }
            WriteError::Io(error) => write!(f, "it could not be written: {error}"),
            WriteError::ReadOnly => f.write_str("it is read-only, so it was not written"),
            WriteError::OtherOwner => f.write_str(
                "it belongs to another user, and replacing it would change its owner, so it was not written",
            ),
            WriteError::OutsideRoots(target) => write!(
                f,
                "it is `{}`, outside the linted directories, so it was not written",
                target.display()
            ),
        }
    }
}

impl From<std::io::Error> for WriteError {
    fn from(error: std::io::Error) -> Self {
        WriteError::Io(error)
    }
}

/// The real file behind a path (following symbolic links), so that a link is not replaced by a
/// regular file.
fn target_of(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Replace the file's content with `fixed`, if it still holds `original`, and only if the real
/// file (symbolic links resolved) lies inside one of `roots` (also resolved; none: anywhere).
pub fn write_fixed(
    path: &Path,
    original: &str,
    fixed: &str,
    roots: &[PathBuf],
) -> Result<(), WriteError> {
    let target = target_of(path);
    if !roots.is_empty() && !roots.iter().any(|root| target.starts_with(target_of(root))) {
        return Err(WriteError::OutsideRoots(target));
    }
    if !std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_file()) {
        return Err(WriteError::Io(std::io::Error::other("not a regular file")));
    }
    let current = std::fs::read(&target)?;
    if current != original.as_bytes() {
        return Err(WriteError::ChangedOnDisk);
    }
    let metadata = std::fs::metadata(&target)?;
    if read_only(&metadata) {
        return Err(WriteError::ReadOnly);
    }
    let permissions = metadata.permissions();
    let directory = target.parent().unwrap_or(Path::new("."));
    remove_stale_temporaries(directory);
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!("{TEMPORARY_PREFIX}{}-", std::process::id()))
        .tempfile_in(directory)?;
    if !same_owner(&metadata, &temporary.as_file().metadata()?) {
        return Err(WriteError::OtherOwner);
    }
    temporary.write_all(fixed.as_bytes())?;
    temporary.as_file().sync_all()?;
    std::fs::set_permissions(temporary.path(), permissions)?;
    temporary
        .persist(&target)
        .map_err(|error| WriteError::Io(error.error))?;
    Ok(())
}

/// The name every temporary file of a fix starts with; the process id of the run that writes it
/// follows, then `-` and six random characters.
const TEMPORARY_PREFIX: &str = ".mcp-lint-fix-";

/// The age past which a temporary file is a dead run's even where the process table cannot be
/// read: a run writes its temporary file in well under this.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(600);

/// Whether the process `pid` is gone: known only where `/proc` lists processes.
fn process_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Remove the temporary files that killed runs left in `directory`: regular files named as this
/// tool names them whose run is gone (or that are older than [`STALE_AFTER`]).
fn remove_stale_temporaries(directory: &Path) {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMPORARY_PREFIX)) else {
            continue;
        };
        let Some((pid, random)) = rest.split_once('-') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if random.len() != 6 || !random.bytes().all(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        let old = metadata
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if metadata.is_file() && pid != std::process::id() && (process_gone(pid) || old) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
fn read_only(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o200 == 0
}

#[cfg(not(unix))]
fn read_only(metadata: &std::fs::Metadata) -> bool {
    metadata.permissions().readonly()
}

/// Whether the file and the new temporary file (owned by whoever runs the fix) have one owner.
#[cfg(unix)]
fn same_owner(file: &std::fs::Metadata, temporary: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.uid() == temporary.uid()
}

#[cfg(not(unix))]
fn same_owner(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}
