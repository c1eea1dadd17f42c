//! The `id` tests and null-`id` answers MCP003 judges a dispatcher's answers by, collected by
//! its hook on the shared walk: where a message's `id` is tested for absence, where a method
//! name's `notifications/` prefix is tested, and the answers built with a null `id` (with
//! whether they answer a message that did not parse, where JSON-RPC allows one).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use serde::{Deserialize, Serialize};
use syn::{Expr, Pat};

use crate::analysis::dispatch::{
    called_name, called_names, is_function, responding_name, value_of_key,
};
use crate::analysis::facts::{FactKey, FileFacts};
use crate::analysis::syntax::{macro_name, path_segments, str_literal, type_name};
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::{Collects, Hook, Node, Scope};
use crate::source::ByteSpan;

/// A file's `id` tests and null-`id` answers.
pub static FACTS: FactKey<IdTests> = FactKey::new("MCP003");

/// What a file says about telling requests from notifications.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdTests {
    /// Where a message's `id` is tested for absence (`id.is_none()`, `if let Some(id) = msg.id`,
    /// a `Notification` variant matched), with the enclosing function's span.
    pub id_checks: Vec<(ByteSpan, Option<ByteSpan>)>,
    /// `method.starts_with("notifications/")` tests, with the enclosing function's span.
    pub prefix_checks: Vec<(ByteSpan, Option<ByteSpan>)>,
    /// Of those, the ones in a function that returns nothing (`-> ()`): the test decides only
    /// what that function does, never what its callers answer.
    pub prefix_checks_in_unit_functions: Vec<ByteSpan>,
    pub null_id_responses: Vec<NullIdResponse>,
    /// The file's functions that build a response from a parameter: their value is a struct
    /// literal with an `id` field given that parameter and a `result` or `error` field
    /// (`fn success(id: Value, result: Value) -> Self { Self { id, result: Some(result), .. } }`):
    /// the simple name and the parameter's position.
    #[serde(default)]
    pub response_constructors: Vec<(String, usize)>,
    /// Calls given a null id (`Value::Null`, `json!(null)`) that no name shows to answer, in the
    /// block an `id` test gives to messages without one (`if request.id.is_none() {
    /// JsonRpcResponse::success(Value::Null, json!({})) }`) or in the handling of a message that
    /// did not parse (the strict-parse shape's answer): a null-`id` response when the
    /// unit's function of that name builds a response from that argument
    /// ([`IdTests::response_constructors`]). Each with the callee's simple name and the
    /// argument's position.
    #[serde(default)]
    pub null_id_calls: Vec<(NullIdResponse, String, usize)>,
    /// Of the `id` tests, those of a value a call returned (`let resp = handle(req); ..
    /// resp.get("id").is_some()`), with the called function's simple name: when that function
    /// answers messages, the test is of its answer, not of the message.
    #[serde(default)]
    pub tests_of_call_values: Vec<(ByteSpan, String)>,
    /// Of those, the tests of the value's `id` itself (`resp.id.is_null()`, `resp.id.is_none()`,
    /// `resp["id"].is_null()`), not of a member's presence (`resp.get("id").is_some()`, true for
    /// a null `id` too): a null or missing `id` fails them, so they hold back an answer to a
    /// message that had none when the function only returns its answer.
    #[serde(default)]
    pub value_tests_of_call_values: Vec<ByteSpan>,
    /// `id` tests that decide only what one block does ([`Guard`]): not in `id_checks`.
    #[serde(default)]
    pub guards: Vec<Guard>,
    /// The file's functions whose value is an id they read (`fn request_id(msg: &Value) ->
    /// Option<Value> { msg.get("id").cloned() }`), by simple name.
    #[serde(default)]
    pub id_getters: Vec<String>,
    /// Tests of whether a call's value is missing (`if let Some(id) = request_id(&msg)`, also
    /// through a local bound from the call): `id` tests when the callee is one of the unit's
    /// [`IdTests::id_getters`], which [`IdTests::resolve_getters`] decides.
    #[serde(default)]
    pub tests_of_getters: Vec<GetterTest>,
    /// The `Err` arms of parses of a value into a named type, with the type (see
    /// [`super::strict_parse`]).
    #[serde(default)]
    pub typed_parse_errors: Vec<super::strict_parse::TypedParseError>,
    /// The file's functions that deserialise and return their type in a `Result`
    /// (`fn from_json(json: &str) -> Result<Self, JsonRpcError> { serde_json::from_str(json)
    /// .map_err(..) }` in `impl JsonRpcRequest`): (the function's simple name, the type). A
    /// call of one through its type's path (`JsonRpcRequest::from_json(line)`) is a parse into
    /// that type.
    #[serde(default)]
    pub typed_parsers: Vec<(String, String)>,
}

/// A test of whether a call's value is missing ([`IdTests::tests_of_getters`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetterTest {
    pub check: ByteSpan,
    /// The called function's simple name.
    pub callee: String,
    /// The block the test guards alone, if it does ([`Guard`]).
    pub block: Option<ByteSpan>,
    pub function: Option<ByteSpan>,
}

impl IdTests {
    /// Takes the tests of call values whose callee returns an id (one of `getters`, the unit's
    /// [`IdTests::id_getters`]) as `id` tests; the others stay, tests of values not known.
    pub fn resolve_getters(&mut self, getters: &foldhash::HashSet<&str>) {
        for test in std::mem::take(&mut self.tests_of_getters) {
            if !getters.contains(test.callee.as_str()) {
                self.tests_of_getters.push(test);
                continue;
            }
            match test.block {
                Some(block) => self.guards.push(Guard {
                    check: test.check,
                    block,
                    function: test.function,
                }),
                None => self.id_checks.push((test.check, test.function)),
            }
        }
    }
}

/// An `id` test that guards one block and nothing after it: `if let Some(id) = &req.id {
/// pending.insert(id.clone()); }` skips the block for a message without an `id`, and the
/// message goes on to what follows either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    pub check: ByteSpan,
    /// The block the test guards.
    pub block: ByteSpan,
    /// The enclosing function's span.
    pub function: Option<ByteSpan>,
}

/// A file's `id` tests and null-`id` answers.
pub fn of(facts: &FileFacts) -> IdTests {
    facts.rules.get(&FACTS)
}

/// A response whose `id` is null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NullIdResponse {
    pub span: ByteSpan,
    /// Built where a message that did not parse is answered (an `Err` arm, a `map_err`
    /// closure, a parse function, or with the parse-error and invalid-request codes), which is
    /// where JSON-RPC allows a null `id`; or in a function that takes an HTTP `StatusCode`
    /// (an HTTP transport's rejection of a request it did not read).
    pub answers_parse_error: bool,
}

/// MCP003's collector.
pub struct IdTestsCollector;

impl Collects for IdTestsCollector {
    fn key(&self) -> &'static str {
        FACTS.name()
    }

    fn hook<'a>(&self, text: &'a str, _: usize, _: &'a Vocabulary) -> Option<Box<dyn Hook + 'a>> {
        // Only a text that may speak MCP can hold a dispatcher: the quick test of its bytes.
        // Whether the core looked for dispatchers in its code (`FileFacts::may_dispatch`) is
        // known when the walk is over, and `finish` asks it.
        crate::analysis::text::may_speak_mcp(text).then(|| -> Box<dyn Hook + 'a> {
            Box::new(Collector {
                facts: IdTests::default(),
                functions: Vec::new(),
                parse_error_depth: 0,
                absent_blocks: Vec::new(),
                selects: Default::default(),
            })
        })
    }
}

