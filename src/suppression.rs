//! Suppression comments: `// mcp-lint: allow(MCP001) -- reason` on the line before a finding or
//! at the end of its line, on the line before an item (covering the whole item), or
//! `// mcp-lint: allow-file(MCP001)` anywhere in a file.

use crate::source::{ByteSpan, SourceFile};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `allow(..)`: the comment's own line when code precedes it, else the next line (or the
    /// item that starts there).
    Line,
    /// `allow-file(..)`: the whole file.
    File,
}

/// One rule named in a suppression, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRule {
    pub name: String,
    pub span: ByteSpan,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    pub scope: Scope,
    pub rules: Vec<NamedRule>,
    pub reason: Option<String>,
    /// The comment, from `//` to the end of the line (without the line ending).
    pub comment: ByteSpan,
    /// 0-based line of the comment.
    pub line: usize,
    /// Whether the comment stands alone on its line.
    pub own_line: bool,
    /// The 0-based lines it covers (inclusive), once resolved against the file's items.
    pub lines: (usize, usize),
    /// The comment starts with the marker but is neither form (`mcp-lint: alow(MCP002)`, no
    /// closing parenthesis): it suppresses nothing, and says so (MCP901).
    pub malformed: bool,
}

/// What every suppression comment starts with (after `//`).
pub const MARKER: &str = "mcp-lint:";

/// Every suppression comment of a file. `items` are the spans of the file's items (attributes
/// included), for the item-level form.
pub fn parse(source: &SourceFile, items: &[ByteSpan]) -> Vec<Suppression> {
    let text = source.text();
    if !text.contains(MARKER) {
        return Vec::new();
    }
    let starts = source.line_starts();
    let comments = line_comment_starts(text);
    let mut found = Vec::new();
    for (line, &start) in starts.iter().enumerate() {
        let end = starts.get(line + 1).copied().unwrap_or(text.len());
        let line_text = text[start..end].trim_end_matches(['\n', '\r']);
        // The line's comment: `//` outside strings and block comments.
        let Some(slashes) = comments
            .iter()
            .find(|&&at| at >= start && at < start + line_text.len())
            .map(|&at| at - start)
        else {
            continue;
        };
        let after = &line_text[slashes + 2..];
        let trimmed = after.trim_start_matches(['/', '!', ' ', '\t']);
        let Some(rest) = trimmed.strip_prefix(MARKER) else {
            continue;
        };
        let rest_offset = start + slashes + 2 + (after.len() - trimmed.len()) + MARKER.len();
        let body = rest.trim_start();
        let body_offset = rest_offset + (rest.len() - body.len());
        let own_line = line_text[..slashes].trim().is_empty();
        let comment = ByteSpan::new(start + slashes, start + line_text.len());
        let form = if let Some(r) = body.strip_prefix("allow-file(") {
            Some((Scope::File, r))
        } else {
            body.strip_prefix("allow(").map(|r| (Scope::Line, r))
        };
        let Some(((scope, open), close)) =
            form.and_then(|(scope, open)| open.find(')').map(|close| ((scope, open), close)))
        else {
            found.push(Suppression {
                scope: Scope::Line,
                rules: Vec::new(),
                reason: None,
                comment,
                line,
                own_line,
                lines: (line, line),
                malformed: true,
            });
            continue;
        };
        let list_offset = body_offset + (body.len() - open.len());
        let mut rules = Vec::new();
        let mut cursor = 0;
        for part in open[..close].split(',') {
            let name = part.trim();
            let lead = part.len() - part.trim_start().len();
            if !name.is_empty() {
                let s = list_offset + cursor + lead;
                rules.push(NamedRule {
                    name: name.to_string(),
                    span: ByteSpan::new(s, s + name.len()),
                });
            }
            cursor += part.len() + 1;
        }
        let tail = open[close + 1..].trim();
        let reason = tail
            .strip_prefix("--")
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty());
        let lines = match scope {
            Scope::File => (0, starts.len().saturating_sub(1)),
            Scope::Line if !own_line => (line, line),
            Scope::Line => {
                let next = line + 1;
                // An item starting on the next line is covered whole.
                let item_end = items
                    .iter()
                    .filter(|item| source.line_index(item.start) == next)
                    .map(|item| source.line_index(item.end.saturating_sub(1).max(item.start)))
                    .max();
                (next, item_end.unwrap_or(next).max(next))
            }
        };
        found.push(Suppression {
            scope,
            rules,
            reason,
            comment,
            line,
            own_line,
            lines,
            malformed: false,
        });
    }
    found
}

