//! A `match` on string literals written as a `match` on a tuple, as dispatchers that also look at
//! the id do: `match method { "a" => .., other => .. }` becomes `match (method, ()) { ("a", _)
//! => .., (other, _) => .. }`. Each arm keeps its line.

use syn::{Lit, Pat};

use crate::edit::Edits;
use crate::Input;

/// An arm pattern of string literals (`"a"`, `"a" | "b"`).
fn is_strings(pat: &Pat) -> bool {
    match pat {
        Pat::Lit(lit) => matches!(lit.lit, Lit::Str(_)),
        Pat::Or(or) => or.leading_vert.is_none() && or.cases.iter().all(is_strings),
        _ => false,
    }
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    for m in crate::edit::matches(input.syntax) {
        let Some((last, arms)) = m.arms.split_last() else {
            continue;
        };
        if arms.is_empty() || !arms.iter().all(|a| is_strings(&a.pat)) {
            continue;
        }
        let catch_all = match &last.pat {
            Pat::Wild(_) => true,
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => true,
            other => is_strings(other),
        };
        if !catch_all {
            continue;
        }
        let scrutinee = input.text.of(&*m.expr);
        if input.text.slice(scrutinee).contains('\n') {
            continue;
        }
        edits.replace(scrutinee, format!("({}, ())", input.text.slice(scrutinee)));
        for arm in &m.arms {
            if matches!(arm.pat, Pat::Wild(_)) {
                continue;
            }
            let range = input.text.of(&arm.pat);
            let text = input.text.slice(range);
            if text.contains('\n') {
                continue;
            }
            edits.replace(range, format!("({text}, _)"));
        }
    }
    edits
}
