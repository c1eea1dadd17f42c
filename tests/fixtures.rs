//! Fixture tests: every file (or directory, linted as one crate) under `tests/fixtures/<rule>/`
//! marks the lines where findings are expected with `//~ CODE` at the end of the line where the
//! primary span starts. Unmarked lines must produce nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::{self, Settings};
use cargo_mcp_lint::diagnostic::Applicability;
use cargo_mcp_lint::discovery::path_mode;
use cargo_mcp_lint::engine::{self, LintUnit, Overlay, UnitFile};
use cargo_mcp_lint::fix::{self, FixOptions};
use cargo_mcp_lint::rules::{self, FixAvailability};

/// (file relative to the fixture, line) -> codes expected or found there.
type Findings = BTreeMap<(String, usize), Vec<String>>;

fn is_fixed_file(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".fixed.rs")
}

/// `x.rs` -> `x.fixed.rs`.
fn fixed_path(path: &Path) -> PathBuf {
    path.with_extension("fixed.rs")
}

/// The fixture as one unit, as path mode would lint it (without the expected fixed files).
fn unit(fixture: &Path) -> Vec<LintUnit> {
    vec![LintUnit {
        name: "fixture".into(),
        files: rust_files(fixture)
            .into_iter()
            .map(|path| UnitFile {
                module: path_mode::module_of(&path),
                path,
                owns_directory: false,
            })
            .collect(),
        follow_modules: false,
        manifest: None,
        test_target: false,
    }]
}

/// A directory fixture may carry an `mcp-lint.toml` (for example to name the SDK).
fn settings_for(fixture: &Path) -> Settings {
    let config = fixture.join("mcp-lint.toml");
    if fixture.is_dir() && config.is_file() {
        config::load(fixture, Some(&config)).expect("the fixture's configuration loads")
    } else {
        Settings::default()
    }
}

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
        } else if path.extension().is_some_and(|e| e == "rs") && !is_fixed_file(&path) {
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
    let result = engine::lint_with(
        &unit(fixture),
        Path::new("/"),
        &Overlay::new(),
        &settings_for(fixture),
    );
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

fn fixtures(rule_dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rule_dir);
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixture directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_dir() || (p.extension().is_some_and(|e| e == "rs") && !is_fixed_file(p)))
        .collect();
    entries.sort();
    entries
}

/// Apply the safe fixes to every fixture of a rule and compare with the `.fixed.rs` files beside
/// them (`MCP_LINT_BLESS=1` writes them). Also checks that fixing converges, that the result
/// parses, that a second run changes nothing, and that each rule emits fixes as it declares.
fn check_rule_fixes(rule_dir: &str) {
    let bless = std::env::var_os("MCP_LINT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut fixed_files = 0;
    for fixture in fixtures(rule_dir) {
        let units = unit(&fixture);
        let name = fixture
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();

        let settings = settings_for(&fixture);
        let result = engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings);
        for d in &result.diagnostics {
            let declared = rules::find(d.code).expect("rule is registered").meta().fix;
            let consistent = match declared {
                FixAvailability::None => d.fix.is_none(),
                FixAvailability::Always => d.fix.is_some(),
                FixAvailability::Sometimes => true,
            };
            if !consistent {
                failures.push(format!(
                    "{name}: {} declares {declared:?} fixes but emitted {:?}",
                    d.code, d.fix
                ));
            }
            if let Some(fix) = &d.fix {
                if fix.applicability != Applicability::DisplayOnly && fix.edits.is_empty() {
                    failures.push(format!(
                        "{name}: an applicable fix of {} has no edits",
                        d.code
                    ));
                }
            }
        }

        let run = fix::fix_from(
            &units,
            Path::new("/"),
            FixOptions::default(),
            Overlay::new(),
            &settings,
        );
        if !run.problems.is_empty() {
            failures.push(format!("{name}: {}", run.problems.join("; ")));
        }
        for file in rust_files(&fixture) {
            let expected_path = fixed_path(&file);
            let changed = run.files.iter().find(|f| f.path == file);
            match changed {
                Some(changed) => {
                    fixed_files += 1;
                    if !fix::parses(&changed.fixed) {
                        failures.push(format!(
                            "{name}: the fixed {} does not parse",
                            file.display()
                        ));
                    }
                    if bless {
                        std::fs::write(&expected_path, &changed.fixed)
                            .expect("write the fixed file");
                    } else {
                        match std::fs::read_to_string(&expected_path) {
                            Ok(expected) if expected == changed.fixed => {}
                            Ok(expected) => failures.push(format!(
                                "{name}: {} differs from the fix:\n{}",
                                expected_path.display(),
                                similar::TextDiff::from_lines(&expected, &changed.fixed)
                                    .unified_diff()
                                    .header("expected", "fixed")
                            )),
                            Err(_) => failures.push(format!(
                                "{name}: {} is missing (run with MCP_LINT_BLESS=1 to write it)",
                                expected_path.display()
                            )),
                        }
                    }
                    // Fixing the fixed text again changes nothing.
                    let mut overlay = engine::Overlay::new();
                    for f in &run.files {
                        overlay.insert(f.path.clone(), f.fixed.clone());
                    }
                    let again = fix::fix_from(
                        &units,
                        Path::new("/"),
                        FixOptions::default(),
                        overlay,
                        &settings,
                    );
                    if !again.files.is_empty() {
                        failures.push(format!(
                            "{name}: a second fix run still changes {}",
                            file.display()
                        ));
                    }
                }
                None if expected_path.exists() => {
                    if bless {
                        std::fs::remove_file(&expected_path).expect("remove a stale fixed file");
                    } else {
                        failures.push(format!(
                            "{name}: {} exists but the fix changes nothing",
                            expected_path.display()
                        ));
                    }
                }
                None => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if rules::find(rule_dir).is_some_and(|r| r.meta().fix != FixAvailability::None) {
        assert!(
            fixed_files > 0,
            "{rule_dir} has fixes but no fixture exercises them"
        );
    }
}

fn check_rule_fixtures(rule_dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rule_dir);
    let entries = fixtures(rule_dir);
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

#[test]
fn mcp002_fixtures() {
    check_rule_fixtures("mcp002");
}

#[test]
fn mcp002_fixes() {
    check_rule_fixes("mcp002");
}

#[test]
fn mcp005_fixtures() {
    check_rule_fixtures("mcp005");
}

#[test]
fn mcp005_fixes() {
    check_rule_fixes("mcp005");
}

#[test]
fn mcp006_fixtures() {
    check_rule_fixtures("mcp006");
}

#[test]
fn mcp007_fixtures() {
    check_rule_fixtures("mcp007");
}

#[test]
fn mcp007_fixes() {
    check_rule_fixes("mcp007");
}

#[test]
fn mcp900_fixtures() {
    check_rule_fixtures("mcp900");
}

#[test]
fn mcp900_fixes() {
    check_rule_fixes("mcp900");
}

#[test]
fn mcp901_fixtures() {
    check_rule_fixtures("mcp901");
}

#[test]
fn mcp001_fixes() {
    check_rule_fixes("mcp001");
}

#[test]
fn mcp000_fixes() {
    check_rule_fixes("mcp000");
}

#[test]
fn mcp003_fixtures() {
    check_rule_fixtures("mcp003");
}

#[test]
fn mcp004_fixtures() {
    check_rule_fixtures("mcp004");
}

#[test]
fn mcp004_fixes() {
    check_rule_fixes("mcp004");
}

#[test]
fn mcp006_fixes() {
    check_rule_fixes("mcp006");
}
