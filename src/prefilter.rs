//! The byte-level pre-filter: a file that cannot contribute to any finding or summary is never
//! parsed. A file is parsed when it holds a word of a cancel path (`cancelled`, `fn cancel`,
//! `on_cancel`, `handle_cancel`, `cancellation`, configured hook and notification names), a
//! suppression comment, or, in cargo mode, a `mod x;` declaration (to follow the module tree).
//! Later waves parse the skipped files that define a function a cancel path may call, use an
//! in-flight registry that a cancel path retires requests from, or name a constant that holds
//! the cancellation method (see `follow_up_needles`); only cancel paths in files that speak MCP
//! or JSON-RPC are followed this way.

use std::collections::{BTreeSet, HashMap, HashSet};

use aho_corasick::AhoCorasick;

use crate::analysis::dispatch::MethodDispatcher;
use crate::analysis::facts::{Callee, FileFacts, FunctionFacts, OriginCondition, ReceiverType};
use crate::analysis::vocabulary::{Vocabulary, COMMON_METHODS};

/// Words without which a file holds no cancel path and no suppression.
const NEEDLES: &[&str] = &[
    "cancelled",
    "Cancelled",
    "CANCELLED",
    "fn cancel",
    "on_cancel",
    "handle_cancel",
    "ancellation",
    "mcp-lint:",
    // A stdio server's transport (MCP002 then looks at what else writes to stdout).
    "stdin()",
    "stdio()",
    "StdioTransport",
];

/// What writes to stdout: parsed in a run that serves MCP over stdio.
const STDOUT_NEEDLES: &[&str] = &[
    "println!",
    "print!",
    "stdout()",
    "tracing_subscriber",
    "fmt()",
    "fmt::layer",
    "FmtSubscriber",
    "ConsoleAppender",
    "_pretty",
];

/// Where error codes are built (MCP006): parsed in a run that speaks MCP.
const ERROR_CODE_NEEDLES: &[&str] = &[
    "ErrorCode(",
    "\"code\"",
    "code: -",
    "code: 0",
    "_ERROR: i",
    "_CODE: i",
    "RESOURCE_NOT_FOUND",
];

/// Where methods are dispatched and messages answered without an id (MCP003, MCP004): parsed in
/// a run that speaks MCP. The dispatcher needles are arms as rustfmt writes them (`"ping" =>`),
/// not the bare method names, which SDKs' models and tests hold in hundreds of files; a null-`id`
/// answer built from `Value::Null` or `id: None` is found in the files parsed for other reasons
/// (a hand-written server's dispatcher file, its transport).
const DISPATCH_NEEDLES: &[&str] = &[
    "\"initialize\" =>",
    "\"tools/list\" =>",
    "\"tools/call\" =>",
    "\"ping\" =>",
    "\"notifications/initialized\" =>",
    "== \"initialize\"",
    "== \"tools/",
    "== \"ping\"",
    "starts_with(\"notifications",
    "\"id\": null",
    "\"id\":null",
];

/// Marks a follow-up needle that is searched for alone: a file holding it is parsed even without
/// a send word.
pub const STANDALONE: char = '\u{1}';

/// Where progress is sent or its token built (MCP005): parsed in a run that speaks MCP.
const PROGRESS_NEEDLES: &[&str] = &[
    "notify_progress",
    "send_progress",
    "report_progress",
    "notifications/progress",
    "ProgressNotification",
    "progressToken",
    "ProgressToken",
];

/// Words without which a file holds no send: the follow-up waves parse only files with one.
pub const SEND_WORDS: &[&str] = &[
    "send", "respond", "reply", "write", "notify", "print", "progress",
];

/// How many calls deep the follow-up waves look for the functions a cancel path calls.
pub const MAX_CHAIN_DEPTH: usize = 2;

/// Decides which files are parsed.
pub struct Prefilter {
    /// One searcher for every word the decision needs, in three groups by pattern index: the
    /// words that alone make a file worth parsing, then those that do so only in code that
    /// speaks MCP (error codes, method dispatch, progress), then the words of such code.
    automaton: Option<AhoCorasick>,
    /// Where the second group starts.
    gated: usize,
    /// Where the third group starts.
    mcp_words: usize,
    everything: bool,
}

impl Prefilter {
    /// The pre-filter for a run; `everything` turns it off (every file is parsed).
    pub fn new(vocabulary: &Vocabulary, everything: bool) -> Self {
        let mut needles: Vec<String> = NEEDLES.iter().map(|s| s.to_string()).collect();
        needles.extend(vocabulary.cancel_hooks.iter().cloned());
        needles.extend(vocabulary.cancel_notifications.iter().cloned());
        let gated = needles.len();
        needles.extend(
            ERROR_CODE_NEEDLES
                .iter()
                .chain(DISPATCH_NEEDLES)
                .chain(PROGRESS_NEEDLES)
                .map(|s| s.to_string()),
        );
        let mcp_words = needles.len();
        needles.extend(
            crate::analysis::text::MCP_WORDS
                .iter()
                .map(|s| s.to_string()),
        );
        Prefilter {
            automaton: automaton(&needles),
            gated,
            mcp_words,
            everything,
        }
    }

