//! Turning a removal the analysis found into byte edits, and applying edits to a text. The rules
//! build their fixes with it; the fixer and the human report apply them.

use crate::analysis::facts::Removal;
use crate::diagnostic::Edit;
use crate::source::{ByteSpan, FileId};

/// The edit that removes a statement (with its whole line when it stands alone on it, keeping the
/// line ending and every other byte) or replaces a value with the unit value its context needs.
pub fn removal_edit(file: FileId, text: &str, removal: Removal) -> Edit {
    match removal {
        Removal::Value { span, replacement } => Edit {
            file,
            span,
            replacement: replacement.text().to_string(),
        },
        Removal::Statement(span) => Edit {
            file,
            span: emptied_block(text, statement_removal_span(text, span)),
            replacement: String::new(),
        },
    }
}

/// Removals of one file that, together with the blanks between them, empty a block are one
/// removal that closes the block up (see [`emptied_block`]): several sends removed from one block
/// leave `{}` as one removed alone does. Other edits stay as they are, blank lines kept.
pub fn join_removals(text: &str, edits: &[&Edit]) -> Vec<Edit> {
    // Runs of removals with only blanks between them.
    let mut runs: Vec<Vec<Edit>> = Vec::new();
    for edit in edits {
        let joins = runs.last().and_then(|run| run.last()).is_some_and(|last| {
            last.replacement.is_empty()
                && edit.replacement.is_empty()
                && text
                    .get(last.span.end..edit.span.start)
                    .is_some_and(|gap| gap.trim().is_empty())
        });
        match runs.last_mut() {
            Some(run) if joins => run.push((*edit).clone()),
            _ => runs.push(vec![(*edit).clone()]),
        }
    }
    let mut joined = Vec::with_capacity(edits.len());
    for run in runs {
        let (Some(first), Some(last)) = (run.first(), run.last()) else {
            continue;
        };
        let whole = ByteSpan::new(first.span.start, last.span.end.max(first.span.end));
        let closed = emptied_block(text, whole);
        if first.replacement.is_empty() && closed != whole {
            joined.push(Edit {
                file: first.file,
                span: closed,
                replacement: String::new(),
            });
        } else {
            joined.extend(run);
        }
    }
    joined
}

/// A removal that leaves its block empty takes the block's blank lines too, so that `{` and `}`
/// close up into `{}`, as rustfmt writes an empty block.
fn emptied_block(text: &str, span: ByteSpan) -> ByteSpan {
    let before = text[..span.start].trim_end();
    let after = text[span.end..].trim_start();
    if before.ends_with('{') && after.starts_with('}') {
        ByteSpan::new(before.len(), text.len() - after.len())
    } else {
        span
    }
}

fn statement_removal_span(text: &str, span: ByteSpan) -> ByteSpan {
    let start = span.start.min(text.len());
    let end = span.end.min(text.len()).max(start);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let before = &text[line_start..start];
    let after = text[end..line_end].trim_end_matches('\r');
    if before.trim().is_empty() && after.trim().is_empty() {
        // Alone on its line(s): take the lines, with the line ending that closes them.
        let through = if line_end < text.len() {
            line_end + 1
        } else {
            line_end
        };
        if through == text.len() && line_end == text.len() && line_start > 0 {
            // The last line of a file without a final newline: take the newline before it.
            let previous = if text[..line_start].ends_with("\r\n") {
                2
            } else {
                1
            };
            return ByteSpan::new(line_start - previous, line_end);
        }
        return ByteSpan::new(line_start, through);
    }
    // Shares its line: take the statement and the blanks after it, up to what follows.
    let trailing =
        text[end..line_end].len() - text[end..line_end].trim_start_matches([' ', '\t']).len();
    let trailing = if after.trim().is_empty() { 0 } else { trailing };
    ByteSpan::new(start, end + trailing)
}

/// The line ending of the line that holds `offset`: `\r\n` where that line ends so (or, on the
/// last line, where the line before it does), else `\n`. Inserted lines follow the file.
pub fn line_ending_at(text: &str, offset: usize) -> &'static str {
    let offset = offset.min(text.len());
    let crlf = match text[offset..].find('\n') {
        Some(i) => text[..offset + i].ends_with('\r'),
        None => text[..offset]
            .rfind('\n')
            .is_some_and(|i| text[..i].ends_with('\r')),
    };
    if crlf {
        "\r\n"
    } else {
        "\n"
    }
}

