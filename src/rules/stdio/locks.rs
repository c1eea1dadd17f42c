//! A serving loop that holds stdout's lock: `let mut stdout = io::stdout().lock();` before the
//! loop that reads requests. Another thread that writes to stdout (`println!` takes the same
//! lock) waits until the loop lets it go, when the server stops: a task started with
//! `tokio::spawn` on a multi-threaded runtime, or a `std::thread::spawn`ed thread, cannot write
//! into the protocol stream while the server serves.

use syn::{Expr, Stmt};

/// The bodies a call runs on another thread: the closure or `async` block handed to
/// `tokio::spawn`, `tokio::task::spawn_blocking` or `std::thread::spawn` (not `spawn_local`,
/// which runs on the caller's thread).
pub fn spawned_bodies(call: &syn::ExprCall) -> Vec<&Expr> {
    let Expr::Path(path) = &*call.func else {
        return Vec::new();
    };
    let spawns = path
        .path
        .segments
        .last()
        .is_some_and(|s| s.ident == "spawn" || s.ident == "spawn_blocking");
    if !spawns {
        return Vec::new();
    }
    call.args
        .iter()
        .filter(|a| matches!(a, Expr::Closure(_) | Expr::Async(_)))
        .collect()
}

/// The index of the statement of a block that takes stdout's lock for the rest of the block,
/// before a loop of the block (the loop that reads requests runs holding it): `let mut out =
/// io::stdout().lock();`, or `.lock()` on a local an earlier statement of the block bound to
/// `stdout()`.
pub fn stdout_lock_from(block: &syn::Block) -> Option<usize> {
    let mut handles: Vec<String> = Vec::new();
    for (index, stmt) in block.stmts.iter().enumerate() {
        let Stmt::Local(local) = stmt else { continue };
        let Some(init) = local.init.as_ref() else {
            continue;
        };
        let value = &*init.expr;
        if is_stdout_call(value) {
            if let Some(name) = bound_name(&local.pat) {
                handles.push(name);
            }
            continue;
        }
        if let Expr::MethodCall(call) = value {
            let receiver_is_stdout = is_stdout_call(&call.receiver)
                || matches!(&*call.receiver, Expr::Path(p)
                    if p.path.get_ident().is_some_and(|i| handles.iter().any(|h| i == h)));
            // The loop that reads requests comes after the lock: it runs holding it.
            let loops_after = block.stmts.iter().skip(index + 1).any(|s| {
                matches!(
                    s,
                    Stmt::Expr(Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_), _)
                )
            });
            if call.method == "lock" && call.args.is_empty() && receiver_is_stdout && loops_after {
                return Some(index);
            }
        }
    }
    None
}

/// The name a plain `let` binds (`let mut out`, `let out: Stdout`).
fn bound_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(p) => Some(p.ident.to_string()),
        syn::Pat::Type(t) => bound_name(&t.pat),
        _ => None,
    }
}

/// `stdout()`, `io::stdout()`, `std::io::stdout()` (not tokio's, whose handle takes no lock).
fn is_stdout_call(expr: &Expr) -> bool {
    let Expr::Call(call) = expr else {
        return false;
    };
    let Expr::Path(path) = &*call.func else {
        return false;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    call.args.is_empty()
        && segments.last().is_some_and(|s| s == "stdout")
        && !segments.iter().any(|s| s == "tokio")
}
