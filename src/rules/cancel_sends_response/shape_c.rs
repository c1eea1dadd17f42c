//! MCP001 shape C: the crate removes requests from an in-flight registry when they are
//! cancelled, and elsewhere writes a response without checking that the request is still in it.

use super::{META, SPEC_MUST_NOT, SPEC_SHOULD_NOT};
use foldhash::{HashMap, HashMapExt, HashSet};

use super::paths::{effective_origin, CancelPaths};
use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{FunctionFacts, PathOrigin, RegistryRemoval, SinkKind, SinkSite};
use crate::diagnostic::{Diagnostic, Label};
use crate::source::FileId;

/// A response write not guarded against the request's cancellation.
#[derive(Debug, Clone)]
pub struct MissingGuard<'a> {
    pub file: FileId,
    pub function: &'a FunctionFacts,
    pub sink: &'a SinkSite,
    /// The in-flight registry's name.
    pub registry: String,
    pub removal_file: FileId,
    /// Where the cancel path removes the request from it (or looks its token up to cancel it).
    pub removal: RegistryRemoval,
    /// The cancel path cancels the request's token and leaves it in the registry.
    pub leaves_registered: bool,
    /// The write's function touched no registry itself: it runs after a caller did.
    pub through_calls: bool,
    pub origin: &'a PathOrigin,
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

/// An in-flight registry a cancel path acts on.
struct Registry<'a> {
    name: String,
    file: FileId,
    /// Where and how the cancel path acts on it.
    removal: RegistryRemoval,
    origin: &'a PathOrigin,
    /// The same cancel path aborts the request's task.
    aborts: bool,
    /// The cancel path cancels the request's token and leaves it registered.
    leaves_registered: bool,
    /// The cancel path acts on it through a helper it hands the registry to.
    through_call: bool,
}

/// Response writes that a cancellation can precede without a guard (shape C): the crate
/// removes requests from an in-flight registry on cancellation, and elsewhere writes a
/// response on a path that touched that registry without making the write depend on the
/// request still being in it.
pub fn find<'a>(graph: &CrateGraph<'a>) -> Vec<MissingGuard<'a>> {
    let mut registries = cancel_registries(graph);
    // `Self::cancel_in_flight(&self.in_flight, &id)` on a cancel path, where the helper removes
    // from the registry it is handed.
    registries.extend(removals_through_calls(graph));
    if registries.is_empty() {
        return Vec::new();
    }
    let names: HashSet<&str> = registries.iter().map(|r| r.name.as_str()).collect();
    let users = registry_users(graph);
    let inherited = inherited_registries(graph, &names, &users);
    // A write is unguarded only after its own code, a caller's or a spawned task's touched a
    // registry: the functions that use registries and those that inherit one, in source order.
    let mut candidates = users;
    candidates.extend(inherited.keys().copied());
    candidates.sort_unstable_by_key(|f| (f.file, f.function));
    candidates.dedup();
    let mut found = Vec::new();
    for f in candidates {
        let facts = graph.function(f);
        let from_callers = inherited.get(&f);
        for sink in &facts.sinks {
            if sink.kind != SinkKind::Response
                || !graph.sink_active(f, sink)
                || sink.registry.guarded
                || effective_origin(graph, f.file, &sink.origins).is_some()
            {
                continue;
            }
            let inherited_from = |name: &str| from_callers.and_then(|c| c.get(name)).copied();
            let covered = |name: &str, aborts: bool| {
                let in_spawn = sink.registry.in_spawn || inherited_from(name) == Some(true);
                sink.registry.guarded_by.iter().any(|g| g == name)
                    || (in_spawn && aborts)
                    || is_registry_aware_channel(graph, sink.channel.as_deref(), name)
            };
            let touched_here = |name: &str| sink.registry.touched.iter().any(|t| t == name);
            // `Self::register_in_flight(&self.in_flight, id)` earlier in the function: a helper
            // touched the registry it was handed. Only a write in a spawned task or thread runs
            // while the loop goes on to read (and cancel): one made before the function returns
            // to the loop cannot follow a cancellation the loop has not read yet.
            let touched_by_call = |name: &str| {
                sink.registry.in_spawn
                    && facts.calls.iter().any(|call| {
                        call.span.end <= sink.span.start
                            && effective_origin(graph, f.file, &call.origins).is_none()
                            && graph.callees(f, call).iter().any(|g| {
                                graph.function(*g).registry_params.iter().any(|(i, _)| {
                                    call.args.get(*i).and_then(|a| a.as_deref()) == Some(name)
                                })
                            })
                    })
            };
            let unguarded = registries.iter().find(|r| {
                let name = r.name.as_str();
                (touched_here(name) || inherited_from(name).is_some() || touched_by_call(name))
                    && !covered(name, r.aborts)
            });
            if let Some(registry) = unguarded {
                found.push(MissingGuard {
                    file: graph.file_id(f),
                    function: facts,
                    sink,
                    registry: registry.name.clone(),
                    removal_file: registry.file,
                    removal: registry.removal.clone(),
                    leaves_registered: registry.leaves_registered,
                    through_calls: registry.through_call || !touched_here(&registry.name),
                    origin: registry.origin,
                });
            }
        }
    }
    found
}

