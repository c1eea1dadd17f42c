//! Facts about hand-written JSON-RPC method dispatchers: `match` expressions (and `if` chains)
//! over method-name literals, with their arms and catch-all; and the signs that a file's code
//! speaks MCP (an SDK named in code, JSON-RPC and MCP method literals), from which every rule
//! learns whether a unit serves MCP (`RuleContext::serves_mcp`).
//!
//! A hook of the shared layer on the walk ([`super::walk`]); what it finds is described by the
//! types of [`super::dispatchers`]. The syntax helpers below that tell an answer are public:
//! the rules that judge answers read them too.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Pat};

mod tables;

use super::spans::Bounds;
use super::syntax::{macro_name, path_segments, str_literal, type_name};
use super::walk::{Hook, Node, Scope};
use crate::source::ByteSpan;

pub use super::dispatchers::{
    is_notification_method, CatchAllArm, DispatchFacts, MethodArm, MethodDispatcher, ResultTemplate,
};

/// The crates of MCP SDKs, as code names them.
const SDK_CRATES: &[&str] = &[
    "rmcp",
    "pmcp",
    "rust_mcp_sdk",
    "rust_mcp_schema",
    "turbomcp",
    "mcp_server",
    "mcp_sdk",
    "tower_mcp",
    "mcp_attr",
    "mcp_sdk_rs",
    "mcp_core",
    // ultrafast-mcp (first contact, batch 56: vibe-workspace serves it with `.run_stdio()`).
    "ultrafast_mcp",
];

/// Whether a crate, as code names it (`rmcp`, `rust_mcp_sdk`), may be an MCP SDK: one of the SDKs
/// known here, or any crate whose name says MCP (`mcp_protocol_sdk`, an in-house SDK).
pub fn may_be_sdk_crate(name: &str) -> bool {
    SDK_CRATES.contains(&name) || name.to_ascii_lowercase().contains("mcp")
}

/// Whether the first segment of a path names another crate that is no MCP SDK (`jetpack` in
/// `jetpack::output::OutputHandler`): not the crate itself (`crate`, `self`, `super`), not one
/// that [`may_be_sdk_crate`].
pub fn names_other_library(root: &str) -> bool {
    !matches!(root, "crate" | "self" | "super") && !may_be_sdk_crate(root)
}

