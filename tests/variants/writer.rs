//! The value a reported write built at the call site, handed to a generic writer instead:
//! `writeln!(out, "{}", reply)` (or `write!(out, "{}\n", reply)`) becomes `zz_put(&mut out,
//! reply)`, where `zz_put` takes any `std::io::Write` and any `Display` and writes the line; a
//! channel's `tx.send(reply)` (not awaited: an unbounded sender's) becomes `zz_send(&tx, reply)`,
//! generic over what the channel carries. The writers are defined once, before the file's first
//! item, on that item's line.
//!
//! A write the rewrite cannot hand on is left: a format string other than one `{}` (and its
//! newline), a write inside another macro's tokens, an awaited `send` or another method of a
//! transport (whose type the rewrite cannot write for a generic parameter).

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::edit::Edits;
use crate::Input;

const DEFINITION: &str = "fn zz_put<W: std::io::Write + ?Sized, V: std::fmt::Display>(w: &mut W, v: V) -> std::io::Result<()> { writeln!(w, \"{}\", v) } \
fn zz_send<T>(tx: &tokio::sync::mpsc::UnboundedSender<T>, v: T) -> Result<(), tokio::sync::mpsc::error::SendError<T>> { tx.send(v) } ";

/// The `writeln!`/`write!` macros of a file: their range, and the replacement text when they
/// write one value on a line.
struct Writes<'a, 'i> {
    input: &'a Input<'i>,
    found: Vec<((usize, usize), String)>,
}

impl<'a> Visit<'a> for Writes<'a, '_> {
    fn visit_expr(&mut self, expr: &'a syn::Expr) {
        match expr {
            syn::Expr::Await(a) => {
                if let syn::Expr::MethodCall(call) = &*a.base {
                    self.send(call, true);
                    syn::visit::visit_expr_method_call(self, call);
                    return;
                }
            }
            syn::Expr::MethodCall(call) => self.send(call, false),
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_macro(&mut self, mac: &'a syn::Macro) {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        if name != "writeln" && name != "write" {
            return;
        }
        let parts = top_level_parts(mac.tokens.clone());
        let [writer, format, value] = parts.as_slice() else {
            return;
        };
        let format = format.to_string();
        let one_line = match name.as_str() {
            "writeln" => format == "\"{}\"",
            _ => format == "\"{}\\n\"",
        };
        if !one_line || writer.is_empty() || value.is_empty() {
            return;
        }
        let text = |tokens: &TokenStream| -> Option<String> {
            let range = self.input.text.range(syn::spanned::Spanned::span(tokens));
            let text = self.input.text.slice(range);
            (!text.is_empty() && !text.contains('\n')).then(|| text.to_string())
        };
        let (Some(writer), Some(value)) = (text(writer), text(value)) else {
            return;
        };
        let range = self.input.text.of(mac);
        // `writeln!(..)` as spanned by syn runs from the path to the closing delimiter.
        if self.input.text.slice(range).contains('\n') {
            return;
        }
        self.found
            .push((range, format!("zz_put(&mut {writer}, {value})")));
    }
}

impl Writes<'_, '_> {
    /// `tx.send(value)` on a path or a field, not awaited.
    fn send(&mut self, call: &syn::ExprMethodCall, awaited: bool) {
        if awaited || call.method != "send" || call.args.len() != 1 || call.turbofish.is_some() {
            return;
        }
        let plain = |e: &syn::Expr| matches!(e, syn::Expr::Path(_) | syn::Expr::Field(_));
        if !plain(&call.receiver) {
            return;
        }
        let receiver = self.input.text.slice(self.input.text.of(&*call.receiver));
        let Some(value) = call.args.first() else {
            return;
        };
        let value = self.input.text.slice(self.input.text.of(value));
        let range = self.input.text.of(call);
        if receiver.is_empty() || value.is_empty() || self.input.text.slice(range).contains('\n') {
            return;
        }
        self.found
            .push((range, format!("zz_send(&{receiver}, {value})")));
    }
}

/// A macro's arguments split at its top-level commas.
fn top_level_parts(tokens: TokenStream) -> Vec<TokenStream> {
    let mut parts = vec![Vec::new()];
    for token in tokens {
        match &token {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => {
                if let Some(last) = parts.last_mut() {
                    last.push(token);
                }
            }
        }
    }
    if parts.last().is_some_and(Vec::is_empty) && parts.len() > 1 {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|tokens| tokens.into_iter().collect())
        .collect()
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    let Some(first) = input.syntax.items.first() else {
        return edits;
    };
    let mut writes = Writes {
        input,
        found: Vec::new(),
    };
    writes.visit_file(input.syntax);
    let mut any = false;
    for ((start, end), replacement) in writes.found {
        // A write the finding is on, or inside (a statement reported whole).
        let reported = input
            .reported
            .iter()
            .any(|&(s, e)| (start <= s && s < end) || (s <= start && end <= e));
        if reported {
            edits.replace((start, end), replacement);
            any = true;
        }
    }
    if any {
        let (first_start, _) = input.text.of(first);
        edits.insert(first_start, DEFINITION);
    }
    edits
}
