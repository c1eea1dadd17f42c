//! Source files as read from disk, and the mapping from byte offsets to lines and columns.

use std::path::PathBuf;

/// Index of a file in a [`SourceMap`].
pub type FileId = usize;

/// A half-open byte range into one file's text.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct ByteSpan {
    pub start: usize,
    pub end: usize,
}

impl ByteSpan {
    pub fn new(start: usize, end: usize) -> Self {
        ByteSpan {
            start,
            end: end.max(start),
        }
    }
}

/// A 1-based line and a 1-based column counted in Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineColumn {
    pub line: usize,
    pub column: usize,
}

/// One file of the linted tree.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path the file was found at (absolute or as the user named it).
    pub path: PathBuf,
    /// The path shown to the user: relative to the current directory where possible, `/` separators.
    pub display_path: String,
    /// The text as read (empty when the file could not be read).
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: PathBuf, display_path: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        SourceFile {
            path,
            display_path,
            text,
            line_starts,
        }
    }

    /// Offsets at which each line starts (the first is always 0).
    pub fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    /// Clamp an offset into the text and onto a character boundary.
    pub fn clamp_offset(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.text.len());
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The 0-based line that holds `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// 1-based line and column (in Unicode scalar values) of a byte offset.
    pub fn line_column(&self, offset: usize) -> LineColumn {
        let offset = self.clamp_offset(offset);
        let line = self.line_index(offset);
        let line_start = self.line_starts[line];
        let column = self.text[line_start..offset].chars().count() + 1;
        LineColumn {
            line: line + 1,
            column,
        }
    }

    /// The text of a span, clamped to the file.
    pub fn snippet(&self, span: ByteSpan) -> &str {
        let start = self.clamp_offset(span.start);
        let end = self.clamp_offset(span.end).max(start);
        &self.text[start..end]
    }
}

/// Every file of one run, addressed by [`FileId`].
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        self.files.len() - 1
    }

    /// Put a new reading of a file in place (a skipped file parsed later).
    pub fn replace(&mut self, id: FileId, file: SourceFile) {
        if let Some(slot) = self.files.get_mut(id) {
            *slot = file;
        }
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate()
    }
}

/// A path with `/` separators: on Windows its `\` separators become `/`; elsewhere a `\` is a
/// character of a file's name (`back\slash.rs`) and stays. A name that is not UTF-8 shows each
/// byte that is not as `\xNN`, so that two such names never show alike (a lossy conversion
/// would show both as `\u{fffd}`).
pub fn slash_separated(path: &std::path::Path) -> String {
    let text = exact_text(path.as_os_str());
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text
    }
}

/// An OS string as text, its bytes that are not UTF-8 (Unix) written as `\xNN`.
#[cfg(unix)]
fn exact_text(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut text = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

#[cfg(not(unix))]
fn exact_text(name: &std::ffi::OsStr) -> String {
    name.to_string_lossy().into_owned()
}

/// The path shown for `path`: relative to `cwd` when it lies below it, always with `/` separators.
pub fn display_path(path: &std::path::Path, cwd: &std::path::Path) -> String {
    let shown = if path.is_absolute() {
        path.strip_prefix(cwd).unwrap_or(path)
    } else {
        path.strip_prefix("./").unwrap_or(path)
    };
    let text = slash_separated(shown);
    if text.is_empty() {
        ".".to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::slash_separated;
    use std::path::Path;

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_show_their_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::OsStr::from_bytes(b"dir/bad\xff.rs");
        let b = std::ffi::OsStr::from_bytes(b"dir/bad\xfe.rs");
        assert_eq!(slash_separated(Path::new(a)), "dir/bad\\xff.rs");
        assert_ne!(slash_separated(Path::new(a)), slash_separated(Path::new(b)));
        assert_eq!(slash_separated(Path::new("dir/é.rs")), "dir/é.rs");
    }

    #[test]
    fn backslashes_are_separators_only_on_windows() {
        let shown = slash_separated(Path::new("dir/back\\slash.rs"));
        if cfg!(windows) {
            assert_eq!(shown, "dir/back/slash.rs");
        } else {
            assert_eq!(shown, "dir/back\\slash.rs");
        }
    }
}
