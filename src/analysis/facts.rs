//! Per-file facts: the functions of a file with their response sinks, their calls, and the cancel
//! paths those lie on. Built once per file in one traversal of its syntax tree; the syntax tree is
//! dropped afterwards and the rules read only these facts.

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, Macro, Pat, Stmt};

use super::syntax::{
    expr_idents, is_pure, json_shape, macro_name, parse_macro_body, parse_select, path_segments,
    pattern_bindings, peel, str_literal, strip_statement_wrappers, tail_values, value_idents,
    MacroBody,
};
use super::vocabulary as vocab;
use crate::discovery::module_tree::{InlineModule, ModDecl};
use crate::source::ByteSpan;

/// Index of a [`CancelOrigin`] in its file's [`FileFacts::origins`].
pub type OriginId = usize;

/// How a cancel path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OriginKind {
    /// A function that handles the cancellation notification (`on_cancelled`, `cancel(&self)`).
    Hook,
    /// A `match` arm or `if` branch selected by the cancellation notification.
    DispatchArm,
    /// A `select!` branch on the request's token being cancelled.
    SelectArm,
    /// The statements after `token.cancelled().await`.
    AfterCancelledAwait,
    /// The body of `if token.is_cancelled()` (or the `else` of `if !token.is_cancelled()`).
    IfCancelled,
    /// The statements after `while !token.is_cancelled() { .. }`.
    AfterCancelLoop,
}

/// When an origin holds: always, or only if a constant of the crate holds the cancellation method.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OriginCondition {
    Always,
    /// The arm matched a constant by this name; it is a cancel path if the constant's value is
    /// `notifications/cancelled` (or, when the value is not visible, if its name says so).
    ConstNamed(String),
}

/// Where a cancel path starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CancelOrigin {
    pub kind: OriginKind,
    pub span: ByteSpan,
    /// A label for the start of the path, e.g. "this arm handles `notifications/cancelled`".
    pub label: String,
    pub condition: OriginCondition,
}

/// What a sink sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SinkKind {
    /// A JSON-RPC response or error.
    Response,
    /// A further message for the request: a progress or log notification.
    FurtherMessage,
}

/// How a send (or a call) could be taken out of the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Removal {
    /// The send is a whole statement (with `let _ =`, `.await`, `?`, `.ok()`, `.unwrap()` and the
    /// like around it): remove `span`, the statement.
    Statement(ByteSpan),
    /// The send is the value of a block or of an arm: replace `span` with `replacement`.
    Value {
        span: ByteSpan,
        replacement: &'static str,
    },
}

/// A place that sends a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SinkSite {
    /// The send expression (or, for a value that flows into a later send, the expression that
    /// built the value).
    pub span: ByteSpan,
    pub kind: SinkKind,
    /// How the send reads, e.g. "`self.send_error(..)`".
    pub what: String,
    /// The cancel paths this site lies on, innermost last.
    pub origins: Vec<OriginId>,
    /// For a value built on a cancel path and sent later: where it is sent.
    pub sent_at: Option<ByteSpan>,
    /// How the send could be removed, when its value is not used.
    pub removal: Option<Removal>,
    /// Whether the send's receiver and arguments are free of side effects (literals, paths,
    /// fields, references, literals of structs, tuples and arrays, `json!`/`format!`, and
    /// conversions), so that removing the send removes nothing else.
    pub pure: bool,
}

/// How a call names its callee.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Callee {
    /// `foo(..)`, `module::foo(..)`, `Type::foo(..)`, `Self::foo(..)`.
    Path(Vec<String>),
    /// `receiver.name(..)`; `on_self` when the receiver is `self` (or a field path is not).
    Method { name: String, on_self: bool },
}

/// A call of something that may be a function of the same crate.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallSite {
    pub span: ByteSpan,
    pub callee: Callee,
    pub origins: Vec<OriginId>,
    /// How the call could be removed, when its value is not used.
    pub removal: Option<Removal>,
}

impl CallSite {
    /// The callee's own name (the last path segment, or the method name).
    pub fn name(&self) -> &str {
        match &self.callee {
            Callee::Path(segments) => segments.last().map(String::as_str).unwrap_or(""),
            Callee::Method { name, .. } => name,
        }
    }
}

/// One function, method or trait default method, with what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionFacts {
    pub name: String,
    pub name_span: ByteSpan,
    /// The whole item, attributes included.
    pub item_span: ByteSpan,
    /// The implementing type (last path segment) for methods and associated functions.
    pub self_ty: Option<String>,
    /// The trait, for trait impls and trait default methods.
    pub trait_name: Option<String>,
    pub has_receiver: bool,
    /// The module path within the crate (best effort).
    pub module: Vec<String>,
    /// Set when the whole function is a cancel path (a cancel hook).
    pub hook: Option<OriginId>,
    pub sinks: Vec<SinkSite>,
    pub calls: Vec<CallSite>,
}

/// Everything the rules need to know about one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub functions: Vec<FunctionFacts>,
    pub origins: Vec<CancelOrigin>,
    /// String constants of the file: name and value.
    pub string_consts: Vec<(String, String)>,
    /// The out-of-line modules (`mod x;`) the file declares.
    pub mod_decls: Vec<ModDecl>,
    /// The spans of the file's items that a suppression comment can cover (functions, impls,
    /// traits, modules), attributes included.
    pub items: Vec<ByteSpan>,
}

