//! MCP001 `cancel-sends-response`: a response, error or further message sent for a request after
//! the client cancelled it, directly or through calls of the same crate.

//!
//! This file holds what the shapes share (the rule's description, its words, the specification's
//! sentences); [`rule`] runs the shapes: [`shape_a`] (a send on a cancel path, directly or
//! through calls), [`shape_b`] (a request handler's return value that the SDK sends),
//! [`written_return`] (a response returned on a cancel path to a caller that writes it), and
//! [`shape_c`] (a dispatcher that forgets to check).

use crate::diagnostic::{FixAvailability, RuleMeta, RuleStatus, Severity};

pub mod follow_up;
pub mod handlers;
pub mod marks;
pub mod orphans;
pub mod paths;
pub mod rule;
pub mod shape_a;
pub mod shape_b;
pub mod shape_c;
pub mod words;
pub mod written_return;

/// Words without which a file holds no cancel path (besides the configured hook and notification
/// names).
pub(super) const CANCEL_WORDS: &[&str] = &[
    "cancelled",
    "Cancelled",
    "CANCELLED",
    "fn cancel",
    "on_cancel",
    "handle_cancel",
    "ancellation",
];

pub static META: RuleMeta = RuleMeta {
    code: "MCP001",
    name: "cancel-sends-response",
    default_severity: Severity::Error,
    summary: "a response or further message is sent for a request the client cancelled",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../../rules/MCP001-cancel-sends-response.md"),
    status: RuleStatus::Stable,
};

pub(crate) const SPEC_MUST_NOT: &str =
    "MCP 2026-07-28 (basic/transports/stdio, basic/transports/streamable-http): \
the server MUST NOT send any further messages for a cancelled request";
pub(crate) const SPEC_SHOULD_NOT: &str = "MCP 2025-11-25 (basic/utilities/cancellation): receivers of a cancellation \
SHOULD stop processing the request and not send a response for it; strict clients drop the whole transport when a \
response arrives for an id they cancelled";

/// Source text for a message: white space folded, at most 40 characters (groups elided whole,
/// see [`crate::analysis::text::elide`]), in backticks.
pub(crate) fn short(text: &str) -> String {
    format!("`{}`", crate::analysis::text::elide(text, 40))
}
