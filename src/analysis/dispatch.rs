//! Facts about hand-written JSON-RPC method dispatchers, for MCP003 (responses to notifications)
//! and MCP004 (`ping` not answered): `match` expressions over method-name literals, the places that
//! test whether a message has an `id`, responses built with a null `id`, and notification tests
//! made on the method name's prefix.
//!
//! A hook of the shared layer on the walk ([`super::walk`]); what it finds is described by the
//! types of [`super::dispatchers`].

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Pat};

use super::spans::Bounds;
use super::syntax::{macro_name, path_segments, str_literal, type_name};
use super::walk::{Hook, Node, Scope};
use crate::source::ByteSpan;

pub use super::dispatchers::{
    is_notification_method, CatchAllArm, DispatchFacts, MethodArm, MethodDispatcher,
    NullIdResponse, ResultTemplate,
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
];

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
        parse_error_depth: 0,
        seen_jsonrpc: false,
        seen_two: false,
        chain_links: std::collections::HashSet::new(),
        unread,
        in_unread: 0,
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
    /// The function has built an HTTP status so far (`StatusCode::UNAUTHORIZED`), or names an
    /// HTTP response type (`HttpResponse`).
    builds_status: bool,
    /// The function returns nothing (`-> ()`, or no return type).
    returns_unit: bool,
}

struct Collector {
    base: usize,
    facts: DispatchFacts,
    functions: Vec<FunctionScope>,
    /// How many enclosing constructs handle a message that did not parse.
    parse_error_depth: usize,
    seen_jsonrpc: bool,
    seen_two: bool,
    /// The inner `if`s of the `if`/`else if` dispatchers found, by start.
    chain_links: std::collections::HashSet<usize>,
    /// The private constants no code of the file reads.
    unread: Vec<super::items::UnreadConst>,
    /// How many of them enclose the current node.
    in_unread: usize,
}

impl Collector {
    fn span(&self, node: &impl Bounds) -> ByteSpan {
        let (first, last) = node.bounds();
        self.raw_span(first, last)
    }

    fn raw_span(&self, first: proc_macro2::Span, last: proc_macro2::Span) -> ByteSpan {
        super::spans::byte_span(first, last, self.base)
    }

    fn function_span(&self) -> Option<ByteSpan> {
        self.functions.last().map(|f| f.span)
    }

    fn enter_function(&mut self, name: String, span: ByteSpan, sig: &syn::Signature) {
        let params = sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(typed) => {
                    let name = match &*typed.pat {
                        Pat::Ident(ident) => ident.ident.to_string(),
                        _ => String::new(),
                    };
                    Some((name, type_name(&typed.ty)?))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let parse = name.contains("parse");
        let returns_unit = match &sig.output {
            syn::ReturnType::Default => true,
            syn::ReturnType::Type(_, ty) => {
                matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty())
            }
        };
        self.functions.push(FunctionScope {
            name,
            span,
            params,
            builds_status: false,
            returns_unit,
        });
        if parse {
            self.parse_error_depth += 1;
        }
    }

    fn leave_function(&mut self) {
        if let Some(scope) = self.functions.pop() {
            if scope.name.contains("parse") {
                self.parse_error_depth = self.parse_error_depth.saturating_sub(1);
            }
        }
    }

