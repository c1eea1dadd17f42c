//! How code ends the process: `exit(..)`, `abort()`, a macro that does not come back, and a
//! function whose `Some` ends the process: `if let Some(code) = try_shell_mode() {
//! std::process::exit(code) }` in `main`, where from some statement on `try_shell_mode` returns
//! `Some(..)` on every way out. What runs there runs only on the way out of the process, never
//! on the way to serving (a `-c` shell mode that prints its command's output and exits).

use syn::visit::Visit;
use syn::{Expr, Stmt};

use crate::analysis::syntax::{macro_name, peel};

/// The index of the first statement of a function body from which the function returns
/// `Some(..)` (or ends the process) on every way out: no `?` and no other `return` in the
/// statements from there on (outside closures, `async` blocks and nested items), and a tail
/// whose every value is `Some(..)`.
pub fn some_from(body: &syn::Block) -> Option<usize> {
    if !block_gives_some(body) {
        return None;
    }
    let mut first = body.stmts.len().checked_sub(1)?;
    while first > 0 && body.stmts.get(first - 1).is_some_and(leaves_only_with_some) {
        first -= 1;
    }
    Some(first)
}

/// The arms of a function body's tail `match` (or `if` chain, nested) whose value is `Some(..)`
/// and that leave the function only with `Some(..)`: once one is entered, the function gives
/// `Some` (`Some("view") => Some(view::run(path))` beside `_ => None`). Found only when the body's
/// statements before the tail leave only with `Some(..)` too, or not at all.
pub fn some_arms(body: &syn::Block) -> Vec<&Expr> {
    let Some((Stmt::Expr(tail, None), before)) = body.stmts.split_last() else {
        return Vec::new();
    };
    if !before.iter().all(leaves_only_with_some) {
        return Vec::new();
    }
    let mut arms = Vec::new();
    collect_some_arms(tail, &mut arms, SOME_ARM_DEPTH);
    arms
}

/// How deep [`some_arms`] looks into arms that are themselves a `match` or an `if`.
const SOME_ARM_DEPTH: usize = 3;

fn collect_some_arms<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>, depth: usize) {
    let take = |value: &'a Expr, out: &mut Vec<&'a Expr>| {
        if gives_some(value) && expr_leaves_only_with_some(value) {
            out.push(value);
        } else if depth > 0 {
            collect_some_arms(value, out, depth - 1);
        }
    };
    match bare(expr) {
        Expr::Match(m) => {
            for arm in &m.arms {
                take(&arm.body, out);
            }
        }
        Expr::If(i) => {
            if let Some(Stmt::Expr(then, None)) = i.then_branch.stmts.last() {
                if i.then_branch.stmts.len() == 1 {
                    take(then, out);
                }
            }
            if let Some((_, other)) = &i.else_branch {
                take(other, out);
            }
        }
        Expr::Block(b) if b.block.stmts.len() == 1 => {
            if let Some(Stmt::Expr(inner, None)) = b.block.stmts.last() {
                take(inner, out);
            }
        }
        _ => {}
    }
}

/// Whether a function gives its caller nothing to decide by: no return type, no `&mut`
/// parameter (a `&mut self` receiver included), no `async` (whose future the caller may race),
/// and nothing in its body that ends the process or unwinds (`exit(..)`, `abort()`, `panic!`,
/// `unreachable!`, ..), outside closures and nested items.
pub fn decides_nothing(sig: &syn::Signature, body: &syn::Block) -> bool {
    struct Ends(bool);
    impl<'ast> Visit<'ast> for Ends {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            if exits_process(expr) {
                self.0 = true;
                return;
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0 |= diverging_macro(mac) || macro_name(mac) == "assert";
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mutable = sig.inputs.iter().any(|input| match input {
        syn::FnArg::Receiver(r) => r.mutability.is_some() && r.reference.is_some(),
        syn::FnArg::Typed(t) => matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()),
    });
    if !matches!(sig.output, syn::ReturnType::Default) || mutable || sig.asyncness.is_some() {
        return false;
    }
    let mut ends = Ends(false);
    ends.visit_block(body);
    !ends.0
}

/// The `return Some(..)` expressions of a function body, outside its closures, `async` blocks
/// and nested items (whose `return` leaves them, not the function).
pub fn some_returns(body: &syn::Block) -> Vec<&Expr> {
    struct Returns<'a>(Vec<&'a Expr>);
    impl<'ast> Visit<'ast> for Returns<'ast> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            if let Expr::Return(r) = expr {
                if r.expr.as_deref().is_some_and(|value| {
                    matches!(bare(value), Expr::Call(call) if matches!(&*call.func, Expr::Path(p)
                        if p.path.segments.last().is_some_and(|s| s.ident == "Some")))
                }) {
                    self.0.push(expr);
                }
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut returns = Returns(Vec::new());
    returns.visit_block(body);
    returns.0
}

/// A call whose `Some` ends the process: `if let Some(code) = f() { exit(code) }` or `match f()
/// { Some(code) => exit(code), None => {} }`, by the called function's name. In `main` itself
/// (`in_main`, outside closures and `async` blocks), a `return` ends it too: `if let Some(result)
/// = dispatch_subcommand(&args) { return result; }`.
pub fn exit_on_some(expr: &Expr, in_main: bool) -> Option<(String, &Expr)> {
    let ends = |e: &Expr| exits_process(e) || (in_main && matches!(bare(e), Expr::Return(_)));
    let (scrutinee, exits) = match expr {
        Expr::If(i) => match &*i.cond {
            Expr::Let(l) if is_some_pattern(&l.pat) => (
                &*l.expr,
                matches!(i.then_branch.stmts.last(), Some(Stmt::Expr(e, _)) if ends(e)),
            ),
            _ => return None,
        },
        Expr::Match(m) => {
            let mut somes = m.arms.iter().filter(|arm| is_some_pattern(&arm.pat));
            let exits = match (somes.next(), somes.next()) {
                (Some(arm), None) => arm.guard.is_none() && ends(&arm.body),
                _ => false,
            };
            (&*m.expr, exits)
        }
        _ => return None,
    };
    if !exits {
        return None;
    }
    let name = match peel(scrutinee) {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
            _ => return None,
        },
        Expr::MethodCall(call) => call.method.to_string(),
        _ => return None,
    };
    Some((name, scrutinee))
}