/// The names of MCP methods that make a `match` a method dispatcher.
pub fn is_mcp_method(name: &str) -> bool {
    matches!(name, "initialize" | "ping" | "initialized")
        || [
            "tools/",
            "resources/",
            "prompts/",
            "notifications/",
            "logging/",
            "completion/",
            "tasks/",
            "server/",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}

/// Whether a dispatcher answers another JSON-RPC protocol, not MCP: an arm lists a method with a
/// `/` that is no MCP method (`"session/new"`, `"textDocument/hover"`), and none lists an MCP
/// method but `initialize`, which such protocols share (batch 87's zeptoclaw: an Agent Client
/// Protocol loop on stdio beside its MCP server).
pub fn answers_another_protocol(dispatcher: &MethodDispatcher) -> bool {
    lists_another_protocol(|| dispatcher.arms.iter().flat_map(|arm| arm.methods.iter()))
}

/// Whether methods some arms list are another JSON-RPC protocol's (see
/// [`answers_another_protocol`]): one with a `/` that is no MCP method, and none of MCP's but
/// `initialize`.
pub fn lists_another_protocol<'a, I: Iterator<Item = &'a String>>(methods: impl Fn() -> I) -> bool {
    methods().any(|m| m.contains('/') && !is_mcp_method(m))
        && !methods().any(|m| m != "initialize" && is_mcp_method(m))
}

/// Methods of the Agent2Agent protocol (A2A) that MCP does not define. A JSON-RPC dispatcher
/// that tests one serves A2A's clients, although A2A's `tasks/get` and `tasks/cancel` are also
/// the names of MCP methods.
pub fn is_a2a_method(name: &str) -> bool {
    matches!(
        name,
        "tasks/send"
            | "tasks/sendSubscribe"
            | "tasks/resubscribe"
            | "message/send"
            | "message/stream"
    ) || name.starts_with("tasks/pushNotification")
}

/// Whether a file's text may hold a dispatcher or a null-`id` answer: it speaks MCP
/// (`mentions_mcp`, as [`super::text::mentions_mcp`] found) or names a `tools/` method, in its
/// code or string literals (see [`super::text::speaks_mcp`]).
pub fn might_apply(mentions_mcp: bool, text: &str) -> bool {
    mentions_mcp || super::text::names_tools_method(text)
}

/// The hook that builds a file's dispatch facts; `base` is added to every byte offset. The
/// string literals of `unread` constants (see [`super::items::unread_constants`]) are not noted.
pub fn hook(base: usize, unread: Vec<super::items::UnreadConst>) -> Box<dyn Hook> {
    Box::new(Collector {
        base,
        facts: DispatchFacts::default(),
        functions: Vec::new(),
        seen_jsonrpc: false,
        seen_two: false,
        chain_links: std::collections::HashSet::new(),
        fall_through: std::collections::HashMap::new(),
        separate_chains: std::collections::HashMap::new(),
        separate_links: std::collections::HashSet::new(),
        unread,
        in_unread: 0,
        in_expansion: false,
        macros: super::macros::LocalMacros::default(),
        expansion_budget: std::cell::Cell::new(super::macros::MAX_EXPANSIONS),
        code_consts: std::collections::HashMap::new(),
        self_ty: None,
        other_method_variants: Vec::new(),
        silent_matches: std::collections::HashSet::new(),
        selects: Default::default(),
    })
}

/// The name of the constant or static `node` is, if it is one.
fn constant_name(node: Node<'_>) -> Option<&syn::Ident> {
    match node {
        Node::Item(syn::Item::Const(c)) => Some(&c.ident),
        Node::Item(syn::Item::Static(s)) => Some(&s.ident),
        Node::ImplItem(syn::ImplItem::Const(c)) => Some(&c.ident),
        _ => None,
    }
}

struct FunctionScope {
    name: String,
    span: ByteSpan,
    params: Vec<(String, String)>,
    /// Every parameter's name, by position (`self` aside; `""` for a pattern).
    arg_names: Vec<String>,
    /// Locals bound from a call's result (`let response = self.handle(req).await;`, or a
    /// `match` whose arms call: `let result = match req { A(r) => self.handle(r).await, .. }`):
    /// the local's name and the called functions' simple names.
    call_locals: Vec<(String, Vec<String>)>,
    /// Locals bound from a `match` or an `if` (`let result = match method { .. };`): the
    /// local's name and where the expression starts, which is where a dispatcher read from it
    /// starts.
    dispatch_locals: Vec<(String, usize)>,
    /// Locals whose type the code names (`let request: Request = ..`, `let request =
    /// serde_json::from_str::<Request>(..)`): the local's name and the type's last segment.
    typed_locals: Vec<(String, String)>,
    /// Locals bound from a read of another local or parameter (`let method =
    /// request.method.as_str();`): the local's name and that root's.
    aliases: Vec<(String, String)>,
    /// Locals bound from a read of a JSON member by its key (`let name =
    /// params.get("name").and_then(|v| v.as_str())`): the local's name and the key.
    member_locals: Vec<(String, String)>,
    /// The function's code names method-not-found (`-32601`, a `METHOD_NOT_FOUND`-like name).
    names_not_found: bool,
    /// The function's code spells an MCP method in a string literal (it dispatches).
    spells_method: bool,
    /// Its locals that hold handler tables, which a later `match` may look up.
    tables: Vec<tables::Table>,
}

struct Collector {
    base: usize,
    facts: DispatchFacts,
    functions: Vec<FunctionScope>,
    seen_jsonrpc: bool,
    seen_two: bool,
    /// The inner `if`s of the `if`/`else if` dispatchers found, by start.
    chain_links: std::collections::HashSet<usize>,
    /// `if` chains with no `else` whose every branch returns, by the first `if`'s start: the
    /// statements after the chain in its block, which every other method falls through to.
    fall_through: std::collections::HashMap<usize, Vec<syn::Stmt>>,
    /// Runs of separate `if` statements on method names that each leave, read as one chain (see
    /// [`Collector::note_separate_links`]), by the first `if`'s start.
    separate_chains: std::collections::HashMap<usize, syn::ExprIf>,
    /// The starts of the later `if`s of those runs, read with the first.
    separate_links: std::collections::HashSet<usize>,
    /// The private constants no code of the file reads.
    unread: Vec<super::items::UnreadConst>,
    /// How many of them enclose the current node.
    in_unread: usize,
    /// The current node is code one of the file's own macros stands for: its spans may be the
    /// invocation's.
    in_expansion: bool,
    /// The file's own `macro_rules!` macros defined so far, expanded in a dispatcher's arms.
    macros: super::macros::LocalMacros,
    /// How many more expansions the arms may take (see [`super::macros::MAX_EXPANSIONS`]).
    expansion_budget: std::cell::Cell<usize>,
    /// The file's integer constants so far whose value is a JSON-RPC error code (-32768 to
    /// -32000), by name: `const NOT_FOUND: i64 = -32601;`.
    code_consts: std::collections::HashMap<String, i64>,
    /// The type of the `impl` around the current `match`, which `Self::Variant` names.
    self_ty: Option<String>,
    /// The variants the file's conversions from a method's string make of every other method
    /// (`other => McpMethod::Unknown(other.to_string())` after `"initialize" =>
    /// McpMethod::Initialize`, ..), seen so far.
    other_method_variants: Vec<String>,
    /// The starts of the `match`es whose value is bound to a local that the rest of its block
    /// reads only in `if let Some(..) = local { .. }` with no `else` (see
    /// [`Collector::note_silent_locals`]): a `None` of theirs sends nothing.
    silent_matches: std::collections::HashSet<usize>,
    /// How many `select!` bodies the current node lies in: their branches are code (batch 99's
    /// webact dispatches in the branch on stdin's next line).
    selects: crate::analysis::walk::SelectBranches,
}

impl Collector {
    fn span(&self, node: &impl Bounds) -> ByteSpan {
        let (first, last) = node.bounds();
        self.raw_span(first, last)
    }

    fn raw_span(&self, first: proc_macro2::Span, last: proc_macro2::Span) -> ByteSpan {
        super::spans::byte_span(first, last, self.base)
    }

    fn enter_function(&mut self, name: String, span: ByteSpan, sig: &syn::Signature) {
        let params = sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed) => {
                    // A web framework's extractor destructured in place (`Json(request):
                    // Json<JsonRpcRequest>`): the parameter is the request, of the wrapped type.
                    if let Some(inner) = extracted(&typed.pat, &typed.ty) {
                        return Some(inner);
                    }
                    let name = match &*typed.pat {
                        Pat::Ident(ident) => ident.ident.to_string(),
                        _ => String::new(),
                    };
                    // `request: Json<JsonRpcRequest>` (axum's, actix's `web::Json`): the body
                    // the framework parsed, of the wrapped type.
                    Some((
                        name,
                        extractor_inner(&typed.ty).or_else(|| type_name(&typed.ty))?,
                    ))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let arg_names = sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed) => Some(match &*typed.pat {
                    Pat::Ident(ident) => ident.ident.to_string(),
                    _ => String::new(),
                }),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.functions.push(FunctionScope {
            name,
            span,
            params,
            arg_names,
            call_locals: Vec::new(),
            dispatch_locals: Vec::new(),
            typed_locals: Vec::new(),
            aliases: Vec::new(),
            member_locals: Vec::new(),
            names_not_found: false,
            spells_method: false,
            tables: Vec::new(),
        });
    }

    /// A function whose code names method-not-found and spells no MCP method builds that answer
    /// and dispatches nothing: a builder a catch-all may call.
    fn leave_function(&mut self) {
        let Some(function) = self.functions.pop() else {
            return;
        };
        if function.names_not_found && !function.spells_method {
            if let Err(at) = self.facts.not_found_builders.binary_search(&function.name) {
                self.facts.not_found_builders.insert(at, function.name);
            }
        }
    }

    /// `-32601` or a `METHOD_NOT_FOUND`-like path in the current function's code.
    fn note_not_found_mark(&mut self, expr: &Expr) {
        let names = match expr {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => matches!(&*u.expr,
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "32601"),
            Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
                let name = s.ident.to_string().to_ascii_lowercase();
                name.contains("method_not_found") || name.contains("methodnotfound")
            }),
            _ => false,
        };
        if names {
            if let Some(function) = self.functions.last_mut() {
                function.names_not_found = true;
            }
        }
    }

    fn dispatcher(&self, expr: &syn::ExprMatch) -> Option<MethodDispatcher> {
        if expr
            .arms
            .iter()
            .any(|arm| tests_beside_the_method(&arm.pat))
            || self.reads_another_member(method_element(expr).unwrap_or(&expr.expr))
        {
            return None;
        }
        // The patterns first: most matches over strings are not method dispatchers, and their
        // arms are not worth a closer look.
        let patterns: Vec<Option<(Vec<String>, Vec<String>)>> = expr
            .arms
            .iter()
            .map(|arm| {
                let (mut methods, mut constants) = (Vec::new(), Vec::new());
                method_patterns(&arm.pat, &mut methods, &mut constants)
                    .then_some((methods, constants))
            })
            .collect();
        let named = patterns
            .iter()
            .flatten()
            .filter(|(methods, _)| !methods.is_empty())
            .count();
        let mcp = patterns
            .iter()
            .flatten()
            .flat_map(|(methods, _)| methods)
            .any(|m| is_mcp_method(m));
        // `methods::INITIALIZE => .., methods::LIST_TOOLS => ..`: the rules read the constants'
        // values, which may live in another file.
        let by_constants = named == 0
            && patterns
                .iter()
                .flatten()
                .filter(|(_, constants)| !constants.is_empty())
                .count()
                >= 2;
        // `"tasks/send" => .., "tasks/get" => ..`: Agent2Agent's methods, whose `tasks/get` and
        // `tasks/cancel` share MCP's names: the dispatcher serves A2A's clients.
        let a2a = patterns
            .iter()
            .flatten()
            .flat_map(|(methods, _)| methods)
            .any(|m| is_a2a_method(m));
        if a2a {
            return None;
        }
        if !by_constants && (named < 2 || !mcp) {
            return self.variant_dispatcher(expr);
        }
        let mut arms = Vec::new();
        let mut guarded = Vec::new();
        let mut catch_all = None;
        for ((index, arm), pattern) in expr.arms.iter().enumerate().zip(patterns) {
            if let Some((methods, constants)) = pattern {
                if arm.guard.is_some() {
                    guarded.extend(methods);
                    continue;
                }
                // An arm's value written through one of the file's own macros is read as the
                // code the macro stands for.
                let expanded = self.expanded(&arm.body);
                let body = expanded.as_ref().unwrap_or(&arm.body);
                arms.push(MethodArm {
                    methods,
                    constants,
                    variants: Vec::new(),
                    body: self.span(&arm.body),
                    responds: self.responds(body),
                    responds_by_value: self.responds_visibly(body).is_none(),
                    calls: called_names(body),
                    result_template: self.result_template(body, expanded.is_some()),
                });
            } else if arm.guard.is_none() && is_catch_all(&arm.pat) {
                // The first unguarded catch-all takes every other method: the arms after it
                // never run (ai-gateway's second `_ =>`, batch 87).
                let body = self.span(&arm.body);
                let whole = ByteSpan::new(self.span(&arm.pat).start, body.end);
                catch_all = Some(self.catch_all_arm(&arm.body, whole, body));
                break;
            } else if is_some_catch_all(&expr.arms, index) {
                let body = self.span(&arm.body);
                let whole = ByteSpan::new(self.span(&arm.pat).start, body.end);
                catch_all = Some(self.catch_all_arm(&arm.body, whole, body));
            }
        }
        if let Some(catch_all) = &mut catch_all {
            self.annotate_catch_all(expr, catch_all);
        }
        let mut dispatcher = self.match_dispatcher(expr, arms, catch_all);
        dispatcher.by_constants = by_constants;
        dispatcher.guarded = guarded;
        Some(dispatcher)
    }

    /// A dispatcher made of a `match`'s arms and catch-all, in the current function.
    fn match_dispatcher(
        &self,
        expr: &syn::ExprMatch,
        arms: Vec<MethodArm>,
        catch_all: Option<CatchAllArm>,
    ) -> MethodDispatcher {
        let scope = self.functions.last();
        let (subject, subject_type) = self.subject(method_element(expr).unwrap_or(&expr.expr));
        MethodDispatcher {
            span: self.raw_span(expr.match_token.span, expr.brace_token.span.close()),
            chain: false,
            function: scope.map(|f| (f.name.clone(), f.span)),
            params: scope.map(|f| f.params.clone()).unwrap_or_default(),
            subject_position: self.subject_position(subject.as_deref()),
            subject,
            subject_type,
            arms,
            catch_all,
            by_constants: false,
            by_variants: false,
            in_macro: self.in_expansion,
            table: None,
            guarded: Vec::new(),
        }
    }

    /// A `match` over enum variants ending in a catch-all that answers an error
    /// (`ClientRequest::Initialize(p) => .., ClientRequest::CallTool(p) => .., _ =>
    /// Err(method_not_found())`): a dispatcher if the unit reads MCP methods into the variants
    /// (see [`MethodDispatcher::by_variants`]).
    fn variant_dispatcher(&self, expr: &syn::ExprMatch) -> Option<MethodDispatcher> {
        let self_ty = self.self_ty.as_deref();
        // `Some(McpMethod::Initialize) => ..`: an `Option` of the variants (its `None` arm, a
        // message without a method, is neither a method's arm nor the catch-all).
        let wrapped = expr
            .arms
            .iter()
            .any(|arm| matches!(&arm.pat, Pat::TupleStruct(ts) if is_some_of_one(ts)));
        let arms: Vec<(&syn::Arm, &Pat)> = expr
            .arms
            .iter()
            .filter(|arm| !(wrapped && is_none_pattern(&arm.pat)))
            .map(|arm| (arm, unwrap_some(&arm.pat, wrapped)))
            .collect();
        let variants_of = |pat: &Pat| {
            let mut named = Vec::new();
            super::err_variants::pattern_variants(pat, self_ty, &mut named);
            named
        };
        // The catch-all: a last `_` (or binding), or the arm of the variant the file's
        // conversion makes of every other method (`Some(McpMethod::Unknown(name)) =>`).
        let by_conversion = |pat: &Pat| {
            let named = variants_of(pat);
            !named.is_empty() && named.iter().all(|v| self.other_method_variants.contains(v))
        };
        let &(last, last_pat) = arms.last()?;
        let (catch_all_arm, by_conversion_arm) = if last.guard.is_none() && is_catch_all(last_pat) {
            (last, false)
        } else {
            let found = arms
                .iter()
                .find(|(arm, pat)| arm.guard.is_none() && by_conversion(pat))?;
            (found.0, true)
        };
        let rest: Vec<(&syn::Arm, &Pat)> = arms
            .iter()
            .filter(|(arm, _)| !std::ptr::eq(*arm, catch_all_arm))
            .copied()
            .collect();
        if rest.len() < 2 {
            return None;
        }
        let variants: Vec<Vec<String>> = rest.iter().map(|(_, pat)| variants_of(pat)).collect();
        if variants.iter().any(Vec::is_empty) {
            return None;
        }
        // Only a catch-all that answers an error is worth the arms' closer look.
        let body = self.span(&catch_all_arm.body);
        let whole = ByteSpan::new(self.span(&catch_all_arm.pat).start, body.end);
        let mut catch_all = self.catch_all_arm(&catch_all_arm.body, whole, body);
        if !(catch_all.method_not_found
            || catch_all.err_method_not_found
            || catch_all.err_variant.is_some())
        {
            return None;
        }
        catch_all.by_conversion = by_conversion_arm || wrapped;
        let arms = rest
            .iter()
            .zip(variants)
            .filter(|((arm, _), _)| arm.guard.is_none())
            .map(|((arm, _), variants)| MethodArm {
                methods: Vec::new(),
                constants: Vec::new(),
                variants,
                body: self.span(&arm.body),
                responds: self.responds(&arm.body),
                responds_by_value: self.responds_visibly(&arm.body).is_none(),
                calls: called_names(&arm.body),
                result_template: None,
            })
            .collect();
        let mut dispatcher = self.match_dispatcher(expr, arms, Some(catch_all));
        dispatcher.by_variants = true;
        Some(dispatcher)
    }

    /// A conversion from a method's string into variants (`match s { "initialize" =>
    /// McpMethod::Initialize, "tools/list" => McpMethod::ToolsList, other =>
    /// McpMethod::Unknown(other.to_string()) }`): the variant its last catch-all makes.
    fn note_other_method_variant(&mut self, expr: &syn::ExprMatch) {
        let Some((last, rest)) = expr.arms.split_last() else {
            return;
        };
        if last.guard.is_some() || !is_catch_all(&last.pat) {
            return;
        }
        let self_ty = self.self_ty.as_deref();
        let converted = rest
            .iter()
            .filter(|arm| {
                let (mut methods, mut constants) = (Vec::new(), Vec::new());
                method_patterns(&arm.pat, &mut methods, &mut constants)
                    && methods.iter().any(|m| is_mcp_method(m))
                    && super::err_variants::variant_named(super::syntax::peel(&arm.body), self_ty)
                        .is_some()
            })
            .count();
        if converted < 2 {
            return;
        }
        if let Some(variant) =
            super::err_variants::variant_named(super::syntax::peel(&last.body), self_ty)
        {
            if !self.other_method_variants.contains(&variant) {
                self.other_method_variants.push(variant);
            }
        }
    }

    /// `if method == "initialize" { return .. } else if .. { return .. }` followed by more
    /// statements: what the methods the chain does not name fall through to, remembered for
    /// [`Collector::if_chain_dispatcher`].
    fn note_fall_through(&mut self, stmts: &[syn::Stmt]) {
        self.note_separate_links(stmts);
        for (index, stmt) in stmts.iter().enumerate() {
            let syn::Stmt::Expr(Expr::If(first), _) = stmt else {
                continue;
            };
            let rest = &stmts[index + 1..];
            // Only a chain on method names is kept (its statements are copied): an early
            // return on anything else is no dispatcher.
            if rest.is_empty()
                || condition_methods(&first.cond).is_none()
                || !every_link_returns(first)
            {
                continue;
            }
            let start = self
                .raw_span(first.if_token.span, first.if_token.span)
                .start;
            // A run of separate links is read whole (see [`Collector::note_separate_links`]).
            if self.separate_chains.contains_key(&start) || self.separate_links.contains(&start) {
                continue;
            }
            self.fall_through.insert(start, rest.to_vec());
        }
    }

    /// A run of separate statements `if method == "initialize" { ..; continue; } if method ==
    /// "tools/list" { ..; return ..; }` in a block, each on method names and each leaving, with
    /// more statements after the run: read as the chain `if .. {..} else if .. {..}` they stand
    /// for (kept by the first `if`'s start), whose methods no link names fall through to the
    /// statements after it. The later `if`s are not read again as chains of their own.
    fn note_separate_links(&mut self, stmts: &[syn::Stmt]) {
        let mut index = 0;
        while index < stmts.len() {
            let run: Vec<&syn::ExprIf> = stmts[index..].iter().map_while(separate_link).collect();
            let after = index + run.len();
            // The statements after the run are the catch-all only when they are no link of it
            // that stays (`if method == "tools/call" { match .. { .. } }` with a way on).
            let next_is_link = matches!(stmts.get(after),
                Some(syn::Stmt::Expr(Expr::If(next), _)) if condition_methods(&next.cond).is_some());
            if run.len() < 2 || after >= stmts.len() || next_is_link {
                index = after.max(index + 1);
                continue;
            }
            let start =
                |link: &syn::ExprIf| self.raw_span(link.if_token.span, link.if_token.span).start;
            let first = start(run[0]);
            let later: Vec<usize> = run[1..].iter().map(|link| start(link)).collect();
            // Only a run that is read is copied.
            let chain = run.into_iter().cloned().rev().reduce(|next, mut link| {
                let token = syn::Token![else](link.if_token.span);
                link.else_branch = Some((token, Box::new(Expr::If(next))));
                link
            });
            if let Some(chain) = chain {
                self.separate_chains.insert(first, chain);
                self.separate_links.extend(later);
                self.fall_through.insert(first, stmts[after..].to_vec());
            }
            index = after;
        }
    }

    /// An `if method == "initialize" {..} else if method == "tools/list" {..} else {..}` chain
    /// over method names, read as a dispatcher. Its inner `if`s are remembered, so that they are
    /// not read again as chains of their own.
    fn if_chain_dispatcher(&mut self, first: &syn::ExprIf) -> Option<MethodDispatcher> {
        let mut links: Vec<(Vec<String>, &syn::Block)> = Vec::new();
        let mut inner_starts = Vec::new();
        let mut catch_all_block = None;
        let mut current = first;
        loop {
            let Some(methods) = condition_methods(&current.cond) else {
                // The chain ends here; what follows is looked at as a chain of its own.
                inner_starts.pop();
                catch_all_block = None;
                break;
            };
            links.push((methods, &current.then_branch));
            match current.else_branch.as_ref().map(|(_, e)| &**e) {
                Some(Expr::If(next)) => {
                    inner_starts.push(self.raw_span(next.if_token.span, next.if_token.span).start);
                    current = next;
                }
                Some(Expr::Block(block)) => {
                    catch_all_block = Some(block);
                    break;
                }
                _ => break,
            }
        }
        // The links after the first are never read as chains of their own: a chain that is not
        // a dispatcher has no tail that is one (it lists fewer methods), and one that is
        // has been read whole. Without this, a long chain would be read once per link.
        self.chain_links.extend(inner_starts);
        let named = links.len();
        let mut methods = links.iter().flat_map(|(methods, _)| methods);
        let mcp = methods.clone().any(|m| is_mcp_method(m));
        // Agent2Agent's methods (see [`is_a2a_method`]): the chain serves A2A's clients.
        if named < 2 || !mcp || methods.any(|m| is_a2a_method(m)) {
            return None;
        }
        if chain_subject(&first.cond).is_some_and(|e| self.reads_another_member(e)) {
            return None;
        }
        let arms = links
            .into_iter()
            .map(|(methods, block)| {
                let body = block_expr(block);
                let expanded = self.expanded(&body);
                let through_macro = expanded.is_some();
                let body = expanded.unwrap_or(body);
                MethodArm {
                    variants: Vec::new(),
                    methods,
                    constants: Vec::new(),
                    body: self.raw_span(
                        block.brace_token.span.open(),
                        block.brace_token.span.close(),
                    ),
                    responds: self.responds(&body),
                    responds_by_value: self.responds_visibly(&body).is_none(),
                    calls: called_names(&body),
                    result_template: self.result_template(&body, through_macro),
                }
            })
            .collect();
        let catch_all = self.chain_catch_all(first, catch_all_block);
        let (subject, subject_type) = chain_subject(&first.cond)
            .map(|e| self.subject(e))
            .unwrap_or_default();
        let scope = self.functions.last();
        Some(MethodDispatcher {
            subject_position: self.subject_position(subject.as_deref()),
            subject,
            subject_type,
            span: self.raw_span(first.if_token.span, chain_end(first)),
            chain: true,
            function: scope.map(|f| (f.name.clone(), f.span)),
            params: scope.map(|f| f.params.clone()).unwrap_or_default(),
            arms,
            catch_all,
            by_constants: false,
            by_variants: false,
            in_macro: self.in_expansion,
            table: None,
            guarded: Vec::new(),
        })
    }

    /// Where an arm's body answers, if it visibly does.
    fn responds(&self, body: &Expr) -> Option<ByteSpan> {
        if let Some(found) = self.responds_visibly(body) {
            return Some(found);
        }
        // A value for the caller to send: the arm's value is something, not nothing.
        let tail = super::syntax::tail_value(body);
        if is_quiet(tail) || builds_a_request(tail) {
            None
        } else if value_producing(tail) {
            Some(self.span(tail))
        } else {
            None
        }
    }

    /// Where an arm's body visibly answers: a response built or sent (not only a value returned
    /// for the caller).
    fn responds_visibly(&self, body: &Expr) -> Option<ByteSpan> {
        let mut finder = ResponseFinder {
            collector: self,
            found: None,
        };
        finder.visit_expr(body);
        finder.found
    }

    /// The catch-all of an `if` chain that starts at `first`: its final `else` block, or the
    /// statements the other methods fall through to (see [`Collector::note_fall_through`]).
    fn chain_catch_all(
        &mut self,
        first: &syn::ExprIf,
        catch_all_block: Option<&syn::ExprBlock>,
    ) -> Option<CatchAllArm> {
        let first_start = self
            .raw_span(first.if_token.span, first.if_token.span)
            .start;
        let fall_through = match catch_all_block {
            Some(_) => None,
            None => self.fall_through.remove(&first_start),
        };
        match (catch_all_block, fall_through) {
            (Some(block), _) => {
                let body = block_expr(&block.block);
                let span = self.raw_span(
                    block.block.brace_token.span.open(),
                    block.block.brace_token.span.close(),
                );
                Some(self.catch_all_arm(&body, span, span))
            }
            // The statements the other methods fall through to.
            (None, Some(rest)) => {
                let (Some(head), Some(tail)) = (rest.first(), rest.last()) else {
                    return None;
                };
                let (start, _) = super::spans::stmt_bounds(head);
                let (_, end) = super::spans::stmt_bounds(tail);
                let span = self.raw_span(start, end);
                let block = syn::Block {
                    brace_token: Default::default(),
                    stmts: rest,
                };
                Some(self.catch_all_arm(&block_expr(&block), span, span))
            }
            (None, None) => None,
        }
    }

    /// The catch-all arm whose body is `body`: the whole arm at `span`, its body at `body_span`.
    /// What a `match` dispatcher's catch-all does besides answering (see
    /// [`CatchAllArm::delegates`] and [`CatchAllArm::answers_nothing`]).
    fn annotate_catch_all(&self, expr: &syn::ExprMatch, catch_all: &mut CatchAllArm) {
        catch_all.delegates = catch_all_delegates(expr);
        let start = self
            .raw_span(expr.match_token.span, expr.match_token.span)
            .start;
        catch_all.answers_nothing = match catch_all_value(expr) {
            Some(NoAnswer::Continue) => true,
            Some(NoAnswer::None) => self.silent_matches.contains(&start),
            None => false,
        };
    }

    /// `let response = match method { .., _ => None };` followed only by `if let Some(r) =
    /// response { write(r) }` (no `else`, no other read of `response`): the `match`'s `None`
    /// sends nothing (batch 91: mcp-hwp's stdio loop).
    fn note_silent_locals(&mut self, stmts: &[syn::Stmt]) {
        // A statement one of the file's own macros stands for is read as what it expands to
        // (`wrap! { let response = match .. ; }`), a statement of the same block.
        let expanded: Vec<Option<syn::Stmt>> = stmts
            .iter()
            .map(|stmt| match stmt {
                syn::Stmt::Macro(m) if !self.macros.is_empty() => {
                    let tokens = self.macros.expand(&m.mac)?;
                    let block: syn::Block = syn::parse2(quote::quote!({ #tokens })).ok()?;
                    match block.stmts.as_slice() {
                        [one] => Some(one.clone()),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        for (index, stmt) in stmts.iter().enumerate() {
            let stmt = expanded.get(index).and_then(Option::as_ref).unwrap_or(stmt);
            let syn::Stmt::Local(local) = stmt else {
                continue;
            };
            let (Pat::Ident(pat), Some(init)) = (&local.pat, &local.init) else {
                continue;
            };
            let Expr::Match(m) = &*init.expr else {
                continue;
            };
            let name = pat.ident.to_string();
            let rest = stmts.get(index + 1..).unwrap_or_default();
            let reads: Vec<&syn::Stmt> = rest
                .iter()
                .filter(|s| mentions(s.to_token_stream(), &name))
                .collect();
            if !reads.is_empty() && reads.iter().all(|s| only_if_some(s, &name)) {
                let start = self.raw_span(m.match_token.span, m.match_token.span).start;
                self.silent_matches.insert(start);
            }
        }
    }

    fn catch_all_arm(&self, body: &Expr, span: ByteSpan, body_span: ByteSpan) -> CatchAllArm {
        let expanded = self.expanded(body);
        let body = expanded.as_ref().unwrap_or(body);
        CatchAllArm {
            span,
            by_conversion: false,
            body: body_span,
            method_not_found: names_method_not_found(
                body.to_token_stream(),
                self.responds(body).is_some(),
                &self.code_consts,
            ),
            err_method_not_found: err_method_not_found(body),
            err_variant: arm_value(body).and_then(super::err_variants::err_variant),
            err_answered_here: false,
            calls: called_names(body),
            http_error_status: names_http_error_status(body.to_token_stream()),
            falls_through: does_nothing(body),
            delegates: false,
            answers_nothing: false,
            answers_under_condition: self.answers_under_condition(body),
        }
    }

    /// Whether a catch-all's body answers method-not-found only under a condition of its own
    /// (see [`CatchAllArm::answers_under_condition`]).
    fn answers_under_condition(&self, body: &Expr) -> bool {
        let Expr::Block(block) = body else {
            return false;
        };
        let names = |e: &dyn ToTokens, value: Option<&Expr>| {
            let responds = value.is_some_and(|v| self.responds(v).is_some());
            names_method_not_found(e.to_token_stream(), responds, &self.code_consts)
        };
        let stmts = &block.block.stmts;
        stmts.iter().enumerate().any(|(index, stmt)| {
            let syn::Stmt::Expr(Expr::If(test), _) = stmt else {
                return false;
            };
            let then_answers = names(&test.then_branch, None);
            match &test.else_branch {
                Some((_, other)) => then_answers != names(other.as_ref(), Some(other)),
                None => {
                    let rest = stmts.get(index + 1..).unwrap_or_default();
                    !then_answers
                        && leaves(&test.then_branch)
                        && rest.iter().any(|s| match s {
                            syn::Stmt::Expr(e, _) => names(e, Some(e)),
                            _ => names(s, None),
                        })
                }
            }
        })
    }

    /// The `match` tests a JSON member other than the method, read by its key: `match name` after
    /// `let name = params.get("name").and_then(|v| v.as_str())` chooses a tool (reasonkit's
    /// `tools/call` handler, batch 86, whose tools are named `echo` and `ping`), not a method.
    fn reads_another_member(&self, subject: &Expr) -> bool {
        let key = member_key(subject).or_else(|| {
            let function = self.functions.last()?;
            // Through the locals it was copied into (`let s = name;`).
            self.alias_chain(&super::syntax::root_local(subject)?)
                .iter()
                .take(4)
                .find_map(|local| {
                    function
                        .member_locals
                        .iter()
                        .rev()
                        .find(|(n, _)| n == local)
                        .map(|(_, key)| key.clone())
                })
        });
        key.is_some_and(|key| key != "method")
    }

    /// A local and the locals it was read from, in turn (a few, as code writes them: `let
    /// method = request.method.as_str();` leads from `method` to `request`).
    fn alias_chain(&self, local: &str) -> Vec<String> {
        let mut chain = vec![local.to_string()];
        if let Some(function) = self.functions.last() {
            for _ in 0..4 {
                let Some(last) = chain.last() else { break };
                let Some((_, next)) = function.aliases.iter().rev().find(|(n, _)| n == last) else {
                    break;
                };
                chain.push(next.clone());
            }
        }
        chain
    }

    /// What a dispatcher reads the method from: the local or parameter at the root of `expr`
    /// (`request` in `request.method.as_str()`), and the type the code names for it when it is a
    /// local (a parameter's is in the dispatcher's `params`).
    fn subject(&self, expr: &Expr) -> (Option<String>, Option<String>) {
        let Some(local) = super::syntax::root_local(expr) else {
            return (None, None);
        };
        // Through the locals it was read into.
        let root = self.alias_chain(&local).pop().unwrap_or(local);
        let ty = self.functions.last().and_then(|f| {
            f.typed_locals
                .iter()
                .rev()
                .find(|(name, _)| *name == root)
                .map(|(_, ty)| ty.clone())
        });
        (Some(root), ty)
    }

    /// `const NOT_FOUND: i64 = -32601;`: an integer constant whose value is a JSON-RPC error code.
    fn note_code_const(&mut self, ident: &syn::Ident, expr: &Expr) {
        if let Some(code) = super::err_variants::jsonrpc_error_code(expr) {
            self.code_consts.insert(ident.to_string(), code);
        }
    }

    /// A copy of `expr` with the file's own macros expanded, if it invokes any.
    fn expanded(&self, expr: &Expr) -> Option<Expr> {
        super::macros::expanded_expr(&self.macros, expr, &self.expansion_budget)
    }

    /// The arm's one `json!` object; `through_macro` when `body` is code one of the file's own
    /// macros stands for.
    fn result_template(&self, body: &Expr, through_macro: bool) -> Option<ResultTemplate> {
        let expr = match body {
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => e,
                _ => return None,
            },
            Expr::Block(_) => return None,
            other => other,
        };
        let mut macros = JsonMacros(Vec::new());
        macros.visit_expr(expr);
        let [mac] = macros.0.as_slice() else {
            return None;
        };
        let trees: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
        // `json!("pong")`, `json!(1)`: a scalar for the result, which is not empty (batch 88's
        // appz-wsl-mcp answers `ping` with `"pong"`).
        if let [TokenTree::Literal(_)] = trees.as_slice() {
            if has_block(expr) {
                return None;
            }
            let value =
                (self.in_expansion || through_macro).then(|| mac.to_token_stream().to_string());
            return Some(ResultTemplate {
                body: self.span(expr),
                replace: self.span(*mac),
                replacement: format!("{}!({{}})", path_segments(&mac.path).join("::")),
                value,
            });
        }
        let [TokenTree::Group(object)] = trees.as_slice() else {
            return None;
        };
        if object.delimiter() != Delimiter::Brace || has_block(expr) {
            return None;
        }
        let (replace, replacement) = match value_of_key(&object.stream(), "result") {
            // The macro builds the whole message: empty its result.
            Some(value) => {
                let first = value.first()?.span();
                let last = value.last()?.span();
                (self.raw_span(first, last), "{}".to_string())
            }
            None => {
                let shape = super::syntax::json_shape(mac)?;
                if shape.has_result_or_error || shape.method.is_some() {
                    return None;
                }
                (
                    self.span(*mac),
                    format!("{}!({{}})", path_segments(&mac.path).join("::")),
                )
            }
        };
        // In a macro's expansion the value's span may be the invocation's: what it is is read
        // from its tokens.
        let value = (self.in_expansion || through_macro).then(|| {
            match value_of_key(&object.stream(), "result") {
                Some(value) => value.into_iter().collect::<TokenStream>().to_string(),
                None => mac.to_token_stream().to_string(),
            }
        });
        Some(ResultTemplate {
            body: self.span(expr),
            replace,
            replacement,
            value,
        })
    }

    /// A string literal of code (not of an unread constant, which is words, not behaviour).
    fn note_literal(&mut self, value: &str, span: proc_macro2::Span) {
        if self.in_unread > 0 {
            return;
        }
        if value == "ping" {
            let at = self.raw_span(span, span).start;
            self.facts.ping_sites.push(at);
        }
        if is_mcp_method(value) {
            if let Some(function) = self.functions.last_mut() {
                function.spells_method = true;
            }
            if let Err(at) = self
                .facts
                .method_literals
                .binary_search_by(|m| m.as_str().cmp(value))
            {
                self.facts.method_literals.insert(at, value.to_string());
            }
        }
        match value {
            "jsonrpc" => self.seen_jsonrpc = true,
            "2.0" => self.seen_two = true,
            "initialize" | "tools/list" | "tools/call" => self.facts.mcp_method_literals = true,
            _ => {}
        }
        self.facts.jsonrpc_literals = self.seen_jsonrpc && self.seen_two;
    }

    fn note_token_literals(&mut self, tokens: &TokenStream) {
        let mut after_name = false;
        for tree in tokens.clone() {
            let name = matches!(tree, TokenTree::Ident(_));
            match tree {
                TokenTree::Literal(l) => {
                    let text = l.to_string();
                    if let Some(value) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                        self.note_literal(value, l.span());
                    }
                }
                TokenTree::Group(g) => {
                    // A call's arguments in a macro's body (`Event::default().event("ping")` in
                    // a `stream! { .. }`): read as a call's are (see `note_ping_request`).
                    if after_name && g.delimiter() == proc_macro2::Delimiter::Parenthesis {
                        use syn::parse::Parser;
                        let parser =
                            syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
                        if let Ok(args) = parser.parse2(g.stream()) {
                            self.note_ping_request(&args);
                        }
                    }
                    self.note_token_literals(&g.stream())
                }
                _ => {}
            }
            after_name = name;
        }
    }
}

/// Whether an arm's body does nothing: `{}`, `()`, or blocks of those (`else { {} }`).
/// A catch-all's value that is no answer: `continue` (the loop goes on to the next message), or
/// `None` (an answer only if whoever reads the value makes one of it).
enum NoAnswer {
    Continue,
    None,
}

/// What the first unguarded catch-all of a `match` gives, when it is no answer.
fn catch_all_value(expr: &syn::ExprMatch) -> Option<NoAnswer> {
    let arm = expr
        .arms
        .iter()
        .find(|arm| arm.guard.is_none() && is_catch_all(&arm.pat))?;
    let mut body = &*arm.body;
    loop {
        match body {
            Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(e, _)] => body = e,
                _ => return None,
            },
            Expr::Paren(p) => body = &p.expr,
            Expr::Continue(c) if c.label.is_none() => return Some(NoAnswer::Continue),
            Expr::Path(p) if p.path.is_ident("None") => return Some(NoAnswer::None),
            _ => return None,
        }
    }
}

/// Whether `tokens` name the local `name`.
fn mentions(tokens: proc_macro2::TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}

/// `if let Some(..) = name { <no mention of name> }` with no `else`.
fn only_if_some(stmt: &syn::Stmt, name: &str) -> bool {
    let expr = match stmt {
        syn::Stmt::Expr(e, _) => e,
        _ => return false,
    };
    let Expr::If(expr_if) = expr else {
        return false;
    };
    let Expr::Let(binding) = &*expr_if.cond else {
        return false;
    };
    let some = matches!(&*binding.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some"));
    let of_name = matches!(&*binding.expr, Expr::Path(p) if p.path.is_ident(name));
    // `if let Some(response) = response`: the branch's `response` is the new binding.
    let shadows = mentions(binding.pat.to_token_stream(), name);
    some && of_name
        && expr_if.else_branch.is_none()
        && (shadows || !mentions(expr_if.then_branch.to_token_stream(), name))
}

/// Whether a block ends by leaving what runs it (`return ..`, `continue`, `break`).
fn leaves(block: &syn::Block) -> bool {
    matches!(
        block.stmts.last(),
        Some(syn::Stmt::Expr(
            Expr::Return(_) | Expr::Continue(_) | Expr::Break(_),
            _
        ))
    )
}

fn does_nothing(body: &Expr) -> bool {
    match body {
        Expr::Block(b) => b.block.stmts.iter().all(|stmt| match stmt {
            syn::Stmt::Expr(e, _) => does_nothing(e),
            _ => false,
        }),
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Paren(p) => does_nothing(&p.expr),
        _ => false,
    }
}

/// Whether an argument is a value, not something that may be a handler: a literal, a macro's
/// value (`json!({})`), a struct literal, a reference to one, or a path or call whose last name
/// is a type's or a variant's (`None`, `Value::Null`, `Some(params)`). A lowercase name may be
/// a handler function: not plain.
fn is_plain_value(arg: &Expr) -> bool {
    let capitalised = |path: &syn::Path| {
        path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        })
    };
    match arg {
        Expr::Lit(_) | Expr::Macro(_) | Expr::Struct(_) => true,
        Expr::Reference(r) => is_plain_value(&r.expr),
        Expr::Path(p) => capitalised(&p.path),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if capitalised(&p.path)),
        _ => false,
    }
}

