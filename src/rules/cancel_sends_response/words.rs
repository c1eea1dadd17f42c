//! MCP001's words: the names of cancel hooks, of the cancellation notification's types and
//! constants, and of per-request tokens (as opposed to server-wide shutdown tokens), with what
//! the configuration adds to them.

use crate::analysis::vocabulary::Vocabulary;

/// Function names that handle the cancellation notification.
fn is_cancel_hook_name(name: &str, has_receiver: bool) -> bool {
    if name.contains("task") {
        // `tasks/cancel` is a request that must be answered.
        return false;
    }
    match name {
        "cancel" => has_receiver,
        "on_cancelled" | "on_cancel" | "on_cancellation" | "on_cancelled_notification" => true,
        _ => name.starts_with("handle_cancel") || name.starts_with("on_cancel"),
    }
}

/// Whether a hook is known only by a name as common as `cancel`, which the crate gives its own
/// method (a per-request responder's, as in the seed, but as well a timeout's clean-up): it is a
/// cancel path only as its callers show. A name the configuration lists is the user's word.
pub fn is_own_cancel_hook_name(vocabulary: &Vocabulary, name: &str) -> bool {
    name == "cancel" && !vocabulary.cancel_hooks.iter().any(|h| h == name)
}

/// Words that mark a token as server-wide (shutdown) rather than per-request.
const SHUTDOWN_WORDS: &[&str] = &[
    "shutdown",
    "serve",
    "loop",
    "server",
    "service",
    "running",
    "config",
    "global",
    "root",
    "quit",
    "exit",
    "stop",
    "terminate",
    "term",
    "app",
    "signal",
    "halt",
    "kill",
    "main",
    "runtime",
];

/// Whether an identifier names a server-wide token (a shutdown token) by its words.
fn is_shutdown_word(ident: &str) -> bool {
    let lower = ident.to_ascii_lowercase();
    lower
        .split(|c: char| c == '_' || !c.is_alphanumeric())
        .any(|word| SHUTDOWN_WORDS.contains(&word))
        || SHUTDOWN_WORDS
            .iter()
            .any(|w| w.len() >= 6 && lower.contains(w))
}

/// Whether a path names the cancellation notification type or variant, for example
/// `ClientNotification::CancelledNotification` or `ClientNotification::Cancelled`.
pub fn is_cancel_notification_path(segments: &[String]) -> bool {
    let Some(last) = segments.last() else {
        return false;
    };
    if last == "CancelledNotification" || last == "CancelledNotificationParam" {
        return true;
    }
    if last == "Cancelled" || last == "Cancel" || last == "NotificationCancelled" {
        return segments.len() >= 2 && segments[segments.len() - 2].contains("Notification");
    }
    false
}

/// Whether a constant's name suggests that it holds the cancellation notification's method
/// (used when the constant's value is not visible to the analysis).
pub fn is_cancel_const_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.contains("CANCELLED") && !upper.contains("TASK")
}

/// Whether a function of this name handles the cancellation notification (by its name, or as
/// the configuration names its hooks).
pub fn is_cancel_hook(vocabulary: &Vocabulary, name: &str, has_receiver: bool) -> bool {
    is_cancel_hook_name(name, has_receiver) || vocabulary.cancel_hooks.iter().any(|h| h == name)
}

/// Whether a path names a cancellation notification type or variant (or one the configuration
/// names).
pub fn is_cancel_notification_type(vocabulary: &Vocabulary, segments: &[String]) -> bool {
    is_cancel_notification_path(segments)
        || segments.last().is_some_and(|last| {
            vocabulary
                .cancel_notifications
                .iter()
                .any(|n| !n.contains('/') && n == last)
        })
}

/// Whether a token, named by the identifiers of its expression, is a per-request token.
pub fn is_request_token<S: AsRef<str>>(vocabulary: &Vocabulary, idents: &[S]) -> bool {
    if idents
        .iter()
        .any(|i| vocabulary.request_tokens.iter().any(|r| r == i.as_ref()))
    {
        return true;
    }
    !idents.iter().any(|i| {
        is_shutdown_word(i.as_ref())
            || vocabulary.shutdown_tokens.iter().any(|w| {
                i.as_ref()
                    .to_ascii_lowercase()
                    .contains(&w.to_ascii_lowercase())
            })
    })
}