struct FunctionScope {
    span: ByteSpan,
    /// The function is handed an HTTP `StatusCode`.
    takes_status: bool,
    /// The function has built an HTTP status so far (`StatusCode::UNAUTHORIZED`), or names an
    /// HTTP response type (`HttpResponse`).
    builds_status: bool,
    /// The function builds an HTTP error status anywhere (`StatusCode::UNAUTHORIZED`, not
    /// `OK` or `ACCEPTED`): its null-`id` bodies are those of a rejection, wherever the status
    /// comes (`let body = json!({.., "id": null}); (StatusCode::UNAUTHORIZED, Json(body))`).
    builds_error_status: bool,
    /// How many null-`id` answers the file had when the function was entered: those after are
    /// the function's.
    first_null_id: usize,
    /// The function returns nothing (`-> ()`, or no return type).
    returns_unit: bool,
    /// The function implements a std or web framework trait's conversion to a value
    /// (`Default::default`, axum's `IntoResponse::into_response`): a null-`id` response it
    /// builds is a default or the HTTP body of an error value, not shown to answer a message
    /// (batch 88: ryht's `impl Default for JsonRpcResponse`; MCP-Shield's error type).
    builds_a_value: bool,
    /// Where the function's first statement that deserialises something starts
    /// (`serde_json::from_str(..)`, see [`deserialises`]): its null-`id` answers after it are
    /// those of a message it could not read.
    parses: Option<usize>,
    /// Its locals so far, by name: bound from a read of the message's id (`let id =
    /// msg.get("id").cloned()`) or from something else (`let session_id =
    /// extract_session_id(&req)`). A local's name decides nothing.
    locals: std::collections::HashMap<String, bool>,
    /// Its locals bound from a call's value (`let resp = handle(req)`, also through `if let
    /// Some(resp) = resp_opt`), by name: the called function's simple name.
    call_values: std::collections::HashMap<String, String>,
}

struct Collector {
    facts: IdTests,
    functions: Vec<FunctionScope>,
    /// How many enclosing constructs handle a message that did not parse.
    parse_error_depth: usize,
    /// Blocks that run only for a message without an `id`: the `then` of `if msg.id.is_none()`,
    /// the `else` of `if msg.id.is_some()`. A null-`id` answer there answers a notification,
    /// wherever the function parsed (batch 127's socket-io-client).
    absent_blocks: Vec<ByteSpan>,
    /// How many `select!` bodies the current node lies in: their branches are code (as the
    /// dispatchers' collector reads them).
    selects: crate::analysis::walk::SelectBranches,
}

impl Hook for Collector {
    /// The file's own macros are read as the code they stand for.
    fn reads_expansions(&self) -> bool {
        true
    }

    /// A `select!`'s branches are code: an id test may run in one.
    fn reads_macro_body(&self, name: &str) -> bool {
        crate::analysis::syntax::is_select_macro(name)
    }

    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let code = self.selects.enter(node, scope);
        // Test code answers whatever it likes; macro bodies are read for their tokens only
        // (the expansions of the file's own macros and the branches of a `select!` are code).
        if scope.in_test() || !code {
            return;
        }
        if handles_parse_error(node, scope.parent()) {
            self.parse_error_depth += 1;
        }
        if is_function(node) {
            let (body, sig) = match node {
                Node::Item(syn::Item::Fn(f)) => (Some(&*f.block), Some(&f.sig)),
                Node::ImplItem(syn::ImplItem::Fn(f)) => (Some(&f.block), Some(&f.sig)),
                _ => (None, None),
            };
            if let Some(function) = scope.function() {
                let parses = body.and_then(|b| {
                    b.stmts
                        .iter()
                        .find(|stmt| deserialises(stmt))
                        .map(|stmt| scope.span(stmt).start)
                });
                let converts = scope
                    .impl_scope()
                    .and_then(|i| i.trait_name.as_deref())
                    .is_some_and(|t| {
                        let name = function.name();
                        (t == "Default" && name == "default")
                            || (t == "IntoResponse" && name == "into_response")
                    });
                self.enter_function(function.span, function.sig, parses);
                if let Some(current) = self.functions.last_mut() {
                    current.builds_a_value = converts;
                }
                if let (Some(_), Some(ty)) = (parses, sig.and_then(|sig| result_of(sig, scope))) {
                    self.facts.typed_parsers.push((function.name(), ty));
                }
            }
            if let (Some(function), Some(body), Some(sig)) = (scope.function(), body, sig) {
                if let Some(position) = builds_response_from(sig, body) {
                    (self.facts.response_constructors).push((function.name(), position));
                }
            }
            let getter = |b: &syn::Block| {
                self.returns_id(b) || (sig.is_some_and(returns_option) && finds_id_key_or_leaves(b))
            };
            if let Some(function) = scope.function().filter(|_| body.is_some_and(getter)) {
                self.facts.id_getters.push(function.name());
            }
        }
        match node {
            Node::Path(path) => {
                // A macro's own path is not read.
                if matches!(scope.parent(), Some(Node::Macro(_))) {
                    return;
                }
                // `StatusCode::UNAUTHORIZED`, or an HTTP response type (`HttpResponse::build(..)`,
                // actix's, also as the function's return type).
                let status = (path.segments.len() > 1
                    && path.segments.iter().any(|s| s.ident == "StatusCode"))
                    || path.segments.iter().any(|s| s.ident == "HttpResponse");
                if let (true, Some(function)) = (status, self.functions.last_mut()) {
                    function.builds_status = true;
                    // A status constant other than a success's (`StatusCode::from_u16(..)`
                    // may be any).
                    let error_status = path.segments.last().is_some_and(|s| {
                        let name = s.ident.to_string();
                        name.chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                            && !matches!(
                                name.as_str(),
                                "OK" | "ACCEPTED" | "CREATED" | "NO_CONTENT"
                            )
                    });
                    function.builds_error_status |= error_status;
                }
            }
            Node::Local(local) => self.enter_local(local, scope),
            Node::Expr(expr) => self.enter_expr(expr, scope),
            Node::Macro(mac) => self.enter_macro(mac, scope),
            _ => {}
        }
    }

    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let code = self.selects.leave(node, scope);
        if scope.in_test() || !code {
            return;
        }
        if handles_parse_error(node, scope.parent()) {
            self.parse_error_depth = self.parse_error_depth.saturating_sub(1);
        }
        if let Node::Local(local) = node {
            self.bind_local(local);
        }
        if is_function(node) {
            self.leave_function();
        }
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        // Only where the core looked for dispatchers (its test reads the code without the
        // constants nothing reads).
        if facts.may_dispatch && self.facts != IdTests::default() {
            facts.rules.put(&FACTS, &self.facts);
        }
    }
}

impl Collector {
    fn function_span(&self) -> Option<ByteSpan> {
        self.functions.last().map(|f| f.span)
    }

