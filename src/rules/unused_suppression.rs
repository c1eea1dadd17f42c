//! MCP900 `unused-suppression`: a suppression comment that suppresses nothing. Reported by the
//! engine's suppression pass; this file gives the code its name, level and documentation.

use crate::diagnostic::{Diagnostic, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};

pub static META: RuleMeta = RuleMeta {
    code: "MCP900",
    name: "unused-suppression",
    default_severity: Severity::Warning,
    summary: "a suppression comment suppresses nothing",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../rules/MCP900-unused-suppression.md"),
    status: RuleStatus::Stable,
};

pub struct UnusedSuppression;

impl Rule for UnusedSuppression {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn words(&self, _: &crate::analysis::vocabulary::Vocabulary) -> Vec<String> {
        crate::prefilter::words(crate::prefilter::SUPPRESSION_WORDS)
    }

    fn check(&self, _: &RuleContext<'_>, _: &mut Vec<Diagnostic>) {}
}
