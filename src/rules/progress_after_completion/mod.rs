//! MCP005 `progress-after-completion`: progress notifications that can outlive their request
//! (sent from a spawned task that the handler does not wait for), and progress tokens made up
//! instead of taken from the request.

use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
pub mod facts;

use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::protocol::ProtocolVersion;
use facts::ProgressIssue;

pub static META: RuleMeta = RuleMeta {
    code: "MCP005",
    name: "progress-after-completion",
    default_severity: Severity::Warning,
    summary: "progress can be sent after the request completed, or with a made-up token",
    fix: FixAvailability::None,
    docs: include_str!("../../../rules/MCP005-progress-after-completion.md"),
    status: RuleStatus::Stable,
};

const AFTER_COMPLETION: &str = "MCP 2025-11-25 basic/utilities/progress and 2026-07-28 basic/patterns/progress: Progress notifications MUST stop after completion";
const ACTIVE_TOKENS: &str = "MCP 2025-11-25 basic/utilities/progress (unchanged in 2026-07-28 basic/patterns/progress): Progress notifications MUST only reference tokens that were provided in an active request and are associated with an in-progress operation";

pub struct ProgressAfterCompletion;

impl Rule for ProgressAfterCompletion {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &[&facts::ProgressFacts]
    }

    fn mcp_words(&self) -> &'static [&'static str] {
        // Not followed up: progress facts are local to one function, and a file that sends MCP
        // progress names MCP (its types, its SDK), so the first pass finds it.
        &[
            "notify_progress",
            "send_progress",
            "report_progress",
            "notifications/progress",
            "ProgressNotification",
            "progressToken",
            "ProgressToken",
        ]
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        let files = context.graph.files();
        if !context.serves_mcp() || context.is_test_target {
            return;
        }
        // Task-augmented requests (2025-11-25 only) may send progress after their
        // `CreateTaskResult`, until the task is terminal.
        let tasks_allowed = context
            .settings
            .protocol_versions
            .contains(&ProtocolVersion::V2025_11_25);
        for (file, facts) in files {
            // Progress is the protocol's only in a file whose code speaks MCP (its SDK, its
            // types, its methods): decided from the code, not from which files the pre-filter
            // happened to parse (its words may lie in comments or in strings nothing reads).
            if context.is_test_file(*file) || !facts.mentions_mcp {
                continue;
            }
            for finding in self::facts::findings(facts).iter().filter(|f| !f.in_test) {
                let diagnostic = match &finding.issue {
                    ProgressIssue::Detached { spawn, handle } => {
                        if finding.task_context && tasks_allowed {
                            continue;
                        }
                        let label = match handle {
                            Some(name) => format!(
                                "the task is spawned here; its handle `{name}` is never awaited or joined"
                            ),
                            None => "the task is spawned here and its handle is dropped".into(),
                        };
                        Diagnostic::new(&META, *file, finding.span, format!(
                                "{} sends progress from a task the function does not wait for: it can run after the response",
                                finding.what
                            )).with_severity(Severity::Warning).with_labels(vec![Label {
                                file: *file,
                                span: *spawn,
                                message: label,
                            }]).with_note(AFTER_COMPLETION).with_help(if tasks_allowed {
                                "await (or join) the task's handle before returning the response, or drain the progress channel before returning; a 2025-11-25 task-augmented request may keep sending progress until its task is terminal"
                            } else {
                                "await (or join) the task's handle before returning the response, or drain the progress channel before returning"
                            }
                            )
                    }
                    ProgressIssue::FabricatedToken => Diagnostic::new(&META, *file, finding.span, format!(
                            "{} is made up: a progress notification must carry the token the request provided",
                            finding.what
                        )).with_severity(Severity::Error).with_note(ACTIVE_TOKENS).with_help("take the token from the request's `_meta.progressToken` (rmcp: `context.meta.get_progress_token()`), and send no progress when the request carries none"
                                ,),
                };
                out.push(diagnostic);
            }
        }
    }
}
