//! The receiver of a reported method call bound to a local first: through a clone
//! (`({ let zz_r = self.out.clone(); zz_r.send(..) })`), an `Arc` of a clone, or an `Option`
//! local (`if let Some(zz_r) = zz_o { zz_r.send(..) }`).

use syn::visit::Visit;
use syn::{Expr, ExprMethodCall};

use crate::edit::Edits;
use crate::Input;

pub fn clone(input: &Input<'_>) -> Edits {
    bind(input, |receiver| format!("{receiver}.clone()"))
}

pub fn arc(input: &Input<'_>) -> Edits {
    bind(input, |receiver| {
        format!("std::sync::Arc::new({receiver}.clone())")
    })
}

/// The receiver reached through an `Option` local: `if let Some(zz_r) = zz_o { .. }`.
pub fn option(input: &Input<'_>) -> Edits {
    bind_with(input, |receiver, rest| {
        format!(
            "({{ let zz_o = Some(&{receiver}); if let Some(zz_r) = zz_o {{ zz_r{rest} }} else {{ unreachable!() }} }})"
        )
    })
}

/// The method calls that start where a finding's primary span starts, the widest first.
struct Calls<'a, 'i> {
    input: &'a Input<'i>,
    found: Vec<(usize, usize, &'a ExprMethodCall)>,
}

impl<'a> Visit<'a> for Calls<'a, '_> {
    fn visit_expr_method_call(&mut self, call: &'a ExprMethodCall) {
        let (start, end) = self.input.text.of(call);
        if self
            .input
            .reported
            .iter()
            .any(|&(s, e)| s == start && end <= e.max(start + 1))
        {
            self.found.push((start, end, call));
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

fn bind(input: &Input<'_>, bound: impl Fn(&str) -> String) -> Edits {
    bind_with(input, |receiver, rest| {
        format!("({{ let zz_r = {}; zz_r{rest} }})", bound(receiver))
    })
}

/// Rewrite each reported method call `RECEIVER.rest` as `write(RECEIVER, .rest)`.
fn bind_with(input: &Input<'_>, write: impl Fn(&str, &str) -> String) -> Edits {
    let mut calls = Calls {
        input,
        found: Vec::new(),
    };
    calls.visit_file(input.syntax);
    let mut edits = Edits::default();
    let mut taken: Vec<usize> = Vec::new();
    // The widest call starting at a finding: `self.out.send(x)` rather than `self.out`.
    calls
        .found
        .sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
    for (start, end, call) in calls.found {
        if taken.contains(&start) {
            continue;
        }
        taken.push(start);
        let receiver = match &*call.receiver {
            Expr::Field(_) => &*call.receiver,
            Expr::Path(p) if p.qself.is_none() && !p.path.is_ident("self") => &*call.receiver,
            _ => continue,
        };
        let (_, receiver_end) = input.text.of(receiver);
        let receiver_text = input.text.slice((start, receiver_end));
        if receiver_text.contains('\n') {
            continue;
        }
        let rest = input.text.slice((receiver_end, end));
        edits.replace((start, end), write(receiver_text, rest));
    }
    edits
}
