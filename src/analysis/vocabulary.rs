//! The names the analysis recognises: cancel hooks, cancellation notifications, request tokens,
//! response sinks and the message constructors that make a JSON-RPC response.
//!
//! Everything here is data: a later configuration layer extends these lists.

/// The method name of the cancellation notification.
pub const CANCELLED_METHOD: &str = "notifications/cancelled";

/// Calls that send a JSON-RPC response or error by their name alone.
pub const SINK_CALLS: &[&str] = &[
    "send_response",
    "send_error",
    "send_error_response",
    "respond",
    "respond_error",
    "reply",
    "reply_err",
    "send_result",
    "write_response",
];

/// Calls that hand a message to a transport or a channel; a sink when the message is a response.
pub const TRANSPORT_CALLS: &[&str] = &[
    "send",
    "send_message",
    "send_msg",
    "send_json",
    "send_raw",
    "send_async",
    "try_send",
    "blocking_send",
    "unbounded_send",
    "start_send",
    "feed",
    "write",
    "write_all",
    "write_line",
    "write_message",
    "send_notification",
    "notify",
];

/// Macros that write their arguments to a writer or to stdout.
pub const WRITE_MACROS: &[&str] = &["writeln", "write", "println", "print", "indicatif_println"];

/// The macros that print their format arguments to stdout: std's, and `tracing_indicatif`'s
/// `indicatif_println!` (it suspends the progress bars and prints with `println!`).
pub const STDOUT_PRINT_MACROS: &[&str] = &["println", "print", "indicatif_println"];

/// Macros that only log, format or assert: never a sink, never parsed for sends.
pub const QUIET_MACROS: &[&str] = &[
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "event",
    "log",
    "eprintln",
    "eprint",
    "dbg",
    "format",
    "format_args",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "concat",
    "stringify",
    "include_str",
    "include_bytes",
    "env",
    "option_env",
    "compile_error",
    "matches",
    "macro_rules",
];

/// Calls that send a further message (progress, log) for a request.
pub const FURTHER_MESSAGE_CALLS: &[&str] = &[
    "notify_progress",
    "notify_logging_message",
    "send_progress",
    "report_progress",
    "send_log_message",
    "send_logging_message",
];

/// Notification types whose sending is a further message for a request.
pub const FURTHER_MESSAGE_TYPES: &[&str] = &[
    "ProgressNotification",
    "ProgressNotificationParam",
    "LoggingMessageNotification",
    "LoggingMessageNotificationParam",
];

/// Methods of notifications that are further messages for a request.
pub const FURTHER_MESSAGE_METHODS: &[&str] = &["notifications/progress", "notifications/message"];

/// Types whose constructors make a JSON-RPC response or error message, with the constructor
/// names that do (an empty list: every constructor of the type does).
const RESPONSE_CONSTRUCTORS: &[(&str, &[&str])] = &[
    (
        "JsonRpcMessage",
        &[
            "response", "error", "Response", "Error", "success", "result",
        ],
    ),
    (
        "ServerJsonRpcMessage",
        &["response", "error", "Response", "Error"],
    ),
    ("JsonRpcResponse", &[]),
    ("JsonrpcResponse", &[]),
    ("JSONRPCResponse", &[]),
    ("JsonRpcError", &[]),
    ("JsonrpcError", &[]),
    ("JSONRPCError", &[]),
    ("JsonRpcErrorResponse", &[]),
    ("RpcResponse", &[]),
    ("MessageFromServer", &["Error", "Response", "Result"]),
    ("TransportMessage", &["Response", "Error"]),
    (
        "Response",
        &[
            "success",
            "error",
            "ok",
            "err",
            "result",
            "from_error",
            "with_error",
            "with_result",
        ],
    ),
];

/// Whether a path call `Type::ctor(..)` makes a response message.
pub fn is_response_constructor(type_name: &str, ctor: &str) -> bool {
    RESPONSE_CONSTRUCTORS
        .iter()
        .any(|(ty, ctors)| *ty == type_name && (ctors.is_empty() || ctors.contains(&ctor)))
}

/// Whether a struct literal of this type is a response message.
pub fn is_response_struct(type_name: &str) -> bool {
    RESPONSE_CONSTRUCTORS
        .iter()
        .any(|(ty, ctors)| *ty == type_name && ctors.is_empty())
}

/// Whether a free function's name says it builds a response (`error_response(id, ..)`).
pub fn is_response_builder_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("response") && lower != "into_response" && !lower.starts_with("parse")
}

