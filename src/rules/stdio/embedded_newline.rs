//! MCP007 `stdio-embedded-newline`: a stdio transport that writes pretty-printed JSON breaks the
//! newline-delimited framing.

use std::collections::BTreeSet;

use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};

pub static META: RuleMeta = RuleMeta {
    code: "MCP007",
    name: "stdio-embedded-newline",
    default_severity: Severity::Error,
    summary: "a stdio transport writes pretty-printed JSON, whose newlines break the framing",
    fix: FixAvailability::Always,
    docs: include_str!("../../../rules/MCP007-stdio-embedded-newline.md"),
    // In preview: on real servers it was right 0 of 2 times, and it has no true finding in the
    // ecosystem corpus (see the rule's documentation).
    status: RuleStatus::Preview,
};

const SPEC: &str =
    "MCP stdio transport (2025-11-25 basic/transports, 2026-07-28 basic/transports/stdio): \
messages are delimited by newlines, and MUST NOT contain embedded newlines";

pub struct StdioEmbeddedNewline;

impl Rule for StdioEmbeddedNewline {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &super::COLLECTORS
    }

    fn words(&self, _: &Vocabulary) -> Vec<String> {
        super::words()
    }

    fn follow_up(&self, facts: &[&FileFacts], _: &Vocabulary) -> BTreeSet<String> {
        super::follow_up(facts)
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        for (file, facts) in context.graph.files() {
            // Only pretty output that reaches stdout as a message is recorded (see
            // `StdioFunction::pretty_json`).
            for function in &super::facts::writes(facts) {
                // A transport that frames messages with `Content-Length` headers (LSP style) is
                // not newline-delimited: pretty JSON does not break that framing (the framing
                // itself is not MCP's stdio transport, a different problem).
                let framed = context
                    .sources
                    .get(*file)
                    .is_some_and(|s| s.snippet(function.item_span).contains("Content-Length"));
                if framed {
                    continue;
                }
                for span in &function.pretty_json {
                    if !super::stdout_is_protocol_at(context, *file, function.item_span, *span) {
                        continue;
                    }
                    let name = context
                        .sources
                        .get(*file)
                        .map(|s| s.snippet(*span).to_string())
                        .unwrap_or_default();
                    let plain = name.trim_end_matches("_pretty").to_string();
                    out.push(Diagnostic::new(&META, *file, *span, format!(
                            "`serde_json::{name}` puts newlines inside a message written to the stdio transport"
                        )).with_note(SPEC).with_help(format!("serialise each message on one line with `serde_json::{plain}`")).with_fix(Fix {
                            applicability: Applicability::Safe,
                            message: format!("use `{plain}`"),
                            edits: vec![Edit {
                                file: *file,
                                span: *span,
                                replacement: plain,
                            }],
                        }));
                }
            }
        }
    }
}
