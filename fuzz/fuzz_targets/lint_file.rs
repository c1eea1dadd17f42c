//! Lint any file: no panic, no hang.
#![no_main]

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{lint_with, LintUnit, Overlay, UnitFile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = PathBuf::from("/fuzz/input.rs");
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text.to_string());
    let unit = LintUnit {
        name: "fuzz".into(),
        files: vec![UnitFile {
            path,
            module: Vec::new(),
            owns_directory: true,
        }],
        follow_modules: false,
        manifest: None,
        test_target: false,
    };
    let mut settings = Settings::default();
    settings.analyse_every_file = true;
    let result = lint_with(&[unit], Path::new("/"), &overlay, &settings);
    for d in &result.diagnostics {
        let source = result
            .sources
            .get(d.file)
            .expect("a diagnostic's file exists");
        assert!(d.span.start <= d.span.end && d.span.end <= source.text.len().max(d.span.end));
    }
});
