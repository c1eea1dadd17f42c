//! The code of a function body that may not run when the code around it runs: what a write must
//! be outside of (or share with a serve site) to be shown to run whenever the program serves.
//!
//! A region is a branch of an `if` or a `match` (of more than one arm, or one with a guard), a loop's body, a closure's or an `async`
//! block's body, the right side of `&&` and `||`, an arm of `select!`, and the rest of a block
//! after a statement that may leave the function (`if .. { return }`, `let .. else`, a call of
//! `exit`, `bail!`). Code in no region of its function runs whenever the function runs and goes
//! on past it; code in the same regions as a serve site after it runs whenever that site does.

use syn::visit::Visit;
use syn::{BinOp, Expr, Stmt};

use crate::analysis::walk::{Node, Scope};
use crate::source::ByteSpan;

use super::exits::{diverging_macro, ends, ends_block};
use super::facts::ServingFacts;

/// The regions a node opens (see the module's text): branches, loops' bodies and the like to
/// `maybe`, and code that runs whenever its function goes on past the statement before it to
/// `rest` (the rest of a block after a statement that may leave, the one branch of an `if` or
/// a `match` whose others all leave). A loop's body goes to `loop_bodies` as well.
pub fn regions(node: Node<'_>, scope: &Scope<'_>, facts: &mut ServingFacts) {
    if let Node::Expr(Expr::Match(expr)) = node {
        note_match_arms(expr, scope, facts);
    }
    let ServingFacts {
        maybe: out,
        rest,
        loop_bodies: loops,
        ..
    } = facts;
    match node {
        Node::Expr(Expr::If(expr)) => {
            let then = block(&expr.then_branch, scope);
            match &expr.else_branch {
                Some((_, other)) => {
                    let other_span = scope.span(&**other);
                    match (ends_block(&expr.then_branch, false), ends(other, false)) {
                        (true, false) => {
                            out.push(then);
                            rest.push(other_span);
                        }
                        (false, true) => {
                            rest.push(then);
                            out.push(other_span);
                        }
                        _ => {
                            out.push(then);
                            out.push(other_span);
                        }
                    }
                }
                None => out.push(then),
            }
        }
        // A `match` of one arm with no guard runs it whenever it runs (the compiler holds the
        // pattern to be exhaustive: `match transport { Transport::Stdio => .. }`).
        Node::Expr(Expr::Match(expr)) if expr.arms.len() == 1 && expr.arms[0].guard.is_none() => {}
        Node::Expr(Expr::Match(expr)) => {
            let going_on: Vec<&syn::Arm> = expr
                .arms
                .iter()
                .filter(|arm| !ends(&arm.body, false))
                .collect();
            for arm in &expr.arms {
                let span = scope.span(&*arm.body);
                match going_on.as_slice() {
                    [only] if std::ptr::eq(*only, arm) && expr.arms.len() > 1 => rest.push(span),
                    _ => out.push(span),
                }
            }
        }
        Node::Expr(Expr::While(expr)) => {
            out.push(block(&expr.body, scope));
            loops.push(block(&expr.body, scope));
        }
        Node::Expr(Expr::ForLoop(expr)) => {
            out.push(block(&expr.body, scope));
            loops.push(block(&expr.body, scope));
        }
        Node::Expr(Expr::Loop(expr)) => {
            out.push(block(&expr.body, scope));
            loops.push(block(&expr.body, scope));
        }
        // A closure called where it is written (`(|| { .. })()`) runs then, as a block does.
        Node::Expr(Expr::Closure(expr)) if !called_in_place(expr, scope) => {
            out.push(scope.span(&*expr.body))
        }
        Node::Expr(Expr::Async(expr)) => out.push(block(&expr.block, scope)),
        Node::Expr(Expr::Binary(expr)) if matches!(expr.op, BinOp::And(_) | BinOp::Or(_)) => {
            out.push(scope.span(&*expr.right))
        }
        Node::SelectArm(arm) => out.push(scope.span(&arm.handler)),
        Node::Block(body) => {
            let end = block(body, scope).end;
            let count = body.stmts.len();
            for (i, stmt) in body.stmts.iter().enumerate() {
                if i + 1 < count && may_leave(stmt) {
                    let start = scope.span(stmt).end;
                    if start < end {
                        rest.push(ByteSpan { start, end });
                    }
                }
            }
        }
        _ => {}
    }
}

