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
///
/// Its text is kept while it is analysed and may be released then (see
/// [`SourceFile::release`]): a large tree's texts are not held for the whole run. A released
/// text is read again when it is asked for (to render a finding or a fix), and only the very
/// bytes that were analysed are accepted then.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path the file was found at (absolute or as the user named it).
    pub path: PathBuf,
    /// The path shown to the user: relative to the current directory where possible, `/` separators.
    pub display_path: String,
    /// The text as read (empty when the file could not be read), once it is in memory.
    text: std::sync::OnceLock<String>,
    /// What the released text was: its length and its hash.
    released: Option<(u64, [u8; 32])>,
    /// The released text could not be had again as it was.
    lost: std::sync::OnceLock<()>,
    /// Where each line starts, worked out from the text when first asked for.
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// How many characters come before each block of [`CHAR_BLOCK`] bytes, worked out when a
    /// column is first asked for: a column costs at most a block's count, not a line's (a
    /// thousand findings on one line of a megabyte cost a thousand small counts).
    char_marks: std::sync::OnceLock<Vec<usize>>,
}

/// The size of the blocks whose character counts [`SourceFile::line_column`] keeps.
const CHAR_BLOCK: usize = 1024;

/// How many characters `bytes` (a slice of UTF-8 text, cut anywhere) starts: its bytes that are
/// not continuation bytes.
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| (**b as i8) >= -0x40).count()
}

impl SourceFile {
    pub fn new(path: PathBuf, display_path: String, text: String) -> Self {
        SourceFile {
            path,
            display_path,
            text: std::sync::OnceLock::from(text),
            released: None,
            lost: std::sync::OnceLock::new(),
            line_starts: std::sync::OnceLock::new(),
            char_marks: std::sync::OnceLock::new(),
        }
    }

    /// A file whose text was analysed before and is not read now: it is read when first asked
    /// for, and only a text of this length and hash is accepted (see [`SourceFile::release`]).
    pub fn released(path: PathBuf, display_path: String, len: u64, hash: [u8; 32]) -> Self {
        SourceFile {
            path,
            display_path,
            text: std::sync::OnceLock::new(),
            released: Some((len, hash)),
            lost: std::sync::OnceLock::new(),
            line_starts: std::sync::OnceLock::new(),
            char_marks: std::sync::OnceLock::new(),
        }
    }

    /// The length and hash of the text, if it was let go.
    pub fn released_as(&self) -> Option<(u64, [u8; 32])> {
        self.released
    }

    /// The file's text: in memory, or read again from its path if it was released. A text that
    /// cannot be read again as it was analysed (the file changed, or went) is empty, and
    /// [`SourceFile::is_lost`] says so.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| {
            let again = self
                .released
                .and_then(|(len, hash)| read_again(&self.path, len, hash));
            again.unwrap_or_else(|| {
                let _ = self.lost.set(());
                String::new()
            })
        })
    }

    /// Whether the file's released text could not be read again as it was analysed. Reads it
    /// again if it must (so its findings can be rendered after this answers `false`).
    pub fn is_lost(&self) -> bool {
        self.text();
        self.lost.get().is_some()
    }

    /// Whether the text is in memory now.
    pub fn is_resident(&self) -> bool {
        self.text.get().is_some()
    }

    /// Let the text go (it is read again from the file's path when asked for): only for a text
    /// read from that path. Its length and hash are kept, so that only the same bytes are
    /// accepted then.
    pub fn release(&mut self) {
        let Some(text) = self.text.take() else {
            return;
        };
        if text.is_empty() {
            self.text = std::sync::OnceLock::from(text);
            return;
        }
        self.released = Some((text.len() as u64, *blake3::hash(text.as_bytes()).as_bytes()));
        self.line_starts = std::sync::OnceLock::new();
        self.char_marks = std::sync::OnceLock::new();
    }

    /// Offsets at which each line starts (the first is always 0).
    pub fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let text = self.text();
            let mut starts = vec![0];
            starts.extend(
                text.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i + 1),
            );
            starts
        })
    }

    /// Clamp an offset into the text and onto a character boundary.
    pub fn clamp_offset(&self, offset: usize) -> usize {
        let text = self.text();
        let mut offset = offset.min(text.len());
        while offset > 0 && !text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The 0-based line that holds `offset`.
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts().binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        }
    }

    /// 1-based line and column (in Unicode scalar values) of a byte offset.
    pub fn line_column(&self, offset: usize) -> LineColumn {
        let offset = self.clamp_offset(offset);
        let line = self.line_index(offset);
        let line_start = self.line_starts()[line];
        let column = self.chars_before(offset) - self.chars_before(line_start) + 1;
        LineColumn {
            line: line + 1,
            column,
        }
    }

    /// How many characters come before byte `offset` (on a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        let bytes = self.text().as_bytes();
        let marks = self.char_marks.get_or_init(|| {
            let mut marks = vec![0];
            for block in bytes.chunks(CHAR_BLOCK) {
                let last = marks.last().copied().unwrap_or(0);
                marks.push(last + char_starts(block));
            }
            marks
        });
        let block = offset / CHAR_BLOCK;
        let from = block * CHAR_BLOCK;
        let before = marks.get(block).copied().unwrap_or(0);
        before + char_starts(bytes.get(from..offset.min(bytes.len())).unwrap_or(&[]))
    }

    /// The text of a span, clamped to the file.
    pub fn snippet(&self, span: ByteSpan) -> &str {
        let start = self.clamp_offset(span.start);
        let end = self.clamp_offset(span.end).max(start);
        &self.text()[start..end]
    }
}

