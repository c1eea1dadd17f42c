//! MCP001's condition for the send analysis: a request's cancellation. What selects it (the
//! cancellation notification's method, its constants and types, a hook named for it), what
//! tests it (`token.is_cancelled()`), its future (`token.cancelled()`), and the labels of its
//! paths (see [`crate::analysis::sends::marks`]).

use syn::{Expr, Pat};

use crate::analysis::facts::OriginCondition;
use crate::analysis::sends::marks::{const_condition, PathMarks, Place};
use crate::analysis::syntax::{expr_idents, path_segments, str_literal, strip_statement_wrappers};
use crate::analysis::vocabulary::Vocabulary;

/// A request's cancellation, in the words of a run's vocabulary (its configured hooks,
/// notifications and tokens).
pub struct Cancellation<'v> {
    pub vocabulary: &'v Vocabulary,
}

impl PathMarks for Cancellation<'_> {
    fn is_hook(&self, name: &str, has_receiver: bool) -> bool {
        super::words::is_cancel_hook(self.vocabulary, name, has_receiver)
    }

    fn hook_condition(&self, name: &str) -> OriginCondition {
        if super::words::is_own_cancel_hook_name(self.vocabulary, name) {
            OriginCondition::CalledOnPath
        } else {
            OriginCondition::Always
        }
    }

    fn is_future_method(&self, method: &str) -> bool {
        method == "cancelled" || method == "cancelled_owned"
    }

    fn is_test_method(&self, method: &str) -> bool {
        method == "is_cancelled"
    }

    fn concerns(&self, receiver: &Expr) -> bool {
        is_request_token(self.vocabulary, receiver)
    }

    fn operand(&self, expr: &Expr) -> Option<OriginCondition> {
        cancel_method_operand(self.vocabulary, expr)
    }

    fn tokens_name(&self, tokens: &proc_macro2::TokenStream) -> bool {
        tokens_mention_cancel(self.vocabulary, tokens)
    }

    fn pattern(&self, pat: &Pat) -> Option<OriginCondition> {
        pattern_cancel_condition(self.vocabulary, pat)
    }

    fn converts(&self, expr: &Expr) -> bool {
        converts_to_cancel_notification(expr)
    }

    fn label(&self, place: Place<'_>) -> String {
        match place {
            Place::Hook(name) => {
                format!("cancel path: `{name}` runs because a request was cancelled")
            }
            Place::Then => {
                "cancel path: this branch runs when the request has been cancelled".into()
            }
            Place::ElseOfNot => {
                "cancel path: this `else` branch runs when the request has been cancelled".into()
            }
            Place::Arm => "cancel path: this arm handles the cancellation notification".into(),
            Place::MethodTest => {
                "cancel path: this branch handles `notifications/cancelled`".into()
            }
            Place::LetPattern => {
                "cancel path: this branch handles the cancellation notification".into()
            }
            Place::LetElse => {
                "cancel path: the code after this handles the cancellation notification".into()
            }
            Place::SelectBranch => {
                "cancel path: this `select!` branch runs when the request is cancelled".into()
            }
            Place::AfterAwait => {
                "cancel path: the code after this runs once the request is cancelled".into()
            }
            Place::AfterLoop => {
                "cancel path: the code after this loop runs once the request is cancelled".into()
            }
            Place::FlagTest => {
                "cancel path: this branch runs once the flag that the cancellation sets is set"
                    .into()
            }
            Place::SignalBranch => {
                "cancel path: this `select!` branch runs once its one-shot channel is signalled, \
                 which the cancellation does (`.send(())`)"
                    .into()
            }
            Place::RegisteredClosure => {
                "cancel path: this closure is registered here as the cancellation notification's \
                 handler"
                    .into()
            }
            Place::Registered(name) => format!(
                "cancel path: `{name}` is registered here as the cancellation notification's handler"
            ),
        }
    }
}

/// A request token's receiver: anything not named like a server-wide shutdown token.
fn is_request_token(vocabulary: &Vocabulary, receiver: &Expr) -> bool {
    super::words::is_request_token(vocabulary, &expr_idents(receiver))
}

