//! The bindings a removal leaves unused: `let msg = json!({..}).into(); self.out.send(msg);`
//! without its send leaves `msg` unused (a new warning that fails `-D warnings`), and the send
//! may have been what fixed `msg`'s type (`.into()` then no longer infers: E0283). A fix that
//! removes a statement removes such a binding too when its value is pure (built, not computed
//! with effects), and is not safe otherwise.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Block, Expr, Pat, Stmt};

use crate::analysis::spans::{self, Locating};
use crate::source::ByteSpan;

/// A `let` that a removal leaves unused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The `let` statement.
    pub span: ByteSpan,
    /// Its value only builds a value (no effect to keep): the statement can go.
    pub pure: bool,
    /// The binding as written (`mut name` or `name`), and its name: an orphan whose value has
    /// effects stays, renamed `_name`.
    pub binding: ByteSpan,
    pub name: String,
    /// The value's type was inferred from its use (`.into()`, `.parse()`, `.collect()`, ..
    /// without a type written): without the use nothing fixes it.
    pub inferred: bool,
}

/// The `let` statements of the block holding `removed` (a statement's span in `text`) that only
/// the removed statements use, found again as long as removing them orphans more. `None` when
/// the text cannot be read that far (it does not parse, or is too deep): the caller then cannot
/// tell, and must not call the removal safe.
pub fn orphaned_lets(text: &str, removed: ByteSpan) -> Option<Vec<Orphan>> {
    orphaned_lets_each(text, &[removed]).pop().flatten()
}