/// Macros that come back, with no `?` or `return` of their own.
const QUIET_MACROS: &[&str] = &[
    "print",
    "println",
    "indicatif_println",
    "eprint",
    "eprintln",
    "format",
    "write",
    "writeln",
    "vec",
    "matches",
    "assert",
    "assert_eq",
    "debug_assert",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "concat",
];

/// `Some(x)`, `Some(_)`.
fn is_some_pattern(pat: &syn::Pat) -> bool {
    matches!(pat, syn::Pat::TupleStruct(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "Some"))
}

/// An expression without its parentheses.
fn bare(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => bare(&p.expr),
        Expr::Group(g) => bare(&g.expr),
        _ => expr,
    }
}

/// Whether every value a block gives is `Some(..)` or the block does not come back.
fn block_gives_some(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(e, None)) => gives_some(e),
        Some(Stmt::Expr(e, Some(_))) => {
            matches!(bare(e), Expr::Return(_) | Expr::Macro(_)) && gives_some(e) || exits_process(e)
        }
        Some(Stmt::Macro(m)) => diverging_macro(&m.mac),
        _ => false,
    }
}

/// Whether every value an expression gives is `Some(..)`, or it does not come back.
fn gives_some(expr: &Expr) -> bool {
    match bare(expr) {
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "Some"))
                || exits_process(expr)
        }
        Expr::Return(r) => r.expr.as_deref().is_some_and(gives_some),
        Expr::Block(b) => block_gives_some(&b.block),
        Expr::Unsafe(b) => block_gives_some(&b.block),
        Expr::If(i) => {
            block_gives_some(&i.then_branch)
                && i.else_branch.as_ref().is_some_and(|(_, e)| gives_some(e))
        }
        Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|arm| gives_some(&arm.body)),
        Expr::Macro(m) => diverging_macro(&m.mac),
        _ => false,
    }
}

/// Whether a statement leaves its function only with `Some(..)`: no `?`, and every `return`
/// in it gives `Some(..)` (closures, `async` blocks and nested items leave themselves).
fn leaves_only_with_some(stmt: &Stmt) -> bool {
    let mut exits = SomeExits(true);
    exits.visit_stmt(stmt);
    exits.0
}

/// [`leaves_only_with_some`] for an expression.
fn expr_leaves_only_with_some(expr: &Expr) -> bool {
    let mut exits = SomeExits(true);
    exits.visit_expr(expr);
    exits.0
}

/// Whether what was visited leaves its function only with `Some(..)` (see
/// [`leaves_only_with_some`]).
struct SomeExits(bool);

impl<'ast> Visit<'ast> for SomeExits {
    fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
        self.0 = false;
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if !r.expr.as_deref().is_some_and(gives_some) {
            self.0 = false;
        }
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro's body may hold a `?` or a `return` (`ensure!`, `bail!`) that its tokens
        // do not show as code; these only format, print or log.
        let name = macro_name(mac);
        if !QUIET_MACROS.contains(&name.as_str()) {
            self.0 = false;
        }
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether an expression ends the process: `exit(..)`, `abort()`, a block that ends so, a
/// `match` whose arms all do, an `if` whose branches both do.
pub fn exits_process(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "exit" || s.ident == "abort")),
        Expr::Block(b) => exits_process_block(&b.block),
        Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|arm| exits_process(&arm.body)),
        Expr::If(i) => {
            exits_process_block(&i.then_branch)
                && i.else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| exits_process(other))
        }
        _ => false,
    }
}

pub fn exits_process_block(block: &syn::Block) -> bool {
    matches!(block.stmts.last(), Some(Stmt::Expr(expr, _)) if exits_process(expr))
}

pub fn diverging_macro(mac: &syn::Macro) -> bool {
    matches!(
        macro_name(mac).as_str(),
        "bail" | "panic" | "unreachable" | "todo" | "unimplemented"
    )
}

/// Whether a block's last statement [`ends`] its way.
pub fn ends_block(block: &syn::Block, loops: bool) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, _)) => ends(expr, loops),
        Some(Stmt::Macro(mac)) => diverging_macro(&mac.mac),
        _ => false,
    }
}

/// Whether an expression goes no further: `return`, `exit(..)`, a diverging macro (`bail!`),
/// with `loops` also `break` and `continue`; or a block, `match` or `if` whose every way does.
pub fn ends(expr: &Expr, loops: bool) -> bool {
    match expr {
        Expr::Return(_) => true,
        Expr::Continue(_) | Expr::Break(_) => loops,
        Expr::Block(b) => ends_block(&b.block, loops),
        // `match run() { Ok(()) => return .., Err(e) => { ..; return .. } }`
        Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|arm| ends(&arm.body, loops)),
        Expr::If(i) => {
            ends_block(&i.then_branch, loops)
                && i.else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| ends(other, loops))
        }
        Expr::Call(call) => matches!(&*call.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "exit")),
        Expr::Macro(mac) => diverging_macro(&mac.mac),
        _ => false,
    }
}