/// Build the facts of a parsed file. `base` is added to every byte offset (it accounts for a
/// byte order mark or shebang line that was cut off before parsing). `module` is the file's
/// module path within its crate.
pub fn collect(
    file: &syn::File,
    base: usize,
    module: Vec<String>,
    vocabulary: &vocab::Vocabulary,
) -> FileFacts {
    let mut builder = FactsBuilder {
        vocab: vocabulary,
        facts: FileFacts::default(),
        base,
        module,
        impls: Vec::new(),
        inline_modules: Vec::new(),
        functions: Vec::new(),
        origins: Vec::new(),
        removable: Vec::new(),
    };
    builder.visit_file(file);
    builder.facts
}

#[derive(Debug, Clone, Default)]
struct LocalInfo {
    /// The local holds (or was derived from) a response message.
    response: bool,
    /// The local holds a further message for a request (a progress or log notification).
    further: bool,
    /// Response values built on a cancel path that reached this local.
    flows: Vec<FlowValue>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FlowValue {
    span: ByteSpan,
    what: String,
    origins: Vec<OriginId>,
}

struct FunctionState {
    facts: FunctionFacts,
    locals: HashMap<String, LocalInfo>,
    /// Locals bound to a request token's `cancelled()` future.
    cancelled_futures: Vec<String>,
    /// Response values produced on cancel arms, waiting for the `let` that receives them.
    pending_flows: Vec<FlowValue>,
}

struct FactsBuilder<'v> {
    vocab: &'v vocab::Vocabulary,
    facts: FileFacts,
    base: usize,
    module: Vec<String>,
    /// Enclosing impls and traits: (self type, trait).
    impls: Vec<(Option<String>, Option<String>)>,
    /// Enclosing inline modules, for placing `mod x;` declarations.
    inline_modules: Vec<InlineModule>,
    functions: Vec<FunctionState>,
    /// The cancel paths the current code lies on, innermost last.
    origins: Vec<OriginId>,
    /// Expressions that could be removed whole, by the span of the send or call they carry.
    removable: Vec<(ByteSpan, Removal)>,
}

/// How an `if` condition relates to cancellation.
enum Condition {
    Plain,
    /// The `then` branch runs because of a cancellation.
    Cancelled(OriginKind, ByteSpan, String, OriginCondition),
    /// The `then` branch runs only while the request is not cancelled (a guard); the `else`
    /// branch runs because of a cancellation.
    NotCancelled(ByteSpan),
}

impl<'v> FactsBuilder<'v> {
    fn span(&self, node: &impl Spanned) -> ByteSpan {
        let range = node.span().byte_range();
        ByteSpan::new(range.start + self.base, range.end + self.base)
    }

    fn current(&mut self) -> Option<&mut FunctionState> {
        self.functions.last_mut()
    }

    fn add_origin(
        &mut self,
        kind: OriginKind,
        span: ByteSpan,
        label: String,
        condition: OriginCondition,
    ) -> OriginId {
        self.facts.origins.push(CancelOrigin {
            kind,
            span,
            label,
            condition,
        });
        self.facts.origins.len() - 1
    }

    // ----- functions -------------------------------------------------------------------------

    fn enter_function(
        &mut self,
        item_span: ByteSpan,
        sig: &syn::Signature,
        self_ty: Option<String>,
        trait_name: Option<String>,
    ) {
        let name = sig.ident.to_string();
        let has_receiver = sig.receiver().is_some();
        let name_span = self.span(&sig.ident);
        let hook = if self.vocab.is_cancel_hook(&name, has_receiver) {
            Some(self.add_origin(
                OriginKind::Hook,
                name_span,
                format!("cancel path: `{name}` runs because a request was cancelled"),
                OriginCondition::Always,
            ))
        } else {
            None
        };
        let mut locals = HashMap::new();
        for input in &sig.inputs {
            if let syn::FnArg::Typed(arg) = input {
                for binding in pattern_bindings(&arg.pat) {
                    locals.insert(binding, LocalInfo::default());
                }
            }
        }
        self.functions.push(FunctionState {
            facts: FunctionFacts {
                name,
                name_span,
                item_span,
                self_ty,
                trait_name,
                has_receiver,
                module: self.module.clone(),
                hook,
                sinks: Vec::new(),
                calls: Vec::new(),
            },
            locals,
            cancelled_futures: Vec::new(),
            pending_flows: Vec::new(),
        });
    }

    fn with_function(
        &mut self,
        item_span: ByteSpan,
        sig: &syn::Signature,
        self_ty: Option<String>,
        trait_name: Option<String>,
        body: &syn::Block,
    ) {
        self.facts.items.push(item_span);
        self.enter_function(item_span, sig, self_ty, trait_name);
        let saved = std::mem::take(&mut self.origins);
        if let Some(hook) = self.functions.last().and_then(|f| f.facts.hook) {
            self.origins.push(hook);
        }
        self.visit_block(body);
        self.origins = saved;
        if let Some(state) = self.functions.pop() {
            self.facts.functions.push(state.facts);
        }
    }

    // ----- recording -------------------------------------------------------------------------

    fn removal_of(&self, span: ByteSpan) -> Option<Removal> {
        self.removable
            .iter()
            .rev()
            .find(|(core, _)| *core == span)
            .map(|(_, removal)| *removal)
    }

    fn record_sink(&mut self, span: ByteSpan, kind: SinkKind, what: String, pure: bool) {
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        if let Some(state) = self.current() {
            state.facts.sinks.push(SinkSite {
                span,
                kind,
                what,
                origins,
                sent_at: None,
                removal,
                pure,
            });
        }
    }

