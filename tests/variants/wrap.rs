//! The reported statement (or arm value, or closure body) wrapped in a local `macro_rules!`
//! that expands to the tokens it is given: `zz_wrap! { let _ = tx.send(msg); }`. The macro is
//! defined once, before the file's first item, on that item's line.

use syn::visit::Visit;
use syn::{Arm, Expr, ExprClosure, Stmt};

use crate::edit::Edits;
use crate::Input;

const DEFINITION: &str = "macro_rules! zz_wrap { ($($t:tt)*) => { $($t)* }; } ";

/// A piece of code that can be wrapped: its range, and whether it is a statement (wrapped in
/// braces, its `;` inside) or a value (wrapped in parentheses).
struct Candidates<'a, 'i> {
    input: &'a Input<'i>,
    found: Vec<(usize, usize, bool)>,
}

impl<'a> Visit<'a> for Candidates<'a, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let range = self.input.text.of(stmt);
        match stmt {
            Stmt::Expr(_, Some(_)) | Stmt::Local(_) | Stmt::Macro(_) => {
                self.found.push((range.0, range.1, true));
            }
            // An `if`, `match` or loop statement without a `;` may be followed by others: it
            // is wrapped as a statement.
            Stmt::Expr(e, None) => {
                let block_like = matches!(
                    e,
                    Expr::If(_)
                        | Expr::Match(_)
                        | Expr::Loop(_)
                        | Expr::While(_)
                        | Expr::ForLoop(_)
                        | Expr::Block(_)
                        | Expr::Unsafe(_)
                );
                self.found.push((range.0, range.1, block_like));
            }
            Stmt::Item(_) => {}
        }
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_arm(&mut self, arm: &'a Arm) {
        if !matches!(&*arm.body, Expr::Block(_)) {
            let range = self.input.text.of(&*arm.body);
            self.found.push((range.0, range.1, false));
        }
        syn::visit::visit_arm(self, arm);
    }

    fn visit_expr_closure(&mut self, closure: &'a ExprClosure) {
        if !matches!(&*closure.body, Expr::Block(_)) {
            let range = self.input.text.of(&*closure.body);
            self.found.push((range.0, range.1, false));
        }
        syn::visit::visit_expr_closure(self, closure);
    }
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    let mut edits = Edits::default();
    let Some(first) = input.syntax.items.first() else {
        return edits;
    };
    let mut candidates = Candidates {
        input,
        found: Vec::new(),
    };
    candidates.visit_file(input.syntax);
    let mut wrapped: Vec<(usize, usize, bool)> = Vec::new();
    for &(start, _) in &input.reported {
        // The innermost piece holding the finding's start.
        let inner = candidates
            .found
            .iter()
            .filter(|(s, e, _)| *s <= start && start < *e)
            .max_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
        if let Some(&piece) = inner {
            if !wrapped.contains(&piece) {
                wrapped.push(piece);
            }
        }
    }
    // Nested pieces would overlap: keep the outer one of two.
    wrapped.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
    let mut end_of_last = 0;
    let mut any = false;
    for (start, end, statement) in wrapped {
        if start < end_of_last {
            continue;
        }
        end_of_last = end;
        let text = input.text.slice((start, end));
        let wrapped_text = if statement {
            format!("zz_wrap! {{ {text} }}")
        } else {
            format!("zz_wrap!({text})")
        };
        edits.replace((start, end), wrapped_text);
        any = true;
    }
    if any {
        let (first_start, _) = input.text.of(first);
        edits.insert(first_start, DEFINITION);
    }
    edits
}
