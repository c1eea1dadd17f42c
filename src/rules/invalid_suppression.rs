//! MCP901 `invalid-suppression`: a suppression comment that names an unknown rule, is malformed,
//! or gives no reason when the configuration requires one. Reported by the engine's suppression
//! pass.

use crate::diagnostic::{Diagnostic, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};

pub static META: RuleMeta = RuleMeta {
    code: "MCP901",
    name: "invalid-suppression",
    default_severity: Severity::Warning,
    summary:
        "a suppression comment names an unknown rule, is malformed, or lacks a required reason",
    fix: FixAvailability::None,
    docs: include_str!("../../rules/MCP901-invalid-suppression.md"),
    status: RuleStatus::Stable,
};

pub struct InvalidSuppression;

impl Rule for InvalidSuppression {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn words(&self, _: &crate::analysis::vocabulary::Vocabulary) -> Vec<String> {
        crate::prefilter::words(crate::prefilter::SUPPRESSION_WORDS)
    }

    fn check(&self, _: &RuleContext<'_>, _: &mut Vec<Diagnostic>) {}
}