    fn record_call(&mut self, span: ByteSpan, callee: Callee) {
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        if let Some(state) = self.current() {
            state.facts.calls.push(CallSite {
                span,
                callee,
                origins,
                removal,
            });
        }
    }

    /// Note how the send or call that `expr` carries could be removed.
    fn note_removable(&mut self, expr: &Expr, removal: Removal) {
        let core = self.span(strip_statement_wrappers(expr));
        self.removable.push((core, removal));
    }

    /// Record the sends of response values built on a cancel path that `args` carry.
    fn record_flows(&mut self, args: &[&Expr], send_span: ByteSpan) {
        let flows: Vec<FlowValue> = args.iter().flat_map(|a| self.flows_of(a)).collect();
        if let Some(state) = self.current() {
            for flow in flows {
                let site = SinkSite {
                    span: flow.span,
                    kind: SinkKind::Response,
                    what: flow.what,
                    origins: flow.origins,
                    sent_at: Some(send_span),
                    removal: None,
                    pure: false,
                };
                if !state.facts.sinks.contains(&site) {
                    state.facts.sinks.push(site);
                }
            }
        }
    }

    // ----- questions about values ------------------------------------------------------------

    fn local(&self, name: &str) -> Option<&LocalInfo> {
        self.functions.last().and_then(|f| f.locals.get(name))
    }