    fn enter_function(&mut self, span: ByteSpan, sig: &syn::Signature, parses: Option<usize>) {
        let takes_status = sig.inputs.iter().any(|input| match input {
            syn::FnArg::Typed(typed) => type_name(&typed.ty).is_some_and(|t| t == "StatusCode"),
            syn::FnArg::Receiver(_) => false,
        });
        let returns_unit = match &sig.output {
            syn::ReturnType::Default => true,
            syn::ReturnType::Type(_, ty) => {
                matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty())
            }
        };
        // A parameter that borrows a string slice (`session_id: Option<&str>`, batch 99's
        // chartgen: a header's value) is no message's `id`, whatever its name: an `id` a
        // function is handed is the message's value (`Value`, `Option<Value>`, a number, an
        // owned `String`, an id type).
        let str_params = sig.inputs.iter().filter_map(|input| match input {
            syn::FnArg::Typed(typed) if borrows_a_str(&typed.ty) => match &*typed.pat {
                Pat::Ident(p) if p.ident != "id" => Some((p.ident.to_string(), false)),
                _ => None,
            },
            _ => None,
        });
        self.functions.push(FunctionScope {
            span,
            takes_status,
            builds_status: false,
            builds_error_status: false,
            first_null_id: self.facts.null_id_responses.len(),
            returns_unit,
            builds_a_value: false,
            locals: str_params.collect(),
            call_values: std::collections::HashMap::new(),
            parses,
        });
    }

    fn leave_function(&mut self) {
        if let Some(scope) = self.functions.pop() {
            if scope.builds_error_status {
                let first = scope.first_null_id.min(self.facts.null_id_responses.len());
                for response in &mut self.facts.null_id_responses[first..] {
                    response.answers_parse_error = true;
                }
            }
        }
    }

    /// Whether code at `span` runs only for a message without an `id` (see
    /// [`Collector::absent_blocks`]).
    fn for_a_notification(&self, span: ByteSpan) -> bool {
        (self.absent_blocks.iter()).any(|block| block.start <= span.start && span.end <= block.end)
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
            .is_some_and(|f| f.builds_status || f.takes_status || f.builds_a_value);
        // After the function's first deserialisation: the answer to what it could not read
        // (what the function does decides, not what it is called).
        let after_a_parse = self
            .functions
            .last()
            .and_then(|f| f.parses)
            .is_some_and(|at| at <= span.start);
        let for_a_notification = self.for_a_notification(span);
        self.facts.null_id_responses.push(NullIdResponse {
            span,
            answers_parse_error: http_rejection
                || (!for_a_notification
                    && (self.parse_error_depth > 0 || parse_codes || after_a_parse)),
        });
    }

    fn push_id_check(&mut self, span: ByteSpan) {
        let function = self.function_span();
        self.facts.id_checks.push((span, function));
    }

    /// An `id` test of `subject`: also noted as a test of a call's value when `subject` is read
    /// from a local bound from one.
    fn push_id_check_of(&mut self, span: ByteSpan, subject: &Expr) {
        self.push_id_check(span);
        let callee = crate::analysis::syntax::root_local(subject).and_then(|root| {
            self.functions
                .last()
                .and_then(|f| f.call_values.get(&root))
                .cloned()
        });
        if let Some(callee) = callee {
            self.facts.tests_of_call_values.push((span, callee));
        }
    }

    fn enter_local(&mut self, local: &syn::Local, scope: &Scope<'_>) {
        let Some(init) = &local.init else {
            return;
        };
        let reads_id = self.reads_id(&init.expr);
        if init.diverge.is_some()
            && ((option_pattern(&local.pat).is_some() && reads_id)
                || names_notification_variant(&local.pat))
        {
            self.push_id_check(scope.span(&*init.expr));
        }
    }

    /// A `let` is left (its initialiser read with the names it could see): its binding is the
    /// message's id or not, by what it was bound from.
    fn bind_local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            return;
        };
        let bound = match &local.pat {
            Pat::Ident(p) => Some(&p.ident),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => Some(&p.ident),
                _ => None,
            },
            _ => None,
        };
        // `let (ctx, new_session_id) = if .. { .. } else { .. };`: each name of a tuple pattern is
        // the id only when the tuple built in place holds one there (a name `id` is left to be
        // taken by its name, as a parameter's is).
        if let Pat::Tuple(tuple) = &local.pat {
            let elements = match &*init.expr {
                Expr::Tuple(t) => Some(&t.elems),
                _ => None,
            };
            let bound: Vec<(String, bool)> = tuple
                .elems
                .iter()
                .enumerate()
                .filter_map(|(index, pat)| match pat {
                    Pat::Ident(p) if p.ident != "id" => {
                        let reads = elements
                            .and_then(|e| e.iter().nth(index))
                            .is_some_and(|e| self.reads_id(e));
                        Some((p.ident.to_string(), reads))
                    }
                    _ => None,
                })
                .collect();
            if let Some(function) = self.functions.last_mut() {
                function.locals.extend(bound);
            }
            return;
        }
        let reads_id = self.reads_id(&init.expr);
        let callee = origin_call(&init.expr);
        if let (Some(name), Some(function)) = (bound, self.functions.last_mut()) {
            function.locals.insert(name.to_string(), reads_id);
            match callee {
                Some(callee) => function.call_values.insert(name.to_string(), callee),
                None => function.call_values.remove(&name.to_string()),
            };
        }
    }

    /// `if let Some(resp) = resp_opt`: the binding holds what the local held, a call's value.
    fn bind_let(&mut self, expr_let: &syn::ExprLet) {
        let Some(binding) = option_binding(&expr_let.pat) else {
            return;
        };
        let Some(function) = self.functions.last_mut() else {
            return;
        };
        let from = crate::analysis::syntax::root_local(&expr_let.expr)
            .and_then(|root| function.call_values.get(&root).cloned())
            .or_else(|| called_name(crate::analysis::syntax::peel(&expr_let.expr)));
        if let Some(callee) = from {
            function.call_values.insert(binding, callee);
        }
    }

    /// Whether an expression reads the message's `id` ([`ends_in_id`]), a local being the id
    /// when it was bound from one: `session_id` bound from `extract_session_id(&req)` is not,
    /// whatever its name. A name the function did not bind (a parameter) is taken by its name.
    fn reads_id(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => match p.path.get_ident() {
                Some(ident) => match self
                    .functions
                    .last()
                    .and_then(|f| f.locals.get(&ident.to_string()))
                {
                    Some(bound_from_id) => *bound_from_id,
                    None => ends_in_id(expr),
                },
                None => false,
            },
            // What keeps a missing id missing (or null): `msg.get("id").cloned()
            // .unwrap_or(Value::Null)` is tested with `is_null()`.
            Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "clone"
                        | "as_ref"
                        | "as_deref"
                        | "take"
                        | "cloned"
                        | "copied"
                        | "as_mut"
                        | "to_owned"
                        | "unwrap_or"
                        | "unwrap_or_default"
                        | "unwrap_or_else"
                        | "unwrap"
                        | "expect"
                        // A missing id stays missing: `msg.id.and_then(|v| (!v.is_null()).then_some(v))`.
                        | "and_then"
                        | "map"
                        | "filter"
                        | "ok_or"
                        | "ok_or_else"
                ) =>
            {
                self.reads_id(&m.receiver)
            }
            Expr::Reference(r) => self.reads_id(&r.expr),
            Expr::Try(t) => self.reads_id(&t.expr),
            // `let id = match msg.get("id") { None | Some(Value::Null) => None, Some(id) =>
            // Some(id.clone()) };`: the value chosen from the id is the id (a later `id?` tests it).
            Expr::Match(m) => self.reads_id(&m.expr),
            Expr::Paren(p) => self.reads_id(&p.expr),
            Expr::Group(g) => self.reads_id(&g.expr),
            _ => ends_in_id(expr),
        }
    }

    /// The element of a `match` over a tuple that reads a message's id, when an arm's pattern
    /// tests it for `None` or `Some(..)` at its place (`match (id, result) { (None, _) => ..
    /// }`, batch 92's noyalib-mcp).
    fn id_element_tested<'m>(&self, m: &'m syn::ExprMatch) -> Option<&'m Expr> {
        let Expr::Tuple(tuple) = crate::analysis::syntax::peel(&m.expr) else {
            return None;
        };
        let (index, element) = tuple
            .elems
            .iter()
            .enumerate()
            .find(|(_, e)| self.reads_id(e))?;
        m.arms
            .iter()
            .any(|arm| {
                matches!(&arm.pat, Pat::Tuple(t) if t.elems.len() == tuple.elems.len()
                    && t.elems.iter().nth(index).is_some_and(|p| option_pattern(p).is_some()))
            })
            .then_some(element)
    }

    fn enter_expr(&mut self, expr: &Expr, scope: &Scope<'_>) {
        if let Expr::Let(expr_let) = expr {
            self.bind_let(expr_let);
        }
        if let Expr::Match(m) = expr {
            if let Some(found) = super::strict_parse::err_arm_of_typed_parse(m, scope) {
                self.facts.typed_parse_errors.push(found);
            }
        }
        match expr {
            Expr::Match(m) => {
                let on_id = self.reads_id(&m.expr) && !chooses_a_value(m, scope);
                if (on_id && m.arms.iter().any(|a| option_pattern(&a.pat).is_some()))
                    || m.arms.iter().any(|a| names_notification_variant(&a.pat))
                {
                    self.push_id_check_of(scope.span(&*m.expr), &m.expr);
                } else if let Some(element) = self
                    .id_element_tested(m)
                    .filter(|_| !chooses_a_value(m, scope))
                {
                    // `match (id, result) { (None, _) => Silent, (Some(id), Ok(v)) => .. }`.
                    self.push_id_check_of(scope.span(element), element);
                } else if m.arms.iter().any(|a| option_pattern(&a.pat).is_some())
                    && !chooses_a_value(m, scope)
                {
                    self.push_getter_test(scope.span(&*m.expr), &m.expr, None);
                }
            }
            Expr::Let(expr_let)
                if ((option_pattern(&expr_let.pat).is_some() && self.reads_id(&expr_let.expr))
                    || names_notification_variant(&expr_let.pat))
                    && !self.either_way(expr, scope) =>
            {
                let present =
                    matches!(&*expr_let.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some"));
                let guarded = option_pattern(&expr_let.pat)
                    .and_then(|()| self.guarded_block(expr, present, scope));
                match guarded {
                    Some(block) => self.push_guard(scope.span(&*expr_let.expr), block),
                    None => self.push_id_check_of(scope.span(&*expr_let.expr), &expr_let.expr),
                }
            }
            Expr::Let(expr_let) if option_pattern(&expr_let.pat).is_some() => {
                let present =
                    matches!(&*expr_let.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some"));
                let block = self.guarded_block(expr, present, scope);
                self.push_getter_test(scope.span(&*expr_let.expr), &expr_let.expr, block);
            }
            // `msg.get("id")?`: a message without an id goes no further.
            Expr::Try(expr_try) if self.reads_id(&expr_try.expr) => {
                self.push_id_check(scope.span(&*expr_try.expr));
            }
            Expr::MethodCall(call) => self.enter_method_call(expr, call, scope),
            // `id != Value::Null`, `msg.id == None`: a test of the id's presence.
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) => {
                let (subject, other) = if is_null_id(&b.right) {
                    (&*b.left, &*b.right)
                } else {
                    (&*b.right, &*b.left)
                };
                if is_null_id(other)
                    && self.reads_id(subject)
                    && decides_a_branch(expr, scope)
                    && !self.either_way(expr, scope)
                {
                    let present = matches!(b.op, syn::BinOp::Ne(_));
                    match self.guarded_block(expr, present, scope) {
                        Some(block) => self.push_guard(scope.span(expr), block),
                        None => self.push_id_check_of(scope.span(expr), subject),
                    }
                }
            }
            Expr::Call(call) => {
                let name = match &*call.func {
                    Expr::Path(p) => crate::analysis::syntax::last_segment(&p.path),
                    _ => String::new(),
                };
                let span = scope.span(call);
                if answers_with_null_id(&name, &call.args)
                    || self.null_error_in_parse_arm(call, span)
                {
                    let tokens = call.to_token_stream();
                    self.null_id_response(span, Some(tokens));
                } else if let (Some(position), true) = (
                    call.args.iter().position(is_null_value),
                    self.for_a_notification(span) || self.parse_error_depth > 0,
                ) {
                    let tokens = call.to_token_stream();
                    self.null_id_response(span, Some(tokens));
                    if let Some(response) = self.facts.null_id_responses.pop() {
                        self.facts.null_id_calls.push((response, name, position));
                    }
                }
            }
            Expr::Struct(s) => self.enter_struct(s, scope),
            _ => {}
        }
    }

    fn enter_method_call(&mut self, expr: &Expr, call: &syn::ExprMethodCall, scope: &Scope<'_>) {
        let method = call.method.to_string();
        // A test of the `id` beside a test of a few named methods tells only those apart.
        let narrowed = matches!(
            method.as_str(),
            "is_none" | "is_some" | "is_null" | "is_none_or" | "is_some_and" | "contains_key"
        ) && narrowed_to_named_methods(expr, scope);
        match method.as_str() {
            // `msg.get("id").is_none_or(Value::is_null)`: absent or null, as `is_none` with
            // `is_null` (and `is_some_and(..)` as `is_some`).
            "is_none" | "is_some" | "is_null" | "is_none_or" | "is_some_and"
                if self.reads_id(&call.receiver)
                    && !normalises(call, scope)
                    && !self.either_way(expr, scope)
                    && !narrowed =>
            {
                let present = method == "is_some" || method == "is_some_and";
                if matches!(method.as_str(), "is_none" | "is_some") {
                    self.absent_blocks
                        .extend(absent_block(expr, present, scope));
                }
                match self.guarded_block(expr, present, scope) {
                    Some(block) => self.push_guard(scope.span(call), block),
                    None => {
                        self.push_id_check_of(scope.span(call), &call.receiver);
                        if matches!(&*call.receiver, Expr::Field(_) | Expr::Index(_)) {
                            self.facts.value_tests_of_call_values.push(scope.span(call));
                        }
                        if let Some(rest) = later_arms(expr, present, scope) {
                            self.push_guard(scope.span(call), rest);
                        }
                    }
                }
            }
            "is_none" | "is_some" | "is_null" | "is_none_or" | "is_some_and" if narrowed => {}
            "is_none" | "is_some" | "is_null" if !normalises(call, scope) => {
                let block = self.guarded_block(expr, method == "is_some", scope);
                self.push_getter_test(scope.span(call), &call.receiver, block);
            }
            // `id.map(|id| error(id, -32601, ..))`: the closure runs only for a message with an
            // `id` (the value is `None` for one without), so what it builds answers requests
            // alone.
            "map" | "and_then"
                if id_local(&call.receiver)
                    && self.reads_id(&call.receiver)
                    && matches!(call.args.first(), Some(Expr::Closure(_))) =>
            {
                if let Some(Expr::Closure(closure)) = call.args.first() {
                    self.push_guard(scope.span(call), scope.span(&*closure.body));
                    // `Ok(id.map(|_| response))`: a value built before is given only for a
                    // message with an `id` (first contact: huffs-projects' servers), an id
                    // test of the function as `id.is_some()` would be.
                    if ignores_its_argument(closure) {
                        self.push_id_check_of(scope.span(call), &call.receiver);
                    }
                }
            }
            // `obj.contains_key("id")`: the member's presence, which is what tells a request
            // from a notification.
            "contains_key"
                if call.args.first().and_then(str_literal).as_deref() == Some("id")
                    && !narrowed =>
            {
                self.push_id_check(scope.span(call));
            }
            "starts_with" => {
                let prefix = call.args.first().and_then(str_literal);
                if prefix.is_some_and(|p| p.starts_with("notifications")) {
                    let function = self.function_span();
                    self.facts.prefix_checks.push((scope.span(call), function));
                    if self.functions.last().is_some_and(|f| f.returns_unit) {
                        self.facts
                            .prefix_checks_in_unit_functions
                            .push(scope.span(call));
                    }
                }
            }
            _ => {}
        }
        if answers_with_null_id(&method, &call.args) {
            let tokens = call.to_token_stream();
            self.null_id_response(scope.span(call), Some(tokens));
        }
    }

    /// A test of whether `subject` is missing, when `subject` is a call's value (the call
    /// itself, or a local bound from it): an `id` test if the callee returns an id.
    fn push_getter_test(&mut self, check: ByteSpan, subject: &Expr, block: Option<ByteSpan>) {
        let peeled = crate::analysis::syntax::peel(subject);
        let callee = called_name(peeled).or_else(|| {
            let root = crate::analysis::syntax::root_local(subject)?;
            self.functions.last()?.call_values.get(&root).cloned()
        });
        let Some(callee) = callee else {
            return;
        };
        let function = self.function_span();
        self.facts.tests_of_getters.push(GetterTest {
            check,
            callee,
            block,
            function,
        });
    }

    /// Whether a function's body gives an id it reads as its value (`msg.get("id").cloned()`).
    fn returns_id(&self, body: &syn::Block) -> bool {
        match body.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => {
                self.reads_id(crate::analysis::syntax::tail_value(tail))
            }
            _ => false,
        }
    }

    fn push_guard(&mut self, check: ByteSpan, block: ByteSpan) {
        let function = self.function_span();
        self.facts.guards.push(Guard {
            check,
            block,
            function,
        });
    }

    /// The block an `id` test guards when it guards only that block: the test is the condition
    /// of an `if` with no `else` (alone, negated, or joined to others by `&&`), and a message
    /// without an `id` either skips the block (a test that the id is present) or runs it and
    /// falls through (a test that it is missing, in a block that never leaves). Either way the
    /// code after the `if` runs for every message: the test protects only what the block holds.
    /// A block that assigns something other than an id (`is_request = true`) may decide later
    /// code through what it set: the test then counts as protecting everything after it.
    fn guarded_block(&self, test: &Expr, present: bool, scope: &Scope<'_>) -> Option<ByteSpan> {
        let mut present = present;
        let mut inner = test;
        let mut joined = false;
        // `if id != Value::Null && !send(&response) { .. }`: what the right of an `&&` does
        // runs only when the test on its left holds.
        let mut from: Option<usize> = None;
        for level in 0..64 {
            let Some(Node::Expr(parent)) = scope.ancestor(level) else {
                return None;
            };
            let holds = |e: &Expr| std::ptr::eq(e, inner);
            match parent {
                Expr::Unary(u)
                    if matches!(u.op, syn::UnOp::Not(_)) && !joined && holds(&u.expr) =>
                {
                    present = !present
                }
                Expr::Paren(p) if holds(&p.expr) => {}
                Expr::Binary(b)
                    if matches!(b.op, syn::BinOp::And(_))
                        && (holds(&b.left) || holds(&b.right)) =>
                {
                    if holds(&b.left) && present {
                        let right = scope.span(&*b.right).start;
                        from = Some(from.map_or(right, |f| f.min(right)));
                    }
                    joined = true
                }
                Expr::If(expr_if) if holds(&expr_if.cond) => {
                    let block = &expr_if.then_branch;
                    let kept = expr_if.else_branch.is_none()
                        && (present || !crate::analysis::syntax::leaves(block))
                        && !self.sets_values(block);
                    return kept.then(|| {
                        let block = scope.raw_span(
                            block.brace_token.span.open(),
                            block.brace_token.span.close(),
                        );
                        ByteSpan::new(from.map_or(block.start, |f| f.min(block.start)), block.end)
                    });
                }
                _ => return None,
            }
            inner = parent;
        }
        None
    }

    /// Whether an `id` test is the condition of an `if` that does the same either way: both
    /// branches fall through (neither leaves), neither sets a value or hands on a `bool`, and
    /// both make the same calls in the same order (`if let Some(id) = id { fields.push(("id",
    /// id)) } else { fields.push(("id", Null)) }`; `if let Some(req_id) = id { Response { id:
    /// req_id, ..resp } } else { resp }`). It only chooses a value: what follows runs for a
    /// message without an `id` as for one with it.
    fn either_way(&self, test: &Expr, scope: &Scope<'_>) -> bool {
        let mut inner = test;
        for level in 0..64 {
            let Some(Node::Expr(parent)) = scope.ancestor(level) else {
                return false;
            };
            let holds = |e: &Expr| std::ptr::eq(e, inner);
            match parent {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) && holds(&u.expr) => {}
                Expr::Paren(p) if holds(&p.expr) => {}
                Expr::If(expr_if) if holds(&expr_if.cond) => {
                    let Some((_, otherwise)) = &expr_if.else_branch else {
                        return false;
                    };
                    let Expr::Block(otherwise) = &**otherwise else {
                        return false;
                    };
                    let same = |block: &syn::Block| {
                        !crate::analysis::syntax::leaves(block) && !self.sets_values(block)
                    };
                    return same(&expr_if.then_branch)
                        && same(&otherwise.block)
                        && call_skeleton(&expr_if.then_branch)
                            .is_some_and(|s| Some(s) == call_skeleton(&otherwise.block));
                }
                _ => return false,
            }
            inner = parent;
        }
        false
    }

    /// Whether a block assigns a value that is not read from an id (`resp.id = req.id` copies
    /// the id; `is_request = true` sets a flag). A value the block itself made and keeps to
    /// itself (`let mut reply = error(..); if let Some(e) = &mut reply.error { e.data = .. }`)
    /// is gone when the block ends: setting it decides nothing after the block.
    fn sets_values(&self, block: &syn::Block) -> bool {
        struct Finder<'c> {
            collector: &'c Collector,
            /// The locals the block declares whose values it made itself: not borrowed from
            /// a local outside it (see [`own_value`]).
            own: Vec<String>,
            found: bool,
        }
        impl Finder<'_> {
            fn sets_outside(&self, target: &Expr) -> bool {
                crate::analysis::syntax::root_local(target)
                    .is_none_or(|root| !self.own.contains(&root))
            }
            fn declare(&mut self, pat: &Pat, init: &Expr) {
                let names = crate::analysis::syntax::pattern_bindings(pat);
                if own_value(init, &self.own) {
                    self.own.extend(names);
                } else {
                    self.own.retain(|n| !names.contains(n));
                }
            }
        }
        impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
            fn visit_local(&mut self, local: &'ast syn::Local) {
                syn::visit::visit_local(self, local);
                match &local.init {
                    Some(init) => self.declare(&local.pat, &init.expr),
                    None => {
                        let names = crate::analysis::syntax::pattern_bindings(&local.pat);
                        self.own.retain(|n| !names.contains(n));
                    }
                }
            }
            fn visit_expr(&mut self, expr: &'ast Expr) {
                match expr {
                    Expr::Assign(a)
                        if !self.collector.reads_id(&a.right) && self.sets_outside(&a.left) =>
                    {
                        self.found = true
                    }
                    Expr::Binary(b) if is_compound_assign(&b.op) && self.sets_outside(&b.left) => {
                        self.found = true
                    }
                    Expr::Let(l) => {
                        syn::visit::visit_expr_let(self, l);
                        self.declare(&l.pat, &l.expr);
                    }
                    Expr::Closure(_) | Expr::Async(_) => {}
                    _ => syn::visit::visit_expr(self, expr),
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder {
            collector: self,
            own: Vec::new(),
            found: false,
        };
        syn::visit::Visit::visit_block(&mut finder, block);
        finder.found
    }

    /// In the `Err` arm of a parse into a request type (see [`IdTests::typed_parse_errors`]), a
    /// call given a null id and an error code (`McpResponse::error(Value::Null, -32700, ..)`),
    /// whatever it is called, builds the answer to the failed parse.
    fn null_error_in_parse_arm(&self, call: &syn::ExprCall, span: ByteSpan) -> bool {
        let Some(parse) = self
            .facts
            .typed_parse_errors
            .iter()
            .find(|e| e.arm.start <= span.start && span.end <= e.arm.end)
        else {
            return false;
        };
        // The parse's own error handed on (`Err(e) => JsonRpcResponse::error(Value::Null, e)`)
        // carries its code.
        let the_error = |arg: &Expr| matches!(arg, Expr::Path(p) if parse.binding.as_deref().is_some_and(|b| p.path.is_ident(b)));
        call.args.first().is_some_and(is_null_id)
            && call
                .args
                .iter()
                .skip(1)
                .any(|a| is_error_code_expr(a) || the_error(a))
    }

    fn enter_struct(&mut self, expr: &syn::ExprStruct, scope: &Scope<'_>) {
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
            let span = scope.raw_span(first, expr.brace_token.span.close());
            self.null_id_response(span, Some(tokens));
        }
    }

    fn enter_macro(&mut self, mac: &syn::Macro, scope: &Scope<'_>) {
        if macro_name(mac) == "json" && json_null_id_response(&mac.tokens) {
            self.null_id_response(scope.span(mac), Some(mac.tokens.clone()));
        }
        if macro_name(mac) == "matches" && tokens_name_notification_variant(&mac.tokens) {
            self.push_id_check(scope.span(mac));
        }
        // `matches!(request.id.as_ref(), None | Some(Value::Null))`: whether the message has
        // an id (a `bool` local bound from it then decides, like `request.id.is_none()`).
        if macro_name(mac) == "matches" {
            if let Some(subject) = matched_option(mac).filter(|e| self.reads_id(e)) {
                self.push_id_check_of(scope.span(mac), &subject);
            }
        }
        // `json!({"id": id?, ..})`: a message without an id gets no answer.
        if tokens_try_id(&mac.tokens) {
            self.push_id_check(scope.span(mac));
        }
    }
}

