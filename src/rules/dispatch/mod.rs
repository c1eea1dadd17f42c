//! The dispatch family: MCP003 (`response-to-notification`) and MCP004 (`ping-not-answered`),
//! about what a hand-written JSON-RPC method dispatcher answers. What both rules share is here:
//! the words that make a file worth parsing for them, and the follow-up that looks for a
//! dispatcher's callers and callees in the skipped files. Each rule's check is a file of its
//! own, and MCP003's `id` tests are its hook ([`id_tests`]). (The dispatchers themselves are
//! found by the core's hook, `analysis::dispatch`, which also tells every rule whether a unit
//! serves MCP.)

use std::collections::BTreeSet;

use crate::analysis::dispatch::{MethodArm, MethodDispatcher};
use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::COMMON_METHODS;
use crate::prefilter::STANDALONE;
use crate::rules::contract::RuleContext;
use crate::source::FileId;

mod confined;
mod framing;
pub mod id_tests;
pub mod ping_not_answered;
mod reachable;
pub mod response_to_notification;
pub mod strict_parse;

/// Where methods are dispatched and messages answered without an id (both rules): parsed in a
/// run that speaks MCP. The dispatcher needles are arms as rustfmt writes them (`"ping" =>`),
/// not the bare method names, which SDKs' models and tests hold in hundreds of files; a null-`id`
/// answer built from `Value::Null` or `id: None` is found in the files parsed for other reasons
/// (a hand-written server's dispatcher file, its transport).
pub const DISPATCH_WORDS: &[&str] = &[
    "\"initialize\" =>",
    "\"tools/list\" =>",
    "\"tools/call\" =>",
    "\"ping\" =>",
    "\"notifications/initialized\" =>",
    // Arms of a `match` on a tuple (`match (method, id) { ("initialize", _) => .. }`).
    "(\"initialize\",",
    "(\"tools/list\",",
    "(\"tools/call\",",
    "(\"ping\",",
    "== \"initialize\"",
    "== \"tools/",
    "== \"ping\"",
    "starts_with(\"notifications",
    "\"id\": null",
    "\"id\":null",
    // `const INITIALIZE: &str = "initialize";`: the constants a dispatcher may name methods by.
    "= \"initialize\";",
    // `#[serde(rename = "initialize")] Initialize(..)`: the variants a dispatcher over typed
    // requests may name methods by.
    "rename = \"initialize\"",
];

/// The methods whose arms [`dispatch_words`] also finds as code aligned by hand writes them.
const ARM_METHODS: &[&str] = &[
    "initialize",
    "tools/list",
    "tools/call",
    "ping",
    "notifications/initialized",
];

/// [`DISPATCH_WORDS`], and the arms of [`ARM_METHODS`] as code that rustfmt has not formatted
/// writes them: no space before `=>`, a tab, or a run of spaces that aligns the arms
/// (`"initialize"  => handle_initialize(req),`: first contact, batch 60's ragpilot, whose
/// dispatcher file was parsed only in preview mode, for another rule's words).
pub fn dispatch_words() -> &'static [&'static str] {
    static WORDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let gaps: Vec<String> = [String::new(), " ".to_string(), "\t".to_string()]
            .into_iter()
            .chain((2..=24).map(|n| " ".repeat(n)))
            .collect();
        // Also the arms of a `match` on an `Option` (`Some("initialize") => ..`): the fixture
        // `mcp003/id_like_value_read_from_the_raw_line_by_a_helper.rs` was parsed only in
        // preview mode, for another rule's words, or by default with a comment's words.
        let aligned = ARM_METHODS.iter().flat_map(|method| {
            gaps.iter().flat_map(move |gap| {
                ["", ")"].map(|close| {
                    let word: &'static str =
                        Box::leak(format!("\"{method}\"{close}{gap}=>").into_boxed_str());
                    word
                })
            })
        });
        DISPATCH_WORDS.iter().copied().chain(aligned).collect()
    });
    &WORDS
}

/// Whether a name may be one of the crate's own functions: not a constructor, nor a name std
/// gives everything.
fn own_function(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && !COMMON_METHODS.contains(&name)
}

