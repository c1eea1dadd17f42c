//! MCP003 `response-to-notification`: a response or error written for a message that has no
//! `id` (a notification).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use std::collections::BTreeSet;

use crate::analysis::facts::{FileFacts, FunctionFacts, SinkKind};
use crate::analysis::vocabulary::Vocabulary;

use super::id_tests::{self, IdTests};
use crate::analysis::dispatch::{is_notification_method, MethodArm, MethodDispatcher};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::rules::contract::{Rule, RuleContext};
use crate::sdk::SdkName;
use crate::source::{ByteSpan, FileId};

pub static META: RuleMeta = RuleMeta {
    code: "MCP003",
    name: "response-to-notification",
    default_severity: Severity::Error,
    summary: "a response or error is sent for a notification (a message without an id)",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../../rules/MCP003-response-to-notification.md"),
    // Stable for one shape, by first contact (docs/ecosystem.md): the method-not-found
    // catch-all of a dispatcher that messages come to was 5 of 5 true over batches 60 and 61
    // (and 7 of 7 over 56 and 57, then 1 of 2 over 58 and 59, which sent it back to preview for
    // one window); it had gone to preview with the rule after batches 34 to 37 (4 of 5 twice),
    // and the rule went back to preview after batches 38 and 39. Stable again for that shape
    // after batches 96 and 97 (8 of 8), back in preview after batches 100 and 101 (4 of 5:
    // rust-faf-mcp's dispatcher, whose value is answered only under `if let Some(id)`), stable
    // after batches 108 and 109 (7 of 7), and back in preview after batches 110 and 111 (6 of 7:
    // a Chrome native-messaging host, whose length-prefixed frames carry a private protocol).
    // The other shapes (notification arms, `notifications/` prefix tests, null-`id` responses,
    // a catch-all that notifications are not shown to reach or that answers under a condition
    // of its own) keep their notes, each by its own first contact.
    status: RuleStatus::Preview,
};

const SPEC: &str = "MCP basic/index (2025-11-25 and 2026-07-28): notifications are one-way messages and the \
receiver MUST NOT send a response; JSON-RPC 2.0 section 4.1: a notification is a request without an `id`, \
and the server MUST NOT reply to it";

/// How many callers up the analysis looks for an `id` test.
const CALLER_DEPTH: usize = 3;

pub struct ResponseToNotification;

impl Rule for ResponseToNotification {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn mcp_words(&self) -> &'static [&'static str] {
        super::dispatch_words()
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &[&super::id_tests::IdTestsCollector]
    }

    fn follow_up(&self, facts: &[&FileFacts], _: &Vocabulary) -> BTreeSet<String> {
        super::dispatcher_needles(facts)
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        // Length-prefixed stdin frames are a browser's native messaging, not MCP.
        if !context.serves_mcp() || super::framing::stdin_is_length_prefixed(context) {
            return;
        }
        let files = context.graph.files();
        // Built only for a unit with something to judge (most have no dispatcher at all).
        let index = std::cell::OnceCell::new();
        // Each file's `id` tests, decoded once for the checks and the call index.
        let mut tests: Vec<IdTests> = files.iter().map(|(_, f)| id_tests::of(f)).collect();
        // Tests of a value a function of the unit returns as the message's id are `id` tests.
        let getters: Vec<String> = tests.iter().flat_map(|t| t.id_getters.clone()).collect();
        let getters: HashSet<&str> = getters.iter().map(String::as_str).collect();
        for file_tests in &mut tests {
            file_tests.resolve_getters(&getters);
        }
        let constructors: Vec<(String, usize)> = (tests.iter())
            .flat_map(|t| t.response_constructors.iter().cloned())
            .collect();
        let parsers: Parsers<'_> = tests
            .iter()
            .flat_map(|t| &t.typed_parsers)
            .map(|(name, ty)| (name.as_str(), ty.as_str()))
            .collect();
        let calls = || {
            index.get_or_init(|| {
                let strict = strict_parses(context, files, &tests, &parsers);
                CallIndex::new(files, &tests, &strict)
            })
        };
        // rmcp's service loop never answers a notification: only hand-built messages count. A
        // file that names rmcp is the SDK's to answer; a file that never names it (a crate's
        // hand-written HTTP dispatcher beside its rmcp stdio server), or a crate that depends on
        // rmcp but whose code never names it, serves by hand.
        let rmcp = context.sdk.is_some_and(|s| s.name == SdkName::Rmcp);
        for ((file, facts), tests) in files.iter().zip(&tests) {
            // Test code serves no client: a mock endpoint's answers are the test's business.
            if context.is_test_file(*file) {
                continue;
            }
            // In a file that names rmcp, a dispatcher is the crate's own when the crate writes its
            // answers itself (its function, or a caller of it, writes a response: a hand-written
            // stdio loop or HTTP handler that takes rmcp's types); rmcp sends none of them.
            let sdk_file = rmcp && facts.dispatch.names_sdk;
            // A dispatcher's notification arms are in preview by first contact
            // (docs/ecosystem.md, batches 6 and 7: 1 of 5 true, the others behind a request
            // type whose `id` is required, which the rule did not read); its method-not-found
            // catch-all left preview by first contact in batches 17 and 18 (5 of 5), went
            // back with the rule after batches 34 to 37 (4 of 5 twice), left it again after
            // batches 56 and 57 (7 of 7), went back after batches 58 and 59 (1 of 2), and left
            // it after batches 60 and 61 (5 of 5).
            for dispatcher in &facts.dispatch.dispatchers {
                if !answers_mcp_messages(context, facts, dispatcher) {
                    continue;
                }
                let catch_all =
                    || dispatcher.catch_all_answers_method_not_found(&super::UnitErrs(files));
                let written_here = || {
                    dispatcher
                        .function
                        .as_ref()
                        .is_some_and(|(name, _)| calls().writes_from(name, CALLER_DEPTH))
                };
                // A request whose `id` is required: no notification reaches any arm. Nor is
                // one shown to reach a method of another crate's trait (an SDK's handler
                // trait): what calls it, with which messages, is that crate's code. By
                // default only the catch-all is checked: a dispatcher whose catch-all
                // cannot be reported needs no index of the unit's calls.
                if takes_typed_request(context, facts, dispatcher)
                    || takes_idless_message(context, facts, dispatcher)
                    || in_foreign_trait_method(context, facts, dispatcher)
                    || ((sdk_file || !context.preview()) && !catch_all())
                    || (sdk_file && !written_here())
                {
                    continue;
                }
                check_dispatcher(context, calls(), (*file, facts, tests), dispatcher, out);
            }
            // A `notifications/` prefix test that decides an answer is in preview by first
            // contact (docs/ecosystem.md, batches 15 and 16: its one finding there was false, a
            // prefix test run only after an `id` test, to reject id-bearing messages).
            if !sdk_file && context.preview() {
                check_prefix_tests(&calls, *file, tests, out);
            }
            if context.preview() {
                check_null_ids(context, (*file, tests), &constructors, &parsers, out);
            }
        }
    }
}

