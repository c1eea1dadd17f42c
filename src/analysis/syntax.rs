//! Small questions about syntax trees that the analysis asks again and again, and the parsers for
//! macro bodies (`select!` arms, statement and expression lists) that `syn` leaves as tokens.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, Macro, Pat, Stmt, Token};

/// The segments of a path as strings: `a::b::C` gives `["a", "b", "C"]`.
pub fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The last segment of a path (`a::b::C` gives `C`), or `""`.
pub fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The last segment of a macro's path: `tokio::select!` gives `select`.
pub fn macro_name(mac: &Macro) -> String {
    mac.path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// Every identifier an expression mentions (paths, fields, method names), not entering closures'
/// bodies' nested items.
pub fn expr_idents(expr: &Expr) -> Vec<String> {
    struct Idents(Vec<String>);
    impl<'ast> Visit<'ast> for Idents {
        fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
            self.0.push(ident.to_string());
        }
        fn visit_macro(&mut self, mac: &'ast Macro) {
            collect_token_idents(mac.tokens.clone(), &mut self.0);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut idents = Idents(Vec::new());
    idents.visit_expr(expr);
    idents.0
}

/// The identifiers whose values an expression's value may carry: like [`expr_idents`], but only a
/// block's tail counts (locals of inner statements do not escape), and `select!` bodies, whose
/// branches bind their own names, are not read.
pub fn value_idents(expr: &Expr) -> Vec<String> {
    struct Idents(Vec<String>);
    impl<'ast> Visit<'ast> for Idents {
        fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
            self.0.push(ident.to_string());
        }
        fn visit_block(&mut self, block: &'ast syn::Block) {
            if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
                self.visit_expr(tail);
            }
        }
        fn visit_macro(&mut self, mac: &'ast Macro) {
            if !is_select_macro(&macro_name(mac)) {
                collect_token_idents(mac.tokens.clone(), &mut self.0);
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut idents = Idents(Vec::new());
    idents.visit_expr(expr);
    idents.0
}

fn collect_token_idents(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Group(group) => collect_token_idents(group.stream(), out),
            _ => {}
        }
    }
}

/// The identifiers a pattern binds.
pub fn pattern_bindings(pat: &Pat) -> Vec<String> {
    struct Bindings(Vec<String>);
    impl<'ast> Visit<'ast> for Bindings {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.push(pat.ident.to_string());
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut bindings = Bindings(Vec::new());
    bindings.visit_pat(pat);
    bindings.0
}

/// The value of a string literal expression.
pub fn str_literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        Expr::Group(g) => str_literal(&g.expr),
        Expr::Paren(p) => str_literal(&p.expr),
        Expr::Reference(r) => str_literal(&r.expr),
        _ => None,
    }
}

/// What a `json!({ .. })` object literal holds at its top level.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JsonShape {
    pub has_id: bool,
    pub has_result_or_error: bool,
    pub method: Option<String>,
}

impl JsonShape {
    /// A JSON-RPC response or error: an `id` and a `result` or `error`, and no `method`.
    pub fn is_response(&self) -> bool {
        self.has_id && self.has_result_or_error && self.method.is_none()
    }
}

/// The top-level keys of a `json!` macro's object literal.
pub fn json_shape(mac: &Macro) -> Option<JsonShape> {
    if macro_name(mac) != "json" {
        return None;
    }
    let object = mac.tokens.clone().into_iter().find_map(|tree| match tree {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
        _ => None,
    })?;
    let trees: Vec<TokenTree> = object.into_iter().collect();
    let mut shape = JsonShape::default();
    for (i, tree) in trees.iter().enumerate() {
        let TokenTree::Literal(lit) = tree else {
            continue;
        };
        let followed_by_colon =
            matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        if !followed_by_colon {
            continue;
        }
        let key = lit.to_string();
        match key.trim_matches('"') {
            "id" => shape.has_id = true,
            "result" | "error" => shape.has_result_or_error = true,
            "method" => {
                shape.method = Some(match trees.get(i + 2) {
                    Some(TokenTree::Literal(value)) => {
                        value.to_string().trim_matches('"').to_string()
                    }
                    _ => String::new(),
                })
            }
            _ => {}
        }
    }
    Some(shape)
}

