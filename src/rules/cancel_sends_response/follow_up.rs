//! MCP001's follow-up waves (see [`crate::prefilter`]): what the parsed files say must be looked
//! for in the files the pre-filter skipped, so that a cancel path is followed into the functions
//! it calls, the registries it retires requests from, and the constants that name the
//! cancellation.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::analysis::facts::{Callee, FileFacts, FunctionFacts, OriginCondition, ReceiverType};
use crate::analysis::vocabulary::{Vocabulary, COMMON_METHODS};
use crate::prefilter::{COMPANION, STANDALONE};

/// How many calls deep the follow-up waves look for the functions a cancel path calls.
pub const MAX_CHAIN_DEPTH: usize = 2;

/// The name of a callee worth looking for: a function of the crate could answer to it. Tuple
/// struct and variant constructors, and the names std gives everything (`new`, `clone`, `get`,
/// ...), are not.
fn callee_name(callee: &Callee) -> Option<&str> {
    let (name, free_function) = match callee {
        // `finish(..)`, `crate::responder::finish(..)`: a free function, the crate's own or
        // imported, whatever its name; `Type::finish(..)` may be std's.
        Callee::Path(segments) => {
            let qualifier = segments.len().checked_sub(2).and_then(|i| segments.get(i));
            let free = qualifier.is_none_or(|q| !q.starts_with(|c: char| c.is_ascii_uppercase()));
            (segments.last().map(String::as_str)?, free)
        }
        Callee::Method { name, .. } => (name.as_str(), false),
    };
    let lowercase = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    (lowercase && (free_function || !COMMON_METHODS.contains(&name))).then_some(name)
}

/// Whether a site lies on a cancel path as far as the parsed files tell: an origin that always
/// holds, or a constant known (or named) to hold the cancellation method.
fn on_cancel_path(file: &FileFacts, origins: &[usize], cancel_consts: &HashSet<&str>) -> bool {
    origins
        .iter()
        .filter_map(|id| file.origins.get(*id))
        .any(|origin| match &origin.condition {
            OriginCondition::Always => true,
            OriginCondition::ConstNamed(name) => {
                cancel_consts.contains(name.as_str()) || super::words::is_cancel_const_name(name)
            }
            // Whether the crate's flags mean a cancellation is known only over all its files:
            // look further, as if it did.
            OriginCondition::FlagSet | OriginCondition::SignalSent => true,
            // Whether the hook's callers are on cancel paths is known only over all the files.
            OriginCondition::CalledOnPath => true,
        })
}

/// What the parsed files say MCP001 must look for in the skipped ones: definitions (`fn name`)
/// of the functions cancel paths call (a few calls deep through the functions so found), the
/// code that registers requests in the in-flight registries cancel paths retire requests from,
/// and constants holding the cancellation method.
pub fn needles(facts: &[&FileFacts], vocabulary: &Vocabulary) -> BTreeSet<String> {
    let mut needles = BTreeSet::new();
    let (cancel_consts, field_types) = cancel_consts_and_fields(facts.iter().copied(), vocabulary);
    needles.extend(cancel_consts.iter().map(|name| name.to_string()));
    let mut chain = cancel_path_callees(facts.iter().copied(), &cancel_consts, &field_types);
    // A flag set on a cancel path is tested where the work runs, maybe in a file without any
    // word of cancellation: the files that test atomic flags.
    let sets_flags = facts.iter().any(|file| {
        file.flag_sets
            .iter()
            .any(|origins| on_cancel_path(file, origins, &cancel_consts))
    });
    if sets_flags {
        needles.insert(".load(".to_string());
    }
    // A hook known only by its own name (`cancel(&self)`) is a cancel path as its callers show:
    // the files that call a method of its name, whatever words they hold.
    let mut own_name_hooks = BTreeSet::new();
    for file in facts {
        for function in &file.functions {
            if super::paths::own_name_hook(file, function).is_some() {
                needles.insert(format!("{STANDALONE}.{}(", function.name));
                own_name_hooks.insert(function.name.as_str());
            }
        }
    }
    // A call of such a method on a field of a typed value (`state.waiter.cancel(..)`) reaches
    // it through the struct's definition: the file that defines the value's type.
    for file in facts.iter().filter(|_| !own_name_hooks.is_empty()) {
        for call in file.functions.iter().flat_map(|f| &f.calls) {
            if let Callee::Method {
                name,
                receiver: Some(receiver @ ReceiverType::FieldOf(..)),
                ..
            } = &call.callee
            {
                if let Some(ty) = own_name_hooks
                    .contains(name.as_str())
                    .then(|| innermost_type(receiver))
                    .flatten()
                {
                    needles.insert(format!("{STANDALONE}struct {ty}"));
                }
            }
        }
    }
    for file in facts.iter().filter(|f| f.mentions_mcp) {
        for removal in &file.registry_removals {
            // The code that registers requests in it (and may answer them).
            needles.insert(format!("{}{COMPANION}insert(", removal.collection));
        }
    }
    follow_chain(facts.iter().copied(), &mut chain, &field_types);
    // A cancel path's send may end in a write to the process's stdout through a method of a
    // value whose type the parsed files do not give (`server.out.emit_error(..)`, the struct in
    // a file read only for its modules, or the crate's only words of MCP in a file not read
    // yet): when a parsed file has a cancel path, the files that write to stdout, whatever
    // words they hold (MCP002's words, which parse them when that rule runs).
    if !chain.is_empty() || facts.iter().any(|f| !f.origins.is_empty()) {
        needles.extend(crate::prefilter::standalone(
            crate::rules::stdio::STDOUT_WRITERS,
        ));
    }
    // Standalone: a function on the chain is parsed whatever words its file holds (a helper
    // that only passes the request on to the one that sends holds no send word), so that no
    // file a finding's chain passes through is skipped.
    for (name, ty) in chain {
        let companion = ty.map(|t| format!("{COMPANION}{t}")).unwrap_or_default();
        needles.insert(format!("{STANDALONE}fn {name}({companion}"));
        needles.insert(format!("{STANDALONE}fn {name}<{companion}"));
    }
    needles
}

