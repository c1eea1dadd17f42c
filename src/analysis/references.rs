//! What a file's code names besides the calls its facts record: the identifiers a function may
//! be named by when it is handed on as a value (`post(handler)`, `spawn(run)`), named in a
//! macro's input or a `use`, or given as a path in a string (`#[serde(default = "port")]`); and
//! what its `pub use` items re-export. Read from the tokens, after the walk: a call whose callee
//! the facts record (at the span they record it) is the crate graph's, anything else counts as
//! a reference (see [`FileFacts::named`]).

use std::collections::{BTreeSet, HashSet};

use super::facts::{Callee, FileFacts};
use crate::lexical::{tokens, Token};

/// Rust's keywords (strict and reserved, the ones code writes): never a function's name.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while",
];

/// Whether a word may be a function's name as code writes it (a snake-case identifier).
fn may_name_function(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && word.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&word)
}

/// Fill `facts.named` and `facts.pub_uses` from `code` (the parsed code, which starts at `base`
/// in the file: the facts' spans are the file's offsets).
pub fn collect(code: &str, base: usize, facts: &mut FileFacts) {
    let recorded: HashSet<(usize, &str)> = facts
        .functions
        .iter()
        .flat_map(|f| &f.calls)
        .filter_map(|call| match &call.callee {
            Callee::Path(segments) => segments.last().map(|n| (call.span.start, n.as_str())),
            Callee::Method { .. } => None,
        })
        .collect();
    let scanned = tokens(code);
    let (list, starts) = (&scanned.list, &scanned.starts);
    let word = |i: usize| list.get(i).and_then(|t| t.word(code));
    let punct = |i: usize, b: u8| list.get(i) == Some(&Token::Punct(b));
    // Where the statement at each token ends (the next `;`), found in one backward pass so that
    // a file of unterminated `pub use` items costs linear time.
    let mut statement_end = vec![list.len(); list.len()];
    for j in (0..list.len()).rev() {
        statement_end[j] = if punct(j, b';') {
            j
        } else {
            statement_end.get(j + 1).copied().unwrap_or(list.len())
        };
    }
    // Borrowed while scanning (each word is copied once, at the end).
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let mut pub_uses: BTreeSet<&str> = BTreeSet::new();
    for (i, token) in list.iter().enumerate() {
        match token {
            Token::Word(range) => {
                let w = &code[range.clone()];
                if w == "use" && after_visibility(code, list, i) {
                    let end = statement_end.get(i).copied().unwrap_or(list.len());
                    pub_uses.extend((i + 1..end).filter_map(word));
                }
                if !may_name_function(w) {
                    continue;
                }
                let after_dot = i > 0 && punct(i - 1, b'.') && !(i > 1 && punct(i - 2, b'.'));
                let defined = i > 0 && word(i - 1) == Some("fn");
                let macro_name = punct(i + 1, b'!') && !punct(i + 2, b'=');
                if after_dot || defined || macro_name {
                    continue;
                }
                let at = path_start(list, i);
                let offset = starts.get(at).copied().unwrap_or(usize::MAX);
                if !recorded.contains(&(offset.saturating_add(base), w)) {
                    named.insert(w);
                }
            }
            Token::Literal(range) => {
                if let Some(last) = path_like(&code[range.clone()]) {
                    named.insert(last);
                }
            }
            Token::Punct(_) => {}
        }
    }
    facts.named = named.into_iter().map(str::to_string).collect();
    facts.pub_uses = pub_uses.into_iter().map(str::to_string).collect();
}

/// Where the path whose last segment is the word at `i` starts: back over `a::` and a leading
/// `::` (a qualifier in angle brackets stops it, and the call's span then starts elsewhere).
fn path_start(list: &[Token], i: usize) -> usize {
    let colon = |j: usize| list.get(j) == Some(&Token::Punct(b':'));
    let mut j = i;
    while j >= 2 && colon(j - 1) && colon(j - 2) {
        if j >= 3 && matches!(list.get(j - 3), Some(Token::Word(_))) {
            j -= 3;
        } else {
            return j - 2;
        }
    }
    j
}

/// Whether the token at `i` follows a visibility: `pub`, or `pub(..)` (a few words inside).
fn after_visibility(code: &str, list: &[Token], i: usize) -> bool {
    let word = |j: usize| list.get(j).and_then(|t| t.word(code));
    if i == 0 {
        return false;
    }
    if word(i - 1) == Some("pub") {
        return true;
    }
    if list.get(i - 1) != Some(&Token::Punct(b')')) {
        return false;
    }
    // `pub(crate)`, `pub(super)`, `pub(in a::b::c)`: the `(` a few tokens back.
    (i.saturating_sub(12)..i - 1)
        .rev()
        .find(|&j| list.get(j) == Some(&Token::Punct(b'(')))
        .is_some_and(|open| open > 0 && word(open - 1) == Some("pub"))
}

/// The last segment of a plain string literal that reads as a path to a function (`"port"`,
/// `"crate::config::port"`), if it is one.
fn path_like(literal: &str) -> Option<&str> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    if inner.is_empty()
        || !inner
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
    {
        return None;
    }
    let last = inner.rsplit("::").next()?;
    may_name_function(last).then_some(last)
}
