//! The file's own `macro_rules!` macros, expanded where they are invoked: the analysis reads the
//! code a local macro stands for (the matching rule's body with the invocation's fragments put
//! in), as the compiler would, so that a send wrapped in a macro is a send.
//!
//! The matcher covers what server code writes: literal tokens, delimited groups, fragments
//! (`$x:expr`, `$i:ident`, `$t:tt`, ...) and repetitions (`$( .. ),*`, `$( .. );+`, `$( .. )?`).
//! A fragment takes the tokens up to the next token the rule expects after it at the same level
//! (or one token tree for `ident`, `tt`, `literal`, `lifetime`). A rule that cannot be matched so
//! is skipped; an invocation no rule matches is read as before (its tokens as code).
//!
//! The tree is hostile: expansions are bounded in number, depth and size, so a macro that expands
//! to itself or doubles at each step costs little.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};

/// How many expansions one file's walk does at most.
pub const MAX_EXPANSIONS: usize = 512;
/// How deep expansions nest (a macro whose body invokes a macro) at most.
pub const MAX_DEPTH: usize = 8;
/// How many tokens one expansion holds at most.
const MAX_TOKENS: usize = 20_000;

/// One rule of a macro: what it matches, and what it stands for.
#[derive(Debug, Clone)]
struct Rule {
    matcher: Vec<TokenTree>,
    body: Vec<TokenTree>,
}

/// A file's `macro_rules!` macros, by name, as the walk meets their definitions (a later
/// definition of a name shadows an earlier one for the code after it).
#[derive(Debug, Default)]
pub struct LocalMacros {
    rules: HashMap<String, Vec<Rule>>,
}

impl LocalMacros {
    /// Learn a `macro_rules!` definition (any other item macro is none).
    pub fn define(&mut self, item: &syn::ItemMacro) {
        if !item.mac.path.is_ident("macro_rules") {
            return;
        }
        if let Some(ident) = &item.ident {
            let rules = parse_rules(item.mac.tokens.clone());
            if !rules.is_empty() {
                self.rules.insert(ident.to_string(), rules);
            }
        }
    }

    /// The `macro_rules!` definitions anywhere in a file (modules, function bodies).
    #[cfg(test)]
    pub fn of(file: &syn::File) -> Self {
        struct Finder(LocalMacros);
        impl<'ast> syn::visit::Visit<'ast> for Finder {
            fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
                self.0.define(item);
            }
        }
        let mut finder = Finder(LocalMacros::default());
        syn::visit::Visit::visit_file(&mut finder, file);
        finder.0
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn defines(&self, name: &str) -> bool {
        self.rules.contains_key(name)
    }

    /// The tokens the invocation `mac` stands for, if the file defines its macro and a rule
    /// matches. The body's own tokens take the invocation's span (the code is the invocation's);
    /// the fragments keep theirs.
    pub fn expand(&self, mac: &syn::Macro) -> Option<TokenStream> {
        let name = mac.path.get_ident()?.to_string();
        let rules = self.rules.get(&name)?;
        let input: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
        let site = invocation_span(mac);
        for rule in rules {
            let mut bindings = Bindings::default();
            if match_seq(&rule.matcher, &input, &mut bindings) == Some(input.len()) {
                let mut out = Vec::new();
                transcribe(&rule.body, &bindings, &[], site, &mut out, &mut 0)?;
                return Some(out.into_iter().collect());
            }
        }
        None
    }
}

/// A copy of `expr` in which the invocations of the file's own macros (`macros`) are replaced by
/// the code they stand for, for the analyses that read a piece of code on its own rather than
/// through the walk (a dispatcher's arms): `None` when it invokes none of them. Expansions nest up
/// to [`MAX_DEPTH`] deep and take from `budget` (the file's share of [`MAX_EXPANSIONS`]); an
/// invocation past either, or that no rule matches, stays as it is.
pub fn expanded_expr(
    macros: &LocalMacros,
    expr: &syn::Expr,
    budget: &std::cell::Cell<usize>,
) -> Option<syn::Expr> {
    if macros.is_empty() || budget.get() == 0 || !invokes_any(macros, expr) {
        return None;
    }
    let mut copy = expr.clone();
    let mut expander = Expander {
        macros,
        budget,
        depth: 0,
        changed: false,
    };
    syn::visit_mut::VisitMut::visit_expr_mut(&mut expander, &mut copy);
    expander.changed.then_some(copy)
}

