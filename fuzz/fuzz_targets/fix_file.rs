//! Fix any file: the fixer either leaves it untouched, or yields a file that parses, whose
//! applied findings are gone, and that a second run does not change.
//!
//! Each text is analysed once: `fix_from` lints the input, applies its fixes, and lints the fixed
//! text again, round after round, until a round chooses no fix. Its last lint is the second run
//! of the fixed text, so the fixer is idempotent exactly when it stopped for that reason and not
//! at its round cap (a problem it reports).
#![no_main]

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::fix::{fix_from, parses, FixOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = PathBuf::from("/fuzz/input.rs");
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
    let settings = Settings::default();
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text.to_string());
    let options = FixOptions { unsafe_fixes: true };
    let run = fix_from(
        std::slice::from_ref(&unit),
        Path::new("/"),
        options,
        overlay,
        &settings,
    );
    assert!(
        !run.problems.iter().any(|p| p.contains("did not converge")),
        "fixing is idempotent: {:?}",
        run.problems
    );
    let Some(fixed) = run.files.first() else {
        return;
    };
    assert!(parses(&fixed.fixed), "a fixed file must parse");
});
