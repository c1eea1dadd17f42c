//! The pre-filter never changes a finding: linting every rule's fixtures with it, and with every
//! file parsed (`--all-files`), reports the same findings, syntax errors aside (those are
//! reported only in the files that are parsed).

use std::path::Path;

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::{self, LintResult, Overlay};

mod support;

fn lint(dir: &Path, every_file: bool) -> LintResult {
    let mut settings = Settings::default();
    settings.preview = true;
    settings.analyse_every_file = every_file;
    let units = path_mode::discover(&[dir.to_path_buf()]).expect("discover");
    engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings)
}

fn findings(result: &LintResult) -> Vec<String> {
    let mut found: Vec<String> = result
        .diagnostics
        .iter()
        .filter(|d| d.code != "MCP000")
        .map(|d| {
            let path = result
                .sources
                .get(d.file)
                .map(|s| s.display_path.clone())
                .unwrap_or_default();
            format!("{path}:{} {} {}", d.span.start, d.code, d.message)
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_prefilter_never_changes_a_finding() {
    let copy = tempfile::tempdir().expect("temp dir");
    let root = copy.path().join("fixtures");
    support::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &root,
    );
    let mut compared = 0;
    // Each fixture alone (a file, or a directory linted as one crate): in a rule's whole
    // directory, one fixture's names could lead the pre-filter to another's files.
    for rule in std::fs::read_dir(&root).expect("fixtures") {
        let rule = rule.expect("entry").path();
        for fixture in std::fs::read_dir(&rule).expect("a rule's fixtures") {
            let fixture = fixture.expect("entry").path();
            let name = fixture.to_string_lossy();
            if name.ends_with(".fixed.rs") || name.ends_with(".findings") {
                continue;
            }
            let filtered = findings(&lint(&fixture, false));
            let every = findings(&lint(&fixture, true));
            assert_eq!(
                filtered,
                every,
                "{}: with and without the pre-filter",
                fixture.display()
            );
            compared += every.len();
        }
    }
    assert!(
        compared > 50,
        "the fixtures hold findings to compare: {compared}"
    );
}