/// One branch of a `select!` macro.
pub struct SelectArm {
    /// `None` for `else`, `complete` and `default` branches.
    pub pattern: Option<Pat>,
    pub future: Option<Expr>,
    pub guard: Option<Expr>,
    pub handler: Expr,
}

struct SelectArms(Vec<SelectArm>);

impl Parse for SelectArms {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut arms = Vec::new();
        if input.peek(syn::Ident) && input.peek2(Token![;]) {
            let ident: syn::Ident = input.parse()?;
            if ident != "biased" {
                return Err(syn::Error::new(ident.span(), "expected `biased;`"));
            }
            input.parse::<Token![;]>()?;
        }
        while !input.is_empty() {
            let is_fallback = input.peek(Token![else])
                || ((input.peek(Token![default]) || input.peek(syn::Ident))
                    && input.peek2(Token![=>]));
            let (pattern, future, guard) = if is_fallback {
                input.parse::<proc_macro2::TokenTree>()?;
                (None, None, None)
            } else {
                let pattern = Pat::parse_multi_with_leading_vert(input)?;
                input.parse::<Token![=]>()?;
                let future: Expr = input.parse()?;
                let guard = if input.peek(Token![,]) && input.peek2(Token![if]) {
                    input.parse::<Token![,]>()?;
                    input.parse::<Token![if]>()?;
                    Some(input.parse::<Expr>()?)
                } else {
                    None
                };
                (Some(pattern), Some(future), guard)
            };
            input.parse::<Token![=>]>()?;
            let handler = if input.peek(syn::token::Brace) {
                let block: syn::Block = input.parse()?;
                Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block,
                })
            } else {
                input.parse::<Expr>()?
            };
            if input.peek(Token![,]) {
                input.parse::<Token![,]>()?;
            }
            arms.push(SelectArm {
                pattern,
                future,
                guard,
                handler,
            });
        }
        Ok(SelectArms(arms))
    }
}

/// Whether a macro is one of the `select!` family.
pub fn is_select_macro(name: &str) -> bool {
    matches!(name, "select" | "select_biased" | "try_select")
}

/// Parse a `select!` body into its branches.
pub fn parse_select(mac: &Macro) -> Option<Vec<SelectArm>> {
    syn::parse2::<SelectArms>(mac.tokens.clone())
        .ok()
        .map(|arms| arms.0)
}

/// A macro body read as Rust code.
pub enum MacroBody {
    Exprs(Vec<Expr>),
    Stmts(Vec<Stmt>),
}

/// Try to read a macro body as comma-separated expressions, or else as statements.
pub fn parse_macro_body(tokens: &TokenStream) -> Option<MacroBody> {
    if tokens.is_empty() {
        return None;
    }
    if let Ok(exprs) = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens.clone()) {
        return Some(MacroBody::Exprs(exprs.into_iter().collect()));
    }
    syn::Block::parse_within
        .parse2(tokens.clone())
        .ok()
        .map(MacroBody::Stmts)
}

/// The values of a `json!` body that are Rust code which does something (a call, a method
/// call, a macro, a block, ..): `run_tool(&args)` in `json!({ "content": [{ "text":
/// run_tool(&args) }] })`. The body's JSON structure (objects, arrays, keys) is read, not
/// parsed as Rust; a literal, a plain path (`null`, `id`) and a value that does not parse are
/// left out. Each value keeps the spans of its tokens.
pub fn json_values(tokens: &TokenStream) -> Vec<Expr> {
    let mut found = Vec::new();
    json_value(tokens.clone().into_iter().collect(), &mut found, 0);
    found
}

/// How deep `json!` bodies are read (objects and arrays in arrays ..): the rest is left out.
const JSON_DEPTH: usize = 32;

