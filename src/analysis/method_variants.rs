//! The enum variants a crate reads MCP methods into, as its code says: a variant renamed to the
//! method for serde (`#[serde(rename = "tools/call")] CallTool(..)` in an enum tagged by
//! `method`), or an arm that turns the method's string into the variant or back (`"ping" =>
//! Self::Ping`, `ClientRequest::Ping => ("ping".to_string(), None)`). A `match` over such
//! variants is a method dispatcher like a `match` over the strings
//! ([`super::dispatch`]); what the variants are called decides nothing.

use std::collections::BTreeSet;

use syn::Expr;

use super::dispatch::{condition_methods, is_mcp_method, method_patterns};
use super::err_variants::{pattern_variants, variant_named, variant_of};
use super::walk::{Hook, Node, Scope};

/// Whether a string is a method a variant may stand for: an MCP method, or `ping`.
fn is_method(value: &str) -> bool {
    value == "ping" || is_mcp_method(value)
}

/// The hook that reads a file's variant-to-method pairs
/// ([`super::facts::FileFacts::method_variants`]).
#[derive(Default)]
pub struct MethodVariants {
    pairs: BTreeSet<(String, String)>,
    /// How many `"ping"` literals of code the pairs were read from (not answers: see
    /// [`super::facts::FileFacts::ping_mapping_literals`]).
    ping_literals: u32,
    /// How many times the code names each variant by a path (`ClientRequest::Ping`), and how
    /// many of those only pair it with its method.
    mentions: std::collections::BTreeMap<String, u32>,
    mapping_mentions: std::collections::BTreeMap<String, u32>,
}

impl MethodVariants {
    fn note_enum(&mut self, item: &syn::ItemEnum) {
        let owner = item.ident.to_string();
        for variant in &item.variants {
            if let Some(method) = serde_rename(&variant.attrs).filter(|m| is_method(m)) {
                self.pairs
                    .insert((format!("{owner}::{}", variant.ident), method));
            }
        }
    }

    fn note_match(&mut self, expr: &syn::ExprMatch, self_ty: Option<&str>) {
        for arm in &expr.arms {
            // `"ping" => Self::Ping`, `"tools/call" => Ok(Method::CallTool)`.
            let (mut literals, mut constants) = (Vec::new(), Vec::new());
            if method_patterns(&arm.pat, &mut literals, &mut constants) {
                let literals: Vec<String> = literals.into_iter().filter(|m| is_method(m)).collect();
                if let Some(variant) = variant_value(&arm.body, self_ty) {
                    if !literals.is_empty() {
                        *self.mapping_mentions.entry(variant.clone()).or_default() += 1;
                    }
                    for method in literals {
                        self.pairs.insert((variant.clone(), method));
                    }
                }
                continue;
            }
            // `Self::Ping => "ping"`, `ClientRequest::ListTools(p) => params("tools/list", p)`.
            let mut variants = Vec::new();
            pattern_variants(&arm.pat, self_ty, &mut variants);
            if variants.len() != 1 {
                continue;
            }
            let Some(method) = string_value(&arm.body).filter(|m| is_method(m)) else {
                continue;
            };
            if method == "ping" {
                self.ping_literals += 1;
            }
            for variant in variants {
                *self.mapping_mentions.entry(variant.clone()).or_default() += 1;
                self.pairs.insert((variant, method.clone()));
            }
        }
    }
}

impl MethodVariants {
    /// `if m == "ping" { Self::Ping } else ..`: one link of a chain (each `else if` is entered
    /// as an `if` of its own).
    fn note_if(&mut self, link: &syn::ExprIf, self_ty: Option<&str>) {
        let Some(methods) = condition_methods(&link.cond) else {
            return;
        };
        let [syn::Stmt::Expr(value, None)] = link.then_branch.stmts.as_slice() else {
            return;
        };
        if let Some(variant) = variant_value(value, self_ty) {
            *self.mapping_mentions.entry(variant.clone()).or_default() += 1;
            for method in methods.into_iter().filter(|m| is_method(m)) {
                self.pairs.insert((variant.clone(), method));
            }
        }
    }
}

impl Hook for MethodVariants {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        if scope.in_test() || scope.in_foreign_macro_body() {
            return;
        }
        match node {
            Node::Item(syn::Item::Enum(item)) => self.note_enum(item),
            Node::Path(path) if path.segments.len() >= 2 && names_variant(path) => {
                let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
                if let Some(variant) = variant_of(path, self_ty) {
                    *self.mentions.entry(variant).or_default() += 1;
                }
            }
            Node::Expr(Expr::Match(m)) => {
                let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
                self.note_match(m, self_ty);
            }
            Node::Expr(Expr::If(link)) => {
                let self_ty = scope.impl_scope().and_then(|i| i.self_ty.as_deref());
                self.note_if(link, self_ty);
            }
            _ => {}
        }
    }

    fn finish(self: Box<Self>, facts: &mut super::facts::FileFacts) {
        facts.method_variants = self.pairs.into_iter().collect();
        facts.ping_mapping_literals = self.ping_literals;
        // The variants named other than where they are paired with their method, with how
        // many times; only those the unit pairs with `ping` matter, which the file may not know.
        let mapping = self.mapping_mentions;
        facts.variant_mentions = self
            .mentions
            .into_iter()
            .filter_map(|(variant, count)| {
                let left = count.saturating_sub(mapping.get(&variant).copied().unwrap_or(0));
                (left > 0).then_some((variant, left))
            })
            .collect();
    }
}

