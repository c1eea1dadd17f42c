//! Progress facts (MCP005): progress notifications that can outlive their request, and progress
//! tokens made up instead of taken from the request.
//!
//! A hook on the shared walk ([`crate::analysis::walk`]) finds:
//!
//! * a spawned task (`tokio::spawn`, `tokio::task::spawn`, `std::thread::spawn`, ...) whose body
//!   sends progress, whose handle the function drops (`tokio::spawn(..);`, `let _ = ..`) or binds
//!   to a name it never uses again, and which does not answer the request itself;
//! * a progress notification whose token is a literal or a `format!` (directly, or through a
//!   local bound to one).
//!
//! Both are conservative: a handle that is used again in any way (awaited, joined, returned,
//! stored, passed on) is taken to be waited for.

use std::collections::HashMap;

use proc_macro2::{TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::token::Comma;
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Stmt};

use crate::analysis::facts::{FactKey, FileFacts};
use crate::analysis::spans::{byte_span, start_of, Bounds};
use crate::analysis::syntax::{self, macro_name, path_segments};
use crate::analysis::vocabulary::{self as vocab, Vocabulary};
use crate::analysis::walk::{Collects, Hook, Node, Scope};
use crate::source::ByteSpan;

/// What is wrong with a progress send.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ProgressIssue {
    /// Progress sent from a spawned task that the function does not wait for.
    Detached {
        /// The spawn call.
        spawn: ByteSpan,
        /// The name the handle is bound to (and never used again); `None` when it is dropped.
        handle: Option<String>,
    },
    /// A progress notification's token built from literals or `format!`.
    FabricatedToken,
}

/// A progress send (or token) that MCP005 may report.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ProgressFinding {
    pub issue: ProgressIssue,
    /// The progress send (detached), or the made-up token expression.
    pub span: ByteSpan,
    /// How the send or token reads, e.g. "`.notify_progress(..)`".
    pub what: String,
    /// The enclosing function's name (empty outside functions).
    pub function: String,
    /// The function deals with tasks (its name or type says `task`, or it names
    /// `CreateTaskResult`, `TaskStatus`, `task_id`, `tasks/...`): a 2025-11-25 task-augmented
    /// request may send progress after its `CreateTaskResult`.
    pub task_context: bool,
    /// Inside test code (`#[cfg(test)]`, `#[test]`).
    pub in_test: bool,
}

/// Words in a text without which it holds nothing for this pass.
pub const PROGRESS_WORDS: &[&str] = &["progress", "Progress"];

/// Whether the pass can find anything in a text.
pub fn might_apply(text: &str) -> bool {
    // Progress outlives its request only from a spawned task; a token is made up only where
    // one is built.
    const SHAPES: &[&str] = &[
        "spawn",
        "ProgressToken",
        "progressToken",
        "progress_token",
        "ProgressNotificationParam",
    ];
    PROGRESS_WORDS.iter().any(|w| text.contains(w)) && SHAPES.iter().any(|w| text.contains(w))
}

/// Calls that send a progress notification by their name.
const PROGRESS_CALLS: &[&str] = &[
    "notify_progress",
    "send_progress",
    "report_progress",
    "send_progress_notification",
    "notify_progress_notification",
];

/// The progress notification's method.
const PROGRESS_METHOD: &str = "notifications/progress";

/// Functions whose call starts a task that can outlive the caller.
const SPAWNS: &[&str] = &["spawn", "spawn_local", "spawn_blocking"];

/// Identifiers that mark task-augmented request code (2025-11-25).
const TASK_IDENTS: &[&str] = &[
    "CreateTaskResult",
    "TaskStatus",
    "TaskState",
    "TaskId",
    "task_id",
    "TaskSupport",
];

/// Result types of MCP requests: a task that builds one answers its request.
const RESULT_TYPES: &[&str] = &[
    "CallToolResult",
    "ServerResult",
    "GetPromptResult",
    "ReadResourceResult",
    "CompleteResult",
];

fn is_progress_call(name: &str) -> bool {
    PROGRESS_CALLS.contains(&name)
}

/// Whether a type's name is a progress notification (or its parameters).
fn is_progress_type(name: &str) -> bool {
    name.contains("ProgressNotification")
}

/// Whether a struct literal of this type carries a progress notification's token.
fn is_progress_params_type(name: &str) -> bool {
    is_progress_type(name) || name == "ProgressParams" || name == "ProgressParam"
}

/// The progress findings of a file (MCP005).
pub static FACTS: FactKey<Vec<ProgressFinding>> = FactKey::new("MCP005");

/// The facts MCP005 collects: its findings, by file.
pub struct ProgressFacts;

impl Collects for ProgressFacts {
    fn key(&self) -> &'static str {
        FACTS.name()
    }

    fn hook<'a>(
        &self,
        text: &'a str,
        base: usize,
        vocabulary: &'a Vocabulary,
    ) -> Option<Box<dyn Hook + 'a>> {
        // A file that may speak MCP may call a progress helper of another file with a token it
        // makes up ([`MadeUpArguments`]), whatever the helper is called.
        (might_apply(text) || crate::analysis::text::may_speak_mcp(text)).then(
            || -> Box<dyn Hook + 'a> {
                Box::new(Collector {
                    vocab: vocabulary,
                    base,
                    out: Vec::new(),
                    reported: std::collections::HashSet::new(),
                    functions: Vec::new(),
                    saved: Vec::new(),
                    in_test: false,
                    calls: Vec::new(),
                    token_params: Vec::new(),
                    made_up_arguments: Vec::new(),
                    fresh_text: Vec::new(),
                    macros: Vec::new(),
                })
            },
        )
    }
}

/// The findings a file's facts hold.
pub fn findings(facts: &FileFacts) -> Vec<ProgressFinding> {
    facts.rules.get(&FACTS)
}

fn span_of(base: usize, node: &impl Bounds) -> ByteSpan {
    let (first, last) = node.bounds();
    byte_span(first, last, base)
}

fn token_span(base: usize, first: &TokenTree, last: &TokenTree) -> ByteSpan {
    byte_span(first.span(), last.span(), base)
}