fn json_value(tokens: Vec<proc_macro2::TokenTree>, found: &mut Vec<Expr>, depth: usize) {
    use proc_macro2::{Delimiter, TokenTree};
    if depth > JSON_DEPTH {
        return;
    }
    match tokens.as_slice() {
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Bracket => {
            for element in split_commas(g.stream()) {
                json_value(element, found, depth + 1);
            }
        }
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => {
            for entry in split_commas(g.stream()) {
                // The key runs to the first `:` at this level (not `::` of a path).
                let mut colon = None;
                for (i, tree) in entry.iter().enumerate() {
                    if let TokenTree::Punct(p) = tree {
                        let joint_before = i > 0
                            && matches!(&entry[i - 1], TokenTree::Punct(q) if q.as_char() == ':' && q.spacing() == proc_macro2::Spacing::Joint);
                        if p.as_char() == ':'
                            && p.spacing() == proc_macro2::Spacing::Alone
                            && !joint_before
                        {
                            colon = Some(i);
                            break;
                        }
                    }
                }
                if let Some(at) = colon {
                    json_value(entry[at + 1..].to_vec(), found, depth + 1);
                }
            }
        }
        [] => {}
        _ => {
            let stream: TokenStream = tokens.into_iter().collect();
            if let Ok(expr) = syn::parse2::<Expr>(stream) {
                if !matches!(peel(&expr), Expr::Lit(_) | Expr::Path(_)) {
                    found.push(expr);
                }
            }
        }
    }
}

/// A token stream's parts between its top-level commas (a trailing comma ends no part).
fn split_commas(stream: TokenStream) -> Vec<Vec<proc_macro2::TokenTree>> {
    let mut parts = vec![Vec::new()];
    for tree in stream {
        match &tree {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => parts.last_mut().map_or((), |part| part.push(tree)),
        }
    }
    parts.retain(|part| !part.is_empty());
    parts
}

/// Remove wrappers that do not change what a value is: parentheses, groups, references,
/// `Some(..)`, `Ok(..)`, `Err(..)`, `Box::new(..)`, `.into()`, `.await`, `?`.
pub fn peel(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => peel(&p.expr),
        Expr::Group(g) => peel(&g.expr),
        Expr::Reference(r) => peel(&r.expr),
        Expr::Await(a) => peel(&a.base),
        Expr::Try(t) => peel(&t.expr),
        Expr::Call(call) if call.args.len() == 1 => {
            let wrapper = match &*call.func {
                Expr::Path(p) => path_segments(&p.path).join("::"),
                _ => String::new(),
            };
            if matches!(
                wrapper.as_str(),
                "Some" | "Ok" | "Err" | "Box::new" | "Arc::new"
            ) {
                call.args.first().map_or(expr, peel)
            } else {
                expr
            }
        }
        Expr::MethodCall(m) if m.args.is_empty() && (m.method == "into" || m.method == "clone") => {
            peel(&m.receiver)
        }
        _ => expr,
    }
}

/// A handler as a table holds it, its wrappers removed: parentheses, references, `as` casts,
/// `Box::new(..)`, `Arc::new(..)`, `Rc::new(..)`, `Box::pin(..)` (`Box::new(on_note) as Handler`,
/// `Box::pin(async move { .. })`).
pub fn peel_handler(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => peel_handler(&p.expr),
        Expr::Cast(c) => peel_handler(&c.expr),
        Expr::Reference(r) => peel_handler(&r.expr),
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(f)
                if matches!(
                    path_segments(&f.path).join("::").as_str(),
                    "Box::new" | "Arc::new" | "Rc::new" | "Box::pin"
                ) =>
            {
                c.args.first().map_or(expr, peel_handler)
            }
            _ => expr,
        },
        _ => expr,
    }
}

/// The value of an expression: a block's tail, looked through (and parentheses).
pub fn tail_value(expr: &Expr) -> &Expr {
    match expr {
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => tail_value(tail),
            _ => expr,
        },
        Expr::Paren(p) => tail_value(&p.expr),
        _ => expr,
    }
}

