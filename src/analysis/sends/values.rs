//! The questions the send analysis asks of values and conditions, and how it records what it
//! finds.

use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Expr, Macro, Pat, Stmt};

use super::marks::Place;
use super::shapes::{
    channel_base, collection_name, constructed_type, describe_construct, describe_value,
    is_nothing_to_send, is_ok_pattern, is_response_construct, Condition, REGISTRY_REMOVE,
    REGISTRY_TOUCH,
};
use super::{FlowValue, LocalInfo, Sends};
use crate::analysis::facts::{
    CallSite, Callee, OriginCondition, OriginId, OriginKind, PathOrigin, ReceiverType,
    RegistryContext, RegistryRemoval, Removal, ReturnSite, SinkKind, SinkSite, WrittenCall,
};
use crate::analysis::syntax::{
    format_captures, json_shape, macro_name, parse_macro_body, path_segments, pattern_bindings,
    peel, str_literal, strip_statement_wrappers, tail_values, type_name, value_idents, MacroBody,
};
use crate::analysis::vocabulary as vocab;
use crate::analysis::walk::macro_key;
use crate::source::ByteSpan;

impl Sends<'_> {
    pub(super) fn add_origin(
        &mut self,
        kind: OriginKind,
        span: ByteSpan,
        label: String,
        condition: OriginCondition,
    ) -> OriginId {
        self.facts.origins.push(PathOrigin {
            kind,
            span,
            label,
            condition,
        });
        self.facts.origins.len() - 1
    }

    /// How the send or call at `span` could be removed. Of several ways (a statement of a
    /// local macro's expansion takes the invocation's span, as the statement around the
    /// invocation does), the widest: the statement the code shows, with its `;`.
    pub(super) fn removal_of(&self, span: ByteSpan) -> Option<Removal> {
        let width = |removal: &Removal| match removal {
            Removal::Statement(s) | Removal::Value { span: s, .. } => s.end - s.start,
        };
        self.removable
            .iter()
            .rev()
            .filter(|(core, _)| *core == span)
            .map(|(_, removal)| *removal)
            .fold(None, |best: Option<Removal>, r| match best {
                Some(b) if width(&b) >= width(&r) => Some(b),
                _ => Some(r),
            })
    }

    /// The registry context of a send or call at `span`: guarded too when it lies in a
    /// `select!` branch's future raced against the request's cancellation.
    fn registry_context_at(&self, span: ByteSpan) -> RegistryContext {
        let mut context = self.registry_context();
        let raced = self.raced_futures.iter().flatten();
        if raced
            .into_iter()
            .any(|f| f.start <= span.start && span.end <= f.end)
        {
            context.guarded = true;
        }
        context
    }

    pub(super) fn registry_context(&self) -> RegistryContext {
        let mut touched: Vec<String> = Vec::new();
        for block in &self.block_registries {
            for name in block {
                if !touched.contains(name) {
                    touched.push(name.clone());
                }
            }
        }
        RegistryContext {
            touched,
            guarded_by: self.registry_guards.clone(),
            guarded: self.guard_depth > 0,
            in_spawn: self.spawn_depth > 0,
        }
    }

    /// The collection an expression names, through aliases: `guard` (bound from
    /// `in_flight.lock()?`) gives `in_flight`.
    pub(super) fn resolved_collection(&self, expr: &Expr) -> Option<String> {
        let mut name = collection_name(expr)?;
        if let Some(state) = self.functions.last() {
            for _ in 0..8 {
                match state.aliases.get(&name) {
                    Some(target) if *target != name => name = target.clone(),
                    _ => break,
                }
            }
        }
        Some(name)
    }

    /// The channel a receiver expression names, through aliases: `sink` (bound from
    /// `sink_proxy_tx.clone()`) gives `sink_proxy`.
    pub(super) fn channel_of(&self, receiver: &Expr) -> Option<String> {
        let name = self.resolved_collection(receiver)?;
        channel_base(&name, &["_tx", "_sender", "tx", "sender"])
    }

    pub(super) fn record_sink(&mut self, span: ByteSpan, kind: SinkKind, what: String, pure: bool) {
        // In a macro's expansion, removing the send removes the whole invocation, and the send
        // reads as the invocation the code shows (the outermost one at the send's span).
        let invocation = self
            .macros
            .iter()
            .find(|(_, site, _)| *site == span)
            .filter(|_| self.in_expansion);
        let pure = pure && invocation.is_none();
        let what = match invocation {
            Some((_, _, name)) => format!("`{name}!(..)`"),
            None => what,
        };
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        let registry = self.registry_context_at(span);
        let channel = self.sink_channel.take();
        let condition = std::mem::take(&mut self.sink_condition);
        let through = self.sink_through.take();
        let named = self.sink_named.take();
        if let Some(state) = self.current() {
            state.facts.sinks.push(SinkSite {
                span,
                kind,
                what,
                origins,
                sent_at: None,
                removal,
                pure,
                registry,
                channel,
                if_returns_response: condition,
                through,
                named,
            });
        }
    }

    /// A call of something that may be a function of the crate (`what`: how it reads).
    pub(super) fn record_call(
        &mut self,
        span: ByteSpan,
        callee: Callee,
        args: &[&Expr],
        what: &dyn Fn() -> String,
    ) {
        let origins = self.origins.clone();
        let removal = self.removal_of(span);
        let registry = self.registry_context_at(span);
        let collections = args.iter().map(|a| self.resolved_collection(a)).collect();
        let mut arg_params: Vec<u64> = args.iter().map(|a| self.params_of(a)).collect();
        if arg_params.iter().all(|&m| m == 0) {
            arg_params.clear();
        }
        // A message handed to a function of the crate: a send if the function writes that
        // argument to the wire (worked out over the crate graph).
        let mut messages = [0u64; 2];
        for (position, arg) in args.iter().enumerate().take(64) {
            match self.message_kind(arg) {
                Some(SinkKind::Response) => messages[0] |= 1 << position,
                Some(SinkKind::FurtherMessage) => messages[1] |= 1 << position,
                None => {}
            }
        }
        for (kind, mask) in [SinkKind::Response, SinkKind::FurtherMessage]
            .into_iter()
            .zip(messages)
            .filter(|(_, mask)| *mask != 0)
        {
            self.sink_through = Some((callee.clone(), mask));
            // Removing the call removes whatever else the callee does: never a safe fix.
            self.record_sink(span, kind, what(), false);
        }
        // `put(&tx, error_reply(id))`, `put(&tx, reply)` with `reply` bound from a call: a
        // response send if the function writes that argument to the wire and a called function
        // returns a response (both worked out over the crate graph).
        if messages[0] == 0 {
            let mut mask = 0u64;
            let mut calls: Vec<Callee> = Vec::new();
            for (position, arg) in args.iter().enumerate().take(64) {
                let from = self.shallow_value_calls(arg);
                if !from.is_empty() {
                    mask |= 1 << position;
                    calls.extend(from);
                }
            }
            if mask != 0 {
                self.sink_through = Some((callee.clone(), mask));
                self.sink_condition = calls;
                self.record_sink(span, SinkKind::Response, what(), false);
                self.sink_condition.clear();
            }
        }
        if let Some(state) = self.current() {
            state.facts.calls.push(CallSite {
                span,
                callee,
                origins,
                removal,
                registry,
                args: collections,
                arg_params,
            });
        }
    }

    /// Note how the send or call that `expr` carries could be removed.
    pub(super) fn note_removable(&mut self, expr: &Expr, removal: Removal) {
        let core = self.span(strip_statement_wrappers(expr));
        self.removable.push((core, removal));
    }

    /// Record the sends of response values built on a cancel path that `args` carry.
    pub(super) fn record_flows(&mut self, args: &[&Expr], send_span: ByteSpan) {
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
                    registry: RegistryContext::default(),
                    channel: None,
                    if_returns_response: Vec::new(),
                    through: None,
                    named: None,
                };
                if !state.facts.sinks.contains(&site) {
                    state.facts.sinks.push(site);
                }
            }
        }
    }

    /// The function's parameters (a mask of their positions) whose value an expression holds
    /// or was derived from, through the locals it names.
    pub(super) fn params_of(&self, expr: &Expr) -> u64 {
        self.carried(expr, &|local| local.params)
    }

    /// What the value of `expr` is, through conversions that keep it the same message
    /// (`&x`, `x.clone()`, `x.to_string()`, `serde_json::to_string(&x)?`, `format!("{x}\n")`,
    /// `s.as_bytes()`), of the locals it names: `of` of the local it converts, or nothing
    /// for a value built anew (a message that merely holds `x` is another message).
    fn carried(&self, expr: &Expr, of: &dyn Fn(&LocalInfo) -> u64) -> u64 {
        const CONVERSIONS: &[&str] = &[
            "clone",
            "to_string",
            "to_owned",
            "into",
            "as_bytes",
            "as_str",
            "as_ref",
            "to_vec",
            "into_bytes",
            "unwrap",
            "expect",
            "unwrap_or_default",
            "borrow",
        ];
        match peel(expr) {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|ident| self.local(&ident.to_string()))
                .map_or(0, of),
            Expr::MethodCall(m) if CONVERSIONS.contains(&m.method.to_string().as_str()) => {
                self.carried(&m.receiver, of)
            }
            // `serde_json::to_string(&x)`, `String::from(x)`, `Bytes::from(x)`.
            Expr::Call(c) if c.args.len() == 1 => match &*c.func {
                Expr::Path(f)
                    if f.path.segments.last().is_some_and(|s| {
                        matches!(
                            s.ident.to_string().as_str(),
                            "to_string" | "to_vec" | "to_value" | "from" | "to_string_pretty"
                        )
                    }) =>
                {
                    c.args.first().map_or(0, |a| self.carried(a, of))
                }
                _ => 0,
            },
            // `format!("{}\n", x)`, `format!("{x}\n")`: the text is the value's, plus framing.
            Expr::Macro(m) if macro_name(&m.mac) == "format" => {
                let Ok(args) = m.mac.parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                ) else {
                    return 0;
                };
                let mut values: Vec<Expr> = args.iter().skip(1).cloned().collect();
                if let Some(format) = args.first().and_then(str_literal) {
                    values.extend(
                        format_captures(&format)
                            .into_iter()
                            .filter_map(|ident| syn::parse_str::<Expr>(&ident).ok()),
                    );
                }
                match values.as_slice() {
                    [only] => self.carried(only, of),
                    _ => 0,
                }
            }
            _ => 0,
        }
    }

    /// A write to the wire takes `payload`: the parameters it carries (the function's, and
    /// the innermost closure's) are written.
    pub(super) fn note_written_params(&mut self, payload: &[&Expr]) {
        let mask = payload.iter().fold(0, |m, a| m | self.params_of(a));
        let closure_mask = payload
            .iter()
            .fold(0, |m, a| m | self.carried(a, &|local| local.closure_params));
        if let Some(state) = self.current() {
            state.facts.writes_params |= mask;
            if let Some(frame) = state.closure_frames.last_mut() {
                frame.written |= closure_mask;
            }
        }
    }

    /// What message an argument is, looked at without going down into it (every call's
    /// arguments are asked, so a deep nest of calls must not cost more than its size): a
    /// response or further message built right there (`json!({..})`, `Response::error(..)`,
    /// a struct literal), a local holding one, or a conversion or reference of those.
    fn message_kind(&self, arg: &Expr) -> Option<SinkKind> {
        let arg = peel(arg);
        let local = match arg {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.local(&i.to_string())),
            _ => None,
        };
        match arg {
            Expr::Path(_) => local.and_then(|l| {
                if l.response {
                    Some(SinkKind::Response)
                } else if l.further {
                    Some(SinkKind::FurtherMessage)
                } else {
                    None
                }
            }),
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "to_string" | "to_owned" | "as_ref" | "to_vec"
                    ) =>
            {
                self.message_kind(&m.receiver)
            }
            Expr::Macro(m) => match json_shape(&m.mac) {
                Some(shape) if shape.is_response() => Some(SinkKind::Response),
                Some(shape)
                    if shape
                        .method
                        .as_deref()
                        .is_some_and(|m| vocab::FURTHER_MESSAGE_METHODS.contains(&m)) =>
                {
                    Some(SinkKind::FurtherMessage)
                }
                _ => None,
            },
            Expr::Call(_) | Expr::Struct(_) if is_response_construct(arg) => {
                Some(SinkKind::Response)
            }
            // `serde_json::to_string(&reply)`: the text of the message it converts.
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(f) if f.path.segments.last().is_some_and(|s| {
                        matches!(
                            s.ident.to_string().as_str(),
                            "to_string" | "to_vec" | "to_value" | "to_string_pretty"
                        )
                    })) =>
            {
                c.args.first().and_then(|a| self.message_kind(a))
            }
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if is_further_path(&p.path) => Some(SinkKind::FurtherMessage),
                _ => None,
            },
            Expr::Struct(st) if is_further_path(&st.path) => Some(SinkKind::FurtherMessage),
            _ => None,
        }
    }

    /// A write to the wire takes `payload`: the calls whose value it carries (directly, or
    /// through locals bound from them) have their value written.
    pub(super) fn note_written_calls(&mut self, payload: &[&Expr], span: ByteSpan) {
        let calls: Vec<Callee> = payload.iter().flat_map(|a| self.value_calls(a)).collect();
        let written: Vec<WrittenCall> = calls
            .into_iter()
            .map(|callee| {
                // A test of the value itself that leaves first (`if resp.is_skip() { continue;
                // }`) may stop the write for the value in question: not shown to run for it.
                let guarded = self.branch_tests.iter().any(|t| !t.contains(&callee))
                    || self.exit_tests.iter().any(|(_, t)| t.contains(&callee));
                WrittenCall {
                    callee,
                    span,
                    guarded,
                }
            })
            .collect();
        if let Some(state) = self.current() {
            for entry in written {
                if !state.facts.written_calls.contains(&entry) {
                    state.facts.written_calls.push(entry);
                }
            }
        }
    }

    /// `name(args)` where `name` is a local: when it holds a closure that sends a response, or
    /// writes to the wire an argument that is one, the call is a send (the closure's body runs
    /// here, on whatever path the call lies on).
    pub(super) fn check_closure_call(&mut self, name: &str, span: ByteSpan, args: &[&Expr]) {
        let Some(summary) = self
            .functions
            .last()
            .and_then(|f| f.closures.get(name).copied())
        else {
            return;
        };
        let mut response = summary.sends;
        let mut further = false;
        for (position, arg) in args.iter().enumerate().take(64) {
            if summary.written & (1 << position) != 0 {
                response |= self.is_response_valued(arg);
                further |= self.is_further_message(arg);
            }
        }
        let what = format!("`{name}(..)`");
        if response {
            self.record_sink(span, SinkKind::Response, what, false);
        } else if further {
            self.record_sink(span, SinkKind::FurtherMessage, what, false);
        }
    }

    pub(super) fn local(&self, name: &str) -> Option<&LocalInfo> {
        self.functions.last().and_then(|f| f.locals.get(name))
    }

    /// Whether an expression is, builds, or was derived from a JSON-RPC response message.
    pub(super) fn is_response_valued(&self, expr: &Expr) -> bool {
        struct Finder<'b, 'v> {
            builder: &'b Sends<'v>,
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
                        MacroBody::Exprs(exprs) => {
                            // `format!("{reply}\n")`: identifiers captured in the format string.
                            let captured = exprs
                                .first()
                                .and_then(str_literal)
                                .map(|format| format_captures(&format))
                                .unwrap_or_default();
                            if captured
                                .iter()
                                .any(|ident| self.builder.local(ident).is_some_and(|l| l.response))
                            {
                                self.found = true;
                                return;
                            }
                            exprs.iter().for_each(|e| self.visit_expr(e))
                        }
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
    pub(super) fn is_further_message(&self, expr: &Expr) -> bool {
        struct Finder {
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder {
            fn visit_path(&mut self, path: &'ast syn::Path) {
                if is_further_path(path) {
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
    pub(super) fn flows_of(&self, expr: &Expr) -> Vec<FlowValue> {
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

    /// Whether a value bound is a request token's `cancelled()` future; and, for `let (tx, rx)
    /// = oneshot::channel();`, that `rx` is a one-shot channel's receiver.
    fn note_futures(&mut self, pat: &Pat, from: Option<&Expr>) -> bool {
        let cancelled_future = from.is_some_and(|e| self.is_condition_future(e));
        if let (Pat::Ident(local), Some(call @ (Expr::Call(_) | Expr::MethodCall(_)))) =
            (pat, from.map(peel))
        {
            let entry = (local.ident.to_string(), self.span(call));
            if let Some(state) = self.current() {
                state.call_futures.push(entry);
            }
        }
        let (Pat::Tuple(tuple), Some(Expr::Call(call))) = (pat, from.map(peel)) else {
            return cancelled_future;
        };
        let oneshot = matches!(&*call.func, Expr::Path(p) if {
            let segments = path_segments(&p.path);
            segments.len() >= 2
                && segments[segments.len() - 1] == "channel"
                && segments[segments.len() - 2] == "oneshot"
        });
        if let (true, Some(Pat::Ident(receiver))) = (oneshot, tuple.elems.iter().nth(1)) {
            if let Some(state) = self.current() {
                state.signal_receivers.push(receiver.ident.to_string());
            }
        }
        cancelled_future
    }

    /// Bind the identifiers of a pattern to what the value they come from carries.
    pub(super) fn bind(&mut self, pat: &Pat, from: Option<&Expr>, extra_flows: Vec<FlowValue>) {
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
            flows.extend(self.path_value(expr));
        }
        let params = from.map_or(0, |e| self.params_of(e));
        let cancelled_future = self.note_futures(pat, from);
        let alias = match (pat, from.map(peel)) {
            (Pat::Ident(_), Some(value @ (Expr::Path(_) | Expr::Field(_)))) => {
                collection_name(value)
            }
            // `let mut guard = in_flight.lock().expect(..)`: the guard is the collection.
            (Pat::Ident(_), Some(value @ Expr::MethodCall(m)))
                if matches!(
                    m.method.to_string().as_str(),
                    "lock" | "write" | "borrow_mut" | "expect" | "unwrap"
                ) =>
            {
                collection_name(value)
            }
            _ => None,
        };
        let bindings = pattern_bindings(pat);
        if let (Some(alias), [name]) = (alias, bindings.as_slice()) {
            if let Some(state) = self.functions.last_mut() {
                state.aliases.insert(name.clone(), alias);
            }
        }
        let evident_type = match pat {
            Pat::Type(typed) => type_name(&typed.ty).map(ReceiverType::Named),
            _ => from.and_then(|e| {
                constructed_type(e)
                    .map(ReceiverType::Named)
                    .or_else(|| self.carried_type(e))
            }),
        };
        let built = from.map(|e| self.value_calls(e)).unwrap_or_default();
        let closure = match from.map(peel) {
            Some(closure @ Expr::Closure(_)) => {
                let span = self.span(closure);
                self.functions
                    .last()
                    .and_then(|f| f.last_closure)
                    .filter(|(s, _)| *s == span)
                    .map(|(_, summary)| summary)
            }
            _ => None,
        };
        if let [name] = bindings.as_slice() {
            if let Some(state) = self.functions.last_mut() {
                match evident_type {
                    Some(ty) => {
                        state.local_types.insert(name.clone(), ty);
                    }
                    None => {
                        state.local_types.remove(name);
                    }
                }
                if built.is_empty() {
                    state.built_from.remove(name);
                } else {
                    state.built_from.insert(name.clone(), built);
                }
                match closure {
                    Some(summary) => {
                        state.closures.insert(name.clone(), summary);
                    }
                    None => {
                        state.closures.remove(name);
                    }
                }
            }
        }
        if let Some(state) = self.current() {
            for name in bindings {
                if cancelled_future {
                    state.condition_futures.push(name.clone());
                }
                state.locals.insert(
                    name,
                    LocalInfo {
                        response,
                        further,
                        flows: flows.clone(),
                        cancel_values: Vec::new(),
                        params,
                        closure_params: 0,
                    },
                );
            }
        }
    }

    /// `token.cancelled()` / `token.cancelled_owned()` on a per-request token (not a shutdown
    /// token), possibly wrapped (`Box::pin(..)`, `.fuse()`, `&mut fut`), or a local holding one.
    pub(super) fn is_condition_future(&self, expr: &Expr) -> bool {
        match expr {
            Expr::MethodCall(m) if self.marks.is_future_method(&m.method.to_string()) => {
                self.marks.concerns(&m.receiver)
            }
            Expr::MethodCall(m) if m.args.is_empty() => self.is_condition_future(&m.receiver),
            Expr::Call(c) if c.args.len() == 1 => {
                c.args.first().is_some_and(|a| self.is_condition_future(a))
            }
            Expr::Reference(r) => self.is_condition_future(&r.expr),
            Expr::Paren(p) => self.is_condition_future(&p.expr),
            Expr::Group(g) => self.is_condition_future(&g.expr),
            // `async { token.cancelled().await }`: the block finishes only after a statement of
            // its own awaits the condition (one not inside a branch, and none returns before).
            Expr::Async(a) => {
                let stmts = &a.block.stmts;
                let returns_early = mentions_return(a.block.to_token_stream());
                !returns_early
                    && stmts.iter().any(|stmt| match stmt {
                        Stmt::Expr(e, _) => self.is_condition_await(e),
                        Stmt::Local(l) => l.init.as_ref().is_some_and(|i| {
                            i.diverge.is_none() && self.is_condition_await(&i.expr)
                        }),
                        _ => false,
                    })
            }
            Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.functions
                    .last()
                    .is_some_and(|f| f.condition_futures.contains(&name))
            }),
            _ => false,
        }
    }

    /// A local bound to a one-shot channel's receiver (`cancel_rx`, `&mut cancel_rx`).
    pub(super) fn is_signal_receiver(&self, expr: &Expr) -> bool {
        match peel(expr) {
            Expr::Reference(r) => self.is_signal_receiver(&r.expr),
            Expr::Path(p) => p.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.functions
                    .last()
                    .is_some_and(|f| f.signal_receivers.contains(&name))
            }),
            _ => false,
        }
    }

    /// `token.cancelled().await`: the code after it runs because of the cancellation.
    pub(super) fn is_condition_await(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Await(a) => self.is_condition_future(&a.base),
            Expr::Paren(p) => self.is_condition_await(&p.expr),
            _ => false,
        }
    }

    /// How an `if` condition relates to cancellation.
    pub(super) fn classify_condition(&self, cond: &Expr) -> Condition {
        match cond {
            Expr::Paren(p) => self.classify_condition(&p.expr),
            Expr::Group(g) => self.classify_condition(&g.expr),
            Expr::MethodCall(m)
                if self.marks.is_test_method(&m.method.to_string())
                    && self.marks.concerns(&m.receiver) =>
            {
                Condition::Holds(
                    OriginKind::IfTest,
                    self.span(cond),
                    self.marks.label(Place::Then),
                    OriginCondition::Always,
                )
            }
            // `if flag.load(Ordering::Acquire)`: a flag the marked paths may set.
            Expr::MethodCall(m)
                if m.method == "load" && m.args.len() == 1 && is_ordering(&m.args[0]) =>
            {
                Condition::Holds(
                    OriginKind::IfTest,
                    self.span(cond),
                    self.marks.label(Place::FlagTest),
                    OriginCondition::FlagSet,
                )
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                match self.classify_condition(&u.expr) {
                    Condition::Holds(OriginKind::IfTest, _, _, condition) => {
                        Condition::Negated(self.span(cond), condition)
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
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => self.method_test(
                cond,
                self.marks
                    .operand(&b.left)
                    .or_else(|| self.marks.operand(&b.right)),
            ),
            Expr::MethodCall(m) if m.method == "eq" && m.args.len() == 1 => {
                self.method_test(cond, m.args.first().and_then(|a| self.marks.operand(a)))
            }
            // `matches!(value, pattern)`: its pattern read as a `match` arm's is (a variant of
            // the notification's type, the method's string, a constant); the tokens only when
            // the body is no value and pattern.
            Expr::Macro(m) if macro_name(&m.mac) == "matches" => {
                let condition = match matches_pattern(&m.mac) {
                    Some(pat) => self.marks.pattern(&pat),
                    None => (parse_macro_body(&m.mac.tokens).is_some()
                        && self.marks.tokens_name(&m.mac.tokens))
                    .then_some(OriginCondition::Always),
                };
                match condition {
                    Some(condition) => Condition::Holds(
                        OriginKind::DispatchArm,
                        self.span(cond),
                        self.marks.label(Place::MethodTest),
                        condition,
                    ),
                    None => Condition::Plain,
                }
            }
            Expr::Let(l) => match self.marks.pattern(&l.pat) {
                Some(condition) => Condition::Holds(
                    OriginKind::DispatchArm,
                    self.span(cond),
                    self.marks.label(Place::LetPattern),
                    condition,
                ),
                None if is_ok_pattern(&l.pat) && self.marks.converts(&l.expr) => Condition::Holds(
                    OriginKind::DispatchArm,
                    self.span(cond),
                    self.marks.label(Place::LetPattern),
                    OriginCondition::Always,
                ),
                None => Condition::Plain,
            },
            _ => Condition::Plain,
        }
    }

    /// A condition that compares the method with the cancellation's (`method ==
    /// "notifications/cancelled"`, `.eq(..)`): its branch handles the cancellation.
    fn method_test(&self, cond: &Expr, condition: Option<OriginCondition>) -> Condition {
        match condition {
            Some(condition) => Condition::Holds(
                OriginKind::DispatchArm,
                self.span(cond),
                self.marks.label(Place::MethodTest),
                condition,
            ),
            None => Condition::Plain,
        }
    }

    /// Whether a statement starts a cancel path for the statements after it.
    pub(super) fn starts_path(
        &self,
        stmt: &Stmt,
    ) -> Option<(OriginKind, ByteSpan, String, OriginCondition)> {
        match stmt {
            Stmt::Expr(expr, _) if self.is_condition_await(expr) => Some((
                OriginKind::AfterAwait,
                self.span(expr),
                self.marks.label(Place::AfterAwait),
                OriginCondition::Always,
            )),
            Stmt::Expr(Expr::While(w), _) => match self.classify_condition(&w.cond) {
                Condition::Negated(span, condition) => Some((
                    OriginKind::AfterLoop,
                    span,
                    self.marks.label(Place::AfterLoop),
                    condition,
                )),
                _ => None,
            },
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                if self.is_condition_await(&init.expr) {
                    return Some((
                        OriginKind::AfterAwait,
                        self.span(&init.expr),
                        self.marks.label(Place::AfterAwait),
                        OriginCondition::Always,
                    ));
                }
                init.diverge.as_ref()?;
                let cancels = self.marks.pattern(&local.pat).or_else(|| {
                    (is_ok_pattern(&local.pat) && self.marks.converts(&init.expr))
                        .then_some(OriginCondition::Always)
                })?;
                Some((
                    OriginKind::DispatchArm,
                    self.span(&local.pat),
                    self.marks.label(Place::LetElse),
                    cancels,
                ))
            }
            _ => None,
        }
    }

    /// `if token.is_cancelled() { return ..; }`: the code after it runs only for a request that
    /// was not cancelled.
    pub(super) fn is_early_exit(&self, stmt: &Stmt) -> bool {
        let Stmt::Expr(Expr::If(i), _) = stmt else {
            return false;
        };
        let cancelled = matches!(
            self.classify_condition(&i.cond),
            Condition::Holds(OriginKind::IfTest, ..)
        );
        let diverges = match i.then_branch.stmts.last() {
            Some(Stmt::Expr(e, _)) => {
                matches!(e, Expr::Return(_) | Expr::Continue(_) | Expr::Break(_))
            }
            _ => false,
        };
        cancelled && diverges
    }

    /// The calls whose value an expression is or carries through conversions, and the calls
    /// that locals it names were built from: `error_reply(id)`, `serde_json::to_string(&reply)`
    /// with `let reply = self.reply_for(id)`.
    /// The calls whose value an argument is, looked at without going down into it: a call's
    /// own callee (not its arguments'), or the calls a local was built from.
    fn shallow_value_calls(&self, expr: &Expr) -> Vec<Callee> {
        self.value_calls_at(expr, false)
    }

    pub(super) fn value_calls(&self, expr: &Expr) -> Vec<Callee> {
        self.value_calls_at(expr, true)
    }

    /// [`Self::value_calls`], or with `deep` false, [`Self::shallow_value_calls`].
    fn value_calls_at(&self, expr: &Expr, deep: bool) -> Vec<Callee> {
        let mut calls = Vec::new();
        let value = peel(expr);
        match value {
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    let segments = path_segments(&p.path);
                    if !segments
                        .iter()
                        .any(|s| s == "Some" || s == "Ok" || s == "Err")
                    {
                        calls.push(Callee::Path(segments));
                    }
                }
                if deep {
                    for arg in &c.args {
                        calls.extend(self.value_calls(arg));
                    }
                }
            }
            Expr::MethodCall(m) => {
                let on_self = matches!(peel(&m.receiver), Expr::Path(p) if p.path.is_ident("self"));
                calls.push(Callee::Method {
                    name: m.method.to_string(),
                    on_self,
                    receiver: self.receiver_type(&m.receiver),
                });
                if deep {
                    calls.extend(self.value_calls(&m.receiver));
                }
            }
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    if let Some(state) = self.functions.last() {
                        if let Some(built) = state.built_from.get(&ident.to_string()) {
                            calls.extend(built.iter().cloned());
                        }
                    }
                }
            }
            _ => {}
        }
        calls
    }

    /// The type a value of evident type keeps when it is bound again: the value itself, a clone
    /// of it (`self.reporter.clone()`), or a pointer or lock holding it (`Arc::clone(&x)`,
    /// `std::sync::Arc::new(x.clone())`, `Mutex::new(x)`): method calls reach it through them.
    fn carried_type(&self, value: &Expr) -> Option<ReceiverType> {
        match peel(value) {
            Expr::Call(c) if c.args.len() == 1 => match &*c.func {
                Expr::Path(p) => {
                    let segments = path_segments(&p.path);
                    let wrapper = segments.len() >= 2
                        && matches!(
                            segments[segments.len() - 2].as_str(),
                            "Arc" | "Rc" | "Box" | "Mutex" | "RwLock" | "RefCell"
                        )
                        && matches!(
                            segments[segments.len() - 1].as_str(),
                            "new" | "clone" | "from"
                        );
                    if wrapper {
                        c.args.first().and_then(|a| self.carried_type(a))
                    } else {
                        None
                    }
                }
                _ => None,
            },
            other => self.receiver_type(other),
        }
    }

    /// The type of a method call's receiver, when the code makes it evident.
    pub(super) fn receiver_type(&self, receiver: &Expr) -> Option<ReceiverType> {
        self.receiver_type_at(receiver, 0)
    }

    /// [`Self::receiver_type`], `depth` calls deep in a chain whose value is typed by what its
    /// calls return (a few calls at most: a longer chain is left untyped).
    fn receiver_type_at(&self, receiver: &Expr, depth: usize) -> Option<ReceiverType> {
        const DEEPEST: usize = 4;
        match peel(receiver) {
            Expr::Path(p) => {
                let ident = p.path.get_ident()?.to_string();
                if ident == "self" {
                    return None;
                }
                let f = self.functions.last()?;
                let found: Option<&ReceiverType> = f.local_types.get(&ident);
                found.cloned().or_else(|| unit_struct_value(&ident))
            }
            Expr::Field(f) => match (&*f.base, &f.member) {
                (Expr::Path(p), syn::Member::Named(field)) if p.path.is_ident("self") => {
                    Some(ReceiverType::SelfField(field.to_string()))
                }
                (base, syn::Member::Named(field)) if depth < DEEPEST => {
                    let base = self.receiver_type_at(base, depth + 1)?;
                    Some(ReceiverType::FieldOf(Box::new(base), field.to_string()))
                }
                _ => None,
            },
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "lock"
                            | "read"
                            | "write"
                            | "clone"
                            | "unwrap"
                            | "as_ref"
                            | "as_mut"
                            | "borrow"
                            | "borrow_mut"
                    ) =>
            {
                self.receiver_type_at(&m.receiver, depth)
            }
            Expr::MethodCall(m) if m.args.len() == 1 && m.method == "expect" => {
                self.receiver_type_at(&m.receiver, depth)
            }
            Expr::Await(a) => self.receiver_type_at(&a.base, depth),
            Expr::Try(t) => self.receiver_type_at(&t.expr, depth),
            // `Builder::new().root(p)`: what the method returns, as the graph resolves it.
            Expr::MethodCall(m) if depth < DEEPEST => {
                let on_self = matches!(peel(&m.receiver), Expr::Path(p) if p.path.is_ident("self"));
                Some(ReceiverType::Returned(Box::new(Callee::Method {
                    name: m.method.to_string(),
                    on_self,
                    receiver: self.receiver_type_at(&m.receiver, depth + 1),
                })))
            }
            // `Builder::new(true).build()`: the value a type's associated function makes, as
            // for a local bound from it; another function's value is what it returns.
            call @ (Expr::Call(_) | Expr::Struct(_)) => super::shapes::constructed_type(call)
                .map(ReceiverType::Named)
                .or_else(|| match call {
                    Expr::Call(c) if depth < DEEPEST => match &*c.func {
                        Expr::Path(p) => Some(ReceiverType::Returned(Box::new(Callee::Path(
                            path_segments(&p.path),
                        )))),
                        _ => None,
                    },
                    _ => None,
                }),
            // `match open(..).await { Ok(s) => s, Err(e) => return Err(e) }`: the scrutinee's
            // value, out of its `Ok` or `Some`.
            Expr::Match(m) if m.arms.iter().any(unwraps_its_binding) => {
                self.receiver_type_at(&m.expr, depth)
            }
            _ => None,
        }
    }

    /// A `select!` racing work against the request's token, whose cancel branch leaves nothing
    /// to send: the code after it runs only for a request that was not cancelled.
    pub(super) fn starts_select_guard(&self, stmt: &Stmt) -> bool {
        let mac = match stmt {
            Stmt::Local(local) => match local.init.as_ref().map(|i| &*i.expr) {
                Some(Expr::Macro(m)) => &m.mac,
                _ => return false,
            },
            Stmt::Macro(m) => &m.mac,
            Stmt::Expr(Expr::Macro(m), _) => &m.mac,
            _ => return false,
        };
        // The walk read the `select!` (its body is left just before its statement): whether
        // it guards was noted then.
        matches!(self.last_select_guard, Some((a, true)) if a == macro_key(mac))
    }

    /// Note that the current statement touches an in-flight registry.
    pub(super) fn touch_registry(&mut self, collection: String) {
        if let Some(state) = self.functions.last_mut() {
            if !state.facts.registries.contains(&collection) {
                state.facts.registries.push(collection.clone());
            }
        }
        if let Some(block) = self.block_registries.last_mut() {
            if !block.contains(&collection) {
                block.push(collection);
            }
        }
    }

    /// A response value built right here on a cancel path (for a local that receives it).
    pub(super) fn path_value(&self, expr: &Expr) -> Option<FlowValue> {
        let value = peel(expr);
        (is_response_construct(value) || self.is_response_valued(value)).then(|| FlowValue {
            span: self.span(value),
            what: describe_construct(value),
            origins: self.origins.clone(),
        })
    }

    /// Remember the response values that a cancel-path branch evaluates to, for the `let` that
    /// receives them.
    pub(super) fn note_flowing_values(&mut self, body: &Expr) {
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
        let returns: Vec<FlowValue> = tail_values(body)
            .into_iter()
            .filter(|value| !is_nothing_to_send(value))
            .map(|value| FlowValue {
                span: self.span(value),
                what: describe_value(value),
                origins: origins.clone(),
            })
            .collect();
        if let Some(state) = self.current() {
            state.pending_flows.extend(values);
            state.pending_returns.extend(returns);
        }
    }

    /// A value the function returns (its tail, or a `return`): record the cancel-path values it
    /// carries (from cancel branches inside it since `pending`, from locals it names, or itself
    /// when it is on a cancel path).
    pub(super) fn note_returned(&mut self, value: &Expr, pending: usize) {
        let returns_response = tail_values(value)
            .into_iter()
            .any(|v| self.is_response_valued(v));
        let returned_calls: Vec<Callee> = tail_values(value)
            .into_iter()
            .flat_map(|v| self.value_calls(v))
            .collect();
        if let Some(state) = self.current() {
            state.facts.returns_response |= returns_response;
            for call in returned_calls {
                if !state.facts.returns_calls.contains(&call) {
                    state.facts.returns_calls.push(call);
                }
            }
        }
        let mut returned: Vec<FlowValue> = self
            .functions
            .last()
            .map(|f| f.pending_returns[pending.min(f.pending_returns.len())..].to_vec())
            .unwrap_or_default();
        // The spans of the returned values that are responses built on the path.
        let mut responses: Vec<ByteSpan> = self
            .functions
            .last()
            .map(|f| f.pending_flows.iter().map(|v| v.span).collect())
            .unwrap_or_default();
        for ident in value_idents(value) {
            if let Some(local) = self.local(&ident) {
                returned.extend(local.cancel_values.iter().cloned());
                // A response built on the path and kept in a local returned later
                // (`reply = Some(error(..))` in the cancellation's branch, `reply` at the end).
                for flow in &local.flows {
                    responses.push(flow.span);
                    if !returned.iter().any(|v| v.span == flow.span) {
                        returned.push(flow.clone());
                    }
                }
            }
        }
        if !self.origins.is_empty() {
            for tail in tail_values(value) {
                if !is_nothing_to_send(tail) {
                    let span = self.span(tail);
                    if self.is_response_valued(tail) {
                        responses.push(span);
                    }
                    returned.push(FlowValue {
                        span,
                        what: describe_value(tail),
                        origins: self.origins.clone(),
                    });
                }
            }
        }
        if let Some(state) = self.current() {
            for value in returned {
                let site = ReturnSite {
                    span: value.span,
                    what: value.what,
                    origins: value.origins,
                    response: responses.contains(&value.span),
                };
                if !state.facts.path_returns.contains(&site) {
                    state.facts.path_returns.push(site);
                }
            }
        }
    }

    /// `call(..)?` (or `call(..).await?`): the function returns the call's error.
    pub(super) fn note_propagated(&mut self, expr: &Expr) {
        let inner = peel(expr);
        if !matches!(inner, Expr::Call(_) | Expr::MethodCall(_)) {
            return;
        }
        let Some(call) = self.value_calls(inner).into_iter().next() else {
            return;
        };
        if let Some(state) = self.current() {
            if !state.facts.propagates_calls.contains(&call) {
                state.facts.propagates_calls.push(call);
            }
        }
    }

    pub(super) fn check_send_call(
        &mut self,
        name: &str,
        span: ByteSpan,
        args: &[&Expr],
        describe: &dyn Fn() -> (String, bool),
    ) {
        let transport = vocab::TRANSPORT_CALLS.contains(&name);
        if transport || self.vocab.is_sink_call(name) {
            self.note_written_params(args);
            self.note_written_calls(args, span);
        }
        let kind = if self.vocab.is_sink_call(name) {
            Some(SinkKind::Response)
        } else if vocab::FURTHER_MESSAGE_CALLS.contains(&name) {
            Some(SinkKind::FurtherMessage)
        } else if !transport {
            None
        } else if args.iter().any(|a| self.is_response_valued(a)) {
            Some(SinkKind::Response)
        } else if args.iter().any(|a| self.is_further_message(a)) {
            Some(SinkKind::FurtherMessage)
        } else {
            // `tx.send(error_reply(id))`: a response send if a called function returns one.
            let calls: Vec<Callee> = args.iter().flat_map(|a| self.value_calls(a)).collect();
            let conditional = !calls.is_empty();
            self.sink_condition = calls;
            conditional.then_some(SinkKind::Response)
        };
        if let Some(kind) = kind {
            let (what, pure) = describe();
            if self.vocab.is_sink_call(name) {
                self.sink_named = Some(name.to_string());
            }
            self.record_sink(span, kind, what, pure);
            self.sink_named = None;
        }
        self.sink_condition.clear();
        if transport && self.origins.is_empty() {
            self.record_flows(args, span);
        }
    }

    /// What a method call does to the in-flight registries: drains a channel (`rx.recv()`),
    /// touches or (on a cancel path) removes from a registry keyed by request, aborts a task.
    pub(super) fn note_registry_method(
        &mut self,
        call: &syn::ExprMethodCall,
        name: &str,
        span: ByteSpan,
    ) {
        if matches!(
            name,
            "recv" | "try_recv" | "recv_async" | "blocking_recv" | "recv_many"
        ) {
            let drained = collection_name(&call.receiver)
                .and_then(|n| channel_base(&n, &["_rx", "_receiver", "rx", "receiver"]));
            if let (Some(drained), Some(state)) = (drained, self.functions.last_mut()) {
                if !state.facts.drains.contains(&drained) {
                    state.facts.drains.push(drained);
                }
            }
        }
        // A registry is keyed by request: `Option::take()` and friends (no key) are not one.
        if REGISTRY_TOUCH.contains(&name) && !call.args.is_empty() {
            // A registry the function is handed (`in_flight: &InFlight`), through a guard
            // bound from it (`let mut guard = in_flight.lock()?`): callers act on theirs.
            let handed = self.resolved_collection(&call.receiver).and_then(|c| {
                let state = self.functions.last()?;
                state
                    .params
                    .iter()
                    .position(|p| p.as_deref() == Some(c.as_str()))
            });
            if let (Some(index), Some(state)) = (handed, self.functions.last_mut()) {
                let action = (index, REGISTRY_REMOVE.contains(&name));
                if !state.facts.registry_params.contains(&action) {
                    state.facts.registry_params.push(action);
                }
            }
            if let Some(collection) = collection_name(&call.receiver) {
                if REGISTRY_REMOVE.contains(&name) && !self.origins.is_empty() {
                    self.facts.registry_removals.push(RegistryRemoval {
                        collection: collection.clone(),
                        span,
                        origins: self.origins.clone(),
                    });
                }
                self.touch_registry(collection);
            }
        }
        if name == "abort" && call.args.is_empty() && !self.origins.is_empty() {
            self.facts.path_aborts.push(self.origins.clone());
        }
        if name == "cancel" && call.args.is_empty() && !self.origins.is_empty() {
            self.facts.path_cancels.push(self.origins.clone());
        }
        // `in_flight.get(&id)` on a cancel path: a lookup by request, for its token.
        if matches!(name, "get" | "get_mut") && call.args.len() == 1 && !self.origins.is_empty() {
            if let Some(collection) = collection_name(&call.receiver) {
                self.facts.registry_lookups.push(RegistryRemoval {
                    collection,
                    span,
                    origins: self.origins.clone(),
                });
            }
        }
    }
}