/// The arms of a `match` that are a choice the rules read (see [`ServingFacts::variant_arms`],
/// [`ServingFacts::message_arms`] and [`ServingFacts::parsed_arms`]).
fn note_match_arms(expr: &syn::ExprMatch, scope: &Scope<'_>, facts: &mut ServingFacts) {
    for arm in &expr.arms {
        if let Some(owner) = variant_owner(&arm.pat) {
            facts.variant_arms.push((scope.span(&*arm.body), owner));
        }
    }
    let parsed = parsed_root(expr, scope);
    if chosen_by_a_parameter(expr, scope)
        || parsed
            .as_deref()
            .is_some_and(|root| is_parameter(scope, root))
    {
        (expr.arms.iter()).for_each(|arm| facts.message_arms.push(scope.span(&*arm.body)));
    } else if parsed.is_some() {
        (expr.arms.iter()).for_each(|arm| facts.parsed_arms.push(scope.span(&*arm.body)));
    }
}

/// Whether a closure is called where it is written: it is the callee of the call that holds it,
/// through parentheses (`(|| -> Result<_, E> { .. })()`).
fn called_in_place(closure: &syn::ExprClosure, scope: &Scope<'_>) -> bool {
    for n in 0.. {
        match scope.ancestor(n) {
            Some(Node::Expr(Expr::Paren(_))) => continue,
            Some(Node::Expr(Expr::Call(call))) => {
                let mut callee: &Expr = &call.func;
                while let Expr::Paren(inner) = callee {
                    callee = &inner.expr;
                }
                return matches!(callee, Expr::Closure(c) if std::ptr::eq(c, closure));
            }
            _ => return false,
        }
    }
    false
}

/// Whether a `match` chooses by a string a parameter of its function (not `self`) holds: its
/// arms are string literals (two at least), with a catch-all last or not (`match name {
/// "search" => .., "read" => .., other => .. }`).
fn chosen_by_a_parameter(expr: &syn::ExprMatch, scope: &Scope<'_>) -> bool {
    let literal = |pat: &syn::Pat| match pat {
        syn::Pat::Lit(lit) => matches!(lit.lit, syn::Lit::Str(_)),
        syn::Pat::Or(or) => or
            .cases
            .iter()
            .all(|case| matches!(case, syn::Pat::Lit(l) if matches!(l.lit, syn::Lit::Str(_)))),
        _ => false,
    };
    let (last, named) = match expr.arms.split_last() {
        Some((last, named)) if !literal(&last.pat) => (Some(last), named),
        _ => (None, expr.arms.as_slice()),
    };
    let catch_all = last.is_none_or(|arm| {
        matches!(&arm.pat, syn::Pat::Wild(_) | syn::Pat::Ident(_)) && arm.guard.is_none()
    });
    let Some(root) = crate::analysis::syntax::root_local(&expr.expr) else {
        return false;
    };
    let parameter = scope.function().is_some_and(|f| {
        f.sig.inputs.iter().any(|input| match input {
            syn::FnArg::Typed(arg) => {
                matches!(&*arg.pat, syn::Pat::Ident(ident) if ident.ident == root.as_str())
            }
            syn::FnArg::Receiver(_) => false,
        })
    });
    named.len() >= 2
        && named
            .iter()
            .all(|arm| literal(&arm.pat) && arm.guard.is_none())
        && catch_all
        && parameter
}

/// What a `match` chooses by when it chooses by whether a value parses: its two arms are
/// `Ok(..)` and `Err(..)`, with no guard, and its scrutinee is the deserialisation of a value
/// (`serde_json::from_value(request.params.clone())`, `from_str(&line)`, `.parse()`), or a local
/// such a deserialisation initialises in a block around it (batch 81's chasm: `match params {
/// Ok(params) => tools::call_tool(..), Err(e) => .. }`): the local or parameter the parsed value
/// is read from (not `self`).
fn parsed_root(expr: &syn::ExprMatch, scope: &Scope<'_>) -> Option<String> {
    let arm_of = |arm: &syn::Arm, name: &str| {
        arm.guard.is_none() && matches!(&arm.pat, syn::Pat::TupleStruct(t) if t.path.is_ident(name))
    };
    let [first, second] = expr.arms.as_slice() else {
        return None;
    };
    if !((arm_of(first, "Ok") && arm_of(second, "Err"))
        || (arm_of(first, "Err") && arm_of(second, "Ok")))
    {
        return None;
    }
    if let Some(root) = parsed_from(&expr.expr) {
        return Some(root);
    }
    let Expr::Path(local) = &*expr.expr else {
        return None;
    };
    let name = local.path.get_ident()?;
    (0..)
        .map_while(|n| scope.ancestor(n))
        .find_map(|node| match node {
            Node::Block(block) => block.stmts.iter().find_map(|stmt| match stmt {
                Stmt::Local(let_) => {
                    let binds = match &let_.pat {
                        syn::Pat::Ident(ident) => ident.ident == *name,
                        syn::Pat::Type(typed) => {
                            matches!(&*typed.pat, syn::Pat::Ident(ident) if ident.ident == *name)
                        }
                        _ => false,
                    };
                    if binds {
                        parsed_from(&let_.init.as_ref()?.expr)
                    } else {
                        None
                    }
                }
                _ => None,
            }),
            _ => None,
        })
}

