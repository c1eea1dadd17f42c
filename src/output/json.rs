//! `--format json`: the stable machine-readable contract (version 1).

use std::io;

use codespan_reporting::term::termcolor::WriteColor;
use serde::Serialize;

use super::emitter::Emitter;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::report::Report;
use crate::source::{ByteSpan, SourceMap};

pub struct Json;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    tool: Tool,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    diagnostics: usize,
}

#[derive(Serialize)]
pub(super) struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    path: &'a str,
    span: JsonSpan,
    labels: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    help: Option<&'a str>,
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    applicability: Applicability,
    message: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    path: &'a str,
    byte_start: usize,
    byte_end: usize,
    replacement: &'a str,
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    path: &'a str,
    span: JsonSpan,
    message: &'a str,
}

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonSpan {
    start: Position,
    end: Position,
    byte_start: usize,
    byte_end: usize,
}

fn span(sources: &SourceMap, file: usize, span: ByteSpan) -> JsonSpan {
    match sources.get(file) {
        Some(source) => {
            let start = source.line_column(span.start);
            let end = source.line_column(span.end);
            JsonSpan {
                start: Position {
                    line: start.line,
                    column: start.column,
                },
                end: Position {
                    line: end.line,
                    column: end.column,
                },
                byte_start: source.clamp_offset(span.start),
                byte_end: source.clamp_offset(span.end),
            }
        }
        None => JsonSpan {
            start: Position { line: 1, column: 1 },
            end: Position { line: 1, column: 1 },
            byte_start: 0,
            byte_end: 0,
        },
    }
}

fn path(sources: &SourceMap, file: usize) -> &str {
    sources.get(file).map_or("", |s| s.display_path.as_str())
}

pub(super) fn diagnostic<'a>(sources: &'a SourceMap, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        code: d.code,
        name: d.name,
        severity: d.severity,
        message: &d.message,
        path: path(sources, d.file),
        span: span(sources, d.file, d.span),
        labels: d
            .labels
            .iter()
            .map(|l| JsonLabel {
                path: path(sources, l.file),
                span: span(sources, l.file, l.span),
                message: &l.message,
            })
            .collect(),
        notes: &d.notes,
        help: d.help.as_deref(),
        fix: d.fix.as_ref().map(|fix| JsonFix {
            applicability: fix.applicability,
            message: &fix.message,
            edits: fix
                .edits
                .iter()
                .map(|e| JsonEdit {
                    path: path(sources, e.file),
                    byte_start: e.span.start,
                    byte_end: e.span.end,
                    replacement: &e.replacement,
                })
                .collect(),
        }),
    }
}

impl Emitter for Json {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        let json = JsonReport {
            version: 1,
            tool: Tool {
                name: env!("CARGO_PKG_NAME"),
                version: env!("CARGO_PKG_VERSION"),
            },
            diagnostics: result
                .diagnostics
                .iter()
                .map(|d| diagnostic(&result.sources, d))
                .collect(),
            summary: Summary {
                files: result.files_linted(),
                diagnostics: result.diagnostics.len(),
            },
        };
        serde_json::to_writer_pretty(&mut *out, &json).map_err(io::Error::other)?;
        writeln!(out)
    }
}
