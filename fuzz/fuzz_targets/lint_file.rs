//! Lint any file: no panic, no hang, and what is reported makes sense. Every diagnostic's span
//! and labels lie within their file and on character boundaries, no internal error (MCP999: a
//! panic the engine caught) is ever reported, a fix's edits lie within the file, on character
//! boundaries, sorted and not overlapping, and linting the same text again reports the same.
#![no_main]

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{lint_with, LintResult, LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::source::{ByteSpan, FileId};
use libfuzzer_sys::fuzz_target;

fn lint(text: &str) -> LintResult {
    let path = PathBuf::from("/fuzz/input.rs");
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text.to_string());
    let unit = LintUnit {
        name: "fuzz".into(),
        files: vec![UnitFile {
            path: std::sync::Arc::from(path.as_path()),
            module: std::sync::Arc::from([]),
            owns_directory: true,
        }],
        follow_modules: false,
        manifest: None,
        test_target: false,
        ..LintUnit::default()
    };
    let mut settings = Settings::default();
    settings.analyse_every_file = true;
    lint_with(&[unit], Path::new("/"), &overlay, &settings)
}

/// The span lies within the text of `file` and on character boundaries.
fn assert_span(result: &LintResult, file: FileId, span: ByteSpan, what: &str) {
    let Some(source) = result.sources.get(file) else {
        panic!("{what}: file {file} is not among the sources");
    };
    let text = source.text();
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{what}: {span:?} out of a {}-byte file",
        text.len()
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{what}: {span:?} splits a character"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let result = lint(text);
    for d in &result.diagnostics {
        assert_ne!(
            d.code, "MCP999",
            "the analysis panicked: {} {:?}",
            d.message, d.notes
        );
        assert_span(&result, d.file, d.span, d.code);
        for label in &d.labels {
            assert_span(&result, label.file, label.span, "a label");
        }
        if let Some(fix) = &d.fix {
            let mut previous: Option<(FileId, usize)> = None;
            for edit in &fix.edits {
                assert_span(&result, edit.file, edit.span, "a fix's edit");
                if let Some((file, end)) = previous {
                    assert!(
                        file != edit.file || end <= edit.span.start,
                        "{}: a fix's edits overlap or are out of order: {:?}",
                        d.code,
                        fix.edits
                    );
                }
                previous = Some((edit.file, edit.span.end));
            }
        }
    }
    let again = lint(text);
    assert_eq!(
        result.diagnostics, again.diagnostics,
        "linting the same text twice reports the same"
    );
});
