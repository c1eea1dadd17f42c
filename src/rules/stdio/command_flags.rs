//! `bool` locals that stand for a test of the sub-command: `let is_force_index =
//! matches!(cli.command, Commands::Index { force: true, .. }) || emission_heal;`, where
//! `emission_heal` starts `false` and is set `true` only inside `if matches!(cli.command,
//! Commands::Index { .. })`. An `if` on such a local runs only for the variants its tests admit,
//! as an `if matches!(..)` would: a variant guard (see [`super::facts::ServingFacts`]).

use std::collections::HashMap;

use syn::{Expr, Pat};

use crate::analysis::walk::{Node, Scope};
use crate::source::ByteSpan;

/// A test of the sub-command, as `serving::variant_test` reads it: the scrutinee's text, the
/// variants, and whether the test admits them (rather than every other).
pub type VariantTest = fn(&Expr) -> Option<(String, Vec<String>, bool)>;

/// What makes a local `true`.
#[derive(Clone)]
enum Term {
    /// A test that admits these variants of the scrutinee: `true` for a test that is the
    /// local's whole value for them (`let x = matches!(..)`), `false` for one under which it is
    /// set (`x = true` inside `if matches!(..)`), where the local may still be `false`.
    Test(String, Vec<String>, bool),
    /// Another such local.
    Local(String),
}

/// The `bool` locals of one function, and the `if`s on them.
#[derive(Default)]
pub struct CommandFlags {
    /// Per local: what makes it `true` (`None`: something the code does not show to be a test
    /// of the sub-command).
    locals: HashMap<String, Option<Vec<Term>>>,
    /// The blocks of `if`s on a local, the local, and whether the block runs when it is `true`
    /// (`if x`) or `false` (`if !x`).
    pending: Vec<(ByteSpan, String, bool)>,
    /// Locals given a literal `false` after their `let`: no longer exactly their tests.
    lowered: Vec<String>,
}

/// The terms of a disjunction of sub-command tests, locals and `false`.
fn terms(expr: &Expr, test: VariantTest) -> Option<Vec<Term>> {
    match expr {
        Expr::Paren(p) => terms(&p.expr, test),
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Or(_)) => {
            let mut all = terms(&b.left, test)?;
            all.extend(terms(&b.right, test)?);
            Some(all)
        }
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) if !b.value => Some(Vec::new()),
        Expr::Path(p) => p
            .path
            .get_ident()
            .map(|ident| vec![Term::Local(ident.to_string())]),
        other => match test(other) {
            Some((scrutinee, variants, true)) => Some(vec![Term::Test(scrutinee, variants, true)]),
            _ => None,
        },
    }
}

/// `x` or `!x`: the local, and whether the test holds when it is `true`.
fn tested_local(expr: &Expr) -> Option<(String, bool)> {
    match expr {
        Expr::Paren(p) => tested_local(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            local_name(&u.expr).map(|name| (name, false))
        }
        other => local_name(other).map(|name| (name, true)),
    }
}

fn local_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        Expr::Paren(p) => local_name(&p.expr),
        _ => None,
    }
}

impl CommandFlags {
    /// `let x = <tests>;`, `let mut x = false;`.
    pub fn note_local(&mut self, local: &syn::Local, test: VariantTest) {
        let pat = match &local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let Pat::Ident(ident) = pat else {
            return;
        };
        let value = local.init.as_ref().and_then(|init| {
            init.diverge
                .is_none()
                .then(|| terms(&init.expr, test))
                .flatten()
        });
        self.locals.insert(ident.ident.to_string(), value);
    }