/// The registries cancel paths act on in the code itself: removals (`in_flight.remove(&id)`),
/// and lookups of a token the same path cancels (`in_flight.get(&id).map(|t| t.cancel())`).
fn cancel_registries<'a>(graph: &CrateGraph<'a>) -> Vec<Registry<'a>> {
    // Registries that cancel paths remove requests from, with whether the cancel path also
    // aborts the request's task.
    let mut registries: Vec<Registry<'a>> = Vec::new();
    for (index, (file, facts)) in graph.files().iter().enumerate() {
        for removal in &facts.registry_removals {
            let Some(origin) = effective_origin(graph, index, &removal.origins) else {
                continue;
            };
            let aborts = facts.path_aborts.iter().any(|origins| {
                effective_origin(graph, index, origins).is_some_and(|o| std::ptr::eq(o, origin))
            });
            registries.push(Registry {
                name: removal.collection.clone(),
                file: *file,
                removal: removal.clone(),
                origin,
                aborts,
                leaves_registered: false,
                through_call: false,
            });
        }
        // `in_flight.get(&id).map(|t| t.cancel())`: the cancellation cancels the request's
        // token and leaves it registered; a write must then check the token.
        for lookup in &facts.registry_lookups {
            let Some(origin) = effective_origin(graph, index, &lookup.origins) else {
                continue;
            };
            let same = |origins: &Vec<usize>| {
                effective_origin(graph, index, origins).is_some_and(|o| std::ptr::eq(o, origin))
            };
            if facts.path_cancels.iter().any(same) {
                let aborts = facts.path_aborts.iter().any(same);
                registries.push(Registry {
                    name: lookup.collection.clone(),
                    file: *file,
                    removal: lookup.clone(),
                    origin,
                    aborts,
                    leaves_registered: true,
                    through_call: false,
                });
            }
        }
    }
    registries
}

/// Registries removed from through a helper on a cancel path: a call with a cancel origin to a
/// function that removes from the registry it is handed (`registry_params`), the registry being
/// the call's argument at that position.
fn removals_through_calls<'a>(graph: &CrateGraph<'a>) -> Vec<Registry<'a>> {
    let mut found = Vec::new();
    for f in CancelPaths::of(graph).functions_on_cancel_paths() {
        for call in &graph.function(f).calls {
            let Some(origin) = effective_origin(graph, f.file, &call.origins) else {
                continue;
            };
            for g in graph.callees(f, call) {
                for (index, removes) in &graph.function(g).registry_params {
                    let Some(Some(collection)) = call.args.get(*index) else {
                        continue;
                    };
                    if *removes {
                        let removal = RegistryRemoval {
                            collection: collection.clone(),
                            span: call.span,
                            origins: call.origins.clone(),
                        };
                        found.push(Registry {
                            name: collection.clone(),
                            file: graph.file_id(f),
                            removal,
                            origin,
                            aborts: false,
                            leaves_registered: false,
                            through_call: true,
                        });
                    }
                }
            }
        }
    }
    found
}

