//! Spans of syntax nodes, found from their first and last tokens.
//!
//! `syn`'s `Spanned::span` turns the whole node back into tokens to join their spans, which costs
//! as much as the node is large: asked for every call, statement and item, it would dominate the
//! analysis. The first and last tokens are reached by walking down the tree's edges instead; the
//! rare node kinds not handled here fall back to `Spanned`.
//!
//! Turning a token's span into a byte offset goes through [`start_of`] and [`end_of`]: while a
//! file is analysed ([`Locating`]), they read the offset off the file's own table of line starts
//! instead of `proc_macro2`'s (which counts characters through a tree map, and cost an eighth of
//! the whole run).

use std::cell::RefCell;

use proc_macro2::{LineColumn, Span};
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

/// Where a file's lines start, to turn a token's line and column into a byte offset.
struct Lines {
    text: String,
    /// Each line's start and end (before its `\n`), and whether it is ASCII (a column is then a
    /// byte count).
    lines: Vec<(usize, usize, bool)>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let mut lines = Vec::new();
        let mut start = 0;
        for line in text.split('\n') {
            lines.push((start, start + line.len(), line.is_ascii()));
            start += line.len() + 1;
        }
        Lines {
            text: text.to_string(),
            lines,
        }
    }

    /// The byte offset of a line and column (a column counts characters), if it lies in the
    /// text.
    fn offset(&self, at: LineColumn) -> Option<usize> {
        let &(start, end, ascii) = self.lines.get(at.line.checked_sub(1)?)?;
        if ascii {
            return (at.column <= end - start).then_some(start + at.column);
        }
        let line = self.text.get(start..end)?;
        let within = match line.char_indices().nth(at.column) {
            Some((byte, _)) => byte,
            None if line.chars().count() == at.column => line.len(),
            None => return None,
        };
        Some(start + within)
    }
}

thread_local! {
    /// The lines of the file being analysed on this thread.
    static LINES: RefCell<Option<Lines>> = const { RefCell::new(None) };
}

/// While alive, token spans are located in `text` (the text that was parsed) by its lines.
pub struct Locating(());

impl Locating {
    pub fn new(text: &str) -> Self {
        LINES.with(|lines| *lines.borrow_mut() = Some(Lines::new(text)));
        Locating(())
    }
}

impl Drop for Locating {
    fn drop(&mut self) {
        LINES.with(|lines| *lines.borrow_mut() = None);
    }
}

/// Where a position lies in the file being located, if one is and the position is in it.
fn located(at: LineColumn) -> Option<usize> {
    LINES.with(|lines| lines.borrow().as_ref().and_then(|l| l.offset(at)))
}

/// The byte offset where a span starts, in the text that was parsed.
pub fn start_of(span: Span) -> usize {
    located(span.start()).unwrap_or_else(|| span.byte_range().start)
}

/// The byte offset where a span ends, in the text that was parsed.
pub fn end_of(span: Span) -> usize {
    located(span.end()).unwrap_or_else(|| span.byte_range().end)
}

/// The bytes from one token to another, in a file whose code starts at `base`.
pub fn byte_span(first: Span, last: Span, base: usize) -> crate::source::ByteSpan {
    let start = start_of(first);
    let end = end_of(last).max(start);
    crate::source::ByteSpan::new(start + base, end + base)
}

/// The first and last token spans of an expression.
pub fn expr_bounds(expr: &Expr) -> (Span, Span) {
    (expr_first(expr), expr_last(expr))
}

fn attrs_first(attrs: &[syn::Attribute]) -> Option<Span> {
    attrs.first().map(|a| a.pound_token.span)
}

fn path_first(path: &syn::Path) -> Span {
    match (&path.leading_colon, path.segments.first()) {
        (Some(colon), _) => colon.spans[0],
        (None, Some(segment)) => segment.ident.span(),
        (None, None) => path.span(),
    }
}

fn path_last(path: &syn::Path) -> Span {
    match path.segments.last() {
        Some(segment) => match &segment.arguments {
            syn::PathArguments::None => segment.ident.span(),
            syn::PathArguments::AngleBracketed(args) => args.gt_token.span,
            syn::PathArguments::Parenthesized(args) => args.span(),
        },
        None => path.span(),
    }
}

fn delimiter_close(delimiter: &syn::MacroDelimiter) -> Span {
    match delimiter {
        syn::MacroDelimiter::Paren(p) => p.span.close(),
        syn::MacroDelimiter::Brace(b) => b.span.close(),
        syn::MacroDelimiter::Bracket(b) => b.span.close(),
    }
}

