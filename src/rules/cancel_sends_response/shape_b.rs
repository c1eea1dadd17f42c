//! MCP001 shape B: under an SDK that sends what a request handler returns (rmcp up to 2.1.0),
//! a value the handler returns on a cancel path becomes the response to the cancelled request.

use super::{short, META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::{CancelOrigin, FunctionFacts, ReturnSite};
use crate::diagnostic::{Diagnostic, Label};
use crate::sdk::Sdk;
use crate::source::{FileId, SourceMap};

/// A value a request handler returns on a cancel path.
#[derive(Debug, Clone)]
pub struct HandlerReturn<'a> {
    pub file: FileId,
    pub function: &'a FunctionFacts,
    pub value: &'a ReturnSite,
    pub origin: &'a CancelOrigin,
}

/// Values that request handlers return on a cancel path (shape B).
pub fn find<'a>(graph: &CrateGraph<'a>) -> Vec<HandlerReturn<'a>> {
    let mut found = Vec::new();
    // The request handlers of each file (see `handlers`), by their items' spans.
    let handlers: Vec<Vec<crate::source::ByteSpan>> = graph
        .files()
        .iter()
        .map(|(_, facts)| super::handlers::handlers(facts))
        .collect();
    for f in graph.all_functions() {
        let facts = graph.function(f);
        if !handlers[f.file].contains(&facts.item_span) {
            continue;
        }
        for value in &facts.cancel_returns {
            if let Some(origin) = graph.effective_origin(f.file, &value.origins) {
                found.push(HandlerReturn {
                    file: graph.file_id(f),
                    function: facts,
                    value,
                    origin,
                });
            }
        }
    }
    found
}

/// Shape B: a request handler's value on a cancel path becomes the response.
pub fn diagnostic(found: &HandlerReturn<'_>, sdk: &Sdk, sources: &SourceMap) -> Diagnostic {
    let what = sources
        .get(found.file)
        .map(|s| short(s.snippet(found.value.span)))
        .unwrap_or_else(|| found.value.what.clone());
    Diagnostic {
        code: META.code,
        name: META.name,
        severity: META.default_severity,
        message: format!(
            "{what} becomes the response to a cancelled request: `{}` is a request handler and {sdk} sends what it returns",
            found.function.name
        ),
        file: found.file,
        span: found.value.span,
        labels: vec![
            Label {
                file: found.file,
                span: found.origin.span,
                message: found.origin.label.clone(),
            },
            Label {
                file: found.file,
                span: found.function.name_span,
                message: format!("`{}` is a request handler: what it returns is sent as the response", found.function.name),
            },
        ],
        notes: vec![
            format!("{} (assumed from {})", sdk.explanation(), sdk.source),
            SPEC_MUST_NOT.to_string(),
            SPEC_SHOULD_NOT.to_string(),
        ],
        help: Some(sdk.help()),
        fix: None,
        context: None,
    }
}