/// A dispatcher whose catch-all answers method-not-found, or whose notification arms answer:
/// its callers and the functions its catch-all and notification arms call, where the message's
/// `id` may be tested.
/// Only names of the crate's own functions are worth a search.
fn one_dispatcher(dispatcher: &MethodDispatcher, needles: &mut BTreeSet<String>) {
    let catch_all = (dispatcher.catch_all.as_ref())
        .filter(|c| c.method_not_found || c.err_method_not_found || c.err_variant.is_some());
    // `_ => Err(McpError::InvalidMethod(m))`: the `match` that turns the variant into a code,
    // wherever the crate writes it (`McpError::InvalidMethod(m) => .. -32601`, or
    // `Self::InvalidMethod` in the error's own impl).
    if let Some(variant) = catch_all.and_then(|c| c.err_variant.as_deref()) {
        needles.insert(format!("{STANDALONE}{variant}"));
        if let Some((_, name)) = variant.rsplit_once("::") {
            needles.insert(format!("{STANDALONE}Self::{name}"));
        }
    }
    // `method => handle_unknown_method(id, method)`: whether the catch-all refuses is what the
    // function it calls builds, wherever the crate defines it.
    for callee in (dispatcher.catch_all.iter())
        .flat_map(|c| &c.calls)
        .filter(|name| own_function(name))
    {
        needles.insert(format!("{STANDALONE}fn {callee}("));
        needles.insert(format!("{STANDALONE}fn {callee}<"));
    }
    let answers_notification = dispatcher.arms.iter().any(|a| {
        a.responds.is_some()
            && a.methods
                .iter()
                .any(|m| crate::analysis::dispatch::is_notification_method(m))
    });
    if catch_all.is_none() && !answers_notification {
        return;
    }
    if let Some((name, _)) = dispatcher
        .function
        .as_ref()
        .filter(|(n, _)| own_function(n))
    {
        needles.insert(format!("{STANDALONE}{name}("));
    }
    // The request type the dispatcher reads the method from, wherever the crate defines it:
    // whether its `id` is optional decides whether notifications reach the arms.
    let subject_param = dispatcher.subject.as_ref().and_then(|subject| {
        dispatcher
            .params
            .iter()
            .find(|(name, _)| name == subject)
            .map(|(_, ty)| ty)
    });
    if let Some(ty) = dispatcher.subject_type.as_ref().or(subject_param) {
        if ty.starts_with(|c: char| c.is_ascii_uppercase()) {
            needles.insert(format!("{STANDALONE}struct {ty} "));
            needles.insert(format!("{STANDALONE}struct {ty}<"));
        }
    }
    let notification_arms = dispatcher.arms.iter().filter(|a| {
        a.responds.is_some()
            && a.methods
                .iter()
                .any(|m| crate::analysis::dispatch::is_notification_method(m))
    });
    let callees = catch_all
        .into_iter()
        .flat_map(|c| &c.calls)
        .chain(notification_arms.flat_map(|a| &a.calls))
        .filter(|name| own_function(name));
    for callee in callees {
        needles.insert(format!("{STANDALONE}fn {callee}("));
        needles.insert(format!("{STANDALONE}fn {callee}<"));
    }
}