/// The null-`id` responses of a file (preview): a null-`id` response is in preview by first
/// contact (docs/ecosystem.md, batches 4 and 5: its one finding there was false, a message
/// without a method answered as an invalid request), and so is the strict parse's answer.
fn check_null_ids(
    context: &RuleContext<'_>,
    (file, tests): (FileId, &IdTests),
    constructors: &[(String, usize)],
    parsers: &Parsers<'_>,
    out: &mut Vec<Diagnostic>,
) {
    // A null id handed to a function of the unit that builds the response from that argument
    // (batch 127's socket-io-client: `JsonRpcResponse::success(Value::Null, json!({}))`),
    // whatever the function is called.
    let built = tests.null_id_calls.iter().filter(|(_, callee, position)| {
        constructors
            .iter()
            .any(|(name, at)| name == callee && at == position)
    });
    for response in tests.null_id_responses.iter().chain(built.map(|(r, ..)| r)) {
        if !response.answers_parse_error {
            out.push(null_id_diagnostic(file, response.span));
        } else if let Some(ty) = strict_parse_answered(context, tests, parsers, response.span) {
            // A new shape, in preview until first contact measures it.
            out.push(strict_parse_diagnostic(file, response.span, ty));
        }
    }
}

/// Whether a dispatcher may answer an MCP client's messages: not a `match` over typed requests
/// (notifications are another type's), nor one of another JSON-RPC protocol, nor one over
/// constants or variants the unit does not show to be MCP methods, nor one nothing in the
/// product runs.
fn answers_mcp_messages(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    !dispatcher.by_variants
        && !crate::analysis::dispatch::answers_another_protocol(dispatcher)
        && context.is_method_dispatcher(dispatcher)
        && !super::in_dead_code(context, facts, dispatcher)
}

/// The `notifications/` prefix tests of a file that decide what is answered (see
/// [`IdTests::prefix_checks`]): the unit's calls are indexed only when there is one.
fn check_prefix_tests<'c, 'a: 'c>(
    calls: &dyn Fn() -> &'c CallIndex<'a>,
    file: FileId,
    tests: &IdTests,
    out: &mut Vec<Diagnostic>,
) {
    for (span, function) in &tests.prefix_checks {
        // The prefix decides what is answered only in code that answers messages (or whose
        // callers do): a predicate a linter or an inspector calls decides nothing.
        let Some(name) = function.and_then(|f| calls().name_of(file, f)) else {
            continue;
        };
        // In a function that returns nothing, the test decides what that function does (a log
        // line it skips), not what its callers answer.
        let unit = tests.prefix_checks_in_unit_functions.contains(span);
        let answers = if unit {
            calls().answers_here(name)
        } else {
            calls().answers_from(name, CALLER_DEPTH)
        };
        if calls().checks_id_from(name, CALLER_DEPTH) || !answers {
            continue;
        }
        out.push(prefix_diagnostic(file, *span));
    }
}

