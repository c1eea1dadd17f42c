//! The analysis engine: per-file facts ([`facts`]), joined crate-wide ([`crate_graph`]).

pub mod crate_graph;
pub mod declared_modules;
pub mod dispatch;
pub mod dispatchers;
pub mod err_variants;
pub mod facts;
pub mod items;
pub mod macros;
pub mod method_variants;
pub mod nesting;
pub mod references;
pub mod sends;
pub mod spans;
pub mod syntax;
pub mod test_modules;
pub mod text;
pub mod vocabulary;
pub mod walk;

pub use text::{code_start, mentions_mcp, serves_stdio, strip_comments, ParseFailure};

use crate::source::ByteSpan;

/// Texts longer than this (256 KiB) are parsed and analysed one at a time: a parse costs a few
/// hundred times its text in memory, so two of the largest files the size limit lets through
/// must not be parsed at once.
pub const BIG_TEXT: usize = 256 * 1024;

/// The turn of a big text (see [`BIG_TEXT`]).
static BIG_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Parse a file's text and build its facts: the shared ones (the send analysis following the
/// paths of `marks`' condition), and those of each of `collectors` (the enabled rules that
/// collect their own).
pub fn analyse_text(
    text: &str,
    module: Vec<String>,
    vocabulary: &vocabulary::Vocabulary,
    marks: &dyn sends::marks::PathMarks,
    collectors: &[&dyn walk::Collects],
) -> Result<facts::FileFacts, ParseFailure> {
    let start = code_start(text);
    let code = &text[start..];
    // A poisoned turn (a panic caught while another big text was parsed) is still a turn.
    let _turn = (code.len() > BIG_TEXT).then(|| {
        BIG_TURN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    });
    if let Some(too_deep) = nesting::too_deep(code) {
        return Err(ParseFailure {
            span: ByteSpan::new(start, start),
            message: too_deep.message(),
        });
    }
    // Test modules are parsed empty: no rule judges test code (see `test_modules`).
    let without_tests = test_modules::blank_test_modules(code);
    let code: &str = &without_tests;
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
    let result = parsed.map(|mut file| {
        // `fn r#on_cancelled`, `self.r#send_error(..)`, `r#println!(..)`: the identifiers they
        // name, for every rule (rustc compiles them alike).
        if may_hold_raw_identifier(code) {
            syn::visit_mut::VisitMut::visit_file_mut(&mut Unraw, &mut file);
        }
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
            module: module.clone(),
            ..facts::FileFacts::default()
        };
        let mut hooks: Vec<Box<dyn walk::Hook + '_>> = vec![
            Box::new(items::Items::default()),
            Box::new(sends::Sends::new(vocabulary, marks, start, module)),
        ];
        facts.may_dispatch = dispatch::might_apply(facts.mentions_mcp, &said);
        if facts.may_dispatch {
            hooks.push(dispatch::hook(start, unread));
        }
        if facts.may_dispatch {
            hooks.push(Box::new(method_variants::MethodVariants::default()));
        }
        if err_variants::might_apply(code) {
            hooks.push(Box::new(err_variants::NotFoundVariants::default()));
        }
        hooks.extend(
            collectors
                .iter()
                .filter_map(|c| c.hook(text, start, vocabulary)),
        );
        walk::walk(&file, start, hooks, &mut facts);
        references::collect(code, start, &mut facts);
        facts
    });
    // Spans are no longer needed: free the thread's span table so memory stays flat.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

/// A text's facts in the module `module`, the send analysis following `marks`' paths: for tests.
#[cfg(test)]
pub(crate) fn facts_of(
    text: &str,
    module: &[&str],
    marks: &dyn sends::marks::PathMarks,
) -> facts::FileFacts {
    let vocabulary = vocabulary::Vocabulary::default();
    let module = module.iter().map(|m| m.to_string()).collect();
    analyse_text(text, module, &vocabulary, marks, &[]).expect("parses")
}

/// Whether code may hold a raw identifier (`r#send_error`): `r#` and then an identifier's first
/// character. A raw string's `r#"` is none: a file with raw strings alone needs no pass that
/// rebuilds every macro's tokens.
fn may_hold_raw_identifier(code: &str) -> bool {
    code.match_indices("r#").any(|(at, _)| {
        code[at + 2..]
            .chars()
            .next()
            .is_some_and(|c| c == '_' || c.is_alphabetic())
    })
}

/// Turns raw identifiers (`r#send_error`) into the identifiers they name (`send_error`),
/// keeping their spans.
struct Unraw;

impl syn::visit_mut::VisitMut for Unraw {
    fn visit_ident_mut(&mut self, ident: &mut proc_macro2::Ident) {
        if let Some(plain) = unraw(ident) {
            *ident = plain;
        }
    }