/// What the family looks for in the skipped files: the callers of the dispatchers whose
/// catch-all answers method-not-found, and the functions their catch-all and notification arms
/// call, where the message's `id` may be tested.
pub fn dispatcher_needles(facts: &[&FileFacts]) -> BTreeSet<String> {
    let mut needles = BTreeSet::new();
    for file in facts {
        for dispatcher in &file.dispatch.dispatchers {
            one_dispatcher(dispatcher, &mut needles);
        }
    }
    // `methods::INITIALIZE =>`: dispatchers that name methods by the constants parsed files
    // declare.
    for (name, value) in facts.iter().flat_map(|f| &f.string_consts) {
        if crate::analysis::dispatch::is_mcp_method(value) {
            needles.insert(format!("{STANDALONE}{name} =>"));
        }
    }
    // `ClientRequest::Initialize(p) =>`: dispatchers over the variants parsed files read
    // methods into.
    for (variant, method) in facts.iter().flat_map(|f| &f.method_variants) {
        if method == "initialize" || method.starts_with("tools/") {
            needles.insert(format!("{STANDALONE}{variant}"));
        }
    }
    // Whether a dispatcher's function runs at all (see `in_dead_code`): every file that may
    // name it or its callers, and every module's visibility.
    reachable::needles(facts, &mut needles);
    // The callers of a dispatcher may test the id through a function of their own
    // (`let is_note = req.is_notification(); server.handle(req)`): the functions they call.
    let dispatching: std::collections::HashSet<&str, foldhash::fast::RandomState> = facts
        .iter()
        .flat_map(|f| &f.dispatch.dispatchers)
        .filter_map(|d| d.function.as_ref().map(|(name, _)| name.as_str()))
        .filter(|name| own_function(name))
        .collect();
    if dispatching.is_empty() {
        return needles;
    }
    for function in facts.iter().flat_map(|f| &f.functions) {
        if !function
            .calls
            .iter()
            .any(|c| dispatching.contains(c.name()))
        {
            continue;
        }
        for callee in function
            .calls
            .iter()
            .map(|c| c.name())
            .filter(|n| own_function(n))
        {
            needles.insert(format!("{STANDALONE}fn {callee}("));
            needles.insert(format!("{STANDALONE}fn {callee}<"));
        }
    }
    needles
}

/// What the unit's files (`files`) say about the errors dispatchers return to their callers.
struct UnitErrs<'u, 'f>(&'u [(crate::source::FileId, &'f FileFacts)]);

impl crate::analysis::dispatchers::UnitErrors for UnitErrs<'_, '_> {
    fn err_answered(&self, function: &str) -> bool {
        self.0.iter().any(|(_, facts)| {
            facts
                .dispatch
                .err_answered
                .binary_search_by(|n| n.as_str().cmp(function))
                .is_ok()
        })
    }

    fn builds_method_not_found(&self, function: &str) -> bool {
        self.0.iter().any(|(_, facts)| {
            facts
                .dispatch
                .not_found_builders
                .binary_search_by(|n| n.as_str().cmp(function))
                .is_ok()
        })
    }

    fn means_method_not_found(&self, variant: &str) -> bool {
        self.0.iter().any(|(_, facts)| {
            facts
                .not_found_variants
                .binary_search_by(|n| n.as_str().cmp(variant))
                .is_ok()
        })
    }
}

/// Whether an arm of the dispatcher lists a method `wanted` takes: by literal, by a constant
/// holding it, or by a variant the unit reads it into.
pub(super) fn lists(
    context: &RuleContext<'_>,
    dispatcher: &MethodDispatcher,
    wanted: &dyn Fn(&str) -> bool,
) -> bool {
    dispatcher.arms.iter().any(|arm| {
        arm.methods.iter().any(|m| wanted(m))
            || arm
                .constants
                .iter()
                .filter_map(|c| context.string_const(c))
                .any(wanted)
            || arm
                .variants
                .iter()
                .filter_map(|v| context.variant_method(v))
                .any(wanted)
    })
}

/// Whether an arm lists `method`, by literal or by a constant holding it.
pub(super) fn arm_lists(context: &RuleContext<'_>, arm: &MethodArm, method: &str) -> bool {
    arm.methods.iter().any(|m| m == method)
        || arm
            .constants
            .iter()
            .any(|c| context.string_const(c) == Some(method))
        || arm
            .variants
            .iter()
            .any(|v| context.variant_method(v) == Some(method))
}

