//! MCP004 `ping-not-answered`: a hand-written method dispatcher that answers `initialize` and
//! `tools/*` but sends `ping` to its method-not-found catch-all.

use std::collections::BTreeSet;

use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;

use super::{arm_lists, fronts, lists};
use crate::analysis::dispatch::{CatchAllArm, MethodArm, MethodDispatcher, ResultTemplate};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Label, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::protocol::ProtocolVersion;
use crate::rules::contract::{Rule, RuleContext};
use crate::source::{ByteSpan, FileId, SourceFile};

pub static META: RuleMeta = RuleMeta {
    code: "MCP004",
    name: "ping-not-answered",
    default_severity: Severity::Error,
    summary: "a method dispatcher answers `ping` with method-not-found",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../../rules/MCP004-ping-not-answered.md"),
    status: RuleStatus::Stable,
};

const SPEC: &str =
    "MCP 2025-11-25 (basic/utilities/ping): the receiver MUST respond promptly with an empty \
response; a receiver that does not may be disconnected";

pub struct PingNotAnswered;

impl Rule for PingNotAnswered {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn mcp_words(&self) -> &'static [&'static str] {
        super::dispatch_words()
    }

    fn follow_up(&self, facts: &[&FileFacts], _: &Vocabulary) -> BTreeSet<String> {
        let mut needles = super::dispatcher_needles(facts);
        super::confined::needles(facts, &mut needles);
        needles
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        // `ping` is gone from 2026-07-28; servers for 2025-11-25 (alone or with 2026-07-28, on
        // legacy connections) must answer it.
        if !context
            .settings
            .protocol_versions
            .contains(&ProtocolVersion::V2025_11_25)
            || !context.serves_mcp()
            || super::framing::stdin_is_length_prefixed(context)
        {
            return;
        }
        non_empty_answers(context, out);
        let files = context.graph.files();
        // `"ping"` in the unit outside the dispatchers' arms: answered before a dispatcher, or by
        // a layer around it. A `ping` arm answers only for its own dispatcher (and those it
        // hands methods on to).
        if names_ping_outside_arms(context) {
            return;
        }
        for (file, facts) in files {
            // A test mock's dispatcher serves no client.
            if context.is_test_file(*file) {
                continue;
            }
            for dispatcher in &facts.dispatch.dispatchers {
                let Some(catch_all) = &dispatcher.catch_all else {
                    continue;
                };
                if in_a_preview_shape(catch_all) && !context.preview() {
                    continue;
                }
                let handles = |wanted: &dyn Fn(&str) -> bool| lists(context, dispatcher, wanted);
                // A `match` over variants is a dispatcher only where the unit reads MCP methods
                // into them.
                if !context.is_method_dispatcher(dispatcher)
                    || super::in_dead_code(context, facts, dispatcher)
                {
                    continue;
                }
                // A `match` of the same function before this one, whose catch-all does
                // nothing, has the methods it lists answered first.
                let before: Vec<&MethodDispatcher> =
                    super::falling_fronts(facts, dispatcher).collect();
                let before_lists = |method: &str| {
                    before
                        .iter()
                        .any(|d| d.arms.iter().any(|arm| arm_lists(context, arm, method)))
                };
                // An arm with a guard (`Some("initialize") if legacy => ..`) answers its method
                // at least sometimes (batch 103's codefacts); whether a `ping` its guard lets
                // through reaches the catch-all is not shown.
                let guarded =
                    |wanted: &dyn Fn(&str) -> bool| dispatcher.guarded.iter().any(|m| wanted(m));
                if handles(&|m| m == "ping")
                    || guarded(&|m| m == "ping")
                    || before_lists("ping")
                    || front_answers_ping(context, dispatcher)
                    || (dispatcher.by_variants && names_ping_variant_outside_arms(context))
                {
                    continue;
                }
                let tools =
                    handles(&|m| m.starts_with("tools/")) || guarded(&|m| m.starts_with("tools/"));
                let sdk = sdk_hands_on_every_method(context, facts, dispatcher);
                // `initialize` answered here, or by a dispatcher whose catch-all hands every
                // other method to this one's function (or falls through to it): the two serve
                // as one.
                let front = if handles(&|m| m == "initialize") || guarded(&|m| m == "initialize") {
                    None
                } else if before_lists("initialize") {
                    before
                        .iter()
                        .find(|d| {
                            d.arms
                                .iter()
                                .any(|arm| arm_lists(context, arm, "initialize"))
                        })
                        .map(|d| (*file, keyword_span(d)))
                } else {
                    match forwarding_dispatcher(context, dispatcher) {
                        Some(front) => Some(front),
                        None if sdk => None,
                        None => continue,
                    }
                };
                if !tools {
                    continue;
                }
                out.extend(catch_all_finding(
                    context, *file, dispatcher, catch_all, front, sdk,
                ));
            }
        }
    }
}