/// Whether a path may name an enum variant: its last two segments are type-like
/// (`ClientRequest::Ping`, `Self::Ping`).
fn names_variant(path: &syn::Path) -> bool {
    let mut last = path.segments.iter().rev().map(|s| s.ident.to_string());
    let upper = |name: Option<String>| {
        name.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    upper(last.next()) && upper(last.next())
}

/// The value of a variant's `#[serde(rename = "..")]`.
fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // A malformed attribute is no rename: the parse error is the compiler's to report.
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                if let Ok(value) = meta.value() {
                    if let Ok(lit) = value.parse::<syn::LitStr>() {
                        found = Some(lit.value());
                    }
                }
            } else if let Ok(value) = meta.value() {
                // Skip the value of any other `key = value`.
                let _ = value.parse::<Expr>();
            }
            Ok(())
        });
    }
    found
}

/// The variant an arm's value is (`Self::Ping`, `Ok(Method::CallTool)`, `Some(Req::Call(p))`,
/// `Req::Call { params }`).
fn variant_value(body: &Expr, self_ty: Option<&str>) -> Option<String> {
    match super::syntax::peel(body) {
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => variant_value(inner, self_ty),
            _ => None,
        },
        value => variant_named(value, self_ty),
    }
}

/// The string an arm's value spells first: `"ping"`, `"ping".to_string()`, `"ping".into()`,
/// `String::from("ping")`, the first element of a tuple, the first string argument of a call
/// (`create_method_params("tools/list", params)`).
fn string_value(body: &Expr) -> Option<String> {
    match super::syntax::peel(body) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        Expr::MethodCall(call) if call.args.is_empty() => string_value(&call.receiver),
        Expr::Tuple(t) => t.elems.first().and_then(string_value),
        Expr::Call(call) => call.args.iter().find_map(|arg| match arg {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }),
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => string_value(inner),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(code: &str, self_ty: Option<&str>) -> Vec<(String, String)> {
        let file: syn::File = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let mut hook = MethodVariants::default();
        for item in &file.items {
            match item {
                syn::Item::Enum(e) => hook.note_enum(e),
                syn::Item::Fn(f) => {
                    for stmt in &f.block.stmts {
                        match stmt {
                            syn::Stmt::Expr(Expr::Match(m), _) => hook.note_match(m, self_ty),
                            syn::Stmt::Expr(Expr::If(i), _) => hook.note_if(i, self_ty),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        hook.pairs.into_iter().collect()
    }

    fn pair(variant: &str, method: &str) -> (String, String) {
        (variant.to_string(), method.to_string())
    }

    #[test]
    fn serde_renames_of_methods_name_their_variants() {
        let code = r#"
            #[serde(tag = "method", content = "params", rename_all = "camelCase")]
            enum Req {
                #[serde(rename = "initialize")] Init(InitParams),
                #[serde(rename = "ping")] Ping,
                #[serde(rename = "weather")] Weather,
                #[serde(default, rename = "tools/call")] Call { name: String },
                Other,
            }"#;
        assert_eq!(
            pairs(code, None),
            [
                pair("Req::Call", "tools/call"),
                pair("Req::Init", "initialize"),
                pair("Req::Ping", "ping")
            ]
        );
    }

    #[test]
    fn arms_turning_methods_into_variants_and_back_name_them() {
        let code = r#"
            fn parse(m: &str) -> Option<Method> {
                match m {
                    "initialize" => Some(Self::Initialize),
                    "tools/list" | "tools/call" => Ok(Method::Tools),
                    "weather" => Self::Weather,
                    _ => None,
                }
            }
            fn parse_chain(m: &str) -> Method {
                if m == "resources/list" { Self::Resources } else { Self::Other }
            }
            fn name(m: &Method) -> String {
                match m {
                    Self::Ping => "ping".to_string(),
                    ClientRequest::ListTools(p) => params("tools/list", p),
                    Self::A | Self::B => "tools/call".into(),
                    Self::Other => "other",
                }
            }"#;
        assert_eq!(
            pairs(code, Some("Method")),
            [
                pair("ClientRequest::ListTools", "tools/list"),
                pair("Method::Initialize", "initialize"),
                pair("Method::Ping", "ping"),
                pair("Method::Resources", "resources/list"),
                pair("Method::Tools", "tools/call"),
                pair("Method::Tools", "tools/list"),
            ]
        );
    }
}