    /// `x = true` inside the `then` block of an `if` that tests the sub-command: the local is
    /// also `true` for those variants. Any other assignment makes it unknown.
    pub fn note_assign(&mut self, assign: &syn::ExprAssign, scope: &Scope<'_>, test: VariantTest) {
        let Some(name) = local_name(&assign.left) else {
            return;
        };
        let Some(entry) = self.locals.get_mut(&name) else {
            return;
        };
        let term = match &*assign.right {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b),
                ..
            }) if b.value => guarding_test(scope, test).map(|(s, v)| Term::Test(s, v, false)),
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(_),
                ..
            }) => {
                self.lowered.push(name);
                return;
            }
            _ => None,
        };
        match (term, entry.as_mut()) {
            (Some(term), Some(terms)) => terms.push(term),
            _ => *entry = None,
        }
    }

    /// `if x { .. }`, `if x && .. { .. }`: the block runs only when the local is `true`;
    /// `if !x { .. }`, `if !x && .. { .. }`: only when it is `false`. The `else` block
    /// (`otherwise`) of `if x { .. } else { .. }` runs only when it is `false` (and of `if !x`,
    /// only when it is `true`); not that of a conjunction, which runs when either side fails.
    pub fn note_if(&mut self, expr: &syn::ExprIf, block: ByteSpan, otherwise: Option<ByteSpan>) {
        let (found, whole) = match &*expr.cond {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => (
                tested_local(&b.left).or_else(|| tested_local(&b.right)),
                false,
            ),
            other => (tested_local(other), true),
        };
        if let Some((name, when)) = found.filter(|(n, _)| self.locals.contains_key(n)) {
            if let (Some(other), true) = (otherwise, whole) {
                self.pending.push((other, name.clone(), !when));
            }
            self.pending.push((block, name, when));
        }
    }

    /// The locals that are `true` exactly for some variants of one scrutinee: every test that
    /// makes them `true` is their whole value (`let x = matches!(..) || matches!(..)`), and no
    /// assignment changes them. Each with the scrutinee and the variants.
    pub fn exact(&self) -> Vec<(String, String, Vec<String>)> {
        let mut exact = Vec::new();
        for name in self.locals.keys() {
            let mut tests = Vec::new();
            if !self.expand(name, 0, true, &mut tests) || tests.is_empty() {
                continue;
            }
            let scrutinee = tests[0].0.clone();
            if !tests.iter().all(|(s, _, whole)| *s == scrutinee && *whole) {
                continue;
            }
            let mut variants: Vec<String> = tests.into_iter().flat_map(|(_, v, _)| v).collect();
            variants.sort();
            variants.dedup();
            exact.push((name.clone(), scrutinee, variants));
        }
        exact.sort();
        exact
    }

    /// The variant guards of the function's `if`s on such locals: (block, scrutinee, variants,
    /// whether the block runs for those variants or for every other). A block that runs when
    /// the local is `false` runs for every other variant only when the local is `true` for every
    /// value of those variants (no `x = true` under a test).
    pub fn resolve(self) -> Vec<(ByteSpan, String, Vec<String>, bool)> {
        let mut guards = Vec::new();
        for (block, name, when) in &self.pending {
            let mut tests = Vec::new();
            if !self.expand(name, 0, false, &mut tests) || tests.is_empty() {
                continue;
            }
            let scrutinee = tests[0].0.clone();
            if tests.iter().any(|(s, _, _)| *s != scrutinee) {
                continue;
            }
            if !when && tests.iter().any(|(_, _, whole)| !whole) {
                continue;
            }
            let mut variants: Vec<String> = tests.into_iter().flat_map(|(_, v, _)| v).collect();
            variants.sort();
            variants.dedup();
            guards.push((*block, scrutinee, variants, *when));
        }
        guards
    }

    /// The tests that make `name` true, through the locals it is made of (a few deep).
    /// With `exact`, a local given a literal `false` after its `let` fails the expansion.
    fn expand(
        &self,
        name: &str,
        depth: usize,
        exact: bool,
        out: &mut Vec<(String, Vec<String>, bool)>,
    ) -> bool {
        let Some(Some(terms)) = self.locals.get(name) else {
            return false;
        };
        if depth > 4 || (exact && self.lowered.iter().any(|l| l == name)) {
            return false;
        }
        terms.iter().all(|term| match term {
            Term::Test(scrutinee, variants, whole) => {
                out.push((scrutinee.clone(), variants.clone(), *whole));
                true
            }
            Term::Local(other) => self.expand(other, depth + 1, exact, out),
        })
    }
}

/// The innermost `if` around the current node whose `then` block holds it and whose condition
/// admits variants of the sub-command (within the function, not through a closure).
fn guarding_test(scope: &Scope<'_>, test: VariantTest) -> Option<(String, Vec<String>)> {
    let mut child: Option<Node<'_>> = None;
    for level in 0..64 {
        let node = scope.ancestor(level)?;
        match node {
            Node::Expr(Expr::If(expr_if)) => {
                let in_then =
                    matches!(child, Some(Node::Block(b)) if std::ptr::eq(b, &expr_if.then_branch));
                if in_then {
                    if let Some((scrutinee, variants, true)) = test(&expr_if.cond) {
                        return Some((scrutinee, variants));
                    }
                }
            }
            Node::Expr(Expr::Closure(_) | Expr::Async(_))
            | Node::Item(_)
            | Node::ImplItem(_)
            | Node::TraitItem(_) => return None,
            _ => {}
        }
        child = Some(node);
    }
    None
}