/// rustfmt's widths: a chain longer than this goes one call a line; no line goes past the other.
const CHAIN_WIDTH: usize = 60;
const MAX_WIDTH: usize = 100;

/// The edit that adds the method call `call` (`.with_writer(std::io::stderr)`) to a builder chain
/// right after `at`, laid out as rustfmt lays the chain out: inline while the chain fits on its
/// line, one call a line (indented one level past the statement) once it does not, and as a line
/// of its own in a chain that already has one call a line.
pub fn chain_insertion(file: FileId, text: &str, at: usize, call: &str) -> Edit {
    let at = at.min(text.len());
    let inline = Edit {
        file,
        span: ByteSpan::new(at, at),
        replacement: call.to_string(),
    };
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let indent: String = line
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let newline = line_ending_at(text, at);
    let rest = &text[at..line_start + line.len()];
    if rest.trim().is_empty() {
        // The chain goes on on the next line, one call a line: add a line like it.
        let next = text[line_end..].trim_start_matches(['\r', '\n']);
        let next_indent: String = next
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        if next[next_indent.len()..].starts_with('.') {
            return Edit {
                file,
                span: ByteSpan::new(at, at),
                replacement: format!("{newline}{next_indent}{call}"),
            };
        }
        return inline;
    }
    let segments = chain_segments(rest);
    let chain_end = at + segments.iter().map(|s| s.len()).sum::<usize>();
    let head = &text[line_start..at];
    let chain_start = chain_root_start(head);
    let width = (at - line_start - chain_start) + call.len() + (chain_end - at);
    let statement = head[..chain_start].trim_start();
    let starts_statement = statement.is_empty()
        || (statement.starts_with("let ") && statement.trim_end().ends_with('='));
    if !starts_statement || (width <= CHAIN_WIDTH && line.len() + call.len() <= MAX_WIDTH) {
        return inline;
    }
    let step = format!("{newline}{indent}    ");
    let mut replacement = format!("{step}{call}");
    for segment in &segments {
        replacement.push_str(&step);
        replacement.push_str(segment);
    }
    Edit {
        file,
        span: ByteSpan::new(at, chain_end),
        replacement,
    }
}

/// The method calls (`.name(..)`, `.await`, `?`) that follow the start of `rest`, each whole.
fn chain_segments(rest: &str) -> Vec<&str> {
    let bytes = rest.as_bytes();
    let mut segments = Vec::new();
    let mut at = 0;
    loop {
        let start = at;
        if bytes.get(at) == Some(&b'?') {
            segments.push(&rest[start..at + 1]);
            at += 1;
            continue;
        }
        if bytes.get(at) != Some(&b'.') {
            return segments;
        }
        at += 1;
        while bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b':')
        {
            at += 1;
        }
        if bytes.get(at) == Some(&b'(') {
            match balanced_end(rest, at) {
                Some(end) => at = end,
                None => return segments,
            }
        }
        if at == start + 1 {
            return segments;
        }
        segments.push(&rest[start..at]);
    }
}