/// The call whose value an initialiser holds: the call itself (through `.await`, `?`, `Ok(..)`
/// and the like), the call a `match` takes apart (`match handle(req).await { Ok(r) => r, .. }`:
/// what an arm builds instead is an answer too), or the call a closure or an `async` block
/// handed to a call makes last (`spawn_blocking(move || server.handle(req))`).
fn origin_call(expr: &Expr) -> Option<String> {
    origin_call_at(expr, 0)
}

/// The body of the closure or `async` block that is a call's one argument.
fn handed(args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> Option<&Expr> {
    match args.first() {
        Some(Expr::Closure(c)) if args.len() == 1 => Some(&c.body),
        Some(Expr::Async(a)) if args.len() == 1 => a.block.stmts.last().and_then(|s| match s {
            syn::Stmt::Expr(e, None) => Some(e),
            _ => None,
        }),
        _ => None,
    }
}

fn origin_call_at(expr: &Expr, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    let expr = crate::analysis::syntax::peel(expr);
    match expr {
        Expr::Match(m) => origin_call_at(&m.expr, depth + 1),
        Expr::Call(call) => match handed(&call.args) {
            Some(body) => origin_call_at(crate::analysis::syntax::tail_value(body), depth + 1),
            None => called_name(expr),
        },
        Expr::MethodCall(call) => match handed(&call.args) {
            Some(body) => origin_call_at(crate::analysis::syntax::tail_value(body), depth + 1),
            None => called_name(expr),
        },
        _ => None,
    }
}

/// The calls a block makes, in order (functions and methods by their last name, macros by
/// theirs, each with its count of arguments), or `None` when it hands on a `bool` literal (a
/// flag that may decide what the callee does) or holds a closure or an `async` block.
fn call_skeleton(block: &syn::Block) -> Option<Vec<(String, usize)>> {
    struct Calls {
        calls: Vec<(String, usize)>,
        opaque: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Calls {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Closure(_) | Expr::Async(_) => self.opaque = true,
                Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Bool(_)) => self.opaque = true,
                Expr::Call(call) => {
                    let name = match &*call.func {
                        Expr::Path(p) => crate::analysis::syntax::last_segment(&p.path),
                        _ => String::new(),
                    };
                    self.calls.push((name, call.args.len()));
                    syn::visit::visit_expr(self, expr);
                }
                Expr::MethodCall(call) => {
                    self.calls.push((call.method.to_string(), call.args.len()));
                    syn::visit::visit_expr(self, expr);
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            // A `json!` object is known by its members' names too: `json!({})` and `json!({
            // "jsonrpc": .., "id": id, "result": r })` build different things.
            // A macro whose body is one other macro's call (a local `macro_rules!` that wraps
            // `json!(..)`) builds what that call builds.
            if let Ok(Expr::Macro(inner)) = mac.parse_body::<Expr>() {
                self.visit_macro(&inner.mac);
                return;
            }
            let mut name = crate::analysis::syntax::macro_name(mac);
            if name == "json" {
                name.push_str(&object_keys(&mac.tokens).join(","));
            }
            self.calls.push((name, usize::MAX));
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut calls = Calls {
        calls: Vec::new(),
        opaque: false,
    };
    syn::visit::Visit::visit_block(&mut calls, block);
    (!calls.opaque).then_some(calls.calls)
}

/// The names of the members of the object a `json!` body writes (`{ "id": id, "result": r }`:
/// `id`, `result`), in order; none for another value.
fn object_keys(tokens: &TokenStream) -> Vec<String> {
    let mut body = tokens.clone().into_iter();
    let (Some(TokenTree::Group(object)), None) = (body.next(), body.next()) else {
        return Vec::new();
    };
    if object.delimiter() != Delimiter::Brace {
        return Vec::new();
    }
    let members: Vec<TokenTree> = object.stream().into_iter().collect();
    members
        .windows(2)
        .enumerate()
        .filter(|(index, _)| {
            *index == 0 || matches!(&members[index - 1], TokenTree::Punct(p) if p.as_char() == ',')
        })
        .filter_map(|(_, pair)| match pair {
            [TokenTree::Literal(key), TokenTree::Punct(colon)] if colon.as_char() == ':' => {
                Some(key.to_string())
            }
            _ => None,
        })
        .collect()
}

/// Whether a local's initial value is one the block made itself, so that what is set in it
/// stays in the block: read from one of the block's own such locals (`&mut reply.error`), or
/// built by a call, a macro, a struct or a literal that is handed no mutable borrow (`error(
/// -32700, "..", Some(id.clone()))`), which could hand back a borrow of something outside.
fn own_value(init: &Expr, own: &[String]) -> bool {
    if let Some(root) = crate::analysis::syntax::root_local(init) {
        return own.contains(&root);
    }
    let built = matches!(
        crate::analysis::syntax::peel(init),
        Expr::Call(_) | Expr::Macro(_) | Expr::Struct(_) | Expr::Lit(_)
    );
    built && !borrows_mutably(init.to_token_stream())
}

/// Whether tokens hold `&mut` (inside groups too).
fn borrows_mutably(tokens: TokenStream) -> bool {
    let mut after_ampersand = false;
    for tree in tokens {
        match tree {
            TokenTree::Group(g) if borrows_mutably(g.stream()) => return true,
            TokenTree::Punct(p) if p.as_char() == '&' => {
                after_ampersand = true;
                continue;
            }
            TokenTree::Ident(i) if after_ampersand && i == "mut" => return true,
            _ => {}
        }
        after_ampersand = false;
    }
    false
}

fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Whether a type is `&str` or `Option<&str>`.
fn borrows_a_str(ty: &syn::Type) -> bool {
    fn str_reference(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => {
                matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("str"))
            }
            syn::Type::Paren(p) => str_reference(&p.elem),
            _ => false,
        }
    }
    let plain_option =
        matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1);
    str_reference(ty)
        || (plain_option && crate::analysis::syntax::option_inner(ty).is_some_and(str_reference))
        || matches!(ty, syn::Type::Paren(p) if borrows_a_str(&p.elem))
}

