//! The rule: every shape of MCP001 on a crate graph, with the severity the targeted protocol
//! versions give a further message.

use super::shape_a::{diagnostic, send_by_name_only, Removals};
use super::{follow_up, handlers, shape_b, shape_c, written_return, CANCEL_WORDS, META};
use crate::diagnostic::{Diagnostic, RuleMeta, Severity};
use crate::rules::contract::{Rule, RuleContext};

pub struct CancelSendsResponse;

impl Rule for CancelSendsResponse {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &[&handlers::Handlers]
    }

    fn words(&self, vocabulary: &crate::analysis::vocabulary::Vocabulary) -> Vec<String> {
        CANCEL_WORDS
            .iter()
            .map(|w| w.to_string())
            .chain(vocabulary.cancel_hooks.iter().cloned())
            .chain(vocabulary.cancel_notifications.iter().cloned())
            .collect()
    }

    fn follow_up(
        &self,
        facts: &[&crate::analysis::facts::FileFacts],
        vocabulary: &crate::analysis::vocabulary::Vocabulary,
    ) -> std::collections::BTreeSet<String> {
        follow_up::needles(facts, vocabulary)
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        let mut removals = Removals::default();
        let observed = std::cell::OnceCell::new();
        let token_shown = || *observed.get_or_init(|| tokens_are_requests(context));
        for send in super::paths::CancelPaths::of(context.graph).cancel_sends() {
            // First contact, batches 128 and 129: aizen's workflow stop token, in a crate that
            // never reads `notifications/cancelled` (4 false findings). Preview at most.
            let own_token = super::paths::starts_at_a_token(send.origin) && !token_shown();
            if own_token && !context.preview() {
                continue;
            }
            // A send by its name only (the crate's own `reply`, which sends no response it
            // builds): its premise is not shown, preview at most (first contact, batch 39).
            let by_name_only = send_by_name_only(&send, context.graph);
            if by_name_only && !context.preview() {
                continue;
            }
            // A cancel path known only by a hook's own name that nothing in the crate calls:
            // preview (first contact, batch 95: cydonia's UI `cancel`, false).
            let uncalled_hook =
                super::paths::held_as_an_uncalled_hook(context.graph, send.file, send.origin)
                    && !answers_through_itself(&send);
            if uncalled_hook && !context.preview() {
                continue;
            }
            let (mut d, removed) = diagnostic(&send, context.sources, context.graph);
            if uncalled_hook {
                d.notes.push(UNCALLED_HOOK.to_string());
            }
            if own_token {
                d.notes.push(OWN_TOKEN.to_string());
            }
            if by_name_only {
                d.notes.push(format!(
                    "{} is a send by its name: no function of the crate by that name is shown to send a response (it builds none it sends, and does more than hand a message on) (preview)",
                    d.message.split(' ').next().unwrap_or("this call")
                ));
            }
            // Test code answers no client (a test client's `cancel` helper, a mock server).
            if context.is_test_file(d.file) {
                continue;
            }
            // Further messages are a MUST NOT only from 2026-07-28 on.
            if context.settings.targets_only_2025() && d.message.contains("further message") {
                d.severity = Severity::Warning;
            }
            if let Some(span) = removed {
                removals.add(out.len(), d.file, span);
            }
            out.push(d);
        }
        removals.complete(out, context.sources);
        if let Some(sdk) = context.sdk.filter(|sdk| sdk.answers_cancelled_requests()) {
            // Through helpers too: stable since first contact in batches 84 and 85 (8 of 8,
            // each a `select!` on the request's token), but not when the cancel path is a
            // function known as a cancel hook by its name only (batch 58's surreal-mind: a
            // `cancel_agent_job` tool, a request like any other): preview.
            for handler_return in shape_b::find(context.graph, context.sources) {
                let named_hook = handler_return.handler.is_some()
                    && handler_return.origin.kind == crate::analysis::facts::OriginKind::Hook;
                if named_hook && !context.preview() {
                    continue;
                }
                out.push(shape_b::diagnostic(&handler_return, sdk, context.sources));
            }
        }
        for written in written_return::find(context.graph) {
            if context.is_test_file(written.file) {
                continue;
            }
            // Certain or silent: a write in a branch that tests something else may not run for
            // the cancellation's value. And the shape is in preview as a whole since batches 102
            // and 103, where at first contact it was right 0 of 1 times (PhiSHRI: a caller that
            // returns nothing for a message without an `id` drops the cancellation arm's value).
            if !context.preview() {
                continue;
            }
            out.push(written_return::diagnostic(&written, context.sources));
        }
        for missing in shape_c::find(context.graph) {
            // Token registries left registered, and writes in helpers, are new shapes: in
            // preview.
            if (missing.leaves_registered || missing.through_calls) && !context.preview() {
                continue;
            }
            out.push(shape_c::diagnostic(&missing));
        }
    }
}

/// The note of a send on a cancel path known only by the name of a hook nothing in the crate
/// calls (see [`super::paths::held_as_an_uncalled_hook`]).
const UNCALLED_HOOK: &str = "preview: the cancel path is a method named `cancel` that nothing in the crate is shown to call, and it answers through another value than its own; that it runs because a request was cancelled rests on its name";

/// Whether a token the unit tests is shown to be a request's cancellation: something cancels it
/// because a client cancelled a request (an SDK that does, the code's own handling of the
/// notification), or the unit cancels nothing itself and its tokens come from its callers.
fn tokens_are_requests(context: &RuleContext<'_>) -> bool {
    let files = context.graph.files();
    context.sdk.is_some()
        || files.iter().any(|(_, f)| f.dispatch.names_sdk)
        || !super::paths::cancels_its_own_tokens(context.graph)
        || super::paths::observes_the_notification(context.graph)
}

/// The note of a send on a cancel path that starts at a token in code that is not shown to
/// observe a client's cancellation (see [`super::paths::observes_the_notification`]).
const OWN_TOKEN: &str = "preview: the crate cancels its tokens for reasons of its own, nothing in it reads `notifications/cancelled` and no MCP SDK cancels this token, so that it is cancelled because a client cancelled a request is not shown";

/// Whether a send on a cancel path goes through the value the hook is a method of (`self.
/// send_error(..)` in the seed's per-request responder: the request its `cancel` answers is its
/// own), not through another value it holds (cydonia's `prompt.responder.respond(..)` for a
/// pending prompt taken from the session's state).
fn answers_through_itself(send: &super::paths::CancelSend<'_>) -> bool {
    match &send.how {
        super::paths::SendHow::Direct(sink) => sink.what.starts_with("`self."),
        super::paths::SendHow::Through { call, .. } => matches!(
            &call.callee,
            crate::analysis::facts::Callee::Method { on_self: true, .. }
        ),
    }
}
