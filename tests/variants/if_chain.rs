//! A `match` on string literals (`match method { "a" => .., "b" | "c" => .., _ => .. }`)
//! written as an `if`/`else if` chain on a local:
//! `{ let zz_s0 = method; if zz_s0 == "a" { .. } else if zz_s0 == "b" || zz_s0 == "c" { .. }
//! else { .. } }`. Each arm keeps its line.

use syn::spanned::Spanned;
use syn::{Lit, Pat};

use crate::edit::Edits;
use crate::Input;

/// The string literals of an arm's pattern (`"a"`, `"a" | "b"`), if that is all it is.
pub fn strings(pat: &Pat) -> Option<Vec<String>> {
    match pat {
        Pat::Lit(lit) => match &lit.lit {
            Lit::Str(s) => Some(vec![s.token().to_string()]),
            _ => None,
        },
        Pat::Or(or) if or.leading_vert.is_none() => {
            let mut all = Vec::new();
            for case in &or.cases {
                all.extend(strings(case)?);
            }
            Some(all)
        }
        _ => None,
    }
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    for (n, m) in crate::edit::matches(input.syntax).into_iter().enumerate() {
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
        let Some(cases): Option<Vec<Vec<String>>> = arms.iter().map(|a| strings(&a.pat)).collect()
        else {
            continue;
        };
        let binding = match &last.pat {
            Pat::Wild(_) => None,
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                Some(input.text.slice(input.text.of(&i.ident)).to_string())
            }
            _ => continue,
        };
        let local = format!("zz_s{n}");
        let (match_start, _) = input.text.of(&m.match_token);
        let (_, brace_open_end) = input.text.range(m.brace_token.span.open());
        let scrutinee = input.text.slice(input.text.of(&*m.expr));
        if scrutinee.contains('\n') {
            continue;
        }
        edits.replace(
            (match_start, brace_open_end),
            format!("{{ let {local} = {scrutinee};"),
        );
        for (i, arm) in m.arms.iter().enumerate() {
            let (pat_start, _) = input.text.of(&arm.pat);
            let (_, arrow_end) = input.text.of(&arm.fat_arrow_token);
            let head = if i + 1 == m.arms.len() {
                match &binding {
                    Some(name) => format!("else {{ let {name} = {local};"),
                    None => "else {".to_string(),
                }
            } else {
                let test = cases[i]
                    .iter()
                    .map(|s| format!("{local} == {s}"))
                    .collect::<Vec<_>>()
                    .join(" || ");
                format!("{}if {test} {{", if i == 0 { "" } else { "else " })
            };
            edits.replace((pat_start, arrow_end), head);
            match &arm.comma {
                Some(comma) => edits.replace(input.text.of(comma), "}"),
                None => {
                    let (_, body_end) = input.text.range(arm.body.span());
                    edits.insert(body_end, "}");
                }
            }
        }
        // The `match`'s closing brace now closes the block that holds the local.
    }
    edits
}