/// `"notifications/cancelled"` or a constant that may hold it.
fn cancel_method_operand(vocabulary: &Vocabulary, expr: &Expr) -> Option<OriginCondition> {
    if str_literal(expr).is_some_and(|s| vocabulary.is_cancel_method(&s)) {
        return Some(OriginCondition::Always);
    }
    match expr {
        Expr::Path(p) => const_condition(&path_segments(&p.path)),
        Expr::Reference(r) => cancel_method_operand(vocabulary, &r.expr),
        Expr::MethodCall(m) if m.args.is_empty() => cancel_method_operand(vocabulary, &m.receiver),
        _ => None,
    }
}

/// Whether a pattern selects the cancellation notification: its method string, a constant, or an
/// enum variant such as `ClientNotification::CancelledNotification(..)`.
fn pattern_cancel_condition(v: &Vocabulary, pat: &Pat) -> Option<OriginCondition> {
    match pat {
        Pat::Lit(lit) => str_literal(&Expr::Lit(lit.clone()))
            .is_some_and(|s| v.is_cancel_method(&s))
            .then_some(OriginCondition::Always),
        Pat::Ident(ident) if ident.subpat.is_none() => const_condition(&[ident.ident.to_string()]),
        Pat::Ident(ident) => ident
            .subpat
            .as_ref()
            .and_then(|(_, sub)| pattern_cancel_condition(v, sub)),
        Pat::Path(p) => {
            let segments = path_segments(&p.path);
            if super::words::is_cancel_notification_type(v, &segments) {
                Some(OriginCondition::Always)
            } else if segments.len() >= 2 {
                const_condition(&segments)
            } else {
                None
            }
        }
        Pat::TupleStruct(ts) => {
            let turbofish = ts
                .path
                .segments
                .iter()
                .any(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| {
                        matches!(arg, syn::GenericArgument::Type(syn::Type::Path(t))
                        if super::words::is_cancel_notification_type(v, &path_segments(&t.path)))
                    }),
                    _ => false,
                });
            if turbofish || super::words::is_cancel_notification_type(v, &path_segments(&ts.path)) {
                Some(OriginCondition::Always)
            } else {
                ts.elems.iter().find_map(|p| pattern_cancel_condition(v, p))
            }
        }
        Pat::Struct(s) => {
            if super::words::is_cancel_notification_type(v, &path_segments(&s.path)) {
                Some(OriginCondition::Always)
            } else {
                s.fields
                    .iter()
                    .find_map(|f| pattern_cancel_condition(v, &f.pat))
            }
        }
        Pat::Or(or) => or.cases.iter().find_map(|p| pattern_cancel_condition(v, p)),
        Pat::Paren(p) => pattern_cancel_condition(v, &p.pat),
        Pat::Reference(r) => pattern_cancel_condition(v, &r.pat),
        Pat::Tuple(t) => t.elems.iter().find_map(|p| pattern_cancel_condition(v, p)),
        _ => None,
    }
}

/// `x.try_into::<CancelledNotification>()`, `CancelledNotification::try_from(x)`,
/// `serde_json::from_value::<CancelledNotification>(..)`.
fn converts_to_cancel_notification(expr: &Expr) -> bool {
    // A call that extracts the cancellation from a notification: `R::peer_cancelled_params(&n)`,
    // `n.as_cancelled()`.
    let callee = match strip_statement_wrappers(expr) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        _ => None,
    };
    if let Some(name) = callee {
        let lower = name.to_ascii_lowercase();
        if (lower.contains("cancelled") || lower.contains("cancellation"))
            && !matches!(
                lower.as_str(),
                "cancelled" | "cancelled_owned" | "is_cancelled"
            )
            && !lower.contains("task")
            && !lower.contains("token")
        {
            return true;
        }
    }
    let idents = expr_idents(expr);
    idents
        .iter()
        .any(|i| i == "CancelledNotification" || i == "CancelledNotificationParam")
        && idents
            .iter()
            .any(|i| i.starts_with("try_") || i.starts_with("from_") || i == "parse")
}