/// Whether a node is a function (whose scope the walk has just entered).
pub fn is_function(node: Node<'_>) -> bool {
    matches!(
        node,
        Node::Item(syn::Item::Fn(_))
            | Node::ImplItem(syn::ImplItem::Fn(_))
            | Node::TraitItem(syn::TraitItem::Fn(_))
    )
}

impl Hook for Collector {
    /// The file's own macros are read as the code they stand for.
    fn reads_expansions(&self) -> bool {
        true
    }

    /// A `select!`'s branches are code: a dispatcher may run in one.
    fn reads_macro_body(&self, name: &str) -> bool {
        super::syntax::is_select_macro(name)
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let code = self.selects.enter(node, scope);
        // Test code answers whatever it likes; macro bodies are read for their literals only
        // (the expansions of the file's own macros and the branches of a `select!` are code).
        if scope.in_test() || !code {
            return;
        }
        if is_function(node) {
            if let Some(function) = scope.function() {
                self.enter_function(function.name(), function.span, function.sig);
            }
        }
        if self.is_unread(node) {
            self.in_unread += 1;
        }
        self.in_expansion = scope.in_expansion();
        match node {
            Node::Path(path) => {
                // A macro's own path is not read (`rmcp::tool!` names the SDK through its
                // tokens' types, if at all).
                if matches!(scope.parent(), Some(Node::Macro(_))) {
                    return;
                }
                if let Some(first) = path.segments.first() {
                    if SDK_CRATES.iter().any(|c| first.ident == c) && path.segments.len() > 1 {
                        self.facts.names_sdk = true;
                    }
                }
            }
            Node::UsePath(path) if SDK_CRATES.iter().any(|c| path.ident == c) => {
                self.facts.names_sdk = true;
            }
            Node::Item(syn::Item::Macro(item)) => self.macros.define(item),
            Node::Item(syn::Item::Const(c)) => self.note_code_const(&c.ident, &c.expr),
            Node::ImplItem(syn::ImplItem::Const(c)) => self.note_code_const(&c.ident, &c.expr),
            Node::LitStr(lit) => self.note_literal(&lit.value(), lit.span()),
            Node::Expr(expr) => {
                self.note_not_found_mark(expr);
                if matches!(expr, Expr::Match(_)) {
                    self.self_ty = scope.impl_scope().and_then(|i| i.self_ty.clone());
                }
                self.enter_expr(expr)
            }
            Node::Local(local) => {
                self.note_call_local(local);
                if let Some(mut table) = tables::table_local(local, is_mcp_method, is_a2a_method) {
                    table.start = self
                        .raw_span(local.let_token.span, local.let_token.span)
                        .start;
                    if let Some(function) = self.functions.last_mut() {
                        function.tables.push(table);
                    }
                }
            }
            // A `vec![..]` read as code: its literals are met as the walk visits its elements.
            Node::Macro(_) if scope.macro_body_is_code() => {}
            Node::Macro(mac) => self.enter_macro(mac),
            Node::Block(block) => {
                self.note_fall_through(&block.stmts);
                self.note_silent_locals(&block.stmts);
            }
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let code = self.selects.leave(node, scope);
        if scope.in_test() || !code {
            return;
        }
        if is_function(node) {
            self.leave_function();
        }
        if self.is_unread(node) {
            self.in_unread = self.in_unread.saturating_sub(1);
        }
    }

    fn finish(self: Box<Self>, facts: &mut super::facts::FileFacts) {
        facts.dispatch = self.facts;
    }
}

impl Collector {
    /// Whether `node` is one of the unread constants.
    fn is_unread(&self, node: Node<'_>) -> bool {
        let Some(name) = constant_name(node) else {
            return false;
        };
        self.unread.iter().any(|c| *name == c.name)
    }

