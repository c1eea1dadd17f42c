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
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::ChangedOnDisk => {
                f.write_str("it changed on disk while it was being fixed; it was left as it is")
            }
            WriteError::Io(error) => write!(f, "it could not be written: {error}"),
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

/// Replace the file's content with `fixed`, if it still holds `original`.
pub fn write_fixed(path: &Path, original: &str, fixed: &str) -> Result<(), WriteError> {
    let target = target_of(path);
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
