//! The analysis engine: per-file facts ([`facts`]), joined crate-wide ([`crate_graph`]).

pub mod crate_graph;
pub mod dispatch;
pub mod facts;
pub mod nesting;
pub mod progress;
pub mod spans;
pub mod syntax;
pub mod vocabulary;

use crate::source::ByteSpan;

/// A file that did not parse: the error's span and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    pub span: ByteSpan,
    pub message: String,
}

/// Where Rust code starts in a file's text: after a byte order mark, and after a shebang line
/// (`#!` not followed by `[`), which `syn` would otherwise reject or shift.
pub fn code_start(text: &str) -> usize {
    let mut start = 0;
    if text.starts_with('\u{feff}') {
        start = '\u{feff}'.len_utf8();
    }
    let rest = &text[start..];
    if let Some(after) = rest.strip_prefix("#!") {
        if !after.trim_start().starts_with('[') {
            start += rest.find('\n').unwrap_or(rest.len());
        }
    }
    start
}

/// Words of code that speaks MCP or JSON-RPC.
const MCP_WORDS: &[&str] = &[
    "jsonrpc",
    "JsonRpc",
    "Jsonrpc",
    "JSONRPC",
    "rmcp",
    "mcp",
    "Mcp",
    "MCP",
    "notifications/",
    "CallToolResult",
    "RequestId",
    "ErrorData",
];

/// Whether a text speaks MCP or JSON-RPC.
pub fn mentions_mcp(text: &str) -> bool {
    MCP_WORDS.iter().any(|w| text.contains(w))
}

/// Whether a text serves MCP over stdio: it reads stdin, calls a `stdio()` transport, or names
/// `StdioTransport`.
pub fn serves_stdio(text: &str) -> bool {
    text.contains("stdin()") || text.contains("stdio()") || text.contains("StdioTransport")
}

/// Parse a file's text and build its facts.
pub fn analyse_text(
    text: &str,
    module: Vec<String>,
    vocabulary: &vocabulary::Vocabulary,
) -> Result<facts::FileFacts, ParseFailure> {
    let start = code_start(text);
    let code = &text[start..];
    if let Some(depth) = nesting::too_deep(code) {
        return Err(ParseFailure {
            span: ByteSpan::new(start, start),
            message: format!(
                "this file nests {depth} levels deep, beyond the {} levels the analysis reads, so it was not analysed",
                nesting::MAX_NESTING
            ),
        });
    }
    let parsed = syn::parse_file(code).map_err(|error| {
        let range = error.span().byte_range();
        ParseFailure {
            span: ByteSpan::new(range.start + start, range.end + start),
            message: format!("this file does not parse: {error}"),
        }
    });
    let result = parsed.map(|file| {
        let mut facts = facts::collect(&file, start, module, vocabulary);
        facts.mentions_mcp = mentions_mcp(text);
        facts.serves_stdio = serves_stdio(text);
        if facts.mentions_mcp || text.contains("tools/") {
            facts.dispatch = dispatch::collect(&file, start);
        }
        if progress::might_apply(text) {
            facts.progress = progress::collect(&file, start, vocabulary);
        }
        facts
    });
    // Spans are no longer needed: free the thread's span table so memory stays flat.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}
