//! Property tests of the fuzz targets' invariants, in the normal suite: linting any text never
//! panics (the engine catches a panic and reports it as MCP999, so no MCP999 may appear), and
//! fixing any text either changes nothing or yields a file that parses and that a second run
//! leaves alone.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{lint_with, LintResult, LintUnit, Overlay};
use cargo_mcp_lint::fix::{fix_from, parses, FixOptions};
use cargo_mcp_lint::source::ByteSpan;
use proptest::prelude::*;

mod support;

fn unit(path: &Path) -> LintUnit {
    support::unit("property", vec![support::root_file(path)])
}

/// Text built from pieces of MCP server code, so that generated inputs reach the analysis.
fn rust_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "fn on_cancelled(&self) {",
        "}",
        "{",
        "(",
        ")",
        ";",
        "\n",
        " ",
        "self.send_error(id, 0, \"x\")",
        "tokio::select! {",
        "_ = ct.cancelled() =>",
        "out.send(json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {}}))",
        "match m {",
        "\"notifications/cancelled\" =>",
        "let _ =",
        ".await",
        "?",
        "if ct.is_cancelled()",
        "return Err(e);",
        "// mcp-lint: allow(MCP001)",
        "#[tool]",
        "async fn call(&self, ct: CancellationToken) ->",
        "\r\n",
        "\u{feff}",
        "mod x;",
        "'a",
        "r#\"",
        "\"",
        "/*",
        "*/",
        "impl S {",
        "x.remove(&id)",
        "Ok(None)",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|parts| parts.concat())
}

/// Lint `text` as one file, parsing it whatever the pre-filter says.
fn lint_text(text: String, settings: &mut Settings) -> LintResult {
    let path = PathBuf::from("/property/input.rs");
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text);
    settings.analyse_every_file = true;
    lint_with(&[unit(&path)], Path::new("/"), &overlay, settings)
}

/// The span lies within `file`'s text and on character boundaries.
fn span_ok(result: &LintResult, file: usize, span: ByteSpan) -> bool {
    result.sources.get(file).is_some_and(|s| {
        span.start <= span.end
            && span.end <= s.text().len()
            && s.text().is_char_boundary(span.start)
            && s.text().is_char_boundary(span.end)
    })
}

/// What linting must never do (the fuzz target `lint_file` checks the same): panic (reported as
/// MCP999), report a span or a fix's edit out of its file or inside a character, or emit a fix
/// whose edits overlap.
fn lint_invariants(result: &LintResult) -> Result<(), TestCaseError> {
    for d in &result.diagnostics {
        prop_assert!(
            d.code != "MCP999",
            "the analysis panicked: {} {:?}",
            d.message,
            d.notes
        );
        prop_assert!(span_ok(result, d.file, d.span), "{d:?}");
        for label in &d.labels {
            prop_assert!(span_ok(result, label.file, label.span), "{d:?}");
        }
        let edits = d.fix.iter().flat_map(|f| &f.edits);
        for edit in edits.clone() {
            prop_assert!(span_ok(result, edit.file, edit.span), "{d:?}");
        }
        let ends: Vec<(usize, usize, usize)> =
            edits.map(|e| (e.file, e.span.start, e.span.end)).collect();
        prop_assert!(
            ends.windows(2)
                .all(|w| w[0].0 != w[1].0 || w[0].2 <= w[1].1),
            "edits overlap or are out of order: {d:?}"
        );
    }
    Ok(())
}

/// The property does see a panic: with the test hook that makes the analysis of the file panic,
/// the engine still returns (it catches the panic), and the invariants fail.
#[test]
fn the_never_panics_property_sees_a_caught_panic() {
    let text = "fn on_cancelled(&self) { self.send_error(id, 0, \"x\"); }".to_string();
    let result = lint_text(text.clone(), &mut Settings::default());
    assert!(lint_invariants(&result).is_ok());
    let mut settings = Settings::default();
    settings.panic_on_file = Some("input.rs".into());
    let result = lint_text(text, &mut settings);
    assert!(result.diagnostics.iter().any(|d| d.code == "MCP999"));
    let failure = lint_invariants(&result).expect_err("the property fails on a panic");
    assert!(
        failure.to_string().contains("the analysis panicked"),
        "{failure}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn linting_never_panics(text in rust_like()) {
        let result = lint_text(text.clone(), &mut Settings::default());
        lint_invariants(&result)?;
        let again = lint_text(text, &mut Settings::default());
        prop_assert_eq!(&result.diagnostics, &again.diagnostics, "linting is deterministic");
    }

    #[test]
    fn fixing_yields_parsing_and_stable_files(text in rust_like()) {
        let path = PathBuf::from("/property/input.rs");
        let mut overlay = Overlay::new();
        overlay.insert(path.clone(), text);
        let options = FixOptions { unsafe_fixes: true };
        let run = fix_from(&[unit(&path)], Path::new("/"), options, overlay, &Settings::default());
        prop_assert!(run.problems.is_empty(), "{:?}", run.problems);
        if let Some(fixed) = run.files.first() {
            prop_assert!(parses(&fixed.fixed));
            let mut again = Overlay::new();
            again.insert(path.clone(), fixed.fixed.clone());
            let second = fix_from(&[unit(&path)], Path::new("/"), options, again, &Settings::default());
            prop_assert!(second.files.is_empty());
        }
    }
}