    fn enter_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Match(m) => self.enter_match(m),
            Expr::If(expr_if) => {
                let start = self
                    .raw_span(expr_if.if_token.span, expr_if.if_token.span)
                    .start;
                if self.separate_links.remove(&start) {
                    return;
                }
                if let Some(chain) = self.separate_chains.remove(&start) {
                    if let Some(dispatcher) = self.if_chain_dispatcher(&chain) {
                        self.facts.dispatchers.push(dispatcher);
                    }
                } else if !self.chain_links.remove(&start) {
                    if let Some(dispatcher) = self.if_chain_dispatcher(expr_if) {
                        self.facts.dispatchers.push(dispatcher);
                    }
                }
            }
            Expr::Call(call) => {
                self.note_ping_request(&call.args);
                if let Expr::Path(func) = &*call.func {
                    if let Some(last) = func.path.segments.last() {
                        self.note_typed_member_args(&last.ident.to_string(), &call.args);
                    }
                }
            }
            Expr::MethodCall(call) => {
                self.note_ping_request(&call.args);
                self.note_typed_member_args(&call.method.to_string(), &call.args);
            }
            _ => {}
        }
    }

    /// Where the subject of a dispatcher is among its function's parameters, if it is one.
    fn subject_position(&self, subject: Option<&str>) -> Option<usize> {
        let subject = subject?;
        self.functions
            .last()?
            .arg_names
            .iter()
            .position(|name| name == subject)
    }

    /// A call's arguments that read a member of a local whose type the code names (see
    /// [`DispatchFacts::typed_member_args`]).
    fn note_typed_member_args(
        &mut self,
        callee: &str,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) {
        let Some(function) = self.functions.last() else {
            return;
        };
        if function.typed_locals.is_empty() && function.params.is_empty() {
            return;
        }
        for (position, arg) in args.iter().enumerate() {
            if !reads_a_member(arg) {
                continue;
            }
            let Some(root) = super::syntax::root_local(arg) else {
                continue;
            };
            // The last binding of the name is the one the call reads.
            let typed = function.typed_locals.iter().rev().find(|(n, _)| *n == root);
            let Some((_, ty)) = typed.or_else(|| function.params.iter().find(|(n, _)| *n == root))
            else {
                continue;
            };
            let record = (callee.to_string(), position, ty.clone());
            self.facts.typed_member_args.push(record);
        }
    }

    /// A call whose first argument is `"ping"` and whose others are plain values: a request
    /// for `ping` being sent (see [`DispatchFacts::ping_request_sites`]).
    fn note_ping_request(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        if self.in_unread > 0 {
            return;
        }
        let mut args = args.iter();
        let ping = match args.next() {
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) if s.value() == "ping" => Some(s.span()),
            _ => None,
        };
        if let Some(span) = ping.filter(|_| args.all(is_plain_value)) {
            let at = self.raw_span(span, span).start;
            self.facts.ping_request_sites.push(at);
        }
    }

    fn enter_match(&mut self, expr: &syn::ExprMatch) {
        self.note_other_method_variant(expr);
        self.note_err_answered_here(expr);
        for name in self.err_answered_call(expr) {
            if let Err(at) = self.facts.err_answered.binary_search(&name) {
                self.facts.err_answered.insert(at, name);
            }
        }
        if let Some(dispatcher) = self
            .dispatcher(expr)
            .or_else(|| self.table_dispatcher(expr))
        {
            self.facts.dispatchers.push(dispatcher);
        }
    }

    /// A `match` on a call's result whose `Err(..)` arm answers (`match process(line) { ..,
    /// Err(e) => writeln!(out, "{}", json!({"jsonrpc": "2.0", "error": ..})) }`): the called
    /// function's simple name.
    fn err_answered_call(&self, expr: &syn::ExprMatch) -> Vec<String> {
        let names = match super::syntax::peel(&expr.expr) {
            // `let response = self.handle_request(req).await; match response { .. }`
            Expr::Path(p) => {
                let Some(local) = p.path.get_ident().map(ToString::to_string) else {
                    return Vec::new();
                };
                let Some(function) = self.functions.last() else {
                    return Vec::new();
                };
                function
                    .call_locals
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == local)
                    .map(|(_, callees)| callees.clone())
                    .unwrap_or_default()
            }
            other => called_name(other).into_iter().collect(),
        };
        let is_err = |pat: &syn::Pat| match pat {
            syn::Pat::TupleStruct(ts) => ts.path.segments.last().is_some_and(|s| s.ident == "Err"),
            _ => false,
        };
        if expr
            .arms
            .iter()
            .any(|arm| is_err(&arm.pat) && self.responds(&arm.body).is_some())
        {
            names
        } else {
            Vec::new()
        }
    }

    /// `let result = match method { .., _ => Err(..) }; match result { .., Err(e) => reply }`:
    /// the dispatcher the local was bound from answers its catch-all's `Err` here.
    fn note_err_answered_here(&mut self, expr: &syn::ExprMatch) {
        let Expr::Path(p) = super::syntax::peel(&expr.expr) else {
            return;
        };
        let Some(local) = p.path.get_ident().map(ToString::to_string) else {
            return;
        };
        let Some(start) = self.functions.last().and_then(|f| {
            f.dispatch_locals
                .iter()
                .rev()
                .find(|(name, _)| *name == local)
                .map(|(_, start)| *start)
        }) else {
            return;
        };
        let answers_err = expr.arms.iter().any(|arm| {
            matches!(&arm.pat, syn::Pat::TupleStruct(ts)
                if ts.path.segments.last().is_some_and(|s| s.ident == "Err"))
                && self.responds(&arm.body).is_some()
        });
        if !answers_err {
            return;
        }
        for dispatcher in self.facts.dispatchers.iter_mut().rev() {
            if dispatcher.span.start == start {
                if let Some(catch_all) = &mut dispatcher.catch_all {
                    catch_all.err_answered_here = true;
                }
                break;
            }
        }
    }

    /// `let response = self.handle_request(req).await;`: a local bound from a call's result.
    /// `let result = match method { .. };`: a local bound from what may be a dispatcher.
    fn note_call_local(&mut self, local: &syn::Local) {
        if let Some(typed) = typed_local(local) {
            if let Some(function) = self.functions.last_mut() {
                function.typed_locals.push(typed);
            }
        }
        // `let result: Result<Value, String> = match method { .. }` binds the local too.
        let pattern = match &local.pat {
            syn::Pat::Type(typed) => &*typed.pat,
            other => other,
        };
        let (syn::Pat::Ident(pat), Some(init)) = (pattern, &local.init) else {
            return;
        };
        if let (Some(root), Some(function)) = (
            super::syntax::root_local(&init.expr),
            self.functions.last_mut(),
        ) {
            function.aliases.push((pat.ident.to_string(), root));
            if let Some(key) = member_key(&init.expr) {
                function.member_locals.push((pat.ident.to_string(), key));
            }
        }
        let value = super::syntax::tail_value(super::syntax::peel(&init.expr));
        let start = match value {
            Expr::Match(m) => Some(self.raw_span(m.match_token.span, m.match_token.span).start),
            Expr::If(i) => Some(self.raw_span(i.if_token.span, i.if_token.span).start),
            _ => None,
        };
        if let (Some(start), Some(function)) = (start, self.functions.last_mut()) {
            function
                .dispatch_locals
                .push((pat.ident.to_string(), start));
            // `let result = match request { Request::Client(r) => self.handle(r).await, .. }`:
            // the local holds what each arm's call returns.
            if let Expr::Match(m) = value {
                let callees: Vec<String> = m
                    .arms
                    .iter()
                    .filter_map(|arm| called_name(super::syntax::peel(&arm.body)))
                    .collect();
                if !callees.is_empty() {
                    function.call_locals.push((pat.ident.to_string(), callees));
                }
            }
            return;
        }
        let Some(callee) = called_name(super::syntax::peel(&init.expr)) else {
            return;
        };
        if let Some(function) = self.functions.last_mut() {
            function
                .call_locals
                .push((pat.ident.to_string(), vec![callee]));
        }
    }

    fn enter_macro(&mut self, mac: &syn::Macro) {
        // Code inside macros (`json!`, `format!`) is read only for its string literals, and
        // for the method-not-found code (`json!({"code": -32601})`).
        self.note_token_literals(&mac.tokens);
        if self.functions.last().is_some_and(|f| !f.names_not_found)
            && names_method_not_found(mac.tokens.clone(), false, &self.code_consts)
        {
            if let Some(function) = self.functions.last_mut() {
                function.names_not_found = true;
            }
        }
    }
}