/// Method names with which std and common crates shadow crate-defined methods: a call to one of
/// these on a value of unknown type is never resolved to a crate method.
pub const COMMON_METHODS: &[&str] = &[
    "clone",
    "get",
    "get_mut",
    "insert",
    "remove",
    "push",
    "pop",
    "len",
    "is_empty",
    "iter",
    "iter_mut",
    "into_iter",
    "map",
    "and_then",
    "unwrap",
    "expect",
    "ok",
    "err",
    "lock",
    "read",
    "write",
    "send",
    "recv",
    "await",
    "next",
    "collect",
    "to_string",
    "as_str",
    "as_ref",
    "into",
    "from",
    "new",
    "default",
    "cancel",
    "cancelled",
    "is_cancelled",
    "contains",
    "contains_key",
    "entry",
    "extend",
    "drain",
    "take",
    "replace",
    "spawn",
    "abort",
    "join",
    "flush",
    "close",
    "fmt",
    "eq",
    "cmp",
    "hash",
    "drop",
    "run",
    "call",
    "poll",
    "set",
    "store",
    "load",
    "swap",
    "with",
    "build",
    "finish",
    "start",
    "stop",
    // The standard library's own methods, called on its types (`path.display()`,
    // `text.trim()`): a crate method of the same name is not what they call.
    "display",
    "to_str",
    "to_string_lossy",
    "to_path_buf",
    "to_owned",
    "to_vec",
    "as_bytes",
    "as_path",
    "trim",
    "parse",
    "split",
    "lines",
    "chars",
    "bytes",
    "exists",
    "file_name",
    "extension",
    "parent",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "map_err",
    "ok_or",
    "ok_or_else",
    "is_some",
    "is_none",
    "filter",
    "find",
    "any",
    "all",
    "count",
    "first",
    "last",
    "keys",
    "values",
    "starts_with",
    "ends_with",
    // Iterator adapters and slice, `Vec` and map methods (`items.iter().enumerate()`,
    // `v.sort()`): on a value of unknown type, std's, not a crate's only method of the name
    // (redblue's `CloudCommand::enumerate`, reached from a JSON writer's loop).
    "enumerate",
    "zip",
    "rev",
    "skip",
    "step_by",
    "chain",
    "flat_map",
    "filter_map",
    "flatten",
    "fold",
    "for_each",
    "inspect",
    "peekable",
    "take_while",
    "skip_while",
    "map_while",
    "scan",
    "cloned",
    "copied",
    "sum",
    "product",
    "max",
    "min",
    "max_by",
    "min_by",
    "max_by_key",
    "min_by_key",
    "position",
    "nth",
    "partition",
    "unzip",
    "windows",
    "chunks",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "dedup",
    "retain",
    "truncate",
    "reverse",
    "push_str",
    "as_slice",
    "or_insert",
    "or_insert_with",
    "or_default",
    // A database's or an index writer's transaction (tantivy's `IndexWriter`, sqlx's
    // `Transaction`): codanna's `writer.rollback()` is tantivy's, not the crate's only
    // `rollback`, an example program's.
    "commit",
    "rollback",
];

/// The vocabulary in force for a run: the defaults above, extended by the configuration so that
/// a team with its own SDK can teach the analysis its names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Vocabulary {
    /// More call names that send a response by their name alone.
    pub sink_calls: Vec<String>,
    /// Paths (`my_sdk::reply`, `Session::answer`) whose calls send a response; matched against
    /// the end of a call's path.
    pub sink_paths: Vec<String>,
    /// More function names that handle the cancellation notification.
    pub cancel_hooks: Vec<String>,
    /// More cancellation notifications: method strings (with a `/`) or type and variant names.
    pub cancel_notifications: Vec<String>,
    /// Identifiers that always name a per-request token, whatever other words they hold.
    pub request_tokens: Vec<String>,
    /// More words that mark a token as server-wide (shutdown) rather than per-request.
    pub shutdown_tokens: Vec<String>,
    /// More function names whose return value becomes a request's response.
    pub request_handlers: Vec<String>,
}

impl Vocabulary {
    pub fn is_sink_call(&self, name: &str) -> bool {
        SINK_CALLS.contains(&name) || self.sink_calls.iter().any(|s| s == name)
    }

    /// Whether a call path ends with a configured sink path.
    pub fn is_sink_path(&self, segments: &[String]) -> bool {
        self.sink_paths.iter().any(|sink| {
            let wanted: Vec<&str> = sink.split("::").filter(|s| !s.is_empty()).collect();
            wanted.len() <= segments.len()
                && segments[segments.len() - wanted.len()..]
                    .iter()
                    .zip(&wanted)
                    .all(|(a, b)| a == b)
        })
    }

    /// Whether a string is the method of a cancellation notification.
    pub fn is_cancel_method(&self, method: &str) -> bool {
        method == CANCELLED_METHOD
            || self
                .cancel_notifications
                .iter()
                .any(|n| n.contains('/') && n == method)
    }
}
