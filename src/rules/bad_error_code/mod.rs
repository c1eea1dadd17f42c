//! MCP006 `bad-error-code`: JSON-RPC error codes that mean nothing (`0`) or that the JSON-RPC and
//! MCP specifications reserve.

pub mod facts;

use foldhash::{HashMap, HashMapExt};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus};
use crate::protocol::ProtocolVersion;
use crate::rules::contract::{Rule, RuleContext};
use crate::source::{ByteSpan, FileId};

/// Where error codes are built: parsed in a run that speaks MCP.
const ERROR_CODE_WORDS: &[&str] = &[
    "ErrorCode(",
    "\"code\"",
    "code: -",
    "code: 0",
    "_ERROR: i",
    "_CODE: i",
    "RESOURCE_NOT_FOUND",
];

pub static META: RuleMeta = RuleMeta {
    code: "MCP006",
    name: "bad-error-code",
    default_severity: Severity::Warning,
    summary: "an error code is 0, or one the JSON-RPC or MCP specification reserves",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../../rules/MCP006-bad-error-code.md"),
    status: RuleStatus::Preview,
};

/// What is wrong with a code, if anything: the message, the severity and the specification's
/// words.
fn judge(code: i64, versions: &[ProtocolVersion]) -> Option<(String, Severity, &'static str)> {
    let targets_2026 = versions.contains(&ProtocolVersion::V2026_07_28);
    let targets_2025 = versions.contains(&ProtocolVersion::V2025_11_25);
    const RESERVED: &str = "JSON-RPC 2.0 section 5.1: codes from -32768 to -32000 are reserved for pre-defined errors; those not defined are reserved for future use";
    const MCP_RANGE: &str = "MCP 2026-07-28 (basic/index, Error Codes): implementations MUST NOT emit a code in -32020..-32099 that the specification does not define, nor the retired -32002 and -32042";
    match code {
        0 => Some((
            "error code 0 means nothing: it is the fingerprint of answering a cancelled request (the Python SDK's `Request cancelled`)".into(),
            Severity::Warning,
            "JSON-RPC 2.0 and MCP define no code 0; use a standard code (-32600..-32603, -32700) or an application code outside -32768..-32000",
        )),
        -32700 | -32600 | -32601 | -32602 | -32603 => None,
        -32002 | -32042 if targets_2025 => None,
        -32002 | -32042 => Some((
            format!("error code {code} was retired in MCP 2026-07-28"),
            Severity::Error,
            MCP_RANGE,
        )),
        -32022..=-32020 => None,
        -32099..=-32023 if targets_2026 => Some((
            format!("error code {code} lies in the range MCP reserves for codes it defines, and it defines none there"),
            Severity::Error,
            MCP_RANGE,
        )),
        -32019..=-32000 => None,
        -32768..=-32000 => Some((
            format!("error code {code} is reserved by JSON-RPC and defined by neither JSON-RPC nor MCP"),
            Severity::Warning,
            RESERVED,
        )),
        _ => None,
    }
}

/// What is wrong with a code in this unit ([`judge`]). A code of MCP's own range is wrong only
/// for 2026-07-28; where 2025-11-25 is targeted too (the default), it is an
/// implementation-defined server error for a 2025-11-25 client. That shape is in preview by first
/// contact (docs/ecosystem.md, batches 36 and 37: its one finding, docgen's `ErrorCode(-32029)`
/// in an rmcp server that speaks 2025-11-25, was false); with 2026-07-28 targeted alone it is
/// stable.
fn judge_in(context: &RuleContext<'_>, code: i64) -> Option<(String, Severity, &'static str)> {
    let versions = &context.settings.protocol_versions;
    let (message, severity, note) = judge(code, versions)?;
    let for_2026_only =
        (-32099..=-32023).contains(&code) && versions.contains(&ProtocolVersion::V2025_11_25);
    if !for_2026_only {
        return Some((message, severity, note));
    }
    context
        .preview()
        .then_some((message, severity, MCP_RANGE_BESIDE_2025))
}

const MCP_RANGE_BESIDE_2025: &str = "MCP 2026-07-28 (basic/index, Error Codes): implementations MUST NOT emit a code in -32020..-32099 that the specification does not define; under 2025-11-25, also targeted, the code is an implementation-defined server error (preview)";

pub struct BadErrorCode;