    /// Whether a file's text must be parsed. `follows_modules`: its `mod x;` declarations are
    /// needed to find the rest of the crate. The text is scanned once.
    pub fn wants(&self, text: &str, follows_modules: bool) -> bool {
        if self.everything {
            return true;
        }
        let Some(automaton) = &self.automaton else {
            return true;
        };
        let (mut gated, mut speaks_mcp) = (false, false);
        let Ok(matches) = automaton.try_find_overlapping_iter(text) else {
            return true;
        };
        for found in matches {
            let index = found.pattern().as_usize();
            if index < self.gated {
                return true;
            } else if index < self.mcp_words {
                gated = true;
            } else {
                speaks_mcp = true;
            }
        }
        (follows_modules && declares_modules(text)) || (gated && speaks_mcp)
    }
}

/// Whether a follow-up needle stands alone (needs no send word beside it): it looks for a stdout
/// writer, an error code or a progress send.
pub fn is_stdout_needle(needle: &str) -> bool {
    STDOUT_NEEDLES.contains(&needle)
        || ERROR_CODE_NEEDLES.contains(&needle)
        || needle.starts_with(STANDALONE)
}

/// A fast multi-needle searcher (a DFA: the needle sets are small).
pub fn automaton<S: AsRef<[u8]>>(needles: &[S]) -> Option<AhoCorasick> {
    AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(needles)
        .or_else(|_| AhoCorasick::new(needles))
        .ok()
}

/// Whether a text may declare an out-of-line module (`mod name;`).
pub fn declares_modules(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("mod") {
        let at = from + found;
        from = at + 3;
        let before_ok =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !before_ok || !bytes.get(at + 3).is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let mut i = at + 3;
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        let ident_start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        if i == ident_start {
            continue;
        }
        while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if bytes.get(i) == Some(&b';') {
            return true;
        }
    }
    false
}

/// The name of a callee worth looking for: a function of the crate could answer to it. Tuple
/// struct and variant constructors, and the names std gives everything (`new`, `clone`, `get`,
/// ...), are not.
fn callee_name(callee: &Callee) -> Option<&str> {
    let name = match callee {
        Callee::Path(segments) => segments.last().map(String::as_str)?,
        Callee::Method { name, .. } => name.as_str(),
    };
    let lowercase = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    (lowercase && !COMMON_METHODS.contains(&name)).then_some(name)
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
                cancel_consts.contains(name.as_str())
                    || crate::analysis::vocabulary::is_cancel_const_name(name)
            }
        })
}

/// What the parsed files say must be looked for in the skipped ones: definitions (`fn name`) of
/// the functions cancel paths call (to a fixed point through the functions so found), the
/// in-flight registries cancel paths retire requests from, and constants holding the
/// cancellation method.
pub fn follow_up_needles<'a>(
    facts: impl Iterator<Item = &'a FileFacts> + Clone,
    vocabulary: &Vocabulary,
) -> BTreeSet<String> {
    let mut needles = BTreeSet::new();
    if facts.clone().any(|f| f.mentions_mcp) {
        // Error codes (MCP006) in code that speaks MCP.
        needles.extend(ERROR_CODE_NEEDLES.iter().map(|n| n.to_string()));
        // Not progress (MCP005): its facts are local to one function, and a file that sends
        // MCP progress names MCP (its types, its SDK), so the first pass finds it.
    }
    if facts.clone().any(|f| f.serves_stdio && f.mentions_mcp) {
        needles.extend(STDOUT_NEEDLES.iter().map(|n| n.to_string()));
    }
    for file in facts.clone() {
        for dispatcher in &file.dispatch.dispatchers {
            dispatcher_needles(dispatcher, &mut needles);
        }
    }
    let (cancel_consts, field_types) = cancel_consts_and_fields(facts.clone(), vocabulary);
    needles.extend(cancel_consts.iter().map(|name| name.to_string()));
    let mut chain = cancel_path_callees(facts.clone(), &cancel_consts, &field_types);
    for file in facts.clone().filter(|f| f.mentions_mcp) {
        for removal in &file.registry_removals {
            // The code that registers requests in it (and may answer them).
            needles.insert(format!("{}{COMPANION}insert(", removal.collection));
        }
    }
    follow_chain(facts, &mut chain, &field_types);
    for (name, ty) in chain {
        let companion = ty.map(|t| format!("{COMPANION}{t}")).unwrap_or_default();
        needles.insert(format!("fn {name}({companion}"));
        needles.insert(format!("fn {name}<{companion}"));
    }
    needles
}

/// A called function as the follow-up waves look for it: its name, and the type it belongs to
/// when the call shows it.
type CalleeKey = (String, Option<String>);

/// The types of the parsed structs' fields, by (struct, field).
type FieldTypes<'a> = HashMap<(&'a str, &'a str), &'a str>;

/// Whether a name may be one of the crate's own functions: not a constructor, nor a name std
/// gives everything.
fn own_function(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && !COMMON_METHODS.contains(&name)
}