    fn dispatcher(&self, expr: &syn::ExprMatch) -> Option<MethodDispatcher> {
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
        if !by_constants && (named < 2 || !mcp) {
            return None;
        }
        let mut arms = Vec::new();
        let mut catch_all = None;
        let count = expr.arms.len();
        for ((index, arm), pattern) in expr.arms.iter().enumerate().zip(patterns) {
            if let Some((methods, constants)) = pattern {
                if arm.guard.is_some() {
                    continue;
                }
                arms.push(MethodArm {
                    methods,
                    constants,
                    body: self.span(&arm.body),
                    responds: self.responds(&arm.body),
                    calls: called_names(&arm.body),
                    result_template: self.result_template(&arm.body),
                });
            } else if index + 1 == count && arm.guard.is_none() && is_catch_all(&arm.pat) {
                let tokens = arm.body.to_token_stream();
                catch_all = Some(CatchAllArm {
                    span: ByteSpan::new(self.span(&arm.pat).start, self.span(&arm.body).end),
                    body: self.span(&arm.body),
                    method_not_found: names_method_not_found(
                        tokens,
                        self.responds(&arm.body).is_some(),
                    ),
                    calls: called_names(&arm.body),
                });
            }
        }
        let scope = self.functions.last();
        Some(MethodDispatcher {
            span: self.raw_span(expr.match_token.span, expr.brace_token.span.close()),
            chain: false,
            function: scope.map(|f| (f.name.clone(), f.span)),
            params: scope.map(|f| f.params.clone()).unwrap_or_default(),
            arms,
            catch_all,
            by_constants,
        })
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
        let mcp = links
            .iter()
            .flat_map(|(methods, _)| methods)
            .any(|m| is_mcp_method(m));
        if named < 2 || !mcp {
            return None;
        }
        let as_expr = |block: &syn::Block| {
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: block.clone(),
            })
        };
        let arms = links
            .into_iter()
            .map(|(methods, block)| {
                let body = as_expr(block);
                MethodArm {
                    methods,
                    constants: Vec::new(),
                    body: self.raw_span(
                        block.brace_token.span.open(),
                        block.brace_token.span.close(),
                    ),
                    responds: self.responds(&body),
                    calls: called_names(&body),
                    result_template: None,
                }
            })
            .collect();
        let catch_all = catch_all_block.map(|block| {
            let body = as_expr(&block.block);
            let span = self.raw_span(
                block.block.brace_token.span.open(),
                block.block.brace_token.span.close(),
            );
            CatchAllArm {
                span,
                body: span,
                method_not_found: names_method_not_found(
                    body.to_token_stream(),
                    self.responds(&body).is_some(),
                ),
                calls: called_names(&body),
            }
        });
        let scope = self.functions.last();
        Some(MethodDispatcher {
            span: self.raw_span(
                first.if_token.span,
                first.then_branch.brace_token.span.close(),
            ),
            chain: true,
            function: scope.map(|f| (f.name.clone(), f.span)),
            params: scope.map(|f| f.params.clone()).unwrap_or_default(),
            arms,
            catch_all,
            by_constants: false,
        })
    }

    /// Where an arm's body answers, if it visibly does.
    fn responds(&self, body: &Expr) -> Option<ByteSpan> {
        let mut finder = ResponseFinder {
            collector: self,
            found: None,
        };
        finder.visit_expr(body);
        if finder.found.is_some() {
            return finder.found;
        }
        // A value for the caller to send: the arm's value is something, not nothing.
        let tail = tail_expr(body);
        if is_quiet(tail) {
            None
        } else if value_producing(tail) {
            Some(self.span(tail))
        } else {
            None
        }
    }

    fn result_template(&self, body: &Expr) -> Option<ResultTemplate> {
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
        Some(ResultTemplate {
            body: self.span(expr),
            replace,
            replacement,
        })
    }

    /// A string literal of code (not of an unread constant, which is words, not behaviour).
    fn note_literal(&mut self, value: &str) {
        if self.in_unread > 0 {
            return;
        }
        match value {
            "ping" => self.facts.mentions_ping = true,
            "jsonrpc" => self.seen_jsonrpc = true,
            "2.0" => self.seen_two = true,
            "initialize" | "tools/list" | "tools/call" => self.facts.mcp_method_literals = true,
            _ => {}
        }
        self.facts.jsonrpc_literals = self.seen_jsonrpc && self.seen_two;
    }

    fn note_token_literals(&mut self, tokens: &TokenStream) {
        for tree in tokens.clone() {
            match tree {
                TokenTree::Literal(l) => {
                    let text = l.to_string();
                    if let Some(value) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                        self.note_literal(value);
                    }
                }
                TokenTree::Group(g) => self.note_token_literals(&g.stream()),
                _ => {}
            }
        }
    }

    fn null_id_response(&mut self, span: ByteSpan, tokens: Option<TokenStream>) {
        let parse_codes = tokens.is_some_and(names_parse_error_code);
        // A function handed an HTTP status, or that builds one before the body, builds the body
        // of an HTTP rejection (`(StatusCode::UNAUTHORIZED, Json(json!({.., "id": null})))`: a
        // missing header, a body too large, a failed authentication): the transport refuses
        // the request, and notifications are answered `202 Accepted` elsewhere.
        let http_rejection = self
            .functions
            .last()
            .is_some_and(|f| f.builds_status || f.params.iter().any(|(_, ty)| ty == "StatusCode"));
        self.facts.null_id_responses.push(NullIdResponse {
            span,
            answers_parse_error: self.parse_error_depth > 0 || parse_codes || http_rejection,
        });
    }
}