/// The name `Some(name)` binds.
fn option_binding(pat: &Pat) -> Option<String> {
    let Pat::TupleStruct(ts) = pat else {
        return None;
    };
    if ts.path.segments.last().is_none_or(|s| s.ident != "Some") {
        return None;
    }
    match ts.elems.first() {
        Some(Pat::Ident(p)) if ts.elems.len() == 1 => Some(p.ident.to_string()),
        _ => None,
    }
}

/// Whether an `id` test only chooses a value: `let id = if value["id"].is_null() { None } else {
/// Some(value["id"].clone()) };` turns a missing id into `None` whichever way it goes, and what
/// happens to a message without one is decided later, by a test of that value. The test is the
/// condition of an `if` that is a `let`'s initialiser, and neither branch leaves.
fn normalises(call: &syn::ExprMethodCall, scope: &Scope<'_>) -> bool {
    let Some(Node::Expr(Expr::If(expr_if))) = scope.parent() else {
        return false;
    };
    let is_condition = matches!(&*expr_if.cond, Expr::MethodCall(c) if std::ptr::eq(c, call));
    let initialises = matches!(scope.ancestor(1), Some(Node::Local(local))
        if local.init.as_ref().is_some_and(|init| matches!(&*init.expr, Expr::If(i) if std::ptr::eq(i, expr_if))));
    let stays = |block: &syn::Block| !crate::analysis::syntax::leaves(block);
    is_condition
        && initialises
        && stays(&expr_if.then_branch)
        && match expr_if.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Expr::Block(b)) => stays(&b.block),
            _ => false,
        }
}