struct FnState {
    name: String,
    task_context: bool,
    /// Where each identifier of the body is last used (its start offset): is a handle used
    /// again after the statement that binds it.
    last_use: HashMap<String, usize>,
    /// Locals bound to a made-up token: name, the span of the value.
    fabricated: HashMap<String, ByteSpan>,
    /// Locals bound to the value of a call without arguments of a function of the crate
    /// (`let token = progress::next_token();`): the call, which may make up fresh text
    /// ([`FRESH_TEXT`]).
    fresh_locals: HashMap<String, crate::analysis::facts::Callee>,
    /// The body names `notifications/progress`: a `json!` with a `"progressToken"` in it is a
    /// progress notification's params (`let params = json!({"progressToken": token, ..});`
    /// put in the notification after).
    sends_progress: bool,
    /// The function is handed a request or reads messages itself: it takes a parameter other
    /// than `self`, or its body reads a stream (`stdin`, `read_line`, `lines`, `recv`) or parses
    /// messages (`from_str`, `from_slice`, `from_reader`, `from_value`). A function that does
    /// neither (a mock transport's `receive(&mut self)`, a demo's `main` that feeds sample
    /// messages to a transport) has no request whose token it could have used, so a token it
    /// makes up is a sample, not the bug.
    sees_request: bool,
    /// How many spawned tasks the current code is inside.
    spawn_depth: usize,
    /// How many calls that name `notifications/progress` the current code is an argument of.
    progress_call_depth: usize,
    /// The names of the parameters (the receiver not counted), by position.
    params: Vec<Option<String>>,
    /// The parameters (a mask of their positions) whose value becomes a progress
    /// notification's token.
    token_params: u64,
    /// Where the function's name is (to find its facts in the crate graph).
    name_span: ByteSpan,
}

/// A function that makes one of its parameters the token of a progress notification it sends:
/// a call that hands it text made up at the call makes up the token ([`TOKEN_PARAMS`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenParams {
    /// The function's name, where it is written.
    pub name_span: ByteSpan,
    /// The parameters (a mask of their positions, the receiver not counted).
    pub params: u64,
}

/// The functions of a file that make a parameter a progress token (MCP005).
pub static TOKEN_PARAMS: FactKey<Vec<TokenParams>> = FactKey::new("MCP005-token-params");

/// A call of a function of the crate (a method on `self`, `Self::f(..)`, a free function called
/// by its name alone) that hands it text made up at the call: a made-up progress token when the
/// callee makes that parameter one ([`TokenParams`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MadeUpArguments {
    /// Where the calling function's name is.
    pub caller: ByteSpan,
    pub callee: crate::analysis::facts::Callee,
    /// The made-up arguments: position (the receiver not counted) and span.
    pub args: Vec<(u8, ByteSpan)>,
    /// The arguments that are the value of a call without arguments of a function of the crate
    /// (directly or through a local): position, span, and the call, whose text is made up when
    /// the function makes up fresh text ([`FRESH_TEXT`]).
    #[serde(default)]
    pub fresh: Vec<(u8, ByteSpan, crate::analysis::facts::Callee)>,
}

/// The functions of a file, by where their names are, that make up fresh text of their own: no
/// parameters, and a value that is `format!` of locals bound to a counter's next value
/// (`COUNTER.fetch_add(1, ..)`) or a new UUID (`fn next_progress_token() -> String { let n =
/// COUNTER.fetch_add(1, Relaxed); format!("{n:016x}") }`): text no request gave (MCP005).
pub static FRESH_TEXT: FactKey<Vec<ByteSpan>> = FactKey::new("MCP005-fresh-text");

/// The calls of a file that hand made-up text to a function of the crate (MCP005).
pub static MADE_UP_ARGUMENTS: FactKey<Vec<MadeUpArguments>> =
    FactKey::new("MCP005-made-up-arguments");

/// Functions of the prelude called with text that is no token: `Some("x")`, `Err("x")`.
const PRELUDE_CALLS: &[&str] = &["Some", "Ok", "Err", "Box", "String", "Vec", "drop", "panic"];

struct Collector<'v> {
    vocab: &'v Vocabulary,
    /// The macros around the current node, innermost last: whether each is a `select!`, whose
    /// branches are code (a progress notification sent in one, batch 90's rlm).
    macros: Vec<bool>,
    base: usize,
    out: Vec<ProgressFinding>,
    /// What is already in `out` (a send is found once per enclosing spawn statement).
    reported: std::collections::HashSet<(ByteSpan, ProgressIssue)>,
    functions: Vec<FnState>,
    /// The functions of the enclosing modules' enclosing functions (a module's functions are
    /// not the enclosing function's).
    saved: Vec<Vec<FnState>>,
    /// Whether the node being looked at is test code.
    in_test: bool,
    /// The calls the walk is inside, innermost last: whether their arguments are in a spawned
    /// task, and in a call that names `notifications/progress`.
    calls: Vec<(bool, bool)>,
    /// The file's functions that make a parameter a progress token.
    token_params: Vec<TokenParams>,
    /// The file's calls that hand made-up text to a function of the crate.
    made_up_arguments: Vec<MadeUpArguments>,
    /// The file's functions that make up fresh text ([`FRESH_TEXT`]).
    fresh_text: Vec<ByteSpan>,
}