/// Whether entering `node` (a child of `parent`) enters code that handles a message that did
/// not parse: an `Err(..)` arm, the `then` branch of `if let Err(..)`, the `else` of a
/// `let .. = parse(..) else { .. }`, the closure of a `map_err` (and its kin).
fn handles_parse_error(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    match (node, parent) {
        (Node::Arm(arm), Some(Node::Expr(Expr::Match(_)))) => is_err_pattern(&arm.pat),
        (Node::Block(block), Some(Node::Expr(Expr::If(expr_if)))) => {
            std::ptr::eq(block, &expr_if.then_branch)
                && matches!(&*expr_if.cond, Expr::Let(l) if is_err_pattern(&l.pat))
        }
        (Node::Expr(expr), Some(Node::Local(local))) => local.init.as_ref().is_some_and(|init| {
            init.diverge
                .as_ref()
                .is_some_and(|(_, diverge)| std::ptr::eq(expr, &**diverge))
                && calls_parser(&init.expr)
        }),
        (Node::Expr(expr), Some(Node::Expr(Expr::MethodCall(call)))) => {
            call.args.iter().any(|arg| std::ptr::eq(arg, expr))
                && ["map_err", "unwrap_or_else", "or_else", "map_or_else"]
                    .iter()
                    .any(|m| call.method == m)
        }
        _ => false,
    }
}

/// Whether a node is a function (whose scope the walk has just entered).
fn is_function(node: Node<'_>) -> bool {
    matches!(
        node,
        Node::Item(syn::Item::Fn(_))
            | Node::ImplItem(syn::ImplItem::Fn(_))
            | Node::TraitItem(syn::TraitItem::Fn(_))
    )
}