/// The finding of a dispatcher's catch-all that `ping` falls into, if it refuses `ping` or
/// answers nothing.
fn catch_all_finding(
    context: &RuleContext<'_>,
    file: FileId,
    dispatcher: &MethodDispatcher,
    catch_all: &CatchAllArm,
    front: Option<(FileId, ByteSpan)>,
    sdk: bool,
) -> Option<Diagnostic> {
    let unit = super::UnitErrs(context.graph.files());
    // A catch-all that refuses with an HTTP error status (`Err((StatusCode::BAD_REQUEST, ..))`)
    // refuses `ping` too: a new shape, in preview (first contact, batch 35:
    // brave-search-mcp-server, a recorded miss).
    // Under an SDK that hands its method handler every request but `initialize` and sends the
    // handler's `Err` as the error response (`sdk`), the catch-all's `Err` refuses `ping`.
    let refused = dispatcher.catch_all_answers_method_not_found(&unit)
        || (context.preview() && catch_all.http_error_status)
        || (sdk && catch_all.err_method_not_found);
    // A catch-all that answers nothing (`_ => continue`, or a `None` that is not sent): `ping`
    // gets no response at all. A new shape, in preview (first contact, batch 91: mcp-hwp, a
    // recorded miss).
    let silent = !refused && context.preview() && catch_all.answers_nothing;
    // A catch-all whose value is an `Err` for its caller, where no caller in the unit is shown
    // to answer it (a public dispatcher nothing here calls): `ping` gets an error or no
    // response, unless a caller outside the unit answers `ping` before it. A new shape, in
    // preview (first contact, batch 88: rustcare-engine, a recorded miss).
    let err_to_caller = !refused && !silent && context.preview() && catch_all.err_method_not_found;
    if !(refused || silent || err_to_caller) {
        return None;
    }
    let found = diagnostic(
        file,
        dispatcher,
        catch_all,
        context.sources.get(file),
        front,
    );
    let found = if sdk {
        Diagnostic {
            labels: vec![Label {
                file,
                span: keyword_span(dispatcher),
                message: SDK_LABEL.into(),
            }],
            ..found
        }
    } else {
        found
    };
    let found = match (silent, err_to_caller) {
        (true, _) => Diagnostic {
            message: SILENT.into(),
            ..found
        }
        .with_note(SILENT_NOTE),
        (false, true) => Diagnostic {
            message: ERR_TO_CALLER.into(),
            ..found
        }
        .with_note(ERR_TO_CALLER_NOTE),
        (false, false) => found,
    };
    Some(match (catch_all.by_conversion, catch_all.delegates) {
        (true, _) => found.with_note(BY_CONVERSION),
        (false, true) => found.with_note(DELEGATES),
        (false, false) => found,
    })
}

