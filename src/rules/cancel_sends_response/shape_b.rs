//! MCP001 shape B: under an SDK that sends what a request handler returns (rmcp up to 2.1.0),
//! a value the handler returns on a cancel path becomes the response to the cancelled request.

use super::{short, META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use std::collections::{HashSet, VecDeque};

use super::paths::effective_origin;
use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{CallSite, FunctionFacts, PathOrigin, ReturnSite};
use crate::diagnostic::{Diagnostic, Label};
use crate::sdk::Sdk;
use crate::source::{FileId, SourceMap};

/// A value a request handler returns on a cancel path: its own, or one a function it returns
/// from (or propagates the error of, with `?`) returns, to any depth.
#[derive(Debug, Clone)]
pub struct HandlerReturn<'a> {
    pub file: FileId,
    /// The function whose code returns the value (the handler, or a helper it returns from).
    pub function: &'a FunctionFacts,
    pub value: &'a ReturnSite,
    pub origin: &'a PathOrigin,
    /// When the value comes from a helper: the handler, and its file.
    pub handler: Option<(FileId, &'a FunctionFacts)>,
}

/// How a helper's value reaches the handler's return: all of it (`helper(..).await` as the
/// tail), or only its error (`helper(..).await?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Reach {
    Value,
    Error,
}

/// Values that request handlers return on a cancel path (shape B).
pub fn find<'a>(graph: &CrateGraph<'a>, sources: &SourceMap) -> Vec<HandlerReturn<'a>> {
    let mut found = Vec::new();
    // The request handlers of each file (see `handlers`), by their items' spans.
    let handlers: Vec<Vec<crate::source::ByteSpan>> = graph
        .files()
        .iter()
        .map(|(_, facts)| super::handlers::handlers(facts))
        .collect();
    let is_handler = |f: FunctionRef| handlers[f.file].contains(&graph.function(f).item_span);
    let mut reported: HashSet<(FunctionRef, crate::source::ByteSpan)> = HashSet::new();
    for f in graph.all_functions().filter(|f| is_handler(*f)) {
        let facts = graph.function(f);
        for value in &facts.path_returns {
            if let Some(origin) = effective_origin(graph, f.file, &value.origins) {
                reported.insert((f, value.span));
                found.push(HandlerReturn {
                    file: graph.file_id(f),
                    function: facts,
                    value,
                    origin,
                    handler: None,
                });
            }
        }
    }
    for handler in graph.all_functions().filter(|f| is_handler(*f)) {
        for (helper, reach) in returned_from(graph, handler) {
            if is_handler(helper) {
                continue;
            }
            let facts = graph.function(helper);
            for value in &facts.path_returns {
                if reach == Reach::Error && !is_err_value(graph, helper, value, sources) {
                    continue;
                }
                let Some(origin) = effective_origin(graph, helper.file, &value.origins) else {
                    continue;
                };
                if reported.insert((helper, value.span)) {
                    found.push(HandlerReturn {
                        file: graph.file_id(helper),
                        function: facts,
                        value,
                        origin,
                        handler: Some((graph.file_id(handler), graph.function(handler))),
                    });
                }
            }
        }
    }
    found
}

/// The functions whose values `handler` returns, to any depth, with how they reach it.
pub(super) fn returned_from(
    graph: &CrateGraph<'_>,
    handler: FunctionRef,
) -> Vec<(FunctionRef, Reach)> {
    let mut seen: HashSet<(FunctionRef, Reach)> = HashSet::new();
    let mut queue: VecDeque<(FunctionRef, Reach)> = VecDeque::from([(handler, Reach::Value)]);
    let mut out = Vec::new();
    while let Some((f, reach)) = queue.pop_front() {
        let facts = graph.function(f);
        let steps = facts
            .returns_calls
            .iter()
            .map(|c| (c, reach))
            .chain(facts.propagates_calls.iter().map(|c| (c, Reach::Error)));
        for (callee, reach) in steps {
            let call = CallSite::to(callee.clone());
            for g in graph.callees(f, &call) {
                if g != handler && seen.insert((g, reach)) {
                    out.push((g, reach));
                    queue.push_back((g, reach));
                }
            }
        }
    }
    out
}

/// Whether a returned value is an error (`Err(..)`, recorded as the value inside it): what `?`
/// hands on to the caller.
fn is_err_value(
    graph: &CrateGraph<'_>,
    f: FunctionRef,
    value: &ReturnSite,
    sources: &SourceMap,
) -> bool {
    sources.get(graph.file_id(f)).is_some_and(|source| {
        let before = source.text().get(..value.span.start).unwrap_or("");
        source.snippet(value.span).trim_start().starts_with("Err(")
            || before.trim_end().ends_with("Err(")
    })
}

/// Shape B: a request handler's value on a cancel path becomes the response.
pub fn diagnostic(found: &HandlerReturn<'_>, sdk: &Sdk, sources: &SourceMap) -> Diagnostic {
    let what = sources
        .get(found.file)
        .map(|s| short(s.snippet(found.value.span)))
        .unwrap_or_else(|| found.value.what.clone());
    Diagnostic::new(&META, found.file, found.value.span, match found.handler {
            None => format!(
                "{what} becomes the response to a cancelled request: `{}` is a request handler and {sdk} sends what it returns",
                found.function.name
            ),
            Some((_, handler)) => format!(
                "{what} becomes the response to a cancelled request: request handler `{}` returns what `{}` returns, and {sdk} sends it",
                handler.name, found.function.name
            ),
        }).with_labels(vec![
            Label {
                file: found.file,
                span: found.origin.span,
                message: found.origin.label.clone(),
            },
            match found.handler {
                None => Label {
                    file: found.file,
                    span: found.function.name_span,
                    message: format!("`{}` is a request handler: what it returns is sent as the response", found.function.name),
                },
                Some((file, handler)) => Label {
                    file,
                    span: handler.name_span,
                    message: format!("`{}` is a request handler: what it returns is sent as the response, and it returns what `{}` returns", handler.name, found.function.name),
                },
            },
        ]).with_notes(vec![
            format!("{} (assumed from {})", sdk.explanation(), sdk.source),
            SPEC_MUST_NOT.to_string(),
            SPEC_SHOULD_NOT.to_string(),
        ]).with_help(sdk.help())
}
