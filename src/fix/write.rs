//! Writing a fixed file: atomically (a temporary file in the same directory, renamed over the
//! original), keeping its permissions, and only if it still holds what was read.

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
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::ChangedOnDisk => {
                f.write_str("it changed on disk while it was being fixed; it was left as it is")
            }
            WriteError::Io(error) => write!(f, "it could not be written: {error}"),
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
    let permissions = std::fs::metadata(&target)?.permissions();
    let directory = target.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".mcp-lint-fix-")
        .tempfile_in(directory)?;
    temporary.write_all(fixed.as_bytes())?;
    temporary.as_file().sync_all()?;
    std::fs::set_permissions(temporary.path(), permissions)?;
    temporary
        .persist(&target)
        .map_err(|error| WriteError::Io(error.error))?;
    Ok(())
}