/// The expressions whose value an expression takes: a block's tail, both branches of an `if`,
/// every arm of a `match`.
pub fn tail_values(expr: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    collect_tail_values(expr, &mut out, 0);
    out
}

fn collect_tail_values<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>, depth: usize) {
    if depth > 64 {
        return;
    }
    match peel(expr) {
        Expr::Block(b) => block_tail(&b.block, out, depth),
        Expr::Unsafe(b) => block_tail(&b.block, out, depth),
        Expr::If(i) => {
            block_tail(&i.then_branch, out, depth);
            if let Some((_, e)) = &i.else_branch {
                collect_tail_values(e, out, depth + 1);
            }
        }
        Expr::Match(m) => {
            for arm in &m.arms {
                collect_tail_values(&arm.body, out, depth + 1);
            }
        }
        Expr::Return(r) => {
            if let Some(e) = &r.expr {
                collect_tail_values(e, out, depth + 1);
            }
        }
        other => out.push(other),
    }
}

fn block_tail<'a>(block: &'a syn::Block, out: &mut Vec<&'a Expr>, depth: usize) {
    if let Some(Stmt::Expr(e, None)) = block.stmts.last() {
        collect_tail_values(e, out, depth + 1);
    }
}

/// What is left of a statement's expression once the wrappers that only consume a send's result
/// are taken off: `.await`, `?`, `.ok()`, `.unwrap()`, `.expect("..")`, `.unwrap_or_default()`,
/// `.is_ok()`, `.is_err()`, parentheses.
pub fn strip_statement_wrappers(expr: &Expr) -> &Expr {
    match expr {
        Expr::Await(a) => strip_statement_wrappers(&a.base),
        Expr::Try(t) => strip_statement_wrappers(&t.expr),
        Expr::Paren(p) => strip_statement_wrappers(&p.expr),
        Expr::Group(g) => strip_statement_wrappers(&g.expr),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "ok" | "unwrap" | "expect" | "unwrap_or_default" | "is_ok" | "is_err"
            ) && m.args.iter().all(|a| str_literal(a).is_some()) =>
        {
            strip_statement_wrappers(&m.receiver)
        }
        _ => expr,
    }
}

/// Whether evaluating an expression has no side effect: literals, paths, field accesses,
/// references, struct, tuple and array literals, operators, casts, `json!`/`format!`, and the
/// conversions `clone`, `into`, `to_string`, `to_owned`, `as_str`, `as_ref`.
pub fn is_pure(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(f) => is_pure(&f.base),
        Expr::Reference(r) => is_pure(&r.expr),
        Expr::Paren(p) => is_pure(&p.expr),
        Expr::Group(g) => is_pure(&g.expr),
        Expr::Cast(c) => is_pure(&c.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_) | syn::UnOp::Neg(_)) && is_pure(&u.expr),
        Expr::Binary(b) => is_pure(&b.left) && is_pure(&b.right),
        Expr::Tuple(t) => t.elems.iter().all(is_pure),
        Expr::Array(a) => a.elems.iter().all(is_pure),
        Expr::Struct(s) => {
            s.fields.iter().all(|f| is_pure(&f.expr)) && s.rest.as_ref().is_none_or(|r| is_pure(r))
        }
        Expr::Call(c) => {
            // Tuple-struct and enum-variant constructors (`Some(x)`, `Value::String(s)`).
            let is_constructor = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase())));
            is_constructor && c.args.iter().all(is_pure)
        }
        Expr::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "clone" | "into" | "to_string" | "to_owned" | "as_str" | "as_ref"
            ) && m.args.is_empty()
                && is_pure(&m.receiver)
        }
        Expr::Macro(m) => {
            let name = macro_name(&m.mac);
            (name == "json" && tokens_pure(&m.mac.tokens))
                || ((name == "format" || name == "vec") && macro_args_pure(&m.mac))
        }
        _ => false,
    }
}

