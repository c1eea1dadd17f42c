//! JSON-RPC error codes as code writes them, and the enum variants a crate's errors are made of,
//! as the dispatch facts read them: the variant a dispatcher's catch-all returns in its `Err`,
//! and the variants a `match` turns into the method-not-found code. Together they show that
//! `_ => Err(McpError::InvalidMethod(m))` is answered with `-32601` when its caller answers the
//! `Err`, whatever the variant is called.

use std::collections::{BTreeSet, HashMap};

use syn::visit::Visit;
use syn::{Expr, Pat};

use super::syntax::path_segments;
use super::walk::{Hook, Node, Scope};

/// JSON-RPC's method-not-found code.
const METHOD_NOT_FOUND: i64 = -32601;

/// The value of a JSON-RPC error code written as a literal: `-32603` gives -32603.
pub fn jsonrpc_error_code(expr: &Expr) -> Option<i64> {
    let Expr::Unary(u) = expr else {
        return None;
    };
    if !matches!(u.op, syn::UnOp::Neg(_)) {
        return None;
    }
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(int),
        ..
    }) = &*u.expr
    else {
        return None;
    };
    let value = int.base10_parse::<i64>().ok()?;
    (32000..=32768).contains(&value).then_some(-value)
}

/// `Type::Variant` from a path of at least two segments, `Self` read as `self_ty`.
pub fn variant_of(path: &syn::Path, self_ty: Option<&str>) -> Option<String> {
    let segments = path_segments(path);
    let [.., owner, variant] = segments.as_slice() else {
        return None;
    };
    let owner = if owner == "Self" { self_ty? } else { owner };
    Some(format!("{owner}::{variant}"))
}

/// The enum variant of an `Err` value: `Err(McpError::InvalidMethod(m))`,
/// `Err(McpError::NotFound { method })`, `Err(McpError::Unknown)`.
pub fn err_variant(value: &Expr) -> Option<String> {
    let mut value = value;
    while let Expr::Paren(syn::ExprParen { expr, .. }) | Expr::Group(syn::ExprGroup { expr, .. }) =
        value
    {
        value = expr;
    }
    let Expr::Call(call) = value else {
        return None;
    };
    if !matches!(&*call.func, Expr::Path(p) if p.path.is_ident("Err")) || call.args.len() != 1 {
        return None;
    }
    variant_named(super::syntax::peel(call.args.first()?), None)
}

/// The variant an expression builds: `E::A(..)`, `E::B { .. }`, `E::C` (`Self` read as
/// `self_ty`).
pub fn variant_named(value: &Expr, self_ty: Option<&str>) -> Option<String> {
    match value {
        Expr::Call(inner) => match &*inner.func {
            Expr::Path(p) => variant_of(&p.path, self_ty),
            _ => None,
        },
        Expr::Struct(s) => variant_of(&s.path, self_ty),
        Expr::Path(p) => variant_of(&p.path, self_ty),
        _ => None,
    }
}

/// The variants a pattern names: `E::A(..)`, `E::B { .. }`, `E::C`, and each case of an `|`.
pub fn pattern_variants(pat: &Pat, self_ty: Option<&str>, out: &mut Vec<String>) {
    match pat {
        Pat::TupleStruct(p) => out.extend(variant_of(&p.path, self_ty)),
        Pat::Struct(p) => out.extend(variant_of(&p.path, self_ty)),
        Pat::Path(p) => out.extend(variant_of(&p.path, self_ty)),
        Pat::Or(or) => {
            for case in &or.cases {
                pattern_variants(case, self_ty, out);
            }
        }
        Pat::Reference(r) => pattern_variants(&r.pat, self_ty, out),
        Pat::Paren(p) => pattern_variants(&p.pat, self_ty, out),
        _ => {}
    }
}

/// The JSON-RPC error codes an expression writes: literals, and the names it reads (constants
/// that may hold one, resolved once the whole file is read).
#[derive(Default)]
struct Codes {
    literals: BTreeSet<i64>,
    names: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Codes {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if let Some(code) = jsonrpc_error_code(expr) {
            self.literals.insert(code);
            return;
        }
        if let Expr::Path(p) = expr {
            if let Some(last) = p.path.segments.last() {
                self.names.insert(last.ident.to_string());
            }
        }
        syn::visit::visit_expr(self, expr);
    }
}

impl Codes {
    /// Whether the codes are method-not-found alone, the names read as the file's constants. A
    /// constant's name the file does not define (`INTERNAL_ERROR` from another module) may hold
    /// any code: then the arm is not known to write method-not-found alone.
    fn only_method_not_found(&self, consts: &HashMap<String, i64>) -> bool {
        let constant = |n: &String| {
            n.chars().any(|c| c.is_ascii_uppercase())
                && n.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        };
        if self
            .names
            .iter()
            .any(|n| constant(n) && !consts.contains_key(n))
        {
            return false;
        }
        let mut all = self.literals.clone();
        all.extend(self.names.iter().filter_map(|n| consts.get(n)));
        all.len() == 1 && all.contains(&METHOD_NOT_FOUND)
    }
}