/// Whether `expr` holds an invocation of one of `macros`.
fn invokes_any(macros: &LocalMacros, expr: &syn::Expr) -> bool {
    struct Finder<'m> {
        macros: &'m LocalMacros,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Finder<'_> {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(ident) = mac.path.get_ident() {
                self.found |= self.macros.defines(&ident.to_string());
            }
        }
    }
    let mut finder = Finder {
        macros,
        found: false,
    };
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.found
}

struct Expander<'m> {
    macros: &'m LocalMacros,
    budget: &'m std::cell::Cell<usize>,
    depth: usize,
    changed: bool,
}

impl Expander<'_> {
    /// The code an invocation stands for, as one expression (statements become a block).
    fn expand(&mut self, mac: &syn::Macro) -> Option<syn::Expr> {
        let name = mac.path.get_ident()?.to_string();
        if self.depth >= MAX_DEPTH || self.budget.get() == 0 || !self.macros.defines(&name) {
            return None;
        }
        self.budget.set(self.budget.get() - 1);
        let tokens = self.macros.expand(mac)?;
        let site = invocation_span(mac);
        let stmts = match super::syntax::parse_macro_body(&tokens)? {
            super::syntax::MacroBody::Exprs(mut exprs) if exprs.len() == 1 => return exprs.pop(),
            super::syntax::MacroBody::Exprs(exprs) => exprs
                .into_iter()
                .map(|e| syn::Stmt::Expr(e, Some(syn::Token![;](site))))
                .collect(),
            super::syntax::MacroBody::Stmts(stmts) => stmts,
        };
        Some(syn::Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: syn::Block {
                brace_token: syn::token::Brace(site),
                stmts,
            },
        }))
    }

    /// Visit the code an expansion stood in for, one level deeper.
    fn deeper(&mut self, visit: impl FnOnce(&mut Self)) {
        self.changed = true;
        self.depth += 1;
        visit(self);
        self.depth -= 1;
    }
}

