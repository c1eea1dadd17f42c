//! What each node does when the walk enters and leaves it.

use crate::source::ByteSpan;
use std::collections::HashMap;

use syn::{Expr, Pat, Stmt};

use super::marks::Place;
use super::shapes::{
    describe_call, is_ok_pattern, is_response_variant_pattern, is_send_name, registry_lookup,
    Condition,
};
use super::{
    statements, BlockFrame, ClosureFrame, ClosureSummary, FlowValue, FunctionState, IfKind,
    LocalInfo, Sends, StmtFrame, Undo,
};
use crate::analysis::facts::{
    Callee, FunctionFacts, OriginCondition, OriginKind, ReceiverType, Removal, SinkKind, UnitValue,
};
use crate::analysis::syntax::{
    format_captures, is_pure, macro_name, path_segments, pattern_bindings, peel, peel_handler,
    str_literal, type_name, value_idents,
};
use crate::analysis::vocabulary as vocab;
use crate::analysis::walk::{is_function_body, macro_key, Node, ParsedBody, Scope};

impl Sends<'_> {
    /// A node is entered as its parent's child: what the parent does to it.
    pub(super) fn enter_child(&mut self, node: Node<'_>, scope: &Scope<'_>) -> Undo {
        let mut undo = Undo::default();
        let parent = scope.parent();
        if is_function_body(node, parent) {
            self.enter_function(parent, scope);
            return undo;
        }
        match (parent, node) {
            (Some(Node::Expr(Expr::If(i))), Node::Block(b)) if std::ptr::eq(&i.then_branch, b) => {
                self.enter_branch(&i.cond, &mut undo);
                self.enter_then(i, &mut undo)
            }
            (Some(Node::Expr(Expr::If(i))), Node::Expr(e)) => {
                let is_else = i
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, x)| std::ptr::eq(&**x, e));
                if is_else {
                    self.enter_branch(&i.cond, &mut undo);
                }
                if let (true, Some(IfKind::Negated(span, condition))) = (is_else, self.ifs.last()) {
                    let origin = self.add_origin(
                        OriginKind::IfTest,
                        *span,
                        self.marks.label(Place::ElseOfNot),
                        condition.clone(),
                    );
                    self.origins.push(origin);
                    undo.origin = true;
                }
            }
            (Some(Node::Expr(Expr::While(w))), Node::Block(b)) if std::ptr::eq(&w.body, b) => {
                if let Expr::Let(l) = &*w.cond {
                    self.bind(&l.pat, Some(&l.expr), Vec::new());
                }
                if let Condition::Negated(..) = self.classify_condition(&w.cond) {
                    self.guard(&mut undo);
                }
            }
            (Some(Node::Expr(Expr::ForLoop(f))), Node::Block(b)) if std::ptr::eq(&f.body, b) => {
                self.bind(&f.pat, Some(&f.expr), Vec::new());
            }
            (Some(Node::Expr(Expr::Match(m))), Node::Arm(arm)) => {
                self.enter_branch(&m.expr, &mut undo);
                self.enter_arm(m, arm, &mut undo)
            }
            (Some(Node::Arm(arm)), Node::Expr(body)) if std::ptr::eq(&*arm.body, body) => {
                if let Some(Some(collection)) = self.arms.last() {
                    self.registry_guards.push(collection.clone());
                    undo.registry_guard = true;
                }
                self.note_arm_body(body, &mut undo);
            }
            (Some(Node::SelectArm(arm)), Node::Expr(handler))
                if std::ptr::eq(&arm.handler, handler) =>
            {
                self.enter_select_handler(arm, &mut undo)
            }
            (Some(Node::Expr(entry)), Node::Expr(element)) if is_handler_closure(element) => {
                self.enter_registered_closure(entry, element, &mut undo)
            }
            _ => {}
        }
        undo
    }

    /// A closure in a handler table's entry (`("notifications/cancelled", Box::new(|p| ..))`,
    /// `io.add_method(CANCELLED, |p| ..)`) whose key is the condition's message: its code runs
    /// when the message comes, as a `match` arm's would.
    fn enter_registered_closure(&mut self, entry: &Expr, element: &Expr, undo: &mut Undo) {
        let parts: Vec<&Expr> = match entry {
            Expr::Tuple(t) => t.elems.iter().collect(),
            Expr::MethodCall(c) => c.args.iter().collect(),
            Expr::Call(c) => c.args.iter().collect(),
            _ => return,
        };
        let Some((key, condition)) = parts
            .iter()
            .filter(|e| !std::ptr::eq(**e, element))
            .filter(|e| matches!(e, Expr::Lit(_) | Expr::Path(_)))
            .find_map(|e| self.marks.operand(e).map(|c| (*e, c)))
        else {
            return;
        };
        let origin = self.add_origin(
            OriginKind::Registration,
            self.span(key),
            self.marks.label(Place::RegisteredClosure),
            condition,
        );
        self.origins.push(origin);
        undo.origin = true;
    }

    /// A node is left as its parent's child: undo what entering it did, and do what its parent
    /// does after it.
    pub(super) fn leave_child(&mut self, node: Node<'_>, scope: &Scope<'_>, undo: Undo) {
        let parent = scope.parent();
        match (parent, node) {
            (Some(Node::Local(local)), Node::Expr(init))
                if local
                    .init
                    .as_ref()
                    .is_some_and(|i| std::ptr::eq(&*i.expr, init)) =>
            {
                self.bind_local(local, init)
            }
            (Some(Node::Expr(Expr::MethodCall(call))), Node::Expr(receiver))
                if std::ptr::eq(&*call.receiver, receiver) =>
            {
                self.spawn_depth += usize::from(self.method_spawns.last() == Some(&true));
            }
            (Some(Node::Expr(Expr::Match(m))), Node::Expr(scrutinee))
                if std::ptr::eq(&*m.expr, scrutinee) =>
            {
                self.note_matched_response(m)
            }
            (Some(Node::Expr(Expr::Match(_))), Node::Arm(_)) => {
                self.arms.pop();
            }
            _ => {}
        }
        if let Some(len) = undo.removable {
            self.removable.truncate(len);
        }
        if undo.flowing {
            match node {
                Node::Expr(value) => self.note_flowing_values(value),
                Node::Arm(arm) => self.note_flowing_values(&arm.body),
                Node::Block(block) => {
                    let value = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: block.clone(),
                    });
                    self.note_flowing_values(&value);
                }
                _ => {}
            }
        }
        if undo.origin {
            self.origins.pop();
        }
        if undo.branch_test {
            self.branch_tests.pop();
        }
        if undo.registry_guard {
            self.registry_guards.pop();
        }
        if let Some(saved) = undo.guarded {
            self.guard_depth -= 1;
            self.origins = saved;
        }
        if undo.raced {
            self.guard_depth -= 1;
        }
        if is_function_body(node, parent) {
            self.leave_function();
        }
    }

    /// A branch selected by `test` (an `if`'s condition, a `match`'s scrutinee) is entered.
    fn enter_branch(&mut self, test: &Expr, undo: &mut Undo) {
        let test = match test {
            Expr::Let(l) => &*l.expr,
            other => other,
        };
        // A `match` asks once per arm: its scrutinee's calls are worked out once.
        let span = self.span(test);
        let calls = match &self.branch_cache {
            Some((cached, calls)) if *cached == span => calls.clone(),
            _ => {
                let calls = self.value_calls(test);
                self.branch_cache = Some((span, calls.clone()));
                calls
            }
        };
        self.branch_tests.push(calls);
        undo.branch_test = true;
    }

    /// Guard the code under a node: the cancel paths around it do not reach it.
    fn guard(&mut self, undo: &mut Undo) {
        undo.guarded = Some(std::mem::take(&mut self.origins));
        self.guard_depth += 1;
    }

    /// An `if`'s `then` branch: a cancel path, guarded, or guarded by a registry's answer.
    fn enter_then(&mut self, expr: &syn::ExprIf, undo: &mut Undo) {
        if let Expr::Let(l) = &*expr.cond {
            self.bind(&l.pat, Some(&l.expr), Vec::new());
        }
        let kind = match self.classify_condition(&expr.cond) {
            Condition::Holds(kind, span, label, condition) => {
                let origin = self.add_origin(kind, span, label, condition);
                self.origins.push(origin);
                undo.origin = true;
                undo.flowing = true;
                IfKind::Holds
            }
            // `if !token.is_cancelled() { .. } else { <cancel path> }`; but the `else` of `if
            // changed && !token.is_cancelled()` also runs when nothing changed, uncancelled.
            Condition::Negated(span, condition) => {
                self.guard(undo);
                match is_conjunction(&expr.cond) {
                    true => IfKind::Plain,
                    false => IfKind::Negated(span, condition),
                }
            }
            Condition::Plain => {
                let guard = match &*expr.cond {
                    Expr::Let(l) if matches!(&*l.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some")) => {
                        registry_lookup(&l.expr)
                    }
                    other => registry_lookup(other),
                };
                if let Some(collection) = guard {
                    self.registry_guards.push(collection);
                    undo.registry_guard = true;
                }
                IfKind::Plain
            }
        };
        if let Some(last) = self.ifs.last_mut() {
            *last = kind;
        }
    }

    /// A `match` arm: a cancel path when its pattern (or guard) selects the cancellation;
    /// otherwise its body may be guarded by the registry the scrutinee looks up.
    fn enter_arm(&mut self, expr: &syn::ExprMatch, arm: &syn::Arm, undo: &mut Undo) {
        let (lookup, converts) = self.matches.last().cloned().unwrap_or((None, false));
        let mut condition = self.marks.pattern(&arm.pat);
        if condition.is_none() && converts && is_ok_pattern(&arm.pat) {
            condition = Some(OriginCondition::Always);
        }
        if condition.is_none() {
            if let Some((_, guard)) = &arm.guard {
                if let Condition::Holds(_, _, _, c) = self.classify_condition(guard) {
                    condition = Some(c);
                }
            }
        }
        self.bind(&arm.pat, Some(&expr.expr), Vec::new());
        self.note_response_excluded(expr, arm);
        match condition {
            Some(condition) => {
                let origin = self.add_origin(
                    OriginKind::DispatchArm,
                    self.span(&arm.pat),
                    self.marks.label(Place::Arm),
                    condition,
                );
                self.origins.push(origin);
                undo.origin = true;
                // `let reply = match method { CANCELLED => json!(..), .. }; write(reply)`: the
                // arm's value is the `match`'s, for the `let` that receives it.
                undo.flowing = true;
                self.arms.push(None);
            }
            None => {
                let guarded = matches!(&arm.pat, Pat::TupleStruct(ts) if ts.path.is_ident("Some"))
                    .then_some(lookup)
                    .flatten();
                self.arms.push(guarded);
            }
        }
    }

    /// A `match` or `select!` arm's body: a send that is the whole body could become `{}`.
    fn note_arm_body(&mut self, body: &Expr, undo: &mut Undo) {
        undo.removable = Some(self.removable.len());
        if !matches!(body, Expr::Block(_)) {
            self.note_removable(
                body,
                Removal::Value {
                    span: self.span(body),
                    replacement: UnitValue::EmptyBlock,
                },
            );
        }
    }

    /// A `select!` with a branch on the request's cancellation (its token's future, or a
    /// one-shot receiver): the other branches' futures run only until it wins, so the calls in
    /// them (and the call whose future a local holds, `res = &mut call`) are guarded, as a
    /// handler future dropped on cancellation is (`tokio::select! { r = handle(..) => .., _ =
    /// cancel_rx => {} }`).
    fn note_raced_futures(&mut self, arms: &[crate::analysis::syntax::SelectArm]) {
        let cancels =
            |this: &Self, f: &Expr| this.is_condition_future(f) || this.is_signal_receiver(f);
        let futures: Vec<&Expr> = arms.iter().filter_map(|a| a.future.as_ref()).collect();
        if !futures.iter().any(|f| cancels(self, f)) {
            self.raced_futures.push(Vec::new());
            return;
        }
        let raced: Vec<&Expr> = futures.into_iter().filter(|f| !cancels(self, f)).collect();
        let spans: Vec<ByteSpan> = raced.iter().map(|f| self.span(*f)).collect();
        let held: Vec<ByteSpan> = match self.functions.last() {
            Some(state) => raced
                .iter()
                .filter_map(|f| held_future(f))
                .filter_map(|name| {
                    (state.call_futures.iter())
                        .rev()
                        .find(|(local, _)| *local == name)
                        .map(|(_, call)| *call)
                })
                .collect(),
            None => Vec::new(),
        };
        if let Some(state) = self.current() {
            for call in state.facts.calls.iter_mut() {
                if held.contains(&call.span) {
                    call.registry.guarded = true;
                }
            }
        }
        self.raced_futures.push(spans);
    }

    /// A `select!` branch's handler: a cancel path when its future is the request's
    /// cancellation; otherwise it runs only if it won the race against it.
    fn enter_select_handler(&mut self, arm: &crate::analysis::syntax::SelectArm, undo: &mut Undo) {
        let cancels = arm
            .future
            .as_ref()
            .is_some_and(|f| self.is_condition_future(f));
        // `_ = cancel_rx => ..`: a one-shot channel's receiver, a cancel path when the crate
        // signals its one-shot channels on cancel paths only (batch 121's lanlu).
        let signal = !cancels
            && arm
                .future
                .as_ref()
                .is_some_and(|f| self.is_signal_receiver(f));
        if let (true, Some(future)) = (cancels || signal, &arm.future) {
            let condition = match signal {
                true => OriginCondition::SignalSent,
                false => OriginCondition::Always,
            };
            let place = match signal {
                true => Place::SignalBranch,
                false => Place::SelectBranch,
            };
            let origin = self.add_origin(
                OriginKind::SelectArm,
                self.span(future),
                self.marks.label(place),
                condition,
            );
            self.origins.push(origin);
            undo.origin = true;
            undo.flowing = true;
        } else {
            if let (Some(pattern), Some(future)) = (&arm.pattern, &arm.future) {
                self.bind(pattern, Some(future), Vec::new());
            }
            // A branch raced against the request's cancellation runs only if it won.
            if self.selects.last() == Some(&true) {
                self.guard_depth += 1;
                undo.raced = true;
            }
        }
        self.note_arm_body(&arm.handler, undo);
    }

    /// `match m { Message::Response(r) => .., other => send(other) }`: a catch-all binding after
    /// an unguarded arm that took the response variant holds every message but a response (a
    /// sender that keeps responses back and forwards the rest).
    fn note_response_excluded(&mut self, expr: &syn::ExprMatch, arm: &syn::Arm) {
        let Pat::Ident(binding) = &arm.pat else {
            return;
        };
        if binding.subpat.is_some() {
            return;
        }
        let excluded = expr
            .arms
            .iter()
            .take_while(|a| !std::ptr::eq(*a, arm))
            .any(|a| a.guard.is_none() && is_response_variant_pattern(&a.pat));
        if excluded {
            if let Some(state) = self.current() {
                if let Some(local) = state.locals.get_mut(&binding.ident.to_string()) {
                    local.response = false;
                }
            }
        }
    }

    /// `match &m { JsonRpcMessage::Response(..) => .. }`: `m` holds a response message.
    fn note_matched_response(&mut self, expr: &syn::ExprMatch) {
        if !expr
            .arms
            .iter()
            .any(|arm| is_response_variant_pattern(&arm.pat))
        {
            return;
        }
        if let Expr::Path(p) = peel(&expr.expr) {
            if let Some(ident) = p.path.get_ident() {
                let name = ident.to_string();
                if let Some(state) = self.current() {
                    state.locals.entry(name).or_default().response = true;
                }
            }
        }
    }
}