impl Hook for Collector {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        // Test code answers whatever it likes; macro bodies are read for their literals only.
        if scope.in_test() || scope.in_macro_body() {
            return;
        }
        if handles_parse_error(node, scope.parent()) {
            self.parse_error_depth += 1;
        }
        if is_function(node) {
            if let Some(function) = scope.function() {
                self.enter_function(function.name(), function.span, function.sig);
            }
        }
        if self.is_unread(node) {
            self.in_unread += 1;
        }
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
                // `StatusCode::UNAUTHORIZED`, or an HTTP response type (`HttpResponse::build(..)`,
                // actix's, also as the function's return type).
                let status = (path.segments.len() > 1
                    && path.segments.iter().any(|s| s.ident == "StatusCode"))
                    || path.segments.iter().any(|s| s.ident == "HttpResponse");
                if let (true, Some(function)) = (status, self.functions.last_mut()) {
                    function.builds_status = true;
                }
            }
            Node::UsePath(path) if SDK_CRATES.iter().any(|c| path.ident == c) => {
                self.facts.names_sdk = true;
            }
            Node::LitStr(lit) => self.note_literal(&lit.value()),
            Node::Local(local) => self.enter_local(local),
            Node::Expr(expr) => self.enter_expr(expr),
            Node::Macro(mac) => self.enter_macro(mac),
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if scope.in_test() || scope.in_macro_body() {
            return;
        }
        if handles_parse_error(node, scope.parent()) {
            self.parse_error_depth = self.parse_error_depth.saturating_sub(1);
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

    fn push_id_check(&mut self, span: ByteSpan) {
        let function = self.function_span();
        self.facts.id_checks.push((span, function));
    }

    fn enter_local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            return;
        };
        if init.diverge.is_some()
            && ((option_pattern(&local.pat).is_some() && ends_in_id(&init.expr))
                || names_notification_variant(&local.pat))
        {
            self.push_id_check(self.span(&*init.expr));
        }
    }

    fn enter_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Match(m) => self.enter_match(m),
            Expr::If(expr_if) => {
                let start = self
                    .raw_span(expr_if.if_token.span, expr_if.if_token.span)
                    .start;
                if !self.chain_links.remove(&start) {
                    if let Some(dispatcher) = self.if_chain_dispatcher(expr_if) {
                        self.facts.dispatchers.push(dispatcher);
                    }
                }
            }
            Expr::Let(expr_let)
                if (option_pattern(&expr_let.pat).is_some() && ends_in_id(&expr_let.expr))
                    || names_notification_variant(&expr_let.pat) =>
            {
                self.push_id_check(self.span(&*expr_let.expr));
            }
            // `msg.get("id")?`: a message without an id goes no further.
            Expr::Try(expr_try) if ends_in_id(&expr_try.expr) => {
                self.push_id_check(self.span(&*expr_try.expr));
            }
            Expr::MethodCall(call) => self.enter_method_call(call),
            Expr::Call(call) => {
                let name = match &*call.func {
                    Expr::Path(p) => super::syntax::last_segment(&p.path),
                    _ => String::new(),
                };
                if answers_with_null_id(&name, &call.args) {
                    let tokens = call.to_token_stream();
                    self.null_id_response(self.span(call), Some(tokens));
                }
            }
            Expr::Struct(s) => self.enter_struct(s),
            _ => {}
        }
    }

    fn enter_match(&mut self, expr: &syn::ExprMatch) {
        if let Some(dispatcher) = self.dispatcher(expr) {
            self.facts.dispatchers.push(dispatcher);
        }
        let on_id = ends_in_id(&expr.expr);
        if (on_id && expr.arms.iter().any(|a| option_pattern(&a.pat).is_some()))
            || expr.arms.iter().any(|a| names_notification_variant(&a.pat))
        {
            self.push_id_check(self.span(&*expr.expr));
        }
    }

    fn enter_method_call(&mut self, call: &syn::ExprMethodCall) {
        let method = call.method.to_string();
        match method.as_str() {
            "is_none" | "is_some" | "is_null" if ends_in_id(&call.receiver) => {
                self.push_id_check(self.span(call));
            }
            // `obj.contains_key("id")`: the member's presence, which is what tells a request
            // from a notification.
            "contains_key" if call.args.first().and_then(str_literal).as_deref() == Some("id") => {
                self.push_id_check(self.span(call));
            }
            "starts_with" => {
                let prefix = call.args.first().and_then(str_literal);
                if prefix.is_some_and(|p| p.starts_with("notifications")) {
                    let function = self.function_span();
                    self.facts.prefix_checks.push((self.span(call), function));
                    if self.functions.last().is_some_and(|f| f.returns_unit) {
                        self.facts
                            .prefix_checks_in_unit_functions
                            .push(self.span(call));
                    }
                }
            }
            _ => {}
        }
        if answers_with_null_id(&method, &call.args) {
            let tokens = call.to_token_stream();
            self.null_id_response(self.span(call), Some(tokens));
        }
    }

    fn enter_struct(&mut self, expr: &syn::ExprStruct) {
        let named = |name: &str| {
            expr.fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(i) if i == name))
        };
        let null_id = named("id").is_some_and(|f| is_null_id(&f.expr));
        // `result: None, error: None` is no answer (a notification sentinel).
        let answers = |name: &str| {
            named(name)
                .is_some_and(|f| !matches!(&f.expr, Expr::Path(p) if p.path.is_ident("None")))
        };
        if null_id && (answers("result") || answers("error")) {
            let tokens = expr.to_token_stream();
            let first = match (&expr.qself, expr.path.segments.first()) {
                (Some(q), _) => q.lt_token.span,
                (None, Some(segment)) => segment.ident.span(),
                (None, None) => expr.brace_token.span.open(),
            };
            let span = self.raw_span(first, expr.brace_token.span.close());
            self.null_id_response(span, Some(tokens));
        }
    }

    fn enter_macro(&mut self, mac: &syn::Macro) {
        if macro_name(mac) == "json" && json_null_id_response(&mac.tokens) {
            self.null_id_response(self.span(mac), Some(mac.tokens.clone()));
        }
        if macro_name(mac) == "matches" && tokens_name_notification_variant(&mac.tokens) {
            self.push_id_check(self.span(mac));
        }
        // `json!({"id": id?, ..})`: a message without an id gets no answer.
        if tokens_try_id(&mac.tokens) {
            self.push_id_check(self.span(mac));
        }
        // Code inside macros (`json!`, `format!`) is read only for its string literals.
        self.note_token_literals(&mac.tokens);
    }
}