impl syn::visit_mut::VisitMut for Expander<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Macro(m) = expr {
            if let Some(replacement) = self.expand(&m.mac) {
                *expr = replacement;
                self.deeper(|e| syn::visit_mut::visit_expr_mut(e, expr));
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
        if let syn::Stmt::Macro(m) = stmt {
            if let Some(replacement) = self.expand(&m.mac) {
                *stmt = syn::Stmt::Expr(replacement, m.semi_token);
                self.deeper(|e| syn::visit_mut::visit_stmt_mut(e, stmt));
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }
}

/// The span of an invocation, from its path to its closing delimiter.
fn invocation_span(mac: &syn::Macro) -> Span {
    let start = mac
        .path
        .segments
        .first()
        .map_or_else(Span::call_site, |s| s.ident.span());
    let end = match &mac.delimiter {
        syn::MacroDelimiter::Paren(p) => p.span.close(),
        syn::MacroDelimiter::Brace(b) => b.span.close(),
        syn::MacroDelimiter::Bracket(b) => b.span.close(),
    };
    start.join(end).unwrap_or(start)
}

/// `(matcher) => { body };` rules.
fn parse_rules(tokens: TokenStream) -> Vec<Rule> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut rules = Vec::new();
    let mut i = 0;
    while i + 3 < trees.len() + 1 {
        let (
            Some(TokenTree::Group(matcher)),
            Some(TokenTree::Punct(eq)),
            Some(TokenTree::Punct(gt)),
            Some(TokenTree::Group(body)),
        ) = (
            trees.get(i),
            trees.get(i + 1),
            trees.get(i + 2),
            trees.get(i + 3),
        )
        else {
            break;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            break;
        }
        rules.push(Rule {
            matcher: matcher.stream().into_iter().collect(),
            body: body.stream().into_iter().collect(),
        });
        i += 4;
        if matches!(trees.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    rules
}

/// What a matcher captured: per variable, its fragments, nested per repetition.
#[derive(Debug, Clone, Default)]
struct Bindings {
    vars: HashMap<String, Capture>,
}

#[derive(Debug, Clone)]
enum Capture {
    One(Vec<TokenTree>, bool),
    Many(Vec<Capture>),
}

/// A matcher element.
enum Element<'m> {
    Token(&'m TokenTree),
    Group(&'m Group),
    Fragment(String, String),
    Repeat {
        inner: Vec<TokenTree>,
        separator: Option<TokenTree>,
        op: char,
    },
}

/// The matcher's elements, `$x:kind` and `$( .. ) sep op` read as one each.
fn elements(matcher: &[TokenTree]) -> Option<Vec<Element<'_>>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < matcher.len() {
        match &matcher[i] {
            TokenTree::Punct(p) if p.as_char() == '$' => match matcher.get(i + 1) {
                Some(TokenTree::Ident(name)) => {
                    let (Some(TokenTree::Punct(colon)), Some(TokenTree::Ident(kind))) =
                        (matcher.get(i + 2), matcher.get(i + 3))
                    else {
                        return None;
                    };
                    if colon.as_char() != ':' {
                        return None;
                    }
                    out.push(Element::Fragment(name.to_string(), kind.to_string()));
                    i += 4;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    let (separator, op, used) = repetition_tail(matcher, i + 2)?;
                    out.push(Element::Repeat {
                        inner,
                        separator,
                        op,
                    });
                    i += 2 + used;
                }
                _ => return None,
            },
            TokenTree::Group(g) => {
                out.push(Element::Group(g));
                i += 1;
            }
            other => {
                out.push(Element::Token(other));
                i += 1;
            }
        }
    }
    Some(out)
}

/// After `$( .. )`: an optional separator and the operator (`*`, `+`, `?`), and how many tokens
/// they take.
fn repetition_tail(trees: &[TokenTree], at: usize) -> Option<(Option<TokenTree>, char, usize)> {
    let op_of = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    if let Some(op) = op_of(trees.get(at)) {
        return Some((None, op, 1));
    }
    let separator = trees.get(at)?.clone();
    let op = op_of(trees.get(at + 1))?;
    Some((Some(separator), op, 2))
}

/// Match `matcher` against the start of `input`: how many input trees it took.
fn match_seq(matcher: &[TokenTree], input: &[TokenTree], bindings: &mut Bindings) -> Option<usize> {
    let elements = elements(matcher)?;
    let mut pos = 0;
    for (index, element) in elements.iter().enumerate() {
        match element {
            Element::Token(t) => {
                if !same_token(t, input.get(pos)?) {
                    return None;
                }
                pos += 1;
            }
            Element::Group(g) => {
                let TokenTree::Group(got) = input.get(pos)? else {
                    return None;
                };
                if got.delimiter() != g.delimiter() {
                    return None;
                }
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let got_inner: Vec<TokenTree> = got.stream().into_iter().collect();
                if match_seq(&inner, &got_inner, bindings)? != got_inner.len() {
                    return None;
                }
                pos += 1;
            }
            Element::Fragment(name, kind) => {
                let next = elements.get(index + 1).and_then(first_token);
                let len = fragment_len(kind, &input[pos..], next)?;
                let tokens = input[pos..pos + len].to_vec();
                bindings
                    .vars
                    .insert(name.clone(), Capture::One(tokens, kind == "expr"));
                pos += len;
            }
            Element::Repeat {
                inner,
                separator,
                op,
            } => {
                let mut rounds: Vec<Bindings> = Vec::new();
                loop {
                    if *op == '?' && rounds.len() == 1 {
                        break;
                    }
                    let mut at = pos;
                    if !rounds.is_empty() {
                        if let Some(sep) = separator {
                            match input.get(at) {
                                Some(t) if same_token(sep, t) => at += 1,
                                _ => break,
                            }
                        }
                    }
                    let mut round = Bindings::default();
                    match match_seq(inner, &input[at.min(input.len())..], &mut round) {
                        Some(taken) if taken > 0 => {
                            rounds.push(round);
                            pos = at + taken;
                        }
                        _ => break,
                    }
                }
                if *op == '+' && rounds.is_empty() {
                    return None;
                }
                for name in repeated_names(inner) {
                    let captures = rounds
                        .iter()
                        .map(|r| {
                            r.vars
                                .get(&name)
                                .cloned()
                                .unwrap_or(Capture::Many(Vec::new()))
                        })
                        .collect();
                    bindings.vars.insert(name, Capture::Many(captures));
                }
            }
        }
    }
    Some(pos)
}

/// The first literal token an element expects, if it starts with one.
fn first_token<'m>(element: &Element<'m>) -> Option<&'m TokenTree> {
    match element {
        Element::Token(t) => Some(t),
        _ => None,
    }
}