/// Whether an `id` test of the dispatcher's own function protects the arm whose body is
/// `arm`: a test counts only on the way to the arm, outside the dispatcher (before it, or
/// around the write after it) or inside that arm; a test inside another arm protects only that
/// one.
fn own_test_protects(
    calls: &CallIndex<'_>,
    (facts, tests): (&FileFacts, &IdTests),
    dispatcher: &MethodDispatcher,
    arm: ByteSpan,
) -> bool {
    let Some((_, function)) = &dispatcher.function else {
        return false;
    };
    let within =
        |inner: ByteSpan, outer: ByteSpan| outer.start <= inner.start && inner.end <= outer.end;
    // A handler table's entries are the dispatcher's arms: a test in another entry is not on
    // the way.
    let whole = dispatcher.whole();
    let on_the_way = |span: ByteSpan| !within(span, whole) || within(span, arm);
    let tested_here = tests
        .id_checks
        .iter()
        .any(|(check, owner)| *owner == Some(*function) && on_the_way(*check));
    // A test that guards one block protects what that block holds: it protects the arm unless
    // it is in another arm, or its block is over before the dispatcher starts.
    let guarded = tests.guards.iter().any(|guard| {
        guard.function == Some(*function)
            && if within(guard.check, whole) {
                within(guard.check, arm) || within(arm, guard.block)
            } else {
                guard.block.end > whole.start
            }
    });
    // `if req.is_notification() { return None }`: a call on the way to a function that tests.
    let tested_by_call = facts
        .functions
        .iter()
        .filter(|f| f.item_span == *function)
        .flat_map(|f| &f.calls)
        .any(|call| on_the_way(call.span) && calls.any_checks_id(&[call.name().to_string()]));
    // A test in the arm of a call's value the code does not show to be anything but the id
    // (`if let Some(id) = request_id(&msg) { write(..) }`): the arm may answer only requests.
    let unknown_in_arm = tests
        .tests_of_getters
        .iter()
        .any(|test| test.function == Some(*function) && within(test.check, arm));
    tested_here || guarded || tested_by_call || unknown_in_arm
}

fn check_dispatcher(
    context: &RuleContext<'_>,
    calls: &CallIndex<'_>,
    (file, facts, tests): (FileId, &FileFacts, &IdTests),
    dispatcher: &MethodDispatcher,
    out: &mut Vec<Diagnostic>,
) {
    let function = dispatcher.function.as_ref().map(|(name, _)| name.as_str());
    // Its callers test the `id` (the caller of [`check_dispatcher`] asked the premises that
    // need no calls).
    if function.is_some_and(|f| calls.callers_check_id(f, CALLER_DEPTH)) {
        return;
    }
    let methods = |arm: &MethodArm| -> Vec<String> {
        arm.methods
            .iter()
            .cloned()
            .chain(
                arm.constants
                    .iter()
                    .filter_map(|c| context.string_const(c))
                    .map(str::to_string),
            )
            .collect()
    };
    // A dispatcher of notifications alone (a parser into a notification type, a router of
    // notifications to their handlers) answers no request: a value one of its arms gives its
    // caller is shown to be a response only by a response built or sent in the arm.
    let notifications_only = dispatcher.arms.iter().all(|arm| {
        let names = methods(arm);
        !names.is_empty() && names.iter().all(|m| is_notification_method(m))
    });
    for arm in dispatcher.arms.iter().filter(|_| context.preview()) {
        let names = methods(arm);
        let Some(notification) = names.iter().find(|m| is_notification_method(m)) else {
            continue;
        };
        // Answers on the cancellation's arm are MCP001's (the headline rule says more there).
        if names
            .iter()
            .any(|m| context.settings.vocabulary.is_cancel_method(m))
        {
            continue;
        }
        let Some(span) = arm.responds else {
            continue;
        };
        if notifications_only && arm.responds_by_value {
            continue;
        }
        if calls.any_checks_id(&arm.calls)
            || own_test_protects(calls, (facts, tests), dispatcher, arm.body)
        {
            continue;
        }
        // A sibling notification arm that answers nothing shows what this one should do.
        let quiet = dispatcher
            .arms
            .iter()
            .find(|a| a.responds.is_none() && methods(a).iter().any(|m| is_notification_method(m)));
        // A dispatcher in a macro's expansion: its spans may be the invocation's.
        let quiet = quiet.filter(|_| !dispatcher.in_macro);
        let fix = quiet.and_then(|q| {
            let source = context.sources.get(file)?;
            let text = source.text().get(q.body.start..q.body.end)?;
            (!text.contains('\n')).then(|| Fix {
                applicability: Applicability::DisplayOnly,
                message: format!("answer nothing, as the other notification arms do: `{text}`"),
                edits: vec![Edit {
                    file,
                    span: arm.body,
                    replacement: text.to_string(),
                }],
            })
        });
        out.push(
            Diagnostic::new(
                &META,
                file,
                span,
                format!(
                    "this arm answers `{notification}`, a notification: it must get no response"
                ),
            )
            .with_note(SPEC)
            .with_help("handle the notification and send nothing back")
            .with_fix(fix),
        );
    }
    check_catch_all(context, calls, (file, facts, tests), dispatcher, out);
}