impl Rule for BadErrorCode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn collectors(&self) -> &'static [&'static dyn crate::analysis::walk::Collects] {
        &[&facts::ErrorCodes]
    }

    fn mcp_words(&self) -> &'static [&'static str] {
        ERROR_CODE_WORDS
    }

    fn follow_up(
        &self,
        facts: &[&crate::analysis::facts::FileFacts],
        _vocabulary: &crate::analysis::vocabulary::Vocabulary,
    ) -> std::collections::BTreeSet<String> {
        // Error codes in code that speaks MCP, in any file of the run; and the functions whose
        // value is used as a code, wherever the crate defines them.
        if !facts.iter().any(|f| f.mentions_mcp) {
            return std::collections::BTreeSet::new();
        }
        let used = facts
            .iter()
            .flat_map(|f| self::facts::used_as_codes(f))
            .map(|(name, _)| format!("{}fn {name}(", crate::prefilter::STANDALONE));
        // The files that read a constant named as a code (which need not name a code at all).
        let constants = facts
            .iter()
            .flat_map(|f| self::facts::constant_codes(f))
            .map(|(name, ..)| format!("{}{name}", crate::prefilter::STANDALONE));
        // The functions named for an error that the crate's functions named for an error hand a
        // parameter on to, at a code's place: whether that parameter is a code depends on what
        // the called one does with it (see `code_params`); `fn name` without `(`, as a generic
        // one is `fn name<T>(`.
        let forwarded = facts
            .iter()
            .flat_map(|f| self::facts::param_codes(f))
            .filter(|(name, ..)| self::facts::is_error_call(name))
            .flat_map(|(_, _, forwarded)| forwarded)
            .filter(|(.., at_code)| *at_code)
            .map(|(_, callee, ..)| format!("{}fn {callee}", crate::prefilter::STANDALONE));
        // The functions of the crate that the file hands a literal at a code's place
        // (`ASTError::syntax_error(0, 0, ..)`): what the called one does with that parameter
        // decides whether it is a code (see `code_params`), so its definition is read even where
        // it names no code (batch 89: just-mcp's line and column were taken for the code 0).
        let called = facts
            .iter()
            .flat_map(|f| self::facts::call_codes(f))
            .map(|(_, callee, _)| format!("{}fn {callee}", crate::prefilter::STANDALONE));
        crate::prefilter::standalone(ERROR_CODE_WORDS)
            .chain(used)
            .chain(constants)
            .chain(forwarded)
            .chain(called)
            .collect()
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        let files = context.graph.files();
        if !context.serves_mcp() {
            return;
        }
        // The crate's functions named for an error, and the parameters each uses as a code.
        // The libraries of the workspace the unit depends on define such functions too
        // (`WorkerResponse::error(0, ..)` of a types crate, whose first parameter is a private
        // protocol's request id: batch 120's llama_cpp_rs_chat).
        let mut defined = product_facts(context, self::facts::param_codes);
        for (_, library) in context.libraries {
            defined.extend(library.files().iter().flat_map(|(file, f)| {
                self::facts::param_codes(f)
                    .into_iter()
                    .map(move |item| (*file, item))
            }));
        }
        let param_codes = code_params(&defined);
        for (file, facts) in files {
            let call_codes = self::facts::call_codes(facts);
            for (span, code) in &self::facts::error_codes(facts) {
                // A literal handed to a function of the crate that uses that parameter as no
                // code (`send_error(&shared, 0, ..)` whose second parameter is a private
                // protocol's request id) is that function's other data.
                let other_data = call_codes.iter().find(|(at, _, _)| at == span).is_some_and(
                    |(_, callee, position)| {
                        param_codes
                            .get(callee.as_str())
                            .is_some_and(|used| !used.contains(position))
                    },
                );
                if !other_data {
                    out.extend(code_diagnostic(context, *file, *span, *code));
                }
            }
        }
        // An integer of the reserved range handed to a function of the crate, under any name,
        // that writes that parameter as the `code` of the JSON it builds.
        let wire: Vec<(String, Vec<usize>)> = product_facts(context, self::facts::wire_codes)
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        for (file, facts) in files {
            for (span, callee, position, code) in self::facts::handed_codes(facts) {
                let used = wire
                    .iter()
                    .any(|(name, params)| *name == callee && params.contains(&position));
                if used {
                    out.extend(code_diagnostic(context, *file, span, code));
                }
            }
        }
        let before = out.len();
        constant_codes(context, out);
        returned_codes(context, out);
        // A constant both named as a code and returned by a function used as one is reported
        // once, where it is read.
        let mut seen = std::collections::HashSet::new();
        let found = out.split_off(before);
        out.extend(found.into_iter().filter(|d| seen.insert((d.file, d.span))));
    }
}