/// A dispatcher whose catch-all answers method-not-found (MCP003, MCP004): its callers and the
/// functions its catch-all and notification arms call, where the message's `id` may be tested.
/// Only names of the crate's own functions are worth a search.
fn dispatcher_needles(dispatcher: &MethodDispatcher, needles: &mut BTreeSet<String>) {
    let Some(catch_all) = dispatcher.catch_all.as_ref().filter(|c| c.method_not_found) else {
        return;
    };
    if let Some((name, _)) = dispatcher
        .function
        .as_ref()
        .filter(|(n, _)| own_function(n))
    {
        needles.insert(format!("{STANDALONE}{name}("));
    }
    let notification_arms = dispatcher.arms.iter().filter(|a| {
        a.responds.is_some()
            && a.methods
                .iter()
                .any(|m| crate::analysis::dispatch::is_notification_method(m))
    });
    let callees = catch_all
        .calls
        .iter()
        .chain(notification_arms.flat_map(|a| &a.calls))
        .filter(|name| own_function(name));
    for callee in callees {
        needles.insert(format!("{STANDALONE}fn {callee}("));
        needles.insert(format!("{STANDALONE}fn {callee}<"));
    }
}

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
            receiver: Some(ReceiverType::Named(ty)),
            ..
        } => Some(ty.clone()),
        Callee::Method {
            receiver: Some(ReceiverType::SelfField(field)),
            ..
        } => caller
            .self_ty
            .as_deref()
            .and_then(|owner| field_types.get(&(owner, field.as_str())))
            .map(|t| t.to_string()),
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
    facts: impl Iterator<Item = &'a FileFacts>,
    cancel_consts: &HashSet<&str>,
    field_types: &FieldTypes<'_>,
) -> HashSet<CalleeKey> {
    let mut chain = HashSet::new();
    // Cancel paths in code that does not speak MCP (a runtime's own task cancellation) are not
    // followed into other files.
    for file in facts.filter(|f| f.mentions_mcp) {
        for function in &file.functions {
            for call in function
                .calls
                .iter()
                .filter(|c| on_cancel_path(file, &c.origins, cancel_consts))
            {
                chain.extend(callee_key(&call.callee, function, field_types));
            }
            for sink in function
                .sinks
                .iter()
                .filter(|s| on_cancel_path(file, &s.origins, cancel_consts))
            {
                chain.extend(
                    sink.if_returns_response
                        .iter()
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
                .flat_map(|sink| &sink.if_returns_response)
                .filter_map(key),
        )
}

/// Separates a needle from a word the file must also hold (the type a method belongs to).
pub const COMPANION: char = '\u{0}';

/// A searcher for follow-up needles: a file matches when it holds a needle and, where the needle
/// has one, its companion word.
pub struct NeedleSearch {
    automaton: AhoCorasick,
    companions: Vec<Vec<Option<String>>>,
}

impl NeedleSearch {
    pub fn new(needles: &[String]) -> Option<NeedleSearch> {
        let mut patterns: Vec<String> = Vec::new();
        let mut companions: Vec<Vec<Option<String>>> = Vec::new();
        for needle in needles {
            let needle = needle.trim_start_matches(STANDALONE);
            let (pattern, companion) = match needle.split_once(COMPANION) {
                Some((p, c)) => (p.to_string(), Some(c.to_string())),
                None => (needle.to_string(), None),
            };
            match patterns.iter().position(|p| *p == pattern) {
                Some(i) => companions[i].push(companion),
                None => {
                    patterns.push(pattern);
                    companions.push(vec![companion]);
                }
            }
        }
        Some(NeedleSearch {
            automaton: automaton(&patterns)?,
            companions,
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.automaton.find_iter(text).any(|m| {
            self.companions[m.pattern().as_usize()]
                .iter()
                .any(|c| c.as_deref().is_none_or(|c| text.contains(c)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_module_declarations() {
        assert!(declares_modules("mod a;"));
        assert!(declares_modules("pub mod server ;\n"));
        assert!(declares_modules("#[path = \"x.rs\"]\nmod  x;"));
        assert!(!declares_modules("mod a { fn f() {} }"));
        assert!(!declares_modules("let model = 1; // a mode;"));
        assert!(!declares_modules("use crate::module;"));
    }

    #[test]
    fn wants_cancel_words() {
        let filter = Prefilter::new(&Vocabulary::default(), false);
        assert!(filter.wants("fn f(ct: T) { ct.cancelled().await; }", false));
        assert!(filter.wants("// mcp-lint: allow(MCP001)", false));
        assert!(!filter.wants("fn f() { tx.send(1); }", false));
        assert!(filter.wants("mod a;", true));
        assert!(!filter.wants("mod a;", false));
        assert!(Prefilter::new(&Vocabulary::default(), true).wants("", false));
    }

    #[test]
    fn wants_progress_in_code_that_speaks_mcp() {
        let filter = Prefilter::new(&Vocabulary::default(), false);
        assert!(filter.wants(
            "use rmcp::model::*; fn f() { peer.notify_progress(p); }",
            false
        ));
        assert!(filter.wants(r#"json!({"method": "notifications/progress"})"#, false));
        assert!(!filter.wants("fn f() { bar.notify_progress(50); }", false));
    }
}