/// Finds the first visible answer in an arm's body: a `json!` response, a struct with an `id`
/// and a `result` or `error`, or a call whose name says it answers.
struct ResponseFinder<'c> {
    collector: &'c Collector,
    found: Option<ByteSpan>,
}

impl<'ast> Visit<'ast> for ResponseFinder<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if self.found.is_some() {
            return;
        }
        match expr {
            Expr::Call(call) => {
                if let Expr::Path(p) = &*call.func {
                    let name = super::syntax::last_segment(&p.path);
                    if responding_name(&name) {
                        self.found = Some(self.collector.span(call));
                        return;
                    }
                }
            }
            Expr::MethodCall(call) if responding_name(&call.method.to_string()) => {
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
fn called_names(body: &Expr) -> Vec<String> {
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
fn responding_name(name: &str) -> bool {
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

/// Whether a call builds or sends a JSON-RPC answer with a null `id`: the null is its first
/// argument (where every answering helper takes the id: `error_response(None, -32601, ..)`), and
/// the call says it answers with a result or an error (its name, or an error code among its
/// arguments). A `None` elsewhere, or in a call that is only named after an HTTP response
/// (`into_json_response(StatusCode::OK, None)`, `stateless_sse_response(None, rx, ct)`,
/// `post_message_with_response_limits(uri, msg, None, ..)`), is some other optional value.
fn answers_with_null_id(
    name: &str,
    args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
) -> bool {
    if !responding_name(name) || !args.first().is_some_and(is_null_id) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    let says_answer = ["error", "result", "reply", "respond", "answer"]
        .iter()
        .any(|w| lower.contains(w));
    says_answer || args.iter().skip(1).any(is_error_code_expr)
}

/// A negative integer literal (`-32601`) or a path naming an error code (`METHOD_NOT_FOUND`,
/// `ErrorCode::InvalidRequest`).
fn is_error_code_expr(expr: &Expr) -> bool {
    match expr {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            matches!(&*u.expr, Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_)))
        }
        Expr::Path(p) => {
            let segments = path_segments(&p.path);
            segments.iter().any(|s| {
                let lower = s.to_ascii_lowercase();
                lower.contains("error") || lower.contains("not_found") || lower.contains("notfound")
            })
        }
        Expr::Cast(c) => is_error_code_expr(&c.expr),
        Expr::Paren(p) => is_error_code_expr(&p.expr),
        _ => false,
    }
}

/// The expression a block-bodied arm ends with.
fn tail_expr(expr: &Expr) -> &Expr {
    match expr {
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => tail_expr(tail),
            _ => expr,
        },
        Expr::Paren(p) => tail_expr(&p.expr),
        _ => expr,
    }
}

/// An arm value that answers nothing: `None`, `()`, `{}`, `Ok(())`, `Ok(None)`, `continue`,
/// `return`, a block ending in a statement.
fn is_quiet(expr: &Expr) -> bool {
    match expr {
        Expr::Block(b) => !matches!(b.block.stmts.last(), Some(syn::Stmt::Expr(_, None))),
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Path(p) => p.path.is_ident("None"),
        Expr::Continue(_) | Expr::Break(_) => true,
        Expr::Return(r) => r.expr.as_deref().is_none_or(is_quiet),
        Expr::Call(call) => {
            let wrapper = matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Ok"));
            wrapper && call.args.len() == 1 && call.args.first().is_some_and(is_quiet)
        }
        _ => false,
    }
}

