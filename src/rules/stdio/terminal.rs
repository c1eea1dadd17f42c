//! Tests of whether stdout is a terminal (`std::io::stdout().is_terminal()`,
//! `IsTerminal::is_terminal(&stdout())`, `atty::is(Stream::Stdout)`, `isatty(STDOUT_FILENO)`):
//! a branch such a test decides may run only when a person, not a client, reads stdout, so a
//! write in it is not shown to reach the protocol stream (first contact, batch 15: a stdout
//! logger chosen for a terminal or `--tcp`, a stderr one for a pipe).

use syn::visit::Visit;
use syn::Expr;

/// Whether an expression tests whether stdout is a terminal, directly or through one of
/// `locals` (locals of the function bound from such a test).
pub fn tests_stdout_terminal(expr: &Expr, locals: &[String]) -> bool {
    let mut finder = Finder {
        locals,
        found: false,
    };
    finder.visit_expr(expr);
    finder.found
}

struct Finder<'l> {
    locals: &'l [String],
    found: bool,
}

/// Whether an expression names stdout: `stdout()`, `io::stdout()`, `Stream::Stdout`,
/// `STDOUT_FILENO`, or the descriptor `1`.
fn names_stdout(expr: &Expr) -> bool {
    match crate::analysis::syntax::peel(expr) {
        Expr::Call(call) => {
            matches!(&*call.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "stdout"))
        }
        Expr::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Stdout" || s.ident == "STDOUT_FILENO"),
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_digits() == "1",
        Expr::MethodCall(call) => names_stdout(&call.receiver),
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if self.found {
            return;
        }
        match expr {
            Expr::MethodCall(call)
                if (call.method == "is_terminal" || call.method == "is_tty")
                    && names_stdout(&call.receiver) =>
            {
                self.found = true;
                return;
            }
            Expr::Call(call) => {
                let last = match &*call.func {
                    Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                let terminal = matches!(last.as_deref(), Some("is_terminal" | "is" | "isatty"));
                if terminal && call.args.iter().any(names_stdout) {
                    self.found = true;
                    return;
                }
            }
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    if self.locals.iter().any(|l| ident == l) {
                        self.found = true;
                        return;
                    }
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    // A closure's body or a nested item tests nothing of this condition's value.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests(code: &str, locals: &[&str]) -> bool {
        let expr: Expr = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let locals: Vec<String> = locals.iter().map(|l| l.to_string()).collect();
        tests_stdout_terminal(&expr, &locals)
    }

    #[test]
    fn finds_tests_of_stdout_being_a_terminal() {
        assert!(tests("std::io::stdout().is_terminal()", &[]));
        assert!(tests(
            "wants_stdio || (!tcp && !io::stdout().is_terminal())",
            &[]
        ));
        assert!(tests("IsTerminal::is_terminal(&std::io::stdout())", &[]));
        assert!(tests("atty::is(atty::Stream::Stdout)", &[]));
        assert!(tests(
            "unsafe { libc::isatty(libc::STDOUT_FILENO) } == 1",
            &[]
        ));
        assert!(tests("is_stdio_mode", &["is_stdio_mode"]));
        assert!(!tests("std::io::stdin().is_terminal()", &[]));
        assert!(!tests("atty::is(atty::Stream::Stdin)", &[]));
        assert!(!tests("args.tcp", &["is_stdio_mode"]));
        assert!(!tests("run(|| stdout().is_terminal())", &[]));
    }
}