/// What [`parameter_locals`] gives: the locals, their declared types and the parameter names.
type ParameterLocals = (
    HashMap<String, LocalInfo>,
    HashMap<String, ReceiverType>,
    Vec<Option<String>>,
);

/// A function's parameters as locals: which parameter each binding comes from, the declared
/// type of each binding, and the name of each plain parameter (`None` for a pattern).
fn parameter_locals(sig: &syn::Signature) -> ParameterLocals {
    let mut locals = HashMap::new();
    let mut local_types = HashMap::new();
    let mut params = Vec::new();
    let typed_inputs = sig.inputs.iter().filter_map(|i| match i {
        syn::FnArg::Typed(arg) => Some(arg),
        syn::FnArg::Receiver(_) => None,
    });
    for (position, arg) in typed_inputs.enumerate() {
        let bindings = pattern_bindings(&arg.pat);
        params.push(match (&*arg.pat, bindings.as_slice()) {
            (syn::Pat::Ident(_), [name]) => Some(name.clone()),
            _ => None,
        });
        if let (Some(ty), [name]) = (type_name(&arg.ty), bindings.as_slice()) {
            local_types.insert(name.clone(), ReceiverType::Named(ty));
        }
        for binding in bindings {
            let params = 1u64.checked_shl(position as u32).unwrap_or(0);
            locals.insert(
                binding,
                LocalInfo {
                    params,
                    ..LocalInfo::default()
                },
            );
        }
    }
    (locals, local_types, params)
}