/// An arm value that is a message for the caller to send: `Some(..)`, `Ok(..)`, a `json!`, a
/// struct literal.
fn value_producing(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Some") || p.path.is_ident("Ok"))
                || answer_constructor(call)
        }
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
fn method_patterns(pat: &Pat, methods: &mut Vec<String>, constants: &mut Vec<String>) -> bool {
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
                Some(last) if is_constant_name(last) => {
                    constants.push(last.clone());
                    true
                }
                _ => false,
            }
        }
        Pat::Ident(ident)
            if ident.subpat.is_none() && is_constant_name(&ident.ident.to_string()) =>
        {
            constants.push(ident.ident.to_string());
            true
        }
        Pat::Paren(p) => method_patterns(&p.pat, methods, constants),
        _ => false,
    }
}

fn is_constant_name(name: &str) -> bool {
    name.len() > 1
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The method names an `if` condition tests for: `method == "ping"`, `"ping" == method`,
/// `method.eq("ping")`, `matches!(method, "a" | "b")`, and `||` of those.
fn condition_methods(cond: &Expr) -> Option<Vec<String>> {
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

/// `_`, or a lowercase binding that takes anything.
fn is_catch_all(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Ident(ident) => ident.subpat.is_none() && !is_constant_name(&ident.ident.to_string()),
        _ => false,
    }
}

/// `Some(..)` or `None` patterns.
fn option_pattern(pat: &Pat) -> Option<()> {
    match pat {
        Pat::TupleStruct(ts) if ts.path.is_ident("Some") => Some(()),
        Pat::Ident(i) if i.ident == "None" => Some(()),
        Pat::Path(p) if p.path.is_ident("None") => Some(()),
        _ => None,
    }
}

fn is_err_pattern(pat: &Pat) -> bool {
    match pat {
        Pat::TupleStruct(ts) => ts.path.is_ident("Err"),
        Pat::Or(or) => or.cases.iter().any(is_err_pattern),
        _ => false,
    }
}

/// A pattern naming a `Notification` variant or type (`Message::Notification(n)`): the code
/// tells notifications from requests by their shape.
fn names_notification_variant(pat: &Pat) -> bool {
    let path = match pat {
        Pat::TupleStruct(ts) => &ts.path,
        Pat::Struct(s) => &s.path,
        Pat::Path(p) => &p.path,
        Pat::Or(or) => return or.cases.iter().any(names_notification_variant),
        _ => return false,
    };
    path.segments.len() > 1
        && path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().contains("Notification"))
}

fn tokens_name_notification_variant(tokens: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.windows(3).any(|w| {
        matches!(
            (&w[0], &w[1], &w[2]),
            (TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(i))
                if a.as_char() == ':' && b.as_char() == ':' && i.to_string().contains("Notification")
        )
    })
}

/// Whether macro tokens apply `?` to an id (`id?`, `request_id?`): the code goes no further
/// for a message without one.
fn tokens_try_id(tokens: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) => {
            let name = ident.to_string();
            (name == "id" || name.ends_with("_id"))
                && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '?')
        }
        TokenTree::Group(group) => tokens_try_id(&group.stream()),
        _ => false,
    })
}

/// Whether an expression reads a message's `id`: `msg.id`, `msg.get("id")`, `msg["id"]`, a
/// local named `id` (through `.clone()`, `.as_ref()`, references).
fn ends_in_id(expr: &Expr) -> bool {
    match expr {
        Expr::Field(f) => matches!(&f.member, syn::Member::Named(i) if i == "id"),
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "get" => m.args.first().and_then(str_literal).as_deref() == Some("id"),
            "clone" | "as_ref" | "as_deref" | "take" | "cloned" | "as_mut" => {
                ends_in_id(&m.receiver)
            }
            _ => false,
        },
        Expr::Index(i) => str_literal(&i.index).as_deref() == Some("id"),
        Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
            let name = i.to_string();
            name == "id" || name.ends_with("_id")
        }),
        Expr::Reference(r) => ends_in_id(&r.expr),
        Expr::Paren(p) => ends_in_id(&p.expr),
        Expr::Group(g) => ends_in_id(&g.expr),
        _ => false,
    }
}

