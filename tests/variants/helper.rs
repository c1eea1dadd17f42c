//! The reported statement moved into a new function of its own (or into a helper of that
//! function, `rewrite_twice`), called where it was: a method
//! of the same `impl` (`self.zz_h0(id.clone());`) or a free function beside the enclosing one,
//! taking the enclosing function's parameters it uses (cloned, or as they are when they are
//! references). The new function goes on the line where the enclosing one ends, so every line
//! keeps its place.
//!
//! A statement it cannot move is left: one on several lines or holding a comment; one that uses
//! a local of the enclosing function (whose type is not written), `?`, `return`, `break` or
//! `continue`; one in a closure, an `async` block or a macro's body.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{FnArg, ImplItemFn, ItemFn, Pat, Signature, Stmt};

use crate::edit::Edits;
use crate::Input;

struct Functions<'a, 'i> {
    input: &'a Input<'i>,
    edits: Edits,
    count: usize,
    /// How many functions deep the statement goes: 1, a helper; 2, a helper that calls a
    /// helper of its own with what it was given.
    depth: usize,
    /// The new functions of the enclosing function being read.
    pending: Vec<String>,
}

/// The statements of a function's body, in its blocks (`if`, `match` arms, loops), not in
/// closures or `async` blocks (what they capture is not the function's to pass on).
struct Statements<'a>(Vec<&'a Stmt>);

impl<'a> Visit<'a> for Statements<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        self.0.push(stmt);
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}

    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}

    fn visit_item(&mut self, _: &'a syn::Item) {}
}

impl<'a> Visit<'a> for Functions<'a, '_> {
    fn visit_item_fn(&mut self, f: &'a ItemFn) {
        self.function(&f.sig, &f.block, false);
    }

    fn visit_impl_item_fn(&mut self, f: &'a ImplItemFn) {
        self.function(&f.sig, &f.block, true);
    }
}

/// The names a pattern binds.
fn bindings(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.to_string());
            if let Some((_, sub)) = &p.subpat {
                bindings(sub, out);
            }
        }
        Pat::Type(t) => bindings(&t.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| bindings(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| bindings(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| bindings(&f.pat, out)),
        Pat::Reference(r) => bindings(&r.pat, out),
        Pat::Or(o) => o.cases.iter().for_each(|p| bindings(p, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| bindings(p, out)),
        _ => {}
    }
}

/// Every name bound in a block by a pattern (`let`, `match` arms, closures, `for`, `if let`).
struct Bound(Vec<String>);

impl<'a> Visit<'a> for Bound {
    fn visit_pat(&mut self, pat: &'a Pat) {
        bindings(pat, &mut self.0);
        syn::visit::visit_pat(self, pat);
    }
}

/// The identifiers of a token stream (not after `.`: fields and methods), and whether it holds
/// something a moved statement cannot take (`?`, `return`, `break`, `continue`, a label).
fn idents(stream: TokenStream, out: &mut Vec<String>, blocked: &mut bool) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        let after_dot = matches!(i.checked_sub(1).and_then(|p| tokens.get(p)),
            Some(TokenTree::Punct(p)) if p.as_char() == '.');
        match token {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                if matches!(name.as_str(), "return" | "break" | "continue") {
                    *blocked = true;
                }
                if !after_dot {
                    out.push(name);
                }
            }
            TokenTree::Punct(p) if p.as_char() == '?' || p.as_char() == '\'' => *blocked = true,
            // A format string's captures (`"{reply}"`) use names too.
            TokenTree::Literal(l) => {
                let text = l.to_string();
                let mut rest = text.as_str();
                while let Some(open) = rest.find('{') {
                    rest = &rest[open + 1..];
                    let len = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if len > 0 {
                        out.push(rest[..len].to_string());
                    }
                }
            }
            TokenTree::Group(g) => idents(g.stream(), out, blocked),
            _ => {}
        }
    }
}