/// Whether a test is (alone, negated, or joined by `&&`/`||`) the condition of an `if` or a
/// `while`, or an arm's guard: it decides which code runs. `let tracked = id != Value::Null &&
/// ..;` only computes a value, which may decide nothing.
fn decides_a_branch(test: &Expr, scope: &Scope<'_>) -> bool {
    let mut inner = test;
    for level in 0..64 {
        match scope.ancestor(level) {
            Some(Node::Expr(parent)) => {
                let holds = |e: &Expr| std::ptr::eq(e, inner);
                match parent {
                    Expr::Paren(p) if holds(&p.expr) => {}
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) && holds(&u.expr) => {}
                    Expr::Binary(b)
                        if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                            && (holds(&b.left) || holds(&b.right)) => {}
                    Expr::If(i) => return holds(&i.cond),
                    Expr::While(w) => return holds(&w.cond),
                    _ => return false,
                }
                inner = parent;
            }
            Some(Node::Arm(arm)) => {
                return arm
                    .guard
                    .as_ref()
                    .is_some_and(|(_, g)| std::ptr::eq(&**g, inner));
            }
            _ => return false,
        }
    }
    false
}

/// The arms after a catch-all arm whose guard is a test that the id is missing (`_ if
/// request.id.is_none() => None`): every message without an `id` that gets that far is taken
/// by that arm, so the later ones see only requests. The span runs from the end of the
/// guarded arm to the end of the `match`.
fn later_arms(test: &Expr, present: bool, scope: &Scope<'_>) -> Option<ByteSpan> {
    let mut present = present;
    let mut inner = test;
    for level in 0..64 {
        match scope.ancestor(level)? {
            Node::Expr(Expr::Paren(p)) if std::ptr::eq(&*p.expr, inner) => {
                inner = scope_expr(level, scope)?
            }
            Node::Expr(Expr::Unary(u))
                if matches!(u.op, syn::UnOp::Not(_)) && std::ptr::eq(&*u.expr, inner) =>
            {
                present = !present;
                inner = scope_expr(level, scope)?;
            }
            Node::Arm(arm) => {
                let whole_guard = arm
                    .guard
                    .as_ref()
                    .is_some_and(|(_, g)| std::ptr::eq(&**g, inner));
                // Every method, or every method there is in a `match` over an `Option` of it
                // (`Some(_) if id.is_none() => None`, batch 103's TerminalTiler).
                let takes_any = |pat: &Pat| match pat {
                    Pat::Wild(_) => true,
                    Pat::Ident(binding) => binding.subpat.is_none(),
                    _ => false,
                };
                let catch_all = match &arm.pat {
                    Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => {
                        ts.elems.first().is_some_and(takes_any)
                    }
                    pat => takes_any(pat),
                };
                if present || !whole_guard || !catch_all {
                    return None;
                }
                let Some(Node::Expr(m @ Expr::Match(_))) = scope.ancestor(level + 1) else {
                    return None;
                };
                let end = scope.span(m).end;
                let start = scope.span(&*arm.body).end;
                return (start <= end).then(|| ByteSpan::new(start, end));
            }
            _ => return None,
        }
    }
    None
}

