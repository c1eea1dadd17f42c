//! The lexical regions of Rust source text: code, comments and literals. Several checks read the
//! text before (or without) parsing it, and each must know where comments and string literals
//! are, since those may hold anything: brackets, `//`, `mcp-lint:` markers, words of code.

use std::ops::Range;

/// What a stretch of source text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Code,
    /// `//` to the end of the line (the newline is not part of it).
    LineComment,
    /// `/* .. */`, nested.
    BlockComment,
    /// A string, raw string, byte string or character literal, quotes included.
    Literal,
}

/// The regions of a text, in order; together they cover it.
pub fn regions(text: &str) -> Regions<'_> {
    Regions { text, at: 0 }
}

/// An iterator over a text's regions.
pub struct Regions<'a> {
    text: &'a str,
    at: usize,
}

impl Iterator for Regions<'_> {
    type Item = (Region, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        if start >= bytes.len() {
            return None;
        }
        let mut i = start;
        while i < bytes.len() {
            if let Some((region, end)) = special_at(self.text, i) {
                if i > start {
                    // The code before it first; the special region comes next time.
                    self.at = i;
                    return Some((Region::Code, start..i));
                }
                self.at = end;
                return Some((region, start..end));
            }
            i += 1;
        }
        self.at = bytes.len();
        Some((Region::Code, start..bytes.len()))
    }
}

/// A comment or literal starting at `i`, with where it ends.
fn special_at(text: &str, i: usize) -> Option<(Region, usize)> {
    let bytes = text.as_bytes();
    let len = bytes.len();
    match bytes[i] {
        b'/' if bytes.get(i + 1) == Some(&b'/') => {
            let end = text[i..].find('\n').map_or(len, |n| i + n);
            Some((Region::LineComment, end))
        }
        b'/' if bytes.get(i + 1) == Some(&b'*') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < len {
                if bytes[j] == b'/' && bytes.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if bytes[j] == b'*' && bytes.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            Some((Region::BlockComment, j.min(len)))
        }
        b'r' if is_raw_string_start(bytes, i) => {
            let mut j = i + 1;
            let mut hashes = 0;
            while bytes.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            j += 1; // the opening quote
            while j < len {
                if bytes[j] == b'"'
                    && bytes[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|b| **b == b'#')
                        .count()
                        == hashes
                {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            Some((Region::Literal, j.min(len)))
        }
        b'"' => {
            let mut j = i + 1;
            while j < len && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            Some((Region::Literal, (j + 1).min(len)))
        }
        b'\'' => {
            // A character literal ('x', '\n', '"'), or a lifetime or label ('a), which has no
            // closing quote and is code.
            let end = if bytes.get(i + 1) == Some(&b'\\') {
                bytes[i + 2..]
                    .iter()
                    .take(12)
                    .position(|b| *b == b'\'')
                    .map(|p| i + 2 + p + 1)
            } else {
                let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
            };
            end.map(|end| (Region::Literal, end.min(len)))
        }
        _ => None,
    }
}

/// `r"`, `r#"`, `br"` at `i` (and not the end of an identifier such as `for"`).
fn is_raw_string_start(bytes: &[u8], i: usize) -> bool {
    let ident_before = i > 0 && {
        let b = bytes[i - 1];
        (b.is_ascii_alphanumeric() || b == b'_')
            && !(b == b'b' && (i < 2 || !bytes[i - 2].is_ascii_alphanumeric()))
    };
    if ident_before {
        return false;
    }
    let mut j = i + 1;
    while bytes.get(j) == Some(&b'#') {
        j += 1;
    }
    bytes.get(j) == Some(&b'"')
}

/// A token of code, for the passes that read a text's tokens without parsing it (module
/// declarations, test modules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// An identifier, keyword or number (its bytes in the text).
    Word(Range<usize>),
    Punct(u8),
    /// A string, character or raw string literal (its bytes in the text, quotes included).
    Literal(Range<usize>),
}

impl Token {
    /// The word this token is, in `code`, if it is one.
    pub fn word<'c>(&self, code: &'c str) -> Option<&'c str> {
        match self {
            Token::Word(r) => Some(&code[r.clone()]),
            _ => None,
        }
    }
}

/// A text's tokens (comments dropped), and where each starts.
pub struct Tokens {
    pub list: Vec<Token>,
    pub starts: Vec<usize>,
}

/// The tokens of `code`.
pub fn tokens(code: &str) -> Tokens {
    let bytes = code.as_bytes();
    let mut out = Tokens {
        list: Vec::new(),
        starts: Vec::new(),
    };
    let mut push = |token: Token, start: usize| {
        out.list.push(token);
        out.starts.push(start);
    };
    for (region, range) in regions(code) {
        match region {
            Region::LineComment | Region::BlockComment => {}
            Region::Literal => push(Token::Literal(range.clone()), range.start),
            Region::Code => {
                let mut i = range.start;
                while i < range.end {
                    let b = bytes[i];
                    if b.is_ascii_whitespace() {
                        i += 1;
                    } else if is_word_byte(b) {
                        let start = i;
                        while i < range.end && is_word_byte(bytes[i]) {
                            i += 1;
                        }
                        push(Token::Word(start..i), start);
                    } else {
                        push(Token::Punct(b), i);
                        i += 1;
                    }
                }
            }
        }
    }
    out
}

/// A byte of an identifier or a number (any byte of a non-ASCII character counts: such names
/// are not ASCII identifiers, and a declaration that uses one is left to the parse).
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Region, &str)> {
        regions(text).map(|(r, range)| (r, &text[range])).collect()
    }

    #[test]
    fn splits_code_comments_and_literals() {
        let text =
            "let a = \"// no\"; // yes\n/* a /* b */ c */ let c = '\"'; 'x: loop {} r#\"q\"#";
        assert_eq!(
            kinds(text),
            vec![
                (Region::Code, "let a = "),
                (Region::Literal, "\"// no\""),
                (Region::Code, "; "),
                (Region::LineComment, "// yes"),
                (Region::Code, "\n"),
                (Region::BlockComment, "/* a /* b */ c */"),
                (Region::Code, " let c = "),
                (Region::Literal, "'\"'"),
                (Region::Code, "; 'x: loop {} "),
                (Region::Literal, "r#\"q\"#"),
            ]
        );
    }

    #[test]
    fn unterminated_regions_end_at_the_end() {
        for text in ["/* open", "\"open", "r#\"open", "'\\", "x // c"] {
            let covered: usize = regions(text).map(|(_, r)| r.len()).sum();
            assert_eq!(covered, text.len(), "{text}");
        }
    }
}