/// The dispatchers of the unit whose catch-all calls `dispatcher`'s function (`_ =>
/// handle_other(request).await`), with their files.
pub(super) fn fronts<'c>(
    context: &'c RuleContext<'_>,
    dispatcher: &'c MethodDispatcher,
) -> impl Iterator<Item = (FileId, &'c MethodDispatcher)> + 'c {
    let name = dispatcher.function.as_ref().map(|(name, _)| name.as_str());
    context.graph.files().iter().flat_map(move |(file, facts)| {
        facts.dispatch.dispatchers.iter().filter_map(move |front| {
            let calls = front.catch_all.as_ref()?.calls.iter();
            calls
                .clone()
                .any(|call| Some(call.as_str()) == name)
                .then_some((*file, front))
        })
    })
}

/// The dispatchers the methods reach before `dispatcher`: those of the same function before it
/// whose catch-all does nothing (`_ => {}`), so the methods they do not list fall through to it
/// (`match method { "initialize" => return .., _ => {} }` and then `match method { "tools/call"
/// => .., other => not_found(other) }`), and those whose catch-all holds it (`match method {
/// "initialize" => .., _ => match method { "tools/list" => .., _ => not_found } }`, batch 80's
/// fold).
pub(super) fn falling_fronts<'c>(
    facts: &'c FileFacts,
    dispatcher: &'c MethodDispatcher,
) -> impl Iterator<Item = &'c MethodDispatcher> + 'c {
    facts.dispatch.dispatchers.iter().filter(move |front| {
        let Some(catch_all) = front.catch_all.as_ref() else {
            return false;
        };
        let before = front.function.is_some()
            && front.function == dispatcher.function
            && front.span.end <= dispatcher.span.start
            && catch_all.falls_through;
        let around = !std::ptr::eq(*front, dispatcher)
            && catch_all.span.start <= dispatcher.span.start
            && dispatcher.span.end <= catch_all.span.end;
        before || around
    })
}

/// A dispatcher of the unit's product code that answers `initialize` and whose catch-all hands
/// every other method to `dispatcher`'s function: the two serve as one, and messages reach
/// `dispatcher` as they arrive.
pub(super) fn initializing_front<'c>(
    context: &'c RuleContext<'_>,
    dispatcher: &'c MethodDispatcher,
) -> Option<(FileId, &'c MethodDispatcher)> {
    fronts(context, dispatcher)
        .filter(|(file, _)| !context.is_test_file(*file))
        .find(|(_, front)| {
            front
                .arms
                .iter()
                .any(|arm| arm_lists(context, arm, "initialize"))
        })
}

/// Whether a dispatcher lies in a function its author keeps under `#[allow(dead_code)]` that no
/// code of the unit outside tests calls (batch 82: a "testable" stdio loop beside the server's
/// real SDK transport, which only tests run), or in a function no root of the unit reaches
/// (see [`reachable`]: a Tauri app's private module whose stdio server nothing starts): it
/// serves no client.
pub(super) fn in_dead_code(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    let graph = context.graph;
    let Some(file) = graph
        .files()
        .iter()
        .position(|(_, f)| std::ptr::eq(*f, facts))
    else {
        return false;
    };
    let span = dispatcher.whole();
    let holds = |f: &crate::analysis::facts::FunctionFacts| {
        f.item_span.start <= span.start && span.end <= f.item_span.end
    };
    // The innermost function holding the dispatcher: unreachable from every root of the unit.
    // Only a unit that holds its whole crate (a cargo target's module tree) shows that nothing
    // calls it: the files a path-mode run is given may be called from files it is not.
    let innermost = (facts.functions.iter().enumerate())
        .filter(|(_, f)| holds(f))
        .min_by_key(|(_, f)| f.item_span.end - f.item_span.start)
        .filter(|(_, f)| context.whole_crate && !reachable::root_in(graph, f));
    if let Some((function, _)) = innermost {
        let live = context.memo.get_or_init(|| reachable::Live::of(graph));
        if !live.contains(crate::analysis::crate_graph::FunctionRef { file, function }) {
            return true;
        }
    }
    let dead = (facts.functions.iter().enumerate()).find(|(_, f)| f.allows_dead_code && holds(f));
    let Some((function, _)) = dead else {
        return false;
    };
    let target = crate::analysis::crate_graph::FunctionRef { file, function };
    !graph.all_functions().any(|caller| {
        let facts = graph.function(caller);
        !facts.in_test
            && caller != target
            && facts
                .calls
                .iter()
                .any(|call| graph.callees(caller, call).contains(&target))
    })
}