/// A released text, read again: only if the file at `path` is still a regular file of `len`
/// bytes whose hash is `hash`. Never blocks on a FIFO put in the file's place, and never reads
/// more than `len` bytes and one.
fn read_again(path: &std::path::Path, len: u64, hash: [u8; 32]) -> Option<String> {
    use std::io::Read;
    let file = crate::bounded::open_regular(path).ok()?;
    let metadata = file.metadata().ok()?;
    if metadata.len() != len {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
    file.take(len.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 != len || *blake3::hash(&bytes).as_bytes() != hash {
        return None;
    }
    String::from_utf8(bytes).ok()
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

    /// The files, in the order of their ids.
    pub fn into_files(self) -> Vec<SourceFile> {
        self.files
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
    use super::{slash_separated, SourceFile};
    use std::path::Path;

    fn released(text: &str) -> (tempfile::TempDir, SourceFile) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a.rs");
        std::fs::write(&path, text).expect("write");
        let mut source = SourceFile::new(path, "a.rs".into(), text.into());
        source.release();
        (dir, source)
    }

    /// Columns from the kept block counts are those a count of the line's characters gives,
    /// across block boundaries and multi-byte characters.
    #[test]
    fn columns_count_characters_across_blocks() {
        let line: String = (0..3000).map(|i| ['a', 'é', '語', '🦀'][i % 4]).collect();
        let text = format!("x\n{line}\n{line}é\n");
        let source = SourceFile::new("a.rs".into(), "a.rs".into(), text.clone());
        for (offset, _) in text.char_indices().step_by(7) {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let expected = text[line_start..offset].chars().count() + 1;
            assert_eq!(source.line_column(offset).column, expected, "{offset}");
        }
    }

    #[test]
    fn a_released_text_is_read_again_when_asked_for() {
        let (_dir, source) = released("fn a() {}\nfn b() {}\n");
        assert!(!source.is_resident());
        assert_eq!(source.line_column(13).line, 2);
        assert!(source.is_resident());
        assert_eq!(source.text(), "fn a() {}\nfn b() {}\n");
        assert!(!source.is_lost());
    }

    #[test]
    fn a_released_text_that_changed_is_lost_not_misread() {
        let (_dir, source) = released("fn a() {}\n");
        // The same length, other bytes: only the hash tells.
        std::fs::write(&source.path, "fn b() {}\n").expect("write");
        assert!(source.is_lost());
        assert_eq!(source.text(), "");
        let (_dir, source) = released("fn a() {}\n");
        std::fs::remove_file(&source.path).expect("remove");
        assert!(source.is_lost());
    }

    #[test]
    fn texts_that_are_empty_or_kept_are_never_lost() {
        let mut empty = SourceFile::new("gone.rs".into(), "gone.rs".into(), String::new());
        empty.release();
        assert!(empty.is_resident() && !empty.is_lost());
        let kept = SourceFile::new("gone.rs".into(), "gone.rs".into(), "fn a() {}".into());
        assert_eq!((kept.text(), kept.is_lost()), ("fn a() {}", false));
    }

    /// A FIFO put where a released file was is not waited on: the text is lost at once.
    #[cfg(unix)]
    #[test]
    fn a_fifo_in_a_released_files_place_does_not_block() {
        let (_dir, source) = released("fn a() {}\n");
        std::fs::remove_file(&source.path).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(&source.path)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert!(source.is_lost());
        }
    }

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