impl Sends<'_> {
    /// A function's body is entered: the function's facts start, and the cancel paths around
    /// it are set aside (its own, if it is a cancel hook, take their place).
    fn enter_function(&mut self, parent: Option<Node<'_>>, scope: &Scope<'_>) {
        let inherited = syn::Visibility::Inherited;
        let (sig, self_ty, trait_name, attrs, vis) = match parent {
            Some(Node::Item(syn::Item::Fn(f))) => (&f.sig, None, None, &f.attrs, &f.vis),
            Some(Node::ImplItem(syn::ImplItem::Fn(f))) => {
                let scope = scope.impl_scope().cloned().unwrap_or_default();
                (&f.sig, scope.self_ty, scope.trait_name, &f.attrs, &f.vis)
            }
            Some(Node::TraitItem(syn::TraitItem::Fn(f))) => {
                let trait_name = scope.impl_scope().and_then(|i| i.trait_name.clone());
                (&f.sig, None, trait_name, &f.attrs, &inherited)
            }
            _ => return,
        };
        let allows_dead_code = crate::analysis::syntax::allows_dead_code(attrs);
        let public = !matches!(vis, syn::Visibility::Inherited);
        let registered = sig.abi.is_some()
            || attrs
                .iter()
                .any(|a| !crate::analysis::syntax::inert_attribute(a));
        let item_span = scope.function().map(|f| f.span).unwrap_or_default();
        let name = sig.ident.to_string();
        let returns_type = match crate::analysis::syntax::returned_type_name(&sig.output) {
            Some(ty) if ty == "Self" => self_ty.clone(),
            other => other,
        };
        let has_receiver = sig.receiver().is_some();
        let name_span = self.span(&sig.ident);
        let hook = self.marks.is_hook(&name, has_receiver).then(|| {
            self.add_origin(
                OriginKind::Hook,
                name_span,
                self.marks.label(Place::Hook(&name)),
                self.marks.hook_condition(&name),
            )
        });
        let (locals, local_types, params) = parameter_locals(sig);
        let mut module = self.module.clone();
        module.extend(scope.inline_modules().iter().map(|m| m.name.clone()));
        let saved_origins = std::mem::take(&mut self.origins);
        self.origins.extend(hook);
        self.functions.push(FunctionState {
            facts: FunctionFacts {
                name,
                name_span,
                item_span,
                self_ty,
                trait_name,
                has_receiver,
                module,
                in_test: scope.in_test(),
                allows_dead_code,
                public,
                registered,
                hook,
                path_returns: Vec::new(),
                drains: Vec::new(),
                registries: Vec::new(),
                returns_response: false,
                returns_calls: Vec::new(),
                returns_type,
                propagates_calls: Vec::new(),
                written_calls: Vec::new(),
                registry_params: Vec::new(),
                writes_params: 0,
                only_sends: false,
                sends_alone: false,
                binds_with_effects: false,
                sinks: Vec::new(),
                calls: Vec::new(),
            },
            saved_origins,
            locals,
            condition_futures: Vec::new(),
            signal_receivers: Vec::new(),
            call_futures: Vec::new(),
            pending_flows: Vec::new(),
            pending_returns: Vec::new(),
            aliases: HashMap::new(),
            local_types,
            built_from: HashMap::new(),
            params,
            closure_frames: Vec::new(),
            last_closure: None,
            closures: HashMap::new(),
            body_stmts: Vec::new(),
        });
    }

    fn leave_function(&mut self) {
        if let Some(mut state) = self.functions.pop() {
            let sends: Vec<ByteSpan> = state
                .facts
                .sinks
                .iter()
                .filter(|s| {
                    s.sent_at.is_none() && s.if_returns_response.is_empty() && s.through.is_none()
                })
                .filter_map(|s| match s.removal {
                    Some(Removal::Statement(span)) => Some(span),
                    _ => None,
                })
                .collect();
            state.facts.only_sends = !sends.is_empty()
                && state
                    .body_stmts
                    .iter()
                    .all(|(span, pure_let, _)| *pure_let || sends.contains(span));
            state.facts.sends_alone = state.body_stmts.iter().any(|(_, _, hands_on)| *hands_on)
                && state
                    .body_stmts
                    .iter()
                    .all(|(_, pure_let, hands_on)| *pure_let || *hands_on);
            self.origins = state.saved_origins;
            self.facts.functions.push(state.facts);
        }
    }
}

