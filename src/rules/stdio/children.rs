//! Child processes that share the server's stdout: a `std::process::Command` (or tokio's)
//! started with `spawn()` or `status()`, both of which give the child the parent's stdout unless
//! told otherwise (`output()` captures it). What the child prints is not shown by the code in
//! general (`git commit` prints, `git add` does not); it is when the command is given the
//! parent's stdout explicitly (`.stdout(Stdio::inherit())`), or when the code waits for the
//! child's output (`spawn()` then `wait_with_output()`, which captures only a stdout the
//! command piped): the program reads what it expects the child to print.

use std::collections::HashMap;

use syn::Expr;

use crate::analysis::syntax::path_segments;

/// What a command's chain says of the child's stdout: set to something of its own
/// (`.stdout(Stdio::null())`, `Stdio::piped()`, a file), set to the parent's
/// (`.stdout(Stdio::inherit())`), or not set (the parent's, for `spawn()` and `status()`). The
/// last `.stdout(..)` of the chain decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildStdout {
    Own,
    Inherit,
    Unset,
}

/// A `spawn()` or `status()` of a process command: the local holding the command, if it is
/// one, what the chain says of the child's stdout, and whether it is `spawn()`.
pub struct Started {
    pub local: Option<String>,
    pub stdout: ChildStdout,
    pub spawn: bool,
}

/// The command a call starts, when the call is `spawn()` or `status()` with no arguments on a
/// process command built in place, or on a local (whether the local holds a command is the
/// caller's to know).
pub fn started(
    call: &syn::ExprMethodCall,
    imports: &HashMap<String, Vec<String>>,
) -> Option<Started> {
    let spawn = call.method == "spawn";
    if !call.args.is_empty() || !(spawn || call.method == "status") {
        return None;
    }
    let (root, methods) = chain(&call.receiver);
    let stdout = chain_stdout(&methods);
    match root {
        Expr::Call(new) if builds_command(new, imports) => Some(Started {
            local: None,
            stdout,
            spawn,
        }),
        Expr::Path(p) => p.path.get_ident().map(|ident| Started {
            local: Some(ident.to_string()),
            stdout,
            spawn,
        }),
        _ => None,
    }
}

/// Whether an initialiser builds a process command (`Command::new("cargo")`, with any builder
/// calls after it), and what its chain says of the child's stdout.
pub fn bound_command(init: &Expr, imports: &HashMap<String, Vec<String>>) -> Option<ChildStdout> {
    let (root, methods) = chain(init);
    match root {
        Expr::Call(new) if builds_command(new, imports) => Some(chain_stdout(&methods)),
        _ => None,
    }
}

/// What a `.stdout(x)` call sets: `Inherit` for `Stdio::inherit()`, `Own` for anything else;
/// `None` for another call.
pub fn stdout_set(call: &syn::ExprMethodCall) -> Option<ChildStdout> {
    if call.method != "stdout" {
        return None;
    }
    let arg = call.args.first()?;
    let inherit = quote::ToTokens::to_token_stream(arg)
        .to_string()
        .contains("inherit");
    Some(if inherit {
        ChildStdout::Inherit
    } else {
        ChildStdout::Own
    })
}

/// The `spawn()` call a value comes from, through `?`, `.await` and the calls that only unwrap
/// or relabel its error (`cmd.spawn().map_err(..)?`, `.spawn().expect(..)`).
pub fn spawned_by(expr: &Expr) -> Option<&syn::ExprMethodCall> {
    match expr {
        Expr::Try(t) => spawned_by(&t.expr),
        Expr::Await(a) => spawned_by(&a.base),
        Expr::Paren(p) => spawned_by(&p.expr),
        Expr::MethodCall(m) if m.method == "spawn" && m.args.is_empty() => Some(m),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "map_err" | "expect" | "unwrap" | "context" | "with_context" | "wrap_err"
            ) =>
        {
            spawned_by(&m.receiver)
        }
        _ => None,
    }
}

/// What the `.stdout(..)` calls of a chain (outermost first in `methods`, as [`chain`] gives
/// them) say: the outermost, applied last, decides.
fn chain_stdout(methods: &[&syn::ExprMethodCall]) -> ChildStdout {
    methods
        .iter()
        .find_map(|m| stdout_set(m))
        .unwrap_or(ChildStdout::Unset)
}

