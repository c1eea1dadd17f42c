//! Where a `"ping"` literal can answer no `ping` request: code that only messages of other
//! methods reach. A method dispatcher's arm that lists methods other than `ping` (its
//! `"tools/call"` arm) runs only for those methods, and so does a function that only such arms
//! call, directly or through other such functions: a `"ping"` there names something else (a
//! tool called `ping`, the descriptor `tools/list` lists, a filter over the listed tools' names).
//! First contact: batch 110's github-mcp, whose only `ping` is a tool.
//!
//! Everything not shown to be confined is not: a function that is a root (a method, `main`, one
//! named otherwise than by a call, an exported one), one called from anywhere else (any call of
//! its simple name counts), or one nothing calls.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use crate::analysis::dispatch::MethodArm;
use crate::analysis::facts::{Callee, FileFacts, FunctionFacts};
use crate::prefilter::STANDALONE;
use crate::rules::contract::RuleContext;
use crate::source::ByteSpan;

/// How many callers deep a function's confinement is followed.
const DEPTH: usize = 8;

/// The confining arms of the unit's method dispatchers, by file (the index in the graph's
/// files), and what has been decided of each function so far.
pub(super) struct Confinement<'a> {
    context: &'a RuleContext<'a>,
    arms: Vec<Vec<ByteSpan>>,
    /// Per simple name, the calls of it in the unit: the file's index, the call's span.
    calls: HashMap<&'a str, Vec<(usize, ByteSpan)>>,
    decided: std::cell::RefCell<HashMap<(usize, ByteSpan), bool>>,
}

impl<'a> Confinement<'a> {
    pub(super) fn of(context: &'a RuleContext<'a>) -> Self {
        let files = context.graph.files();
        let arms = files
            .iter()
            .map(|(file, facts)| {
                if context.is_test_file(*file) {
                    return Vec::new();
                }
                facts
                    .dispatch
                    .dispatchers
                    .iter()
                    .filter(|d| context.is_method_dispatcher(d))
                    .flat_map(|d| &d.arms)
                    .filter(|arm| lists_only_other_methods(context, arm))
                    .map(|arm| arm.body)
                    .collect()
            })
            .collect();
        let mut calls: HashMap<&str, Vec<(usize, ByteSpan)>> = HashMap::new();
        for (index, (_, facts)) in files.iter().enumerate() {
            for call in facts.functions.iter().flat_map(|f| &f.calls) {
                if let Callee::Path(segments) = &call.callee {
                    if let Some(name) = segments.last() {
                        calls
                            .entry(name.as_str())
                            .or_default()
                            .push((index, call.span));
                    }
                }
            }
        }
        Confinement {
            context,
            arms,
            calls,
            decided: std::cell::RefCell::new(HashMap::new()),
        }
    }

    /// Whether the code at `at` in the file at `index` runs only for messages of methods other
    /// than `ping`.
    pub(super) fn contains(&self, index: usize, at: ByteSpan) -> bool {
        self.confined(index, at, DEPTH)
    }

    fn confined(&self, index: usize, at: ByteSpan, depth: usize) -> bool {
        let in_arm = self.arms.get(index).is_some_and(|arms| {
            arms.iter()
                .any(|arm| arm.start <= at.start && at.end <= arm.end)
        });
        if in_arm {
            return true;
        }
        let Some((_, facts)) = self.context.graph.files().get(index) else {
            return false;
        };
        let Some(function) = facts.function_at(at) else {
            return false;
        };
        self.function_confined(index, function, depth)
    }

    fn function_confined(&self, index: usize, function: &FunctionFacts, depth: usize) -> bool {
        let key = (index, function.item_span);
        if let Some(known) = self.decided.borrow().get(&key) {
            return *known;
        }
        // Undecided while its callers are asked: a cycle confines nothing.
        self.decided.borrow_mut().insert(key, false);
        let callers = self.calls.get(function.name.as_str());
        let confined = depth > 0
            && function.self_ty.is_none()
            && function.trait_name.is_none()
            && !function.in_test
            && !super::reachable::root_in(self.context.graph, function)
            && callers.is_some_and(|calls| {
                !calls.is_empty()
                    && calls
                        .iter()
                        .all(|&(at_file, span)| self.confined(at_file, span, depth - 1))
            });
        self.decided.borrow_mut().insert(key, confined);
        confined
    }
}

/// Whether an arm lists methods, every one of them known, and `ping` is not among them: a
/// constant or a variant whose method the unit does not show may be `ping`.
fn lists_only_other_methods(context: &RuleContext<'_>, arm: &MethodArm) -> bool {
    let constants: Option<Vec<&str>> = arm
        .constants
        .iter()
        .map(|c| context.string_const(c))
        .collect();
    let variants: Option<Vec<&str>> = arm
        .variants
        .iter()
        .map(|v| context.variant_method(v))
        .collect();
    let (Some(constants), Some(variants)) = (constants, variants) else {
        return false;
    };
    let mut methods = arm
        .methods
        .iter()
        .map(String::as_str)
        .chain(constants)
        .chain(variants)
        .peekable();
    methods.peek().is_some() && methods.all(|m| m != "ping")
}

/// How many of a file's `"ping"` literals may answer `ping`: not those that only pair a variant
/// with its method (`Self::Ping => "ping"`), nor those that are a request's method.
pub(super) fn ping_literals_answering(f: &FileFacts) -> u64 {
    (f.dispatch.ping_sites.len() as u64)
        .saturating_sub(u64::from(f.ping_mapping_literals))
        .saturating_sub(f.dispatch.ping_request_sites.len() as u64)
}

/// What the rule looks for in the skipped files so that every call of a function holding a
/// `"ping"` literal is seen: the files that name it, and (transitively) those that name its
/// callers, up to a function that is a root by itself.
pub(super) fn needles(facts: &[&FileFacts], needles: &mut BTreeSet<String>) {
    // Needed only where the literals read so far outnumber the dispatchers' `ping` arms (the
    // files a dispatcher's answer to `ping` is in are read for the dispatcher already).
    let literals: u64 = facts.iter().map(|f| ping_literals_answering(f)).sum();
    let arms = facts
        .iter()
        .flat_map(|f| &f.dispatch.dispatchers)
        .flat_map(|d| &d.arms)
        .flat_map(|arm| &arm.methods)
        .filter(|m| *m == "ping")
        .count() as u64;
    if literals <= arms {
        return;
    }
    let free = |f: &FunctionFacts| f.self_ty.is_none() && f.trait_name.is_none() && !f.in_test;
    let mut work: Vec<&str> = facts
        .iter()
        .flat_map(|file| {
            file.dispatch
                .ping_sites
                .iter()
                .filter_map(|&at| file.function_at(ByteSpan::new(at, at)))
        })
        .filter(|f| free(f))
        .map(|f| f.name.as_str())
        .collect();
    if work.is_empty() {
        return;
    }
    let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in facts.iter().flat_map(|f| &f.functions).filter(|f| free(f)) {
        for call in &f.calls {
            if let Callee::Path(segments) = &call.callee {
                if let Some(name) = segments.last() {
                    callers
                        .entry(name.as_str())
                        .or_default()
                        .push(f.name.as_str());
                }
            }
        }
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    while let Some(name) = work.pop() {
        if name == "main" || !seen.insert(name) || seen.len() > 64 {
            continue;
        }
        needles.insert(format!("{STANDALONE}{name}"));
        work.extend(callers.get(name).into_iter().flatten().copied());
    }
}
