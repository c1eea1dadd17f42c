//! `--format concise`: one line per diagnostic.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

use super::{Emitter, Report};

pub struct Concise;

impl Emitter for Concise {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        for diagnostic in &result.diagnostics {
            let Some(file) = result.sources.get(diagnostic.file) else {
                continue;
            };
            let start = file.line_column(diagnostic.span.start);
            writeln!(
                out,
                "{}:{}:{}: {} [{}] {}",
                super::single_line_safe(&file.display_path),
                start.line,
                start.column,
                diagnostic.code,
                diagnostic.name,
                super::single_line_safe(&diagnostic.message)
            )?;
        }
        Ok(())
    }
}
