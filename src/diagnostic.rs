//! What a rule declares about itself (its code, name, default severity, status), and what it
//! reports: a code, a severity, a message, a primary span, labels, notes and help.

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
    /// A finding of the rule `meta` at `span` of `file`, at the rule's default severity, with no
    /// labels, notes, help or fix (the `with_` methods add them). The engine fills in its
    /// context.
    pub fn new(meta: &RuleMeta, file: FileId, span: ByteSpan, message: impl Into<String>) -> Self {
        Diagnostic {
            code: meta.code,
            name: meta.name,
            severity: meta.default_severity,
            message: message.into(),
            file,
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
            context: None,
        }
    }

    /// At `severity` rather than the rule's default.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// With a secondary place (after those added before).
    pub fn with_label(mut self, file: FileId, span: ByteSpan, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    /// With secondary places (after those added before).
    pub fn with_labels(mut self, labels: impl IntoIterator<Item = Label>) -> Self {
        self.labels.extend(labels);
        self
    }

    /// With a note (after those added before).
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// With notes (after those added before).
    pub fn with_notes<N: Into<String>>(mut self, notes: impl IntoIterator<Item = N>) -> Self {
        self.notes.extend(notes.into_iter().map(Into::into));
        self
    }

    /// With what to do about it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// With what to do about it, when there is something to say.
    pub fn with_optional_help(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    /// With a change that resolves it, when the rule has one (`Fix` or `Option<Fix>`).
    pub fn with_fix(mut self, fix: impl Into<Option<Fix>>) -> Self {
        self.fix = fix.into();
        self
    }

    /// The key diagnostics are sorted by: file, then position, then code.
    pub fn sort_key(&self) -> (FileId, usize, usize, &'static str) {
        (self.file, self.span.start, self.span.end, self.code)
    }
}

/// What every rule declares about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// `MCP001`.
    pub code: &'static str,
    /// `cancel-sends-response`.
    pub name: &'static str,
    pub default_severity: Severity,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Whether the rule's diagnostics carry fixes.
    pub fix: FixAvailability,
    /// The rule's documentation (Markdown).
    pub docs: &'static str,
    /// Stable (on by default), or in preview (runs only in preview mode).
    pub status: RuleStatus,
}

impl RuleMeta {
    /// Whether the rule is in preview.
    pub fn is_preview(&self) -> bool {
        self.status == RuleStatus::Preview
    }
}

/// Whether a rule is stable or in preview, as ruff has them. A rule whose first-contact
/// precision (the last two batches of new repositories, `docs/ecosystem.md`) is below 95% is in
/// preview: it never runs unless
/// preview mode is on (`--preview`, or `preview = true` in the configuration), neither by
/// default, nor by `all`, nor when named explicitly. In preview mode it behaves as a stable rule.
/// New rules start in preview; so do new shapes of a stable rule (see [`crate::rules::RuleContext::preview`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleStatus {
    /// Precise enough to be on by default.
    Stable,
    /// Off unless preview mode is on.
    Preview,
}

impl RuleStatus {
    /// `stable` or `preview`, as `--list-rules` and the rules' documentation word it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Stable => "stable",
            RuleStatus::Preview => "preview",
        }
    }
}

/// Whether a rule offers fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixAvailability {
    /// Never.
    None,
    /// For some of its diagnostics.
    Sometimes,
    /// For every diagnostic.
    Always,
}
