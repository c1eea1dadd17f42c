//! `--format sarif`: SARIF 2.1.0, as GitHub code scanning accepts it.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;
use serde_json::{json, Value};

use super::emitter::Emitter;
use crate::diagnostic::Severity;
use crate::fingerprint::fingerprint;
use crate::report::Report;
use crate::rules::{self, RuleMeta};
use crate::source::{ByteSpan, FileId};

pub struct Sarif;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://crates.io/crates/cargo-mcp-lint";

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The first paragraph under "What it does" in a rule's documentation.
fn full_description(meta: &RuleMeta) -> String {
    let mut lines = meta
        .docs
        .lines()
        .skip_while(|l| !l.starts_with("## What it does"))
        .skip(1)
        .skip_while(|l| l.trim().is_empty());
    let mut paragraph = Vec::new();
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            break;
        }
        paragraph.push(line.trim());
    }
    if paragraph.is_empty() {
        meta.summary.to_string()
    } else {
        paragraph.join(" ")
    }
}

fn rule(meta: &RuleMeta) -> Value {
    json!({
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": full_description(meta)},
        "help": {"text": meta.docs, "markdown": meta.docs},
        "defaultConfiguration": {"level": level(meta.default_severity)},
        "properties": {"tags": ["mcp", "protocol"]}
    })
}

/// A relative path as an RFC 3986 URI reference: every byte but the unreserved characters and
/// the `/` separators percent-encoded, so `a b#c?.rs` names the file it is, not a fragment.
fn uri_reference(path: &str) -> String {
    let mut uri = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

fn location(report: &Report<'_>, file: FileId, span: ByteSpan) -> Value {
    let (start, end) = match report.result.sources.get(file) {
        Some(source) => (source.line_column(span.start), source.line_column(span.end)),
        None => return json!({"physicalLocation": {"artifactLocation": {"uri": ""}}}),
    };
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri_reference(&report.repository_path(file))},
            "region": {
                "startLine": start.line,
                "startColumn": start.column,
                "endLine": end.line,
                "endColumn": end.column
            }
        }
    })
}

impl Emitter for Sarif {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let registry = rules::registry();
        let results: Vec<Value> = report
            .result
            .diagnostics
            .iter()
            .map(|d| {
                let index = registry.iter().position(|r| r.meta().code == d.code).unwrap_or(0);
                let mut text = d.message.clone();
                if let Some(help) = &d.help {
                    text.push_str("\nhelp: ");
                    text.push_str(help);
                }
                let related: Vec<Value> = d
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let mut loc = location(report, l.file, l.span);
                        loc["id"] = json!(i);
                        loc["message"] = json!({"text": l.message});
                        loc
                    })
                    .collect();
                json!({
                    "ruleId": d.code,
                    "ruleIndex": index,
                    "level": level(d.severity),
                    "message": {"text": text},
                    "locations": [location(report, d.file, d.span)],
                    "relatedLocations": related,
                    "partialFingerprints": {"mcpLintFingerprint/v1": fingerprint(d, &report.result.sources, &report.repository_path(d.file))}
                })
            })
            .collect();
        let sarif = json!({
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": env!("CARGO_PKG_NAME"),
                        "version": env!("CARGO_PKG_VERSION"),
                        "informationUri": INFORMATION_URI,
                        "rules": registry.iter().map(|r| rule(r.meta())).collect::<Vec<_>>()
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results
            }]
        });
        serde_json::to_writer_pretty(&mut *out, &sarif).map_err(io::Error::other)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::uri_reference;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_reference("src/main.rs"), "src/main.rs");
        assert_eq!(uri_reference("hash#frag?q=1.rs"), "hash%23frag%3Fq%3D1.rs");
        assert_eq!(uri_reference("space name.rs"), "space%20name.rs");
        assert_eq!(uri_reference("percent%20.rs"), "percent%2520.rs");
        assert_eq!(uri_reference("é.rs"), "%C3%A9.rs");
    }
}