/// A null id: `None`, `Value::Null`, `Some(Value::Null)`, `json!(null)`.
fn is_null_id(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => {
            p.path.is_ident("None") || p.path.segments.last().is_some_and(|s| s.ident == "Null")
        }
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Some"))
                && call.args.len() == 1
                && call.args.first().is_some_and(|a| {
                    matches!(a, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Null"))
                })
        }
        Expr::Macro(m) => {
            macro_name(&m.mac) == "json" && m.mac.tokens.to_string().trim() == "null"
        }
        Expr::Reference(r) => is_null_id(&r.expr),
        _ => false,
    }
}

/// A `json!` object with `"id": null` and a `result` or `error`.
fn json_null_id_response(tokens: &TokenStream) -> bool {
    let Some(object) = tokens.clone().into_iter().find_map(|tree| match tree {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
        _ => None,
    }) else {
        return false;
    };
    let null_id = value_of_key(&object, "id").is_some_and(|value| {
        matches!(
            value.last().map(|t| t.to_string()).as_deref(),
            Some("null" | "Null")
        )
    });
    let answers = ["result", "error"]
        .iter()
        .any(|key| value_of_key(&object, key).is_some());
    null_id && answers
}

/// The tokens of a key's value in a `json!` object's top level.
fn value_of_key(object: &TokenStream, wanted: &str) -> Option<Vec<TokenTree>> {
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

/// Whether tokens hold `-32700` (parse error) or `-32600` (invalid request), or name them.
fn names_parse_error_code(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Literal(l) => {
            let text = l.to_string();
            (text == "32700" || text == "32600")
                && i > 0
                && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '-')
        }
        TokenTree::Ident(ident) => {
            let name = ident.to_string().to_ascii_lowercase();
            name.contains("parse_error")
                || name.contains("parseerror")
                || name.contains("invalid_request")
                || name.contains("invalidrequest")
        }
        TokenTree::Group(g) => names_parse_error_code(g.stream()),
        _ => false,
    })
}

/// Whether a catch-all's tokens answer with method-not-found: they hold the code (`-32601`, a
/// `METHOD_NOT_FOUND` name), or its message in a string (`"Method not found"`) while the arm
/// visibly answers (`responds`). A message in a string alone decides nothing: `_ => "method not
/// found"` is a value its caller may never send.
fn names_method_not_found(tokens: TokenStream, responds: bool) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
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
        TokenTree::Group(g) => names_method_not_found(g.stream(), responds),
        _ => false,
    })
}

/// Whether an expression parses a message (`serde_json::from_str`, `.parse()`).
fn calls_parser(expr: &Expr) -> bool {
    called_names(expr).iter().any(|name| {
        matches!(
            name.as_str(),
            "from_str" | "from_slice" | "from_value" | "from_reader" | "parse"
        )
    })
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
        assert!(!unread.jsonrpc_literals && !unread.mcp_method_literals && !unread.mentions_ping);
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
        assert!(read.jsonrpc_literals && read.mcp_method_literals && read.mentions_ping);
    }

    #[test]
    fn a_match_over_other_strings_is_not_a_dispatcher() {
        let facts = facts(r#"fn f(x: &str) { match x { "a" => 1, "b" => 2, _ => 3 }; }"#);
        assert!(facts.dispatchers.is_empty());
    }

    #[test]
    fn finds_id_checks_prefix_checks_and_null_ids() {
        let facts = facts(
            r#"fn f(msg: Msg) {
                if msg.id.is_none() { return; }
                if let Some(id) = msg.get("id") {}
                if msg.method.starts_with("notifications/") {}
                let a = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601}});
                let b = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700}});
                match serde_json::from_str::<Msg>(line) {
                    Err(e) => send(error_response(Value::Null, e)),
                    Ok(m) => {}
                }
            }"#,
        );
        assert_eq!(facts.id_checks.len(), 2);
        assert_eq!(facts.prefix_checks.len(), 1);
        let parse: Vec<bool> = facts
            .null_id_responses
            .iter()
            .map(|r| r.answers_parse_error)
            .collect();
        assert_eq!(parse, vec![false, true, true]);
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
}
