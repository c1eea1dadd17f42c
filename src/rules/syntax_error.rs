//! MCP000 `syntax-error`: a file that cannot be read or parsed. The engine reports it while
//! reading files; the rule exists so that the code has a name, documentation and a level.

use crate::diagnostic::{Diagnostic, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
use crate::source::{ByteSpan, FileId};

pub static META: RuleMeta = RuleMeta {
    code: "MCP000",
    name: "syntax-error",
    default_severity: Severity::Error,
    summary: "a file could not be read or parsed, so it was not analysed",
    fix: FixAvailability::None,
    docs: include_str!("../../rules/MCP000-syntax-error.md"),
    status: RuleStatus::Stable,
};

pub struct SyntaxError;

impl Rule for SyntaxError {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, _: &RuleContext<'_>, _: &mut Vec<Diagnostic>) {}
}

/// The diagnostic for a file that could not be read or parsed.
pub fn diagnostic(
    file: FileId,
    span: ByteSpan,
    message: String,
    help: Option<String>,
) -> Diagnostic {
    Diagnostic::new(&META, file, span, message)
        .with_note("the rest of the files were still linted; this one was not analysed")
        .with_optional_help(help)
}
