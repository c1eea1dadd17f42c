//! Shape A: a response or further message sent on a cancel path, directly or through calls of
//! the same crate; its message, labels (the path's hops) and fix.

use std::collections::BTreeMap;

use super::paths::{CancelSend, Hop, SendHow};
use super::{META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::Removal;
use crate::analysis::facts::{CallSite, SinkKind, SinkSite};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Label};
use crate::edits::removal_edit;
use crate::source::{ByteSpan, FileId, SourceMap};

/// The fix: remove the send (safe when nothing else goes with it), or, for a call through a
/// helper, show its removal. With it, the removed statement whose orphaned bindings are still to
/// be found ([`Removals`]).
fn fix(
    send: &CancelSend<'_>,
    sources: &SourceMap,
    graph: &CrateGraph<'_>,
) -> (Option<Fix>, Option<ByteSpan>) {
    let Some(text) = sources.get(send.file).map(|s| s.text()) else {
        return (None, None);
    };
    let (removal, applicability, message) = match &send.how {
        SendHow::Direct(sink) if sink.sent_at.is_none() => {
            let Some(removal) = sink.removal else {
                return (None, None);
            };
            let applicability = match removal {
                Removal::Statement(_) if sink.pure => own_function_removal(sink, graph),
                _ => Applicability::Unsafe,
            };
            let what = match sink.kind {
                SinkKind::Response => "response",
                SinkKind::FurtherMessage => "further message",
            };
            (
                removal,
                applicability,
                format!("remove the {what} sent for the cancelled request"),
            )
        }
        SendHow::Direct(_) => return (None, None),
        SendHow::Through { call, chain } => {
            let Some(removal) = call.removal else {
                return (None, None);
            };
            // A helper whose only effect is the send (`fn ack(out, id) { out.send(..) }`): the
            // call can go. Unsafe: its arguments are computed for it and may have effects.
            let only_sends = matches!(
                chain.as_slice(),
                [super::paths::Hop::Send { function, .. }] if function.only_sends
            );
            let applicability = match removal {
                Removal::Statement(_) if only_sends => Applicability::Unsafe,
                _ => Applicability::DisplayOnly,
            };
            (
                removal,
                applicability,
                format!("remove the call to `{}`", call.name()),
            )
        }
    };
    let removed = match (removal, applicability) {
        (Removal::Statement(span), Applicability::Safe | Applicability::Unsafe) => Some(span),
        _ => None,
    };
    let fix = Fix {
        applicability,
        message,
        edits: vec![removal_edit(send.file, text, removal)],
    };
    (Some(fix), removed)
}

/// How safely a pure send known by its name goes. A function of the crate by that name whose
/// body binds nothing with effects builds and sends its message (`fn send_error(..) { let msg =
/// json!(..); self.out.write(&msg) }`), and its call goes safely. One that computes a binding
/// with effects (`queued.reply(result)`, whose body takes a sender out of a lock to hand the
/// value to an in-process waiter) does more than send: taking its call out takes that out too,
/// so the fix is shown, not applied.
fn own_function_removal(sink: &SinkSite, graph: &CrateGraph<'_>) -> Applicability {
    let Some(name) = &sink.named else {
        return Applicability::Safe;
    };
    let more_than_a_send = own_functions_named(graph, name).any(|f| f.binds_with_effects);
    if more_than_a_send {
        Applicability::DisplayOnly
    } else {
        Applicability::Safe
    }
}

/// The product functions of the unit called `name`.
fn own_functions_named<'g>(
    graph: &'g CrateGraph<'_>,
    name: &'g str,
) -> impl Iterator<Item = &'g crate::analysis::facts::FunctionFacts> + 'g {
    graph
        .all_functions()
        .map(|f| graph.function(f))
        .filter(move |f| !f.in_test && f.name == name)
}