/// The catch-all of a dispatcher that notifications can reach without an `id` test: it answers
/// them with method-not-found.
fn check_catch_all(
    context: &RuleContext<'_>,
    calls: &CallIndex<'_>,
    (file, facts, tests): (FileId, &FileFacts, &IdTests),
    dispatcher: &MethodDispatcher,
    out: &mut Vec<Diagnostic>,
) {
    let Some(catch_all) = &dispatcher.catch_all else {
        return;
    };
    // That notifications reach the catch-all is shown for a dispatcher that messages come to
    // first (it answers `initialize` or a notification, or reads the message from the text it
    // came in), or one such a dispatcher hands every other method on to. A dispatcher of tools alone is reached through code that chose what
    // to hand it (`"tools/list" | "tools/call" => endpoint.handle(msg)` after `msg.get("id")?`):
    // whether a notification gets there is not shown, and the finding is preview at most.
    let entry = super::lists(context, dispatcher, &|m| {
        m == "initialize" || is_notification_method(m)
    }) || parses_the_message(facts, dispatcher)
        || super::initializing_front(context, dispatcher).is_some();
    // An arm that answers only when a condition of its own holds (`if ctx.is_notification {
    // nothing() } else { not_found(id) }`, batch 54's mcp-routing, batch 93's ArcartX): whether the
    // condition lets a notification through is not shown, and the finding is preview at most.
    let guarded = catch_all.answers_under_condition;
    if (!entry || guarded) && !context.preview() {
        return;
    }
    let unit = super::UnitErrs(context.graph.files());
    // An HTTP error status with the error body: the transport's rejection, which Streamable
    // HTTP prescribes for a notification the server does not accept.
    if !dispatcher.catch_all_answers_method_not_found(&unit)
        || catch_all.http_error_status
        || calls.any_checks_id(&catch_all.calls)
        || own_test_protects(calls, (facts, tests), dispatcher, catch_all.body)
    {
        return;
    }
    let mut notes = vec![
        SPEC.to_string(),
        "nothing on the way to this dispatcher tests whether the message has an `id`".into(),
    ];
    if !entry {
        notes.push("this dispatcher answers neither `initialize` nor a notification, nor reads the message from the text it came in, and no dispatcher that does hands it every other method: that a notification reaches it is not shown (preview)".into());
    }
    if guarded {
        notes.push("this arm answers only when a condition in it holds: that the condition lets a message without an `id` through is not shown (preview)".into());
    }
    out.push(Diagnostic::new(&META, file, catch_all.body, "notifications this dispatcher does not list fall into this arm and get a method-not-found error"
            ).with_notes(notes).with_help("answer only messages with an `id`: wrap the write in `if let Some(id) = ..`, or return `None` for messages without one"
                ,));
}

/// Whether the dispatcher's function reads the message from text or bytes itself
/// (`serde_json::from_str(line)`, `from_slice(&body)`, `from_reader(..)`): messages come to it as
/// they arrive, none chosen for it by other code.
fn parses_the_message(facts: &FileFacts, dispatcher: &MethodDispatcher) -> bool {
    facts.function_at(dispatcher.span).is_some_and(|function| {
        function
            .calls
            .iter()
            .any(|call| matches!(call.name(), "from_str" | "from_slice" | "from_reader"))
    })
}

/// Whether the dispatcher's function takes a request whose `id` is required: a parameter `id`
/// of a type other than `Option`/`Value`, or a request struct whose `id` field is not an
/// `Option` and has no `#[serde(default)]` (serde rejects a message that lacks it, a
/// `serde_json::Value` field too). A notification never deserialises into such a request, so
/// it never reaches the catch-all.
///
/// The request is the dispatcher's subject (what it reads the method from) when the code shows
/// it: a parameter, or a local whose type it names (`let request: Request = ..`). Another
/// parameter (an HTTP framework's `HttpRequest` beside it) says nothing about the message.
fn takes_typed_request(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    // The module the dispatcher's code is in: a private struct of another module is not the
    // type it names.
    let from = facts
        .function_at(dispatcher.span)
        .map(|f| f.module.as_slice());
    let optional = |ty: &str| matches!(ty, "Option" | "Value");
    if dispatcher
        .params
        .iter()
        .any(|(name, ty)| name == "id" && !optional(ty))
    {
        return true;
    }
    if let Some(ty) = &dispatcher.subject_type {
        return requires_id(context, ty, from);
    }
    if handed_typed_members_only(context, dispatcher) {
        return true;
    }
    let subject_param = dispatcher
        .subject
        .as_ref()
        .filter(|s| dispatcher.params.iter().any(|(name, _)| name == *s));
    dispatcher
        .params
        .iter()
        .filter(|(name, _)| subject_param.is_none_or(|s| s == name))
        .any(|(name, ty)| name != "id" && requires_id(context, ty, from))
}

/// Whether the dispatcher reads its method from a message type of the unit that has no `id` at
/// all (a struct with a `method` field and no field that is the `id` on the wire, with no `id`
/// parameter beside it), in a file that builds no JSON-RPC message (its code never spells
/// `"jsonrpc"` and `"2.0"`): batch 93's rust-yamp, a stateless proxy's `StatelessRequest {
/// method, name, meta, body }` decoded from its own framing and answered with an error body
/// alone. Such messages are neither requests nor notifications. (A loop that keeps the `id`
/// beside such a struct and writes JSON-RPC answers with it, batch 28's regenerator2000, is
/// still read.)
fn takes_idless_message(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    if dispatcher.params.iter().any(|(name, _)| name == "id")
        || builds_jsonrpc(context, facts, dispatcher)
    {
        return false;
    }
    let subject_param = || {
        let subject = dispatcher.subject.as_ref()?;
        dispatcher
            .params
            .iter()
            .find(|(name, _)| name == subject)
            .map(|(_, ty)| ty)
    };
    let Some(ty) = dispatcher.subject_type.as_ref().or_else(subject_param) else {
        return false;
    };
    let from = facts
        .function_at(dispatcher.span)
        .map(|f| f.module.as_slice());
    let mut fields = context
        .graph
        .files()
        .iter()
        .filter(|(_, f)| from.is_none_or(|module| may_name_struct(f, ty, module)))
        .flat_map(|(_, f)| {
            let wire = move |field: &str| {
                f.renamed_fields
                    .iter()
                    .find(|(owner, name, _)| owner == ty && name == field)
                    .map_or(field.to_string(), |(_, _, wire)| wire.clone())
            };
            f.struct_fields
                .iter()
                .filter(move |(owner, _, _)| owner == ty)
                .map(move |(_, field, _)| wire(field))
        })
        .peekable();
    if fields.peek().is_none() {
        return false;
    }
    let fields: Vec<String> = fields.collect();
    fields.iter().any(|f| f == "method") && !fields.iter().any(|f| f == "id")
}