fn macro_args_pure(mac: &Macro) -> bool {
    match parse_macro_body(&mac.tokens) {
        Some(MacroBody::Exprs(exprs)) => exprs.iter().all(is_pure),
        Some(MacroBody::Stmts(_)) => false,
        None => true,
    }
}

/// Whether a token stream (a `json!` body) calls nothing but conversions and constructors.
fn tokens_pure(tokens: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().all(|(i, tree)| match tree {
        TokenTree::Group(group) => {
            let called = group.delimiter() == Delimiter::Parenthesis
                && i > 0
                && matches!(&trees[i - 1], TokenTree::Ident(ident) if {
                    let name = ident.to_string();
                    !matches!(name.as_str(), "clone" | "into" | "to_string" | "to_owned" | "as_str" | "as_ref")
                        && !name.starts_with(|c: char| c.is_ascii_uppercase())
                });
            !called && tokens_pure(&group.stream())
        }
        _ => true,
    })
}

/// The last path segment of a type, through references and smart pointers:
/// `&Arc<Mutex<Session>>` gives `Session`.
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if matches!(
                name.as_str(),
                "Arc" | "Rc" | "Box" | "Mutex" | "RwLock" | "RefCell" | "Cell"
            ) {
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                        return type_name(inner);
                    }
                }
            }
            Some(name)
        }
        // `dyn Sink`, `impl Sink`: a call on it reaches the trait's implementations.
        syn::Type::TraitObject(t) => trait_of(&t.bounds),
        syn::Type::ImplTrait(t) => trait_of(&t.bounds),
        _ => None,
    }
}

/// The type of the value a function hands back, as [`type_name`] names it, from its declared
/// return type: out of a `Result` (any alias named `..Result`, whose first argument is the
/// value), an `Option`, and a future's `Output` (`impl Future<Output = T>`). `None` for `()`
/// and for what cannot be named.
pub fn returned_type_name(output: &syn::ReturnType) -> Option<String> {
    match output {
        syn::ReturnType::Default => None,
        syn::ReturnType::Type(_, ty) => value_type_name(ty, 0),
    }
}

fn value_type_name(ty: &syn::Type, depth: usize) -> Option<String> {
    if depth > 4 {
        return None;
    }
    match ty {
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            if name == "Option" || name.ends_with("Result") {
                return value_type_name(first_type_argument(&last.arguments)?, depth + 1);
            }
            type_name(ty)
        }
        syn::Type::ImplTrait(t) => {
            let output = t.bounds.iter().find_map(|bound| match bound {
                syn::TypeParamBound::Trait(tr) => {
                    let last = tr.path.segments.last()?;
                    if last.ident != "Future" {
                        return None;
                    }
                    match &last.arguments {
                        syn::PathArguments::AngleBracketed(args) => {
                            args.args.iter().find_map(|a| match a {
                                syn::GenericArgument::AssocType(assoc)
                                    if assoc.ident == "Output" =>
                                {
                                    Some(&assoc.ty)
                                }
                                _ => None,
                            })
                        }
                        _ => None,
                    }
                }
                _ => None,
            });
            match output {
                Some(output) => value_type_name(output, depth + 1),
                None => type_name(ty),
            }
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => None,
        _ => type_name(ty),
    }
}

/// The type an `Option` holds, as [`type_name`] names it (`Option<Box<dyn Handler>>` gives
/// `dyn Handler`); `None` for any other type.
pub fn optional_type_name(ty: &syn::Type) -> Option<String> {
    type_name(option_inner(ty)?)
}

/// The type an `Option` holds (`&str` of `Option<&str>`); `None` for any other type.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    first_type_argument(&last.arguments)
}

