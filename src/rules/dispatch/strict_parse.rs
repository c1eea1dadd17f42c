//! A message parsed into a request type of the unit: the `Err` arm of that parse, and the type
//! (`let request: JsonRpcRequest = match serde_json::from_str(&line) { Ok(r) => r, Err(e) =>
//! { write(parse_error(null)) } }`). When the type's `id` is required, every notification fails
//! to parse, and what that arm answers goes to notifications (batch 79's f1rma and mscode).

use syn::{Expr, Pat, Stmt};

use crate::analysis::walk::{Node, Scope};
use crate::source::ByteSpan;

/// The `Err` arm of a parse of a message into a named type ([`err_arm_of_typed_parse`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TypedParseError {
    /// The arm's body.
    pub arm: ByteSpan,
    /// The type's name (its last segment).
    pub ty: String,
    /// The function of the unit that parses, when the parse is a call of one through the
    /// type's path (`JsonRpcRequest::from_json(line)`): a parse only if that function
    /// deserialises into the type ([`super::id_tests::IdTests::typed_parsers`]).
    pub through: Option<String>,
    /// The arm leaves the function or the loop (`return`, `continue`, `break`, `?`): what
    /// follows the `match` runs only for messages that parsed.
    pub leaves: bool,
    /// The name the arm binds the error to (`Err(e)`): handed to the answer, it is the parse's
    /// error.
    pub binding: Option<String>,
    /// The arm answers with an HTTP error status (`(StatusCode::BAD_REQUEST, Json(..))`): the
    /// transport's rejection of a body it cannot take, which Streamable HTTP allows for a
    /// notification it does not accept, not a JSON-RPC answer on the stream.
    #[serde(default)]
    pub http_error_status: bool,
}

/// The `Err` arm of a `match` over the deserialisation of a value into a named type, and that
/// type's name (its last segment): by the call's turbofish (`from_str::<T>(..)`), the `let` the
/// `match` initialises (`let r: T = match from_str(..) { .. }`), the `let` of the local the
/// `match` reads (`let parsed: Result<T, _> = from_str(..); match parsed { .. }`), or a call of a
/// function through the type's path (`T::from_json(..)`, a parse if that function deserialises).
pub fn err_arm_of_typed_parse(m: &syn::ExprMatch, scope: &Scope<'_>) -> Option<TypedParseError> {
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
    let (ty, through) = match (parse_call(&m.expr), constructor_call(&m.expr)) {
        (Some(turbofish), _) => (turbofish.or_else(|| let_type(scope))?, None),
        (None, Some((ty, function))) => (ty, Some(function)),
        (None, None) => {
            let Expr::Path(local) = &*m.expr else {
                return None;
            };
            let name = local.path.get_ident()?.to_string();
            (local_parse_type(scope, &name)?, None)
        }
    };
    let binding = match &err.pat {
        Pat::TupleStruct(t) => match t.elems.first() {
            Some(Pat::Ident(ident)) => Some(ident.ident.to_string()),
            _ => None,
        },
        _ => None,
    };
    let leaves = match &*err.body {
        Expr::Block(b) => {
            crate::analysis::syntax::leaves(&b.block) || b.block.stmts.iter().any(macro_leaves)
        }
        Expr::Return(_) | Expr::Continue(_) | Expr::Break(_) => true,
        Expr::Macro(m) => tokens_leave(m.mac.tokens.clone()),
        _ => false,
    };
    Some(TypedParseError {
        arm: scope.span(&*err.body),
        ty,
        through,
        leaves,
        binding,
        http_error_status: crate::analysis::dispatch::names_http_error_status(
            quote::ToTokens::to_token_stream(&*err.body),
        ),
    })
}

/// A statement that is a macro whose body leaves (`wrap! { return answer(..); }`): a macro's
/// body is read for its tokens, as the walk reads it.
fn macro_leaves(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Macro(m) => tokens_leave(m.mac.tokens.clone()),
        Stmt::Expr(Expr::Macro(m), _) => tokens_leave(m.mac.tokens.clone()),
        _ => false,
    }
}

/// Whether tokens hold `return`, `continue`, `break` or a `?`.
fn tokens_leave(tokens: proc_macro2::TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(i) => i == "return" || i == "continue" || i == "break",
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => tokens_leave(g.stream()),
        proc_macro2::TokenTree::Literal(_) => false,
    })
}

/// A call of a function through a type's path (`JsonRpcRequest::from_json(line)`, `.await` and
/// `?` aside): the type and the function's simple name.
fn constructor_call(expr: &Expr) -> Option<(String, String)> {
    let Expr::Call(call) = crate::analysis::syntax::strip_statement_wrappers(expr) else {
        return None;
    };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let segments = &path.path.segments;
    let [.., ty, function] = segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let ty = ty.ident.to_string();
    ty.starts_with(|c: char| c.is_ascii_uppercase())
        .then(|| (ty, function.ident.to_string()))
}

/// The deserialising functions of serde's data formats (`serde_json::from_str`, ..).
pub(super) const DESERIALISERS: [&str; 4] = ["from_str", "from_slice", "from_value", "from_reader"];

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
    if !DESERIALISERS.contains(&last.ident.to_string().as_str()) {
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
pub(super) fn result_ok_type(ty: &syn::Type) -> Option<String> {
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
