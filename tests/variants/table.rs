//! A `match` on string literals written as a handler table: each arm's body becomes a boxed
//! closure registered under its method in a `vec!` of `(method, handler)` pairs, looked up by
//! the method, and the catch-all runs when no entry matches:
//!
//! ```text
//! match method { "a" => A, "b" => B, other => C }
//! { let zz_k0 = method; let zz_t0: Vec<(&str, Box<dyn Fn() -> _>)> = vec![
//!   ("a", Box::new(move || A)), ("b", Box::new(move || B)),
//!   ]; match zz_t0.into_iter().find(|(k, _)| *k == zz_k0).map(|(_, h)| h) {
//!   Some(h) => h(), None => { let other = zz_k0; C } } }
//! ```
//!
//! Each arm keeps its line. When an arm awaits, every handler returns a boxed `async` block and
//! the call awaits it; when an arm uses `?`, every handler returns `Ok(..)` of its value and the
//! call passes the error on with `?`. A `match` it cannot take is left: an arm with a guard, an
//! attribute or a pattern other than one string literal (an or-pattern would need its body
//! twice), a catch-all other than `_` or a name, a scrutinee on several lines, an arm whose body
//! leaves the `match` (`return`, `break`, `continue`, a label), or one inside a `match` already
//! rewritten.

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::Pat;

use crate::edit::Edits;
use crate::Input;

/// What an arm's body holds that a closure changes or needs to carry.
#[derive(Default)]
struct Body {
    awaits: bool,
    tries: bool,
    /// `return`, `break`, `continue` or a label: the body leaves the `match`.
    leaves: bool,
}

fn scan(stream: TokenStream, body: &mut Body) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) => match ident.to_string().as_str() {
                "return" | "break" | "continue" => body.leaves = true,
                "await" if i > 0 && crate::edit::is_punct(tokens.get(i - 1), '.') => {
                    body.awaits = true
                }
                _ => {}
            },
            TokenTree::Punct(p) if p.as_char() == '?' => body.tries = true,
            TokenTree::Punct(p) if p.as_char() == '\'' => body.leaves = true,
            TokenTree::Group(g) => scan(g.stream(), body),
            _ => {}
        }
    }
}

/// The string literal of an arm's pattern, if that is all it is (one: an or-pattern would need
/// its body twice).
fn string(pat: &Pat) -> Option<String> {
    match crate::if_chain::strings(pat)?.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    for (n, m) in crate::edit::matches(input.syntax).into_iter().enumerate() {
        let whole = input.text.of(m);
        if taken.iter().any(|&(s, e)| s <= whole.0 && whole.1 <= e) {
            continue;
        }
        let Some((last, arms)) = m.arms.split_last() else {
            continue;
        };
        if arms.is_empty()
            || m.arms
                .iter()
                .any(|a| a.guard.is_some() || !a.attrs.is_empty())
        {
            continue;
        }
        let Some(keys): Option<Vec<String>> = arms.iter().map(|a| string(&a.pat)).collect() else {
            continue;
        };
        let binding = match &last.pat {
            Pat::Wild(_) => None,
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                Some(input.text.slice(input.text.of(&i.ident)).to_string())
            }
            _ => continue,
        };
        let mut body = Body::default();
        for arm in arms {
            scan(quote::ToTokens::to_token_stream(&arm.body), &mut body);
        }
        let scrutinee = input.text.slice(input.text.of(&*m.expr));
        if body.leaves || scrutinee.contains('\n') {
            continue;
        }
        taken.push(whole);
        let (open, close) = match (body.awaits, body.tries) {
            (true, true) => ("Box::pin(async move { Ok(", ") })"),
            (true, false) => ("Box::pin(async move { ", " })"),
            (false, true) => ("Ok(", ")"),
            (false, false) => ("", ""),
        };
        let call = format!(
            "h(){}{}",
            if body.awaits { ".await" } else { "" },
            if body.tries { "?" } else { "" }
        );
        let (match_start, _) = input.text.of(&m.match_token);
        let (_, brace_open_end) = input.text.range(m.brace_token.span.open());
        edits.replace(
            (match_start, brace_open_end),
            format!(
                "{{ let zz_k{n} = {scrutinee}; let zz_t{n}: Vec<(&str, Box<dyn Fn() -> _>)> = vec!["
            ),
        );
        for (arm, key) in arms.iter().zip(&keys) {
            let (pat_start, _) = input.text.of(&arm.pat);
            let (_, arrow_end) = input.text.of(&arm.fat_arrow_token);
            edits.replace(
                (pat_start, arrow_end),
                format!("({key}, Box::new(move || {open}"),
            );
            match &arm.comma {
                Some(comma) => edits.replace(input.text.of(comma), format!("{close})),")),
                None => {
                    let (_, body_end) = input.text.range(arm.body.span());
                    edits.insert(body_end, format!("{close})),"));
                }
            }
        }
        let (pat_start, _) = input.text.of(&last.pat);
        let (_, arrow_end) = input.text.of(&last.fat_arrow_token);
        let bind = match &binding {
            Some(name) => format!(" let {name} = zz_k{n};"),
            None => String::new(),
        };
        edits.replace(
            (pat_start, arrow_end),
            format!(
                "]; match zz_t{n}.into_iter().find(|(k, _)| *k == zz_k{n}).map(|(_, h)| h) {{ \
                 Some(h) => {call}, None => {{{bind}"
            ),
        );
        match &last.comma {
            Some(comma) => edits.replace(input.text.of(comma), "}"),
            None => {
                let (_, body_end) = input.text.range(last.body.span());
                edits.insert(body_end, "}");
            }
        }
        // The `match`'s closing brace closes the lookup; one more closes the block of the locals.
        let (_, brace_close_end) = input.text.range(m.brace_token.span.close());
        edits.insert(brace_close_end, "}");
    }
    edits
}