/// The first type among a path segment's generic arguments (`T` of `Result<T, E>`).
fn first_type_argument(arguments: &syn::PathArguments) -> Option<&syn::Type> {
    match arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// The name a trait object's type goes by in the analysis: `dyn` and its first trait's last
/// path segment (`dyn Sink`).
fn trait_of(
    bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>,
) -> Option<String> {
    bounds.iter().find_map(|bound| match bound {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .map(|s| format!("{TRAIT_OBJECT}{}", s.ident)),
        _ => None,
    })
}

/// How a trait object's type name starts (see [`type_name`]).
pub const TRAIT_OBJECT: &str = "dyn ";

/// Whether an item's attributes make it test code: `#[test]`, `#[tokio::test]` (any attribute
/// whose last segment is `test`), or a `#[cfg(..)]` that holds only when `test` does
/// ([`cfg_requires_test`]: `cfg(test)`, `cfg(all(test, ..))`; not `cfg(not(test))`, which is
/// product code, nor `cfg(any(test, feature = ".."))`). The one definition of test code every
/// pass uses.
pub fn is_test_item(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        path.segments.last().is_some_and(|s| s.ident == "test") || is_test_cfg(attr)
    })
}

/// Whether the attribute is a `#[cfg(..)]` whose predicate holds only when `test` does.
pub fn is_test_cfg(attr: &syn::Attribute) -> bool {
    match &attr.meta {
        syn::Meta::List(list) if list.path.is_ident("cfg") => list
            .parse_args::<syn::Meta>()
            .is_ok_and(|predicate| cfg_requires_test(&predicate)),
        _ => false,
    }
}

/// The features an item's `#[cfg(..)]` attributes require, each: `feature = "x"`, and the
/// features of every part of an `all(..)`. (`any(..)` and `not(..)` require none: some build
/// without the feature may hold them.)
pub fn cfg_required_features(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut required = Vec::new();
    for attr in attrs {
        if let syn::Meta::List(list) = &attr.meta {
            if list.path.is_ident("cfg") {
                if let Ok(predicate) = list.parse_args::<syn::Meta>() {
                    features_required(&predicate, &mut required);
                }
            }
        }
    }
    required
}

fn features_required(predicate: &syn::Meta, out: &mut Vec<String>) {
    match predicate {
        syn::Meta::NameValue(pair) if pair.path.is_ident("feature") => {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) = &pair.value
            {
                out.push(name.value());
            }
        }
        syn::Meta::List(list) if list.path.is_ident("all") => {
            let parts = list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            );
            for part in parts.iter().flatten() {
                features_required(part, out);
            }
        }
        _ => {}
    }
}

/// Whether a cfg predicate can hold only when `test` does: `test`; `all(..)` with such a part;
/// `any(..)` whose every part is such. `not(..)` never is (it holds when `test` does not).
pub fn cfg_requires_test(predicate: &syn::Meta) -> bool {
    match predicate {
        syn::Meta::Path(path) => path.is_ident("test"),
        syn::Meta::List(list) => {
            let parts = list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            );
            let Ok(parts) = parts else {
                return false;
            };
            if list.path.is_ident("all") {
                parts.iter().any(cfg_requires_test)
            } else if list.path.is_ident("any") {
                !parts.is_empty() && parts.iter().all(cfg_requires_test)
            } else {
                false
            }
        }
        syn::Meta::NameValue(_) => false,
    }
}

/// The paths a module's `#[cfg_attr(.., path = "..")]` attributes may give it: each names a
/// file the module is loaded from under some configuration.
pub fn cfg_attr_paths(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut paths = Vec::new();
    for attr in attrs {
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        if !list.path.is_ident("cfg_attr") {
            continue;
        }
        let parts = list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        );
        for part in parts.iter().flatten().skip(1) {
            if let syn::Meta::NameValue(nv) = part {
                if nv.path.is_ident("path") {
                    paths.extend(str_literal(&nv.value));
                }
            }
        }
    }
    paths
}

/// The identifiers a format string captures inline: `"{reply} {id:?}"` gives `reply`, `id`.
pub fn format_captures(format: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = rest[..end].trim();
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            found.push(name.to_string());
        }
    }
    found
}