/// The variables a repetition's matcher binds.
fn repeated_names(inner: &[TokenTree]) -> Vec<String> {
    let mut names = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        match (&inner[i], inner.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                names.push(name.to_string());
                i += 2;
            }
            (TokenTree::Group(g), _) => {
                names.extend(repeated_names(&g.stream().into_iter().collect::<Vec<_>>()));
                i += 1;
            }
            _ => i += 1,
        }
    }
    names
}

/// How many trees a fragment of `kind` takes from `input`, up to the `next` token the rule
/// expects (at this level), or all of them.
fn fragment_len(kind: &str, input: &[TokenTree], next: Option<&TokenTree>) -> Option<usize> {
    match kind {
        "ident" | "tt" | "literal" | "lifetime" => (!input.is_empty()).then_some(1),
        _ => {
            let end = match next {
                Some(next) => input.iter().position(|t| same_token(next, t))?,
                None => input
                    .iter()
                    .position(
                        |t| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';')),
                    )
                    .unwrap_or(input.len()),
            };
            (end > 0).then_some(end)
        }
    }
}

fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(a), TokenTree::Ident(b)) => a == b,
        (TokenTree::Punct(a), TokenTree::Punct(b)) => a.as_char() == b.as_char(),
        (TokenTree::Literal(a), TokenTree::Literal(b)) => a.to_string() == b.to_string(),
        (TokenTree::Group(a), TokenTree::Group(b)) => {
            a.delimiter() == b.delimiter() && a.stream().to_string() == b.stream().to_string()
        }
        _ => false,
    }
}

/// Write `body` with the bindings put in; `rounds` picks, per enclosing repetition, the round.
fn transcribe(
    body: &[TokenTree],
    bindings: &Bindings,
    rounds: &[usize],
    site: Span,
    out: &mut Vec<TokenTree>,
    count: &mut usize,
) -> Option<()> {
    let mut i = 0;
    while i < body.len() {
        *count += 1;
        if *count > MAX_TOKENS || out.len() > MAX_TOKENS {
            return None;
        }
        match (&body[i], body.get(i + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                match lookup(bindings, &name.to_string(), rounds) {
                    Some(Capture::One(tokens, expr)) => {
                        if *expr {
                            // An expression fragment stays one expression, as in the compiler.
                            let group =
                                Group::new(Delimiter::None, tokens.iter().cloned().collect());
                            out.push(TokenTree::Group(group));
                        } else {
                            out.extend(tokens.iter().cloned());
                        }
                    }
                    // `$crate` and unbound names are written as they are.
                    _ => {
                        out.push(respan(&body[i], site));
                        out.push(respan(&body[i + 1], site));
                    }
                }
                i += 2;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let (separator, _, used) = repetition_tail(body, i + 2)?;
                let times = repeat_count(&inner, bindings, rounds);
                for round in 0..times {
                    if round > 0 {
                        if let Some(sep) = &separator {
                            out.push(respan(sep, site));
                        }
                    }
                    let mut nested = rounds.to_vec();
                    nested.push(round);
                    transcribe(&inner, bindings, &nested, site, out, count)?;
                }
                i += 2 + used;
            }
            (TokenTree::Group(g), _) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let mut nested = Vec::new();
                transcribe(&inner, bindings, rounds, site, &mut nested, count)?;
                let mut group = Group::new(g.delimiter(), nested.into_iter().collect());
                group.set_span(site);
                out.push(TokenTree::Group(group));
                i += 1;
            }
            (tree, _) => {
                out.push(respan(tree, site));
                i += 1;
            }
        }
    }
    Some(())
}