/// Whether a catch-all's finding is of a shape in preview: over an `Option` of variants, or a
/// catch-all that is the variant a conversion makes of every other method (first contact,
/// batch 60: rezolus, a recorded miss); or a catch-all that hands the method on to a call it
/// tests before answering method-not-found, whether that call answers `ping` not shown
/// (docs/ecosystem.md, batches 90 and 91: kern's catch-all asks its server's `handle_method`,
/// whose implementations answer `ping`; false).
fn in_a_preview_shape(catch_all: &CatchAllArm) -> bool {
    catch_all.by_conversion || catch_all.delegates
}

/// The `ping` arms of MCP dispatchers that answer with a result that is not empty.
fn non_empty_answers(context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let files = context.graph.files();
    // A `ping` answered with a result that is not empty is in preview by first contact
    // (docs/ecosystem.md, batches 4 and 5): its one finding there was false (the `ping` of
    // the program's own daemon protocol).
    for (file, facts) in files.iter().filter(|_| context.preview()) {
        // A test mock's dispatcher serves no client.
        if context.is_test_file(*file) {
            continue;
        }
        for dispatcher in &facts.dispatch.dispatchers {
            // An MCP dispatcher: it also dispatches MCP's own methods (`initialize`,
            // `tools/*`, ..). A `ping` beside only methods of the program's own protocol (a
            // daemon's `listInstances`) is that protocol's.
            let speaks_mcp = dispatcher.arms.iter().any(|a| {
                a.methods.iter().any(|m| {
                    m == "initialize"
                        || m.starts_with("tools/")
                        || m.starts_with("resources/")
                        || m.starts_with("prompts/")
                        || m.starts_with("notifications/")
                })
            });
            if !speaks_mcp {
                continue;
            }
            for arm in dispatcher
                .arms
                .iter()
                .filter(|a| a.methods.iter().any(|m| m == "ping"))
            {
                if let Some(d) = non_empty_answer(context, *file, arm) {
                    out.push(d);
                }
            }
        }
    }
}

/// A `"ping"` arm whose one `json!` object (or the message's `"result"`) is not empty.
fn non_empty_answer(
    context: &RuleContext<'_>,
    file: FileId,
    arm: &MethodArm,
) -> Option<Diagnostic> {
    let template = arm.result_template.as_ref()?;
    let source = context.sources.get(file)?;
    // In a macro's expansion, what the value is is read from its tokens: its span may be the
    // invocation's, which no fix may edit.
    let current = match &template.value {
        Some(value) => value.as_str(),
        None => source
            .text()
            .get(template.replace.start..template.replace.end)?,
    };
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    if squeeze(current) == squeeze(&template.replacement) {
        return None;
    }
    let fix = template.value.is_none().then(|| Fix {
        applicability: Applicability::Safe,
        message: format!("answer with `{}`", template.replacement),
        edits: vec![Edit {
            file,
            span: template.replace,
            replacement: template.replacement.clone(),
        }],
    });
    Some(
        Diagnostic::new(
            &META,
            file,
            template.replace,
            "`ping` is answered with a result that is not empty",
        )
        .with_severity(Severity::Warning)
        .with_note(SPEC)
        .with_help("answer `ping` with an empty result: `{}`")
        .with_fix(fix),
    )
}