/// Whether a file's code may turn a variant into method-not-found: it writes the code.
pub fn might_apply(code: &str) -> bool {
    code.contains("32601")
}

/// The hook that finds the variants a file's product code turns into method-not-found and no
/// other code ([`super::facts::FileFacts::not_found_variants`]): the arms whose patterns name
/// variants and whose bodies write `-32601` (or a constant of the file holding it) and no other
/// JSON-RPC error code (`McpError::InvalidMethod(m) => JsonRpcError { code: -32601, .. }`,
/// `Self::UnknownMethod => METHOD_NOT_FOUND`).
#[derive(Default)]
pub struct NotFoundVariants {
    /// Each arm's variants and codes, resolved at the end of the file.
    arms: Vec<(Vec<String>, Codes)>,
    consts: HashMap<String, i64>,
}

impl NotFoundVariants {
    fn note_match(&mut self, expr: &syn::ExprMatch, self_ty: Option<&str>) {
        for arm in &expr.arms {
            let mut named = Vec::new();
            pattern_variants(&arm.pat, self_ty, &mut named);
            if named.is_empty() {
                continue;
            }
            let mut codes = Codes::default();
            codes.visit_expr(&arm.body);
            if !codes.literals.is_empty() || !codes.names.is_empty() {
                self.arms.push((named, codes));
            }
        }
    }

    fn variants(&self) -> Vec<String> {
        let found: BTreeSet<&String> = self
            .arms
            .iter()
            .filter(|(_, codes)| codes.only_method_not_found(&self.consts))
            .flat_map(|(named, _)| named)
            .collect();
        found.into_iter().cloned().collect()
    }
}

impl Hook for NotFoundVariants {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        match node {
            Node::Item(syn::Item::Const(c)) => {
                if let Some(code) = jsonrpc_error_code(&c.expr) {
                    self.consts.insert(c.ident.to_string(), code);
                }
            }
            Node::ImplItem(syn::ImplItem::Const(c)) => {
                if let Some(code) = jsonrpc_error_code(&c.expr) {
                    self.consts.insert(c.ident.to_string(), code);
                }
            }
            Node::Expr(Expr::Match(m)) if !scope.in_test() => {
                let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
                self.note_match(m, self_ty);
            }
            _ => {}
        }
    }

    fn finish(self: Box<Self>, facts: &mut super::facts::FileFacts) {
        facts.not_found_variants = self.variants();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants(code: &str, self_ty: Option<&str>) -> Vec<String> {
        let expr: syn::ExprMatch = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let mut hook = NotFoundVariants::default();
        hook.consts.insert("NOT_FOUND".into(), -32601);
        hook.note_match(&expr, self_ty);
        hook.variants()
    }

    #[test]
    fn arms_writing_only_method_not_found_name_their_variants() {
        let code = "match err {
            McpError::InvalidMethod(m) => JsonRpcError { code: -32601, message: m },
            McpError::Gone | McpError::Missing { .. } => Self::new(NOT_FOUND),
            McpError::Params(m) => JsonRpcError { code: -32602, message: m },
            McpError::Either(m) => if m.is_empty() { -32601 } else { -32603 },
            McpError::Elsewhere(m) => if m.is_empty() { -32601 } else { INTERNAL_ERROR },
            other => JsonRpcError { code: -32601, message: other.to_string() },
        }";
        assert_eq!(
            variants(code, None),
            [
                "McpError::Gone",
                "McpError::InvalidMethod",
                "McpError::Missing"
            ]
        );
    }

    #[test]
    fn self_is_the_impl_type() {
        let code = "match self { Self::UnknownMethod => -32601, Self::Other => -32603 }";
        assert_eq!(
            variants(code, Some("ServerError")),
            ["ServerError::UnknownMethod"]
        );
        assert!(variants(code, None).is_empty());
    }

    #[test]
    fn err_values_name_their_variant() {
        let variant =
            |code: &str| err_variant(&syn::parse_str(code).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(
            variant("Err(McpError::InvalidMethod(m.clone()))").as_deref(),
            Some("McpError::InvalidMethod")
        );
        assert_eq!(
            variant("Err(error::McpError::Unknown { method })").as_deref(),
            Some("McpError::Unknown")
        );
        assert_eq!(
            variant("Err(McpError::Unknown)").as_deref(),
            Some("McpError::Unknown")
        );
        assert_eq!(variant("Err(anyhow!(\"unknown method\"))"), None);
        assert_eq!(variant("Err(e)"), None);
        assert_eq!(variant("Ok(McpError::Unknown)"), None);
    }
}
