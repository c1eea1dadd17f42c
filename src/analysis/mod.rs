//! The analysis engine: per-file facts ([`facts`]), joined crate-wide ([`crate_graph`]).

pub mod crate_graph;
pub mod dispatch;
pub mod dispatchers;
pub mod facts;
pub mod items;
pub mod nesting;
pub mod sends;
pub mod server_model;
pub mod serving;
pub mod spans;
pub mod stdio;
pub mod syntax;
pub mod text;
pub mod vocabulary;
pub mod walk;

pub use text::{code_start, mentions_mcp, serves_stdio, strip_comments, ParseFailure};

use crate::source::ByteSpan;

/// Parse a file's text and build its facts: the shared ones, and those of each of `collectors`
/// (the enabled rules that collect their own).
pub fn analyse_text(
    text: &str,
    module: Vec<String>,
    vocabulary: &vocabulary::Vocabulary,
    collectors: &[&dyn walk::Collects],
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
    // Token spans are turned into byte offsets by the file's own lines while it is analysed.
    let _locating = spans::Locating::new(code);
    let parsed = syn::parse_file(code).map_err(|error| {
        let range = error.span().byte_range();
        // A lexing error's span is not always a byte offset in the text (it may count
        // characters): keep it in the text and on character boundaries.
        let boundary = |at: usize| {
            let mut at = (at + start).min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        ParseFailure {
            span: ByteSpan::new(boundary(range.start), boundary(range.end)),
            message: format!("this file does not parse: {error}"),
        }
    });
    let result = parsed.map(|file| {
        // What the file says in code: not in comments, nor in private constants nothing reads.
        let unread = if text::may_speak_mcp(text) {
            items::unread_constants(&file, text, start)
        } else {
            Vec::new()
        };
        let said = items::without_unread(text, &unread);
        let mut facts = facts::FileFacts {
            mentions_mcp: mentions_mcp(&said),
            serves_stdio: serves_stdio(text),
            ..facts::FileFacts::default()
        };
        let mut hooks: Vec<Box<dyn walk::Hook + '_>> = vec![
            Box::new(items::Items::default()),
            Box::new(sends::Sends::new(vocabulary, start, module)),
        ];
        if dispatch::might_apply(facts.mentions_mcp, &said) {
            hooks.push(dispatch::hook(start, unread));
        }
        hooks.extend(
            collectors
                .iter()
                .filter_map(|c| c.hook(text, start, vocabulary)),
        );
        walk::walk(&file, start, hooks, &mut facts);
        facts
    });
    // Spans are no longer needed: free the thread's span table so memory stays flat.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_in_comments_and_unread_constants_do_not_speak_mcp() {
        let vocabulary = vocabulary::Vocabulary::default();
        let analyse =
            |text: &str| analyse_text(text, Vec::new(), &vocabulary, &[]).expect("parses");
        let arms =
            "fn f(m: &str) -> i64 { match m { \"initialize\" => 1, \"ping\" => 2, _ => -32601 } }";
        for words in [
            "// an MCP server's tools/list\n",
            "/// rmcp::ServerHandler\n#[allow(dead_code)]\nconst SAMPLE: &str = r#\"{\"jsonrpc\":\"2.0\"}\"#;\n",
        ] {
            let facts = analyse(&format!("{words}{arms}"));
            assert!(!facts.mentions_mcp, "{words}");
            assert!(facts.dispatch.dispatchers.is_empty(), "{words}");
        }
        // Read, the constant speaks.
        let facts = analyse(&format!(
            "const V: &str = \"jsonrpc\";\nfn g() -> &'static str {{ V }}\n{arms}"
        ));
        assert!(facts.mentions_mcp);
        assert_eq!(facts.dispatch.dispatchers.len(), 1);
    }

    #[test]
    fn a_lexing_error_is_reported_inside_the_text_on_character_boundaries() {
        let text = "\u{feff}\u{feff}{\u{feff}";
        let vocabulary = vocabulary::Vocabulary::default();
        let failure = analyse_text(text, Vec::new(), &vocabulary, &[]).expect_err("no parse");
        let span = failure.span;
        assert!(span.start <= span.end && span.end <= text.len(), "{span:?}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }
}