/// The renames of a `use` tree: `use a::b as c;` maps `c` to `a::b` (`self` and `super`
/// kept as written, for the graph to anchor).
pub fn use_renames(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    renames: &mut std::collections::HashMap<String, Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_renames(&path.tree, prefix, renames);
            prefix.pop();
        }
        syn::UseTree::Rename(rename) => {
            let mut original = prefix.clone();
            original.push(rename.ident.to_string());
            renames.insert(rename.rename.to_string(), original);
        }
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_renames(tree, prefix, renames);
            }
        }
        syn::UseTree::Name(_) | syn::UseTree::Glob(_) => {}
    }
}

/// The value and the pattern of a `matches!(value, pattern)` (a guard after it is left out).
pub fn matches_parts(mac: &syn::Macro) -> Option<(Expr, Pat)> {
    mac.parse_body_with(|input: syn::parse::ParseStream<'_>| {
        let value: Expr = input.parse()?;
        input.parse::<Token![,]>()?;
        let pat = Pat::parse_multi_with_leading_vert(input)?;
        let _rest: proc_macro2::TokenStream = input.parse()?;
        Ok((value, pat))
    })
    .ok()
}

/// The names a `use` tree brings in by their own name: `use crate::mcp::helpers::{run, stop};`
/// maps `run` to `crate::mcp::helpers::run` (not `self`, globs or renames, see
/// [`use_renames`]).
pub fn use_imports(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    imports: &mut std::collections::HashMap<String, Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_imports(&path.tree, prefix, imports);
            prefix.pop();
        }
        syn::UseTree::Name(name) if name.ident != "self" && !prefix.is_empty() => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            imports.insert(name.ident.to_string(), path);
        }
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_imports(tree, prefix, imports);
            }
        }
        _ => {}
    }
}

/// The local or parameter an expression reads from: `request` in `request.method.as_str()`,
/// `msg["method"].as_str()`, `&req.method`, `method`.
pub fn root_local(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        Expr::MethodCall(m) => root_local(&m.receiver),
        Expr::Field(f) => root_local(&f.base),
        Expr::Index(i) => root_local(&i.expr),
        Expr::Reference(r) => root_local(&r.expr),
        Expr::Paren(p) => root_local(&p.expr),
        Expr::Group(g) => root_local(&g.expr),
        Expr::Try(t) => root_local(&t.expr),
        Expr::Await(a) => root_local(&a.base),
        Expr::Unary(u) => root_local(&u.expr),
        // `match (request.method.as_str(), &request.id)`: the first element that reads one.
        Expr::Tuple(t) => t.elems.iter().find_map(root_local),
        _ => None,
    }
}

/// Whether code in `block` can leave it other than by its value: a `return`, `break`,
/// `continue` or `?` anywhere in it (closures and nested functions aside).
pub fn leaves(block: &syn::Block) -> bool {
    let mut finder = LeaveFinder(false);
    finder.visit_block(block);
    finder.0
}

/// Whether an expression is text made up where it stands: a string literal or a `format!`,
/// through `&`, parentheses, `.to_string()`, `.to_owned()`, `.into()` and `String::from(..)`.
pub fn made_up_text(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Str(_)),
        Expr::Macro(m) => macro_name(&m.mac) == "format",
        Expr::Reference(r) => made_up_text(&r.expr),
        Expr::Paren(p) => made_up_text(&p.expr),
        Expr::Group(g) => made_up_text(&g.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "to_owned" | "into"
                ) =>
        {
            made_up_text(&m.receiver)
        }
        Expr::Call(c) if c.args.len() == 1 => {
            matches!(&*c.func, Expr::Path(p) if path_segments(&p.path) == ["String", "from"])
                && c.args.first().is_some_and(made_up_text)
        }
        _ => false,
    }
}

/// Whether code in `expr` can leave it other than by its value ([`leaves`]).
pub fn expr_leaves(expr: &Expr) -> bool {
    let mut finder = LeaveFinder(false);
    finder.visit_expr(expr);
    finder.0
}