/// Whether the unit's code spells `"ping"` anywhere but in its dispatchers' arms (a
/// constant's value counts where an arm names the constant), and in code that only other
/// methods reach (see [`super::confined`]), where it names something else.
fn names_ping_outside_arms(context: &RuleContext<'_>) -> bool {
    let files = context.graph.files();
    let literals: u64 = files
        .iter()
        .map(|(_, f)| super::confined::ping_literals_answering(f))
        .sum();
    let ping_arms = |d: &MethodDispatcher| -> u64 {
        d.arms
            .iter()
            .map(|arm| {
                let literal = arm.methods.iter().filter(|m| *m == "ping").count();
                let constant = arm
                    .constants
                    .iter()
                    .filter(|c| context.string_const(c) == Some("ping"))
                    .count();
                (literal + constant) as u64
            })
            .sum()
    };
    let arms: u64 = files
        .iter()
        .flat_map(|(_, f)| &f.dispatch.dispatchers)
        .map(ping_arms)
        .sum();
    if literals <= arms {
        return false;
    }
    // Only when the literals outnumber the arms: which code is confined is asked of the unit's
    // calls. A file whose literals pair variants with methods, whose sites are not known, keeps
    // its literals.
    let confinement = super::confined::Confinement::of(context);
    let (mut confined, mut confined_arms) = (0u64, 0u64);
    for (index, (_, f)) in files.iter().enumerate() {
        if f.ping_mapping_literals > 0 {
            continue;
        }
        let sites = f
            .dispatch
            .ping_sites
            .iter()
            .filter(|at| !f.dispatch.ping_request_sites.contains(at));
        for &at in sites {
            if confinement.contains(index, ByteSpan::new(at, at)) {
                confined += 1;
            }
        }
        for d in &f.dispatch.dispatchers {
            let arms = ping_arms(d);
            if arms > 0 && confinement.contains(index, ByteSpan::new(d.span.start, d.span.start)) {
                confined_arms += arms;
            }
        }
    }
    literals.saturating_sub(confined) > arms.saturating_sub(confined_arms)
}

/// Whether the unit's code names a variant it reads `ping` into anywhere but in its typed
/// dispatchers' arms and where it pairs the variant with its method
/// (`if let ClientRequest::Ping = request { return pong() }` before the dispatcher).
fn names_ping_variant_outside_arms(context: &RuleContext<'_>) -> bool {
    let files = context.graph.files();
    let ping: std::collections::BTreeSet<&str> = files
        .iter()
        .flat_map(|(_, f)| &f.method_variants)
        .filter(|(_, method)| method == "ping")
        .map(|(variant, _)| variant.as_str())
        .collect();
    if ping.is_empty() {
        return false;
    }
    let named: u64 = files
        .iter()
        .flat_map(|(_, f)| &f.variant_mentions)
        .filter(|(variant, _)| ping.contains(variant.as_str()))
        .map(|(_, count)| u64::from(*count))
        .sum();
    let in_arms = files
        .iter()
        .flat_map(|(_, f)| &f.dispatch.dispatchers)
        .filter(|d| d.by_variants)
        .flat_map(|d| &d.arms)
        .flat_map(|arm| &arm.variants)
        .filter(|variant| ping.contains(variant.as_str()))
        .count() as u64;
    named > in_arms
}

/// Whether a dispatcher of the unit that hands every other method on to `dispatcher`'s function
/// answers `ping` itself.
fn front_answers_ping(context: &RuleContext<'_>, dispatcher: &MethodDispatcher) -> bool {
    fronts(context, dispatcher)
        .any(|(_, front)| front.arms.iter().any(|arm| arm_lists(context, arm, "ping")))
}

/// The label of a method handler an SDK hands every request to.
const SDK_LABEL: &str = "mcp-sdk-rs answers `initialize` and hands every other request, `ping` included, to this method, which answers `tools/*` but has no `ping` arm";

/// Whether the dispatcher is the method handler of an SDK that answers `initialize` itself and
/// hands it every other request, `ping` included, sending the handler's value (or its `Err`) as
/// the response: mcp-sdk-rs's `ServerHandler::handle_method` (every version to 0.3.4, the
/// newest; first contact: batch 111's UltraWin-MCP, batch 115's llmlang).
fn sdk_hands_on_every_method(
    context: &RuleContext<'_>,
    facts: &FileFacts,
    dispatcher: &MethodDispatcher,
) -> bool {
    let sdk = context
        .sdk
        .is_some_and(|s| s.name == crate::sdk::SdkName::McpSdkRs);
    sdk && facts.function_at(dispatcher.span).is_some_and(|f| {
        f.name == "handle_method" && f.trait_name.as_deref() == Some("ServerHandler")
    }) && builds_sdk_server(context)
}

