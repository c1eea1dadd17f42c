//! `--message-format json`: cargo's JSON messages, one per line, as `cargo check
//! --message-format json` prints them: a `compiler-message` per finding, holding a diagnostic in
//! rustc's JSON shape, then `build-finished`. rust-analyzer reads this from any command
//! (`rust-analyzer.check.overrideCommand`) and shows the findings in the editor, with quick fixes
//! from the suggestions.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;
use serde_json::{json, Value};

use super::emitter::Emitter;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::report::Report;
use crate::source::{ByteSpan, FileId, SourceMap};

pub struct CargoJson;

impl Emitter for CargoJson {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        let rendered = super::human::render_each(result);
        for (d, rendered) in result.diagnostics.iter().zip(rendered) {
            let Some(source) = result.sources.get(d.file) else {
                continue;
            };
            let message = json!({
                "reason": "compiler-message",
                "package_id": "cargo-mcp-lint",
                // Findings are not tied to one of cargo's targets; this names the file's own.
                "target": {
                    "name": "mcp-lint",
                    "kind": ["lib"],
                    "crate_types": ["lib"],
                    "src_path": source.path.to_string_lossy(),
                    "edition": "2021",
                    "doctest": false,
                    "test": false,
                    "doc": false,
                },
                "message": diagnostic(d, &result.sources, rendered),
            });
            serde_json::to_writer(&mut *out, &message).map_err(io::Error::other)?;
            writeln!(out)?;
        }
        let success = !result
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error);
        serde_json::to_writer(
            &mut *out,
            &json!({"reason": "build-finished", "success": success}),
        )
        .map_err(io::Error::other)?;
        writeln!(out)
    }
}

/// A finding in rustc's JSON diagnostic shape.
fn diagnostic(d: &Diagnostic, sources: &SourceMap, rendered: String) -> Value {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let mut spans = vec![span(sources, d.file, d.span, true, None, None)];
    spans.extend(
        d.labels
            .iter()
            .map(|l| span(sources, l.file, l.span, false, Some(&l.message), None)),
    );
    let mut children: Vec<Value> = d
        .notes
        .iter()
        .map(|n| child("note", n, Vec::new()))
        .collect();
    if let Some(help) = &d.help {
        children.push(child("help", help, Vec::new()));
    }
    if let Some(fix) = &d.fix {
        // Safe fixes are what an editor may apply at once; unsafe ones it offers; a display-only
        // one (never applied) carries no replacement, so no editor turns it into a quick fix.
        let applicability = match fix.applicability {
            Applicability::Safe => Some("MachineApplicable"),
            Applicability::Unsafe => Some("MaybeIncorrect"),
            Applicability::DisplayOnly => None,
        };
        let edits = fix
            .edits
            .iter()
            .map(|e| {
                let suggestion = applicability.map(|a| (e.replacement.as_str(), a));
                span(sources, e.file, e.span, true, None, suggestion)
            })
            .collect();
        children.push(child("help", &fix.message, edits));
    }
    json!({
        "$message_type": "diagnostic",
        "message": d.message,
        "code": {
            "code": d.code,
            "explanation": crate::rules::find(d.code).map(|r| r.meta().summary),
        },
        "level": level,
        "spans": spans,
        "children": children,
        "rendered": rendered,
    })
}

fn child(level: &str, message: &str, spans: Vec<Value>) -> Value {
    json!({
        "$message_type": "diagnostic",
        "message": message,
        "code": null,
        "level": level,
        "spans": spans,
        "children": [],
        "rendered": null,
    })
}

/// A span in rustc's shape: byte offsets, 1-based lines and columns (in characters, the end
/// exclusive), the text of its lines with what it highlights, and a suggestion's replacement.
fn span(
    sources: &SourceMap,
    file: FileId,
    span: ByteSpan,
    primary: bool,
    label: Option<&str>,
    suggestion: Option<(&str, &str)>,
) -> Value {
    let Some(source) = sources.get(file) else {
        return Value::Null;
    };
    let start = source.clamp_offset(span.start);
    let end = source.clamp_offset(span.end).max(start);
    let (first, last) = (source.line_column(start), source.line_column(end));
    let text: Vec<Value> = (first.line..=last.line)
        .filter_map(|line| {
            let from = *source.line_starts().get(line - 1)?;
            let to = source
                .line_starts()
                .get(line)
                .copied()
                .unwrap_or(source.text().len());
            let line_text = source.text()[from..to].trim_end_matches(['\n', '\r']);
            let highlight_start = if line == first.line { first.column } else { 1 };
            let highlight_end = if line == last.line {
                last.column
            } else {
                line_text.chars().count() + 1
            };
            Some(json!({
                "text": line_text,
                "highlight_start": highlight_start,
                "highlight_end": highlight_end,
            }))
        })
        .collect();
    json!({
        "file_name": source.display_path,
        "byte_start": start,
        "byte_end": end,
        "line_start": first.line,
        "line_end": last.line,
        "column_start": first.column,
        "column_end": last.column,
        "is_primary": primary,
        "text": text,
        "label": label,
        "suggested_replacement": suggestion.map(|(replacement, _)| replacement),
        "suggestion_applicability": suggestion.map(|(_, applicability)| applicability),
        "expansion": null,
    })
}
