//! Shapes of code the send analysis recognises, asked of syntax alone: registries of requests
//! in flight, response constructs, and how sends and values read in messages.

use syn::{Expr, Pat, Stmt};

use super::super::facts::{OriginCondition, OriginKind};
use super::super::syntax::{json_shape, macro_name, path_segments, peel};
use super::super::vocabulary as vocab;
use crate::source::ByteSpan;

/// How an `if` condition relates to the followed condition (see [`super::marks`]).
pub(super) enum Condition {
    Plain,
    /// The `then` branch runs because the condition holds.
    Holds(OriginKind, ByteSpan, String, OriginCondition),
    /// The `then` branch runs only while it does not (a guard); the `else` branch runs because
    /// it does, when the condition of the test it negates holds (a flag's test holds only when
    /// the crate sets its flags on marked paths alone).
    Negated(ByteSpan, OriginCondition),
}

/// Calls that register a request in, or retire it from, an in-flight registry. (Looking one up
/// does not count: answering a `tasks/cancel` request looks up another request.)
pub(super) const REGISTRY_TOUCH: &[&str] = &[
    "insert",
    "remove",
    "take",
    "remove_entry",
    "swap_remove",
    "shift_remove",
];
pub(super) const REGISTRY_REMOVE: &[&str] = &[
    "remove",
    "take",
    "remove_entry",
    "swap_remove",
    "shift_remove",
];

/// The name of the collection an expression reaches: `self.in_flight.lock().await` gives
/// `in_flight`, `local_ct_pool` gives `local_ct_pool`.
pub(super) fn collection_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Field(f) => match &f.member {
            syn::Member::Named(ident) => Some(ident.to_string()),
            syn::Member::Unnamed(_) => collection_name(&f.base),
        },
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "lock"
                    | "read"
                    | "write"
                    | "borrow"
                    | "borrow_mut"
                    | "unwrap"
                    | "expect"
                    | "as_mut"
                    | "as_ref"
            ) =>
        {
            collection_name(&m.receiver)
        }
        Expr::Await(a) => collection_name(&a.base),
        Expr::Try(t) => collection_name(&t.expr),
        Expr::Paren(p) => collection_name(&p.expr),
        Expr::Reference(r) => collection_name(&r.expr),
        _ => None,
    }
}

/// `pool.remove(&id)` (or `get`, `contains_key`, possibly followed by `.is_some()`): the
/// registry whose answer decides whether the request is still in flight.
pub(super) fn registry_lookup(expr: &Expr) -> Option<String> {
    match expr {
        Expr::MethodCall(m) if m.method == "is_some" && m.args.is_empty() => {
            registry_lookup(&m.receiver)
        }
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "remove"
                    | "take"
                    | "remove_entry"
                    | "swap_remove"
                    | "shift_remove"
                    | "get"
                    | "get_mut"
                    | "contains_key"
            ) && m.args.len() == 1 =>
        {
            collection_name(&m.receiver)
        }
        Expr::Paren(p) => registry_lookup(&p.expr),
        Expr::Await(a) => registry_lookup(&a.base),
        _ => None,
    }
}

/// The type a value is evidently built as: `Session { .. }`, `Session::new(..)`,
/// `Arc::new(Session::new(..))`.
pub(super) fn constructed_type(expr: &Expr) -> Option<String> {
    match peel(expr) {
        Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => {
                let segments = path_segments(&p.path);
                if segments.len() >= 2 {
                    let ty = &segments[segments.len() - 2];
                    if matches!(
                        ty.as_str(),
                        "Arc" | "Rc" | "Box" | "Mutex" | "RwLock" | "RefCell"
                    ) {
                        return c.args.first().and_then(constructed_type);
                    }
                    if ty.chars().next().is_some_and(|ch| ch.is_ascii_uppercase()) && ty != "Self" {
                        return Some(ty.clone());
                    }
                }
                None
            }
            _ => None,
        },
        _ => None,
    }
}

/// A channel's name without its end's suffix: `sink_proxy_tx` gives `sink_proxy`, `tx` gives `""`.
pub(super) fn channel_base(name: &str, suffixes: &[&str]) -> Option<String> {
    suffixes
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .map(str::to_string)
}

/// Whether a pattern matches a response or error message variant: `JsonRpcMessage::Response(..)`.
pub(super) fn is_response_variant_pattern(pat: &Pat) -> bool {
    let path = match pat {
        Pat::TupleStruct(ts) => &ts.path,
        Pat::Struct(st) => &st.path,
        Pat::Path(p) => &p.path,
        Pat::Or(or) => return or.cases.iter().any(is_response_variant_pattern),
        _ => return false,
    };
    let segments = path_segments(path);
    segments.len() >= 2
        && matches!(
            segments[segments.len() - 1].as_str(),
            "Response" | "Error" | "Result"
        )
        && {
            let ty = &segments[segments.len() - 2];
            ty.contains("Message")
                || ty.contains("JsonRpc")
                || ty.contains("Jsonrpc")
                || ty.contains("JSONRPC")
        }
}