impl Collector<'_> {
    fn span(&self, node: &impl Bounds) -> ByteSpan {
        span_of(self.base, node)
    }

    fn enter_function(&mut self, sig: &syn::Signature, block: &syn::Block, self_ty: Option<&str>) {
        let name = sig.ident.to_string();
        if makes_fresh_text(sig, block) {
            self.fresh_text
                .push(byte_span(sig.ident.span(), sig.ident.span(), self.base));
        }
        let mut scan = BodyScan::default();
        // The signature too: a `task_id` parameter, a `CreateTaskResult` return type.
        scan.visit_signature(sig);
        scan.visit_block(block);
        let self_ty_task = self_ty.is_some_and(|t| t.to_ascii_lowercase().contains("task"));
        let task_context =
            name.to_ascii_lowercase().contains("task") || self_ty_task || scan.mentions_tasks;
        let takes_input = sig
            .inputs
            .iter()
            .any(|input| matches!(input, syn::FnArg::Typed(_)));
        let reads_messages = scan.idents.iter().any(|(ident, _)| {
            matches!(
                ident.as_str(),
                "stdin"
                    | "read_line"
                    | "lines"
                    | "recv"
                    | "from_str"
                    | "from_slice"
                    | "from_reader"
                    | "from_value"
            )
        });
        self.functions.push(FnState {
            name,
            task_context,
            last_use: scan
                .idents
                .into_iter()
                .fold(HashMap::new(), |mut last, (name, at)| {
                    let entry = last.entry(name).or_insert(at);
                    *entry = (*entry).max(at);
                    last
                }),
            fabricated: HashMap::new(),
            fresh_locals: HashMap::new(),
            sends_progress: scan.mentions_progress,
            sees_request: takes_input || reads_messages,
            spawn_depth: 0,
            progress_call_depth: 0,
            params: sig
                .inputs
                .iter()
                .filter_map(|input| match input {
                    syn::FnArg::Typed(typed) => Some(match &*typed.pat {
                        Pat::Ident(ident) => Some(ident.ident.to_string()),
                        _ => None,
                    }),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect(),
            token_params: 0,
            name_span: byte_span(sig.ident.span(), sig.ident.span(), self.base),
        });
    }

    /// A token expression that names one of the function's parameters (through `&`, `.clone()`,
    /// `.to_string()`, `.into()`): that parameter becomes a progress token.
    fn note_token_param(&mut self, name: &str) {
        let Some(state) = self.functions.last_mut() else {
            return;
        };
        if let Some(position) = state
            .params
            .iter()
            .position(|p| p.as_deref() == Some(name))
            .filter(|p| *p < 64)
        {
            state.token_params |= 1 << position;
        }
    }

    fn push(&mut self, issue: ProgressIssue, span: ByteSpan, what: String) {
        if !self.reported.insert((span, issue.clone())) {
            return;
        }
        let (function, task_context) = self
            .functions
            .last()
            .map(|f| (f.name.clone(), f.task_context))
            .unwrap_or_default();
        self.out.push(ProgressFinding {
            issue,
            span,
            what,
            function,
            task_context,
            in_test: self.in_test,
        });
    }

    /// A statement that spawns a task and drops its handle (or binds it to a name never used
    /// again): report the task's first progress send, unless the task answers the request.
    fn check_spawn_statement(&mut self, stmt: &Stmt) {
        let Some(state) = self.functions.last() else {
            return;
        };
        if state.spawn_depth > 0 {
            return;
        }
        let (call, handle) = match stmt {
            Stmt::Expr(expr, Some(_)) => match spawn_call(expr) {
                Some(call) => (call, None),
                None => return,
            },
            Stmt::Local(local) => {
                let Some(init) = &local.init else { return };
                if init.diverge.is_some() {
                    return;
                }
                let Some(call) = spawn_call(&init.expr) else {
                    return;
                };
                match &local.pat {
                    Pat::Wild(_) => (call, None),
                    Pat::Ident(ident) if ident.subpat.is_none() => {
                        let name = ident.ident.to_string();
                        let after = self.span(stmt).end.saturating_sub(self.base);
                        let used = state.last_use.get(&name).is_some_and(|at| *at >= after);
                        if used {
                            return;
                        }
                        (call, Some(name))
                    }
                    _ => return,
                }
            }
            _ => return,
        };
        let mut task = TaskScan {
            base: self.base,
            vocab: self.vocab,
            send: None,
            value: None,
            answers: false,
            progress_locals: Vec::new(),
        };
        for arg in &call.args {
            task.visit_expr(arg);
        }
        if task.answers {
            return;
        }
        let Some((span, what)) = task.send.or(task.value) else {
            return;
        };
        // The callee (`tokio::spawn`): the whole call would repeat the task's body.
        let spawn = self.span(&*call.func);
        self.push(ProgressIssue::Detached { spawn, handle }, span, what);
    }

    /// Report a made-up token (an expression in a progress notification's token position).
    fn check_token(&mut self, expr: &Expr) {
        if let Some(name) = carried_local(expr) {
            self.note_token_param(&name);
        }
        let Some(state) = self.functions.last() else {
            if fabricated(expr, &HashMap::new()) == Some(Made::Here) {
                let span = self.span(expr);
                self.push(ProgressIssue::FabricatedToken, span, "this token".into());
            }
            return;
        };
        if !state.sees_request {
            return;
        }
        match fabricated(expr, &state.fabricated) {
            Some(Made::Here) => {
                let span = self.span(expr);
                self.push(
                    ProgressIssue::FabricatedToken,
                    span,
                    "this progress token".into(),
                );
            }
            Some(Made::Local(name, span)) => self.push(
                ProgressIssue::FabricatedToken,
                span,
                format!("the progress token `{name}`"),
            ),
            None => {}
        }
    }

    /// `json!` with a `"progressToken"` in a progress notification.
    fn check_json(&mut self, mac: &syn::Macro) {
        if macro_name(mac) != "json" {
            return;
        }
        // A bare params object (no method, no `_meta`: not a request's) in a function that
        // sends progress is that notification's params.
        let params_of_progress = || {
            self.functions.last().is_some_and(|f| f.sends_progress)
                && !tokens_have_literal(&mac.tokens, "method")
                && !tokens_have_literal(&mac.tokens, "_meta")
        };
        let in_progress = self
            .functions
            .last()
            .is_some_and(|f| f.progress_call_depth > 0)
            || tokens_have_literal(&mac.tokens, PROGRESS_METHOD)
            || params_of_progress();
        let sees_request = self.functions.last().is_none_or(|f| f.sees_request);
        if !in_progress || !sees_request {
            return;
        }
        let locals = self
            .functions
            .last()
            .map(|f| f.fabricated.clone())
            .unwrap_or_default();
        for name in json_token_names(mac.tokens.clone()) {
            self.note_token_param(&name);
        }
        let mut found = Vec::new();
        json_tokens(self.base, mac.tokens.clone(), &locals, &mut found);
        for (span, what) in found {
            self.push(ProgressIssue::FabricatedToken, span, what);
        }
    }

    /// What the arguments of a call are inside: a spawned task, a call that names
    /// `notifications/progress`. Worked out once per call, when the call is entered.
    fn call_context(call: &Expr) -> (bool, bool) {
        let (spawns, args) = match call {
            Expr::Call(c) => {
                let spawns = match &*c.func {
                    Expr::Path(p) => p
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| SPAWNS.iter().any(|w| s.ident == w)),
                    _ => false,
                };
                (spawns, &c.args)
            }
            Expr::MethodCall(c) => (false, &c.args),
            _ => return (false, false),
        };
        let names_method = args
            .iter()
            .any(|a| syntax::str_literal(a).as_deref() == Some(PROGRESS_METHOD));
        (spawns, names_method)
    }

    /// Enter (`by` 1) or leave (`by` -1) an argument of the innermost call entered.
    fn argument(&mut self, by: isize) {
        let Some(&(spawns, names_method)) = self.calls.last() else {
            return;
        };
        let Some(f) = self.functions.last_mut() else {
            return;
        };
        if spawns {
            f.spawn_depth = f.spawn_depth.saturating_add_signed(by);
        }
        if names_method {
            f.progress_call_depth = f.progress_call_depth.saturating_add_signed(by);
        }
    }

    /// A call of a function of the crate that hands it made-up text ([`MadeUpArguments`]).
    fn note_made_up_arguments(&mut self, expr: &Expr) {
        let Some((callee, args)) = own_call(expr) else {
            return;
        };
        let Some(state) = self.functions.last() else {
            return;
        };
        let mut made_up = Vec::new();
        let mut fresh = Vec::new();
        for (position, arg) in args.iter().enumerate().take(64) {
            let position = position as u8;
            let local = carried_local(arg);
            if syntax::made_up_text(arg)
                || local
                    .as_ref()
                    .is_some_and(|l| state.fabricated.contains_key(l))
            {
                made_up.push((position, self.span(arg)));
            } else if let Some(call) = local.as_ref().and_then(|l| state.fresh_locals.get(l)) {
                fresh.push((position, self.span(arg), call.clone()));
            } else if let Some(call) = argless_own_call(arg) {
                fresh.push((position, self.span(arg), call));
            }
        }
        if (made_up.is_empty() && fresh.is_empty()) || self.in_test {
            return;
        }
        self.made_up_arguments.push(MadeUpArguments {
            caller: state.name_span,
            callee,
            args: made_up,
            fresh,
        });
    }

    fn enter_expr(&mut self, expr: &Expr) {
        self.note_made_up_arguments(expr);
        match expr {
            Expr::Struct(expr) => {
                let type_name = syntax::last_segment(&expr.path);
                if is_progress_params_type(&type_name) {
                    for field in &expr.fields {
                        if matches!(&field.member, syn::Member::Named(m) if m == "progress_token") {
                            self.check_token(&field.expr);
                        }
                    }
                }
            }
            Expr::Call(call) => {
                let segments = match &*call.func {
                    Expr::Path(p) => path_segments(&p.path),
                    _ => Vec::new(),
                };
                let name = segments.last().map(String::as_str).unwrap_or("");
                // `ProgressNotificationParam::new(token, ..)`
                if segments.len() >= 2 && is_progress_params_type(&segments[segments.len() - 2]) {
                    if let Some(first) = call.args.first() {
                        self.check_token(first);
                    }
                }
                if is_progress_call(name) {
                    self.check_wrapped_tokens(call.args.iter());
                }
            }
            Expr::MethodCall(call) if is_progress_call(&call.method.to_string()) => {
                self.check_wrapped_tokens(call.args.iter());
            }
            _ => {}
        }
    }

    fn check_wrapped_tokens<'e>(&mut self, args: impl Iterator<Item = &'e Expr>) {
        for arg in args {
            if wraps_progress_token(arg) {
                self.check_token(arg);
            }
        }
    }

    fn leave_local(&mut self, local: &syn::Local) {
        let Pat::Ident(ident) = &local.pat else {
            return;
        };
        let name = ident.ident.to_string();
        let span = local.init.as_ref().map(|init| self.span(&init.expr));
        let Some(state) = self.functions.last_mut() else {
            return;
        };
        let made = local
            .init
            .as_ref()
            .and_then(|init| fabricated(&init.expr, &state.fabricated));
        match (made, span) {
            (Some(Made::Here), Some(span)) => {
                state.fabricated.insert(name.clone(), span);
            }
            (Some(Made::Local(_, span)), _) => {
                state.fabricated.insert(name.clone(), span);
            }
            _ => {
                state.fabricated.remove(&name);
            }
        }
        match local
            .init
            .as_ref()
            .and_then(|init| argless_own_call(&init.expr))
        {
            Some(call) => state.fresh_locals.insert(name, call),
            None => state.fresh_locals.remove(&name),
        };
    }
}