/// Whether the dispatcher's file, or a file with a function that calls the dispatcher's
/// function, builds JSON-RPC messages (its code spells `"jsonrpc"` and `"2.0"`): the loop that
/// writes the dispatcher's answers may add the `id` it kept (batch 28's regenerator2000).
fn builds_jsonrpc(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    if facts.dispatch.jsonrpc_literals {
        return true;
    }
    let graph = context.graph;
    let Some(file) = graph
        .files()
        .iter()
        .position(|(_, f)| std::ptr::eq(*f, facts))
    else {
        return true;
    };
    let Some(function) = facts.functions.iter().position(|f| {
        dispatcher
            .function
            .as_ref()
            .is_some_and(|(_, span)| f.item_span == *span)
    }) else {
        return true;
    };
    let target = crate::analysis::crate_graph::FunctionRef { file, function };
    graph.all_functions().any(|caller| {
        graph
            .files()
            .get(caller.file)
            .is_some_and(|(_, f)| f.dispatch.jsonrpc_literals)
            && graph
                .function(caller)
                .calls
                .iter()
                .any(|call| graph.callees(caller, call).contains(&target))
    })
}

/// Whether every call of the dispatcher's function in the unit hands it, where its subject is,
/// a member of a request whose type requires an `id` (`self.route_request(&request.method,
/// ..)` after `let request: JsonRpcRequest = serde_json::from_str(line)?`, batch 93's mcp-cli):
/// a notification fails that parse before the call, and never reaches the arms. The calls are
/// found by the function's simple name; one call handing anything else, or none found, shows
/// nothing.
fn handed_typed_members_only(context: &RuleContext<'_>, dispatcher: &MethodDispatcher) -> bool {
    let (Some((name, _)), Some(position)) = (&dispatcher.function, dispatcher.subject_position)
    else {
        return false;
    };
    let files = context.graph.files();
    let calls = files
        .iter()
        .flat_map(|(_, f)| &f.functions)
        .flat_map(|f| &f.calls)
        .filter(|call| call.name() == name)
        .count();
    let typed: Vec<&str> = files
        .iter()
        .flat_map(|(_, f)| &f.dispatch.typed_member_args)
        .filter(|(callee, at, _)| callee == name && *at == position)
        .map(|(_, _, ty)| ty.as_str())
        .collect();
    calls > 0 && typed.len() == calls && typed.iter().all(|ty| requires_id(context, ty, None))
}

/// Whether the dispatcher is in a method implementing a trait the unit does not define.
fn in_foreign_trait_method(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    let Some(function) = facts.function_at(dispatcher.span) else {
        return false;
    };
    let Some(trait_name) = &function.trait_name else {
        return false;
    };
    !context
        .graph
        .files()
        .iter()
        .any(|(_, f)| f.traits.iter().any(|t| t == trait_name))
}

/// Each definition of a struct named `ty` in the unit that has an `id` field on the wire (a
/// field `id`, or one serde renames to `"id"`): whether that `id` is required (not an
/// `Option`, no `#[serde(default)]`).
fn id_required_in(context: &RuleContext<'_>, ty: &str, from: Option<&[String]>) -> Vec<bool> {
    context
        .graph
        .files()
        .iter()
        .filter(|(_, f)| from.is_none_or(|module| may_name_struct(f, ty, module)))
        .flat_map(|(_, f)| {
            let is_id = move |field: &str| match f
                .renamed_fields
                .iter()
                .find(|(owner, name, _)| owner == ty && name == field)
            {
                Some((_, _, wire)) => wire == "id",
                None => field == "id",
            };
            f.struct_fields
                .iter()
                .filter(move |(owner, field, _)| owner == ty && is_id(field))
                .map(move |(_, id, field_ty)| {
                    field_ty != "Option"
                        && !f
                            .defaulted_fields
                            .iter()
                            .any(|(owner, field)| owner == ty && field == id)
                })
        })
        .collect()
}

/// Whether code in `module` may name the struct `ty` of the file `file` defines: unless the
/// file declares it private (no `pub`) and `module` is neither the file's module nor one inside
/// it (batch 115's lsmcp: an LSP client's private `JsonRpcRequest`, whose `id` is required,
/// beside the MCP server's public one, whose `id` is optional). A file whose module is not
/// shown (it has no function) may be named.
fn may_name_struct(file: &FileFacts, ty: &str, module: &[String]) -> bool {
    if !file.private_structs.iter().any(|s| s == ty) {
        return true;
    }
    let Some(own) = file
        .functions
        .iter()
        .map(|f| f.module.as_slice())
        .min_by_key(|m| m.len())
    else {
        return true;
    };
    module.starts_with(own)
}