impl Collector {
    /// A `match` on a lookup of one of the current function's handler tables (`match
    /// table.iter().find(|(m, _)| *m == method) { Some((_, h)) => h(), None => .. }`).
    fn table_dispatcher(&self, expr: &syn::ExprMatch) -> Option<MethodDispatcher> {
        let function = self.functions.last()?;
        let named = super::syntax::expr_idents(&expr.expr);
        let table = function
            .tables
            .iter()
            .rev()
            .find(|t| named.contains(&t.local))?;
        if tables::looked_up(&expr.expr, &table.local).is_some_and(|e| self.reads_another_member(e))
        {
            return None;
        }
        let mut catch_all = None;
        for arm in &expr.arms {
            if arm.guard.is_some() {
                return None;
            }
            if tables::is_none(&arm.pat) {
                let body = self.span(&arm.body);
                let whole = crate::source::ByteSpan::new(self.span(&arm.pat).start, body.end);
                catch_all = Some(self.catch_all_arm(&arm.body, whole, body));
            } else if !matches!(&arm.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some")) {
                return None;
            }
        }
        let arms = table
            .entries
            .iter()
            .map(|entry| MethodArm {
                methods: vec![entry.method.clone()],
                constants: Vec::new(),
                variants: Vec::new(),
                body: self.span(&entry.handler),
                responds: self.responds(&entry.handler),
                responds_by_value: self.responds_visibly(&entry.handler).is_none(),
                calls: match &entry.handler {
                    Expr::Path(p) => p
                        .path
                        .segments
                        .last()
                        .map(|s| vec![s.ident.to_string()])
                        .unwrap_or_default(),
                    other => called_names(other),
                },
                result_template: self.result_template(&entry.handler, false),
            })
            .collect();
        let mut dispatcher = self.match_dispatcher(expr, arms, catch_all);
        (dispatcher.subject, dispatcher.subject_type) = tables::looked_up(&expr.expr, &table.local)
            .map(|operand| self.subject(operand))
            .unwrap_or_default();
        dispatcher.table = Some(table.start);
        Some(dispatcher)
    }
}

/// The simple name of the function a call calls: `process(line)`, `self.handle(req)`.
pub fn called_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => Some(super::syntax::last_segment(&p.path)),
            _ => None,
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        _ => None,
    }
}

/// Finds the first visible answer in an arm's body: a `json!` response, a struct with an `id`
/// and a `result` or `error`, or a call whose name says it answers.
struct ResponseFinder<'c> {
    collector: &'c Collector,
    found: Option<ByteSpan>,
}

impl ResponseFinder<'_> {
    /// A JSON-RPC error code: a literal, or a constant of the file holding one.
    fn is_code(&self, expr: &Expr) -> bool {
        is_jsonrpc_error_code(expr)
            || matches!(expr, Expr::Path(p) if p.path.get_ident()
                .is_some_and(|i| self.collector.code_consts.contains_key(&i.to_string())))
    }
}