/// The local or parameter an expression deserialises (a call of `from_value`, `from_str`,
/// `from_slice` or `from_reader`, serde's formats, or a `.parse()`), when it reads one that is
/// not `self`.
fn parsed_from(expr: &Expr) -> Option<String> {
    let root = |arg: &Expr| crate::analysis::syntax::root_local(arg).filter(|root| root != "self");
    match expr {
        Expr::Call(call) => {
            let Expr::Path(path) = &*call.func else {
                return None;
            };
            let parse = path.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "from_value" | "from_str" | "from_slice" | "from_reader"
                )
            });
            if parse {
                call.args.iter().find_map(root)
            } else {
                None
            }
        }
        Expr::MethodCall(m) if m.method == "parse" => root(&m.receiver),
        Expr::Paren(p) => parsed_from(&p.expr),
        Expr::Reference(r) => parsed_from(&r.expr),
        _ => None,
    }
}

/// Whether `name` is a parameter of the function around the node (not `self`).
fn is_parameter(scope: &Scope<'_>, name: &str) -> bool {
    scope.function().is_some_and(|f| {
        f.sig.inputs.iter().any(|input| match input {
            syn::FnArg::Typed(arg) => {
                matches!(&*arg.pat, syn::Pat::Ident(ident) if ident.ident == name)
            }
            syn::FnArg::Receiver(_) => false,
        })
    })
}

/// The enum an arm's pattern names a variant of (`Commands` in `Commands::Serve { .. }`,
/// `cli::Commands::Mcp(args)`, `Some(Commands::Serve { .. })`), by the segment before the
/// variant; not `Self::`, nor `Some(x)` of anything else.
fn variant_owner(pat: &syn::Pat) -> Option<String> {
    let path = match pat {
        syn::Pat::Path(p) => &p.path,
        // `Some(Commands::Serve { .. })`: a sub-command clap leaves optional.
        syn::Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => {
            return t.elems.first().and_then(variant_owner);
        }
        syn::Pat::TupleStruct(t) => &t.path,
        syn::Pat::Struct(s) => &s.path,
        syn::Pat::Or(or) => return or.cases.first().and_then(variant_owner),
        _ => return None,
    };
    let count = path.segments.len();
    let owner = path.segments.iter().nth(count.checked_sub(2)?)?;
    (owner.ident != "Self").then(|| owner.ident.to_string())
}

fn block(body: &syn::Block, scope: &Scope<'_>) -> ByteSpan {
    scope.raw_span(body.brace_token.span.open(), body.brace_token.span.close())
}

/// Whether a statement may leave its function on some way through it: a `return`, a call of
/// `exit`, a diverging macro (`bail!`), or a `let .. else`; not inside a closure, an `async`
/// block or a nested item, which leave only themselves. `?` is an error's way out, not counted.
fn may_leave(stmt: &Stmt) -> bool {
    if let Stmt::Local(local) = stmt {
        if local
            .init
            .as_ref()
            .is_some_and(|init| init.diverge.is_some())
        {
            return true;
        }
    }
    let mut finder = Leaves(false);
    finder.visit_stmt(stmt);
    finder.0
}

struct Leaves(bool);

impl<'ast> Visit<'ast> for Leaves {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if self.0 {
            return;
        }
        match expr {
            Expr::Return(_) => self.0 = true,
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::Call(call)
                if matches!(&*call.func, Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "exit")) =>
            {
                self.0 = true
            }
            Expr::Macro(mac) if diverging_macro(&mac.mac) => self.0 = true,
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_stmt_macro(&mut self, mac: &'ast syn::StmtMacro) {
        if diverging_macro(&mac.mac) {
            self.0 = true;
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The regions of `regions` (a file's) inside the function whose whole item is `function` that
/// hold `span`.
pub fn around(regions: &[ByteSpan], function: ByteSpan, span: ByteSpan) -> Vec<ByteSpan> {
    regions
        .iter()
        .filter(|r| {
            function.start <= r.start
                && r.end <= function.end
                && *r != &function
                && r.start <= span.start
                && span.end <= r.end
        })
        .copied()
        .collect()
}