/// The expression at an ancestor level of the walk's scope.
fn scope_expr<'a>(level: usize, scope: &Scope<'a>) -> Option<&'a Expr> {
    match scope.ancestor(level)? {
        Node::Expr(e) => Some(e),
        _ => None,
    }
}

/// Whether a `match` on an id only chooses a value: `let id_str = match id { Some(v) =>
/// v.to_string(), None => "null".to_string() };` is a `let`'s initialiser, and no arm leaves,
/// so a missing id goes on as a value, as [`normalises`] says of an `if`.
fn chooses_a_value(m: &syn::ExprMatch, scope: &Scope<'_>) -> bool {
    let initialises = matches!(scope.parent(), Some(Node::Local(local))
        if local.init.as_ref().is_some_and(|init| init.diverge.is_none() && matches!(&*init.expr, Expr::Match(i) if std::ptr::eq(i, m))));
    initialises
        && m.arms
            .iter()
            .all(|arm| arm.guard.is_none() && !crate::analysis::syntax::expr_leaves(&arm.body))
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

/// The subject of a `matches!` whose pattern tells a missing value (`None`, or an alternative of
/// `None | ..`) from a present one.
fn matched_option(mac: &syn::Macro) -> Option<Expr> {
    let (subject, pat) = crate::analysis::syntax::matches_parts(mac)?;
    let alternatives: Vec<&Pat> = match &pat {
        Pat::Or(or) => or.cases.iter().collect(),
        other => vec![other],
    };
    // `Value::Null`: a missing id that serde read as null (`#[serde(default)] id: Value`).
    let null = |p: &Pat| matches!(p, Pat::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Null"));
    alternatives
        .iter()
        .any(|p| (option_pattern(p).is_some() && !matches!(p, Pat::TupleStruct(_))) || null(p))
        .then_some(subject)
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
    // `Command::Notifications { .. }` (a command-line subcommand) names no message kind.
    path.segments.len() > 1
        && path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().ends_with("Notification"))
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
        // `value_at_path(&message, &["id"])`, `field(msg, "id")`: a reader handed the member's
        // key (or a path of that one key).
        Expr::Call(call) => call.args.iter().any(is_id_key),
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

/// A local or parameter, or the `id` field of one (`request.id`: batch 112's yore, whose
/// catch-all is `request.id.map(|id| error(id, ..))`), through `.clone()` and `.as_ref()` (`id`,
/// `id.clone()`): the value an answer is mapped over, not a member read from some other value
/// (`chunk.get("id")`).
fn id_local(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(i) if i == "id")
                && matches!(&*f.base, Expr::Path(p) if p.path.get_ident().is_some())
        }
        Expr::MethodCall(m)
            if m.args.is_empty() && matches!(m.method.to_string().as_str(), "clone" | "as_ref") =>
        {
            id_local(&m.receiver)
        }
        Expr::Reference(r) => id_local(&r.expr),
        Expr::Paren(p) => id_local(&p.expr),
        _ => false,
    }
}

/// The key of the message's `id` member: `"id"`, or a path of that one key (`&["id"]`).
fn is_id_key(expr: &Expr) -> bool {
    match expr {
        Expr::Reference(r) => is_id_key(&r.expr),
        Expr::Array(a) => a.elems.len() == 1 && a.elems.first().is_some_and(is_id_key),
        _ => str_literal(expr).as_deref() == Some("id"),
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

/// The position of the parameter a function builds its response's `id` from: its value (the
/// body's tail) is a struct literal with an `id` field that is that parameter (`id` or `id:
/// id_param`) beside a `result` or `error` field.
fn builds_response_from(sig: &syn::Signature, body: &syn::Block) -> Option<usize> {
    let Some(syn::Stmt::Expr(Expr::Struct(literal), None)) = body.stmts.last() else {
        return None;
    };
    let field = |name: &str| {
        literal
            .fields
            .iter()
            .find(|f| matches!(&f.member, syn::Member::Named(i) if i == name))
    };
    if field("result").is_none() && field("error").is_none() {
        return None;
    }
    let Expr::Path(value) = &field("id")?.expr else {
        return None;
    };
    let param = value.path.get_ident()?.to_string();
    sig.inputs
        .iter()
        .filter(|input| matches!(input, syn::FnArg::Typed(_)))
        .position(|input| {
            matches!(input, syn::FnArg::Typed(t)
                if matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == param))
        })
}

/// The block of the `if` whose whole condition is the test `test` (through `!` and
/// parentheses) that runs when the `id` is absent: its `then` block for `is_none()`, its `else`
/// block for `is_some()`.
fn absent_block(test: &Expr, present: bool, scope: &Scope<'_>) -> Option<ByteSpan> {
    let mut present = present;
    let mut inner = test;
    for level in 0..16 {
        let Some(Node::Expr(parent)) = scope.ancestor(level) else {
            return None;
        };
        let holds = |e: &Expr| std::ptr::eq(e, inner);
        match parent {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) && holds(&u.expr) => {
                present = !present
            }
            Expr::Paren(p) if holds(&p.expr) => {}
            Expr::If(expr_if) if holds(&expr_if.cond) => {
                let block = match (present, &expr_if.else_branch) {
                    (false, _) => &expr_if.then_branch,
                    (true, Some((_, other))) => match &**other {
                        Expr::Block(b) => &b.block,
                        _ => return None,
                    },
                    (true, None) => return None,
                };
                return Some(scope.raw_span(
                    block.brace_token.span.open(),
                    block.brace_token.span.close(),
                ));
            }
            _ => return None,
        }
        inner = parent;
    }
    None
}

