//! A message parsed into a request type of the unit: the `Err` arm of that parse, and the type
//! (`let request: JsonRpcRequest = match serde_json::from_str(&line) { Ok(r) => r, Err(e) =>
//! { write(parse_error(null)) } }`). When the type's `id` is required, every notification fails
//! to parse, and what that arm answers goes to notifications (batch 79's f1rma and mscode).

use syn::{Expr, Pat, Stmt};

use crate::analysis::walk::{Node, Scope};
use crate::source::ByteSpan;

/// The body of the `Err` arm of a `match` over the deserialisation of a value into a named
/// type, and that type's name (its last segment): by the call's turbofish (`from_str::<T>(..)`),
/// the `let` the `match` initialises (`let r: T = match from_str(..) { .. }`), or the `let` of
/// the local the `match` reads (`let parsed: Result<T, _> = from_str(..); match parsed { .. }`).
pub fn err_arm_of_typed_parse(m: &syn::ExprMatch, scope: &Scope<'_>) -> Option<(ByteSpan, String)> {
    let err = m.arms.iter().find(|arm| {
        arm.guard.is_none() && matches!(&arm.pat, Pat::TupleStruct(t) if t.path.is_ident("Err"))
    })?;
    let ok = m
        .arms
        .iter()
        .any(|arm| matches!(&arm.pat, Pat::TupleStruct(t) if t.path.is_ident("Ok")));
    if !ok || m.arms.len() != 2 {
        return None;
    }
    let ty = match parse_call(&m.expr) {
        Some(turbofish) => turbofish.or_else(|| let_type(scope))?,
        None => {
            let Expr::Path(local) = &*m.expr else {
                return None;
            };
            let name = local.path.get_ident()?.to_string();
            local_parse_type(scope, &name)?
        }
    };
    Some((scope.span(&*err.body), ty))
}

/// Whether an expression is a deserialisation (`serde_json::from_str(..)`, `from_slice`,
/// `from_value`, `from_reader`), with the type its turbofish names, if any.
fn parse_call(expr: &Expr) -> Option<Option<String>> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let last = path.path.segments.last()?;
    if !matches!(
        last.ident.to_string().as_str(),
        "from_str" | "from_slice" | "from_value" | "from_reader"
    ) {
        return None;
    }
    let turbofish = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(ty) => crate::analysis::syntax::type_name(ty),
            _ => None,
        }),
        _ => None,
    };
    Some(turbofish)
}

/// The type the `let` the node initialises declares (`let request: T = match ..`).
fn let_type(scope: &Scope<'_>) -> Option<String> {
    match scope.parent()? {
        Node::Local(local) => match &local.pat {
            Pat::Type(typed) => crate::analysis::syntax::type_name(&typed.ty),
            _ => None,
        },
        _ => None,
    }
}

/// The type the `let` of a local in a block around the node gives a parse's value (`let
/// parsed: Result<T, _> = serde_json::from_str(line);`, or `from_str::<T>(..)`).
fn local_parse_type(scope: &Scope<'_>, name: &str) -> Option<String> {
    (0..)
        .map_while(|n| scope.ancestor(n))
        .find_map(|node| match node {
            Node::Block(block) => block.stmts.iter().find_map(|stmt| {
                let Stmt::Local(local) = stmt else {
                    return None;
                };
                let (binding, declared) = match &local.pat {
                    Pat::Ident(ident) => (&ident.ident, None),
                    Pat::Type(typed) => match &*typed.pat {
                        Pat::Ident(ident) => (&ident.ident, Some(&*typed.ty)),
                        _ => return None,
                    },
                    _ => return None,
                };
                if binding != name {
                    return None;
                }
                let turbofish = parse_call(&local.init.as_ref()?.expr)?;
                turbofish.or_else(|| declared.and_then(result_ok_type))
            }),
            _ => None,
        })
}

/// `T` of a declared `Result<T, E>`.
fn result_ok_type(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(ty) => crate::analysis::syntax::type_name(ty),
        _ => None,
    })
}
