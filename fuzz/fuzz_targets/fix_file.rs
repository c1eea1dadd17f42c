//! Fix any file: the fixer either leaves it untouched, or yields a file that parses, whose
//! applied findings are gone, and that a second run does not change.
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
            path: path.clone(),
            module: Vec::new(),
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
    let Some(fixed) = run.files.first() else {
        return;
    };
    assert!(parses(&fixed.fixed), "a fixed file must parse");
    let mut again = Overlay::new();
    again.insert(path, fixed.fixed.clone());
    let second = fix_from(&[unit], Path::new("/"), options, again, &settings);
    assert!(second.files.is_empty(), "fixing is idempotent");
});