/// Whether a request of type `ty` (its last path segment) cannot hold a message without an
/// `id`: a struct of the unit whose `id` field is not an `Option` and has no
/// `#[serde(default)]`, or a type from another crate named like a request.
fn requires_id(context: &RuleContext<'_>, ty: &str, from: Option<&[String]>) -> bool {
    let definitions = id_required_in(context, ty, from);
    // A struct of the unit with no `id` field at all (the loop keeps the id beside it, `let
    // request = McpRequest { method, params, .. }`) rejects no message for its lack of one.
    let defined_here = || {
        context
            .graph
            .files()
            .iter()
            .any(|(_, f)| f.struct_fields.iter().any(|(owner, _, _)| owner == ty))
    };
    match definitions.as_slice() {
        [] if defined_here() => false,
        // A request type from another crate (an SDK's `Request`, `JsonRpcRequest`): whether it
        // admits a missing `id` is not shown here, so no notification is shown to reach the
        // arms (certain or silent; first contact of batches 17 and 18 made the catch-all
        // stable, and two false findings of the corpus read an SDK's `Request`, whose `id` is
        // required).
        [] => ty.ends_with("Request"),
        // Two structs of the name, one with a required `id`: which one the dispatcher reads is
        // not known here (the imports are not read), so a missing `id` is not shown to reach it.
        _ => definitions.iter().any(|required| *required),
    }
}

fn prefix_diagnostic(file: FileId, span: ByteSpan) -> Diagnostic {
    Diagnostic::new(&META, file, span, "a notification is told by the method's `notifications/` prefix, not by the missing `id`"
            ).with_severity(Severity::Warning).with_notes(vec![
            SPEC.to_string(),
            "a message without an `id` is a notification whatever its method; one with an unknown or unprefixed method would still be answered"
                .into(),
        ]).with_help("test whether the message has an `id` (`msg.id.is_none()`) instead")
}

/// The request type whose parse failed, when a null-`id` answer at `span` answers that failure
/// and the type is a struct of the unit whose `id` is required (not an `Option`, no
/// `#[serde(default)]`, in every struct of the name): every
/// notification fails to parse into it and gets the answer. Not when the function tests an
/// `id` (a notification may be told apart before the parse).
fn strict_parse_answered<'t>(
    context: &RuleContext<'_>,
    tests: &'t IdTests,
    parsers: &Parsers<'_>,
    span: ByteSpan,
) -> Option<&'t str> {
    let within =
        |inner: ByteSpan, outer: ByteSpan| outer.start <= inner.start && inner.end <= outer.end;
    let parse = tests
        .typed_parse_errors
        .iter()
        .find(|e| within(span, e.arm))?;
    let ty = &parse.ty;
    // An HTTP error status with the error body: the transport rejects the body (batch 126's
    // rust-ai-agents), as a catch-all's does (see `http_error_status` of its arm).
    if parse.http_error_status || !parses_into(parsers, parse) {
        return None;
    }
    // Every struct of the name in the unit requires its `id` (with two, one of them optional,
    // which one the parse reads is not shown: silence).
    let definitions = id_required_in(context, ty, None);
    let defined = !definitions.is_empty() && definitions.iter().all(|required| *required);
    let in_function = |function: Option<ByteSpan>| function.is_some_and(|f| within(span, f));
    let tested = tests.id_checks.iter().any(|(_, f)| in_function(*f))
        || tests.guards.iter().any(|g| in_function(g.function));
    (defined && !tested).then_some(ty.as_str())
}

/// Whether a typed parse is one: a call through the type's path parses when a function of the
/// unit by that name deserialises into that type.
fn parses_into(parsers: &Parsers<'_>, parse: &super::strict_parse::TypedParseError) -> bool {
    parse
        .through
        .as_deref()
        .is_none_or(|function| parsers.contains(&(function, parse.ty.as_str())))
}

/// The unit's functions that deserialise into a type: (name, type) (see
/// [`IdTests::typed_parsers`]).
type Parsers<'a> = HashSet<(&'a str, &'a str)>;

/// The functions that parse a message into a type whose `id` is required and leave when the
/// parse fails: what follows the parse runs for requests only, as after an `id` test. By file,
/// the parse's `Err` arm.
fn strict_parses(
    context: &RuleContext<'_>,
    files: &[(FileId, &FileFacts)],
    tests: &[IdTests],
    parsers: &Parsers<'_>,
) -> Vec<(FileId, ByteSpan)> {
    let mut required: HashMap<&str, bool> = HashMap::new();
    let mut out = Vec::new();
    for ((file, _), tests) in files.iter().zip(tests) {
        for parse in tests.typed_parse_errors.iter().filter(|p| p.leaves) {
            let strict = *required.entry(parse.ty.as_str()).or_insert_with(|| {
                let definitions = id_required_in(context, &parse.ty, None);
                !definitions.is_empty() && definitions.iter().all(|r| *r)
            });
            if strict && parses_into(parsers, parse) {
                out.push((*file, parse.arm));
            }
        }
    }
    out
}

fn strict_parse_diagnostic(file: FileId, span: ByteSpan, ty: &str) -> Diagnostic {
    Diagnostic::new(
        &META,
        file,
        span,
        format!("every notification fails to parse into `{ty}`, whose `id` is required, and gets this error response"),
    )
    .with_note(SPEC)
    .with_note(format!(
        "a notification has no `id`; `{ty}` requires one (not an `Option`, no `#[serde(default)]`), so the parse of a well-formed notification fails and this arm answers it"
    ))
    .with_help(format!(
        "make `{ty}`'s `id` an `Option` (or parse into a type that admits a missing `id`) and send nothing for a message without one"
    ))
}

fn null_id_diagnostic(file: FileId, span: ByteSpan) -> Diagnostic {
    Diagnostic::new(&META, file, span, "a response with a null `id` outside parse-error handling answers a notification").with_notes(vec![
            SPEC.to_string(),
            "JSON-RPC allows a null `id` only when the request's `id` could not be read (parse error -32700, invalid request -32600)"
                .into(),
        ]).with_help("send nothing for a message without an `id`")
}