/// The registries each function's code runs after, from its callers: a call made after the
/// caller touched a registry (and not guarded by it) hands the registry on to the callee, and
/// the callee to its own callees, to a fixed point. With whether some such call runs in a
/// spawned task.
fn inherited_registries<'n>(
    graph: &CrateGraph<'_>,
    names: &HashSet<&'n str>,
    users: &[FunctionRef],
) -> HashMap<FunctionRef, HashMap<&'n str, bool>> {
    let mut inherited: HashMap<FunctionRef, HashMap<&'n str, bool>> = HashMap::new();
    // A worklist: a function is looked at again only when what it inherits has grown. What
    // flows only grows (a registry is added, or becomes carried in a spawned task), so this
    // reaches the same fixed point as rounds over every function would. It starts from the
    // functions whose calls touched a registry: any other hands one on only once it inherits
    // one, and is queued then.
    let mut queue: std::collections::VecDeque<FunctionRef> = users.iter().copied().collect();
    let mut queued: HashSet<FunctionRef> = queue.iter().copied().collect();
    while let Some(f) = queue.pop_front() {
        queued.remove(&f);
        for call in &graph.function(f).calls {
            // A call on a cancel path is the cancellation's own (its sends are shape A's).
            if call.registry.guarded || effective_origin(graph, f.file, &call.origins).is_some() {
                continue;
            }
            let mut carried: Vec<(&'n str, bool)> = Vec::new();
            for &name in names {
                if call.registry.guarded_by.iter().any(|g| g == name) {
                    continue;
                }
                let own = call.registry.touched.iter().any(|t| t == name);
                let from_caller = inherited.get(&f).and_then(|c| c.get(name)).copied();
                if own || from_caller.is_some() {
                    let in_spawn = call.registry.in_spawn || from_caller == Some(true);
                    carried.push((name, in_spawn));
                }
            }
            if carried.is_empty() {
                continue;
            }
            for g in graph.callees(f, call) {
                let entry = inherited.entry(g).or_default();
                let mut grew = false;
                for &(name, in_spawn) in &carried {
                    let slot = entry.entry(name).or_insert_with(|| {
                        grew = true;
                        in_spawn
                    });
                    if in_spawn && !*slot {
                        *slot = true;
                        grew = true;
                    }
                }
                if grew && queued.insert(g) {
                    queue.push_back(g);
                }
            }
        }
    }
    inherited
}

/// The functions of the graph that use registries (see [`FunctionFacts::uses_registries`]), in
/// source order.
fn registry_users(graph: &CrateGraph<'_>) -> Vec<FunctionRef> {
    (graph.files().iter().enumerate())
        .flat_map(|(file, (_, facts))| {
            (facts.registry_users.iter()).map(move |&function| FunctionRef { file, function })
        })
        .filter(|f| f.function < graph.files()[f.file].1.functions.len())
        .collect()
}

/// Shape C: a response write that does not check that the request is still in flight.
pub fn diagnostic(found: &MissingGuard<'_>) -> Diagnostic {
    Diagnostic::new(&META, found.file, found.sink.span, format!(
            "{} writes a response without checking that the request was not cancelled meanwhile",
            found.sink.what
        )).with_labels(vec![
            Label {
                file: found.removal_file,
                span: found.origin.span,
                message: found.origin.label.clone(),
            },
            Label {
                file: found.removal_file,
                span: found.removal.span,
                message: if found.leaves_registered {
                    format!(
                        "on cancellation the request's token in `{}` is cancelled here",
                        found.registry
                    )
                } else {
                    format!(
                        "on cancellation the request is removed from `{}` here",
                        found.registry
                    )
                },
            },
        ]).with_notes(vec![
            if found.leaves_registered {
                format!(
                    "`{}` holds the tokens of the requests in flight; a request whose token is cancelled was cancelled",
                    found.registry
                )
            } else {
                format!(
                    "`{}` holds the requests in flight; a response for a request no longer in it was cancelled",
                    found.registry
                )
            },
            SPEC_MUST_NOT.to_string(),
            SPEC_SHOULD_NOT.to_string(),
        ]).with_help(if found.leaves_registered {
            format!(
                "check `!token.is_cancelled()` before the write, or remove the request from `{}` on cancellation and write only for a request still in it",
                found.registry
            )
        } else {
            format!(
                "write the response only for a request still in flight: `let Some(..) = {}.remove(&id) else {{ continue }};` before the write, or check `!token.is_cancelled()`",
                found.registry
            )
        })
}