/// [`orphaned_lets`] for each of several removals from one text, which is parsed once. Only the
/// first [`READINGS_PER_TEXT`] removals are read (each reading looks through the statements of
/// the block around its removal, so a hostile file with thousands of removals in one block would
/// cost their number squared); the rest are `None`, not called safe.
pub fn orphaned_lets_each(text: &str, removals: &[ByteSpan]) -> Vec<Option<Vec<Orphan>>> {
    let mut found = vec![None; removals.len()];
    if removals.is_empty() {
        return found;
    }
    let start = crate::analysis::text::code_start(text);
    let code = &text[start..];
    if crate::analysis::nesting::too_deep(code).is_some() {
        return found;
    }
    let _locating = Locating::new(code);
    if let Ok(file) = syn::parse_file(code) {
        for (slot, removed) in found.iter_mut().zip(removals).take(READINGS_PER_TEXT) {
            let mut finder = BlockFinder {
                target: ByteSpan::new(
                    removed.start.saturating_sub(start),
                    removed.end - start.min(removed.end),
                ),
                base: start,
                found: None,
                exhausted: false,
            };
            finder.visit_file(&file);
            *slot = finder.found.and_then(|mut orphans| {
                // The bindings of the function around it (its parameters, the `let`s of outer
                // blocks, captured by a closure or an `async move` block) that only the removed
                // statements used.
                let mut outer = FunctionFinder {
                    target: finder.target,
                    base: start,
                    gone: orphans
                        .iter()
                        .filter(|o| o.pure)
                        .map(|o| ByteSpan::new(o.span.start - start, o.span.end - start))
                        .collect(),
                    known: orphans.iter().map(|o| o.name.clone()).collect(),
                    found: Vec::new(),
                    done: false,
                    exhausted: false,
                };
                outer.visit_file(&file);
                orphans.extend(outer.found);
                (!outer.exhausted).then_some(orphans)
            });
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    found
}

/// Finds the function around a removal, and the bindings of it that only the removal used: its
/// parameters (renamed `_name`, as rustc suggests) and the `let`s of its blocks (gone when pure,
/// renamed otherwise), the innermost block's own aside (the [`BlockFinder`] has them).
struct FunctionFinder {
    /// The removed span, in the code's offsets.
    target: ByteSpan,
    base: usize,
    /// What else goes with the removal (pure orphans), in the code's offsets.
    gone: Vec<ByteSpan>,
    /// The names already found.
    known: BTreeSet<String>,
    found: Vec<Orphan>,
    /// The innermost function around the removal was read.
    done: bool,
    /// Its search gave up after [`MAX_ROUNDS`]: the caller cannot tell what is left unused.
    exhausted: bool,
}

impl FunctionFinder {
    fn holds(&self, span: ByteSpan) -> bool {
        span.start <= self.target.start && self.target.end <= span.end
    }

    fn removed(&self, at: usize) -> bool {
        let inside = |s: &ByteSpan| s.start <= at && at < s.end;
        inside(&self.target) || self.gone.iter().any(inside)
    }

    /// One round over the function's bindings: `uses` holds where each name is used in its
    /// body, `lets` its `let` statements.
    fn function(
        &mut self,
        inputs: &[&syn::FnArg],
        uses: &HashMap<String, Vec<usize>>,
        lets: &[&Stmt],
    ) {
        // Used by the removal, and by nothing that stays (its own binding aside).
        // `own`: the binding's own parameter or `let` statement (its value cannot use it).
        let orphaned = |name: &str, own: ByteSpan| {
            let named: Vec<usize> = uses
                .get(name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|at| !(own.start <= *at && *at < own.end))
                .collect();
            named.iter().any(|at| self.removed(*at)) && named.iter().all(|at| self.removed(*at))
        };
        let base = self.base;
        let shift = |span: ByteSpan| ByteSpan::new(span.start + base, span.end + base);
        let mut found = Vec::new();
        for input in inputs.iter().copied() {
            let syn::FnArg::Typed(arg) = input else {
                continue;
            };
            let Pat::Ident(p) = &*arg.pat else {
                continue;
            };
            let name = p.ident.to_string();
            if name.starts_with('_') || p.subpat.is_some() || self.known.contains(&name) {
                continue;
            }
            let first = p.mutability.map_or(p.ident.span(), |m| m.span);
            let binding = spans::byte_span(first, p.ident.span(), 0);
            if orphaned(&name, binding) {
                found.push(Orphan {
                    span: shift(binding),
                    pure: false,
                    binding: shift(binding),
                    name,
                    inferred: false,
                });
            }
        }
        for stmt in lets.iter().copied() {
            let span = stmt_span(stmt);
            let Some(Let {
                name,
                init,
                binding,
                typed,
            }) = simple_let(stmt)
            else {
                continue;
            };
            if span.end > self.target.start || name.starts_with('_') || self.known.contains(&name) {
                continue;
            }
            if orphaned(&name, span) {
                let is_pure = init.is_some_and(pure);
                found.push(Orphan {
                    span: shift(span),
                    pure: is_pure,
                    binding: shift(binding),
                    name,
                    inferred: !typed && init.is_none_or(inferred),
                });
            }
        }
        for orphan in &found {
            self.known.insert(orphan.name.clone());
            if orphan.pure {
                self.gone.push(ByteSpan::new(
                    orphan.span.start - base,
                    orphan.span.end - base,
                ));
            }
        }
        self.found.extend(found);
    }

    /// [`FunctionFinder::function`] until it finds no more: a pure `let` that goes can leave
    /// what its value used unused in turn.
    /// The function's names are read once (where each is used: linear in the body), and the
    /// rounds are at most [`MAX_ROUNDS`].
    fn settle(&mut self, inputs: Vec<&syn::FnArg>, body: &Block) {
        self.done = true;
        let mut positioned: Vec<(String, usize)> = Vec::new();
        positioned_idents(body.to_token_stream(), &mut positioned);
        let mut uses: HashMap<String, Vec<usize>> = HashMap::new();
        for (name, at) in positioned {
            uses.entry(name).or_default().push(at);
        }
        let mut lets = Vec::new();
        LetCollector { lets: &mut lets }.visit_block(body);
        for _ in 0..MAX_ROUNDS {
            let before = self.found.len();
            self.function(&inputs, &uses, &lets);
            if self.found.len() == before {
                return;
            }
        }
        self.exhausted = true;
    }
}

impl FunctionFinder {
    /// A function whose body may hold the removal: the functions inside it first (the
    /// innermost one holding the removal wins), then its own bindings.
    fn in_function<'ast>(
        &mut self,
        inputs: Vec<&'ast syn::FnArg>,
        body: &'ast Block,
        inner: impl FnOnce(&mut Self),
    ) {
        let braces = body.brace_token.span;
        if !self.holds(spans::byte_span(braces.open(), braces.close(), 0)) {
            return;
        }
        inner(self);
        if !self.done {
            self.settle(inputs, body);
        }
    }
}

impl<'ast> Visit<'ast> for FunctionFinder {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let inputs = f.sig.inputs.iter().collect();
        self.in_function(inputs, &f.block, |s| syn::visit::visit_item_fn(s, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let inputs = f.sig.inputs.iter().collect();
        self.in_function(inputs, &f.block, |s| syn::visit::visit_impl_item_fn(s, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            let inputs = f.sig.inputs.iter().collect();
            self.in_function(inputs, block, |s| syn::visit::visit_trait_item_fn(s, f));
        }
    }
}

/// Every `let` statement of a function's blocks (not of nested functions).
struct LetCollector<'a, 'ast> {
    lets: &'a mut Vec<&'ast Stmt>,
}

impl<'ast> Visit<'ast> for LetCollector<'_, 'ast> {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if matches!(stmt, Stmt::Local(_)) {
            self.lets.push(stmt);
        }
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Every identifier of a token stream with where it is (macro bodies included; not a field or
/// method after a `.`), and what its string literals capture, at the literal's place
/// (`format!("{id}")` uses `id`).
fn positioned_idents(tokens: TokenStream, out: &mut Vec<(String, usize)>) {
    let mut stack = vec![tokens];
    while let Some(tokens) = stack.pop() {
        let mut dot = false;
        for tree in tokens {
            let after_dot = std::mem::replace(
                &mut dot,
                matches!(&tree, TokenTree::Punct(p) if p.as_char() == '.'),
            );
            match tree {
                // `self.out`, `x.send()`: a field or a method, not a binding.
                TokenTree::Ident(_) if after_dot => {}
                TokenTree::Ident(ident) => {
                    let at = spans::byte_span(ident.span(), ident.span(), 0).start;
                    out.push((ident.to_string(), at));
                }
                TokenTree::Group(group) => stack.push(group.stream()),
                TokenTree::Literal(literal) => {
                    // Only what a format string captures (`"{id}"`): a word in a string
                    // (`"id"` as a JSON key) names no binding.
                    let at = spans::byte_span(literal.span(), literal.span(), 0).start;
                    let text = literal.to_string();
                    out.extend(
                        crate::analysis::syntax::format_captures(&text)
                            .into_iter()
                            .map(|w| (w, at)),
                    );
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

/// How many rounds the search of a function's bindings takes at most (a pure `let` that goes
/// can orphan the bindings its value used, a few deep in real code).
const MAX_ROUNDS: usize = 16;

/// How many removals of one text are read precisely. Past this, the removals are not called
/// safe.
pub const READINGS_PER_TEXT: usize = 32;

/// Finds the innermost block with a statement inside the removed span, and its orphans.
struct BlockFinder {
    /// The removed span, in the code's offsets.
    target: ByteSpan,
    /// Where the code starts in the text.
    base: usize,
    found: Option<Vec<Orphan>>,
    /// The search gave up (see [`MAX_ROUNDS`]): no outer block is read instead.
    exhausted: bool,
}

impl<'ast> Visit<'ast> for BlockFinder {
    fn visit_block(&mut self, block: &'ast Block) {
        // Only the blocks around the removal matter (and reading only them keeps this linear).
        let braces = block.brace_token.span;
        if !self.holds(braces.open(), braces.close()) {
            return;
        }
        // Inner blocks first: the innermost one that holds the statement wins.
        syn::visit::visit_block(self, block);
        if self.found.is_none() && !self.exhausted {
            self.check(&block.stmts);
        }
    }

    /// Statements in a macro's braces (`tokio::select! { _ = t => { .. } }`) are read as a block
    /// when they parse as one.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let (open, close) = match &mac.delimiter {
            syn::MacroDelimiter::Paren(p) => (p.span.open(), p.span.close()),
            syn::MacroDelimiter::Brace(b) => (b.span.open(), b.span.close()),
            syn::MacroDelimiter::Bracket(b) => (b.span.open(), b.span.close()),
        };
        if !self.holds(open, close) {
            return;
        }
        let mut groups = vec![mac.tokens.clone()];
        // The macro's own braces hold statements too (`locked! { .. }`); of the groups inside,
        // only those around the removal are read.
        let mut blocks = vec![mac.tokens.clone()];
        while let Some(tokens) = groups.pop() {
            for tree in tokens {
                if let TokenTree::Group(group) = tree {
                    if !self.holds(group.span_open(), group.span_close()) {
                        continue;
                    }
                    if group.delimiter() == proc_macro2::Delimiter::Brace {
                        blocks.push(group.stream());
                    }
                    groups.push(group.stream());
                }
            }
        }
        // Innermost first: later groups were found deeper.
        for stream in blocks.into_iter().rev() {
            if self.found.is_some() || self.exhausted {
                return;
            }
            if let Ok(stmts) = syn::parse::Parser::parse2(Block::parse_within, stream) {
                for stmt in &stmts {
                    self.visit_stmt(stmt);
                }
                if self.found.is_none() && !self.exhausted {
                    self.check(&stmts);
                }
            }
        }
    }
}

impl BlockFinder {
    /// Whether the stretch from one token to another holds the removed span.
    fn holds(&self, first: proc_macro2::Span, last: proc_macro2::Span) -> bool {
        let span = spans::byte_span(first, last, 0);
        span.start <= self.target.start && self.target.end <= span.end
    }

    /// If a statement of `stmts` lies inside the removed span: the orphans it leaves there.
    fn check(&mut self, stmts: &[Stmt]) {
        let spans: Vec<ByteSpan> = stmts.iter().map(stmt_span).collect();
        let inside = |s: &ByteSpan| s.start >= self.target.start && s.end <= self.target.end;
        if !spans.iter().any(inside) {
            return;
        }
        // Which statements use each identifier, read once for every binding and round that asks
        // (a lookup per binding: linear in the block, however many `let`s it holds).
        let mut users: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, stmt) in stmts.iter().enumerate() {
            for name in idents(stmt.to_token_stream()) {
                users.entry(name).or_default().push(i);
            }
        }
        // Statements removed (the removal's, and pure orphans), and orphans found.
        let mut gone: Vec<bool> = spans.iter().map(inside).collect();
        let mut orphaned: Vec<bool> = gone.clone();
        let mut orphans = Vec::new();
        // Each round finds the bindings the last one's orphans used: a chain of `let`s takes a
        // round a link. Past [`MAX_ROUNDS`] the answer is "cannot tell" (the fix is not safe),
        // not a search by the square of the block.
        for round in 0.. {
            if round == MAX_ROUNDS {
                self.found = None;
                self.exhausted = true;
                return;
            }
            let mut more = false;
            for (index, stmt) in stmts.iter().enumerate() {
                if orphaned[index] {
                    continue;
                }
                let Some(Let {
                    name,
                    init,
                    binding,
                    typed,
                }) = simple_let(stmt)
                else {
                    continue;
                };
                let used = |keep: bool| {
                    users
                        .get(&name)
                        .into_iter()
                        .flatten()
                        .any(|&i| i != index && gone[i] != keep)
                };
                // Used by what is removed, by nothing that stays. An orphan whose value has
                // effects stays (renamed), and what it uses stays used.
                if used(false) && !used(true) {
                    let is_pure = init.is_some_and(pure);
                    orphaned[index] = true;
                    gone[index] = is_pure;
                    more = true;
                    let span = spans[index];
                    orphans.push(Orphan {
                        span: ByteSpan::new(span.start + self.base, span.end + self.base),
                        pure: is_pure,
                        binding: ByteSpan::new(binding.start + self.base, binding.end + self.base),
                        name,
                        inferred: !typed && init.is_none_or(inferred),
                    });
                }
            }
            if !more {
                break;
            }
        }
        self.found = Some(orphans);
    }
}

fn stmt_span(stmt: &Stmt) -> ByteSpan {
    let (first, last) = spans::stmt_bounds(stmt);
    spans::byte_span(first, last, 0)
}

/// What a simple `let` binds.
struct Let<'a> {
    name: String,
    init: Option<&'a Expr>,
    /// `mut name` or `name`, in the code's offsets.
    binding: ByteSpan,
    /// A type is written (`let x: T = ..`).
    typed: bool,
}

/// `let name = init;` (or `let mut name`, `let name: T`), with no `else`.
fn simple_let(stmt: &Stmt) -> Option<Let<'_>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let (pat, typed) = match &local.pat {
        Pat::Type(t) => (&*t.pat, true),
        other => (other, false),
    };
    let Pat::Ident(p) = pat else {
        return None;
    };
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let first = p.mutability.map_or(p.ident.span(), |m| m.span);
    let binding = spans::byte_span(first, p.ident.span(), 0);
    let init = match &local.init {
        Some(init) if init.diverge.is_some() => return None,
        Some(init) => Some(&*init.expr),
        None => None,
    };
    Some(Let {
        name: p.ident.to_string(),
        init,
        binding,
        typed,
    })
}

/// Whether a value's type is chosen by how it is used: a generic conversion or collection as
/// the outermost call (through `?`, `.await` and parentheses).
fn inferred(expr: &Expr) -> bool {
    const BY_USE: &[&str] = &[
        "into",
        "try_into",
        "parse",
        "collect",
        "sum",
        "product",
        "default",
        "from_str",
        "from_value",
        "from_slice",
        "from_reader",
        "deserialize",
    ];
    match expr {
        Expr::Try(t) => inferred(&t.expr),
        Expr::Await(a) => inferred(&a.base),
        Expr::Paren(p) => inferred(&p.expr),
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            BY_USE.contains(&method.as_str())
                || (matches!(
                    method.as_str(),
                    "unwrap" | "expect" | "unwrap_or_else" | "unwrap_or_default" | "ok"
                ) && inferred(&m.receiver))
        }
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| BY_USE.contains(&s.ident.to_string().as_str())),
            _ => false,
        },
        _ => false,
    }
}

/// Every identifier in a token stream, macro bodies included, and every word of its literals
/// (`format!("{msg}")` uses `msg`).
fn idents(tokens: TokenStream) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![tokens];
    while let Some(tokens) = stack.pop() {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => {
                    found.insert(ident.to_string());
                }
                TokenTree::Group(group) => stack.push(group.stream()),
                TokenTree::Literal(literal) => {
                    let text = literal.to_string();
                    found.extend(
                        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .filter(|w| !w.is_empty())
                            .map(str::to_string),
                    );
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
    found
}

/// Whether evaluating an expression only builds a value: literals, paths, `json!`/`format!`/
/// `vec!`, struct, tuple and array literals, references, and conversions of such values.
fn pure(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        // `-32800`, `!flag`: an operator on a built value (`*x` may run `Deref`, so not it).
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && pure(&u.expr),
        Expr::Field(f) => pure(&f.base),
        Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "json" | "format" | "vec" | "concat" | "stringify"
            )
        }),
        Expr::Struct(s) => s.fields.iter().all(|f| pure(&f.expr)) && s.rest.is_none(),
        Expr::Tuple(t) => t.elems.iter().all(pure),
        Expr::Array(a) => a.elems.iter().all(pure),
        Expr::Reference(r) => pure(&r.expr),
        Expr::Paren(p) => pure(&p.expr),
        Expr::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "into" | "to_string" | "to_owned" | "clone" | "to_vec"
            ) && m.args.is_empty()
                && pure(&m.receiver)
        }
        Expr::Call(c) => {
            let Expr::Path(path) = &*c.func else {
                return false;
            };
            let names: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            matches!(
                names
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .as_slice(),
                [
                    ..,
                    "String" | "Value" | "Box" | "Some" | "Ok",
                    "from" | "new"
                ] | ["Some" | "Ok" | "Err"]
            ) && c.args.iter().all(pure)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orphans(text: &str, removed: &str) -> Vec<(String, bool)> {
        let start = text.find(removed).expect("in the text");
        orphaned_lets(text, ByteSpan::new(start, start + removed.len()))
            .expect("parses")
            .into_iter()
            .map(|o| (text[o.span.start..o.span.end].to_string(), o.pure))
            .collect()
    }

    #[test]
    fn a_text_is_read_only_so_many_times() {
        let text = "fn f(&self) {\n    let m = json!({});\n    self.send(m);\n}\n".to_string();
        let start = text.find("self.send").expect("in the text");
        let removed = ByteSpan::new(start, start + "self.send(m);".len());
        let read: Vec<bool> = orphaned_lets_each(&text, &[removed; READINGS_PER_TEXT + 3])
            .iter()
            .map(Option::is_some)
            .collect();
        assert!(read[..READINGS_PER_TEXT].iter().all(|r| *r));
        assert!(read[READINGS_PER_TEXT..].iter().all(|r| !r));
        // The budget is one call's: the same text read again, at the same place, is read.
        assert!(orphaned_lets(&text, removed).is_some());
        assert!(orphaned_lets(&text, removed).is_some());
    }

    #[test]
    fn bindings_and_inference() {
        let text = "fn f(&self) {\n    let mut a = compute();\n    let b: Value = self.x().into();\n    let c = self.y().parse()?;\n    self.send(a, b, c);\n}\n";
        let start = text.find("self.send").expect("in the text");
        let found = orphaned_lets(
            text,
            ByteSpan::new(start, start + "self.send(a, b, c);".len()),
        )
        .expect("parses");
        let shown: Vec<(&str, &str, bool)> = found
            .iter()
            .map(|o| {
                (
                    &text[o.binding.start..o.binding.end],
                    o.name.as_str(),
                    o.inferred,
                )
            })
            .collect();
        assert_eq!(
            shown,
            [("mut a", "a", false), ("b", "b", false), ("c", "c", true)]
        );
    }

    #[test]
    fn a_binding_only_the_send_used_is_an_orphan() {
        let text = "fn f(&self, id: u64) {\n    let msg = json!({\"id\": id}).into();\n    self.out.send(msg);\n}\n";
        assert_eq!(
            orphans(text, "self.out.send(msg);"),
            [
                ("let msg = json!({\"id\": id}).into();".to_string(), true),
                // The parameter only that value used: renamed `_id`.
                ("id".to_string(), false)
            ]
        );
    }

    /// A chain of `let`s longer than the rounds the search takes: "cannot tell" (`None`), so
    /// the fix is not called safe, and the search stays linear in the block.
    #[test]
    fn a_chain_longer_than_the_rounds_cannot_be_told() {
        let mut text = String::from("fn f(&self) {\n    let a0 = 1;\n");
        for i in 1..40 {
            text.push_str(&format!("    let a{i} = a{};\n", i - 1));
        }
        text.push_str("    self.send(a39);\n}\n");
        let start = text.find("self.send").expect("send");
        let removed = ByteSpan::new(start, start + "self.send(a39);".len());
        assert_eq!(orphaned_lets(&text, removed), None);
        let short = "fn f(&self) {\n    let a0 = 1;\n    let a1 = a0;\n    self.send(a1);\n}\n";
        let start = short.find("self.send").expect("send");
        let removed = ByteSpan::new(start, start + "self.send(a1);".len());
        assert_eq!(orphaned_lets(short, removed).map(|o| o.len()), Some(2));
    }

    /// The bindings of outer blocks and the parameters that only the removed statement used,
    /// captured by an `async move` block: the pure ones go, the parameter is renamed; a field
    /// of the same name (`self.out`) and a JSON key (`"id"`) are no uses.
    #[test]
    fn outer_bindings_and_parameters_only_the_send_used_are_orphans() {
        let text = "fn f(&self, key: String, id: Value) {\n    let out = self.out.clone();\n    let t = tok();\n    tokio::spawn(async move {\n        tokio::select! {\n            _ = t.cancelled() => {\n                let _ = out.send(json!({\"id\": id}));\n            }\n        }\n        drop(key);\n    });\n}\n";
        assert_eq!(
            orphans(text, "let _ = out.send(json!({\"id\": id}));"),
            [
                ("id".to_string(), false),
                ("let out = self.out.clone();".to_string(), true),
            ]
        );
    }

    #[test]
    fn chains_of_bindings_and_impure_values() {
        let text = "fn f(&self) {\n    let a = compute();\n    let b = a.clone();\n    self.send(b);\n    log(1);\n}\n";
        assert_eq!(
            orphans(text, "self.send(b);"),
            [
                ("let b = a.clone();".to_string(), true),
                ("let a = compute();".to_string(), false)
            ]
        );
        // An orphan that stays keeps what it uses.
        let text =
            "fn f(&self) {\n    let a = compute();\n    let b = make(a);\n    self.send(b);\n}\n";
        assert_eq!(
            orphans(text, "self.send(b);"),
            [("let b = make(a);".to_string(), false)]
        );
    }

    #[test]
    fn statements_in_macro_braces_are_read() {
        let text = "fn f() {\n    tokio::select! {\n        _ = t.cancelled() => {\n            let m = json!({});\n            let _ = out.send(m);\n        }\n    }\n}\n";
        assert_eq!(
            orphans(text, "let _ = out.send(m);"),
            [("let m = json!({});".to_string(), true)]
        );
    }

    #[test]
    fn a_binding_used_elsewhere_stays() {
        let text = "fn f(&self) {\n    let msg = json!({});\n    self.send(msg.clone());\n    log!(\"{msg}\");\n}\n";
        assert!(orphans(text, "self.send(msg.clone());").is_empty());
        let text = "fn f(&self) {\n    let msg = json!({});\n    self.send(msg.clone());\n    other(msg);\n}\n";
        assert!(orphans(text, "self.send(msg.clone());").is_empty());
    }
}
