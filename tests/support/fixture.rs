//! The fixtures under `tests/fixtures/<rule>/` as the fixture tests and the variant harness
//! read them: which files a fixture holds, how it is grouped into units, and its settings.

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::{self, Settings};
use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::LintUnit;

pub fn is_fixed_file(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".fixed.rs")
}

/// `x.rs` -> `x.fixed.rs`.
pub fn fixed_path(path: &Path) -> PathBuf {
    path.with_extension("fixed.rs")
}

/// The fixture's units: a package (a directory with a `Cargo.toml`) as path mode groups it, by
/// target; anything else as one unit of its files (without the expected fixed files).
pub fn unit(fixture: &Path) -> Vec<LintUnit> {
    if fixture.join("Cargo.toml").is_file() {
        let mut units =
            path_mode::discover(&[fixture.to_path_buf()]).expect("the fixture package is readable");
        // An expected fixed file beside an example would be a target of its own.
        units.retain(|u| u.files.first().is_some_and(|f| !is_fixed_file(&f.path)));
        for unit in &mut units {
            unit.files.retain(|f| !is_fixed_file(&f.path));
            let library: Vec<_> = unit
                .library
                .iter()
                .filter(|f| !is_fixed_file(&f.path))
                .cloned()
                .collect();
            unit.library = library.into();
        }
        return units;
    }
    let files = rust_files(fixture);
    vec![super::unit(
        "fixture",
        files.iter().map(|path| super::unit_file(path)).collect(),
    )]
}

/// A directory fixture may carry an `mcp-lint.toml` (for example to name the SDK). Preview mode
/// is on.
pub fn settings_for(fixture: &Path) -> Settings {
    let config = fixture.join("mcp-lint.toml");
    let mut settings = if fixture.is_dir() && config.is_file() {
        config::load(fixture, Some(&config)).expect("the fixture's configuration loads")
    } else {
        Settings::default()
    };
    settings.preview = true;
    settings
}

pub fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files: Vec<PathBuf> = walk(path);
    files.sort();
    files
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixture directory is readable") {
        let path = entry.expect("fixture entry is readable").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && !is_fixed_file(&path) {
            out.push(path);
        }
    }
    out
}

pub fn relative(path: &Path, fixture: &Path) -> String {
    let base = if fixture.is_file() {
        fixture.parent().unwrap_or(fixture)
    } else {
        fixture
    };
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The fixtures in a rule's directory: its `.rs` files (not the `.fixed.rs` ones) and its
/// directories.
pub fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir() || (p.extension().is_some_and(|e| e == "rs") && !is_fixed_file(p)))
        .collect();
    entries.sort();
    entries
}