/// A call of a function of the crate (a method on `self`, `Self::f(..)`, a free function called
/// by its name alone or by a path from `crate`, `self` or `super`): the callee and the arguments.
fn own_call(expr: &Expr) -> Option<(crate::analysis::facts::Callee, &Punctuated<Expr, Comma>)> {
    use crate::analysis::facts::Callee;
    match expr {
        Expr::MethodCall(call) if matches!(&*call.receiver, Expr::Path(p) if p.path.is_ident("self")) =>
        {
            let callee = Callee::Method {
                name: call.method.to_string(),
                on_self: true,
                receiver: None,
            };
            Some((callee, &call.args))
        }
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return None;
            };
            let segments = path_segments(&func.path);
            let own = match segments.as_slice() {
                [name] => !PRELUDE_CALLS.contains(&name.as_str()),
                [first, _] if first == "Self" => true,
                [first, _, ..] => matches!(first.as_str(), "crate" | "self" | "super"),
                _ => false,
            };
            own.then_some((Callee::Path(segments), &call.args))
        }
        _ => None,
    }
}

/// A call without arguments of a free function of the crate (`next_progress_token()`,
/// `crate::progress::next_token()`), through `&` and the conversions that keep its value.
fn argless_own_call(expr: &Expr) -> Option<crate::analysis::facts::Callee> {
    match kept_value(expr) {
        call @ Expr::Call(c) if c.args.is_empty() && matches!(&*c.func, Expr::Path(_)) => {
            own_call(call).map(|(callee, _)| callee)
        }
        _ => None,
    }
}

/// Whether a function makes up fresh text of its own ([`FRESH_TEXT`]): no parameters (nor a
/// receiver), statements that only bind locals to a counter's next value or a new UUID, and a
/// `format!` of those locals as its value.
fn makes_fresh_text(sig: &syn::Signature, block: &syn::Block) -> bool {
    if !sig.inputs.is_empty() || sig.asyncness.is_some() {
        return false;
    }
    let Some((Stmt::Expr(Expr::Macro(tail), None), lets)) = block.stmts.split_last() else {
        return false;
    };
    if macro_name(&tail.mac) != "format" {
        return false;
    }
    let mut fresh: Vec<String> = Vec::new();
    for stmt in lets {
        let Stmt::Local(local) = stmt else {
            return false;
        };
        let (Pat::Ident(ident), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        if init.diverge.is_some() || !is_fresh_value(&init.expr) {
            return false;
        }
        fresh.push(ident.ident.to_string());
    }
    // Every name the `format!` reads (its arguments and the names its string captures) is a
    // fresh local.
    let Ok(args) = tail
        .mac
        .parse_body_with(Punctuated::<Expr, Comma>::parse_terminated)
    else {
        return false;
    };
    let mut args = args.into_iter();
    let Some(Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(template),
        ..
    })) = args.next()
    else {
        return false;
    };
    let read_fresh = |e: &Expr| carried_local(e).is_some_and(|name| fresh.contains(&name));
    let captured = captured_names(&template.value());
    !fresh.is_empty()
        && args.all(|arg| read_fresh(&arg))
        && captured.iter().all(|name| fresh.contains(name))
}

/// A counter's next value (`COUNTER.fetch_add(1, Ordering::Relaxed)`) or a new UUID
/// (`Uuid::new_v4()`), through conversions.
fn is_fresh_value(expr: &Expr) -> bool {
    match expr {
        Expr::MethodCall(m) if m.method == "fetch_add" => true,
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "simple" | "hyphenated"
                ) =>
        {
            is_fresh_value(&m.receiver)
        }
        Expr::Call(call) if call.args.is_empty() => matches!(&*call.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "new_v4" || s.ident == "now_v7")),
        _ => false,
    }
}

/// The names a format string captures (`"{n:016x}"` captures `n`; `{0}`, `{}` and `{{` none).
fn captured_names(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(stripped) = rest.strip_prefix('{') {
            rest = stripped;
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = &rest[..end];
        if name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            names.push(name.to_string());
        }
        rest = &rest[end..];
    }
    names
}