/// Whether code of the unit outside tests builds mcp-sdk-rs's `Server` (`Server::new(transport,
/// handler)`, the type imported from `mcp_sdk_rs`, or named by its path): a handler no such
/// server is given (batch 1's aria2-mcp-rs, whose `ServerHandler` only its tests build, beside
/// a hand-written stdio loop) is handed nothing by the SDK.
fn builds_sdk_server(context: &RuleContext<'_>) -> bool {
    context.graph.files().iter().any(|(file, facts)| {
        if context.is_test_file(*file) {
            return false;
        }
        let imported = |name: &str| {
            facts
                .imports
                .iter()
                .any(|(n, path)| n == name && path.first().is_some_and(|c| c == "mcp_sdk_rs"))
        };
        facts
            .functions
            .iter()
            .filter(|f| !f.in_test)
            .flat_map(|f| &f.calls)
            .any(|call| match &call.callee {
                crate::analysis::facts::Callee::Path(segments) => match segments.as_slice() {
                    [ty, new] => new == "new" && ty == "Server" && imported("Server"),
                    [first, .., ty, new] => new == "new" && ty == "Server" && first == "mcp_sdk_rs",
                    _ => false,
                },
                crate::analysis::facts::Callee::Method { .. } => false,
            })
    })
}

/// A dispatcher of the unit that answers `initialize` and whose catch-all calls `dispatcher`'s
/// function: where it is (its file, its `match` or `if`).
fn forwarding_dispatcher(
    context: &RuleContext<'_>,
    dispatcher: &MethodDispatcher,
) -> Option<(FileId, ByteSpan)> {
    super::initializing_front(context, dispatcher).map(|(file, front)| (file, keyword_span(front)))
}

/// The `match` (or first `if`) keyword of a dispatcher (a handler table's lookup).
fn keyword_span(dispatcher: &MethodDispatcher) -> ByteSpan {
    let keyword = if dispatcher.chain { "if" } else { "match" };
    ByteSpan::new(dispatcher.span.start, dispatcher.span.start + keyword.len())
}

fn diagnostic(
    file: FileId,
    dispatcher: &MethodDispatcher,
    catch_all: &CatchAllArm,
    source: Option<&SourceFile>,
    front: Option<(FileId, ByteSpan)>,
) -> Diagnostic {
    let fix = source
        .filter(|_| !dispatcher.chain && dispatcher.table.is_none())
        .and_then(|source| ping_arm_fix(file, dispatcher, catch_all.span, source));
    let help = if dispatcher.by_variants {
        "answer `ping` with an empty result (`{}`): add an arm for the variant `ping` is read into, before the catch-all".to_string()
    } else if fix.is_some() {
        "answer `ping` with an empty result: add a `\"ping\"` arm before the catch-all".to_string()
    } else {
        "answer `ping` with an empty result (`{}`): add a `\"ping\"` case before the catch-all that sends one"
            .to_string()
    };
    Diagnostic::new(
        &META,
        file,
        catch_all.span,
        "`ping` falls into this method-not-found arm: the dispatcher never answers it",
    )
    .with_labels(match front {
        None => vec![Label {
            file,
            span: keyword_span(dispatcher),
            message: "this dispatcher answers `initialize` and `tools/*` but has no `ping` arm"
                .into(),
        }],
        Some((front_file, front_span)) => vec![
            Label {
                file: front_file,
                span: front_span,
                message: "this dispatcher answers `initialize` and hands every other method on"
                    .into(),
            },
            Label {
                file,
                span: keyword_span(dispatcher),
                message: "to this one, which answers `tools/*` but has no `ping` arm".into(),
            },
        ],
    })
    .with_note(SPEC)
    .with_help(help)
    .with_fix(fix)
}