/// The capture of `name` for the current rounds of the enclosing repetitions.
fn lookup<'b>(bindings: &'b Bindings, name: &str, rounds: &[usize]) -> Option<&'b Capture> {
    let mut capture = bindings.vars.get(name)?;
    for &round in rounds {
        match capture {
            Capture::Many(all) => capture = all.get(round)?,
            Capture::One(..) => break,
        }
    }
    Some(capture)
}

/// How many rounds a repetition in the body runs: the length of the repeated variables it uses.
fn repeat_count(inner: &[TokenTree], bindings: &Bindings, rounds: &[usize]) -> usize {
    repeated_names(inner)
        .iter()
        .filter_map(|name| match lookup(bindings, name, rounds) {
            Some(Capture::Many(all)) => Some(all.len()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

fn respan(tree: &TokenTree, site: Span) -> TokenTree {
    let mut tree = tree.clone();
    tree.set_span(site);
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(file: &str, call: &str) -> Option<String> {
        let file: syn::File = syn::parse_str(file).expect("parses");
        let macros = LocalMacros::of(&file);
        let mac: syn::Macro = syn::parse_str(call).expect("a macro call");
        macros.expand(&mac).map(|t| t.to_string())
    }

    #[test]
    fn a_rule_with_an_expression_fragment_expands() {
        let text = "macro_rules! emit { ($v:expr) => {{ let mut o = std::io::stdout(); writeln!(o, \"{}\", $v); }}; }";
        let expanded = expand(text, "emit!(json!({\"id\": 1}))").expect("expands");
        assert!(expanded.contains("writeln !"), "{expanded}");
        assert!(expanded.contains("json ! ({ \"id\" : 1 })"), "{expanded}");
    }

    #[test]
    fn the_first_matching_rule_and_repetitions_expand() {
        let text = "macro_rules! send { () => { nothing() }; ($out:expr, $($k:ident = $v:expr),*) => { $out.write(vec![$(($k, $v)),*]) }; }";
        assert_eq!(expand(text, "send!()").as_deref(), Some("nothing ()"));
        let expanded = expand(text, "send!(w, a = 1, b = 2)").expect("expands");
        let compact: String = expanded.split_whitespace().collect();
        assert_eq!(compact, "w.write(vec![(a,1),(b,2)])");
    }

    #[test]
    fn nothing_matches_or_nothing_is_defined() {
        let text = "macro_rules! one { (x) => { y() }; }";
        assert!(expand(text, "one!(z)").is_none());
        assert!(expand(text, "two!(x)").is_none());
    }

    #[test]
    fn an_expansion_that_grows_without_end_is_cut_off() {
        // Each repetition writes its body many times: the size bound stops it, no panic.
        let body = "$($x)* ".repeat(3000);
        let text = format!("macro_rules! big {{ ($($x:tt)*) => {{ {body} }}; }}");
        assert!(expand(&text, "big!(a b c d e f g h)").is_none());
    }
}