/// Per name of the crate's functions named for an error (and of those that use a parameter as
/// a code), the positions of the parameters one of them uses as an error code: itself, or by
/// handing it on to one of the crate's functions that uses that argument as a code, or to a call
/// named for an error, at a code's place, of a function that is none of the crate's (an SDK's,
/// say); worked out to a fixed point. A count handed on to another of the crate's functions
/// named for an error that uses it as no code is no code, whatever the names say.
fn code_params(
    defined: &[(FileId, self::facts::ParamCodes)],
) -> std::collections::HashMap<&str, std::collections::BTreeSet<usize>> {
    let mut used: std::collections::HashMap<&str, std::collections::BTreeSet<usize>> =
        std::collections::HashMap::new();
    for (_, (name, own, _)) in defined {
        used.entry(name.as_str()).or_default().extend(own);
    }
    loop {
        let mut grew = false;
        for (_, (name, _, forwarded)) in defined {
            for (param, callee, position, at_code) in forwarded {
                let code = match used.get(callee.as_str()) {
                    Some(theirs) => theirs.contains(position),
                    None => *at_code,
                };
                if code && used.entry(name.as_str()).or_default().insert(*param) {
                    grew = true;
                }
            }
        }
        if !grew {
            return used;
        }
    }
}

const HELP: &str = "use a standard code (-32602 invalid params, -32603 internal error, ...) or an application code outside -32768..-32000";

/// The integer literals a function returns when its value is used as an error code
/// (`ErrorCode(err.to_mcp_error_code())`): each is a code. Only a function whose name is no
/// other returning function's in the unit: which one a call of a shared name reaches is not
/// known here.
fn returned_codes(context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let used = product_facts(context, self::facts::used_as_codes);
    if used.is_empty() {
        return;
    }
    // Each name's first use, and how many returning functions have it (one pass each: a tree
    // of many such functions costs their number, not its square).
    let mut first_use: HashMap<&str, (FileId, ByteSpan)> = HashMap::new();
    for (file, (name, span)) in &used {
        first_use.entry(name.as_str()).or_insert((*file, *span));
    }
    let returning = product_facts(context, self::facts::returned_codes);
    let mut named: HashMap<&str, usize> = HashMap::new();
    for (_, (name, _)) in &returning {
        *named.entry(name.as_str()).or_default() += 1;
    }
    let flow = product_facts(context, self::facts::returned_flow);
    let reached = reached_from_uses(&first_use, &named, &flow);
    let shown = |root: &str| -> Option<crate::diagnostic::Label> {
        let &(use_file, use_span) = first_use.get(root)?;
        Some(crate::diagnostic::Label {
            file: use_file,
            span: use_span,
            message: format!("`{root}` gives the error code here"),
        })
    };
    for (file, (name, codes)) in &returning {
        if named.get(name.as_str()) != Some(&1) {
            continue;
        }
        let Some(label) = reached.get(name.as_str()).and_then(|root| shown(root)) else {
            continue;
        };
        for (span, code) in codes {
            out.extend(shown_code(context, (*file, *span), *code, label.clone()));
        }
    }
    returned_constants(context, &flow, &reached, &shown, out);
}

/// The functions whose value a function used as a code returns (`Self::sdk_error_to_code(e)` in
/// the tail of `to_json_rpc_error_code`), to a fixed point, each with the used function it is
/// reached from: their values are the code too. A name is followed only when one function of the
/// unit has it (which one a call of a shared name reaches is not known here). Each function's
/// calls are indexed once, so the walk costs the calls' number.
fn reached_from_uses<'a>(
    first_use: &HashMap<&'a str, (FileId, ByteSpan)>,
    named: &HashMap<&'a str, usize>,
    flow: &'a [(FileId, self::facts::ReturnedFlow)],
) -> HashMap<&'a str, &'a str> {
    let mut flow_named: HashMap<&str, usize> = HashMap::new();
    let mut calls_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for (_, (name, _, calls)) in flow {
        *flow_named.entry(name.as_str()).or_default() += 1;
        calls_of
            .entry(name.as_str())
            .or_default()
            .extend(calls.iter().map(String::as_str));
    }
    let unique = |name: &str| {
        named.get(name).copied().unwrap_or(0) <= 1
            && flow_named.get(name).copied().unwrap_or(0) <= 1
    };
    let mut reached: HashMap<&str, &str> = HashMap::new();
    let mut work: Vec<&str> = first_use
        .keys()
        .copied()
        .filter(|name| unique(name))
        .collect();
    for name in &work {
        reached.insert(name, name);
    }
    while let Some(name) = work.pop() {
        let root = reached.get(name).copied().unwrap_or(name);
        for &callee in calls_of.get(name).map(Vec::as_slice).unwrap_or_default() {
            if unique(callee) && !reached.contains_key(callee) {
                reached.insert(callee, root);
                work.push(callee);
            }
        }
    }
    reached
}

