//! MCP005 `progress-after-completion`: progress notifications that can outlive their request
//! (sent from a spawned task that the handler does not wait for), and progress tokens made up
//! instead of taken from the request.

use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
pub mod facts;
mod token_params;

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

    /// The helpers that make a parameter a progress token: a file that calls one (`name(`) may
    /// hand it a token it made up, whatever else the file says (no send word needed).
    fn follow_up(
        &self,
        facts: &[&crate::analysis::facts::FileFacts],
        _: &crate::analysis::vocabulary::Vocabulary,
    ) -> std::collections::BTreeSet<String> {
        facts
            .iter()
            .flat_map(|file| {
                let helpers = file.rules.get(&self::facts::TOKEN_PARAMS);
                file.functions
                    .iter()
                    .filter(|f| helpers.iter().any(|h| h.name_span == f.name_span))
                    .map(|f| format!("{}{}(", crate::prefilter::STANDALONE, f.name))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn mcp_words(&self) -> &'static [&'static str] {
        // A file that sends MCP progress names MCP (its types, its SDK), so the first pass finds
        // it; the files that call its helpers are followed up.
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
                        // A call by a progress name to the crate's own function that is not
                        // shown to send anything (first contact, batch 61: Hatchdoor's
                        // `report_progress` stores a snapshot for its web page).
                        let unshown = own_function_not_shown_to_send(context, &finding.what);
                        if unshown && !context.preview() {
                            continue;
                        }
                        let label = match handle {
                            Some(name) => format!(
                                "the task is spawned here; its handle `{name}` is never awaited or joined"
                            ),
                            None => "the task is spawned here and its handle is dropped".into(),
                        };
                        let found = Diagnostic::new(&META, *file, finding.span, format!(
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
                            );
                        match unshown {
                            true => found.with_note(OWN_FUNCTION),
                            false => found,
                        }
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
        let is_test_file = |file| context.is_test_file(file);
        let made_up = token_params::made_up_arguments(context.graph, &is_test_file);
        for (file, span, helper, helper_file) in made_up {
            // The helper's file speaks MCP (it sends the progress notification).
            let mentions_mcp = files
                .iter()
                .any(|(f, facts)| *f == helper_file && facts.mentions_mcp);
            if !mentions_mcp {
                continue;
            }
            out.push(
                Diagnostic::new(
                    &META,
                    file,
                    span,
                    format!(
                        "this progress token is made up: `{helper}` sends it as a progress notification's token, and a progress notification must carry the token the request provided"
                    ),
                )
                .with_severity(Severity::Error)
                .with_note(ACTIVE_TOKENS)
                .with_help("hand the helper the token from the request's `_meta.progressToken`, and send no progress when the request carries none"),
            );
        }
    }
}

/// The premise a progress call by name to the crate's own function could not show.
const OWN_FUNCTION: &str = "preview: the call is to the crate's own function of that name, which \
is not shown to send a notification (it calls nothing that sends or reports progress)";

/// Whether `what` (`` `.report_progress(..)` ``, `` `report_progress(..)` ``) calls, by its last
/// name, functions the crate defines, none of which calls anything that could send: a progress
/// call, a `send*` or `notify*` method, or a function of the crate that does (one level down).
fn own_function_not_shown_to_send(context: &RuleContext<'_>, what: &str) -> bool {
    let name = what
        .trim_matches('`')
        .trim_start_matches('.')
        .trim_end_matches("(..)");
    let name = name.rsplit("::").next().unwrap_or(name);
    let graph = context.graph;
    let defined: Vec<_> = graph
        .all_functions()
        .filter(|f| graph.function(*f).name == name)
        .collect();
    let could_send = |call: &str| {
        call.starts_with("send")
            || call.starts_with("notify")
            || call.contains("progress")
            || call == "emit"
            || call == "write_all"
            || call == "try_send"
    };
    !defined.is_empty()
        && defined.iter().all(|f| {
            graph.function(*f).calls.iter().all(|call| {
                let inner = call.name();
                !could_send(inner)
                    && graph
                        .all_functions()
                        .filter(|g| graph.function(*g).name == inner)
                        .all(|g| {
                            graph
                                .function(g)
                                .calls
                                .iter()
                                .all(|c| !could_send(c.name()))
                        })
            })
        })
}