    /// A macro's tokens too (`select! { .. => self.r#send_error(..) }`), which the walk parses.
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        syn::visit_mut::visit_macro_mut(self, mac);
        mac.tokens = unraw_tokens(std::mem::take(&mut mac.tokens));
    }
}

/// The plain identifier a raw one names; None for a plain one, or a keyword (`r#type` stays raw:
/// as a plain identifier it is no valid token).
fn unraw(ident: &proc_macro2::Ident) -> Option<proc_macro2::Ident> {
    let name = ident.to_string();
    let plain = name.strip_prefix("r#")?;
    syn::parse_str::<syn::Ident>(plain)
        .is_ok()
        .then(|| proc_macro2::Ident::new(plain, ident.span()))
}

fn unraw_tokens(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) => TokenTree::Ident(unraw(&ident).unwrap_or(ident)),
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), unraw_tokens(group.stream()));
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {

    /// A macro of the file that invokes itself fourfold: the walk stops at its bounds.
    #[test]
    fn macros_that_invoke_themselves_stop_at_the_walks_bounds() {
        let text =
            "macro_rules! again { () => { again!(); again!(); again!(); again!(); send(); }; }\n\
                    fn serve() { again!(); }\n";
        let facts = facts_of(text, &[], &sends::marks::Unmarked);
        let calls = facts.functions[0].calls.len();
        assert!(
            calls > 0 && calls <= macros::MAX_EXPANSIONS,
            "the expansions ran, and stopped: {calls} calls"
        );
    }
    use super::*;

    /// Raw strings are not raw identifiers: only `r#` before an identifier's first character
    /// calls for the pass that turns raw identifiers into plain ones.
    #[test]
    fn raw_strings_alone_hold_no_raw_identifier() {
        assert!(!may_hold_raw_identifier(
            "const A: &str = r#\"x\"#; const B: &[u8] = br##\"y\"##;"
        ));
        assert!(may_hold_raw_identifier("fn r#on_cancelled() {}"));
        assert!(may_hold_raw_identifier("self.r#_send(1)"));
        assert!(may_hold_raw_identifier("r#\"x\"#; r#type"));
        assert!(!may_hold_raw_identifier("r#"));
    }

    #[test]
    fn words_in_comments_and_unread_constants_do_not_speak_mcp() {
        let vocabulary = vocabulary::Vocabulary::default();
        let analyse = |text: &str| {
            analyse_text(
                text,
                Vec::new(),
                &vocabulary,
                &crate::analysis::sends::marks::Unmarked,
                &[],
            )
            .expect("parses")
        };
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
        let failure = analyse_text(
            text,
            Vec::new(),
            &vocabulary,
            &crate::analysis::sends::marks::Unmarked,
            &[],
        )
        .expect_err("no parse");
        let span = failure.span;
        assert!(span.start <= span.end && span.end <= text.len(), "{span:?}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }

    /// The names a text's code names otherwise than by a recorded call (see
    /// [`references`]), and what its `pub use` items name.
    fn named(text: &str) -> (Vec<String>, Vec<String>) {
        let facts = facts_of(text, &[], &sends::marks::Unmarked);
        (facts.named, facts.pub_uses)
    }

    #[test]
    fn recorded_calls_and_definitions_are_no_references() {
        let text = "#![allow(unused)]\nmod server;\n\
                    fn serve() { helper(); crate::server::start(1); x.method(); }\n\
                    fn helper() {}\n";
        let (names, _) = named(text);
        assert!(!names.iter().any(|n| n == "helper"), "{names:?}");
        assert!(!names.iter().any(|n| n == "start"), "{names:?}");
        assert!(!names.iter().any(|n| n == "method"), "{names:?}");
        assert!(!names.iter().any(|n| n == "serve"), "{names:?}");
        // The qualifier of a recorded call is named (a module, not a function of its own).
        assert!(names.iter().any(|n| n == "server"), "{names:?}");
    }

    #[test]
    fn values_macros_uses_and_strings_are_references() {
        let text = "use crate::server::imported;\n\
                    fn main() { std::thread::spawn(run); custom! { => in_macro() } }\n\
                    #[derive(serde::Deserialize)]\n\
                    struct C { #[serde(default = \"default_port\")] port: u16 }\n\
                    static S: fn() = stored;\n\
                    pub(crate) use self::inner::{exported, more};\n";
        let (names, pub_uses) = named(text);
        for name in [
            "imported",
            "run",
            "in_macro",
            "default_port",
            "stored",
            "exported",
        ] {
            assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
        }
        assert_eq!(pub_uses, ["exported", "inner", "more", "self"]);
    }
}