/// The unit's functions: which test a message's `id`, and who calls whom (by name).
struct CallIndex<'a> {
    checks_id: HashSet<&'a str>,
    /// Functions that answer a message: they send a response, return one, or dispatch methods.
    answers: HashSet<&'a str>,
    /// Of those, the ones that send a response themselves.
    sends: HashSet<&'a str>,
    /// Functions that write a response themselves (a response sink, also one that writes what
    /// a callee returns).
    writes: HashSet<&'a str>,
    callers: HashMap<&'a str, Vec<&'a str>>,
    callees: HashMap<&'a str, Vec<&'a str>>,
    /// Calls (caller, callee) made inside a block an `id` test guards ([`id_tests::Guard`]), or
    /// before one that calls or sends.
    guarded_calls: HashSet<(&'a str, &'a str)>,
    /// Each file's functions: (item span, name).
    functions: HashMap<FileId, Vec<(ByteSpan, &'a str)>>,
}

impl<'a> CallIndex<'a> {
    fn new(
        files: &[(FileId, &'a FileFacts)],
        tests: &[IdTests],
        strict: &[(FileId, ByteSpan)],
    ) -> Self {
        let mut index = CallIndex {
            checks_id: HashSet::new(),
            answers: HashSet::new(),
            sends: HashSet::new(),
            writes: HashSet::new(),
            callers: HashMap::new(),
            callees: HashMap::new(),
            guarded_calls: HashSet::new(),
            functions: HashMap::new(),
        };
        let mut checks: Vec<(&'a str, Option<(String, bool)>)> = Vec::new();
        for ((file, facts), tests) in files.iter().zip(tests) {
            let functions: Vec<(ByteSpan, &str)> = facts
                .functions
                .iter()
                .map(|f| (f.item_span, f.name.as_str()))
                .collect();
            // Test code calls the dispatcher under the test harness, never in the program: its
            // id tests protect nothing the program answers.
            for function in facts.functions.iter().filter(|f| !f.in_test) {
                index.note_function(function, tests, &mut checks);
            }
            for dispatcher in facts.dispatch.dispatchers.iter().filter(|d| !d.by_variants) {
                if let Some((name, _)) = &dispatcher.function {
                    index.answers.insert(name.as_str());
                }
            }
            let of_calls: HashMap<ByteSpan, &String> = tests
                .tests_of_call_values
                .iter()
                .map(|(span, callee)| (*span, callee))
                .collect();
            for (check, _) in &tests.id_checks {
                if let Some(name) = innermost(&functions, *check) {
                    let value_test = tests.value_tests_of_call_values.contains(check);
                    checks.push((
                        name,
                        of_calls.get(check).map(|c| (c.to_string(), value_test)),
                    ));
                }
            }
            // A parse into a type whose `id` is required that leaves on failure: what follows
            // runs for requests only, as after an `id` test (`let request = match
            // JsonRpcRequest::from_json(line) { Ok(r) => r, Err(e) => return .. };`).
            for (_, arm) in strict.iter().filter(|(f, _)| f == file) {
                if let Some(name) = innermost(&functions, *arm) {
                    checks.push((name, None));
                }
            }
            index.functions.insert(*file, functions);
        }
        // A test of the value a function that answers returned is a test of its answer (the
        // response written already), not of the message.
        // A test of the answer's `id` value that a function only returns (`let response =
        // handle_request(&request); if response.id.is_null() { continue; } write(&response)`)
        // holds that answer back for a message without one: it is a test of the message's.
        for (name, of_call) in checks {
            let of_answer = of_call.is_some_and(|(callee, value_test)| {
                let held_back = value_test && !index.sends.contains(callee.as_str());
                index.answers.contains(callee.as_str()) && !held_back
            });
            if !of_answer {
                index.checks_id.insert(name);
            }
        }
        index
    }

    /// One product function: whether it sends, answers or writes a response, whether its sends
    /// are all guarded by an `id` test (then it tests the `id`), and its calls.
    fn note_function(
        &mut self,
        function: &'a FunctionFacts,
        tests: &IdTests,
        checks: &mut Vec<(&'a str, Option<(String, bool)>)>,
    ) {
        // A send known to send a response (not one that does only if a callee returns
        // one).
        let sends = function.sinks.iter().any(|s| {
            s.kind == SinkKind::Response && s.if_returns_response.is_empty() && s.through.is_none()
        });
        if sends {
            self.sends.insert(function.name.as_str());
        }
        if sends || function.returns_response {
            self.answers.insert(function.name.as_str());
        }
        // A call handed another call's value is a send only if that call returns a
        // response and the callee writes it (worked out over the crate graph, not here).
        if function.sinks.iter().any(|s| {
            s.kind == SinkKind::Response
                && (s.through.is_none() || s.if_returns_response.is_empty())
        }) {
            self.writes.insert(function.name.as_str());
        }
        let guards: Vec<ByteSpan> = tests
            .guards
            .iter()
            .filter(|g| g.function == Some(function.item_span))
            .map(|g| g.block)
            .collect();
        // A function whose every send is in a block an `id` test guards answers only
        // messages with an `id` (`if let Some(id) = id { self.out.push(..) }`).
        let inside = |span: ByteSpan| {
            guards
                .iter()
                .any(|b| b.start <= span.start && span.end <= b.end)
        };
        if !function.sinks.is_empty() && function.sinks.iter().all(|s| inside(s.span)) {
            checks.push((function.name.as_str(), None));
        }
        self.note_calls(function, &guards);
    }

    /// The calls of `function`: who calls what, and which calls a block an `id` test guards
    /// protects (one it holds, or one whose value it may write: a block after the call that
    /// calls or sends; `resp.id = req.id` does neither).
    fn note_calls(&mut self, function: &'a FunctionFacts, guards: &[ByteSpan]) {
        // A call known as a send by its name (`respond(&state, &msg)`) is a call of the
        // crate's function of that name too: who calls whom does not depend on the name. It
        // leads up to the callers (and their `id` tests), but the callee's own tests are of
        // the answer it is handed (`write_response(&resp)` testing `resp.id`), not of a
        // message on the way to a dispatcher.
        let named_sends = function
            .sinks
            .iter()
            .filter_map(|s| Some((s.named.as_deref()?, s.span, false)));
        let calls = function.calls.iter().map(|c| (c.name(), c.span, true));
        for (callee, span, called) in calls.chain(named_sends) {
            if guards.iter().any(|b| {
                let holds = |s: ByteSpan| b.start <= s.start && s.end <= b.end;
                holds(span)
                    || (b.start >= span.end
                        && (function.calls.iter().any(|c| holds(c.span))
                            || function.sinks.iter().any(|s| holds(s.span))))
            }) {
                self.guarded_calls.insert((function.name.as_str(), callee));
            }
            self.callers
                .entry(callee)
                .or_default()
                .push(function.name.as_str());
            if called {
                self.callees
                    .entry(function.name.as_str())
                    .or_default()
                    .push(callee);
            }
        }
    }

    /// The name of the function at `span` in `file`.
    fn name_of(&self, file: FileId, span: ByteSpan) -> Option<&'a str> {
        innermost(self.functions.get(&file)?, span)
    }

    /// Whether `function` or a caller of it (up to `depth` calls up) tests the `id`.
    fn checks_id_from(&self, function: &str, depth: usize) -> bool {
        self.up_from(function, depth, &self.checks_id)
    }

    /// Whether a caller of `function` (up to `depth` calls up) tests the `id`, itself or
    /// through a function it calls (`let is_note = req.is_notification();` before dispatching).
    ///
    /// A caller that calls `function` inside a block an `id` test guards protects it; a caller
    /// whose only test of the `id` is through `function` itself does not (what `function`'s own
    /// tests protect is judged arm by arm), nor one whose callee that tests answers messages
    /// itself: that is another server loop, not a test of this one's messages (batch 118's
    /// LineAgent: `run_stdio` hands stdin to the proxy's loop or to its own `serve`, which
    /// skips messages without an `id`).
    fn callers_check_id(&self, function: &str, depth: usize) -> bool {
        let tests = |name: &str| {
            self.checks_id.contains(name)
                || self.callees.get(name).into_iter().flatten().any(|c| {
                    *c != function && self.checks_id.contains(c) && !self.answers.contains(c)
                })
        };
        let mut seen: HashSet<&str> = HashSet::new();
        seen.insert(function);
        let mut frontier: Vec<&str> = vec![function];
        for _ in 0..depth.max(1) {
            let mut next = Vec::new();
            for callee in frontier {
                for caller in self.callers.get(callee).into_iter().flatten().copied() {
                    if self.guarded_calls.contains(&(caller, callee)) {
                        return true;
                    }
                    if !seen.insert(caller) {
                        continue;
                    }
                    if tests(caller) {
                        return true;
                    }
                    next.push(caller);
                }
            }
            frontier = next;
        }
        false
    }

    /// Whether `function` itself answers a message (sends or returns a response, dispatches).
    fn answers_here(&self, function: &str) -> bool {
        self.answers.contains(function)
    }

    /// Whether `function` or a caller of it (up to `depth` calls up) answers a message.
    fn answers_from(&self, function: &str, depth: usize) -> bool {
        self.up_from(function, depth, &self.answers)
    }

    /// Whether `function` or a caller of it (up to `depth` calls up) writes a response itself.
    fn writes_from(&self, function: &str, depth: usize) -> bool {
        self.up_from(function, depth, &self.writes)
    }

    /// Whether `function` or a caller of it (up to `depth` calls up) is in `set`.
    fn up_from(&self, function: &str, depth: usize, set: &HashSet<&str>) -> bool {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut frontier: Vec<&str> = vec![function];
        for _ in 0..=depth {
            let mut next = Vec::new();
            for name in frontier {
                if !seen.insert(name) {
                    continue;
                }
                if set.contains(name) {
                    return true;
                }
                next.extend(self.callers.get(name).into_iter().flatten().copied());
            }
            frontier = next;
        }
        false
    }

    /// Whether one of the functions called (or a function they call) tests the `id`.
    fn any_checks_id(&self, called: &[String]) -> bool {
        called.iter().any(|name| {
            self.checks_id.contains(name.as_str())
                || self
                    .callees
                    .get(name.as_str())
                    .into_iter()
                    .flatten()
                    .any(|callee| self.checks_id.contains(callee))
        })
    }
}

/// The innermost function whose item holds `span`.
fn innermost<'a>(functions: &[(ByteSpan, &'a str)], span: ByteSpan) -> Option<&'a str> {
    functions
        .iter()
        .filter(|(item, _)| item.start <= span.start && span.end <= item.end)
        .min_by_key(|(item, _)| item.end - item.start)
        .map(|(_, name)| *name)
}
