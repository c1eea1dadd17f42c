//! `--format concise`: one line per diagnostic, `path:line:col: error[MCP001] [name] message`,
//! the level in colour on a terminal.

use std::io;

use codespan_reporting::term::termcolor::{Color, ColorSpec, WriteColor};

use crate::diagnostic::Severity;

use super::emitter::Emitter;
use crate::report::Report;

pub struct Concise;

impl Emitter for Concise {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        for diagnostic in &result.diagnostics {
            let Some(file) = result.sources.get(diagnostic.file) else {
                continue;
            };
            let start = file.line_column(diagnostic.span.start);
            write!(
                out,
                "{}:{}:{}: ",
                super::emitter::single_line_safe(&file.display_path),
                start.line,
                start.column,
            )?;
            let colour = match diagnostic.severity {
                Severity::Error => Color::Red,
                Severity::Warning => Color::Yellow,
                Severity::Note => Color::Cyan,
            };
            out.set_color(ColorSpec::new().set_fg(Some(colour)).set_bold(true))?;
            write!(out, "{}[{}]", diagnostic.severity.as_str(), diagnostic.code)?;
            out.reset()?;
            writeln!(
                out,
                " [{}] {}",
                diagnostic.name,
                super::emitter::single_line_safe(&diagnostic.message)
            )?;
        }
        Ok(())
    }
}