/// The constants a function reached from a use as a code returns, under any name, each defined
/// once in the unit: reported at the constant's value, the return and the use shown.
fn returned_constants(
    context: &RuleContext<'_>,
    flow: &[(FileId, self::facts::ReturnedFlow)],
    reached: &HashMap<&str, &str>,
    shown: &dyn Fn(&str) -> Option<crate::diagnostic::Label>,
    out: &mut Vec<Diagnostic>,
) {
    let mut constants: HashMap<&str, Vec<(FileId, ByteSpan, i64)>> = HashMap::new();
    let defined = product_facts(context, self::facts::int_constants);
    for (file, (name, span, code)) in &defined {
        constants
            .entry(name.as_str())
            .or_default()
            .push((*file, *span, *code));
    }
    let mut reported: std::collections::BTreeSet<(FileId, ByteSpan)> =
        std::collections::BTreeSet::new();
    for (file, (name, returned, _)) in flow {
        let Some(label) = reached.get(name.as_str()).and_then(|root| shown(root)) else {
            continue;
        };
        for (at, constant) in returned {
            let Some([(def_file, def_span, code)]) =
                constants.get(constant.as_str()).map(Vec::as_slice)
            else {
                continue;
            };
            if !reported.insert((*def_file, *def_span)) {
                continue;
            }
            let returned_here = crate::diagnostic::Label {
                file: *file,
                span: *at,
                message: format!("`{name}` returns `{constant}` here"),
            };
            out.extend(
                shown_code(context, (*def_file, *def_span), *code, label.clone())
                    .map(|d| d.with_labels([returned_here])),
            );
        }
    }
}

/// The constants named as error codes (`const CANCELLED_ERROR: i32 = 0;`) that product code of
/// the unit reads: a constant nothing reads sends nothing. Reported at the value, the read shown.
fn constant_codes(context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
    let constants = product_facts(context, self::facts::constant_codes);
    if constants.is_empty() {
        return;
    }
    let mut first_read: HashMap<String, (FileId, ByteSpan)> = HashMap::new();
    for (file, (name, span)) in product_facts(context, self::facts::read_constants) {
        first_read.entry(name).or_insert((file, span));
    }
    for (file, (name, span, code)) in &constants {
        let Some(&(read_file, read_span)) = first_read.get(name) else {
            continue;
        };
        let shown = crate::diagnostic::Label {
            file: read_file,
            span: read_span,
            message: format!("`{name}` is read here"),
        };
        out.extend(shown_code(context, (*file, *span), *code, shown));
    }
}

/// The finding for a code at `span`, if the code is a bad one, with the label that shows where
/// its value is used.
fn shown_code(
    context: &RuleContext<'_>,
    (file, span): (FileId, ByteSpan),
    code: i64,
    shown: crate::diagnostic::Label,
) -> Option<Diagnostic> {
    code_diagnostic(context, file, span, code).map(|d| d.with_labels(vec![shown]))
}

/// The finding for a code at `span`, if the code is a bad one.
fn code_diagnostic(
    context: &RuleContext<'_>,
    file: FileId,
    span: ByteSpan,
    code: i64,
) -> Option<Diagnostic> {
    let (message, severity, note) = judge_in(context, code)?;
    Some(
        Diagnostic::new(&META, file, span, message)
            .with_severity(severity)
            .with_note(note.to_string())
            .with_help(HELP)
            .with_fix(replacement_fix(context, file, span, code)),
    )
}

/// One of MCP006's facts from every product file of the unit (test code answers no client), each
/// item with its file.
fn product_facts<T>(
    context: &RuleContext<'_>,
    fact: fn(&crate::analysis::facts::FileFacts) -> Vec<T>,
) -> Vec<(FileId, T)> {
    context
        .graph
        .files()
        .iter()
        .filter(|(file, _)| !context.is_test_file(*file))
        .flat_map(|(file, f)| fact(f).into_iter().map(move |item| (*file, item)))
        .collect()
}

/// The replacement the specification names for a retired code: `-32002` (resource not found)
/// became `-32602` (invalid params) in 2026-07-28. Offered only where the code is reported (a
/// server that targets 2026-07-28 alone) and written as the plain literal.
fn replacement_fix(
    context: &RuleContext<'_>,
    file: FileId,
    span: ByteSpan,
    code: i64,
) -> Option<Fix> {
    if code != -32002 {
        return None;
    }
    let text = context
        .sources
        .get(file)?
        .text()
        .get(span.start..span.end)?;
    let (span, replacement, shown) = if text.trim() == "-32002" {
        (span, "-32602", "-32602 (invalid params)")
    } else if let Some(prefix) = text.strip_suffix("RESOURCE_NOT_FOUND") {
        // `ErrorCode::RESOURCE_NOT_FOUND` becomes `ErrorCode::INVALID_PARAMS`.
        let start = span.start + prefix.len();
        (
            ByteSpan::new(start, span.end),
            "INVALID_PARAMS",
            "`ErrorCode::INVALID_PARAMS` (-32602)",
        )
    } else {
        return None;
    };
    Some(Fix {
        applicability: Applicability::Safe,
        message: format!(
            "use {shown}, which MCP 2026-07-28 names for a resource that is not found"
        ),
        edits: vec![Edit {
            file,
            span,
            replacement: replacement.into(),
        }],
    })
}
