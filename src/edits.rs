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
            span: statement_removal_span(text, span),
            replacement: String::new(),
        },
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
        assert_eq!(remove(text, "send(\n        x,\n    );"), "{\n}\n");
    }
}
