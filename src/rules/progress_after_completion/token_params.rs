//! MCP005's made-up tokens handed to a helper: a function of the crate that makes one of its
//! parameters the token of a progress notification it sends (`fn send_progress(&self, token:
//! &str, ..)` building `"progressToken": token`), to a fixed point through the functions that
//! hand it their own parameters; a call that hands such a parameter text made up at the call
//! (`self.send_progress("indexing", ..)`) makes up the token, whatever the helper is called.

use std::collections::{HashMap, HashSet};

use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{CallSite, Callee};
use crate::source::{ByteSpan, FileId};

use super::facts::{FRESH_TEXT, MADE_UP_ARGUMENTS, TOKEN_PARAMS};

/// The made-up tokens handed to token parameters by the graph's own files outside test code:
/// (file, the argument's span, the helper's name and file).
pub fn made_up_arguments(
    graph: &CrateGraph<'_>,
    is_test_file: &dyn Fn(FileId) -> bool,
) -> Vec<(FileId, ByteSpan, String, FileId)> {
    let masks = token_masks(graph);
    if masks.is_empty() {
        return Vec::new();
    }
    let fresh_text = fresh_text_functions(graph);
    let mut out = Vec::new();
    for (index, (file, facts)) in graph.files().iter().enumerate() {
        if is_test_file(*file) || !graph.own_functions().any(|f| f.file == index) {
            continue;
        }
        for call in facts.rules.get(&MADE_UP_ARGUMENTS) {
            let Some(function) = facts
                .functions
                .iter()
                .position(|f| f.name_span == call.caller && !f.in_test)
            else {
                continue;
            };
            let caller = FunctionRef {
                file: index,
                function,
            };
            // Arguments made up by a function of the crate (`&next_progress_token()`).
            let made_by_call = call.fresh.iter().filter(|(_, _, maker)| {
                let targets = graph.call_targets(caller, &CallSite::to(maker.clone()));
                !targets.is_empty() && targets.iter().all(|t| fresh_text.contains(t))
            });
            let args: Vec<(u8, ByteSpan)> = call
                .args
                .iter()
                .copied()
                .chain(made_by_call.map(|(position, span, _)| (*position, *span)))
                .collect();
            let site = CallSite::to(call.callee.clone());
            for g in graph.call_targets(caller, &site).iter() {
                let mask = argument_mask(graph, &site, *g, masks.get(g).copied().unwrap_or(0));
                for (position, span) in &args {
                    if mask & (1u64 << position) != 0 {
                        let helper = graph.function(*g).name.clone();
                        out.push((*file, *span, helper, graph.file_id(*g)));
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The token parameters of every function of the graph: the ones the walk saw, then those
/// handed on to them, to a fixed point.
fn token_masks(graph: &CrateGraph<'_>) -> HashMap<FunctionRef, u64> {
    let mut masks: HashMap<FunctionRef, u64> = HashMap::new();
    for (index, (_, facts)) in graph.files().iter().enumerate() {
        for seen in facts.rules.get(&TOKEN_PARAMS) {
            let found = facts
                .functions
                .iter()
                .position(|f| f.name_span == seen.name_span);
            if let Some(function) = found {
                masks.insert(
                    FunctionRef {
                        file: index,
                        function,
                    },
                    seen.params,
                );
            }
        }
    }
    if masks.is_empty() {
        return masks;
    }
    let functions: Vec<FunctionRef> = graph.all_functions().collect();
    // Each round adds at least one bit to some mask, or stops: at most 64 per function.
    for _ in 0..functions.len().saturating_mul(64).max(1) {
        let mut grew = false;
        for &f in &functions {
            let mut mask = masks.get(&f).copied().unwrap_or(0);
            for call in graph
                .function(f)
                .calls
                .iter()
                .filter(|c| !c.arg_params.is_empty())
            {
                for g in graph.call_targets(f, call).iter() {
                    let handed = argument_mask(graph, call, *g, masks.get(g).copied().unwrap_or(0));
                    for (position, params) in call.arg_params.iter().enumerate().take(64) {
                        if handed & (1u64 << position) != 0 {
                            mask |= params;
                        }
                    }
                }
            }
            if mask != masks.get(&f).copied().unwrap_or(0) {
                masks.insert(f, mask);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    masks
}

/// The arguments of `call` (a mask of their positions) that reach `g`'s parameters in
/// `params`: a method called by path (`Type::m(&x, v)`) takes its receiver first.
fn argument_mask(graph: &CrateGraph<'_>, call: &CallSite, g: FunctionRef, params: u64) -> u64 {
    match call.callee {
        Callee::Path(_) if graph.function(g).has_receiver => params << 1,
        _ => params,
    }
}

/// The functions of the graph that make up fresh text of their own ([`FRESH_TEXT`]).
fn fresh_text_functions(graph: &CrateGraph<'_>) -> HashSet<FunctionRef> {
    let mut found = HashSet::new();
    for (index, (_, facts)) in graph.files().iter().enumerate() {
        for name_span in facts.rules.get(&FRESH_TEXT) {
            if let Some(function) = facts
                .functions
                .iter()
                .position(|f| f.name_span == name_span)
            {
                found.insert(FunctionRef {
                    file: index,
                    function,
                });
            }
        }
    }
    found
}