struct LeaveFinder(bool);
impl<'ast> Visit<'ast> for LeaveFinder {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) | Expr::Try(_) => self.0 = true,
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => syn::visit::visit_expr(self, expr),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether a name is spelt as a constant's or a static's (`METHOD_NOT_FOUND`, `QUIET`): upper
/// case, digits and underscores, longer than one letter (a type parameter `T` is not one).
pub fn is_constant_name(name: &str) -> bool {
    name.len() > 1
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether a module path ends with `modules` (the anchors `crate`, `self` and `super` left out
/// of them): `["mcp", "cue"]` ends with `crate::cue`'s `["cue"]`. An empty `modules` ends every
/// path.
pub fn module_ends_with(module: &[String], modules: &[String]) -> bool {
    let modules: Vec<&String> = modules
        .iter()
        .filter(|m| !matches!(m.as_str(), "crate" | "self" | "super"))
        .collect();
    modules.len() <= module.len()
        && module[module.len() - modules.len()..]
            .iter()
            .zip(&modules)
            .all(|(a, b)| a == *b)
}

/// `#[allow(dead_code)]` (or `#[allow(unused, ..)]`, `#[expect(dead_code)]`) among the
/// attributes.
pub fn allows_dead_code(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if !(path.is_ident("allow") || path.is_ident("expect")) {
            return false;
        }
        let mut found = false;
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta.path.is_ident("dead_code") || meta.path.is_ident("unused");
            Ok(())
        });
        found
    })
}

/// Whether an attribute on a function is known to leave it as it is, to be run only where code
/// calls it: documentation, lints, hints (`#[inline]`, `#[must_use]`), `#[cfg(..)]`, tracing's
/// `#[instrument]`, an async runtime's entry wrapper (`#[tokio::main]`, which starts a runtime
/// around the body and registers nothing: the program's entry is the crate root's `main`,
/// whatever its attributes). Any other (`#[no_mangle]`, `#[tauri::command]`, `#[ctor]`, a
/// `cfg_attr` that may add one) may export or register it.
pub fn inert_attribute(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [one] => matches!(
            one.as_str(),
            "doc"
                | "allow"
                | "warn"
                | "deny"
                | "forbid"
                | "expect"
                | "inline"
                | "cold"
                | "must_use"
                | "deprecated"
                | "cfg"
                | "track_caller"
                | "instrument"
        ),
        [tool, name] => {
            matches!(tool.as_str(), "rustfmt" | "clippy")
                || segments == ["tracing", "instrument"]
                || (name == "main"
                    && matches!(
                        tool.as_str(),
                        "tokio" | "async_std" | "actix_web" | "actix_rt"
                    ))
        }
        _ => false,
    }
}

#[cfg(test)]
mod cfg_tests {
    use super::*;

    fn attrs(source: &str) -> Vec<syn::Attribute> {
        let item: syn::ItemMod = syn::parse_str(&format!("{source} mod x;")).expect("parses");
        item.attrs
    }

    #[test]
    fn only_predicates_that_need_test_make_test_code() {
        for test in [
            "#[cfg(test)]",
            "#[cfg(all(test, unix))]",
            "#[cfg(any(test, all(test, x)))]",
            "#[tokio::test]",
        ] {
            assert!(is_test_item(&attrs(test)), "{test}");
        }
        for product in [
            "#[cfg(not(test))]",
            "#[cfg(any(test, feature = \"mock\"))]",
            "#[cfg(unix)]",
            "#[cfg(feature = \"test\")]",
            "#[cfg(testing)]",
        ] {
            assert!(!is_test_item(&attrs(product)), "{product}");
        }
    }

    #[test]
    fn cfg_attr_paths_are_found() {
        assert_eq!(
            cfg_attr_paths(&attrs(
                "#[cfg_attr(all(), path = \"real.rs\")] #[cfg_attr(unix, allow(x), path = \"u.rs\")]"
            )),
            vec!["real.rs".to_string(), "u.rs".to_string()]
        );
    }
}
