//! Property tests of the fuzz targets' invariants, in the normal suite: linting any text never
//! panics (the engine catches a panic and reports it as MCP999, so no MCP999 may appear), and
//! fixing any text either changes nothing or yields a file that parses and that a second run
//! leaves alone.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{lint_with, LintResult, LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::fix::{fix_from, parses, FixOptions};
use proptest::prelude::*;

fn unit(path: &Path) -> LintUnit {
    LintUnit {
        name: "property".into(),
        files: vec![UnitFile {
            path: path.to_path_buf(),
            module: Vec::new(),
            owns_directory: true,
        }],
        follow_modules: false,
        manifest: None,
        test_target: false,
    }
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

/// What linting must never do: panic (reported as MCP999) or report a span out of its file.
fn lint_invariants(result: &LintResult) -> Result<(), TestCaseError> {
    for d in &result.diagnostics {
        prop_assert!(
            d.code != "MCP999",
            "the analysis panicked: {} {:?}",
            d.message,
            d.notes
        );
        let source = result.sources.get(d.file);
        prop_assert!(source.is_some(), "a diagnostic's file exists");
        let len = source.map_or(0, |s| s.text.len());
        prop_assert!(d.span.start <= d.span.end && d.span.end <= len);
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
        let result = lint_text(text, &mut Settings::default());
        lint_invariants(&result)?;
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