impl<'ast> Visit<'ast> for ResponseFinder<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        // An HTTP status with no body builds no message, whatever its method is called.
        if self.found.is_some() || http_status_only(expr) {
            return;
        }
        match expr {
            Expr::Call(call) => {
                if let Expr::Path(p) = &*call.func {
                    let name = super::syntax::last_segment(&p.path);
                    // `HandlerResult::Response(None)` carries no response.
                    let carries_nothing = call.args.len() == 1
                        && call
                            .args
                            .first()
                            .is_some_and(|a| !matches!(a, Expr::Block(_)) && is_quiet(a));
                    if (responding_name(&name) && !carries_nothing)
                        || call.args.iter().any(|a| self.is_code(a))
                    {
                        self.found = Some(self.collector.span(call));
                        return;
                    }
                }
            }
            // `request.respond(Response::empty(204))`: whatever the method is called, what it
            // is handed is a status with no body.
            Expr::MethodCall(call)
                if (responding_name(&call.method.to_string())
                    && (call.args.is_empty() || !call.args.iter().all(http_status_only)))
                    || call.args.iter().any(|a| self.is_code(a)) =>
            {
                self.found = Some(self.collector.span(call));
                return;
            }
            Expr::Macro(m) => {
                if let Some(shape) = super::syntax::json_shape(&m.mac) {
                    if shape.has_result_or_error && shape.method.is_none() {
                        self.found = Some(self.collector.span(&m.mac));
                        return;
                    }
                }
            }
            Expr::Struct(s) => {
                let has = |name: &str| {
                    s.fields
                        .iter()
                        .any(|f| matches!(&f.member, syn::Member::Named(i) if i == name))
                };
                if has("id") && (has("result") || has("error")) {
                    self.found = Some(self.collector.span(expr));
                    return;
                }
            }
            Expr::Closure(_) | Expr::Async(_) => return,
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

struct JsonMacros<'ast>(Vec<&'ast syn::Macro>);

impl<'ast> Visit<'ast> for JsonMacros<'ast> {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if macro_name(mac) == "json" {
            self.0.push(mac);
        }
    }
}

/// Whether an expression holds a block (statements whose names an arm could not borrow).
fn has_block(expr: &Expr) -> bool {
    struct Blocks(bool);
    impl<'ast> Visit<'ast> for Blocks {
        fn visit_block(&mut self, _: &'ast syn::Block) {
            self.0 = true;
        }
    }
    let mut blocks = Blocks(false);
    blocks.visit_expr(expr);
    blocks.0
}

/// The names a body calls (functions' and methods' last segments).
pub fn called_names(body: &Expr) -> Vec<String> {
    struct Calls(Vec<String>);
    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*call.func {
                if let Some(last) = p.path.segments.last() {
                    self.0.push(last.ident.to_string());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            self.0.push(call.method.to_string());
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut calls = Calls(Vec::new());
    calls.visit_expr(body);
    calls.0.sort();
    calls.0.dedup();
    calls.0
}

/// A name that says its function answers a message.
pub fn responding_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["respond", "response", "reply", "answer"]
        .iter()
        .any(|w| lower.contains(w))
        || lower.starts_with("send_error")
        || lower.starts_with("send_result")
        || lower.ends_with("_error_msg")
        || lower == "error_msg"
        || lower == "result_msg"
}

/// An arm value that answers nothing: `None`, `()`, `{}`, `Ok(())`, `Ok(None)`, `continue`,
/// `return`, a block ending in a statement.
fn is_quiet(expr: &Expr) -> bool {
    if http_status_only(expr) {
        return true;
    }
    match expr {
        Expr::Block(b) => !matches!(b.block.stmts.last(), Some(syn::Stmt::Expr(_, None))),
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Continue(_) | Expr::Break(_) => true,
        // `Ok(false)`: a flag for the caller (batch 41's mcp-access-point: not handled, the
        // proxy goes on), no message.
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        Expr::Return(r) => r.expr.as_deref().is_none_or(is_quiet),
        // `Ok(None)`, and a variant that carries nothing (`HandlerResult::Response(None)`, the
        // loop writing only what a `Some` holds).
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(_))
                && call.args.len() == 1
                && call
                    .args
                    .first()
                    .is_some_and(|arg| !matches!(arg, Expr::Block(_)) && is_quiet(arg))
        }
        _ => false,
    }
}

/// An HTTP reply that carries no JSON-RPC message: a status alone (`StatusCode::ACCEPTED`,
/// `.into_response()` of one), or with an empty body (`(StatusCode::OK, Json(json!({})))`,
/// `(StatusCode::NO_CONTENT, "")`): what Streamable HTTP answers a notification with (batch
/// 80's fold and recall).
fn http_status_only(expr: &Expr) -> bool {
    let status = |e: &Expr| match e {
        Expr::Path(p) => {
            let segments: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            segments.len() >= 2 && segments[segments.len() - 2] == "StatusCode"
        }
        _ => false,
    };
    let empty_body = |e: &Expr| match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => s.value().is_empty(),
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Json"))
                && call.args.len() == 1
                && call.args.first().is_some_and(|arg| match arg {
                    Expr::Macro(m) => {
                        m.mac.path.is_ident("json")
                            && m.mac.tokens.to_string().replace(' ', "") == "{}"
                    }
                    _ => false,
                })
        }
        _ => false,
    };
    match expr {
        Expr::Paren(p) => http_status_only(&p.expr),
        Expr::MethodCall(m) if m.method == "into_response" && m.args.is_empty() => {
            http_status_only(&m.receiver)
        }
        // tiny_http's `Response::empty(204)`: a status with no body (batch 127's splash).
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p) if {
            let segments: Vec<String> =
                p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            matches!(segments.as_slice(), [.., owner, last]
                if owner == "Response" && (last == "empty" || last == "new_empty"))
        }),
        Expr::Tuple(t) => match t.elems.iter().collect::<Vec<_>>().as_slice() {
            [first, second] => status(first) && empty_body(second),
            _ => false,
        },
        _ => status(expr),
    }
}

/// An arm value that is a message for the caller to send: `Some(..)`, `Ok(..)`, a `json!`, a
/// struct literal.
/// A block as an expression (`{ .. }`), for the questions asked of arm bodies.
fn block_expr(block: &syn::Block) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block.clone(),
    })
}

/// A statement `if <method test> { .. }` with no `else` whose block leaves: a link of a run of
/// separate links (see [`Collector::note_separate_links`]).
fn separate_link(stmt: &syn::Stmt) -> Option<&syn::ExprIf> {
    match stmt {
        syn::Stmt::Expr(Expr::If(link), _)
            if link.else_branch.is_none()
                && condition_methods(&link.cond).is_some()
                && leaves_link(&link.then_branch) =>
        {
            Some(link)
        }
        _ => None,
    }
}

/// Whether a link's block ends by leaving: `return`, or `continue` to the next message of the
/// loop around it.
fn leaves_link(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(expr, _)) => leaves_link_expr(expr),
        _ => false,
    }
}

/// `return`, `continue`, or a block, `match` or `if`/`else` whose every way ends so.
fn leaves_link_expr(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Continue(_) => true,
        Expr::Block(b) => leaves_link(&b.block),
        Expr::Match(m) => {
            !m.arms.is_empty() && m.arms.iter().all(|arm| leaves_link_expr(&arm.body))
        }
        Expr::If(i) => {
            leaves_link(&i.then_branch)
                && i.else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| leaves_link_expr(other))
        }
        _ => false,
    }
}

/// Whether every branch of an `if`/`else if` chain with no final `else` ends by returning: the
/// code after the chain runs only for what no branch took.
fn every_link_returns(first: &syn::ExprIf) -> bool {
    let mut current = first;
    loop {
        let returns = matches!(
            current.then_branch.stmts.last(),
            Some(syn::Stmt::Expr(Expr::Return(_), _))
        );
        if !returns {
            return false;
        }
        match current.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Expr::If(next)) => current = next,
            Some(_) => return false,
            None => return true,
        }
    }
}

/// Whether a value is a message the code sends rather than an answer: a `json!` object (also in
/// `Ok(..)`/`Some(..)`) with a `"method"` member and neither `"result"` nor `"error"`, a
/// request or a notification (batch 99's rustpilot: a client's `match` on its action building
/// `notifications/initialized` to send).
fn builds_a_request(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) if is_some_or_ok(&call.func) => {
            call.args.len() == 1 && call.args.first().is_some_and(builds_a_request)
        }
        Expr::Paren(p) => builds_a_request(&p.expr),
        Expr::Macro(m) if macro_name(&m.mac) == "json" => {
            let Some(TokenTree::Group(object)) = m.mac.tokens.clone().into_iter().next() else {
                return false;
            };
            if object.delimiter() != Delimiter::Brace {
                return false;
            }
            // The object's own keys: a string literal followed by `:` at its top level.
            let trees: Vec<TokenTree> = object.stream().into_iter().collect();
            let keys: Vec<String> = trees
                .windows(2)
                .filter_map(|pair| match pair {
                    [TokenTree::Literal(l), TokenTree::Punct(p)] if p.as_char() == ':' => {
                        Some(l.to_string())
                    }
                    _ => None,
                })
                .collect();
            let has = |key: &str| keys.iter().any(|k| k == key);
            has("\"method\"") && !has("\"result\"") && !has("\"error\"")
        }
        _ => false,
    }
}

/// `Some` or `Ok`, as a call's function.
fn is_some_or_ok(func: &Expr) -> bool {
    matches!(func, Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok"))
}

fn value_producing(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => is_some_or_ok(&call.func) || answer_constructor(call),
        Expr::Macro(m) => macro_name(&m.mac) == "json",
        Expr::Struct(_) => true,
        _ => false,
    }
}

/// `McpResponse::error(id, ..)`, `RpcReply::ok(id, ..)`: a response type's constructor of an
/// answer (not of its notification sentinel, `McpResponse::notification()`).
fn answer_constructor(call: &syn::ExprCall) -> bool {
    let Expr::Path(p) = &*call.func else {
        return false;
    };
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let [.., ty, ctor] = segments.as_slice() else {
        return false;
    };
    (ty.ends_with("Response") || ty.ends_with("Reply"))
        && matches!(
            ctor.as_str(),
            "error" | "err" | "ok" | "success" | "result" | "with_error" | "with_result"
        )
}