/// Where the group opened at `open` closes (just past its closing parenthesis), when it closes
/// on this line; string literals inside it are skipped.
fn balanced_end(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[open..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where the chain that ends `head` starts in it: back over calls' parentheses, paths and
/// method names.
fn chain_root_start(head: &str) -> usize {
    let bytes = head.as_bytes();
    let mut at = bytes.len();
    while at > 0 {
        let b = bytes[at - 1];
        if b == b')' {
            let mut depth = 0usize;
            let mut i = at;
            while i > 0 {
                i -= 1;
                match bytes[i] {
                    b')' => depth += 1,
                    b'(' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            at = i;
        } else if b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.') {
            at -= 1;
        } else {
            break;
        }
    }
    at
}

/// Apply sorted, non-overlapping edits of one file to its text.
pub fn apply_edits(text: &str, edits: &[&Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for edit in edits {
        let start = edit.span.start.clamp(cursor, text.len());
        let end = edit.span.end.clamp(start, text.len());
        out.push_str(&text[cursor..start]);
        out.push_str(&edit.replacement);
        cursor = end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// Whether two edits touch overlapping (or, for insertions, the same) bytes.
pub fn overlaps(a: &Edit, b: &Edit) -> bool {
    a.file == b.file
        && (a.span.start < b.span.end && b.span.start < a.span.end
            || a.span == b.span
            || (a.span.start == a.span.end && a.span.start == b.span.start)
            || (b.span.start == b.span.end && b.span.start == a.span.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(text: &str, after: &str) -> String {
        let at = text.find(after).expect("in the text") + after.len();
        let edit = chain_insertion(0, text, at, ".with_writer(std::io::stderr)");
        apply_edits(text, &[&edit])
    }

    #[test]
    fn chain_insertions_are_laid_out_as_rustfmt_lays_them_out() {
        assert_eq!(
            insert("    let f = fmt().with_ansi(false);\n", "fmt()"),
            "    let f = fmt().with_writer(std::io::stderr).with_ansi(false);\n"
        );
        assert_eq!(
            insert("    let fmt = tracing_subscriber::fmt().with_env_filter(\"info\"); // x\r\n", "fmt()"),
            "    let fmt = tracing_subscriber::fmt()\r\n        .with_writer(std::io::stderr)\r\n        .with_env_filter(\"info\"); // x\r\n"
        );
        assert_eq!(
            insert("    tracing_subscriber::fmt()\n        .with_ansi(false)\n        .init();\n", "fmt()"),
            "    tracing_subscriber::fmt()\n        .with_writer(std::io::stderr)\n        .with_ansi(false)\n        .init();\n"
        );
        // Inside another expression: inline, as before.
        assert_eq!(
            insert("    run(tracing_subscriber::fmt().with_env_filter(\"info,hyper=warn,tower=warn\"));\n", "fmt()"),
            "    run(tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(\"info,hyper=warn,tower=warn\"));\n"
        );
    }

    #[test]
    fn line_endings_are_the_lines_own() {
        assert_eq!(line_ending_at("a\r\nb\r\n", 3), "\r\n");
        assert_eq!(line_ending_at("a\nb\n", 0), "\n");
        assert_eq!(line_ending_at("a\r\nb", 4), "\r\n");
    }

    fn remove(text: &str, needle: &str) -> String {
        let start = text.find(needle).expect("needle is in the text");
        let edit = removal_edit(
            0,
            text,
            Removal::Statement(ByteSpan::new(start, start + needle.len())),
        );
        apply_edits(text, &[&edit])
    }

    #[test]
    fn an_emptied_block_closes_up() {
        assert_eq!(
            remove("fn f() {\n    send(x);\n}\n", "send(x);"),
            "fn f() {}\n"
        );
        assert_eq!(
            remove("fn f() {\n    // why\n    send(x);\n}\n", "send(x);"),
            "fn f() {\n    // why\n}\n"
        );
    }

    #[test]
    fn a_statement_alone_on_its_line_goes_with_the_line() {
        assert_eq!(
            remove("a();\n    send(x);\nb();\n", "send(x);"),
            "a();\nb();\n"
        );
        assert_eq!(
            remove("a();\r\n    send(x);\r\nb();\r\n", "send(x);"),
            "a();\r\nb();\r\n"
        );
    }

    #[test]
    fn a_statement_sharing_its_line_goes_alone() {
        assert_eq!(remove("a(); send(x); b();\n", "send(x);"), "a(); b();\n");
        assert_eq!(remove("    send(x); // why\n", "send(x);"), "    // why\n");
    }

    #[test]
    fn a_last_line_without_newline() {
        assert_eq!(remove("a();\n    send(x);", "send(x);"), "a();");
        assert_eq!(remove("send(x);", "send(x);"), "");
    }

    #[test]
    fn a_multi_line_statement_goes_whole() {
        let text = "{\n    send(\n        x,\n    );\n}\n";
        assert_eq!(remove(text, "send(\n        x,\n    );"), "{}\n");
    }
}
