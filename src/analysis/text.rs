//! What the analysis reads from a file's text before (or instead of) its syntax tree: where the
//! code starts, whether the text speaks MCP, whether it serves over stdio.

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
pub(crate) const MCP_WORDS: &[&str] = &[
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

/// Whether a text may speak MCP: it holds one of [`MCP_WORDS`] or a `tools/` method anywhere,
/// comments included (the quick test before [`speaks_mcp`]).
pub fn may_speak_mcp(text: &str) -> bool {
    text.contains("tools/") || MCP_WORDS.iter().any(|w| text.contains(w))
}

/// Whether a text speaks MCP or JSON-RPC: its code or its string literals (a `"jsonrpc"` key)
/// hold one of [`MCP_WORDS`]; its comments do not count.
pub fn mentions_mcp(text: &str) -> bool {
    if !MCP_WORDS.iter().any(|w| text.contains(w)) {
        return false;
    }
    let code = strip_comments(text);
    MCP_WORDS.iter().any(|w| code.contains(w))
}

/// Whether a text names a `tools/` method (`"tools/list"`) in its code or string literals (its
/// comments do not count): a hand-written dispatcher may speak MCP with no other word of it.
pub fn names_tools_method(text: &str) -> bool {
    text.contains("tools/") && strip_comments(text).contains("tools/")
}

/// Whether a text speaks MCP in its code or string literals, never only in its comments: it holds
/// one of [`MCP_WORDS`] ([`mentions_mcp`]) or names a `tools/` method ([`names_tools_method`]).
/// What makes a file worth a look for the rules that read code that speaks MCP (see
/// [`crate::prefilter`]) and for the dispatch facts.
pub fn speaks_mcp(text: &str) -> bool {
    mentions_mcp(text) || names_tools_method(text)
}

/// Whether a text serves MCP over stdio: it reads `stdin()`, calls a `stdio()` transport, or names
/// `StdioTransport`, in its code (comments, doc comments included, and string literals, such as
/// a code generator's template or a help text, do not count).
///
/// A file that launches an MCP server as a child process and talks to it over the child's pipes
/// (rmcp's `TokioChildProcess`, rust-mcp-sdk's `StdioTransport::create_with_server_launch`,
/// `Command` with `.stdin(Stdio::piped())`) may be a client that owns its own stdout: there the
/// name `StdioTransport` alone does not count, and a `stdin()` read is judged by the function it
/// is in (one that launches the child is a client; a server's loop beside a tool that runs a
/// script with piped stdio still serves: batch 93's mcp-cli).
/// Whether code calls a function or method named for serving over stdio (`serve_stdio(server)`,
/// `.run_stdio()`, `start_stdio_server(..)`): an identifier that holds `stdio` and one of
/// `serve`, `run`, `start`, `listen`, followed by its arguments.
fn calls_stdio_server(code: &str) -> bool {
    let is_ident = |c: char| c == '_' || c.is_ascii_alphanumeric();
    code.match_indices("stdio").any(|(at, _)| {
        // After the last character before `at` that is no identifier's (of any width).
        let start = code[..at]
            .char_indices()
            .rev()
            .find(|&(_, c)| !is_ident(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let end = code[at..]
            .find(|c: char| !is_ident(c))
            .map_or(code.len(), |i| at + i);
        let name = code[start..end].to_ascii_lowercase();
        let called = code[end..].trim_start().starts_with('(');
        called
            && ["serve", "run", "start", "listen"]
                .iter()
                .any(|verb| name.contains(verb))
    })
}

pub fn serves_stdio(text: &str) -> bool {
    // Most files name none of these: no need to copy them without their comments.
    if ![
        "stdio()",
        "stdin()",
        "StdioTransport",
        "StdioServerTransport",
        "stdio",
    ]
    .iter()
    .any(|needle| text.contains(needle))
    {
        return false;
    }
    let code = code_only(text);
    if code.contains("stdio()") || calls_stdio_server(&code) {
        return true;
    }
    if prompts_on_terminal(&code) {
        return code.contains("StdioTransport::new(")
            || code.contains("StdioServerTransport::new(");
    }
    // A file that launches a child with piped stdio: its reads of stdin are judged where they
    // are (a function that launches the child is a client; a server beside it serves), but the
    // name `StdioTransport` alone is a client's transport to its child.
    if launches_stdio_child(&code) {
        return code.contains("stdin()")
            || code.contains("StdioTransport::new(")
            || code.contains("StdioServerTransport::new(");
    }
    code.contains("stdin()")
        || code.contains("StdioTransport")
        || code.contains("StdioServerTransport")
}

/// Whether code reads stdin only when it is a terminal: it refuses to go on when stdin is not
/// one (`if !std::io::stdin().is_terminal() { bail!(..) }`), the guard of a prompt for a person
/// (an installer's "proceed? [y/N]"). A server's stdin is a pipe from its client.
fn prompts_on_terminal(code: &str) -> bool {
    const TEST: &str = "stdin().is_terminal()";
    let negated = |at: usize| {
        let before = code[..at]
            .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':');
        before.trim_end().ends_with('!')
    };
    code.match_indices(TEST).any(|(at, _)| negated(at))
        // The same test through libc (`unsafe { libc::isatty(libc::STDIN_FILENO) } == 0`) or
        // the atty crate (`!atty::is(atty::Stream::Stdin)`).
        || code.match_indices("isatty(").any(|(at, _)| {
            let rest = &code[at + "isatty(".len()..];
            let Some(close) = rest.find(')') else {
                return false;
            };
            let fd = rest[..close].trim();
            let stdin = fd == "0" || fd.ends_with("STDIN_FILENO");
            let after = rest[close + 1..].trim_start().trim_start_matches('}').trim_start();
            stdin && after.starts_with("== 0")
        })
        || code.match_indices("atty::is(").any(|(at, _)| {
            let arg = code[at..].split(')').next().unwrap_or("");
            arg.contains("Stdin") && negated(at)
        })
}

/// Whether code launches a child process with piped stdio, the client side of the stdio
/// transport.
fn launches_stdio_child(code: &str) -> bool {
    const LAUNCHES: &[&str] = &[
        "TokioChildProcess",
        "create_with_server_launch",
        "stdin(Stdio::piped())",
        "stdin(std::process::Stdio::piped())",
        "stdin(process::Stdio::piped())",
    ];
    LAUNCHES.iter().any(|needle| code.contains(needle))
}

/// The text's code alone: comments blanked out and each string, byte string or character
/// literal replaced by `""`.
fn code_only(text: &str) -> String {
    blanked(text, false)
}

/// The text with its comments (`//` to the end of the line, nested `/* */`) blanked out; string,
/// raw string, byte string and character literals are kept as they are.
pub fn strip_comments(text: &str) -> String {
    blanked(text, true)
}

/// The text without its comments, with its literals kept or replaced by `""`.
fn blanked(text: &str, keep_literals: bool) -> String {
    use crate::lexical::Region;
    let mut out = String::with_capacity(text.len());
    for (region, range) in crate::lexical::regions(text) {
        match region {
            Region::Code => out.push_str(&text[range]),
            Region::Literal if keep_literals => out.push_str(&text[range]),
            Region::Literal => out.push_str("\"\""),
            Region::BlockComment => out.push(' '),
            Region::LineComment => {}
        }
    }
    out
}

/// Code shown in a message, at most `max` characters (white space folded): when it is longer,
/// the contents of its delimited groups are elided whole, deepest first
/// (`Err(McpError::internal_error(..))`, then `Err(..)`), and only past that is the text cut, at
/// a token boundary, with `..` after it. Never cut inside a token or a string literal.
pub fn elide(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= max {
        return folded;
    }
    let deepest = group_depths(&folded).into_iter().max().unwrap_or(0);
    let mut shown = folded.clone();
    for depth in (1..=deepest).rev() {
        shown = collapse_from(&folded, depth);
        if shown.chars().count() <= max {
            return shown;
        }
    }
    // Still too long with every group elided: cut at the last token boundary that fits.
    let mut cut = 0;
    let mut in_string = false;
    let mut previous = '\0';
    for (count, (at, c)) in shown.char_indices().enumerate() {
        if count >= max.saturating_sub(2) {
            break;
        }
        if c == '"' && previous != '\\' {
            in_string = !in_string;
        }
        if !in_string && (matches!(c, ' ' | '.' | ',' | '(' | ':') || c == '"') {
            cut = at;
        }
        previous = c;
    }
    let kept = shown[..cut].trim_end_matches([' ', ':', ',']);
    format!("{kept}..")
}

/// The depth of each group opening in `text` (string literals skipped).
fn group_depths(text: &str) -> Vec<usize> {
    let mut depths = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut previous = '\0';
    for c in text.chars() {
        if in_string {
            if c == '"' && previous != '\\' {
                in_string = false;
            }
        } else {
            match c {
                '"' => in_string = true,
                '(' | '[' | '{' => {
                    depth += 1;
                    depths.push(depth);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        previous = if previous == '\\' && c == '\\' {
            '\0'
        } else {
            c
        };
    }
    depths
}

/// `text` with the contents of every non-empty group opened at `depth` or deeper replaced by
/// `..` (`{ .. }` for braces).
fn collapse_from(text: &str, depth: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut level = 0usize;
    let mut in_string = false;
    let mut previous = '\0';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let hidden = level >= depth;
        if in_string {
            if c == '"' && previous != '\\' {
                in_string = false;
            }
            if !hidden {
                out.push(c);
            }
        } else {
            match c {
                '"' => {
                    in_string = true;
                    if !hidden {
                        out.push(c);
                    }
                }
                '(' | '[' | '{' => {
                    level += 1;
                    if !hidden {
                        out.push(c);
                        let empty = matches!(chars.peek(), Some(')' | ']' | '}'));
                        if level >= depth && !empty {
                            out.push_str(if c == '{' { " .. " } else { ".." });
                        }
                    }
                }
                ')' | ']' | '}' => {
                    level = level.saturating_sub(1);
                    if level < depth {
                        out.push(c);
                    }
                }
                _ => {
                    if !hidden {
                        out.push(c);
                    }
                }
            }
        }
        previous = if previous == '\\' && c == '\\' {
            '\0'
        } else {
            c
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{elide, serves_stdio, strip_comments};

    #[test]
    fn a_call_named_for_serving_stdio_serves_whatever_stands_before_it() {
        assert!(serves_stdio("fn main() { serve_stdio(server); }"));
        assert!(serves_stdio("fn main() { app.run_stdio().await; }"));
        assert!(!serves_stdio("use x::serve_stdio;\nfn main() {}"));
        // A character of several bytes right before the name is no boundary to cut at.
        assert!(serves_stdio("fn f() { éstdio_serve(x); }"));
        assert!(!serves_stdio("fn f() { let é = \"stdio\"; }"));
    }

    #[test]
    fn comments_are_blanked_and_literals_kept() {
        let text = "let a = \"// not a comment\"; // stdin()\n/* outer /* inner */ stdio() */ let c = '\"'; let r = r#\"/* kept */\"#; fn f<'a>(x: &'a str) {}";
        let code = strip_comments(text);
        assert!(code.contains("\"// not a comment\""));
        assert!(!code.contains("stdin()"));
        assert!(!code.contains("stdio()"));
        assert!(code.contains("let c = '\"';"));
        assert!(code.contains("r#\"/* kept */\"#"));
        assert!(code.contains("fn f<'a>(x: &'a str) {}"));
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for text in [
            "/* open", "\"open", "r#\"open", "'", "'\\", "//", "b'", "é'", "'é",
        ] {
            let _ = strip_comments(text);
            let _ = serves_stdio(text);
        }
    }

    #[test]
    fn speaking_mcp_is_read_in_code_and_literals_not_comments() {
        use super::mentions_mcp;
        assert!(mentions_mcp("let m = json!({\"jsonrpc\": \"2.0\"});"));
        assert!(mentions_mcp("use rmcp::model::Tool;"));
        assert!(!mentions_mcp(
            "// an MCP server would answer here\nfn f() {}"
        ));
        assert!(!mentions_mcp("/// Speaks JSON-RPC.\nfn f() {}"));
    }

    #[test]
    fn a_tools_method_speaks_mcp_in_code_and_literals_not_comments() {
        use super::speaks_mcp;
        assert!(speaks_mcp(
            "match m { \"tools/list\" => list(), _ => nf() }"
        ));
        assert!(!speaks_mcp(
            "// MCP's tools/list\nmatch m { \"a\" => a(), _ => nf() }"
        ));
        assert!(!speaks_mcp("/* tools/call */ fn f() {}"));
    }

    #[test]
    fn servers_and_clients() {
        assert!(serves_stdio("handler.serve(stdio()).await"));
        assert!(serves_stdio("for line in io::stdin().lines() {}"));
        assert!(serves_stdio("let t = StdioTransport::new();"));
        // Only in documentation.
        assert!(!serves_stdio(
            "/// let t = StdioTransport::new();\nfn f() {}"
        ));
        // A client that launches its server as a child.
        assert!(!serves_stdio(
            "StdioTransport::create_with_server_launch(\"npx\", args, None, options)"
        ));
        // Beside a child's launch, a read of stdin is judged where it is (the serving pass
        // leaves out the reads of a function that launches the child).
        assert!(serves_stdio(
            "TokioChildProcess::new(cmd); let input = tokio::io::stdin();"
        ));
        // A prompt for a person, read only when stdin is a terminal.
        assert!(!serves_stdio(
            "if !std::io::stdin().is_terminal() { bail!(\"no tty\"); } std::io::stdin().read_line(&mut s);"
        ));
        assert!(!serves_stdio(
            "if unsafe { libc::isatty(libc::STDIN_FILENO) } == 0 { bail!(\"no tty\"); } std::io::stdin().read_line(&mut s);"
        ));
        assert!(!serves_stdio(
            "if !atty::is(atty::Stream::Stdin) { exit(1); } std::io::stdin().read_line(&mut s);"
        ));
        // A server that refuses to run on a terminal still serves.
        assert!(serves_stdio(
            "if unsafe { libc::isatty(0) } == 1 { exit(2); } for l in std::io::stdin().lines() {}"
        ));
        assert!(serves_stdio(
            "if std::io::stdin().is_terminal() { exit(2); } for l in std::io::stdin().lines() {}"
        ));
        // Only in a string: a code generator's template, a help text.
        assert!(!serves_stdio(
            "const T: &str = r#\"fn main() { serve(stdio()); StdioTransport::new(); }\"#;"
        ));
        assert!(!serves_stdio(
            "println!(\"pipe it to stdin() of the server\");"
        ));
        // A proxy that serves stdio and launches servers as children still serves.
        assert!(serves_stdio(
            "TokioChildProcess::new(cmd); proxy.serve(stdio())"
        ));
    }

    #[test]
    fn elides_groups_before_cutting_and_never_inside_a_token() {
        assert_eq!(elide("self.send(x)", 40), "self.send(x)");
        assert_eq!(
            elide("McpError::internal_error(\"cancelled\", None)", 40),
            "McpError::internal_error(..)"
        );
        assert_eq!(
            elide("Err(McpError::internal_error(\"cancelled\", None))", 40),
            "Err(McpError::internal_error(..))"
        );
        assert_eq!(
            elide(
                "json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {\"code\": 0}})",
                40
            ),
            "json!({ .. })"
        );
        // A string holding a parenthesis is not a group.
        assert_eq!(
            elide("f(\"a ) very long string that goes on and on\", 1)", 20),
            "f(..)"
        );
        // No group to elide: cut at a boundary.
        let cut = elide(
            "self.transport.connection.writer.response_channel.sender",
            30,
        );
        assert!(cut.ends_with(".."), "{cut}");
        assert!(cut.chars().count() <= 30, "{cut}");
        assert!(
            "self.transport.connection.writer".starts_with(cut.trim_end_matches('.')),
            "{cut}"
        );
    }
}
