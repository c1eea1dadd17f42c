//! MCP002 `stdio-stdout-pollution`: in a crate that serves MCP over stdio, anything but the
//! transport's own write that reaches stdout corrupts the protocol stream.

use super::{FixAvailability, Rule, RuleContext, RuleMeta};
use crate::analysis::facts::StdoutKind;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::source::ByteSpan;

pub static META: RuleMeta = RuleMeta {
    code: "MCP002",
    name: "stdio-stdout-pollution",
    default_severity: Severity::Error,
    summary: "a stdio MCP server writes something other than protocol messages to stdout",
    fix: FixAvailability::Sometimes,
    docs: include_str!("../../rules/MCP002-stdio-stdout-pollution.md"),
};

const SPEC: &str = "MCP stdio transport (2025-11-25 basic/transports, 2026-07-28 basic/transports/stdio): \
the server MUST NOT write anything to its stdout that is not a valid MCP message; it MAY write UTF-8 \
strings to stderr for logging";

pub struct StdioStdoutPollution;

impl Rule for StdioStdoutPollution {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>) {
        let files = context.graph.files();
        let speaks_mcp = context.sdk.is_some() || files.iter().any(|(_, f)| f.mentions_mcp);
        if !speaks_mcp {
            return;
        }
        for (file, facts) in files
            .iter()
            .filter(|(file, _)| context.stdout_is_protocol(*file))
        {
            for function in &facts.functions {
                // The transport's own write site serialises the messages it writes.
                if function.serializes_json {
                    continue;
                }
                for write in function.stdout_writes.iter().filter(|w| !w.in_test) {
                    out.push(diagnostic(*file, write.kind, write.span, write.fix_span));
                }
            }
        }
    }
}

fn diagnostic(file: usize, kind: StdoutKind, span: ByteSpan, fix_span: ByteSpan) -> Diagnostic {
    let (message, fix) = match kind {
        StdoutKind::Println => (
            "`println!` writes to stdout, the stdio transport's protocol stream".to_string(),
            Some(("use `eprintln!`: stderr is for logs", fix_span, "eprintln")),
        ),
        StdoutKind::Print => (
            "`print!` writes to stdout, the stdio transport's protocol stream".to_string(),
            Some(("use `eprint!`: stderr is for logs", fix_span, "eprint")),
        ),
        StdoutKind::Handle => (
            "a write to `stdout()` outside the transport corrupts the protocol stream".to_string(),
            None,
        ),
        StdoutKind::TracingFmt => (
            "this `tracing_subscriber` fmt logger writes to stdout (its default), the protocol stream"
                .to_string(),
            Some(("log to stderr: add `.with_writer(std::io::stderr)`", ByteSpan::new(fix_span.end, fix_span.end), ".with_writer(std::io::stderr)")),
        ),
        StdoutKind::TracingFmtInit => (
            "`tracing_subscriber::fmt::init()` logs to stdout (its default), the protocol stream".to_string(),
            Some((
                "log to stderr: build the subscriber with `.with_writer(std::io::stderr)`",
                fix_span,
                "tracing_subscriber::fmt().with_writer(std::io::stderr).init()",
            )),
        ),
    };
    Diagnostic {
        code: META.code,
        name: META.name,
        severity: META.default_severity,
        message,
        file,
        span,
        labels: Vec::new(),
        notes: vec![SPEC.to_string()],
        help: Some("write logs to stderr; only the transport writes to stdout".to_string()),
        fix: fix.map(|(message, span, replacement)| Fix {
            applicability: Applicability::Safe,
            message: message.to_string(),
            edits: vec![Edit {
                file,
                span,
                replacement: replacement.to_string(),
            }],
        }),
        context: None,
    }
}
