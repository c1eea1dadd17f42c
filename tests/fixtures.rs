//! Fixture tests: every file (or directory, linted as one crate) under `tests/fixtures/<rule>/`
//! marks the lines where findings are expected with `//~ CODE` at the end of the line where the
//! primary span starts. Unmarked lines must produce nothing.
//!
//! The rules' directories come from the registry (`tests/fixtures/<code lowercase>/`): a new
//! rule's fixtures run with no edit here, a rule that can report from code but has no directory
//! fails, and so does a directory that names no rule. Each rule's fixes are checked too.
//!
//! Fixtures run in preview mode, so the rules and shapes in preview are tested like the stable
//! ones; what preview mode leaves out is tested in `tests/cli.rs`.

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

/// The fixture's units: a package (a directory with a `Cargo.toml`) as path mode groups it, by
/// target; anything else as one unit of its files (without the expected fixed files).
fn unit(fixture: &Path) -> Vec<LintUnit> {
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
    vec![LintUnit {
        name: "fixture".into(),
        files: rust_files(fixture)
            .into_iter()
            .map(|path| UnitFile {
                module: path_mode::module_of(&path).into(),
                path: path.into(),
                owns_directory: false,
            })
            .collect(),
        follow_modules: false,
        rooted: false,
        manifest: None,
        test_target: false,
        crate_name: None,
        roots: Vec::new(),
        library: Default::default(),
    }]
}