/// The function a node opens, with its body: a trait's function without one opens none.
fn opened_function<'n>(node: Node<'n>) -> Option<(&'n syn::Signature, &'n syn::Block)> {
    match node {
        Node::Item(syn::Item::Fn(f)) => Some((&f.sig, &f.block)),
        Node::ImplItem(syn::ImplItem::Fn(f)) => Some((&f.sig, &f.block)),
        Node::TraitItem(syn::TraitItem::Fn(f)) => f.default.as_ref().map(|b| (&f.sig, b)),
        _ => None,
    }
}

/// Whether `node` is an argument of a call (its parent).
fn is_argument(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    let (Node::Expr(expr), Some(Node::Expr(call))) = (node, parent) else {
        return false;
    };
    match call {
        Expr::Call(c) => c.args.iter().any(|a| std::ptr::eq(a, expr)),
        Expr::MethodCall(c) => c.args.iter().any(|a| std::ptr::eq(a, expr)),
        _ => false,
    }
}

/// Whether `node` is a call (whose arguments the collector tracks).
fn is_call(node: Node<'_>) -> bool {
    matches!(node, Node::Expr(Expr::Call(_) | Expr::MethodCall(_)))
}

impl Hook for Collector<'_> {
    /// The file's own macros are read as the code they stand for.
    fn reads_expansions(&self) -> bool {
        true
    }

    /// A `select!`'s branches are code: their futures and handlers run in the function.
    fn reads_macro_body(&self, name: &str) -> bool {
        crate::analysis::syntax::is_select_macro(name)
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if let Node::Macro(mac) = node {
            let name = macro_name(mac);
            self.macros
                .push(crate::analysis::syntax::is_select_macro(&name));
        }
        // Macro bodies are not read (a `json!` is read for its tokens), except the expansions
        // of the file's own macros and the branches of a `select!`.
        if self.skips(scope) {
            return;
        }
        self.in_test = scope.in_test();
        if let Some((sig, block)) = opened_function(node) {
            let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
            self.enter_function(sig, block, self_ty);
        }
        if is_argument(node, scope.parent()) {
            self.argument(1);
        }
        if let (true, Node::Expr(call)) = (is_call(node), node) {
            self.calls.push(Self::call_context(call));
        }
        match node {
            // A module's functions are not the enclosing function's.
            Node::Item(syn::Item::Mod(_)) => self.saved.push(std::mem::take(&mut self.functions)),
            Node::Stmt(stmt) => self.check_spawn_statement(stmt),
            Node::Expr(expr) => self.enter_expr(expr),
            Node::Macro(mac) => self.check_json(mac),
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let skipped = self.skips(scope);
        if let Node::Macro(_) = node {
            self.macros.pop();
        }
        if skipped {
            return;
        }
        self.in_test = scope.in_test();
        match node {
            Node::Item(syn::Item::Mod(_)) => self.functions = self.saved.pop().unwrap_or_default(),
            Node::Local(local) => self.leave_local(local),
            _ => {}
        }
        if is_call(node) {
            self.calls.pop();
        }
        if is_argument(node, scope.parent()) {
            self.argument(-1);
        }
        if opened_function(node).is_some() {
            if let Some(state) = self.functions.pop().filter(|f| f.token_params != 0) {
                self.token_params.push(TokenParams {
                    name_span: state.name_span,
                    params: state.token_params,
                });
            }
        }
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        if !self.out.is_empty() {
            facts.rules.put(&FACTS, &self.out);
        }
        if !self.token_params.is_empty() {
            facts.rules.put(&TOKEN_PARAMS, &self.token_params);
        }
        if !self.made_up_arguments.is_empty() {
            facts.rules.put(&MADE_UP_ARGUMENTS, &self.made_up_arguments);
        }
        if !self.fresh_text.is_empty() {
            facts.rules.put(&FRESH_TEXT, &self.fresh_text);
        }
    }
}

impl Collector<'_> {
    /// Whether the current node is in a macro's body that is not read: every macro around it
    /// is read only when each is a `select!` (the file's own macros' expansions are read).
    fn skips(&self, scope: &Scope<'_>) -> bool {
        scope.in_foreign_macro_body() && !self.macros.iter().all(|select| *select)
    }
}

/// The spawn call an expression is (through parentheses), if any.
fn spawn_call(expr: &Expr) -> Option<&syn::ExprCall> {
    match expr {
        Expr::Paren(p) => spawn_call(&p.expr),
        Expr::Group(g) => spawn_call(&g.expr),
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return None;
            };
            let last = func.path.segments.last()?.ident.to_string();
            SPAWNS.contains(&last.as_str()).then_some(call)
        }
        _ => None,
    }
}

/// How a token was made up.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Made {
    /// The expression itself is built from literals or `format!`.
    Here,
    /// It is a local bound to such a value (name, the value's span).
    Local(String, ByteSpan),
}

/// Whether an expression wraps a progress token (`ProgressToken(..)`, `ProgressToken::from(..)`).
fn wraps_progress_token(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => wraps_progress_token(&p.expr),
        Expr::Group(g) => wraps_progress_token(&g.expr),
        Expr::Reference(r) => wraps_progress_token(&r.expr),
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => p.path.segments.iter().any(|s| s.ident == "ProgressToken"),
            _ => false,
        },
        Expr::MethodCall(m) => wraps_progress_token(&m.receiver),
        _ => false,
    }
}

/// Whether a token expression is made up from literals or `format!` (rather than taken from the
/// request), through conversions and the token's constructors.
fn fabricated(expr: &Expr, locals: &HashMap<String, ByteSpan>) -> Option<Made> {
    match expr {
        Expr::Lit(lit) => {
            matches!(lit.lit, syn::Lit::Str(_) | syn::Lit::Int(_)).then_some(Made::Here)
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            matches!(&*u.expr, Expr::Lit(_)).then_some(Made::Here)
        }
        Expr::Macro(m) => {
            matches!(macro_name(&m.mac).as_str(), "format" | "concat").then_some(Made::Here)
        }
        Expr::Paren(p) => fabricated(&p.expr, locals),
        Expr::Group(g) => fabricated(&g.expr, locals),
        Expr::Reference(r) => fabricated(&r.expr, locals),
        Expr::Cast(c) => fabricated(&c.expr, locals),
        Expr::Call(call) if call.args.len() == 1 => {
            let Expr::Path(func) = &*call.func else {
                return None;
            };
            let last = func.path.segments.last()?.ident.to_string();
            let wrapper = matches!(
                last.as_str(),
                "ProgressToken" | "String" | "Number" | "Str" | "Int" | "from" | "new" | "Some"
            );
            let inner = fabricated(call.args.first()?, locals)?;
            wrapper.then_some(inner)
        }
        // A clock's reading or a random value, whatever is made of it
        // (`SystemTime::now().duration_since(UNIX_EPOCH).map(..).unwrap_or(0)`): no request's
        // token (batch 90's rlm numbers its progress by the time of day).
        _ if from_a_fresh_source(expr) => Some(Made::Here),
        Expr::MethodCall(m) if m.args.is_empty() => {
            let conversion = matches!(
                m.method.to_string().as_str(),
                "into" | "to_string" | "to_owned" | "clone" | "into_boxed_str" | "to_str"
            );
            let inner = fabricated(&m.receiver, locals)?;
            conversion.then_some(inner)
        }
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            let span = *locals.get(&name)?;
            Some(Made::Local(name, span))
        }
        _ => None,
    }
}