    /// Whether an expression is, builds, or was derived from a JSON-RPC response message.
    fn is_response_valued(&self, expr: &Expr) -> bool {
        struct Finder<'b, 'v> {
            builder: &'b FactsBuilder<'v>,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_, '_> {
            fn visit_expr(&mut self, expr: &'ast Expr) {
                if self.found {
                    return;
                }
                if is_response_construct(expr) {
                    self.found = true;
                    return;
                }
                if let Expr::Path(p) = expr {
                    if let Some(ident) = p.path.get_ident() {
                        if self
                            .builder
                            .local(&ident.to_string())
                            .is_some_and(|l| l.response)
                        {
                            self.found = true;
                            return;
                        }
                    }
                }
                if let Expr::Closure(_) = expr {
                    return;
                }
                visit::visit_expr(self, expr);
            }
            fn visit_macro(&mut self, mac: &'ast Macro) {
                if json_shape(mac).is_some_and(|s| s.is_response()) {
                    self.found = true;
                    return;
                }
                if vocab::QUIET_MACROS.contains(&macro_name(mac).as_str())
                    && macro_name(mac) != "format"
                {
                    return;
                }
                if let Some(body) = parse_macro_body(&mac.tokens) {
                    match body {
                        MacroBody::Exprs(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                        MacroBody::Stmts(stmts) => stmts.iter().for_each(|s| self.visit_stmt(s)),
                    }
                }
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder {
            builder: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    /// Whether an expression is a further message for a request: a progress or log notification.
    fn is_further_message(&self, expr: &Expr) -> bool {
        struct Finder {
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder {
            fn visit_path(&mut self, path: &'ast syn::Path) {
                if path
                    .segments
                    .iter()
                    .any(|s| vocab::FURTHER_MESSAGE_TYPES.contains(&s.ident.to_string().as_str()))
                {
                    self.found = true;
                }
                visit::visit_path(self, path);
            }
            fn visit_macro(&mut self, mac: &'ast Macro) {
                if let Some(method) = json_shape(mac).and_then(|s| s.method) {
                    if vocab::FURTHER_MESSAGE_METHODS.contains(&method.as_str()) {
                        self.found = true;
                    }
                }
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder { found: false };
        finder.visit_expr(expr);
        finder.found
            || value_idents(expr)
                .iter()
                .any(|ident| self.local(ident).is_some_and(|l| l.further))
    }

    /// The cancel-path response values an expression carries through locals.
    fn flows_of(&self, expr: &Expr) -> Vec<FlowValue> {
        let mut flows = Vec::new();
        for ident in value_idents(expr) {
            if let Some(local) = self.local(&ident) {
                for flow in &local.flows {
                    if !flows.contains(flow) {
                        flows.push(flow.clone());
                    }
                }
            }
        }
        flows
    }

    /// Bind the identifiers of a pattern to what the value they come from carries.
    fn bind(&mut self, pat: &Pat, from: Option<&Expr>, extra_flows: Vec<FlowValue>) {
        let (response, further, mut flows) = match from {
            Some(expr) => (
                self.is_response_valued(expr),
                self.is_further_message(expr),
                self.flows_of(expr),
            ),
            None => (false, false, Vec::new()),
        };
        flows.extend(extra_flows);
        if let (Some(expr), false) = (from, self.origins.is_empty()) {
            flows.extend(self.cancel_value(expr));
        }
        let cancelled_future = from.is_some_and(|e| self.is_request_cancelled_future(e));
        let bindings = pattern_bindings(pat);
        if let Some(state) = self.current() {
            for name in bindings {
                if cancelled_future {
                    state.cancelled_futures.push(name.clone());
                }
                state.locals.insert(
                    name,
                    LocalInfo {
                        response,
                        further,
                        flows: flows.clone(),
                    },
                );
            }
        }
    }

    /// `token.cancelled()` / `token.cancelled_owned()` on a per-request token (not a shutdown
    /// token), possibly wrapped (`Box::pin(..)`, `.fuse()`, `&mut fut`), or a local holding one.
    fn is_request_cancelled_future(&self, expr: &Expr) -> bool {
        match expr {
            Expr::MethodCall(m) if m.method == "cancelled" || m.method == "cancelled_owned" => {
                is_request_token(self.vocab, &m.receiver)
            }
            Expr::MethodCall(m) if m.args.is_empty() => {
                self.is_request_cancelled_future(&m.receiver)
            }
            Expr::Call(c) if c.args.len() == 1 => c
                .args
                .first()
                .is_some_and(|a| self.is_request_cancelled_future(a)),
            Expr::Reference(r) => self.is_request_cancelled_future(&r.expr),
            Expr::Paren(p) => self.is_request_cancelled_future(&p.expr),
            Expr::Group(g) => self.is_request_cancelled_future(&g.expr),
            Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.functions
                    .last()
                    .is_some_and(|f| f.cancelled_futures.contains(&name))
            }),
            _ => false,
        }
    }

    /// `token.cancelled().await`: the code after it runs because of the cancellation.
    fn is_cancelled_await(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Await(a) => self.is_request_cancelled_future(&a.base),
            Expr::Paren(p) => self.is_cancelled_await(&p.expr),
            _ => false,
        }
    }

    /// How an `if` condition relates to cancellation.
    fn classify_condition(&self, cond: &Expr) -> Condition {
        match cond {
            Expr::Paren(p) => self.classify_condition(&p.expr),
            Expr::Group(g) => self.classify_condition(&g.expr),
            Expr::MethodCall(m)
                if m.method == "is_cancelled" && is_request_token(self.vocab, &m.receiver) =>
            {
                Condition::Cancelled(
                    OriginKind::IfCancelled,
                    self.span(cond),
                    "cancel path: this branch runs when the request has been cancelled".into(),
                    OriginCondition::Always,
                )
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                match self.classify_condition(&u.expr) {
                    Condition::Cancelled(OriginKind::IfCancelled, ..) => {
                        Condition::NotCancelled(self.span(cond))
                    }
                    _ => Condition::Plain,
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                match self.classify_condition(&b.left) {
                    Condition::Plain => self.classify_condition(&b.right),
                    other => other,
                }
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => {
                match cancel_method_operand(self.vocab, &b.left)
                    .or_else(|| cancel_method_operand(self.vocab, &b.right))
                {
                    Some(condition) => Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        condition,
                    ),
                    None => Condition::Plain,
                }
            }
            Expr::MethodCall(m) if m.method == "eq" && m.args.len() == 1 => {
                match m
                    .args
                    .first()
                    .and_then(|a| cancel_method_operand(self.vocab, a))
                {
                    Some(condition) => Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        condition,
                    ),
                    None => Condition::Plain,
                }
            }
            Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
                let cancels = parse_macro_body(&m.mac.tokens).is_some()
                    && tokens_mention_cancel(self.vocab, &m.mac.tokens);
                if cancels {
                    Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles `notifications/cancelled`".into(),
                        OriginCondition::Always,
                    )
                } else {
                    Condition::Plain
                }
            }
            Expr::Let(l) => match pattern_cancel_condition(self.vocab, &l.pat) {
                Some(condition) => Condition::Cancelled(
                    OriginKind::DispatchArm,
                    self.span(cond),
                    "cancel path: this branch handles the cancellation notification".into(),
                    condition,
                ),
                None if is_ok_pattern(&l.pat) && converts_to_cancel_notification(&l.expr) => {
                    Condition::Cancelled(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        "cancel path: this branch handles the cancellation notification".into(),
                        OriginCondition::Always,
                    )
                }
                None => Condition::Plain,
            },
            _ => Condition::Plain,
        }
    }

    /// Whether a statement starts a cancel path for the statements after it.
    fn starts_cancel_path(
        &self,
        stmt: &Stmt,
    ) -> Option<(OriginKind, ByteSpan, String, OriginCondition)> {
        match stmt {
            Stmt::Expr(expr, _) if self.is_cancelled_await(expr) => Some((
                OriginKind::AfterCancelledAwait,
                self.span(expr),
                "cancel path: the code after this runs once the request is cancelled".into(),
                OriginCondition::Always,
            )),
            Stmt::Expr(Expr::While(w), _) => match self.classify_condition(&w.cond) {
                Condition::NotCancelled(span) => Some((
                    OriginKind::AfterCancelLoop,
                    span,
                    "cancel path: the code after this loop runs once the request is cancelled"
                        .into(),
                    OriginCondition::Always,
                )),
                _ => None,
            },
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                if self.is_cancelled_await(&init.expr) {
                    return Some((
                        OriginKind::AfterCancelledAwait,
                        self.span(&init.expr),
                        "cancel path: the code after this runs once the request is cancelled"
                            .into(),
                        OriginCondition::Always,
                    ));
                }
                init.diverge.as_ref()?;
                let cancels = pattern_cancel_condition(self.vocab, &local.pat).or_else(|| {
                    (is_ok_pattern(&local.pat) && converts_to_cancel_notification(&init.expr))
                        .then_some(OriginCondition::Always)
                })?;
                Some((
                    OriginKind::DispatchArm,
                    self.span(&local.pat),
                    "cancel path: the code after this handles the cancellation notification".into(),
                    cancels,
                ))
            }
            _ => None,
        }
    }

    // ----- statements and blocks -------------------------------------------------------------

    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        let depth = self.origins.len();
        for (index, stmt) in stmts.iter().enumerate() {
            let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
            let removable = self.removable.len();
            match stmt {
                Stmt::Expr(expr, Some(_)) => {
                    self.note_removable(expr, Removal::Statement(self.span(stmt)))
                }
                Stmt::Expr(expr, None) if index + 1 == stmts.len() => self.note_removable(
                    expr,
                    Removal::Value {
                        span: self.span(expr),
                        replacement: "()",
                    },
                ),
                Stmt::Local(local) if matches!(local.pat, Pat::Wild(_)) => {
                    if let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_none()) {
                        self.note_removable(&init.expr, Removal::Statement(self.span(stmt)));
                    }
                }
                Stmt::Macro(mac) => {
                    let span = self.span(&mac.mac);
                    self.removable
                        .push((span, Removal::Statement(self.span(stmt))));
                }
                _ => {}
            }
            self.visit_stmt(stmt);
            self.removable.truncate(removable);
            if let Some(state) = self.current() {
                state.pending_flows.truncate(pending);
            }
            if let Some((kind, span, label, condition)) = self.starts_cancel_path(stmt) {
                let origin = self.add_origin(kind, span, label, condition);
                self.origins.push(origin);
            }
        }
        self.origins.truncate(depth);
    }

