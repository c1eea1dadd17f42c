//! `--format github`: GitHub Actions workflow commands, one annotation per diagnostic.
//!
//! Text from the linted tree (messages quote identifiers and paths) is escaped as the workflow
//! command format requires, so that it can never end the command or start a new one.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

use super::emitter::Emitter;
use crate::diagnostic::Severity;
use crate::report::Report;

pub struct Github;

/// Escape a command's message: `%`, `\r`, `\n`, after every other control and bidirectional
/// control is written as its escape (see [`crate::escape::inline`], which leaves `%` alone).
pub fn escape_data(text: &str) -> String {
    let text = crate::escape::inline(text);
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a command's property value: as data, plus `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl Emitter for Github {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        for d in &result.diagnostics {
            let Some(source) = result.sources.get(d.file) else {
                continue;
            };
            let start = source.line_column(d.span.start);
            let end = source.line_column(d.span.end);
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            writeln!(
                out,
                "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                escape_property(&source.display_path),
                start.line,
                start.column,
                end.line,
                end.column,
                escape_property(&format!("{} {}", d.code, d.name)),
                escape_data(&d.message)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("a%b\r\nc::d"), "a%25b\\r\\nc::d");
        assert_eq!(escape_property("a,b:c%\n"), "a%2Cb%3Ac%25\\n");
        assert_eq!(escape_data("x\u{202e}y"), "x\\u{202e}y");
    }
}