/// The root of a method chain (through `&mut`, `?`, `.await` and parentheses), and its method
/// calls.
fn chain(expr: &Expr) -> (&Expr, Vec<&syn::ExprMethodCall>) {
    let mut methods = Vec::new();
    let mut current = expr;
    loop {
        current = match current {
            Expr::MethodCall(m) => {
                methods.push(m);
                &m.receiver
            }
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            Expr::Try(t) => &t.expr,
            Expr::Await(a) => &a.base,
            _ => return (current, methods),
        };
    }
}

/// Whether a call is `Command::new(..)` of `std::process` or `tokio::process` (by its path, or
/// by the file's `use` of `Command` from one of them).
fn builds_command(call: &syn::ExprCall, imports: &HashMap<String, Vec<String>>) -> bool {
    let Expr::Path(func) = &*call.func else {
        return false;
    };
    let segments = path_segments(&func.path);
    let [prefix @ .., ty, new] = segments.as_slice() else {
        return false;
    };
    if ty != "Command" || new != "new" {
        return false;
    }
    let full: Vec<String> = match prefix {
        [] => match imports.get("Command") {
            Some(path) => path.clone(),
            None => return false,
        },
        [first, rest @ ..] => match imports.get(first) {
            Some(path) => path
                .iter()
                .chain(rest)
                .cloned()
                .chain([ty.clone()])
                .collect(),
            None => prefix.iter().cloned().chain([ty.clone()]).collect(),
        },
    };
    let full: Vec<&str> = full.iter().map(String::as_str).collect();
    matches!(
        full.as_slice(),
        ["std" | "tokio", "process", "Command"] | ["process", "Command"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports(code: &str) -> HashMap<String, Vec<String>> {
        let file: syn::File = syn::parse_str(code).unwrap_or_else(|e| panic!("{e}"));
        let mut out = HashMap::new();
        for item in &file.items {
            if let syn::Item::Use(u) = item {
                crate::analysis::syntax::use_imports(&u.tree, &mut Vec::new(), &mut out);
            }
        }
        out
    }

    fn origin(uses: &str, call: &str) -> Option<(ChildStdout, Option<String>, bool)> {
        let expr: Expr = syn::parse_str(call).unwrap_or_else(|e| panic!("{e}"));
        let Expr::MethodCall(call) = expr else {
            panic!("not a method call: {call}");
        };
        started(&call, &imports(uses)).map(|s| (s.stdout, s.local, s.spawn))
    }

    #[test]
    fn a_command_built_in_place_and_started() {
        let uses = "use std::process::Command;";
        assert_eq!(
            origin(uses, r#"Command::new("git").arg("commit").status()"#),
            Some((ChildStdout::Unset, None, false))
        );
        assert_eq!(
            origin(
                uses,
                r#"Command::new("git").stdout(Stdio::null()).status()"#
            ),
            Some((ChildStdout::Own, None, false))
        );
        assert_eq!(
            origin(
                uses,
                r#"Command::new("db").stdout(Stdio::inherit()).spawn()"#
            ),
            Some((ChildStdout::Inherit, None, true))
        );
        assert_eq!(origin(uses, r#"Command::new("git").output()"#), None);
        assert_eq!(
            origin(
                "use tokio::process;",
                r#"process::Command::new("x").spawn()"#
            ),
            Some((ChildStdout::Unset, None, true))
        );
        assert_eq!(
            origin("", r#"std::process::Command::new("x").spawn()"#),
            Some((ChildStdout::Unset, None, true))
        );
    }

    #[test]
    fn a_command_of_another_type_or_a_local() {
        assert_eq!(
            origin("use crate::cli::Command;", r#"Command::new("x").spawn()"#),
            None
        );
        assert_eq!(origin("", r#"Command::new("x").spawn()"#), None);
        assert_eq!(
            origin("", "cmd.arg(\"x\").status()"),
            Some((ChildStdout::Unset, Some("cmd".to_string()), false))
        );
    }

    #[test]
    fn the_spawn_a_child_comes_from() {
        let expr: Expr = syn::parse_str("cmd.spawn().map_err(|e| e.to_string())?")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(spawned_by(&expr).is_some());
        let expr: Expr = syn::parse_str("cmd.status()?").unwrap_or_else(|e| panic!("{e}"));
        assert!(spawned_by(&expr).is_none());
    }
}
