//! `--message-format json`: cargo's JSON messages as rust-analyzer reads them, parsed with
//! `cargo_metadata` (the parser cargo's own tooling uses), every field rust-analyzer reads checked.

use std::path::Path;

use cargo_metadata::diagnostic::{Applicability, DiagnosticLevel};
use cargo_metadata::Message;

mod support;

fn messages(dir: &Path, args: &[&str]) -> (i32, Vec<Message>, String) {
    let (code, stdout, _) = support::mcp_lint(dir, args);
    let messages = Message::parse_stream(stdout.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .expect("every line is a cargo message");
    (code, messages, stdout)
}

#[test]
fn findings_are_cargo_compiler_messages_with_quick_fixes() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seed-server");
    let (code, messages, stdout) = messages(
        &example,
        &["mcp-lint", "--message-format", "json", "--no-cache"],
    );
    assert_eq!(code, 1, "{stdout}");
    let diagnostics: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::CompilerMessage(c) => Some(&c.message),
            _ => None,
        })
        .collect();
    assert_eq!(diagnostics.len(), 6, "{stdout}");
    assert!(
        matches!(messages.last(), Some(Message::BuildFinished(f)) if !f.success),
        "the stream ends with build-finished: {stdout}"
    );

    // The seed bug: an error with its code, spans on the file relative to the workspace root,
    // lines and columns as rustc counts them, and a safe fix rust-analyzer offers as a quick fix.
    let seed = diagnostics
        .iter()
        .find(|d| d.message.contains("`self.send_error(..)` sends a response"))
        .expect("the seed bug");
    assert_eq!(seed.level, DiagnosticLevel::Error);
    assert_eq!(seed.code.as_ref().map(|c| c.code.as_str()), Some("MCP001"));
    let primary = seed
        .spans
        .iter()
        .find(|s| s.is_primary)
        .expect("a primary span");
    assert_eq!(primary.file_name, "src/responder.rs");
    assert_eq!((primary.line_start, primary.column_start), (61, 9));
    assert_eq!((primary.line_end, primary.column_end), (61, 48));
    let text = std::fs::read_to_string(example.join("src/responder.rs")).expect("read");
    assert_eq!(
        &text[primary.byte_start as usize..primary.byte_end as usize],
        "self.send_error(0, \"Request cancelled\")"
    );
    assert_eq!(primary.text[0].highlight_start, 9);
    let cancel_path = seed.spans.iter().find(|s| !s.is_primary).expect("a label");
    assert!(
        cancel_path
            .label
            .as_deref()
            .is_some_and(|l| l.starts_with("cancel path")),
        "{cancel_path:?}"
    );
    assert!(seed
        .children
        .iter()
        .any(|c| c.level == DiagnosticLevel::Note));
    let fix = seed
        .children
        .iter()
        .find(|c| c.spans.iter().any(|s| s.suggested_replacement.is_some()))
        .expect("the fix as a suggestion");
    assert_eq!(fix.level, DiagnosticLevel::Help);
    let edit = &fix.spans[0];
    assert_eq!(edit.suggested_replacement.as_deref(), Some(""));
    assert_eq!(
        edit.suggestion_applicability,
        Some(Applicability::MachineApplicable)
    );
    assert!(
        seed.rendered
            .as_deref()
            .is_some_and(|r| r.starts_with("error[MCP001]: `self.send_error(..)`")),
        "{:?}",
        seed.rendered
    );

    // The call to a helper whose only effect is the send is offered as a fix that may be wrong
    // (its arguments are computed for it): `MaybeIncorrect`, as `--fix --unsafe-fixes` applies it.
    let helper = diagnostics
        .iter()
        .find(|d| d.message.contains("`ack_stale_request` sends a response"))
        .expect("the helper's finding");
    let helper_edit = helper
        .children
        .iter()
        .flat_map(|c| &c.spans)
        .find(|s| s.suggested_replacement.is_some())
        .expect("the helper call's removal as a suggestion");
    assert_eq!(helper_edit.suggested_replacement.as_deref(), Some(""));
    assert_eq!(
        helper_edit.suggestion_applicability,
        Some(Applicability::MaybeIncorrect)
    );

    // A warning is a warning.
    assert!(diagnostics
        .iter()
        .any(|d| d.level == DiagnosticLevel::Warning
            && d.code.as_ref().is_some_and(|c| c.code == "MCP006")));
}

#[test]
fn a_clean_run_is_a_successful_build_and_formats_cannot_be_mixed() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("clean.rs"), "fn main() {}\n").expect("write");
    let (code, messages, stdout) = messages(dir.path(), &["clean.rs", "--message-format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        matches!(messages.as_slice(), [Message::BuildFinished(f)] if f.success),
        "{stdout}"
    );
    let (code, _, _) = support::mcp_lint(
        dir.path(),
        &["clean.rs", "--message-format", "json", "--format", "sarif"],
    );
    assert_eq!(code, 2);
}