/// Collect a pattern's method names; false when it is not made of string literals and
/// constants.
pub(crate) fn method_patterns(
    pat: &Pat,
    methods: &mut Vec<String>,
    constants: &mut Vec<String>,
) -> bool {
    match pat {
        Pat::Lit(lit) => match &lit.lit {
            syn::Lit::Str(s) => {
                methods.push(s.value());
                true
            }
            _ => false,
        },
        Pat::Or(or) => or
            .cases
            .iter()
            .all(|case| method_patterns(case, methods, constants)),
        Pat::Path(p) => {
            let segments = path_segments(&p.path);
            match segments.last() {
                Some(last) if super::syntax::is_constant_name(last) => {
                    constants.push(last.clone());
                    true
                }
                _ => false,
            }
        }
        Pat::Ident(ident)
            if ident.subpat.is_none()
                && super::syntax::is_constant_name(&ident.ident.to_string()) =>
        {
            constants.push(ident.ident.to_string());
            true
        }
        Pat::Paren(p) => method_patterns(&p.pat, methods, constants),
        // `Some("tools/call")` in a `match msg.get("method").and_then(Value::as_str)`.
        Pat::TupleStruct(ts) if is_some_of_one(ts) => ts
            .elems
            .first()
            .is_some_and(|only| method_patterns(only, methods, constants)),
        // `("tools/call", _)` in a `match (method, id)`: the one element that names methods.
        // The others may test other values (`(Some(state), "tools/list")` in a `match (blocked,
        // method)`): the arm is still that method's, for some messages.
        Pat::Tuple(t) => {
            let mut named = t
                .elems
                .iter()
                .filter(|e| method_patterns(e, &mut Vec::new(), &mut Vec::new()));
            match (named.next(), named.next()) {
                (Some(only), None) => method_patterns(only, methods, constants),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether the first unguarded catch-all of a `match` on the method hands the method on to a
/// call whose value it tests (see [`delegates_method`]).
fn catch_all_delegates(expr: &syn::ExprMatch) -> bool {
    // What the method is read from, and the catch-all's binding of it (`other =>`).
    let mut method_names: Vec<String> =
        super::syntax::root_local(method_element(expr).unwrap_or(&expr.expr))
            .into_iter()
            .collect();
    let Some(arm) = expr
        .arms
        .iter()
        .find(|arm| arm.guard.is_none() && is_catch_all(&arm.pat))
    else {
        return false;
    };
    if let Pat::Ident(binding) = &arm.pat {
        method_names.push(binding.ident.to_string());
    }
    delegates_method(&arm.body, &method_names)
}

/// Whether `body` tests the value of a call it hands the method to (`match
/// server.handle_method(method, params) { .. }`, `if let Some(v) = route(&method) { .. }`):
/// `names` are what the method is read from and the catch-all's binding of it.
fn delegates_method(body: &Expr, names: &[String]) -> bool {
    struct Finder<'n> {
        names: &'n [String],
        found: bool,
    }
    impl Finder<'_> {
        fn tested(&mut self, scrutinee: &Expr) {
            let args: Vec<&Expr> = match super::syntax::peel(scrutinee) {
                Expr::Call(call) => call.args.iter().collect(),
                Expr::MethodCall(call) => call.args.iter().collect(),
                _ => return,
            };
            self.found |= args.iter().any(|arg| {
                super::syntax::root_local(arg).is_some_and(|root| self.names.contains(&root))
            });
        }
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            self.tested(&m.expr);
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.tested(&l.expr);
            syn::visit::visit_expr_let(self, l);
        }
    }
    let mut finder = Finder {
        names,
        found: false,
    };
    finder.visit_expr(body);
    finder.found
}

/// The key of the JSON member `expr` reads last, by a string literal: `name` in
/// `params.get("name").and_then(|v| v.as_str()).unwrap_or("")`, in `args["name"].as_str()`,
/// and in `msg.get("params").and_then(|p| p.get("name"))`.
fn member_key(expr: &Expr) -> Option<String> {
    match super::syntax::peel(expr) {
        Expr::MethodCall(call) => {
            if call.method == "get" && call.args.len() == 1 {
                if let Some(key) = call.args.first().and_then(super::syntax::str_literal) {
                    return Some(key);
                }
            }
            let in_closure = call.args.iter().find_map(|arg| match arg {
                Expr::Closure(closure) => member_key(&closure.body),
                _ => None,
            });
            in_closure.or_else(|| member_key(&call.receiver))
        }
        Expr::Index(index) => {
            super::syntax::str_literal(&index.index).or_else(|| member_key(&index.expr))
        }
        Expr::Try(e) => member_key(&e.expr),
        Expr::Await(e) => member_key(&e.base),
        _ => None,
    }
}

/// The element of a `match`'s tuple that its arms name methods in (`method` in `match (blocked,
/// method) { (_, "initialize") => .., (Some(s), "tools/list") => .. }`), when one is.
fn method_element(expr: &syn::ExprMatch) -> Option<&Expr> {
    let Expr::Tuple(tuple) = super::syntax::peel(&expr.expr) else {
        return None;
    };
    let index = expr.arms.iter().find_map(|arm| {
        let first = match &arm.pat {
            Pat::Or(or) => or.cases.first()?,
            other => other,
        };
        let Pat::Tuple(t) = first else {
            return None;
        };
        let mut named = t
            .elems
            .iter()
            .enumerate()
            .filter(|(_, e)| method_patterns(e, &mut Vec::new(), &mut Vec::new()));
        match (named.next(), named.next()) {
            (Some((index, _)), None) => Some(index),
            _ => None,
        }
    })?;
    tuple.elems.iter().nth(index)
}

/// A tuple pattern that tests something other than the method for every method (`(_, None)`,
/// `(m, Some(id))`): a `match` holding one is not read as a method dispatcher (that test, of
/// which messages take which way whatever their method, would go unseen). A test beside a
/// method the arm names (`(Some(state), "tools/list")`) only narrows that method's arm.
fn tests_beside_the_method(pat: &Pat) -> bool {
    match pat {
        Pat::Tuple(t) => {
            let tested = t.elems.iter().any(|e| !is_catch_all(e));
            tested && !method_patterns(pat, &mut Vec::new(), &mut Vec::new())
        }
        Pat::Or(or) => or.cases.iter().any(tests_beside_the_method),
        _ => false,
    }
}

/// The method names an `if` condition tests for: `method == "ping"`, `"ping" == method`,
/// `method.eq("ping")`, `matches!(method, "a" | "b")`, and `||` of those.
pub(crate) fn condition_methods(cond: &Expr) -> Option<Vec<String>> {
    match cond {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => str_literal(&b.right)
            .or_else(|| str_literal(&b.left))
            .map(|m| vec![m]),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
            let mut methods = condition_methods(&b.left)?;
            methods.extend(condition_methods(&b.right)?);
            Some(methods)
        }
        Expr::MethodCall(m) if m.method == "eq" && m.args.len() == 1 => {
            m.args.first().and_then(str_literal).map(|s| vec![s])
        }
        Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
            let mut methods = Vec::new();
            let mut constants = Vec::new();
            let mut trees = m.mac.tokens.clone().into_iter();
            // `matches!(scrutinee, pattern)`: the pattern follows the first top-level comma.
            for tree in trees.by_ref() {
                if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                    break;
                }
            }
            let pattern: TokenStream = trees.collect();
            let pat =
                syn::parse::Parser::parse2(Pat::parse_multi_with_leading_vert, pattern).ok()?;
            method_patterns(&pat, &mut methods, &mut constants).then_some(methods)
        }
        Expr::Paren(p) => condition_methods(&p.expr),
        _ => None,
    }
}

/// A `Some(..)` pattern of one element.
fn is_some_of_one(ts: &syn::PatTupleStruct) -> bool {
    ts.elems.len() == 1 && ts.path.segments.last().is_some_and(|s| s.ident == "Some")
}

/// The catch-all of a `match` over an optional method (`Some(other) => ..`, or `Some(_)`), when
/// every arm after it is `None` (a message without a method, which is no method's).
fn is_some_catch_all(arms: &[syn::Arm], index: usize) -> bool {
    let Some(arm) = arms.get(index) else {
        return false;
    };
    let some_any = matches!(&arm.pat, Pat::TupleStruct(ts)
        if is_some_of_one(ts) && ts.elems.first().is_some_and(is_catch_all));
    some_any
        && arm.guard.is_none()
        && arms[index + 1..].iter().all(|later| {
            matches!(&later.pat, Pat::Ident(i) if i.ident == "None" && i.subpat.is_none())
                || matches!(&later.pat, Pat::Path(p) if p.path.is_ident("None"))
        })
}

/// `_`, or a lowercase binding that takes anything.
fn is_catch_all(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Tuple(t) => t.elems.iter().all(is_catch_all),
        // `None` is the variant, not a binding.
        Pat::Ident(ident) => {
            ident.subpat.is_none()
                && ident.ident != "None"
                && !super::syntax::is_constant_name(&ident.ident.to_string())
        }
        _ => false,
    }
}

/// The tokens of a key's value in a `json!` object's top level.
pub fn value_of_key(object: &TokenStream, wanted: &str) -> Option<Vec<TokenTree>> {
    let trees: Vec<TokenTree> = object.clone().into_iter().collect();
    trees.iter().enumerate().find_map(|(i, tree)| {
        let TokenTree::Literal(lit) = tree else {
            return None;
        };
        let colon = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        (colon && lit.to_string().trim_matches('"') == wanted).then(|| {
            trees[i + 2..]
                .iter()
                .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                .cloned()
                .collect()
        })
    })
}

/// `Json(request): Json<JsonRpcRequest>` (axum's, actix's `web::Json`, a `Form`): the binding
/// inside the extractor's pattern and the wrapped type's name.
fn extracted(pat: &Pat, ty: &syn::Type) -> Option<(String, String)> {
    let Pat::TupleStruct(ts) = pat else {
        return None;
    };
    let [Pat::Ident(binding)] = ts.elems.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    Some((binding.ident.to_string(), extractor_inner(ty)?))
}

/// The type a web framework's body extractor wraps: `JsonRpcRequest` in `Json<JsonRpcRequest>`,
/// `web::Json<..>`, `Form<..>`.
fn extractor_inner(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if !matches!(last.ident.to_string().as_str(), "Json" | "Form") {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let Some(syn::GenericArgument::Type(inner)) = args.args.first() else {
        return None;
    };
    type_name(inner)
}

/// A JSON-RPC error code written as a literal (`-32603`, `-32000`: -32768 to -32000, the range
/// JSON-RPC reserves): a call handed one builds an error answer, whatever it is called.
fn is_jsonrpc_error_code(expr: &Expr) -> bool {
    super::err_variants::jsonrpc_error_code(expr).is_some()
}

/// Where an `if`/`else if` chain ends: its last block's closing brace.
fn chain_end(first: &syn::ExprIf) -> proc_macro2::Span {
    let mut current = first;
    loop {
        match current.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Expr::If(next)) => current = next,
            Some(Expr::Block(block)) => return block.block.brace_token.span.close(),
            _ => return current.then_branch.brace_token.span.close(),
        }
    }
}

/// The side of an `if` chain's first condition that is not the method literal:
/// `request.method` in `request.method == "initialize"`.
fn chain_subject(cond: &Expr) -> Option<&Expr> {
    match cond {
        Expr::Binary(b) => {
            if str_literal(&b.right).is_some() {
                Some(&b.left)
            } else if str_literal(&b.left).is_some() {
                Some(&b.right)
            } else {
                chain_subject(&b.left)
            }
        }
        Expr::Paren(p) => chain_subject(&p.expr),
        _ => None,
    }
}

/// A local whose type the code names: `let request: Request = ..`, or `let request =
/// serde_json::from_str::<Request>(..)?` (also `from_slice`, `from_value`, `from_reader`).
/// Whether an expression reads a member of a value (`&request.method`, `request.method.as_str()`,
/// `req.method.clone()`), not the value itself.
fn reads_a_member(expr: &Expr) -> bool {
    match expr {
        Expr::Field(_) => true,
        Expr::Reference(r) => reads_a_member(&r.expr),
        Expr::Paren(p) => reads_a_member(&p.expr),
        Expr::MethodCall(m) if m.args.is_empty() => reads_a_member(&m.receiver),
        _ => false,
    }
}

fn typed_local(local: &syn::Local) -> Option<(String, String)> {
    if let Pat::Type(t) = &local.pat {
        if let Pat::Ident(ident) = &*t.pat {
            return Some((ident.ident.to_string(), type_name(&t.ty)?));
        }
    }
    let Pat::Ident(ident) = &local.pat else {
        return None;
    };
    let init = local.init.as_ref()?;
    let Expr::Call(call) = super::syntax::peel(&init.expr) else {
        return None;
    };
    let Expr::Path(func) = &*call.func else {
        return None;
    };
    let last = func.path.segments.last()?;
    if !matches!(
        last.ident.to_string().as_str(),
        "from_str" | "from_slice" | "from_value" | "from_reader"
    ) {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let Some(syn::GenericArgument::Type(ty)) = args.args.first() else {
        return None;
    };
    Some((ident.ident.to_string(), type_name(ty)?))
}

/// Whether a catch-all's value is an error for its caller (`Err(..)`, `bail!(..)`): when a caller
/// answers the dispatcher's errors, the methods the catch-all takes are refused.
fn err_method_not_found(body: &Expr) -> bool {
    let Some(value) = arm_value(body) else {
        return false;
    };
    match value {
        // `Err(..)` of any error, `other => anyhow::bail!("..")`: an error for the caller,
        // whatever its code and words; a caller that answers the dispatcher's errors refuses the
        // method with it (as an arm that answers with an error itself does).
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Err")),
        Expr::Macro(mac) => mac
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "bail"),
        _ => false,
    }
}

