//! Fixture tests: every file (or directory, linted as one crate) under `tests/fixtures/<rule>/`
//! marks the lines where findings are expected with `//~ CODE` at the end of the line where the
//! primary span starts. Unmarked lines must produce nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine;

/// (file relative to the fixture, line) -> codes expected or found there.
type Findings = BTreeMap<(String, usize), Vec<String>>;

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files: Vec<PathBuf> = walk(path);
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixture directory is readable") {
        let path = entry.expect("fixture entry is readable").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

fn relative(path: &Path, fixture: &Path) -> String {
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

fn expected(fixture: &Path, rule_dir: &str) -> Findings {
    let mut findings = Findings::new();
    for file in rust_files(fixture) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("fixture is readable"))
            .into_owned();
        for (index, line) in text.lines().enumerate() {
            if let Some(position) = line.find("//~") {
                let codes = line[position + 3..]
                    .split_whitespace()
                    .take_while(|w| w.starts_with("MCP"))
                    .filter(|code| compared(rule_dir, code))
                    .map(str::to_string);
                findings
                    .entry((relative(&file, fixture), index + 1))
                    .or_default()
                    .extend(codes);
            }
        }
    }
    findings.values_mut().for_each(|codes| codes.sort());
    findings.retain(|_, codes| !codes.is_empty());
    findings
}

/// The codes a fixture directory is about: its rule's code, and MCP000 (a fixture that does not
/// parse must say so). Findings of other rules are not compared, except in the MCP000 fixtures,
/// which show that the other files are still linted.
fn compared(rule_dir: &str, code: &str) -> bool {
    code == "MCP000" || rule_dir == "mcp000" || code.eq_ignore_ascii_case(rule_dir)
}

fn actual(fixture: &Path, rule_dir: &str) -> (Findings, Vec<String>) {
    let units = path_mode::discover(&[fixture.to_path_buf()]).expect("fixture is discoverable");
    let result = engine::lint(&units, Path::new("/"));
    let mut findings = Findings::new();
    let mut messages = Vec::new();
    for d in result
        .diagnostics
        .iter()
        .filter(|d| compared(rule_dir, d.code))
    {
        let source = result.sources.get(d.file).expect("diagnostic file exists");
        let position = source.line_column(d.span.start);
        let file = relative(&source.path, fixture);
        messages.push(format!(
            "{file}:{}: {} {}",
            position.line, d.code, d.message
        ));
        findings
            .entry((file, position.line))
            .or_default()
            .push(d.code.to_string());
    }
    findings.values_mut().for_each(|codes| codes.sort());
    (findings, messages)
}

fn check_rule_fixtures(rule_dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rule_dir);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixture directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no fixtures under {}", root.display());
    let mut failures = Vec::new();
    let mut markers = 0;
    for fixture in &entries {
        let want = expected(fixture, rule_dir);
        markers += want.values().map(Vec::len).sum::<usize>();
        let (got, messages) = actual(fixture, rule_dir);
        if want != got {
            let name = fixture.file_name().unwrap_or_default().to_string_lossy();
            let mut report = format!("{name}:\n");
            for (key, codes) in &want {
                if got.get(key) != Some(codes) {
                    report += &format!("  missing {:?} at {}:{}\n", codes, key.0, key.1);
                }
            }
            for (key, codes) in &got {
                if want.get(key) != Some(codes) {
                    report += &format!("  unexpected {:?} at {}:{}\n", codes, key.0, key.1);
                }
            }
            for message in messages {
                report += &format!("    reported: {message}\n");
            }
            failures.push(report);
        }
    }
    assert!(
        markers > 0,
        "the fixtures of {rule_dir} expect no finding at all"
    );
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

#[test]
fn mcp001_fixtures() {
    check_rule_fixtures("mcp001");
}

#[test]
fn mcp000_fixtures() {
    check_rule_fixtures("mcp000");
}