/// The named type a chain of fields starts from (`State` for `state.waiter` with `state:
/// &State`).
fn innermost_type(receiver: &ReceiverType) -> Option<&str> {
    match receiver {
        ReceiverType::Named(ty) => Some(ty),
        ReceiverType::FieldOf(base, _) => innermost_type(base),
        _ => None,
    }
}

/// A called function as the follow-up waves look for it: its name, and the type it belongs to
/// when the call shows it.
type CalleeKey = (String, Option<String>);

/// The types of the parsed structs' fields, by (struct, field).
type FieldTypes<'a> = HashMap<(&'a str, &'a str), &'a str>;

/// The constants that hold the cancellation method, and the types of the structs' fields.
fn cancel_consts_and_fields<'a>(
    facts: impl Iterator<Item = &'a FileFacts>,
    vocabulary: &Vocabulary,
) -> (HashSet<&'a str>, FieldTypes<'a>) {
    let mut cancel_consts = HashSet::new();
    let mut field_types = HashMap::new();
    for file in facts {
        for (name, value) in &file.string_consts {
            if vocabulary.is_cancel_method(value) {
                cancel_consts.insert(name.as_str());
            }
        }
        for (owner, field, ty) in &file.struct_fields {
            field_types.insert((owner.as_str(), field.as_str()), ty.as_str());
        }
    }
    (cancel_consts, field_types)
}

/// The type of a method's receiver, as far as the parsed structs' fields tell (`state.waiter`
/// with `state: &State` is `State`'s `waiter` field's type).
fn receiver_type(
    receiver: &ReceiverType,
    caller: &FunctionFacts,
    field_types: &FieldTypes<'_>,
) -> Option<String> {
    match receiver {
        ReceiverType::Named(ty) => Some(ty.clone()),
        ReceiverType::SelfField(field) => caller
            .self_ty
            .as_deref()
            .and_then(|owner| field_types.get(&(owner, field.as_str())))
            .map(|t| t.to_string()),
        ReceiverType::FieldOf(base, field) => {
            let owner = receiver_type(base, caller, field_types)?;
            field_types
                .get(&(owner.as_str(), field.as_str()))
                .map(|t| t.to_string())
        }
        ReceiverType::Returned(_) => None,
    }
}