/// Whether a value is read from a clock or a random source, through the methods called on it
/// and casts: `SystemTime::now()`, `Instant::now()`, chrono's `Utc::now()`, `Uuid::new_v4()`,
/// `rand::random()`. Such a value is never a request's progress token.
fn from_a_fresh_source(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => from_a_fresh_source(&p.expr),
        Expr::Cast(c) => from_a_fresh_source(&c.expr),
        Expr::MethodCall(m) => from_a_fresh_source(&m.receiver),
        // A new UUID, as `is_fresh_value` reads one, or a clock's or a random reading.
        Expr::Call(call) if call.args.is_empty() => {
            let Expr::Path(func) = &*call.func else {
                return false;
            };
            let segments: Vec<String> = func
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let tail: Vec<&str> = segments.iter().rev().take(2).map(String::as_str).collect();
            is_fresh_value(expr)
                || matches!(
                    tail.as_slice(),
                    ["now", "SystemTime" | "Instant" | "Utc" | "Local"] | ["random", "rand"]
                )
        }
        _ => false,
    }
}

/// Whether a token stream holds a string literal with this value.
fn tokens_have_literal(tokens: &TokenStream, value: &str) -> bool {
    let quoted = format!("\"{value}\"");
    tokens.clone().into_iter().any(|tree| match tree {
        TokenTree::Literal(lit) => lit.to_string() == quoted,
        TokenTree::Group(group) => tokens_have_literal(&group.stream(), value),
        _ => false,
    })
}

/// Made-up `"progressToken": <value>` entries in a `json!` body.
/// The names a `json!`'s `"progressToken"` members are given alone (`"progressToken": token`,
/// also `token.clone()` and `&token`).
fn json_token_names(tokens: TokenStream) -> Vec<String> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut names = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => names.extend(json_token_names(group.stream())),
            TokenTree::Literal(lit) if lit.to_string() == "\"progressToken\"" => {
                let Some(value) = member_value(&trees, i) else {
                    continue;
                };
                let text: String = value.iter().map(|t| t.to_string()).collect();
                if let Ok(expr) = syn::parse_str::<Expr>(&text) {
                    names.extend(carried_local(&expr));
                }
            }
            _ => {}
        }
    }
    names
}

/// In a `json!` object's tokens, the value of the member whose key is at `key` (`"progressToken":
/// <value>,`): its tokens up to the next comma; `None` when no `:` follows the key.
fn member_value(trees: &[TokenTree], key: usize) -> Option<Vec<&TokenTree>> {
    if !matches!(trees.get(key + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':') {
        return None;
    }
    Some(
        trees
            .get(key + 2..)?
            .iter()
            .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
            .collect(),
    )
}

/// The local or parameter whose value an expression is, through `&`, parentheses and the
/// conversions that keep it (`.clone()`, `.to_string()`, `.into()`, `.to_owned()`).
fn carried_local(expr: &Expr) -> Option<String> {
    match kept_value(expr) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The expression whose value `expr` is, through `&`, parentheses and the conversions that keep
/// it (`.clone()`, `.to_string()`, `.into()`, `.to_owned()`).
fn kept_value(expr: &Expr) -> &Expr {
    match expr {
        Expr::Reference(r) => kept_value(&r.expr),
        Expr::Paren(p) => kept_value(&p.expr),
        Expr::Group(g) => kept_value(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "clone" | "to_string" | "to_owned" | "into"
                ) =>
        {
            kept_value(&m.receiver)
        }
        other => other,
    }
}

fn json_tokens(
    base: usize,
    tokens: TokenStream,
    locals: &HashMap<String, ByteSpan>,
    out: &mut Vec<(ByteSpan, String)>,
) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(group) => json_tokens(base, group.stream(), locals, out),
            TokenTree::Literal(lit) if lit.to_string() == "\"progressToken\"" => {
                let Some(value) = member_value(&trees, i) else {
                    continue;
                };
                let (Some(first), Some(last)) = (value.first(), value.last()) else {
                    continue;
                };
                let made_here = match (first, value.get(1)) {
                    (TokenTree::Literal(_), _) => true,
                    (TokenTree::Punct(p), Some(TokenTree::Literal(_))) => p.as_char() == '-',
                    (TokenTree::Ident(id), Some(TokenTree::Punct(p))) => {
                        (id == "format" || id == "concat") && p.as_char() == '!'
                    }
                    _ => false,
                };
                if made_here {
                    out.push((token_span(base, first, last), "this progress token".into()));
                } else if let ([TokenTree::Ident(id)], Some(span)) =
                    (value.as_slice(), locals.get(&first.to_string()))
                {
                    out.push((*span, format!("the progress token `{id}`")));
                }
            }
            _ => {}
        }
    }
}

/// Identifiers of a function body (with offsets), and whether it deals with tasks.
#[derive(Default)]
struct BodyScan {
    idents: Vec<(String, usize)>,
    mentions_tasks: bool,
    /// The body names `notifications/progress` (in a string literal or a `json!`).
    mentions_progress: bool,
}

impl BodyScan {
    fn tokens(&mut self, tokens: TokenStream) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => self.ident(&ident),
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(lit) => self.literal(&lit.to_string()),
                TokenTree::Punct(_) => {}
            }
        }
    }

    fn ident(&mut self, ident: &proc_macro2::Ident) {
        let name = ident.to_string();
        if TASK_IDENTS.contains(&name.as_str()) {
            self.mentions_tasks = true;
        }
        self.idents.push((name, start_of(ident.span())));
    }

    fn literal(&mut self, text: &str) {
        if text.contains("tasks/") || text.contains("\"taskId\"") {
            self.mentions_tasks = true;
        }
        self.mentions_progress |= text == format!("\"{PROGRESS_METHOD}\"");
    }
}

impl<'ast> Visit<'ast> for BodyScan {
    fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
        self.ident(ident);
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.literal(&format!("{:?}", lit.value()));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_path(self, &mac.path);
        self.tokens(mac.tokens.clone());
    }
}

/// What a spawned task does: its first progress send, and whether it answers the request.
struct TaskScan<'v> {
    base: usize,
    vocab: &'v Vocabulary,
    /// A call that sends progress.
    send: Option<(ByteSpan, String)>,
    /// A progress notification value (when no send of it is recognised).
    value: Option<(ByteSpan, String)>,
    /// The task answers its request (it sends a response or builds a request's result), so the
    /// request lasts as long as the task.
    answers: bool,
    /// Locals of the task bound to a progress notification.
    progress_locals: Vec<String>,
}

