//! Handler tables as dispatchers: a local holding `(method, handler)` pairs (`let table =
//! vec![("initialize", Box::new(|| ..)), ("tools/list", on_list as Handler)];`, or an array),
//! looked up by a `match` whose `None` arm takes every method the table does not hold. The
//! table's entries are the dispatcher's arms (a closure's body is the arm's body; a function's
//! path is a call of it), the `None` arm its catch-all.

use syn::punctuated::Punctuated;
use syn::{Expr, Pat};

use crate::analysis::syntax::{macro_name, peel, peel_handler, str_literal};

/// One entry of a handler table: its method, and the code that runs for it.
pub(super) struct TableEntry {
    pub(super) method: String,
    /// The closure's body, or the registered function's path.
    pub(super) handler: Expr,
}

/// A local of the current function that holds a handler table.
pub(super) struct Table {
    pub(super) local: String,
    /// Where the `let` of the table starts.
    pub(super) start: usize,
    pub(super) entries: Vec<TableEntry>,
}

/// The elements of `vec![..]` or `[..]`.
fn elements(init: &Expr) -> Option<Vec<Expr>> {
    match peel(init) {
        Expr::Array(array) => Some(array.elems.iter().cloned().collect()),
        Expr::Macro(mac) if macro_name(&mac.mac) == "vec" => mac
            .mac
            .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok()
            .map(|elems| elems.into_iter().collect()),
        _ => None,
    }
}

/// The code a handler runs: a closure's body (through `Box::new`, `Box::pin` and an `async`
/// block), or a function's path as it is.
fn handler_code(expr: &Expr) -> Option<Expr> {
    match peel_handler(expr) {
        Expr::Closure(closure) => {
            Some(handler_code(&closure.body).unwrap_or((*closure.body).clone()))
        }
        Expr::Async(block) => Some(Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: block.block.clone(),
        })),
        path @ Expr::Path(p) if p.qself.is_none() => Some(path.clone()),
        _ => None,
    }
}

fn entry(expr: &Expr) -> Option<TableEntry> {
    let Expr::Tuple(tuple) = peel(expr) else {
        return None;
    };
    let mut parts = tuple.elems.iter();
    let (Some(key), Some(handler), None) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    Some(TableEntry {
        method: str_literal(key)?,
        handler: handler_code(handler)?,
    })
}

/// A `let` of a handler table: at least two entries, one of them an MCP method and none of them
/// one of Agent2Agent's (as `is_mcp` and `is_a2a` tell them).
pub(super) fn table_local(
    local: &syn::Local,
    is_mcp: fn(&str) -> bool,
    is_a2a: fn(&str) -> bool,
) -> Option<Table> {
    let pattern = match &local.pat {
        Pat::Type(typed) => &*typed.pat,
        other => other,
    };
    let Pat::Ident(name) = pattern else {
        return None;
    };
    let entries: Vec<TableEntry> = elements(&local.init.as_ref()?.expr)?
        .iter()
        .map(entry)
        .collect::<Option<_>>()?;
    // Agent2Agent's methods share some of MCP's names: such a table serves A2A's clients.
    let mcp =
        entries.iter().any(|e| is_mcp(&e.method)) && !entries.iter().any(|e| is_a2a(&e.method));
    (entries.len() >= 2 && mcp).then(|| Table {
        local: name.ident.to_string(),
        start: 0,
        entries,
    })
}

/// What a table lookup compares the table's keys with (`table.get(method)`, `.find(|(m, _)| *m
/// == request.method)`): the operand that is neither the table nor a closure's parameter.
pub(super) fn looked_up<'a>(scrutinee: &'a Expr, table: &str) -> Option<&'a Expr> {
    struct Operands<'a> {
        found: Vec<&'a Expr>,
        params: Vec<String>,
    }
    impl<'a> syn::visit::Visit<'a> for Operands<'a> {
        fn visit_expr_closure(&mut self, closure: &'a syn::ExprClosure) {
            for input in &closure.inputs {
                self.params
                    .extend(crate::analysis::syntax::pattern_bindings(input));
            }
            syn::visit::visit_expr_closure(self, closure);
        }
        fn visit_expr_binary(&mut self, binary: &'a syn::ExprBinary) {
            if matches!(binary.op, syn::BinOp::Eq(_)) {
                self.found.push(&binary.left);
                self.found.push(&binary.right);
            }
            syn::visit::visit_expr_binary(self, binary);
        }
        fn visit_expr_method_call(&mut self, call: &'a syn::ExprMethodCall) {
            if matches!(
                call.method.to_string().as_str(),
                "get" | "get_mut" | "get_key_value"
            ) {
                self.found.extend(call.args.iter());
            }
            syn::visit::visit_expr_method_call(self, call);
        }
    }
    let mut operands = Operands {
        found: Vec::new(),
        params: Vec::new(),
    };
    syn::visit::Visit::visit_expr(&mut operands, scrutinee);
    operands.found.into_iter().find(|e| {
        crate::analysis::syntax::root_local(e)
            .is_some_and(|root| root != table && !operands.params.contains(&root))
    })
}

/// `None`, as a pattern.
pub(super) fn is_none(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.ident == "None" && p.subpat.is_none(),
        Pat::Path(p) => p.path.is_ident("None"),
        _ => false,
    }
}
