//! MCP001 shape C: the crate removes requests from an in-flight registry when they are
//! cancelled, and elsewhere writes a response without checking that the request is still in it.

use super::{META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::{CancelOrigin, FunctionFacts, RegistryRemoval, SinkKind, SinkSite};
use crate::diagnostic::{Diagnostic, Label};
use crate::source::FileId;

/// A response write not guarded against the request's cancellation.
#[derive(Debug, Clone)]
pub struct MissingGuard<'a> {
    pub file: FileId,
    pub function: &'a FunctionFacts,
    pub sink: &'a SinkSite,
    /// The in-flight registry's name.
    pub registry: &'a str,
    pub removal_file: FileId,
    /// Where the cancel path removes the request from it.
    pub removal: &'a RegistryRemoval,
    pub origin: &'a CancelOrigin,
}

/// Whether a send goes into a channel that the crate drains in a function that itself deals
/// with the registry: a hand-off to a writer that can check, not a write to the wire.
fn is_registry_aware_channel(
    graph: &CrateGraph<'_>,
    channel: Option<&str>,
    registry: &str,
) -> bool {
    let Some(channel) = channel else {
        return false;
    };
    graph.all_functions().any(|f| {
        let facts = graph.function(f);
        facts.drains.iter().any(|d| d == channel) && facts.registries.iter().any(|r| r == registry)
    })
}

/// Response writes that a cancellation can precede without a guard (shape C): the crate
/// removes requests from an in-flight registry on cancellation, and elsewhere writes a
/// response on a path that touched that registry without making the write depend on the
/// request still being in it.
pub fn find<'a>(graph: &CrateGraph<'a>) -> Vec<MissingGuard<'a>> {
    // Registries that cancel paths remove requests from, with whether the cancel path also
    // aborts the request's task.
    let mut registries: Vec<(&'a str, FileId, &'a RegistryRemoval, &'a CancelOrigin, bool)> =
        Vec::new();
    for (index, (file, facts)) in graph.files().iter().enumerate() {
        for removal in &facts.registry_removals {
            let Some(origin) = graph.effective_origin(index, &removal.origins) else {
                continue;
            };
            let aborts = facts.cancel_aborts.iter().any(|origins| {
                graph
                    .effective_origin(index, origins)
                    .is_some_and(|o| std::ptr::eq(o, origin))
            });
            registries.push((removal.collection.as_str(), *file, removal, origin, aborts));
        }
    }
    if registries.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for f in graph.all_functions() {
        let facts = graph.function(f);
        for sink in &facts.sinks {
            if sink.kind != SinkKind::Response
                || !graph.sink_active(f, sink)
                || sink.registry.guarded
                || graph.effective_origin(f.file, &sink.origins).is_some()
            {
                continue;
            }
            let covered = |name: &str, aborts: bool| {
                sink.registry.guarded_by.iter().any(|g| g == name)
                    || (sink.registry.in_spawn && aborts)
                    || is_registry_aware_channel(graph, sink.channel.as_deref(), name)
            };
            let unguarded = registries.iter().find(|(name, _, _, _, aborts)| {
                sink.registry.touched.iter().any(|t| t == name) && !covered(name, *aborts)
            });
            if let Some((name, removal_file, removal, origin, _)) = unguarded {
                found.push(MissingGuard {
                    file: graph.file_id(f),
                    function: facts,
                    sink,
                    registry: name,
                    removal_file: *removal_file,
                    removal,
                    origin,
                });
            }
        }
    }
    found
}

/// Shape C: a response write that does not check that the request is still in flight.
pub fn diagnostic(found: &MissingGuard<'_>) -> Diagnostic {
    Diagnostic {
        code: META.code,
        name: META.name,
        severity: META.default_severity,
        message: format!(
            "{} writes a response without checking that the request was not cancelled meanwhile",
            found.sink.what
        ),
        file: found.file,
        span: found.sink.span,
        labels: vec![
            Label {
                file: found.removal_file,
                span: found.origin.span,
                message: found.origin.label.clone(),
            },
            Label {
                file: found.removal_file,
                span: found.removal.span,
                message: format!("on cancellation the request is removed from `{}` here", found.registry),
            },
        ],
        notes: vec![
            format!(
                "`{}` holds the requests in flight; a response for a request no longer in it was cancelled",
                found.registry
            ),
            SPEC_MUST_NOT.to_string(),
            SPEC_SHOULD_NOT.to_string(),
        ],
        help: Some(format!(
            "write the response only for a request still in flight: `let Some(..) = {}.remove(&id) else {{ continue }};` before the write, or check `!token.is_cancelled()`",
            found.registry
        )),
        fix: None,
        context: None,
    }
}