impl TaskScan<'_> {
    fn send(&mut self, span: ByteSpan, what: String) {
        if self.send.is_none() {
            self.send = Some((span, what));
        }
    }

    fn value(&mut self, span: ByteSpan, what: String) {
        if self.value.is_none() {
            self.value = Some((span, what));
        }
    }

    fn is_response_sink(&self, name: &str) -> bool {
        self.vocab.is_sink_call(name)
    }
}

/// Whether an expression carries a progress notification (its type or method, or a local bound
/// to one).
fn mentions_progress(expr: &Expr, locals: &[String]) -> bool {
    struct Finder<'l>(bool, &'l [String]);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
            let name = ident.to_string();
            if is_progress_type(&name) || self.1.contains(&name) {
                self.0 = true;
            }
        }
        fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
            if lit.value() == PROGRESS_METHOD {
                self.0 = true;
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if tokens_have_literal(&mac.tokens, PROGRESS_METHOD)
                || tokens_name_progress(&mac.tokens, self.1)
            {
                self.0 = true;
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false, locals);
    finder.visit_expr(expr);
    finder.0
}

/// Whether a token stream names a progress notification or send (or a local bound to one).
fn tokens_name_progress(tokens: &TokenStream, locals: &[String]) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => {
            let name = ident.to_string();
            is_progress_type(&name) || is_progress_call(&name) || locals.contains(&name)
        }
        TokenTree::Group(group) => tokens_name_progress(&group.stream(), locals),
        // `"{note}"`: a local named inside a format string.
        TokenTree::Literal(lit) => {
            let text = lit.to_string();
            locals
                .iter()
                .any(|l| text.contains(&format!("{{{l}}}")) || text.contains(&format!("{{{l}:")))
        }
        _ => false,
    })
}

/// Whether a token stream answers a request: a response sink's name, a request result type, or
/// a JSON-RPC `"result"`/`"error"` member.
fn tokens_answer(tokens: &TokenStream, vocab: &Vocabulary) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) => {
            let name = ident.to_string();
            vocab.is_sink_call(&name) || RESULT_TYPES.contains(&name.as_str())
        }
        TokenTree::Literal(lit) => {
            let text = lit.to_string();
            (text == "\"result\"" || text == "\"error\"")
                && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
        }
        TokenTree::Group(group) => tokens_answer(&group.stream(), vocab),
        _ => false,
    })
}