    fn visit_with_origin(&mut self, origin: OriginId, f: impl FnOnce(&mut Self)) {
        self.origins.push(origin);
        f(self);
        self.origins.pop();
    }

    fn visit_guarded(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = std::mem::take(&mut self.origins);
        f(self);
        self.origins = saved;
    }

    /// A response value built right here on a cancel path (for a local that receives it).
    fn cancel_value(&self, expr: &Expr) -> Option<FlowValue> {
        let value = peel(expr);
        (is_response_construct(value) || self.is_response_valued(value)).then(|| FlowValue {
            span: self.span(value),
            what: describe_construct(value),
            origins: self.origins.clone(),
        })
    }

    /// Remember the response values that a cancel-path branch evaluates to, for the `let` that
    /// receives them.
    fn note_flowing_values(&mut self, body: &Expr) {
        let origins = self.origins.clone();
        let values: Vec<FlowValue> = tail_values(body)
            .into_iter()
            .map(peel)
            .filter(|value| self.is_response_valued(value))
            .map(|value| FlowValue {
                span: self.span(value),
                what: describe_construct(value),
                origins: origins.clone(),
            })
            .collect();
        if let Some(state) = self.current() {
            state.pending_flows.extend(values);
        }
    }

    // ----- macros ----------------------------------------------------------------------------

    fn visit_macro_call(&mut self, mac: &Macro, span: ByteSpan) {
        let name = macro_name(mac);
        if vocab::QUIET_MACROS.contains(&name.as_str()) || name == "json" {
            return;
        }
        if super::syntax::is_select_macro(&name) {
            if let Some(arms) = parse_select(mac) {
                self.visit_select(&arms);
                return;
            }
        }
        if vocab::WRITE_MACROS.contains(&name.as_str()) {
            if let Some(MacroBody::Exprs(args)) = parse_macro_body(&mac.tokens) {
                let skip = if name.starts_with("print") { 1 } else { 2 };
                let payload: Vec<&Expr> = args.iter().skip(skip).collect();
                for arg in &args {
                    self.visit_expr(arg);
                }
                let pure = args.iter().all(is_pure);
                if payload.iter().any(|a| self.is_response_valued(a)) {
                    self.record_sink(span, SinkKind::Response, format!("`{name}!(..)`"), pure);
                } else if payload.iter().any(|a| self.is_further_message(a)) {
                    self.record_sink(
                        span,
                        SinkKind::FurtherMessage,
                        format!("`{name}!(..)`"),
                        pure,
                    );
                }
                if self.origins.is_empty() {
                    self.record_flows(&payload, span);
                }
            }
            return;
        }
        match parse_macro_body(&mac.tokens) {
            Some(MacroBody::Exprs(exprs)) => {
                for expr in &exprs {
                    self.visit_expr(expr);
                }
            }
            Some(MacroBody::Stmts(stmts)) => self.visit_stmts(&stmts),
            None => {}
        }
    }

    fn visit_select(&mut self, arms: &[super::syntax::SelectArm]) {
        for arm in arms {
            if let Some(future) = &arm.future {
                self.visit_expr(future);
            }
            if let Some(guard) = &arm.guard {
                self.visit_expr(guard);
            }
            let cancels = arm
                .future
                .as_ref()
                .is_some_and(|f| self.is_request_cancelled_future(f));
            if let (true, Some(future)) = (cancels, &arm.future) {
                let origin = self.add_origin(
                    OriginKind::SelectArm,
                    self.span(future),
                    "cancel path: this `select!` branch runs when the request is cancelled".into(),
                    OriginCondition::Always,
                );
                self.visit_with_origin(origin, |this| {
                    this.visit_arm_body(&arm.handler);
                    this.note_flowing_values(&arm.handler);
                });
            } else {
                if let (Some(pattern), Some(future)) = (&arm.pattern, &arm.future) {
                    self.bind(pattern, Some(future), Vec::new());
                }
                self.visit_arm_body(&arm.handler);
            }
        }
    }

    /// A `match` or `select!` arm's body: a send that is the whole body could become `{}`.
    fn visit_arm_body(&mut self, body: &Expr) {
        let removable = self.removable.len();
        if !matches!(body, Expr::Block(_)) {
            self.note_removable(
                body,
                Removal::Value {
                    span: self.span(body),
                    replacement: "{}",
                },
            );
        }
        self.visit_expr(body);
        self.removable.truncate(removable);
    }

    // ----- sends and calls -------------------------------------------------------------------