/// Whether tokens hold a `return` (or a `?`, which returns too), at any depth.
fn mentions_return(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == "return",
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => mentions_return(g.stream()),
        proc_macro2::TokenTree::Literal(_) => false,
    })
}

/// `Ordering::SeqCst` (any path whose last but one segment is `Ordering`, or a bare `SeqCst`,
/// `Acquire`, `Relaxed`): an atomic operation's ordering argument.
pub(super) fn is_ordering(expr: &Expr) -> bool {
    let Expr::Path(p) = expr else {
        return false;
    };
    let segments = path_segments(&p.path);
    let last = segments.last().map(String::as_str).unwrap_or("");
    matches!(
        last,
        "SeqCst" | "Acquire" | "Relaxed" | "AcqRel" | "Release"
    ) && (segments.len() == 1 || segments[segments.len() - 2] == "Ordering")
}

/// A path naming a further message's type (`ProgressNotification::new`, `LoggingMessageNotification`).
fn is_further_path(path: &syn::Path) -> bool {
    path.segments
        .iter()
        .any(|s| vocab::FURTHER_MESSAGE_TYPES.contains(&s.ident.to_string().as_str()))
}

/// A `match` arm that hands on what its `Ok(x)` or `Some(x)` pattern binds: `Ok(s) => s`.
fn unwraps_its_binding(arm: &syn::Arm) -> bool {
    let Pat::TupleStruct(ts) = &arm.pat else {
        return false;
    };
    let (Some(last), Some(Pat::Ident(binding)), 1) =
        (ts.path.segments.last(), ts.elems.first(), ts.elems.len())
    else {
        return false;
    };
    (last.ident == "Ok" || last.ident == "Some")
        && arm.guard.is_none()
        && matches!(peel(&arm.body), Expr::Path(p) if p.path.is_ident(&binding.ident))
}

/// A unit struct's value named by its type (`Server.run(..)`): a single CamelCase name that no
/// local binds. (An all-capitals name is a constant's.)
fn unit_struct_value(ident: &str) -> Option<ReceiverType> {
    let mut chars = ident.chars();
    let upper_first = chars.next().is_some_and(|c| c.is_ascii_uppercase());
    (upper_first && ident.chars().any(|c| c.is_ascii_lowercase()))
        .then(|| ReceiverType::Named(ident.to_string()))
}

/// The pattern of a `matches!(value, pattern)` (a guard after it is left out).
fn matches_pattern(mac: &Macro) -> Option<Pat> {
    super::super::syntax::matches_parts(mac).map(|(_, pat)| pat)
}