impl Sends<'_> {
    /// Whether a statement is one call of a transport's send or a writer, its value dropped
    /// (`let _ = self.out.send(..);`, `tx.send(v)?;`, `writeln!(out, ..)?;`): see
    /// [`crate::analysis::facts::FunctionFacts::sends_alone`].
    fn hands_on_a_message(&self, stmt: &Stmt) -> bool {
        let expr = match stmt {
            Stmt::Expr(e, _) => e,
            Stmt::Local(l) if matches!(l.pat, syn::Pat::Wild(_)) => match &l.init {
                Some(init) if init.diverge.is_none() => &*init.expr,
                _ => return false,
            },
            Stmt::Macro(m) => {
                return vocab::WRITE_MACROS.contains(&macro_name(&m.mac).as_str());
            }
            _ => return false,
        };
        let sends =
            |name: &str| vocab::TRANSPORT_CALLS.contains(&name) || self.vocab.is_sink_call(name);
        match crate::analysis::syntax::strip_statement_wrappers(expr) {
            Expr::MethodCall(call) => sends(&call.method.to_string()),
            Expr::Call(call) => match &*call.func {
                Expr::Path(p) => sends(&crate::analysis::syntax::last_segment(&p.path)),
                _ => false,
            },
            Expr::Macro(m) => vocab::WRITE_MACROS.contains(&macro_name(&m.mac).as_str()),
            _ => false,
        }
    }

    /// A node is entered: what it does before its children.
    pub(super) fn enter_node(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if let Some(stmts) = statements(node) {
            self.blocks.push(BlockFrame {
                origins: self.origins.len(),
                registry_guards: self.registry_guards.len(),
                guard_depth: self.guard_depth,
                function_body: is_function_body(node, scope.parent()),
                index: 0,
                len: stmts.len(),
            });
            self.block_registries.push(Vec::new());
            return;
        }
        match node {
            Node::Stmt(stmt) => self.enter_stmt(stmt),
            Node::Local(local) if local.init.is_some() => {
                let (pending, returns) = self.pending();
                self.lets.push((pending, returns));
            }
            Node::Expr(expr) => self.enter_expr(expr),
            Node::Macro(mac) => {
                if let Some(site) = scope.macro_site(mac) {
                    self.macros.push((macro_key(mac), site, macro_name(mac)));
                }
            }
            Node::Body(ParsedBody::Select(arms)) => {
                let races = arms.iter().any(|arm| {
                    arm.future
                        .as_ref()
                        .is_some_and(|f| self.is_condition_future(f))
                });
                self.selects.push(races);
                self.note_raced_futures(arms);
            }
            _ => {}
        }
    }

    /// Take the current function's pending response values and returned values from the
    /// given lengths on.
    fn take_pending(&mut self, flows: usize, returns: usize) -> (Vec<FlowValue>, Vec<FlowValue>) {
        let Some(f) = self.current() else {
            return (Vec::new(), Vec::new());
        };
        let flows = f.pending_flows.split_off(flows.min(f.pending_flows.len()));
        let returns = f
            .pending_returns
            .split_off(returns.min(f.pending_returns.len()));
        (flows, returns)
    }

    /// The lengths of the current function's pending response values and returned values.
    fn pending(&self) -> (usize, usize) {
        self.functions
            .last()
            .map_or((0, 0), |f| (f.pending_flows.len(), f.pending_returns.len()))
    }

    fn enter_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::If(_) => self.ifs.push(IfKind::Unknown),
            Expr::Match(m) => self
                .matches
                .push((registry_lookup(&m.expr), self.marks.converts(&m.expr))),
            Expr::Assign(_) => {
                let (pending, _) = self.pending();
                self.assigns.push(pending);
            }
            Expr::Return(r) if r.expr.is_some() => {
                let (_, returns) = self.pending();
                self.returns.push(returns);
            }
            Expr::MethodCall(call) => self.enter_method_call(call),
            Expr::Tuple(tuple) => {
                let entry: Vec<&Expr> = tuple.elems.iter().collect();
                self.note_registration(&entry);
            }
            Expr::Call(call) => self.enter_call(call),
            Expr::Closure(closure) => {
                for (position, input) in closure.inputs.iter().enumerate() {
                    self.bind(input, None, Vec::new());
                    let mask = 1u64.checked_shl(position as u32).unwrap_or(0);
                    let bindings = pattern_bindings(input);
                    if let Some(state) = self.current() {
                        for name in bindings {
                            if let Some(local) = state.locals.get_mut(&name) {
                                local.closure_params = mask;
                            }
                        }
                    }
                }
                if let Some(state) = self.current() {
                    let sinks_before = state.facts.sinks.len();
                    state.closure_frames.push(ClosureFrame {
                        written: 0,
                        sinks_before,
                    });
                }
            }
            _ => {}
        }
    }

    /// A statement, before it is visited: how the send or call it is could be removed.
    fn enter_stmt(&mut self, stmt: &Stmt) {
        let (pending, pending_returns) = self.pending();
        self.stmts.push(StmtFrame {
            pending,
            pending_returns,
            removable: self.removable.len(),
        });
        let last = self.blocks.last().is_some_and(|b| b.index + 1 == b.len);
        match stmt {
            Stmt::Expr(expr, Some(_)) => {
                self.note_removable(expr, Removal::Statement(self.span(stmt)))
            }
            Stmt::Expr(expr, None) if last => self.note_removable(
                expr,
                Removal::Value {
                    span: self.span(expr),
                    replacement: UnitValue::Unit,
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
    }

    /// A handler table's entry: among `entry`'s parts (a call's arguments, a tuple's fields),
    /// the condition's message (a literal or a constant) and a function named by its path
    /// (`on_note`, `Self::on_note`, `on_note as Handler`, `Box::new(on_note)`). The entry is a
    /// call of the function on the condition's path: its code runs when the message comes.
    fn note_registration(&mut self, entry: &[&Expr]) {
        // An entry's key is a string or a constant: only those are asked about.
        if entry.len() < 2 {
            return;
        }
        let Some((key, condition)) = entry
            .iter()
            .filter(|e| matches!(e, Expr::Lit(_) | Expr::Path(_)))
            .find_map(|e| self.marks.operand(e).map(|c| (*e, c)))
        else {
            return;
        };
        for part in entry {
            let Some(segments) = handler_path(part) else {
                continue;
            };
            let Some(name) = segments.last().cloned() else {
                continue;
            };
            // A local or a parameter is a value, not the name of a function.
            if segments.len() == 1 && self.local(&name).is_some() {
                continue;
            }
            let origin = self.add_origin(
                OriginKind::Registration,
                self.span(key),
                self.marks.label(Place::Registered(&name)),
                condition.clone(),
            );
            self.origins.push(origin);
            let span = self.span(*part);
            let joined = segments.join("::");
            let what = || format!("`{joined}`");
            // Not removable: taking the entry out would change the table, not the handler.
            let removable = std::mem::take(&mut self.removable);
            self.record_call(span, Callee::Path(segments), &[], &what);
            self.removable = removable;
            self.origins.pop();
        }
    }

    fn enter_method_call(&mut self, call: &syn::ExprMethodCall) {
        let name = call.method.to_string();
        let entry: Vec<&Expr> = call.args.iter().collect();
        self.note_registration(&entry);
        // `flag.store(true, Ordering::..)`: an atomic flag set, on the paths around it.
        if matches!(name.as_str(), "store" | "swap" | "fetch_or")
            && call.args.len() == 2
            && matches!(&call.args[0], Expr::Lit(l) if matches!(&l.lit, syn::Lit::Bool(b) if b.value))
            && super::values::is_ordering(&call.args[1])
            && !self.functions.last().is_some_and(|f| f.facts.in_test)
        {
            self.facts.flag_sets.push(self.origins.clone());
        }
        // `sender.send(())`: a unit signal sent, on the paths around it.
        if name == "send"
            && matches!(call.args.first(), Some(Expr::Tuple(t)) if t.elems.is_empty())
            && call.args.len() == 1
            && !self.functions.last().is_some_and(|f| f.facts.in_test)
        {
            self.facts.signal_sends.push(self.origins.clone());
        }
        // `token.cancel()`: something cancelled, on the paths around it.
        if name == "cancel"
            && call.args.is_empty()
            && !self.functions.last().is_some_and(|f| f.facts.in_test)
        {
            self.facts.token_cancels.push(self.origins.clone());
        }
        let span = self.span(call);
        let args: Vec<&Expr> = call.args.iter().collect();
        let describe = || {
            let what = describe_call(Some(&call.receiver), &name);
            let pure = is_pure(&call.receiver) && call.args.iter().all(is_pure);
            (what, pure)
        };
        self.sink_channel = self.channel_of(&call.receiver);
        self.check_send_call(&name, span, &args, &describe);
        self.sink_channel = None;
        self.note_registry_method(call, &name, span);
        let spawns = name == "spawn" || name == "spawn_local";
        if !is_send_name(self.vocab, &name) {
            let on_self = matches!(peel(&call.receiver), Expr::Path(p) if p.path.is_ident("self"));
            let receiver = self.receiver_type(&call.receiver);
            let what = || describe_call(Some(&call.receiver), &call.method.to_string());
            self.record_call(
                span,
                Callee::Method {
                    name,
                    on_self,
                    receiver,
                },
                &args,
                &what,
            );
        }
        self.method_spawns.push(spawns);
    }

    fn enter_call(&mut self, call: &syn::ExprCall) {
        let entry: Vec<&Expr> = call.args.iter().collect();
        self.note_registration(&entry);
        let mut spawns = false;
        if let Expr::Path(func) = &*call.func {
            let segments = path_segments(&func.path);
            if let Some(name) = segments.last().cloned() {
                let span = self.span(call);
                let args: Vec<&Expr> = call.args.iter().collect();
                let describe = || {
                    let what = format!("`{}(..)`", segments.join("::"));
                    (what, call.args.iter().all(is_pure))
                };
                let sink_path = self.vocab.is_sink_path(&segments);
                if sink_path {
                    let (what, pure) = describe();
                    self.record_sink(span, SinkKind::Response, what, pure);
                } else {
                    self.check_send_call(&name, span, &args, &describe);
                }
                // `run(cmd)` where `run` is a parameter or a local: a closure or a function
                // pointer, not a function of the crate by that name.
                let local_callable = segments.len() == 1 && self.local(&name).is_some();
                if local_callable && !sink_path {
                    self.check_closure_call(&name, span, &args);
                }
                if !sink_path && !is_send_name(self.vocab, &name) && !local_callable {
                    let joined = segments.join("::");
                    let what = || format!("`{joined}(..)`");
                    self.record_call(span, Callee::Path(segments), &args, &what);
                }
                spawns = matches!(name.as_str(), "spawn" | "spawn_local" | "spawn_blocking");
            }
        }
        self.spawn_depth += usize::from(spawns);
        self.call_spawns.push(spawns);
    }
}

impl Sends<'_> {
    /// A node is left: what it does after its children.
    pub(super) fn leave_node(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if statements(node).is_some() {
            if let Some(frame) = self.blocks.pop() {
                let depth = self.blocks.len();
                self.exit_tests.retain(|(at, _)| *at <= depth);
                self.block_registries.pop();
                self.registry_guards.truncate(frame.registry_guards);
                self.guard_depth = frame.guard_depth;
                self.origins.truncate(frame.origins);
            }
            return;
        }
        match node {
            Node::Stmt(stmt) => self.leave_stmt(stmt),
            Node::Local(local) if local.init.is_some() => {
                self.lets.pop();
            }
            Node::Expr(expr) => self.leave_expr(expr),
            Node::Macro(mac) => {
                let mine = self
                    .macros
                    .last()
                    .is_some_and(|(a, ..)| *a == macro_key(mac));
                self.macros.truncate(self.macros.len() - usize::from(mine));
            }
            Node::Body(ParsedBody::Exprs(args)) => {
                if let Some(Node::Macro(mac)) = scope.parent() {
                    self.leave_write_args(mac, args);
                }
            }
            Node::Body(ParsedBody::Select(arms)) => {
                self.selects.pop();
                self.raced_futures.pop();
                if let Some(Node::Macro(mac)) = scope.parent() {
                    let guards = arms.iter().any(|arm| {
                        arm.future
                            .as_ref()
                            .is_some_and(|f| self.is_condition_future(f))
                            && super::shapes::is_nothing_to_send(&arm.handler)
                    });
                    self.last_select_guard = Some((macro_key(mac), guards));
                }
            }
            _ => {}
        }
    }

    fn leave_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::If(_) => {
                self.ifs.pop();
            }
            Expr::Match(_) => {
                self.matches.pop();
            }
            Expr::Assign(assign) => {
                let pending = self.assigns.pop().unwrap_or(0);
                self.leave_assign(assign, pending);
            }
            Expr::Return(r) => {
                if let Some(value) = &r.expr {
                    let pending = self.returns.pop().unwrap_or(0);
                    self.note_returned(value, pending);
                }
            }
            // `Err(..)?` on a cancel path returns the error from the function.
            Expr::Try(t) if !self.origins.is_empty() && is_err_call(&t.expr) => {
                let (_, pending) = self.pending();
                self.note_returned(&t.expr, pending);
            }
            // `helper(..).await?`: the helper's error is the function's.
            Expr::Try(t) => self.note_propagated(&t.expr),
            Expr::Closure(_) => {
                let span = self.span(expr);
                if let Some(state) = self.current() {
                    if let Some(frame) = state.closure_frames.pop() {
                        let sends = state.facts.sinks
                            [frame.sinks_before.min(state.facts.sinks.len())..]
                            .iter()
                            .any(|s| {
                                s.kind == SinkKind::Response
                                    && s.if_returns_response.is_empty()
                                    && s.through.is_none()
                                    && s.sent_at.is_none()
                            });
                        let summary = ClosureSummary {
                            written: frame.written,
                            sends,
                        };
                        state.last_closure = Some((span, summary));
                    }
                }
            }
            Expr::MethodCall(_) => {
                self.spawn_depth -= usize::from(self.method_spawns.pop() == Some(true));
            }
            Expr::Call(_) => {
                self.spawn_depth -= usize::from(self.call_spawns.pop() == Some(true));
            }
            _ => {}
        }
    }

    /// A statement was visited: its value may be the function's; it may start a cancel path,
    /// a registry's guard or a guard for the statements after it.
    fn leave_stmt(&mut self, stmt: &Stmt) {
        let Some(frame) = self.stmts.pop() else {
            return;
        };
        self.removable.truncate(frame.removable);
        // `if resp.is_skip() { continue; }`: the statements after it run only for what passes.
        if let Stmt::Expr(Expr::If(expr_if), _) = stmt {
            if expr_if.else_branch.is_none()
                && crate::analysis::syntax::leaves(&expr_if.then_branch)
            {
                let test = match &*expr_if.cond {
                    Expr::Let(l) => &*l.expr,
                    other => other,
                };
                let calls = self.value_calls(test);
                if !calls.is_empty() {
                    self.exit_tests.push((self.blocks.len(), calls));
                }
            }
        }
        let (function_body, last) = self
            .blocks
            .last()
            .map_or((false, false), |b| (b.function_body, b.index + 1 == b.len));
        if function_body {
            let span = self.span(stmt);
            let pure_let = matches!(stmt, Stmt::Local(l)
                if l.init.as_ref().is_some_and(|i| i.diverge.is_none() && is_pure(&i.expr)));
            // `let _ = tx.send(..);` binds nothing: it is the statement it drops the value of.
            let binds_with_effects =
                matches!(stmt, Stmt::Local(l) if !matches!(l.pat, syn::Pat::Wild(_))) && !pure_let;
            let hands_on = self.hands_on_a_message(stmt);
            if let Some(state) = self.current() {
                state.body_stmts.push((span, pure_let, hands_on));
                state.facts.binds_with_effects |= binds_with_effects;
            }
        }
        if function_body && last {
            match stmt {
                Stmt::Expr(tail, None) => self.note_returned(tail, frame.pending_returns),
                Stmt::Macro(m) if m.semi_token.is_none() => {
                    let tail = Expr::Macro(syn::ExprMacro {
                        attrs: Vec::new(),
                        mac: m.mac.clone(),
                    });
                    self.note_returned(&tail, frame.pending_returns);
                }
                _ => {}
            }
        }
        if let Some(state) = self.current() {
            state.pending_flows.truncate(frame.pending);
            state.pending_returns.truncate(frame.pending_returns);
        }
        if let Some((kind, span, label, condition)) = self.starts_path(stmt) {
            let origin = self.add_origin(kind, span, label, condition);
            self.origins.push(origin);
        }
        // `let Some(..) = pool.remove(&id) else { .. };` guards the rest of the block.
        if let Stmt::Local(local) = stmt {
            if let Some(init) = local.init.as_ref().filter(|i| i.diverge.is_some()) {
                if let Some(collection) = registry_lookup(&init.expr) {
                    self.registry_guards.push(collection);
                }
            }
        }
        if self.starts_select_guard(stmt) || self.is_early_exit(stmt) {
            self.guard_depth += 1;
        }
        if let Some(block) = self.blocks.last_mut() {
            block.index += 1;
        }
    }

    /// A writing macro's arguments were visited: a send when they carry a message.
    fn leave_write_args(&mut self, mac: &syn::Macro, args: &[Expr]) {
        let name = macro_name(mac);
        if !vocab::WRITE_MACROS.contains(&name.as_str()) {
            return;
        }
        let Some(span) = self
            .macros
            .last()
            .filter(|(a, ..)| *a == macro_key(mac))
            .map(|(_, span, _)| *span)
        else {
            return;
        };
        let skip = if vocab::STDOUT_PRINT_MACROS.contains(&name.as_str()) {
            1
        } else {
            2
        };
        // Identifiers captured inside the format string (`println!("{reply}")`) are arguments
        // too.
        let captured: Vec<Expr> = args
            .get(skip - 1)
            .and_then(str_literal)
            .map(|format| format_captures(&format))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|ident| syn::parse_str::<Expr>(&ident).ok())
            .collect();
        let payload: Vec<&Expr> = args.iter().skip(skip).chain(captured.iter()).collect();
        let pure = args.iter().all(is_pure);
        self.note_written_params(&payload);
        self.note_written_calls(&payload, span);
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

    /// `x = value`: the local `x` now carries what the value carries.
    fn leave_assign(&mut self, assign: &syn::ExprAssign, pending: usize) {
        let (flows, _) = self.take_pending(pending, usize::MAX);
        let Expr::Path(p) = &*assign.left else {
            return;
        };
        let Some(ident) = p.path.get_ident() else {
            return;
        };
        let response = self.is_response_valued(&assign.right);
        let further = self.is_further_message(&assign.right);
        let params = self.params_of(&assign.right);
        let mut carried = self.flows_of(&assign.right);
        carried.extend(flows);
        if !self.origins.is_empty() {
            carried.extend(self.path_value(&assign.right));
        }
        let name = ident.to_string();
        if let Some(state) = self.current() {
            let entry = state.locals.entry(name).or_default();
            entry.response |= response;
            entry.further |= further;
            entry.params |= params;
            for flow in carried {
                if !entry.flows.contains(&flow) {
                    entry.flows.push(flow);
                }
            }
        }
    }

    /// A `let`'s initialiser was visited: its names carry what the value carries.
    fn bind_local(&mut self, local: &syn::Local, init: &Expr) {
        let (pending, pending_returns) = self.lets.last().copied().unwrap_or_default();
        let (flows, returns) = self.take_pending(pending, pending_returns);
        self.bind(&local.pat, Some(init), flows);
        let mut carried = returns;
        for ident in value_idents(init) {
            if let Some(l) = self.local(&ident) {
                carried.extend(l.cancel_values.iter().cloned());
            }
        }
        if carried.is_empty() {
            return;
        }
        let bindings = pattern_bindings(&local.pat);
        if let Some(state) = self.current() {
            for name in bindings {
                state
                    .locals
                    .entry(name)
                    .or_default()
                    .cancel_values
                    .extend(carried.iter().cloned());
            }
        }
    }
}