/// A JSON null itself (`Value::Null`, `json!(null)`), not an `Option`'s `None`, which may stand
/// for an `id` filled in later.
fn is_null_value(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.segments.len() > 1 && is_null_id(expr),
        Expr::Macro(_) => is_null_id(expr),
        Expr::Reference(r) => is_null_value(&r.expr),
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

/// Whether an expression parses a message (`serde_json::from_str`, `.parse()`).
fn calls_parser(expr: &Expr) -> bool {
    called_names(expr)
        .iter()
        .any(|name| name == "parse" || super::strict_parse::DESERIALISERS.contains(&name.as_str()))
}

/// Whether a statement deserialises something (`serde_json::from_str(..)`, `from_slice`,
/// `from_value`, `from_reader`): what a function does, not what it is called, makes its
/// null-`id` answers those of a message it could not read.
fn deserialises(stmt: &syn::Stmt) -> bool {
    let exprs: Vec<&Expr> = match stmt {
        syn::Stmt::Local(local) => local
            .init
            .iter()
            .flat_map(|init| {
                std::iter::once(&*init.expr).chain(init.diverge.as_ref().map(|d| &*d.1))
            })
            .collect(),
        syn::Stmt::Expr(expr, _) => vec![expr],
        _ => Vec::new(),
    };
    exprs.into_iter().any(|e| {
        called_names(e)
            .iter()
            .any(|name| super::strict_parse::DESERIALISERS.contains(&name.as_str()))
    })
}

/// `|_| response`: a closure that does not read the value it is given.
fn ignores_its_argument(closure: &syn::ExprClosure) -> bool {
    closure.inputs.len() == 1 && matches!(closure.inputs.first(), Some(syn::Pat::Wild(_)))
}

/// The type a function returns in a `Result` (`-> Result<Self, E>` in an `impl T`: `T`; `->
/// Result<Request, E>`: `Request`).
fn result_of(sig: &syn::Signature, scope: &Scope<'_>) -> Option<String> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    let ok = super::strict_parse::result_ok_type(ty)?;
    if ok == "Self" {
        scope.impl_scope().and_then(|i| i.self_ty.clone())
    } else {
        Some(ok)
    }
}

/// Whether a function declares it returns an `Option`.
fn returns_option(sig: &syn::Signature) -> bool {
    matches!(&sig.output, syn::ReturnType::Type(_, ty)
        if type_name(ty).is_some_and(|t| t == "Option"))
}

/// Whether a function's body leaves with `None` when the text it reads has no `id` key: a `?`
/// on a search of the raw text for the key (`let start = json.find("\"id\":")? + 5;`, the key
/// spelled in the call or in a local bound to it). Such a function returns the message's id as
/// the text has it (batch 83's squeez: `let id = extract_id_raw(line); if id.is_none() { return
/// None; }`).
fn finds_id_key_or_leaves(body: &syn::Block) -> bool {
    struct Finder {
        keys: Vec<String>,
        found: bool,
    }
    fn id_key(expr: &Expr, keys: &[String]) -> bool {
        match expr {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => {
                let text = s.value();
                text.trim_end_matches([':', ' ']) == "\"id\""
            }
            Expr::Reference(r) => id_key(&r.expr, keys),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|ident| keys.iter().any(|k| ident == k.as_str())),
            _ => false,
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let (syn::Pat::Ident(p), Some(init)) = (&local.pat, &local.init) {
                if id_key(&init.expr, &[]) {
                    self.keys.push(p.ident.to_string());
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_expr_try(&mut self, expr: &'ast syn::ExprTry) {
            if let Expr::MethodCall(call) = &*expr.expr {
                let searches = matches!(
                    call.method.to_string().as_str(),
                    "find" | "split_once" | "strip_prefix"
                );
                self.found |= searches && call.args.iter().any(|a| id_key(a, &self.keys));
            }
            syn::visit::visit_expr_try(self, expr);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        keys: Vec::new(),
        found: false,
    };
    syn::visit::Visit::visit_block(&mut finder, body);
    finder.found
}

/// Whether the `id` test `test` is an operand of `&&` beside a test that the method is one of
/// a few MCP methods named by literals (`(method == "initialized" || method ==
/// "notifications/initialized") && body.get("id").is_none()`, batch 99's chartgen): the test
/// then tells only those methods' notifications apart, and every other notification goes on
/// past it as a request would.
fn narrowed_to_named_methods(test: &Expr, scope: &Scope<'_>) -> bool {
    let mut inner = test;
    for level in 0..64 {
        let Some(Node::Expr(parent)) = scope.ancestor(level) else {
            return false;
        };
        match parent {
            Expr::Paren(p) if std::ptr::eq(&*p.expr, inner) => {}
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                let other = if std::ptr::eq(&*b.left, inner) {
                    &*b.right
                } else if std::ptr::eq(&*b.right, inner) {
                    &*b.left
                } else {
                    return false;
                };
                if names_methods(other) {
                    return true;
                }
            }
            _ => return false,
        }
        inner = parent;
    }
    false
}

/// Whether `e` holds only for a few MCP methods named by literals: `x == "ping"`, a `||` of
/// such tests, `matches!(x, "initialized" | "notifications/initialized")`.
fn names_methods(e: &Expr) -> bool {
    let method =
        |e: &Expr| str_literal(e).is_some_and(|m| crate::analysis::dispatch::is_mcp_method(&m));
    match e {
        Expr::Paren(p) => names_methods(&p.expr),
        Expr::Binary(b) => match b.op {
            syn::BinOp::Eq(_) => method(&b.left) || method(&b.right),
            syn::BinOp::Or(_) => names_methods(&b.left) && names_methods(&b.right),
            _ => false,
        },
        Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
            let Ok(args) = m.mac.parse_body_with(
                syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
            ) else {
                return false;
            };
            // `matches!(x, "a" | "b")` parses its pattern as an expression: `"a" | "b"`.
            fn literals(e: &Expr, method: &dyn Fn(&Expr) -> bool) -> bool {
                match e {
                    Expr::Binary(b) if matches!(b.op, syn::BinOp::BitOr(_)) => {
                        literals(&b.left, method) && literals(&b.right, method)
                    }
                    _ => method(e),
                }
            }
            args.len() == 2 && args.get(1).is_some_and(|p| literals(p, &method))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `id` tests of a parsed file, through the shared walk.
    fn id_tests(code: &str) -> IdTests {
        let file = syn::parse_file(code).expect("test code parses");
        let mut facts = FileFacts {
            may_dispatch: true,
            ..FileFacts::default()
        };
        let vocabulary = Vocabulary::default();
        let hook = IdTestsCollector
            .hook(code, 0, &vocabulary)
            .expect("the code speaks JSON-RPC");
        crate::analysis::walk::walk(&file, 0, vec![hook], &mut facts);
        of(&facts)
    }

    #[test]
    fn finds_id_checks_prefix_checks_and_null_ids() {
        let facts = id_tests(
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
        // The second test guards its (empty) block alone.
        assert_eq!(facts.id_checks.len(), 1);
        assert_eq!(facts.guards.len(), 1);
        assert_eq!(facts.prefix_checks.len(), 1);
        let parse: Vec<bool> = facts
            .null_id_responses
            .iter()
            .map(|r| r.answers_parse_error)
            .collect();
        assert_eq!(parse, vec![false, true, true]);
    }
}
