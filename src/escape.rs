//! Text from the linted tree (file names, string literals quoted in messages, configuration keys,
//! source lines) shown to a person: on a terminal, in a CI log that reads workflow commands at the
//! start of a line (`::error ..`, `::stop-commands::`), or in a patch. Each function here is the
//! one escaping step of one kind of place; none lets such text start a line, move the cursor,
//! recolour, or reorder what is shown (bidirectional controls).

use std::borrow::Cow;

/// Whether `c` reorders or separates text invisibly: the bidirectional embeddings, overrides and
/// isolates, the directional marks, and the Unicode line and paragraph separators.
fn invisible_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{061c}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Whether `c` must never reach a terminal or a log as it is.
fn unsafe_char(c: char) -> bool {
    c.is_control() || invisible_control(c)
}

/// Text that must stay on one line (a message, a label, a path, a key): every line break, tab,
/// control and invisible control written as its escape (`\n`, `\r`, `\t`, `\u{202e}`).
pub fn inline(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A message of several lines that this tool wrote, holding text from the tree: each line is
/// made [`inline`]-safe, the line breaks between them kept.
pub fn lines(text: &str) -> String {
    text.split('\n')
        .map(|line| inline(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Source text shown in snippets: every control (but tab and line breaks) and invisible control
/// replaced by a visible stand-in of the same byte length, so that byte offsets into the text stay
/// valid. A carriage return that does not end a line is replaced too.
pub fn source_text(text: &str) -> Cow<'_, str> {
    let risky = |(i, c): (usize, char)| {
        (unsafe_char(c) && !matches!(c, '\t' | '\n' | '\r'))
            || (c == '\r' && text.as_bytes().get(i + 1) != Some(&b'\n'))
    };
    if !text.char_indices().any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if !risky((i, c)) {
            out.push(c);
            continue;
        }
        // Stand-ins of one, two and three bytes.
        out.push(match c.len_utf8() {
            1 => '?',
            2 => '\u{bf}',
            _ => '\u{fffd}',
        });
    }
    Cow::Owned(out)
}

/// A path in a patch header, quoted as git quotes it when it holds anything but plain printable
/// ASCII: in double quotes, with `"`, `\` and control bytes escaped and other bytes in octal, so
/// that no name can end the header line or be read as another.
pub fn patch_path(path: &str) -> Cow<'_, str> {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
    if path.bytes().all(plain) {
        return Cow::Borrowed(path);
    }
    let mut out = String::from("\"");
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b if plain(b) => out.push(b as char),
            b => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_holds_no_line_break_control_or_bidi() {
        let hostile = "a\nb\r\n::error::x\t\u{1b}[2J\u{202e}cba\u{85}\u{2028}";
        let shown = inline(hostile);
        assert_eq!(
            shown,
            "a\\nb\\r\\n::error::x\\t\\u{1b}[2J\\u{202e}cba\\u{85}\\u{2028}"
        );
        assert!(!shown.chars().any(unsafe_char));
        assert!(matches!(inline("plain `x` é"), Cow::Borrowed(_)));
    }

    #[test]
    fn lines_keep_only_the_breaks_between_them() {
        assert_eq!(lines("one \u{202e}\ntwo\r"), "one \\u{202e}\ntwo\\r");
    }

    #[test]
    fn source_text_keeps_byte_offsets() {
        let text = "let s = \"\u{202e}\u{1b}\u{85}\u{61c}\";\r\nx\ry\n";
        let shown = source_text(text);
        assert_eq!(shown.len(), text.len());
        assert!(shown.ends_with("\r\nx?y\n"), "{shown:?}");
        assert!(!shown.chars().any(|c| invisible_control(c) || c == '\u{1b}'));
    }

    #[test]
    fn patch_paths_are_quoted_as_git_quotes_them() {
        assert_eq!(patch_path("src/main.rs"), "src/main.rs");
        assert_eq!(patch_path("a\nb/c \"d\".rs"), "\"a\\nb/c \\\"d\\\".rs\"");
        assert_eq!(patch_path("é.rs"), "\"\\303\\251.rs\"");
    }
}
