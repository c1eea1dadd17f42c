//! What a rule reports: a code, a severity, a message, a primary span, labels, notes and help.

use crate::source::{ByteSpan, FileId};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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

/// How far a fix can be trusted, in ruff's and rustc's sense.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown, never applied.
    DisplayOnly,
    /// Applied only with `--fix --unsafe-fixes`: it may change behaviour beyond removing the
    /// offending code.
    Unsafe,
    /// Applied by `--fix`.
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
            Applicability::DisplayOnly => "display-only",
        }
    }
}

/// Replace a byte range of a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edit {
    pub file: FileId,
    pub span: ByteSpan,
    pub replacement: String,
}

/// A suggested change that resolves a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fix {
    pub applicability: Applicability,
    pub message: String,
    /// Non-overlapping edits, sorted by position.
    pub edits: Vec<Edit>,
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
    /// A change that resolves it, if the rule can offer one.
    pub fix: Option<Fix>,
    /// The name of the function around the primary span (filled in by the engine), which keys
    /// baselines and fingerprints.
    pub context: Option<String>,
}

impl Diagnostic {
    /// The key diagnostics are sorted by: file, then position, then code.
    pub fn sort_key(&self) -> (FileId, usize, usize, &'static str) {
        (self.file, self.span.start, self.span.end, self.code)
    }
}
