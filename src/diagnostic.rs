//! What a rule reports: a code, a severity, a message, a primary span, labels, notes and help.

use crate::source::{ByteSpan, FileId};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A place in a file, with a message saying what happens there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub file: FileId,
    pub span: ByteSpan,
    pub message: String,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Rule code, for example `MCP001`.
    pub code: &'static str,
    /// Rule name in kebab case, for example `cancel-sends-response`.
    pub name: &'static str,
    pub severity: Severity,
    /// One line saying what is wrong.
    pub message: String,
    pub file: FileId,
    /// The primary span.
    pub span: ByteSpan,
    /// Secondary places, in the order a reader should follow them.
    pub labels: Vec<Label>,
    /// Background, such as the specification's words.
    pub notes: Vec<String>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// The key diagnostics are sorted by: file, then position, then code.
    pub fn sort_key(&self) -> (FileId, usize, usize, &'static str) {
        (self.file, self.span.start, self.span.end, self.code)
    }
}