/// The first token of an expression.
pub fn expr_first(expr: &Expr) -> Span {
    let attrs = match expr {
        Expr::Array(e) => &e.attrs,
        Expr::Assign(e) => &e.attrs,
        Expr::Async(e) => &e.attrs,
        Expr::Await(e) => &e.attrs,
        Expr::Binary(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::Call(e) => &e.attrs,
        Expr::Cast(e) => &e.attrs,
        Expr::Closure(e) => &e.attrs,
        Expr::Field(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::Index(e) => &e.attrs,
        Expr::Lit(e) => &e.attrs,
        Expr::Macro(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::Paren(e) => &e.attrs,
        Expr::Path(e) => &e.attrs,
        Expr::Reference(e) => &e.attrs,
        Expr::Return(e) => &e.attrs,
        Expr::Struct(e) => &e.attrs,
        Expr::Try(e) => &e.attrs,
        Expr::Tuple(e) => &e.attrs,
        Expr::Unary(e) => &e.attrs,
        _ => return expr.span(),
    };
    if let Some(span) = attrs_first(attrs) {
        return span;
    }
    match expr {
        Expr::Array(e) => e.bracket_token.span.open(),
        Expr::Assign(e) => expr_first(&e.left),
        Expr::Async(e) => e.async_token.span,
        Expr::Await(e) => expr_first(&e.base),
        Expr::Binary(e) => expr_first(&e.left),
        Expr::Block(e) => match &e.label {
            Some(label) => label.name.apostrophe,
            None => e.block.brace_token.span.open(),
        },
        Expr::Call(e) => expr_first(&e.func),
        Expr::Cast(e) => expr_first(&e.expr),
        Expr::Closure(e) => match (
            &e.lifetimes,
            &e.constness,
            &e.movability,
            &e.asyncness,
            &e.capture,
        ) {
            (Some(l), ..) => l.for_token.span,
            (None, Some(c), ..) => c.span,
            (None, None, Some(m), ..) => m.span,
            (None, None, None, Some(a), _) => a.span,
            (None, None, None, None, Some(c)) => c.span,
            (None, None, None, None, None) => e.or1_token.span,
        },
        Expr::Field(e) => expr_first(&e.base),
        Expr::If(e) => e.if_token.span,
        Expr::Index(e) => expr_first(&e.expr),
        Expr::Lit(e) => e.lit.span(),
        Expr::Macro(e) => path_first(&e.mac.path),
        Expr::Match(e) => e.match_token.span,
        Expr::MethodCall(e) => expr_first(&e.receiver),
        Expr::Paren(e) => e.paren_token.span.open(),
        Expr::Path(e) => match &e.qself {
            Some(q) => q.lt_token.span,
            None => path_first(&e.path),
        },
        Expr::Reference(e) => e.and_token.span,
        Expr::Return(e) => e.return_token.span,
        Expr::Struct(e) => match &e.qself {
            Some(q) => q.lt_token.span,
            None => path_first(&e.path),
        },
        Expr::Try(e) => expr_first(&e.expr),
        Expr::Tuple(e) => e.paren_token.span.open(),
        Expr::Unary(e) => e.op.span(),
        _ => expr.span(),
    }
}

/// The last token of an expression.
pub fn expr_last(expr: &Expr) -> Span {
    match expr {
        Expr::Array(e) => e.bracket_token.span.close(),
        Expr::Assign(e) => expr_last(&e.right),
        Expr::Async(e) => e.block.brace_token.span.close(),
        Expr::Await(e) => e.await_token.span,
        Expr::Binary(e) => expr_last(&e.right),
        Expr::Block(e) => e.block.brace_token.span.close(),
        Expr::Call(e) => e.paren_token.span.close(),
        Expr::Cast(e) => e.ty.span(),
        Expr::Closure(e) => expr_last(&e.body),
        Expr::Field(e) => match &e.member {
            syn::Member::Named(ident) => ident.span(),
            syn::Member::Unnamed(index) => index.span,
        },
        Expr::ForLoop(e) => e.body.brace_token.span.close(),
        Expr::If(e) => match &e.else_branch {
            Some((_, other)) => expr_last(other),
            None => e.then_branch.brace_token.span.close(),
        },
        Expr::Index(e) => e.bracket_token.span.close(),
        Expr::Lit(e) => e.lit.span(),
        Expr::Loop(e) => e.body.brace_token.span.close(),
        Expr::Macro(e) => delimiter_close(&e.mac.delimiter),
        Expr::Match(e) => e.brace_token.span.close(),
        Expr::MethodCall(e) => e.paren_token.span.close(),
        Expr::Paren(e) => e.paren_token.span.close(),
        Expr::Path(e) => path_last(&e.path),
        Expr::Reference(e) => expr_last(&e.expr),
        Expr::Return(e) => match &e.expr {
            Some(value) => expr_last(value),
            None => e.return_token.span,
        },
        Expr::Struct(e) => e.brace_token.span.close(),
        Expr::Try(e) => e.question_token.span,
        Expr::Tuple(e) => e.paren_token.span.close(),
        Expr::Unary(e) => expr_last(&e.expr),
        Expr::Unsafe(e) => e.block.brace_token.span.close(),
        Expr::While(e) => e.body.brace_token.span.close(),
        _ => expr.span(),
    }
}

/// The first and last token spans of a statement.
pub fn stmt_bounds(stmt: &Stmt) -> (Span, Span) {
    match stmt {
        Stmt::Local(local) => (
            attrs_first(&local.attrs).unwrap_or(local.let_token.span),
            local.semi_token.span,
        ),
        Stmt::Expr(expr, semi) => (
            expr_first(expr),
            semi.map_or_else(|| expr_last(expr), |s| s.span),
        ),
        Stmt::Macro(m) => (
            attrs_first(&m.attrs).unwrap_or_else(|| path_first(&m.mac.path)),
            m.semi_token
                .map_or_else(|| delimiter_close(&m.mac.delimiter), |s| s.span),
        ),
        Stmt::Item(item) => (item.span(), item.span()),
    }
}

/// The first and last token spans of a macro invocation.
pub fn macro_bounds(mac: &syn::Macro) -> (Span, Span) {
    (path_first(&mac.path), delimiter_close(&mac.delimiter))
}

/// The first token of a function's signature and its attributes.
fn fn_first(attrs: &[syn::Attribute], vis: Option<&syn::Visibility>, sig: &syn::Signature) -> Span {
    if let Some(span) = attrs_first(attrs) {
        return span;
    }
    if let Some(vis) = vis {
        if !matches!(vis, syn::Visibility::Inherited) {
            return vis.span();
        }
    }
    sig.constness
        .map(|t| t.span)
        .or(sig.asyncness.map(|t| t.span))
        .or(sig.unsafety.map(|t| t.span))
        .or(sig.abi.as_ref().map(|a| a.extern_token.span))
        .unwrap_or(sig.fn_token.span)
}

pub fn item_fn_bounds(item: &syn::ItemFn) -> (Span, Span) {
    (
        fn_first(&item.attrs, Some(&item.vis), &item.sig),
        item.block.brace_token.span.close(),
    )
}

pub fn impl_item_fn_bounds(item: &syn::ImplItemFn) -> (Span, Span) {
    let first = match &item.defaultness {
        Some(d) if item.attrs.is_empty() && matches!(item.vis, syn::Visibility::Inherited) => {
            d.span
        }
        _ => fn_first(&item.attrs, Some(&item.vis), &item.sig),
    };
    (first, item.block.brace_token.span.close())
}

pub fn trait_item_fn_bounds(item: &syn::TraitItemFn, block: &syn::Block) -> (Span, Span) {
    (
        fn_first(&item.attrs, None, &item.sig),
        block.brace_token.span.close(),
    )
}

pub fn item_impl_bounds(item: &syn::ItemImpl) -> (Span, Span) {
    let first = attrs_first(&item.attrs)
        .or(item.defaultness.map(|t| t.span))
        .or(item.unsafety.map(|t| t.span))
        .unwrap_or(item.impl_token.span);
    (first, item.brace_token.span.close())
}

pub fn item_trait_bounds(item: &syn::ItemTrait) -> (Span, Span) {
    let first = attrs_first(&item.attrs)
        .or(match &item.vis {
            syn::Visibility::Inherited => None,
            vis => Some(vis.span()),
        })
        .or(item.unsafety.map(|t| t.span))
        .or(item.auto_token.map(|t| t.span))
        .unwrap_or(item.trait_token.span);
    (first, item.brace_token.span.close())
}

pub fn item_mod_bounds(item: &syn::ItemMod) -> (Span, Span) {
    let first = attrs_first(&item.attrs)
        .or(match &item.vis {
            syn::Visibility::Inherited => None,
            vis => Some(vis.span()),
        })
        .unwrap_or(item.mod_token.span);
    let last = match (&item.content, &item.semi) {
        (Some((brace, _)), _) => brace.span.close(),
        (None, Some(semi)) => semi.span,
        (None, None) => item.ident.span(),
    };
    (first, last)
}

/// Nodes whose first and last tokens are known without printing them.
pub trait Bounds {
    fn bounds(&self) -> (Span, Span);
}

impl Bounds for Expr {
    fn bounds(&self) -> (Span, Span) {
        expr_bounds(self)
    }
}

impl Bounds for Stmt {
    fn bounds(&self) -> (Span, Span) {
        stmt_bounds(self)
    }
}

impl Bounds for syn::Macro {
    fn bounds(&self) -> (Span, Span) {
        macro_bounds(self)
    }
}

impl Bounds for syn::ExprMethodCall {
    fn bounds(&self) -> (Span, Span) {
        let first = attrs_first(&self.attrs).unwrap_or_else(|| expr_first(&self.receiver));
        (first, self.paren_token.span.close())
    }
}

impl Bounds for syn::ExprCall {
    fn bounds(&self) -> (Span, Span) {
        let first = attrs_first(&self.attrs).unwrap_or_else(|| expr_first(&self.func));
        (first, self.paren_token.span.close())
    }
}

impl Bounds for syn::ExprMacro {
    fn bounds(&self) -> (Span, Span) {
        let (first, last) = macro_bounds(&self.mac);
        (attrs_first(&self.attrs).unwrap_or(first), last)
    }
}

impl Bounds for syn::ItemFn {
    fn bounds(&self) -> (Span, Span) {
        item_fn_bounds(self)
    }
}

impl Bounds for syn::ImplItemFn {
    fn bounds(&self) -> (Span, Span) {
        impl_item_fn_bounds(self)
    }
}

impl Bounds for syn::TraitItemFn {
    fn bounds(&self) -> (Span, Span) {
        match &self.default {
            Some(block) => trait_item_fn_bounds(self, block),
            None => {
                let s = self.span();
                (s, s)
            }
        }
    }
}

impl Bounds for syn::ItemImpl {
    fn bounds(&self) -> (Span, Span) {
        item_impl_bounds(self)
    }
}

impl Bounds for syn::ItemTrait {
    fn bounds(&self) -> (Span, Span) {
        item_trait_bounds(self)
    }
}

impl Bounds for syn::ItemMod {
    fn bounds(&self) -> (Span, Span) {
        item_mod_bounds(self)
    }
}

impl Bounds for syn::Pat {
    fn bounds(&self) -> (Span, Span) {
        let s = self.span();
        (s, s)
    }
}

impl Bounds for proc_macro2::Ident {
    fn bounds(&self) -> (Span, Span) {
        (self.span(), self.span())
    }
}

impl<T: Bounds + ?Sized> Bounds for Box<T> {
    fn bounds(&self) -> (Span, Span) {
        (**self).bounds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Offsets = Vec<(usize, usize)>;

    /// Every token's offsets, as `proc_macro2` finds them and as the lines do.
    fn both_ways(code: &str) -> (Offsets, Offsets) {
        fn spans(tokens: proc_macro2::TokenStream, out: &mut Vec<Span>) {
            for tree in tokens {
                out.push(tree.span());
                if let proc_macro2::TokenTree::Group(group) = tree {
                    out.push(group.span_open());
                    out.push(group.span_close());
                    spans(group.stream(), out);
                }
            }
        }
        let tokens: proc_macro2::TokenStream = code.parse().expect("lexes");
        let mut all = Vec::new();
        spans(tokens, &mut all);
        let library = all
            .iter()
            .map(|s| (s.byte_range().start, s.byte_range().end))
            .collect();
        let _locating = Locating::new(code);
        let lines = all.iter().map(|s| (start_of(*s), end_of(*s))).collect();
        (library, lines)
    }

    #[test]
    fn offsets_from_lines_are_those_of_proc_macro2() {
        let code =
            "fn a() {\r\n    let é = \"ünï\"; // ∑\n\tb(é, 'ß', \"x\\ny\");\n}\n/* 😀 */ fn c() {}";
        let (library, lines) = both_ways(code);
        assert!(library.len() > 20);
        assert_eq!(library, lines);
    }

    #[test]
    fn without_a_file_being_located_the_library_decides() {
        let tokens: proc_macro2::TokenStream = "x  yé z".parse().expect("lexes");
        let last = tokens.into_iter().last().expect("a token").span();
        assert_eq!(start_of(last), last.byte_range().start);
        assert_eq!(end_of(last), 8);
    }
}