/// Whether a branch's value is "nothing to send": it diverges (`return`, `continue`, `break`),
/// or is `()`, `None`, `Ok(None)` or a silent outcome.
pub(super) fn is_nothing_to_send(expr: &Expr) -> bool {
    match expr {
        Expr::Return(_) | Expr::Continue(_) | Expr::Break(_) => true,
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "None" | "Silent" | "NoResponse" | "Ignore" | "Skip"
            )
        }),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Ok") || p.path.is_ident("Some"))
                && c.args.first().is_some_and(is_nothing_to_send)
        }
        Expr::Block(b) => match b.block.stmts.last() {
            None => true,
            Some(Stmt::Expr(e, None)) => is_nothing_to_send(e),
            Some(_) => true,
        },
        Expr::Macro(m) => matches!(
            macro_name(&m.mac).as_str(),
            "unreachable" | "panic" | "todo"
        ),
        Expr::Paren(p) => is_nothing_to_send(&p.expr),
        _ => false,
    }
}

/// A short description of a value for messages: `Err(McpError::..)`.
pub(super) fn describe_value(expr: &Expr) -> String {
    let text = quote::ToTokens::to_token_stream(expr).to_string();
    format!("`{}`", crate::analysis::text::elide(&text, 40))
}

/// Whether the callee of a call is named like a sink (then it is a send, not a call to follow).
pub(super) fn is_send_name(vocabulary: &vocab::Vocabulary, name: &str) -> bool {
    vocabulary.is_sink_call(name) || vocab::FURTHER_MESSAGE_CALLS.contains(&name)
}

/// Whether an expression constructs a JSON-RPC response or error message.
pub(super) fn is_response_construct(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => {
            let Expr::Path(func) = &*call.func else {
                return false;
            };
            let segments = path_segments(&func.path);
            let Some(last) = segments.last() else {
                return false;
            };
            if segments.len() >= 2 {
                let ty = &segments[segments.len() - 2];
                if ty == "ServerMessage" && last == "from_message" {
                    // `from_message(msg, Some(id))` is a response; `None` a notification.
                    return call.args.iter().nth(1).is_some_and(|a| {
                        matches!(a, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Some")))
                    });
                }
                if vocab::is_response_constructor(ty, last) {
                    return true;
                }
            }
            vocab::is_response_builder_name(last)
                && !segments
                    .iter()
                    .any(|s| s == "http" || s == "axum" || s == "hyper")
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            vocab::is_response_builder_name(&name) && name != "response"
        }
        Expr::Struct(s) => {
            let segments = path_segments(&s.path);
            let type_name = segments.last().cloned().unwrap_or_default();
            if vocab::is_response_struct(&type_name) {
                return true;
            }
            let fields: Vec<String> = s
                .fields
                .iter()
                .filter_map(|f| match &f.member {
                    syn::Member::Named(ident) => Some(ident.to_string()),
                    syn::Member::Unnamed(_) => None,
                })
                .collect();
            let has = |name: &str| fields.iter().any(|f| f == name);
            // A message enum's response variant that carries the request's id
            // (`Frame::Response { id, body }`).
            let response_variant = segments.len() >= 2 && type_name.ends_with("Response");
            has("id")
                && (response_variant || has("result") || has("error"))
                && (has("jsonrpc") || type_name.contains("Response") || type_name.contains("Reply"))
        }
        Expr::Macro(m) => json_shape(&m.mac).is_some_and(|s| s.is_response()),
        _ => false,
    }
}

/// A short description of a response construct for messages.
pub(super) fn describe_construct(expr: &Expr) -> String {
    match expr {
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) => format!("`{}(..)`", path_segments(&p.path).join("::")),
            _ => "the response".into(),
        },
        Expr::Struct(s) => format!("`{} {{ .. }}`", path_segments(&s.path).join("::")),
        Expr::Macro(m) => format!("`{}!({{ .. }})`", macro_name(&m.mac)),
        Expr::MethodCall(m) => format!("`.{}(..)`", m.method),
        _ => "the response".into(),
    }
}

/// How a call expression reads in a message: `self.send_error(..)`, `transport::send(..)`.
pub(super) fn describe_call(receiver: Option<&Expr>, name: &str) -> String {
    match receiver {
        Some(receiver) => {
            let text = quote::ToTokens::to_token_stream(receiver).to_string();
            let text: String = text.split_whitespace().collect::<Vec<_>>().join("");
            if text.len() <= 40 {
                format!("`{text}.{name}(..)`")
            } else {
                format!("`.{name}(..)`")
            }
        }
        None => format!("`{name}(..)`"),
    }
}

pub(super) fn is_ok_pattern(pat: &Pat) -> bool {
    matches!(pat, Pat::TupleStruct(ts) if ts.path.is_ident("Ok") || ts.path.is_ident("Some"))
}