/// The fix: a `"ping"` arm before the catch-all, shaped like a sibling arm that answers with a
/// `json!` object, with that object emptied.
fn ping_arm_fix(
    file: FileId,
    dispatcher: &MethodDispatcher,
    catch_all: ByteSpan,
    source: &SourceFile,
) -> Option<Fix> {
    // A dispatcher in a macro's expansion: its spans may be the invocation's. A dispatcher over
    // enum variants takes no `"ping"` arm.
    if dispatcher.in_macro || dispatcher.by_variants {
        return None;
    }
    let template = dispatcher
        .arms
        .iter()
        .filter(|arm| arm.methods.iter().all(|m| !m.starts_with("notifications/")))
        .filter_map(|arm| arm.result_template.as_ref())
        .min_by_key(|t| t.body.end - t.body.start)?;
    let text = source.text();
    // A `match` over a tuple (`match (method, id) { (Some("initialize"), Some(id)) => .. }`): a
    // `"ping"` arm would need the tuple's pattern, and the sibling's body may use its bindings.
    let scrutinee = text.get(dispatcher.span.start..)?.strip_prefix("match")?;
    if scrutinee.trim_start().starts_with('(') {
        return None;
    }
    let body = arm_text(template, source)?;
    let line_start = text[..catch_all.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let before = text.get(line_start..catch_all.start)?;
    // A `match` over an optional method (`Some(other) => ..`) takes `Some("ping")`.
    let pattern = if text.get(catch_all.start..)?.starts_with("Some(") {
        "Some(\"ping\")"
    } else {
        "\"ping\""
    };
    let insertion = if before.chars().all(char::is_whitespace) {
        let newline = crate::edits::line_ending_at(text, catch_all.start);
        format!("{pattern} => {body},{newline}{before}")
    } else {
        format!("{pattern} => {body}, ")
    };
    Some(Fix {
        applicability: Applicability::Safe,
        message: format!("add `{pattern} => {body},` before the catch-all"),
        edits: vec![Edit {
            file,
            span: ByteSpan::new(catch_all.start, catch_all.start),
            replacement: insertion,
        }],
    })
}

/// A sibling arm's body with its `json!` object emptied.
fn arm_text(template: &ResultTemplate, source: &SourceFile) -> Option<String> {
    let text = source.text();
    let head = text.get(template.body.start..template.replace.start)?;
    let tail = text.get(template.replace.end..template.body.end)?;
    let body = format!("{head}{}{tail}", template.replacement);
    // A body over several lines is not copied: the arm would be hard to read.
    (!body.contains('\n')).then_some(body)
}

/// The message and note of a finding of a catch-all that answers nothing (see
/// [`crate::analysis::dispatchers::CatchAllArm::answers_nothing`]).
const SILENT: &str =
    "`ping` falls into this arm, which answers nothing: the request never gets a response";
const SILENT_NOTE: &str = "preview: a new shape: a catch-all whose value is no answer (`None`), so that `ping` goes unanswered";

/// The message and note of a finding of a catch-all whose `Err` no caller in the unit is shown
/// to answer (see [`crate::analysis::dispatchers::CatchAllArm::err_method_not_found`]).
const ERR_TO_CALLER: &str =
    "`ping` falls into this arm, which returns an error: the dispatcher never answers it with a result";
const ERR_TO_CALLER_NOTE: &str = "preview: a new shape: the catch-all returns an `Err` to its caller and no caller in the crate is shown to answer it, so `ping` gets an error or no response";

/// The note of a finding of the shape in preview (see [`crate::analysis::dispatchers::CatchAllArm::delegates`]).
const DELEGATES: &str = "preview: the catch-all hands the method on to a call and answers method-not-found only when that call does not handle it; whether the call answers `ping` is not shown";

/// The note of a finding of the shape in preview (see [`crate::analysis::dispatchers::CatchAllArm::by_conversion`]).
const BY_CONVERSION: &str = "preview: a new shape: the dispatcher matches an `Option` of the \
variants a conversion reads methods into, or its catch-all is the variant that conversion makes \
of every other method";