/// A called function worth a search, keyed by its name and, when the call shows it, its type.
fn callee_key(
    callee: &Callee,
    caller: &FunctionFacts,
    field_types: &FieldTypes<'_>,
) -> Option<CalleeKey> {
    let name = callee_name(callee)?.to_string();
    let ty = match callee {
        Callee::Path(segments) if segments.len() >= 2 => {
            let qualifier = &segments[segments.len() - 2];
            if qualifier == "Self" {
                caller.self_ty.clone()
            } else if qualifier.starts_with(|c: char| c.is_ascii_uppercase()) {
                Some(qualifier.clone())
            } else {
                None
            }
        }
        Callee::Method {
            receiver: Some(receiver @ (ReceiverType::Named(_) | ReceiverType::SelfField(_))),
            ..
        } => receiver_type(receiver, caller, field_types),
        // `server.out.emit_error(..)` with `server: &Server`: the type the parsed struct gives
        // the field (the transport that may write the response), when the parsed files show it.
        Callee::Method {
            receiver: Some(receiver @ ReceiverType::FieldOf(..)),
            ..
        } => Some(receiver_type(receiver, caller, field_types)?),
        Callee::Method { on_self: true, .. } => caller.self_ty.clone(),
        // A method on a value of unknown type resolves only to a method whose name is
        // unique in the crate: not worth a search through every file.
        Callee::Method { .. } => return None,
        _ => None,
    };
    Some((name, ty))
}

/// The functions that cancel paths call, directly or as the response a send returns, in code
/// that speaks MCP.
fn cancel_path_callees<'a>(
    facts: impl Iterator<Item = &'a FileFacts> + Clone,
    cancel_consts: &HashSet<&str>,
    field_types: &FieldTypes<'_>,
) -> HashSet<CalleeKey> {
    let mut chain = HashSet::new();
    // Cancel paths are followed into other files once the code parsed speaks MCP somewhere (a
    // runtime's own task cancellation in a crate that does not is not), whatever words the
    // cancel path's own file holds: a hook in a file without them is still a hook.
    if !facts.clone().any(|f| f.mentions_mcp) {
        return chain;
    }
    for file in facts {
        for function in &file.functions {
            // A cancel hook is a cancel path from its first line to its last.
            let hook = function
                .hook
                .is_some_and(|id| on_cancel_path(file, &[id], cancel_consts));
            for call in function
                .calls
                .iter()
                .filter(|c| hook || on_cancel_path(file, &c.origins, cancel_consts))
            {
                chain.extend(callee_key(&call.callee, function, field_types));
            }
            for sink in function
                .sinks
                .iter()
                .filter(|s| hook || on_cancel_path(file, &s.origins, cancel_consts))
            {
                chain.extend(
                    sink.if_returns_response
                        .iter()
                        .chain(sink.through.as_ref().map(|(callee, _)| callee))
                        .filter_map(|c| callee_key(c, function, field_types)),
                );
            }
        }
    }
    chain
}

/// Follow the chain a few calls deep: a send further away from the cancel path than that is
/// reported only when the files in between were parsed for another reason.
fn follow_chain<'a>(
    facts: impl Iterator<Item = &'a FileFacts> + Clone,
    chain: &mut HashSet<CalleeKey>,
    field_types: &FieldTypes<'_>,
) {
    let mut frontier: HashSet<String> = chain.iter().map(|(name, _)| name.clone()).collect();
    for _ in 1..MAX_CHAIN_DEPTH {
        let mut found: HashSet<CalleeKey> = HashSet::new();
        for file in facts.clone() {
            for function in file.functions.iter().filter(|f| frontier.contains(&f.name)) {
                found.extend(callees(function, field_types));
            }
        }
        found.retain(|k| !chain.contains(k));
        if found.is_empty() {
            break;
        }
        frontier = found.iter().map(|(name, _)| name.clone()).collect();
        chain.extend(found);
    }
}

/// Every function a function calls, or returns the response of, that is worth a search.
fn callees<'f>(
    function: &'f FunctionFacts,
    field_types: &'f FieldTypes<'_>,
) -> impl Iterator<Item = CalleeKey> + 'f {
    let key = move |c: &Callee| callee_key(c, function, field_types);
    function
        .calls
        .iter()
        .filter_map(move |c| key(&c.callee))
        .chain(function.returns_calls.iter().filter_map(key))
        .chain(
            function
                .sinks
                .iter()
                .flat_map(|sink| {
                    sink.if_returns_response
                        .iter()
                        .chain(sink.through.as_ref().map(|(callee, _)| callee))
                })
                .filter_map(key),
        )
}