impl<'ast> Visit<'ast> for TaskScan<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        let sends_progress = vocab::TRANSPORT_CALLS.contains(&name.as_str())
            && call
                .args
                .iter()
                .any(|a| mentions_progress(a, &self.progress_locals));
        if is_progress_call(&name) || sends_progress {
            self.send(span_of(self.base, call), format!("`.{name}(..)`"));
        }
        if self.is_response_sink(&name) {
            self.answers = true;
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(func) = &*call.func {
            let segments = path_segments(&func.path);
            let name = segments.last().map(String::as_str).unwrap_or("");
            let what = format!("`{}(..)`", segments.join("::"));
            let sends_progress = vocab::TRANSPORT_CALLS.contains(&name)
                && call
                    .args
                    .iter()
                    .any(|a| mentions_progress(a, &self.progress_locals));
            if is_progress_call(name) || sends_progress {
                self.send(span_of(self.base, call), what);
            } else if segments.iter().any(|s| is_progress_type(s)) {
                self.value(span_of(self.base, call), what);
            }
            let ty = segments
                .len()
                .checked_sub(2)
                .and_then(|i| segments.get(i))
                .map(String::as_str)
                .unwrap_or("");
            if self.is_response_sink(name)
                || vocab::is_response_constructor(ty, name)
                || vocab::is_response_builder_name(name)
                || segments.iter().any(|s| RESULT_TYPES.contains(&s.as_str()))
            {
                self.answers = true;
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_struct(&mut self, expr: &'ast syn::ExprStruct) {
        let type_name = syntax::last_segment(&expr.path);
        if is_progress_type(&type_name) {
            let start = expr
                .path
                .segments
                .first()
                .map(|s| s.ident.span())
                .unwrap_or_else(|| expr.brace_token.span.open());
            self.value(
                byte_span(start, expr.brace_token.span.close(), self.base),
                format!("`{type_name} {{ .. }}`"),
            );
        }
        if vocab::is_response_struct(&type_name) || RESULT_TYPES.contains(&type_name.as_str()) {
            self.answers = true;
        }
        visit::visit_expr_struct(self, expr);
    }

    fn visit_expr_macro(&mut self, expr: &'ast syn::ExprMacro) {
        self.scan_macro(&expr.mac, span_of(self.base, expr));
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        self.scan_macro(&stmt.mac, span_of(self.base, &stmt.mac));
    }

    fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
        if RESULT_TYPES.contains(&ident.to_string().as_str()) {
            self.answers = true;
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        visit::visit_local(self, local);
        if let (Pat::Ident(ident), Some(init)) = (&local.pat, &local.init) {
            if mentions_progress(&init.expr, &self.progress_locals) {
                self.progress_locals.push(ident.ident.to_string());
            }
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl TaskScan<'_> {
    fn scan_macro(&mut self, mac: &syn::Macro, span: ByteSpan) {
        let name = macro_name(mac);
        if vocab::QUIET_MACROS.contains(&name.as_str()) {
            return;
        }
        if tokens_answer(&mac.tokens, self.vocab) {
            self.answers = true;
        }
        let progress = tokens_have_literal(&mac.tokens, PROGRESS_METHOD)
            || tokens_name_progress(&mac.tokens, &self.progress_locals);
        if !progress {
            return;
        }
        // `writeln!(out, ..)` and the like send; a `json!` is a value (sent somewhere).
        if name == "json" {
            self.value(span, format!("`{name}!(..)`"));
        } else {
            self.send(span, format!("`{name}!(..)`"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(code: &str) -> Vec<ProgressFinding> {
        let file = syn::parse_file(code).expect("test code parses");
        let vocabulary = Vocabulary::default();
        let mut facts = FileFacts::default();
        let hooks = ProgressFacts
            .hook(code, 0, &vocabulary)
            .into_iter()
            .collect();
        crate::analysis::walk::walk(&file, 0, hooks, &mut facts);
        super::findings(&facts)
    }

    fn text<'a>(code: &'a str, finding: &ProgressFinding) -> &'a str {
        &code[finding.span.start..finding.span.end]
    }

    const SEND: &str = "peer.notify_progress(ProgressNotificationParam { progress_token: token, progress: 1.0, total: None, message: None })";

    fn handler(body: &str) -> String {
        format!("async fn handle(peer: Peer, token: ProgressToken) -> Result<CallToolResult, ErrorData> {{ {body} Ok(CallToolResult::success(vec![])) }}")
    }

    #[test]
    fn a_dropped_handle_is_reported_at_the_send() {
        let code = handler(&format!(
            "tokio::spawn(async move {{ let _ = {SEND}.await; }});"
        ));
        let found = findings(&code);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(text(&code, &found[0]).starts_with("peer.notify_progress("));
        let ProgressIssue::Detached { spawn, handle } = &found[0].issue else {
            panic!("{found:?}");
        };
        assert_eq!(&code[spawn.start..spawn.end], "tokio::spawn");
        assert_eq!(*handle, None);
        assert_eq!(found[0].function, "handle");
        assert!(!found[0].task_context && !found[0].in_test);
    }

    #[test]
    fn a_handle_used_again_is_waited_for() {
        let spawn = format!("tokio::spawn(async move {{ let _ = {SEND}.await; }})");
        let unused = findings(&handler(&format!("let h = {spawn}; let other = 1;")));
        assert!(matches!(
            &unused[..],
            [ProgressFinding { issue: ProgressIssue::Detached { handle: Some(name), .. }, .. }] if name == "h"
        ));
        assert!(findings(&handler(&format!("let h = {spawn}; let _ = h.await;"))).is_empty());
        assert!(findings(&handler(&format!("{spawn}.await.ok();"))).is_empty());
        assert!(findings(&handler(&format!("tasks.push({spawn});"))).is_empty());
        // The handle's name before the spawn does not count.
        let before = findings(&handler(&format!("let h = 1; drop(h); let h = {spawn};")));
        assert_eq!(before.len(), 1);
    }

    #[test]
    fn a_task_without_progress_or_that_answers_is_not_reported() {
        assert!(findings(&handler(
            "tokio::spawn(async move { cache.refresh().await; });"
        ))
        .is_empty());
        let answers = handler(&format!(
            "tokio::spawn(async move {{ let _ = {SEND}.await; responder.respond(id, json!({{}})); }});"
        ));
        assert!(findings(&answers).is_empty());
        let result = handler(&format!(
            "tokio::spawn(async move {{ let _ = {SEND}.await; let _ = tx.send(CallToolResult::success(vec![])); }});"
        ));
        assert!(findings(&result).is_empty());
    }

    #[test]
    fn a_progress_value_sent_through_a_local_is_reported_at_the_write() {
        let code = handler(
            r#"std::thread::spawn(move || { let note = json!({"method": "notifications/progress", "params": {"progressToken": token}}); let _ = writeln!(out, "{note}"); });"#,
        );
        let found = findings(&code);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            text(&code, &found[0]).starts_with("writeln!"),
            "{}",
            text(&code, &found[0])
        );
    }

    #[test]
    fn task_code_is_marked() {
        let body = format!("tokio::spawn(async move {{ let _ = {SEND}.await; }});");
        let by_name = format!("fn run_task(peer: Peer, token: ProgressToken) {{ {body} }}");
        assert!(findings(&by_name)[0].task_context);
        let by_type = format!("fn start(task_id: String) {{ {body} }}");
        assert!(findings(&by_type)[0].task_context);
        // `tokio::task::spawn` alone says nothing of MCP tasks.
        let plain =
            format!("fn start() {{ tokio::task::spawn(async move {{ let _ = {SEND}.await; }}); }}");
        assert!(!findings(&plain)[0].task_context);
    }

    #[test]
    fn test_code_is_marked() {
        let code = format!(
            "#[cfg(test)] mod tests {{ #[test] fn t() {{ tokio::spawn(async move {{ let _ = {SEND}.await; }}); }} }}"
        );
        let found = findings(&code);
        assert_eq!(found.len(), 1);
        assert!(found[0].in_test);
    }

    #[test]
    fn made_up_tokens_are_reported_at_the_token() {
        let code = r#"fn f(id: u64) {
            let a = ProgressNotificationParam { progress_token: ProgressToken(NumberOrString::String("x".into())), progress: 1.0 };
            let t = ProgressToken(NumberOrString::Number(7));
            let b = ProgressNotificationParam { progress_token: t, progress: 1.0 };
            let c = json!({"method": "notifications/progress", "params": {"progressToken": format!("call-{id}"), "progress": 1}});
            let d = json!({"method": "notifications/progress", "params": {"progressToken": -3}});
        }"#;
        let found = findings(code);
        let texts: Vec<&str> = found.iter().map(|f| text(code, f)).collect();
        assert_eq!(
            texts,
            [
                r#"ProgressToken(NumberOrString::String("x".into()))"#,
                "ProgressToken(NumberOrString::Number(7))",
                r#"format!("call-{id}")"#,
                "-3",
            ]
        );
        assert!(found
            .iter()
            .all(|f| f.issue == ProgressIssue::FabricatedToken));
    }

    #[test]
    fn tokens_from_the_request_and_client_requests_are_not_reported() {
        let code = r#"fn f(request: &Value, context: Ctx) {
            let t = ProgressToken(NumberOrString::Number(7));
            let t = context.meta.get_progress_token();
            let b = ProgressNotificationParam { progress_token: t, progress: 1.0 };
            let token = request["params"]["_meta"]["progressToken"].clone();
            let c = json!({"method": "notifications/progress", "params": {"progressToken": token}});
            let d = json!({"method": "tools/call", "params": {"_meta": {"progressToken": "mine"}}});
            meta.set_progress_token(ProgressToken(NumberOrString::Number(1)));
        }"#;
        assert_eq!(findings(code), Vec::new());
    }

    #[test]
    fn a_progress_method_argument_makes_the_json_a_notification() {
        let code = r#"async fn f(s: &Session) { s.send_notification("notifications/progress", json!({"progressToken": "t"})).await; }"#;
        let found = findings(code);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(text(code, &found[0]), "\"t\"");
        let other = r#"async fn f(s: &Session) { s.send_notification("notifications/message", json!({"progressToken": "t"})).await; }"#;
        assert!(findings(other).is_empty());
    }

    #[test]
    fn params_built_before_the_progress_notification_are_its_params() {
        let code = r#"fn f(out: &mut W, request: &Value) {
            let params = json!({"progressToken": "t", "progress": 1});
            let ask = json!({"method": "tools/call", "params": {"_meta": {"progressToken": "mine"}}});
            let note = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params});
        }"#;
        let found = findings(code);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(text(code, &found[0]), "\"t\"");
        let elsewhere = r#"fn f(request: &Value) { let params = json!({"progressToken": "t"}); }"#;
        assert!(findings(elsewhere).is_empty());
    }

    #[test]
    fn might_apply_needs_a_progress_word_and_a_spawn_or_a_token() {
        assert!(might_apply(
            "tokio::spawn(async move { peer.notify_progress(p) })"
        ));
        assert!(might_apply("ProgressToken(x)"));
        assert!(!might_apply("peer.notify_progress(p)"));
        assert!(!might_apply("tokio::spawn(async move {})"));
    }
}