/// Whether a send is one by its name only: known by a name of the vocabulary (`reply`,
/// `send_error`, ..) while the crate defines functions of that name, none of which is shown to
/// send a response: none sends one it builds, and each does more than build and send a message
/// (a binding computed with effects: `fn reply(&self, v: Value) { let tx = match
/// self.tx.lock() { .. take() }; .. tx.send(v) }` hands on whatever it is given, here a crate
/// error for an in-process waiter), or does more than send (moon's `send_result(action)`: marks
/// a job completed, maybe cancels a token, and hands the job's `Action` to its pipeline's
/// channel). What the code does is not shown to be a response send: preview at most. A function
/// that only builds its text and sends it (`let id = &self.id; let _ =
/// self.out.send(format!(..))`) is a sender by what it does.
pub(super) fn send_by_name_only(send: &CancelSend<'_>, graph: &CrateGraph<'_>) -> bool {
    let SendHow::Direct(sink) = &send.how else {
        return false;
    };
    let Some(name) = &sink.named else {
        return false;
    };
    let mut own = graph
        .all_functions()
        .filter(|&f| {
            let facts = graph.function(f);
            !facts.in_test && facts.name == *name
        })
        .peekable();
    // A send of the function's own is one the crate graph shows: a recorded send of a call's
    // value (`self.mark_completed(NodeIndex::new(..))`) only if that call returns a response
    // and the callee writes it.
    own.peek().is_some()
        && own.all(|f| {
            let facts = graph.function(f);
            !facts
                .sinks
                .iter()
                .any(|s| s.kind == SinkKind::Response && graph.sink_active(f, s))
                && !facts.only_sends
                && !facts.sends_alone
        })
}

/// The statements the fixes of one check remove, by file: a binding only the send used goes
/// with it when its value is pure, or stays renamed `_name` when computing it has effects; one
/// whose type only the send fixed makes the fix unsafe (nothing would infer it). Each file is
/// parsed once for all its removals.
#[derive(Default)]
pub(super) struct Removals {
    /// Per file: the diagnostics' indices and their removed statements.
    by_file: BTreeMap<FileId, Vec<(usize, ByteSpan)>>,
}

impl Removals {
    pub(super) fn add(&mut self, index: usize, file: FileId, span: ByteSpan) {
        self.by_file.entry(file).or_default().push((index, span));
    }

    pub(super) fn complete(self, out: &mut [Diagnostic], sources: &SourceMap) {
        for (file, removals) in self.by_file {
            let spans: Vec<ByteSpan> = removals.iter().map(|(_, span)| *span).collect();
            let found = match sources.get(file) {
                Some(source) => super::orphans::orphaned_lets_each(source.text(), &spans),
                None => vec![None; spans.len()],
            };
            for ((index, _), orphans) in removals.into_iter().zip(found) {
                let Some(fix) = out.get_mut(index).and_then(|d| d.fix.as_mut()) else {
                    continue;
                };
                let (Some(orphans), Some(source)) = (orphans, sources.get(file)) else {
                    fix.applicability = Applicability::Unsafe;
                    continue;
                };
                for orphan in &orphans {
                    if orphan.pure {
                        fix.edits.push(removal_edit(
                            file,
                            source.text(),
                            Removal::Statement(orphan.span),
                        ));
                    } else {
                        if orphan.inferred {
                            fix.applicability = Applicability::Unsafe;
                        }
                        fix.edits.push(Edit {
                            file,
                            span: orphan.binding,
                            replacement: format!("_{}", orphan.name),
                        });
                    }
                }
                fix.edits.sort_by_key(|e| (e.span.start, e.span.end));
            }
        }
    }
}

/// What a finding says: its span, message, help and the kind of message sent.
type Said = (ByteSpan, String, String, SinkKind);

/// A send made right on the cancel path.
fn direct(send: &CancelSend<'_>, sink: &SinkSite, labels: &mut Vec<Label>) -> Said {
    let message = match (sink.kind, sink.sent_at) {
        (SinkKind::Response, Some(_)) => format!(
            "{} builds a response on a cancel path, and it is sent for the cancelled request",
            sink.what
        ),
        (SinkKind::Response, None) => {
            format!(
                "{} sends a response for a request that was cancelled",
                sink.what
            )
        }
        (SinkKind::FurtherMessage, _) => format!(
            "{} sends a further message for a request that was cancelled",
            sink.what
        ),
    };
    if let Some(sent_at) = sink.sent_at {
        labels.push(Label {
            file: send.file,
            span: sent_at,
            message: "the response built on the cancel path is sent here".into(),
        });
    }
    let help = match (sink.kind, sink.sent_at) {
        (SinkKind::FurtherMessage, _) => {
            "stop sending progress and log messages once the request is cancelled".to_string()
        }
        (SinkKind::Response, Some(_)) => {
            "make the cancel path produce nothing to send (for example `None`) and skip the send for it"
                .to_string()
        }
        (SinkKind::Response, None) => {
            "remove the send: stop the work and free the request's resources, but send nothing for it"
                .to_string()
        }
    };
    (sink.span, message, help, sink.kind)
}