    fn check_send_call(
        &mut self,
        name: &str,
        span: ByteSpan,
        args: &[&Expr],
        what: String,
        pure: bool,
    ) {
        if self.vocab.is_sink_call(name) {
            self.record_sink(span, SinkKind::Response, what, pure);
        } else if vocab::FURTHER_MESSAGE_CALLS.contains(&name) {
            self.record_sink(span, SinkKind::FurtherMessage, what, pure);
        } else if vocab::TRANSPORT_CALLS.contains(&name) {
            if args.iter().any(|a| self.is_response_valued(a)) {
                self.record_sink(span, SinkKind::Response, what, pure);
            } else if args.iter().any(|a| self.is_further_message(a)) {
                self.record_sink(span, SinkKind::FurtherMessage, what, pure);
            }
            if self.origins.is_empty() {
                self.record_flows(args, span);
            }
        }
    }
}

/// The value of a `#[path = ".."]` attribute.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => str_literal(&nv.value),
        _ => None,
    })
}

/// Whether the callee of a call is named like a sink (then it is a send, not a call to follow).
fn is_send_name(vocabulary: &vocab::Vocabulary, name: &str) -> bool {
    vocabulary.is_sink_call(name) || vocab::FURTHER_MESSAGE_CALLS.contains(&name)
}

/// A request token's receiver: anything not named like a server-wide shutdown token.
fn is_request_token(vocabulary: &vocab::Vocabulary, receiver: &Expr) -> bool {
    vocabulary.is_request_token(&expr_idents(receiver))
}

/// Whether an expression constructs a JSON-RPC response or error message.
fn is_response_construct(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return false;
            };
            let segments = path_segments(&func.path);
            let Some(last) = segments.last() else {
                return false;
            };
            if segments.len() >= 2 {
                let ty = &segments[segments.len() - 2];
                if ty == "ServerMessage" && last == "from_message" {
                    // `from_message(msg, Some(id))` is a response; `None` a notification.
                    return call.args.iter().nth(1).is_some_and(|a| {
                        matches!(a, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")))
                    });
                }
                if vocab::is_response_constructor(ty, last) {
                    return true;
                }
            }
            vocab::is_response_builder_name(last)
                && !segments
                    .iter()
                    .any(|s| s == "http" || s == "axum" || s == "hyper")
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            vocab::is_response_builder_name(&name) && name != "response"
        }
        Expr::Struct(s) => {
            let segments = path_segments(&s.path);
            let type_name = segments.last().cloned().unwrap_or_default();
            if vocab::is_response_struct(&type_name) {
                return true;
            }
            let fields: Vec<String> = s
                .fields
                .iter()
                .filter_map(|f| match &f.member {
                    syn::Member::Named(ident) => Some(ident.to_string()),
                    syn::Member::Unnamed(_) => None,
                })
                .collect();
            let has = |name: &str| fields.iter().any(|f| f == name);
            has("id")
                && (has("result") || has("error"))
                && (has("jsonrpc") || type_name.contains("Response") || type_name.contains("Reply"))
        }
        Expr::Macro(m) => json_shape(&m.mac).is_some_and(|s| s.is_response()),
        _ => false,
    }
}

/// A short description of a response construct for messages.
fn describe_construct(expr: &Expr) -> String {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => format!("`{}(..)`", path_segments(&p.path).join("::")),
            _ => "the response".into(),
        },
        Expr::Struct(s) => format!("`{} {{ .. }}`", path_segments(&s.path).join("::")),
        Expr::Macro(m) => format!("`{}!({{ .. }})`", macro_name(&m.mac)),
        Expr::MethodCall(m) => format!("`.{}(..)`", m.method),
        _ => "the response".into(),
    }
}

/// How a call expression reads in a message: `self.send_error(..)`, `transport::send(..)`.
fn describe_call(receiver: Option<&Expr>, name: &str) -> String {
    match receiver {
        Some(receiver) => {
            let text = quote::ToTokens::to_token_stream(receiver).to_string();
            let text: String = text.split_whitespace().collect::<Vec<_>>().join("");
            if text.len() <= 40 {
                format!("`{text}.{name}(..)`")
            } else {
                format!("`.{name}(..)`")
            }
        }
        None => format!("`{name}(..)`"),
    }
}

/// `"notifications/cancelled"` or a constant that may hold it.
fn cancel_method_operand(vocabulary: &vocab::Vocabulary, expr: &Expr) -> Option<OriginCondition> {
    if str_literal(expr).is_some_and(|s| vocabulary.is_cancel_method(&s)) {
        return Some(OriginCondition::Always);
    }
    match expr {
        Expr::Path(p) => const_condition(&path_segments(&p.path)),
        Expr::Reference(r) => cancel_method_operand(vocabulary, &r.expr),
        Expr::MethodCall(m) if m.args.is_empty() => cancel_method_operand(vocabulary, &m.receiver),
        _ => None,
    }
}

fn const_condition(segments: &[String]) -> Option<OriginCondition> {
    let last = segments.last()?;
    let is_const_like = last.chars().any(|c| c.is_ascii_uppercase())
        && !last.chars().any(|c| c.is_ascii_lowercase());
    is_const_like.then(|| OriginCondition::ConstNamed(last.clone()))
}

