//! `--format gitlab`: a GitLab Code Quality report (a JSON array of issues).

use std::io;

use codespan_reporting::term::termcolor::WriteColor;
use serde::Serialize;

use super::emitter::Emitter;
use crate::diagnostic::Severity;
use crate::fingerprint::fingerprint;
use crate::report::Report;

pub struct Gitlab;

#[derive(Serialize)]
struct Issue {
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

impl Emitter for Gitlab {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let result = report.result;
        let issues: Vec<Issue> = result
            .diagnostics
            .iter()
            .filter_map(|d| {
                let source = result.sources.get(d.file)?;
                Some(Issue {
                    description: format!("{} [{}] {}", d.code, d.name, d.message),
                    check_name: d.code.to_string(),
                    fingerprint: fingerprint(d, &result.sources, &report.repository_path(d.file)),
                    severity: match d.severity {
                        Severity::Error => "major",
                        Severity::Warning => "minor",
                        Severity::Note => "info",
                    },
                    location: Location {
                        path: report.repository_path(d.file),
                        lines: Lines {
                            begin: source.line_column(d.span.start).line,
                            end: source.line_column(d.span.end).line,
                        },
                    },
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &issues).map_err(io::Error::other)?;
        writeln!(out)
    }
}