/// A directory fixture may carry an `mcp-lint.toml` (for example to name the SDK). Preview mode
/// is on.
fn settings_for(fixture: &Path) -> Settings {
    let config = fixture.join("mcp-lint.toml");
    let mut settings = if fixture.is_dir() && config.is_file() {
        config::load(fixture, Some(&config)).expect("the fixture's configuration loads")
    } else {
        Settings::default()
    };
    settings.preview = true;
    settings
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

/// The fixtures in a rule's directory: its `.rs` files (not the `.fixed.rs` ones) and its
/// directories.
fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
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
fn check_rule_fixes(dir: &Path, rule_dir: &str) -> Vec<String> {
    let bless = std::env::var_os("MCP_LINT_BLESS").is_some();
    let mut failures = Vec::new();
    let mut fixed_files = 0;
    // The fixes of the rule's own findings, by applicability.
    let mut emitted: Vec<Applicability> = Vec::new();
    for fixture in fixtures(dir) {
        let units = unit(&fixture);
        let name = fixture
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();

        let settings = settings_for(&fixture);
        let result = engine::lint_with(&units, Path::new("/"), &Overlay::new(), &settings);
        for d in &result.diagnostics {
            let Some(rule) = rules::find(d.code) else {
                failures.push(format!("{name}: {} is not a registered rule", d.code));
                continue;
            };
            let declared = rule.meta().fix;
            if d.code.eq_ignore_ascii_case(rule_dir) {
                emitted.extend(d.fix.as_ref().map(|f| f.applicability));
            }
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
    // A rule that declares fixes shows one in its fixtures, and when any is safe, `--fix` applies
    // it to some fixture (a rule whose fixes are all suggestions changes no file).
    if rules::find(rule_dir).is_some_and(|r| r.meta().fix != FixAvailability::None) {
        if emitted.is_empty() {
            failures.push(format!(
                "{rule_dir} declares fixes but no fixture shows one"
            ));
        } else if emitted.contains(&Applicability::Safe) && fixed_files == 0 {
            failures.push(format!(
                "{rule_dir} has safe fixes but no fixture exercises them"
            ));
        }
    }
    failures
}

/// Compare each fixture's findings with its `//~` markers. Returns the failures.
fn check_rule_fixtures(dir: &Path, rule_dir: &str) -> Vec<String> {
    let entries = fixtures(dir);
    if entries.is_empty() {
        return vec![format!("no fixtures under {}", dir.display())];
    }
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
    if markers == 0 {
        failures.push(format!(
            "the fixtures of {rule_dir} expect no finding at all"
        ));
    }
    failures
}

/// Registered rules that no code can trigger, so they have no fixture directory, and why.
const WITHOUT_FIXTURES: &[(&str, &str)] = &[(
    "MCP999",
    "an internal error is the tool's failure, never the code's: tests/internal_error.rs covers it",
)];

/// What one run of the harness over a fixtures root did.
#[derive(Debug, Default)]
struct HarnessRun {
    /// Every fixture (file or directory) whose findings and fixes were checked.
    ran: Vec<PathBuf>,
    failures: Vec<String>,
}

/// Run the fixtures of every registered rule found under `root` (`<root>/<code lowercase>/`),
/// each rule on its own thread: compare the findings with the markers and check the fixes, for
/// every rule. A registered rule that can report from code and has no directory fails, and so
/// does a directory that names no rule.
fn run_harness(root: &Path) -> HarnessRun {
    let mut run = HarnessRun::default();
    let registry = rules::registry();
    let mut directories: Vec<String> = std::fs::read_dir(root)
        .expect("the fixtures root is readable")
        .map(|e| e.expect("readable entry"))
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    directories.sort();
    for directory in &directories {
        if !registry
            .iter()
            .any(|r| r.meta().code.to_ascii_lowercase() == *directory)
        {
            run.failures.push(format!(
                "{}: a fixture directory that names no registered rule (directories are rule \
                 codes in lower case)",
                root.join(directory).display()
            ));
        }
    }
    let mut wanted = Vec::new();
    for rule in &registry {
        let code = rule.meta().code;
        let directory = code.to_ascii_lowercase();
        let exempt = WITHOUT_FIXTURES.iter().any(|(c, _)| *c == code);
        match (directories.contains(&directory), exempt) {
            (true, _) => wanted.push((directory.clone(), root.join(&directory))),
            (false, false) => run.failures.push(format!(
                "{code} has no fixture directory {}: every rule that can report from code needs \
                 fixtures",
                root.join(&directory).display()
            )),
            (false, true) => {}
        }
    }
    let results: Vec<(String, Vec<PathBuf>, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = wanted
            .iter()
            .map(|(name, dir)| {
                let handle = scope.spawn(move || {
                    let mut failures = check_rule_fixtures(dir, name);
                    failures.extend(check_rule_fixes(dir, name));
                    (fixtures(dir), failures)
                });
                (name.clone(), handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(name, handle)| match handle.join() {
                Ok((ran, failures)) => (name, ran, failures),
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    (
                        name,
                        Vec::new(),
                        vec![format!("the harness panicked: {message}")],
                    )
                }
            })
            .collect()
    });
    for (name, ran, failures) in results {
        run.ran.extend(ran);
        run.failures
            .extend(failures.into_iter().map(|f| format!("[{name}] {f}")));
    }
    run.ran.sort();
    run
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every rule's fixtures and fixes, found from the registry: no list of rules to keep here.
#[test]
fn every_rules_fixtures_and_fixes() {
    let run = run_harness(&fixtures_root());
    assert!(
        run.failures.is_empty(),
        "{} failures:\n{}",
        run.failures.len(),
        run.failures.join("\n")
    );
    // Every fixture on disk was run: each directory under the root, each fixture in it.
    let mut on_disk = Vec::new();
    for entry in std::fs::read_dir(fixtures_root()).expect("readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            on_disk.extend(fixtures(&path));
        }
    }
    on_disk.sort();
    assert_eq!(run.ran, on_disk, "the fixtures run are those on disk");
    assert!(run.ran.len() > 100, "{} fixtures", run.ran.len());
}

/// The harness runs fixtures it was never told about: a temporary fixtures root with a new
/// fixture (right and wrong markers), a directory that names no rule, and rules without
/// directories; each is run or reported, with no edit to this file.
#[test]
fn the_harness_finds_fixtures_from_the_registry() {
    const SEND: &str = "pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {\n    if method == \"notifications/cancelled\" {\n        let _ = out.send(json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {\"code\": -32800, \"message\": \"c\"}}));";
    let root = tempfile::tempdir().expect("temp dir");
    let write = |relative: &str, text: &str| {
        let path = root.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "mcp001/marked.rs",
        &format!("{SEND} //~ MCP001\n    }}\n}}\n"),
    );
    write("mcp001/unmarked.rs", &format!("{SEND}\n    }}\n}}\n"));
    write("mcp555/stray.rs", "fn f() {}\n");
    let run = run_harness(root.path());
    assert_eq!(
        run.ran,
        [
            root.path().join("mcp001/marked.rs"),
            root.path().join("mcp001/unmarked.rs")
        ]
    );
    let failures = run.failures.join("\n");
    assert!(
        run.failures
            .iter()
            .any(|f| f.starts_with("[mcp001] unmarked.rs:") && f.contains("unexpected")),
        "{failures}"
    );
    // The marked finding matches; the fix check runs too (and wants the `.fixed.rs` file).
    assert!(
        !run.failures
            .iter()
            .any(|f| f.starts_with("[mcp001] marked.rs:\n")),
        "{failures}"
    );
    assert!(
        failures.contains("[mcp001] marked.rs: ")
            && failures.contains("marked.fixed.rs is missing"),
        "{failures}"
    );
    assert!(
        failures.contains("mcp555: a fixture directory that names no registered rule"),
        "{failures}"
    );
    for rule in rules::registry() {
        let code = rule.meta().code;
        let missing = format!("{code} has no fixture directory");
        let exempt = WITHOUT_FIXTURES.iter().any(|(c, _)| *c == code);
        assert_eq!(
            failures.contains(&missing),
            code != "MCP001" && !exempt,
            "{code}: {failures}"
        );
    }
}