impl Functions<'_, '_> {
    fn function(&mut self, sig: &Signature, block: &syn::Block, in_impl: bool) {
        // Parameters: (name, type text, is a reference).
        let mut params = Vec::new();
        let mut receiver = None;
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(r) => {
                    receiver = Some(self.input.text.slice(self.input.text.of(r)).to_string());
                }
                FnArg::Typed(t) => {
                    let Pat::Ident(p) = &*t.pat else { continue };
                    let ty = self
                        .input
                        .text
                        .slice(self.input.text.of(&*t.ty))
                        .to_string();
                    let by_ref = matches!(&*t.ty, syn::Type::Reference(_));
                    params.push((p.ident.to_string(), ty, by_ref));
                }
            }
        }
        if in_impl != receiver.is_some() || !sig.generics.params.is_empty() {
            return;
        }
        let mut bound = Bound(Vec::new());
        bound.visit_block(block);
        let locals: Vec<String> = bound
            .0
            .into_iter()
            .filter(|name| !params.iter().any(|(p, _, _)| p == name))
            .collect();
        let mut statements = Statements(Vec::new());
        statements.visit_block(block);
        for stmt in statements.0 {
            self.statement(stmt, sig, receiver.as_deref(), &params, &locals);
        }
        // The new functions go after the enclosing one's closing brace, on its line.
        if !self.pending.is_empty() {
            let (_, end) = self.input.text.range(block.brace_token.span.close());
            let definitions = std::mem::take(&mut self.pending).concat();
            self.edits.insert(end, definitions);
        }
    }

    fn statement(
        &mut self,
        stmt: &Stmt,
        sig: &Signature,
        receiver: Option<&str>,
        params: &[(String, String, bool)],
        locals: &[String],
    ) {
        let range = self.input.text.of(stmt);
        let reported = self
            .input
            .reported
            .iter()
            .any(|&(start, _)| range.0 <= start && start < range.1);
        let whole = matches!(stmt, Stmt::Expr(_, Some(_)) | Stmt::Macro(_))
            || matches!(stmt, Stmt::Local(l) if matches!(&l.pat, Pat::Wild(_)));
        if !reported || !whole {
            return;
        }
        let text = self.input.text.slice(range);
        if text.contains('\n') || text.contains("//") {
            return;
        }
        let mut used = Vec::new();
        let mut blocked = false;
        idents(
            quote::ToTokens::to_token_stream(stmt),
            &mut used,
            &mut blocked,
        );
        if blocked || used.iter().any(|u| locals.contains(u)) {
            return;
        }
        let taken: Vec<&(String, String, bool)> = params
            .iter()
            .filter(|(name, _, _)| used.contains(name))
            .collect();
        let name = format!("zz_h{}", self.count);
        self.count += 1;
        let is_async = sig.asyncness.is_some() && text.contains(".await");
        let args = taken
            .iter()
            .map(|(n, _, by_ref)| {
                if *by_ref {
                    n.clone()
                } else {
                    format!("{n}.clone()")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let call_target = match receiver {
            Some(_) => format!("self.{name}"),
            None => name.clone(),
        };
        let call = format!(
            "{call_target}({args}){};",
            if is_async { ".await" } else { "" }
        );
        let mut head = Vec::new();
        if let Some(r) = receiver {
            head.push(r.to_string());
        }
        head.extend(taken.iter().map(|(n, ty, _)| format!("{n}: {ty}")));
        let asyncness = if is_async { "async " } else { "" };
        let head = head.join(", ");
        let mut body = text.to_string();
        let mut definition = String::new();
        // The innermost function holds the statement; each one out calls the next with what it
        // was given.
        for level in (1..self.depth).rev() {
            let inner = format!("{name}_{level}");
            definition += &format!(" {asyncness}fn {inner}({head}) {{ {body} }}");
            let target = match receiver {
                Some(_) => format!("self.{inner}"),
                None => inner.clone(),
            };
            let passed = taken
                .iter()
                .map(|(n, _, _)| n.clone())
                .collect::<Vec<_>>()
                .join(", ");
            body = format!(
                "{target}({passed}){};",
                if is_async { ".await" } else { "" }
            );
        }
        definition += &format!(" {asyncness}fn {name}({head}) {{ {body} }}");
        self.edits.replace(range, call);
        self.pending.push(definition);
    }
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    helpers(input, 1)
}

/// The statement moved into a helper of a helper.
pub fn rewrite_twice(input: &Input<'_>) -> Edits {
    helpers(input, 2)
}

fn helpers(input: &Input<'_>, depth: usize) -> Edits {
    let mut functions = Functions {
        input,
        edits: Edits::default(),
        count: 0,
        depth,
        pending: Vec::new(),
    };
    functions.visit_file(input.syntax);
    functions.edits
}
