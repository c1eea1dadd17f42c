//! `--format json-lines`: one diagnostic object of the json contract per line.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

use super::emitter::Emitter;
use super::json;
use crate::report::Report;

pub struct JsonLines;

impl Emitter for JsonLines {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        for d in &result.diagnostics {
            serde_json::to_writer(&mut *out, &json::diagnostic(&result.sources, d))
                .map_err(io::Error::other)?;
            writeln!(out)?;
        }
        Ok(())
    }
}