/// Whether tokens name an HTTP status that is not a success (`StatusCode::BAD_REQUEST`,
/// `http::StatusCode::NOT_FOUND`), inside groups too.
pub fn names_http_error_status(tokens: TokenStream) -> bool {
    let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(i, token)| match token {
        proc_macro2::TokenTree::Group(group) => names_http_error_status(group.stream()),
        proc_macro2::TokenTree::Ident(ident) if ident == "StatusCode" => {
            let status = match tokens.get(i + 1..i + 4) {
                Some(
                    [proc_macro2::TokenTree::Punct(a), proc_macro2::TokenTree::Punct(b), proc_macro2::TokenTree::Ident(status)],
                ) if a.as_char() == ':' && b.as_char() == ':' => status.to_string(),
                _ => return false,
            };
            !matches!(status.as_str(), "OK" | "CREATED" | "ACCEPTED" | "NO_CONTENT")
                && status.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        }
        _ => false,
    })
}

/// The value an arm's body gives: its tail, or what a `return` there returns.
fn arm_value(body: &Expr) -> Option<&Expr> {
    match super::syntax::tail_value(body) {
        Expr::Return(r) => r.expr.as_deref(),
        // `{ ..; return Err(..); }`: the block ends in a `return` statement.
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(Expr::Return(r), Some(_))) => r.expr.as_deref(),
            _ => Some(super::syntax::tail_value(body)),
        },
        other => Some(other),
    }
}

/// Whether a catch-all's tokens answer with method-not-found: they hold the code (`-32601`, a
/// `METHOD_NOT_FOUND` name), or its message in a string (`"Method not found"`) while the arm
/// visibly answers (`responds`). A message in a string alone decides nothing: `_ => "method not
/// found"` is a value its caller may never send.
fn names_method_not_found(tokens: TokenStream, responds: bool, codes: &CodeConsts) -> bool {
    // An arm that visibly answers with an error refuses the methods it takes, whatever the code
    // and the words (`-32603 "Unknown method"`, `INVALID_REQUEST`).
    if responds && answers_error(&tokens, codes) {
        return true;
    }
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    // What a log or print macro is given is written to a log, not answered
    // (`log::info!("Unknown method called: {}", m)`).
    let logged = |i: usize| {
        i >= 2
            && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '!')
            && matches!(&trees[i - 2], TokenTree::Ident(name) if LOG_MACROS.contains(&name.to_string().as_str()))
    };
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Group(_) if logged(i) => false,
        TokenTree::Literal(l) => {
            let text = l.to_string();
            (text == "32601"
                && i > 0
                && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '-'))
                || (responds && {
                    let lower = text.to_ascii_lowercase();
                    lower.starts_with('"')
                        && (lower.contains("method not found")
                            || lower.contains("unknown method")
                            || lower.contains("unsupported method")
                            || lower.contains("method not supported"))
                })
        }
        TokenTree::Ident(ident) => {
            let name = ident.to_string().to_ascii_lowercase();
            name.contains("method_not_found") || name.contains("methodnotfound")
        }
        TokenTree::Group(g) => names_method_not_found(g.stream(), responds, codes),
        _ => false,
    })
}

/// The macros of std, `log` and `tracing` that write a log line or print.
const LOG_MACROS: &[&str] = &[
    "trace", "debug", "info", "warn", "error", "log", "event", "println", "eprintln", "print",
    "eprint",
];

/// Integer constants whose value is a JSON-RPC error code, by name.
type CodeConsts = std::collections::HashMap<String, i64>;

/// Whether tokens build an error answer: an `error` member given a value (`"error": {..}` in a
/// `json!`, `error: Some(..)` in a struct, `response.error = Some(..)`), or a JSON-RPC error code
/// (-32768 to -32000).
fn answers_error(tokens: &TokenStream, codes: &CodeConsts) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let no_value = |tree: Option<&TokenTree>| match tree {
        Some(TokenTree::Ident(i)) => i == "None" || i == "null",
        None => true,
        _ => false,
    };
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Literal(l) if l.to_string() == "\"error\"" => {
            matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                && !no_value(trees.get(i + 2))
        }
        TokenTree::Ident(ident) if ident == "error" => {
            let assigns = matches!(trees.get(i + 1), Some(TokenTree::Punct(p))
                if (p.as_char() == ':' || p.as_char() == '=') && p.spacing() == proc_macro2::Spacing::Alone);
            // A struct's field (`{ error: .. }`, `, error: ..`) or a field assigned
            // (`response.error = ..`); not `let error: T` nor a path (`log::error`).
            let member = match i.checked_sub(1).and_then(|j| trees.get(j)) {
                None => true,
                Some(TokenTree::Punct(p)) => p.as_char() == ',' || p.as_char() == '.',
                Some(_) => false,
            };
            assigns && member && !no_value(trees.get(i + 2))
        }
        TokenTree::Literal(l) => {
            i > 0
                && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '-')
                && l.to_string()
                    .parse::<u32>()
                    .is_ok_and(|v| (32000..=32768).contains(&v))
        }
        // A constant of the file whose value is such a code (`METHOD_NOT_FOUND`, however named).
        TokenTree::Ident(ident) => codes.contains_key(&ident.to_string()),
        TokenTree::Group(g) => answers_error(&g.stream(), codes),
        _ => false,
    })
}

/// `None`.
fn is_none_pattern(pat: &Pat) -> bool {
    matches!(pat, Pat::Ident(p) if p.ident == "None" && p.subpat.is_none())
        || matches!(pat, Pat::Path(p) if p.path.is_ident("None"))
}

/// The pattern inside `Some(..)` when the arms match an `Option` (`wrapped`), else the pattern.
fn unwrap_some(pat: &Pat, wrapped: bool) -> &Pat {
    match pat {
        Pat::TupleStruct(ts) if wrapped && is_some_of_one(ts) => ts.elems.first().unwrap_or(pat),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatch facts of a parsed file, through the shared walk.
    fn collect(file: &syn::File, base: usize) -> DispatchFacts {
        collect_with(file, base, Vec::new())
    }

    fn collect_with(
        file: &syn::File,
        base: usize,
        unread: Vec<crate::analysis::items::UnreadConst>,
    ) -> DispatchFacts {
        let mut facts = crate::analysis::facts::FileFacts::default();
        crate::analysis::walk::walk(file, base, vec![hook(base, unread)], &mut facts);
        facts.dispatch
    }

    fn facts(code: &str) -> DispatchFacts {
        let file = syn::parse_file(code).expect("test code parses");
        let unread = crate::analysis::items::unread_constants(&file, code, 0);
        collect_with(&file, 0, unread)
    }

    #[test]
    fn finds_a_dispatcher_with_its_catch_all() {
        let facts = facts(
            r#"fn handle(method: &str, id: Option<Value>) -> Value {
                match method {
                    "initialize" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                    "tools/list" | "tools/call" => reply(id, json!({"tools": []})),
                    "notifications/initialized" => Value::Null,
                    _ => error(id, -32601, "method not found"),
                }
            }"#,
        );
        let [dispatcher] = facts.dispatchers.as_slice() else {
            panic!("one dispatcher: {facts:?}");
        };
        assert!(dispatcher.handles("tools/call"));
        assert!(!dispatcher.handles("ping"));
        let catch_all = dispatcher.catch_all.as_ref().expect("a catch-all");
        assert!(catch_all.method_not_found);
        assert!(dispatcher.arms[0].responds.is_some());
        assert!(dispatcher.arms[1].result_template.is_some());
        assert!(dispatcher.arms[2].responds.is_none());
        assert_eq!(dispatcher.params[1], ("id".into(), "Option".into()));
    }

    #[test]
    fn reads_if_else_chains_as_dispatchers_once() {
        let facts = facts(
            r#"fn handle(method: &str) -> i64 {
                if method == "initialize" { 1 }
                else if matches!(method, "ping" | "tools/list") { 2 }
                else if "tools/call" == method || method.eq("tools/x") { 3 }
                else { error(-32601) }
            }"#,
        );
        let [dispatcher] = facts.dispatchers.as_slice() else {
            panic!("one dispatcher, not one per `else if`: {facts:?}");
        };
        assert!(dispatcher.chain);
        assert!(dispatcher.handles("ping") && dispatcher.handles("tools/call"));
        assert!(dispatcher.handles("tools/x"));
        assert!(dispatcher
            .catch_all
            .as_ref()
            .is_some_and(|c| c.method_not_found));
    }

    #[test]
    fn literals_count_in_code_not_in_doc_comments_or_unread_private_constants() {
        let unread = facts(
            r#"/// "jsonrpc": "2.0", ping
            #[doc = "initialize"]
            const WORDS: &[&str] = &["jsonrpc", "2.0", "ping", "initialize"];
            static METHOD: &str = "tools/list";
            impl S { const PING: &str = "ping"; }
            fn f() { let _ = WORDS2; }"#,
        );
        assert!(!unread.jsonrpc_literals && !unread.mcp_method_literals);
        assert!(
            unread.method_literals.is_empty(),
            "{:?}",
            unread.method_literals
        );
        // Read by code (a path, a macro's tokens), or public (read where the analysis may not
        // see it): as if written where they are read.
        let read = facts(
            r#"const VERSION: &str = "2.0";
            const PING: &str = "ping";
            pub const METHODS: &[&str] = &["initialize"];
            fn f(m: &str) -> Value {
                if m == PING { return json!({}); }
                json!({"jsonrpc": VERSION})
            }"#,
        );
        assert!(read.jsonrpc_literals && read.mcp_method_literals);
        assert_eq!(read.method_literals, ["initialize", "ping"]);
    }

    #[test]
    fn a_match_over_other_strings_is_not_a_dispatcher() {
        let facts = facts(r#"fn f(x: &str) { match x { "a" => 1, "b" => 2, _ => 3 }; }"#);
        assert!(facts.dispatchers.is_empty());
    }

    #[test]
    fn names_sdk_from_use_and_paths() {
        let file = syn::parse_file("use rmcp::model::{ErrorCode};\nfn f() {}").expect("parses");
        assert!(collect(&file, 0).names_sdk);
        let file = syn::parse_file("fn f() { let _ = pmcp::Server::builder(); }").expect("parses");
        assert!(collect(&file, 0).names_sdk);
        let file = syn::parse_file("// rmcp::x\nfn f() {}").expect("parses");
        assert!(!collect(&file, 0).names_sdk);
    }

    /// A macro of the file that invokes itself fourfold, in every arm of a dispatcher: the arms
    /// are read within the file's expansion budget (the first arm's expansion spends it; the
    /// arms after it are read as written), and the dispatcher is still found.
    #[test]
    fn arms_through_macros_that_invoke_themselves_stop_at_the_budget() {
        let arm = r#"again!(json!({"jsonrpc": "2.0", "id": id, "result": {}}))"#;
        let code = format!(
            "macro_rules! again {{ ($e:expr) => {{ {{ again!($e); again!($e); again!($e); again!($e); $e }} }}; }}\n\
             fn handle(method: &str, id: Option<Value>) -> Value {{\n\
                 match method {{ \"initialize\" => {arm}, \"tools/list\" => {arm}, \"ping\" => {arm}, _ => {arm} }}\n\
             }}\n"
        );
        let facts = facts(&code);
        assert_eq!(facts.dispatchers.len(), 1, "{facts:?}");
        assert!(facts.dispatchers[0].catch_all.is_some());
        assert!(
            facts.dispatchers[0].arms[0].responds.is_some(),
            "the first arm answers through the macro: {facts:?}"
        );
    }
}
