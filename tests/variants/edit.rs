//! Text edits of a fixture file, placed by the spans of its tokens and syntax nodes.
//!
//! Every rewrite here edits the text in place and keeps each line where it was: what it inserts
//! goes on the line of the code it rewrites. So a finding of the rewritten file is expected on
//! the same line as in the original, and the comparison can be exact.

use proc_macro2::{LineColumn, Span, TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Byte offsets of a file's lines, to place spans (line, column in characters) in its text.
pub struct Text<'a> {
    pub text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Text<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Text { text, starts }
    }

    pub fn offset(&self, at: LineColumn) -> usize {
        let Some(&start) = at.line.checked_sub(1).and_then(|l| self.starts.get(l)) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(at.column)
                .map_or(line.len(), |(i, _)| i)
    }

    /// The byte range of a span.
    pub fn range(&self, span: Span) -> (usize, usize) {
        (self.offset(span.start()), self.offset(span.end()))
    }

    /// The byte range of a syntax node.
    pub fn of(&self, node: &impl Spanned) -> (usize, usize) {
        self.range(node.span())
    }

    pub fn slice(&self, (start, end): (usize, usize)) -> &'a str {
        self.text.get(start..end).unwrap_or("")
    }

    /// The line (from 1) of an offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// Replacements of byte ranges. Edits that overlap one already made are dropped (the rewrite
/// that made them says so by counting what it applied).
#[derive(Default)]
pub struct Edits {
    edits: Vec<(usize, usize, String)>,
}

impl Edits {
    pub fn replace(&mut self, (start, end): (usize, usize), with: impl Into<String>) {
        self.edits.push((start, end, with.into()));
    }

    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.edits.push((at, at, text.into()));
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The text with the edits made, or `None` when two of them overlap or one would put a line
    /// break where there was none (every line must stay where it was).
    pub fn apply(mut self, text: &str) -> Option<String> {
        self.edits.sort_by_key(|(s, e, _)| (*s, *e));
        let mut out = String::with_capacity(text.len() + 256);
        let mut at = 0;
        for (start, end, with) in &self.edits {
            if *start < at || *end > text.len() || start > end {
                return None;
            }
            let replaced = &text[*start..*end];
            if replaced.matches('\n').count() != with.matches('\n').count() {
                return None;
            }
            out.push_str(&text[at..*start]);
            out.push_str(with);
            at = *end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }
}

/// Every token of a stream, groups' delimiters included, with the tokens before it at its own
/// level (`before.last()` is the previous one). Groups are entered after they are visited.
pub fn each_token(stream: TokenStream, visit: &mut dyn FnMut(&TokenTree, &[TokenTree])) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        visit(token, &tokens[..i]);
        if let TokenTree::Group(group) = token {
            each_token(group.stream(), visit);
        }
    }
}

/// Whether `token` is the punctuation `c`.
pub fn is_punct(token: Option<&TokenTree>, c: char) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Every `match` of a file, outer ones before the ones inside them.
pub fn matches(file: &syn::File) -> Vec<&syn::ExprMatch> {
    struct Matches<'a>(Vec<&'a syn::ExprMatch>);
    impl<'a> Visit<'a> for Matches<'a> {
        fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
            self.0.push(m);
            syn::visit::visit_expr_match(self, m);
        }
    }
    let mut found = Matches(Vec::new());
    found.visit_file(file);
    found.0
}