/// A send reached through calls from the cancel path: a label per hop.
/// How many hops of a call chain a finding shows: the first ones and the last ones, and a count
/// of those between (a finding's size, and the report's, stays bounded whatever the chain).
pub const HOPS_SHOWN: usize = 8;

fn through(call: &CallSite, chain: &[Hop<'_>], labels: &mut Vec<Label>) -> Said {
    let mut kind = SinkKind::Response;
    let mut first_callee = String::new();
    let hidden = chain.len().saturating_sub(HOPS_SHOWN);
    let shown = |i: usize| i < HOPS_SHOWN / 2 || i >= HOPS_SHOWN / 2 + hidden;
    for (i, hop) in chain.iter().enumerate() {
        if let (Hop::Call { caller, .. }, true) = (hop, first_callee.is_empty()) {
            first_callee = caller.name.clone();
        }
        if !shown(i) {
            if i == HOPS_SHOWN / 2 {
                if let Some(last) = labels.last_mut() {
                    last.message.push_str(&format!(
                        " (… {hidden} more call{} on the way, not shown)",
                        if hidden == 1 { "" } else { "s" }
                    ));
                }
            }
            continue;
        }
        match hop {
            Hop::Call {
                file,
                caller,
                call,
                callee,
            } => {
                if first_callee.is_empty() {
                    first_callee = caller.name.clone();
                }
                labels.push(Label {
                    file: *file,
                    span: call.span,
                    message: format!("`{}` calls `{}`", caller.name, callee.name),
                });
            }
            Hop::Send {
                file,
                function,
                sink,
            } => {
                if first_callee.is_empty() {
                    first_callee = function.name.clone();
                }
                kind = sink.kind;
                labels.push(Label {
                    file: *file,
                    span: sink.span,
                    message: format!(
                        "`{}` sends {} here: {}",
                        function.name,
                        kind_words(sink.kind),
                        sink.what
                    ),
                });
            }
        }
    }
    let calls = chain.len();
    let message = format!(
        "`{}` sends {} for a request that was cancelled (through {calls} call{})",
        first_callee,
        kind_words(kind),
        if calls == 1 { "" } else { "s" }
    );
    let help = format!(
        "do not call `{first_callee}` on the cancel path, or make it send nothing for a cancelled request"
    );
    (call.span, message, help, kind)
}

fn kind_words(kind: SinkKind) -> &'static str {
    match kind {
        SinkKind::Response => "a response",
        SinkKind::FurtherMessage => "a further message",
    }
}

/// The finding, and the statement its fix removes (whose orphans are still to be found).
pub(super) fn diagnostic(
    send: &CancelSend<'_>,
    sources: &SourceMap,
    graph: &CrateGraph<'_>,
) -> (Diagnostic, Option<ByteSpan>) {
    let origin_label = Label {
        file: send.file,
        span: send.origin.span,
        message: send.origin.label.clone(),
    };
    let mut labels = vec![origin_label];
    let (span, message, help, kind) = match &send.how {
        SendHow::Direct(sink) => direct(send, sink, &mut labels),
        SendHow::Through { call, chain } => through(call, chain, &mut labels),
    };
    let notes = match kind {
        SinkKind::Response => vec![SPEC_MUST_NOT.to_string(), SPEC_SHOULD_NOT.to_string()],
        SinkKind::FurtherMessage => vec![SPEC_MUST_NOT.to_string()],
    };
    let (fix, removed) = fix(send, sources, graph);
    let diagnostic = Diagnostic::new(&META, send.file, span, message)
        .with_labels(labels)
        .with_notes(notes)
        .with_help(help)
        .with_fix(fix);
    (diagnostic, removed)
}