fn tokens_mention_cancel(v: &Vocabulary, tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Literal(lit) => {
            v.is_cancel_method(lit.to_string().trim_matches('"'))
        }
        proc_macro2::TokenTree::Ident(ident) => {
            // A constant's name (`CANCELLED_METHOD`), not a type's or a variant's (`Cancelled`).
            let text = ident.to_string();
            let const_like = !text.chars().any(|c| c.is_ascii_lowercase());
            text == "CancelledNotification"
                || (const_like && super::words::is_cancel_const_name(&text))
        }
        proc_macro2::TokenTree::Group(g) => tokens_mention_cancel(v, &g.stream()),
        proc_macro2::TokenTree::Punct(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::Cancellation;
    use crate::analysis::facts::{FileFacts, OriginKind, Removal, SinkSite};
    use crate::analysis::sends::Sends;
    use crate::analysis::vocabulary::Vocabulary;
    use crate::analysis::walk::Hook;

    /// A file's facts from the send analysis alone, following the cancellation's paths.
    fn walked(code: &str) -> FileFacts {
        let file: syn::File = syn::parse_str(code).expect("parses");
        let vocabulary = Vocabulary::default();
        let marks = Cancellation {
            vocabulary: &vocabulary,
        };
        let mut facts = FileFacts::default();
        let hooks: Vec<Box<dyn Hook>> =
            vec![Box::new(Sends::new(&vocabulary, &marks, 0, Vec::new()))];
        crate::analysis::walk::walk(&file, 0, hooks, &mut facts);
        facts
    }

    /// The sends of a file's functions, each with the kinds of the cancel paths it lies on and
    /// whether it is guarded.
    fn sends(code: &str) -> Vec<(String, Vec<OriginKind>, bool)> {
        let facts = walked(code);
        let kinds = |sink: &SinkSite| {
            sink.origins
                .iter()
                .map(|o| facts.origins[*o].kind)
                .collect()
        };
        facts
            .functions
            .iter()
            .flat_map(|f| &f.sinks)
            .map(|sink| (sink.what.clone(), kinds(sink), sink.registry.guarded))
            .collect()
    }

    #[test]
    fn a_cancel_hook_and_a_cancelled_branch_are_cancel_paths() {
        let found = sends(
            "impl H { fn on_cancelled(&self) { self.send_error(1); } }\n\
             fn f(token: T) { if token.is_cancelled() { out.respond(2); } out.respond(3); }",
        );
        assert_eq!(
            found,
            vec![
                (
                    "`self.send_error(..)`".into(),
                    vec![OriginKind::Hook],
                    false
                ),
                ("`out.respond(..)`".into(), vec![OriginKind::IfTest], false),
                ("`out.respond(..)`".into(), vec![], false),
            ]
        );
    }

    #[test]
    fn a_guard_holds_its_branch_and_its_else_is_a_cancel_path() {
        let found = sends(
            "fn f(token: T) { if !token.is_cancelled() { out.respond(1); } else { out.respond(2); } }",
        );
        assert_eq!(found[0].1, vec![]);
        assert!(found[0].2, "{found:?}");
        assert_eq!(found[1].1, vec![OriginKind::IfTest]);
        assert!(!found[1].2, "{found:?}");
    }

    #[test]
    fn select_branches_and_the_code_after_a_cancelled_await() {
        let found = sends(
            "async fn f(ct: T) {\n\
               tokio::select! { _ = ct.cancelled() => { out.reply(1) } v = work() => { out.reply(v) } }\n\
               ct.cancelled().await;\n\
               out.reply(3);\n\
             }",
        );
        let kinds: Vec<(Vec<OriginKind>, bool)> = found.into_iter().map(|f| (f.1, f.2)).collect();
        assert_eq!(
            kinds,
            vec![
                (vec![OriginKind::SelectArm], false),
                // Raced against the cancellation: it runs only if it won.
                (vec![], true),
                (vec![OriginKind::AfterAwait], false),
            ]
        );
    }

    #[test]
    fn a_statement_send_is_removable_and_a_value_flows_to_its_send() {
        let facts = walked(
            "fn f(token: T) { let _ = out.respond(1); let r = if token.is_cancelled() { JsonRpcResponse { id, result, jsonrpc } } else { other() }; tx.send(r); }",
        );
        let sinks = &facts.functions[0].sinks;
        assert!(
            matches!(sinks[0].removal, Some(Removal::Statement(_))),
            "{sinks:?}"
        );
        // The response built on the cancel path is sent later, by `tx.send(r)`.
        let flowed = sinks.iter().find(|s| s.sent_at.is_some()).expect("a flow");
        assert_eq!(flowed.what, "`JsonRpcResponse { .. }`");
        assert_eq!(facts.origins[flowed.origins[0]].kind, OriginKind::IfTest);
    }
}
