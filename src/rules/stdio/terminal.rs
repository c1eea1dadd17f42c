//! Tests of whether stdout is a terminal (`std::io::stdout().is_terminal()`,
//! `IsTerminal::is_terminal(&stdout())`, `atty::is(Stream::Stdout)`, `isatty(STDOUT_FILENO)`):
//! a branch such a test decides may run only when a person, not a client, reads stdout, so a
//! write in it is not shown to reach the protocol stream (first contact, batch 15: a stdout
//! logger chosen for a terminal or `--tcp`, a stderr one for a pipe).

use syn::visit::Visit;
use syn::Expr;

/// Whether an expression tests whether stdout is a terminal, directly or through one of
/// `locals` (locals of the function bound from such a test); `stdout_locals` are the function's
/// locals bound from stdout itself (`let mut out = io::stdout();`).
pub fn tests_stdout_terminal(expr: &Expr, locals: &[String], stdout_locals: &[String]) -> bool {
    let mut finder = Finder {
        locals,
        stdout_locals,
        found: false,
    };
    finder.visit_expr(expr);
    finder.found
}

struct Finder<'l> {
    locals: &'l [String],
    stdout_locals: &'l [String],
    found: bool,
}

/// Whether an expression names stdout: `stdout()`, `io::stdout()`, `Stream::Stdout`,
/// `STDOUT_FILENO`, the descriptor `1`, or one of `stdout_locals`.
pub fn names_stdout(expr: &Expr, stdout_locals: &[String]) -> bool {
    match crate::analysis::syntax::peel(expr) {
        Expr::Path(p)
            if p.path
                .get_ident()
                .is_some_and(|i| stdout_locals.iter().any(|l| i == l)) =>
        {
            true
        }
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
        Expr::MethodCall(call) => names_stdout(&call.receiver, stdout_locals),
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
                    && names_stdout(&call.receiver, self.stdout_locals) =>
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
                if terminal
                    && call
                        .args
                        .iter()
                        .any(|a| names_stdout(a, self.stdout_locals))
                {
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

/// Locals whose value tells whether stdout is a terminal: `when_true` holds those that are true
/// only when it is (`let interactive = stdin.is_terminal() && stdout.is_terminal()`),
/// `when_false` those that are false only when it is (`let piped = !stdout().is_terminal()`);
/// `handles` the locals that hold stdout itself.
#[derive(Default, Clone, Copy)]
pub struct TerminalLocals<'l> {
    pub when_true: &'l [String],
    pub when_false: &'l [String],
    pub handles: &'l [String],
}

/// Whether `expr` holds only when stdout is a terminal: a test of it, a conjunction with one,
/// the negation of something that fails only when it is, or a local of that kind. A branch
/// that runs only then writes to a person, never to a client's pipe.
pub fn true_only_on_terminal(expr: &Expr, locals: TerminalLocals<'_>) -> bool {
    match crate::analysis::syntax::peel(expr) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            false_only_on_terminal(&u.expr, locals)
        }
        Expr::Binary(b) => match b.op {
            syn::BinOp::And(_) => {
                true_only_on_terminal(&b.left, locals) || true_only_on_terminal(&b.right, locals)
            }
            syn::BinOp::Or(_) => {
                true_only_on_terminal(&b.left, locals) && true_only_on_terminal(&b.right, locals)
            }
            _ => false,
        },
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| locals.when_true.iter().any(|l| i == l)),
        Expr::MethodCall(call) if call.method == "is_terminal" || call.method == "is_tty" => {
            call.args.is_empty() && names_stdout(&call.receiver, locals.handles)
        }
        _ => false,
    }
}

/// Notes a local bound from `init` among `when_true` or `when_false` when its value tells
/// whether stdout is a terminal (see [`TerminalLocals`]).
pub fn note_terminal_local(
    name: &str,
    init: &Expr,
    when_true: &mut Vec<String>,
    when_false: &mut Vec<String>,
    handles: &[String],
) {
    let locals = TerminalLocals {
        when_true,
        when_false,
        handles,
    };
    if true_only_on_terminal(init, locals) {
        when_true.push(name.to_string());
    } else if false_only_on_terminal(init, locals) {
        when_false.push(name.to_string());
    }
}

/// Whether `expr` fails only when stdout is a terminal (see [`true_only_on_terminal`]).
pub fn false_only_on_terminal(expr: &Expr, locals: TerminalLocals<'_>) -> bool {
    match crate::analysis::syntax::peel(expr) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
            true_only_on_terminal(&u.expr, locals)
        }
        Expr::Binary(b) => match b.op {
            syn::BinOp::And(_) => {
                false_only_on_terminal(&b.left, locals) && false_only_on_terminal(&b.right, locals)
            }
            syn::BinOp::Or(_) => {
                false_only_on_terminal(&b.left, locals) || false_only_on_terminal(&b.right, locals)
            }
            _ => false,
        },
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| locals.when_false.iter().any(|l| i == l)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests(code: &str, locals: &[&str]) -> bool {
        let expr: Expr = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let locals: Vec<String> = locals.iter().map(|l| l.to_string()).collect();
        tests_stdout_terminal(&expr, &locals, &[])
    }

    fn only_on_terminal(code: &str) -> (bool, bool) {
        let expr: Expr = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let handles = vec!["out".to_string()];
        let when_true = vec!["interactive".to_string()];
        let when_false = vec!["piped".to_string()];
        let locals = TerminalLocals {
            when_true: &when_true,
            when_false: &when_false,
            handles: &handles,
        };
        (
            true_only_on_terminal(&expr, locals),
            false_only_on_terminal(&expr, locals),
        )
    }

    #[test]
    fn tells_which_side_of_a_test_runs_only_on_a_terminal() {
        assert_eq!(
            only_on_terminal("io::stdout().is_terminal()"),
            (true, false)
        );
        assert_eq!(
            only_on_terminal("stdin.is_terminal() && out.is_terminal()"),
            (true, false)
        );
        assert_eq!(only_on_terminal("!interactive"), (false, true));
        assert_eq!(only_on_terminal("piped || quiet"), (false, true));
        // Either side of `||` may hold without a terminal; stdin's test says nothing of stdout.
        assert_eq!(only_on_terminal("interactive || force"), (false, false));
        assert_eq!(only_on_terminal("stdin.is_terminal()"), (false, false));
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