/// Whether a pattern selects the cancellation notification: its method string, a constant, or an
/// enum variant such as `ClientNotification::CancelledNotification(..)`.
fn pattern_cancel_condition(v: &vocab::Vocabulary, pat: &Pat) -> Option<OriginCondition> {
    match pat {
        Pat::Lit(lit) => str_literal(&Expr::Lit(lit.clone()))
            .is_some_and(|s| v.is_cancel_method(&s))
            .then_some(OriginCondition::Always),
        Pat::Ident(ident) if ident.subpat.is_none() => const_condition(&[ident.ident.to_string()]),
        Pat::Ident(ident) => ident
            .subpat
            .as_ref()
            .and_then(|(_, sub)| pattern_cancel_condition(v, sub)),
        Pat::Path(p) => {
            let segments = path_segments(&p.path);
            if v.is_cancel_notification_path(&segments) {
                Some(OriginCondition::Always)
            } else if segments.len() >= 2 {
                const_condition(&segments)
            } else {
                None
            }
        }
        Pat::TupleStruct(ts) => {
            if v.is_cancel_notification_path(&path_segments(&ts.path)) {
                Some(OriginCondition::Always)
            } else {
                ts.elems.iter().find_map(|p| pattern_cancel_condition(v, p))
            }
        }
        Pat::Struct(s) => {
            if v.is_cancel_notification_path(&path_segments(&s.path)) {
                Some(OriginCondition::Always)
            } else {
                s.fields
                    .iter()
                    .find_map(|f| pattern_cancel_condition(v, &f.pat))
            }
        }
        Pat::Or(or) => or.cases.iter().find_map(|p| pattern_cancel_condition(v, p)),
        Pat::Paren(p) => pattern_cancel_condition(v, &p.pat),
        Pat::Reference(r) => pattern_cancel_condition(v, &r.pat),
        Pat::Tuple(t) => t.elems.iter().find_map(|p| pattern_cancel_condition(v, p)),
        _ => None,
    }
}

fn is_ok_pattern(pat: &Pat) -> bool {
    matches!(pat, Pat::TupleStruct(ts) if ts.path.is_ident("Ok") || ts.path.is_ident("Some"))
}

/// `x.try_into::<CancelledNotification>()`, `CancelledNotification::try_from(x)`,
/// `serde_json::from_value::<CancelledNotification>(..)`.
fn converts_to_cancel_notification(expr: &Expr) -> bool {
    let idents = expr_idents(expr);
    idents
        .iter()
        .any(|i| i == "CancelledNotification" || i == "CancelledNotificationParam")
        && idents
            .iter()
            .any(|i| i.starts_with("try_") || i.starts_with("from_") || i == "parse")
}

fn tokens_mention_cancel(v: &vocab::Vocabulary, tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Literal(lit) => {
            v.is_cancel_method(lit.to_string().trim_matches('"'))
        }
        proc_macro2::TokenTree::Ident(ident) => {
            let text = ident.to_string();
            text == "CancelledNotification" || vocab::is_cancel_const_name(&text)
        }
        proc_macro2::TokenTree::Group(g) => tokens_mention_cancel(v, &g.stream()),
        proc_macro2::TokenTree::Punct(_) => false,
    })
}