/// Where the file's line comments (`//`) start: outside string and character literals and
/// block comments, which may hold `//` too.
fn line_comment_starts(text: &str) -> Vec<usize> {
    crate::lexical::regions(text)
        .filter(|(region, _)| *region == crate::lexical::Region::LineComment)
        .map(|(_, range)| range.start)
        .collect()
}

/// The span that removing a suppression comment takes: its whole line when it stands alone,
/// else the comment and the blanks before it.
pub fn removal_span(source: &SourceFile, suppression: &Suppression) -> ByteSpan {
    let text = source.text();
    let starts = source.line_starts();
    let line_start = starts[suppression.line];
    let line_end = starts
        .get(suppression.line + 1)
        .copied()
        .unwrap_or(text.len());
    if suppression.own_line {
        return ByteSpan::new(line_start, line_end);
    }
    let before = &text[line_start..suppression.comment.start];
    let code_end = line_start + before.trim_end().len();
    ByteSpan::new(code_end, suppression.comment.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn source(text: &str) -> SourceFile {
        SourceFile::new(PathBuf::from("x.rs"), "x.rs".into(), text.into())
    }

    #[test]
    fn parses_the_forms() {
        let s = source("fn f() {\n    // mcp-lint: allow(MCP001, cancel-sends-response) -- the client ignores it\n    send();\n    send(); // mcp-lint: allow(MCP001)\n}\n// mcp-lint: allow-file(MCP001)\n");
        let found = parse(&s, &[]);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].scope, Scope::Line);
        assert_eq!(found[0].lines, (2, 2));
        assert_eq!(found[0].rules.len(), 2);
        assert_eq!(
            &s.text()[found[0].rules[1].span.start..found[0].rules[1].span.end],
            "cancel-sends-response"
        );
        assert_eq!(found[0].reason.as_deref(), Some("the client ignores it"));
        assert_eq!(found[1].lines, (3, 3));
        assert!(!found[1].own_line);
        assert_eq!(found[2].scope, Scope::File);
    }

    #[test]
    fn a_marker_without_a_form_is_malformed() {
        let s = source("// mcp-lint: alow(MCP002)\n// mcp-lint: allow(MCP001\nsend(); // mcp-lint: allow(MCP001)\n// see mcp-lint: allow(MCP001)\n");
        let found = parse(&s, &[]);
        let malformed: Vec<bool> = found.iter().map(|x| x.malformed).collect();
        assert_eq!(malformed, [true, true, false]);
        assert!(found[0].rules.is_empty() && found[1].rules.is_empty());
    }

    #[test]
    fn covers_the_next_item_whole() {
        let text = "// mcp-lint: allow(MCP001)\n#[inline]\nfn f() {\n    send();\n}\n";
        let s = source(text);
        let item = ByteSpan::new(text.find("#[inline]").unwrap_or(0), text.len() - 1);
        let found = parse(&s, &[item]);
        assert_eq!(found[0].lines, (1, 4));
    }

    #[test]
    fn comments_in_strings_and_block_comments_are_not_suppressions() {
        let s = source("/* // mcp-lint: allow(MCP001) */\nconst A: &str = \"// mcp-lint: allow(MCP001)\";\nconst B: &str = r#\"// mcp-lint: allow(MCP001)\"#;\nconst C: char = '\"'; // mcp-lint: allow(MCP002)\n");
        let found = parse(&s, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rules[0].name, "MCP002");
    }

    #[test]
    fn removal_spans() {
        let text = "a();\n    // mcp-lint: allow(MCP001)\nb(); // mcp-lint: allow(MCP001)\n";
        let s = source(text);
        let found = parse(&s, &[]);
        let own = removal_span(&s, &found[0]);
        assert_eq!(
            &text[own.start..own.end],
            "    // mcp-lint: allow(MCP001)\n"
        );
        let trailing = removal_span(&s, &found[1]);
        assert_eq!(
            &text[trailing.start..trailing.end],
            " // mcp-lint: allow(MCP001)"
        );
    }
}