/// `Err(..)`.
fn is_err_call(expr: &Expr) -> bool {
    matches!(expr, Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Err")))
}

/// A closure or an `async` block, as it is, boxed or pinned (`Box::new(|p| ..)`,
/// `Box::pin(async move { .. })`): a handler a table can hold.
fn is_handler_closure(expr: &Expr) -> bool {
    matches!(peel_handler(expr), Expr::Closure(_) | Expr::Async(_))
}

/// The path of a function an expression names without calling it: `on_note`,
/// `Self::on_note`, `handlers::on_note`, through `as` casts and `Box::new`/`Arc::new`.
fn handler_path(expr: &Expr) -> Option<Vec<String>> {
    let Expr::Path(p) = peel_handler(expr) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segments = path_segments(&p.path);
    // A constant or a type (`CANCELLED`, `Handler`) is not a function.
    let last = segments.last()?;
    last.chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c == '_')
        .then_some(segments)
}

/// `a && b` (in parentheses or not): its negation holds when either side fails.
fn is_conjunction(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => is_conjunction(&p.expr),
        Expr::Group(g) => is_conjunction(&g.expr),
        Expr::Binary(b) => matches!(b.op, syn::BinOp::And(_)),
        _ => false,
    }
}

/// The local a `select!` branch's future is (`call`, `&mut call`, `call.as_mut()`).
fn held_future(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Reference(r) => held_future(&r.expr),
        Expr::Paren(p) => held_future(&p.expr),
        Expr::Group(g) => held_future(&g.expr),
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "as_mut" => {
            held_future(&m.receiver)
        }
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}
