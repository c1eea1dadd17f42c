//! MCP001, a cancel path's response returned to a caller that writes it: a function returns, on
//! a cancel path, a response it built (or one a function it returns from built), and a function
//! of the crate writes what the call returns to the wire (`if let Some(reply) = self.handle(msg)
//! { writeln!(out, "{reply}") }`). What the function is called decides nothing: the value's
//! path, its return and the caller's write do.

use std::collections::HashSet;

use super::paths::effective_origin;
use super::shape_b::{returned_from, Reach};
use super::{short, META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{CallSite, FunctionFacts, PathOrigin, ReturnSite, WrittenCall};
use crate::diagnostic::{Diagnostic, Label};
use crate::source::{ByteSpan, FileId, SourceMap};

/// A response returned on a cancel path that a caller writes.
#[derive(Debug, Clone)]
pub struct WrittenReturn<'a> {
    pub file: FileId,
    /// The function whose code returns the value.
    pub function: &'a FunctionFacts,
    pub value: &'a ReturnSite,
    pub origin: &'a PathOrigin,
    /// The function that writes what its call returns, its file and the write.
    pub writer: (FileId, &'a FunctionFacts, &'a WrittenCall),
    /// The function the writer calls, when it is not the one that returns the value (it
    /// returns what that one returns).
    pub called: Option<&'a FunctionFacts>,
}

impl WrittenReturn<'_> {
    /// Whether the write may not run for every value the call returns (it lies in a branch
    /// that tests something else): then the finding is not certain.
    pub fn guarded(&self) -> bool {
        self.writer.2.guarded
    }
}

/// Every response returned on a cancel path that a caller of the crate writes.
pub fn find<'a>(graph: &CrateGraph<'a>) -> Vec<WrittenReturn<'a>> {
    let mut found = Vec::new();
    let mut reported: HashSet<(FunctionRef, ByteSpan)> = HashSet::new();
    for f in graph.all_functions() {
        let facts = graph.function(f);
        if facts.in_test {
            continue;
        }
        for written in &facts.written_calls {
            let call = CallSite::to(written.callee.clone());
            for g in graph.callees(f, &call) {
                let reached = returned_from(graph, g)
                    .into_iter()
                    .filter(|(_, reach)| *reach == Reach::Value)
                    .map(|(h, _)| h);
                for h in std::iter::once(g).chain(reached) {
                    let returning = graph.function(h);
                    for value in returning.path_returns.iter().filter(|v| v.response) {
                        let Some(origin) = effective_origin(graph, h.file, &value.origins) else {
                            continue;
                        };
                        if !reported.insert((h, value.span)) {
                            continue;
                        }
                        found.push(WrittenReturn {
                            file: graph.file_id(h),
                            function: returning,
                            value,
                            origin,
                            writer: (graph.file_id(f), facts, written),
                            called: (h != g).then(|| graph.function(g)),
                        });
                    }
                }
            }
        }
    }
    found
}

/// The diagnostic: at the value, with the cancel path and the caller's write.
pub fn diagnostic(found: &WrittenReturn<'_>, sources: &SourceMap) -> Diagnostic {
    let what = sources
        .get(found.file)
        .map(|s| short(s.snippet(found.value.span)))
        .unwrap_or_else(|| found.value.what.clone());
    let (writer_file, writer, write) = found.writer;
    let returner = &found.function.name;
    let message = match found.called {
        None => format!(
            "{what} is sent as the response to a cancelled request: `{returner}` returns it and `{}` writes it",
            writer.name
        ),
        Some(called) => format!(
            "{what} is sent as the response to a cancelled request: `{returner}` returns it, `{}` returns that, and `{}` writes it",
            called.name, writer.name
        ),
    };
    let wrote = match found.called {
        None => format!("`{}` writes what `{returner}` returns here", writer.name),
        Some(called) => format!(
            "`{}` writes what `{}` returns here",
            writer.name, called.name
        ),
    };
    let mut notes = Vec::new();
    if write.guarded {
        notes.push(
            "not shown: that the write runs for this call's value (it lies in a branch that tests something else)"
                .to_string(),
        );
    }
    notes.push(SPEC_MUST_NOT.to_string());
    notes.push(SPEC_SHOULD_NOT.to_string());
    notes.push(
        "preview: a response returned on a cancel path to a caller that writes it is a shape in preview (first contact, batches 102 and 103: right 0 of 1 times)"
            .to_string(),
    );
    Diagnostic::new(&META, found.file, found.value.span, message)
        .with_labels(vec![
            Label {
                file: found.file,
                span: found.origin.span,
                message: found.origin.label.clone(),
            },
            Label {
                file: writer_file,
                span: write.span,
                message: wrote,
            },
        ])
        .with_notes(notes)
        .with_help(format!(
            "return nothing for a cancelled request, so that `{}` writes nothing for it",
            writer.name
        ))
}