impl<'ast> Visit<'ast> for FactsBuilder<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        let saved = std::mem::take(&mut self.impls);
        let span = self.span(item);
        self.with_function(span, &item.sig, None, None, &item.block);
        self.impls = saved;
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        let (self_ty, trait_name) = self.impls.last().cloned().unwrap_or((None, None));
        let span = self.span(item);
        self.with_function(span, &item.sig, self_ty, trait_name, &item.block);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            let trait_name = self.impls.last().and_then(|(_, t)| t.clone());
            let span = self.span(item);
            self.with_function(span, &item.sig, None, trait_name, block);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let self_ty = match &*item.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let trait_name = item
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last().map(|s| s.ident.to_string()));
        let span = self.span(item);
        self.facts.items.push(span);
        self.impls.push((self_ty, trait_name));
        for impl_item in &item.items {
            self.visit_impl_item(impl_item);
        }
        self.impls.pop();
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        let span = self.span(item);
        self.facts.items.push(span);
        self.impls.push((None, Some(item.ident.to_string())));
        for trait_item in &item.items {
            self.visit_trait_item(trait_item);
        }
        self.impls.pop();
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        let path_attr = path_attribute(&item.attrs);
        let span = self.span(item);
        self.facts.items.push(span);
        match &item.content {
            Some((_, items)) => {
                self.module.push(name.clone());
                self.inline_modules.push(InlineModule { name, path_attr });
                for nested in items {
                    self.visit_item(nested);
                }
                self.inline_modules.pop();
                self.module.pop();
            }
            None if self.functions.is_empty() => self.facts.mod_decls.push(ModDecl {
                name,
                path_attr,
                inline: self.inline_modules.clone(),
            }),
            None => {}
        }
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_impl_item_const(&mut self, item: &'ast syn::ImplItemConst) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        if let Some(value) = str_literal(&item.expr) {
            self.facts
                .string_consts
                .push((item.ident.to_string(), value));
        }
    }

    fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
        // `macro_rules!` definitions hold patterns, not code; other item macros are not read.
        let _ = item;
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.visit_stmts(&block.stmts);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let Some(init) = &local.init else {
            return;
        };
        let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
        self.visit_expr(&init.expr);
        let flows = self
            .current()
            .map(|f| {
                f.pending_flows
                    .split_off(pending.min(f.pending_flows.len()))
            })
            .unwrap_or_default();
        self.bind(&local.pat, Some(&init.expr), flows);
        if let Some((_, diverge)) = &init.diverge {
            self.visit_expr(diverge);
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        let span = self.span(&stmt.mac);
        self.visit_macro_call(&stmt.mac, span);
    }

    fn visit_expr_macro(&mut self, expr: &'ast syn::ExprMacro) {
        let span = self.span(expr);
        self.visit_macro_call(&expr.mac, span);
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        let pending = self.functions.last().map_or(0, |f| f.pending_flows.len());
        self.visit_expr(&assign.right);
        let flows = self
            .current()
            .map(|f| {
                f.pending_flows
                    .split_off(pending.min(f.pending_flows.len()))
            })
            .unwrap_or_default();
        if let Expr::Path(p) = &*assign.left {
            if let Some(ident) = p.path.get_ident() {
                let response = self.is_response_valued(&assign.right);
                let further = self.is_further_message(&assign.right);
                let mut carried = self.flows_of(&assign.right);
                carried.extend(flows);
                if !self.origins.is_empty() {
                    carried.extend(self.cancel_value(&assign.right));
                }
                let name = ident.to_string();
                if let Some(state) = self.current() {
                    let entry = state.locals.entry(name).or_default();
                    entry.response |= response;
                    entry.further |= further;
                    for flow in carried {
                        if !entry.flows.contains(&flow) {
                            entry.flows.push(flow);
                        }
                    }
                }
                return;
            }
        }
        self.visit_expr(&assign.left);
    }

    fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
        self.visit_expr(&expr.cond);
        if let Expr::Let(l) = &*expr.cond {
            self.bind(&l.pat, Some(&l.expr), Vec::new());
        }
        match self.classify_condition(&expr.cond) {
            Condition::Cancelled(kind, span, label, condition) => {
                let origin = self.add_origin(kind, span, label, condition);
                self.visit_with_origin(origin, |this| {
                    this.visit_block(&expr.then_branch);
                    let value = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: expr.then_branch.clone(),
                    });
                    this.note_flowing_values(&value);
                });
                if let Some((_, else_branch)) = &expr.else_branch {
                    self.visit_expr(else_branch);
                }
            }
            Condition::NotCancelled(span) => {
                self.visit_guarded(|this| this.visit_block(&expr.then_branch));
                if let Some((_, else_branch)) = &expr.else_branch {
                    let origin = self.add_origin(
                        OriginKind::IfCancelled,
                        span,
                        "cancel path: this `else` branch runs when the request has been cancelled"
                            .into(),
                        OriginCondition::Always,
                    );
                    self.visit_with_origin(origin, |this| this.visit_expr(else_branch));
                }
            }
            Condition::Plain => {
                self.visit_block(&expr.then_branch);
                if let Some((_, else_branch)) = &expr.else_branch {
                    self.visit_expr(else_branch);
                }
            }
        }
    }

    fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
        self.visit_expr(&expr.expr);
        let converts = converts_to_cancel_notification(&expr.expr);
        for arm in &expr.arms {
            let mut condition = pattern_cancel_condition(self.vocab, &arm.pat);
            if condition.is_none() && converts && is_ok_pattern(&arm.pat) {
                condition = Some(OriginCondition::Always);
            }
            if condition.is_none() {
                if let Some((_, guard)) = &arm.guard {
                    if let Condition::Cancelled(_, _, _, c) = self.classify_condition(guard) {
                        condition = Some(c);
                    }
                }
            }
            self.bind(&arm.pat, Some(&expr.expr), Vec::new());
            match condition {
                Some(condition) => {
                    let origin = self.add_origin(
                        OriginKind::DispatchArm,
                        self.span(&arm.pat),
                        "cancel path: this arm handles the cancellation notification".into(),
                        condition,
                    );
                    self.visit_with_origin(origin, |this| {
                        if let Some((_, guard)) = &arm.guard {
                            this.visit_expr(guard);
                        }
                        this.visit_arm_body(&arm.body);
                    });
                }
                None => {
                    if let Some((_, guard)) = &arm.guard {
                        self.visit_expr(guard);
                    }
                    self.visit_arm_body(&arm.body);
                }
            }
        }
    }

    fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
        self.visit_expr(&expr.expr);
        self.bind(&expr.pat, Some(&expr.expr), Vec::new());
        self.visit_block(&expr.body);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        let span = self.span(call);
        let args: Vec<&Expr> = call.args.iter().collect();
        let what = describe_call(Some(&call.receiver), &name);
        let pure = is_pure(&call.receiver) && call.args.iter().all(is_pure);
        self.check_send_call(&name, span, &args, what, pure);
        if !is_send_name(self.vocab, &name) {
            let on_self = matches!(peel(&call.receiver), Expr::Path(p) if p.path.is_ident("self"));
            self.record_call(span, Callee::Method { name, on_self });
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(func) = &*call.func {
            let segments = path_segments(&func.path);
            if let Some(name) = segments.last().cloned() {
                let span = self.span(call);
                let args: Vec<&Expr> = call.args.iter().collect();
                let what = format!("`{}(..)`", segments.join("::"));
                let pure = call.args.iter().all(is_pure);
                let sink_path = self.vocab.is_sink_path(&segments);
                if sink_path {
                    self.record_sink(span, SinkKind::Response, what.clone(), pure);
                } else {
                    self.check_send_call(&name, span, &args, what, pure);
                }
                if !sink_path && !is_send_name(self.vocab, &name) {
                    self.record_call(span, Callee::Path(segments));
                }
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        for input in &closure.inputs {
            self.bind(input, None, Vec::new());
        }
        self.visit_expr(&closure.body);
    }

    fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
        self.visit_expr(&expr.cond);
        if let Expr::Let(l) = &*expr.cond {
            self.bind(&l.pat, Some(&l.expr), Vec::new());
        }
        match self.classify_condition(&expr.cond) {
            Condition::NotCancelled(_) => self.visit_guarded(|this| this.visit_block(&expr.body)),
            _ => self.visit_block(&expr.body),
        }
    }
}
