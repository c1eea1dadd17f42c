//! Fixture tests: every file (or directory, linted as one crate) under `tests/fixtures/<rule>/`
//! marks the lines where findings are expected with `//~ CODE` at the end of the line where the
//! primary span starts. Unmarked lines must produce nothing. What a user reads of each finding
//! (its message, labels, notes, help and fix) is pinned beside the fixture in `<name>.findings`,
//! as clippy pins its `.stderr` files; the fixed text in `<name>.fixed.rs`. `MCP_LINT_BLESS=1`
//! writes both.
//!
//! Each fixture is a test of its own, named `<rule>::<fixture>` (`cargo test --test fixtures
//! mcp001::arm_const`), and each rule has a `<rule>::rule` test of what holds across its
//! fixtures. The rules' directories come from the registry (`tests/fixtures/<code lowercase>/`):
//! a new rule's fixtures run with no edit here, a rule that can report from code but has no
//! directory fails, and so does a directory that names no rule or holds no Rust file.
//!
//! Fixtures run in preview mode, so the rules and shapes in preview are tested like the stable
//! ones; what preview mode leaves out is tested in `tests/cli.rs`.
//!
//! A violation the rules do not find yet (a miss on real code, kept as a fixture until it is
//! fixed) is marked `//~? CODE`: the line may stay silent, and the fixture fails once the rule
//! reports it there, so that the marker becomes `//~ CODE`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cargo_mcp_lint::diagnostic::{Applicability, Diagnostic};
use cargo_mcp_lint::engine::{self, Overlay};
use cargo_mcp_lint::fix::{self, FixOptions};
use cargo_mcp_lint::result::LintResult;
use cargo_mcp_lint::rules::{self, FixAvailability};
use libtest_mimic::{Arguments, Failed, Trial};

mod support;

use support::fixture::{
    fixed_path, fixtures, is_fixed_file, relative, rust_files, settings_for, unit,
};

/// (file relative to the fixture, line) -> codes expected or found there.
type Findings = BTreeMap<(String, usize), Vec<String>>;

fn expected(fixture: &Path, rule_dir: &str) -> Findings {
    markers(fixture, rule_dir, "//~")
}

/// The lines marked `//~? CODE`: violations the rules do not find yet.
fn known_misses(fixture: &Path, rule_dir: &str) -> Findings {
    markers(fixture, rule_dir, "//~?")
}

/// The codes after each `marker` (`//~ MCP001`), by file and line. `//~?` is no `//~` marker: the
/// codes are read from the word after the marker, and `?` is none.
fn markers(fixture: &Path, rule_dir: &str, marker: &str) -> Findings {
    let mut findings = Findings::new();
    for file in rust_files(fixture) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("fixture is readable"))
            .into_owned();
        for (index, line) in text.lines().enumerate() {
            if let Some(position) = line.find(marker) {
                let codes = line[position + marker.len()..]
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

/// A fixture linted as the harness lints it (preview mode, its own configuration).
fn lint(fixture: &Path) -> LintResult {
    engine::lint_with(
        &unit(fixture),
        Path::new("/"),
        &Overlay::new(),
        &settings_for(fixture),
    )
}

/// Where a finding's byte offset is, as `file:line:column` relative to the fixture.
fn place(
    result: &LintResult,
    fixture: &Path,
    file: usize,
    offset: usize,
) -> (String, usize, usize) {
    match result.sources.get(file) {
        Some(source) => {
            let position = source.line_column(offset);
            (
                relative(&source.path, fixture),
                position.line,
                position.column,
            )
        }
        None => ("?".to_string(), 0, 0),
    }
}

/// The findings a fixture is about (see [`compared`]), by marker key, with a line for each.
fn actual(result: &LintResult, fixture: &Path, rule_dir: &str) -> (Findings, Vec<String>) {
    let mut findings = Findings::new();
    let mut messages = Vec::new();
    for d in result
        .diagnostics
        .iter()
        .filter(|d| compared(rule_dir, d.code))
    {
        let (file, line, _) = place(result, fixture, d.file, d.span.start);
        messages.push(format!("{file}:{line}: {} {}", d.code, d.message));
        findings
            .entry((file, line))
            .or_default()
            .push(d.code.to_string());
    }
    findings.values_mut().for_each(|codes| codes.sort());
    (findings, messages)
}

/// What a user reads of a finding, one line per part: where and what, then its labels, notes,
/// help and fix.
fn shown(result: &LintResult, fixture: &Path, d: &Diagnostic) -> String {
    let at = |file: usize, offset: usize| {
        let (file, line, column) = place(result, fixture, file, offset);
        format!("{file}:{line}:{column}")
    };
    let mut out = format!(
        "{}: {}[{}]: {}\n",
        at(d.file, d.span.start),
        d.severity.as_str(),
        d.code,
        d.message
    );
    for label in &d.labels {
        out += &format!(
            "    label {}: {}\n",
            at(label.file, label.span.start),
            label.message
        );
    }
    for note in &d.notes {
        out += &format!("    note: {note}\n");
    }
    if let Some(help) = &d.help {
        out += &format!("    help: {help}\n");
    }
    if let Some(fix) = &d.fix {
        out += &format!(
            "    fix ({}): {}\n",
            fix.applicability.as_str(),
            fix.message
        );
    }
    out
}

/// `x.rs` -> `x.findings`, `dir` -> `dir.findings`: what the fixture's findings show.
fn findings_path(fixture: &Path) -> PathBuf {
    let stem = fixture.file_stem().unwrap_or_default().to_string_lossy();
    fixture.with_file_name(format!("{stem}.findings"))
}

/// Compare what the fixture's findings show with its `.findings` file (or write it, blessing).
fn check_shown(result: &LintResult, fixture: &Path, rule_dir: &str, bless: bool) -> Vec<String> {
    let text: String = result
        .diagnostics
        .iter()
        .filter(|d| compared(rule_dir, d.code))
        .map(|d| shown(result, fixture, d))
        .collect();
    let path = findings_path(fixture);
    if bless {
        if text.is_empty() {
            let _ = std::fs::remove_file(&path);
        } else {
            std::fs::write(&path, &text).expect("write the findings file");
        }
        return Vec::new();
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == text => Vec::new(),
        Ok(expected) => vec![format!(
            "{} differs from what the findings show:\n{}",
            path.display(),
            similar::TextDiff::from_lines(&expected, &text)
                .unified_diff()
                .header("expected", "shown")
        )],
        Err(_) if text.is_empty() => Vec::new(),
        Err(_) => vec![format!(
            "{} is missing (run with MCP_LINT_BLESS=1 to write it):\n{text}",
            path.display()
        )],
    }
}

/// Compare a fixture's findings with its `//~` markers.
fn check_markers(result: &LintResult, fixture: &Path, rule_dir: &str) -> Vec<String> {
    let want = expected(fixture, rule_dir);
    let (got, messages) = actual(result, fixture, rule_dir);
    let mut found_now = String::new();
    for (key, codes) in known_misses(fixture, rule_dir) {
        if got
            .get(&key)
            .is_some_and(|g| codes.iter().any(|c| g.contains(c)))
        {
            found_now += &format!(
                "  the known miss {codes:?} at {}:{} is found now: make its marker `//~`\n",
                key.0, key.1
            );
        }
    }
    if !found_now.is_empty() {
        return vec![found_now];
    }
    if want == got {
        return Vec::new();
    }
    let mut report = String::new();
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
    vec![report]
}

/// Every finding's fix is as its rule declares: none for a rule without fixes, one for a rule
/// that always fixes, and an applicable fix has edits.
fn check_declared_fixes(result: &LintResult) -> Vec<String> {
    let mut failures = Vec::new();
    for d in &result.diagnostics {
        let Some(rule) = rules::find(d.code) else {
            failures.push(format!("{} is not a registered rule", d.code));
            continue;
        };
        let declared = rule.meta().fix;
        let consistent = match declared {
            FixAvailability::None => d.fix.is_none(),
            FixAvailability::Always => d.fix.is_some(),
            FixAvailability::Sometimes => true,
        };
        if !consistent {
            failures.push(format!(
                "{} declares {declared:?} fixes but emitted {:?}",
                d.code, d.fix
            ));
        }
        if let Some(fix) = &d.fix {
            if fix.applicability != Applicability::DisplayOnly && fix.edits.is_empty() {
                failures.push(format!("an applicable fix of {} has no edits", d.code));
            }
        }
    }
    failures
}

/// Apply the safe fixes to a fixture and compare with the `.fixed.rs` files beside it
/// (`MCP_LINT_BLESS=1` writes them). Also checks that fixing converges, that the result parses,
/// and that a second run changes nothing.
fn check_fixed(fixture: &Path, bless: bool) -> Vec<String> {
    let units = unit(fixture);
    let settings = settings_for(fixture);
    let mut failures = Vec::new();
    let run = fix::fix_from(
        &units,
        Path::new("/"),
        FixOptions::default(),
        Overlay::new(),
        &settings,
    );
    if !run.problems.is_empty() {
        failures.push(run.problems.join("; "));
    }
    for file in rust_files(fixture) {
        let expected_path = fixed_path(&file);
        let Some(changed) = run.files.iter().find(|f| f.path == file) else {
            if expected_path.exists() {
                if bless {
                    std::fs::remove_file(&expected_path).expect("remove a stale fixed file");
                } else {
                    failures.push(format!(
                        "{} exists but the fix changes nothing",
                        expected_path.display()
                    ));
                }
            }
            continue;
        };
        if !fix::parses(&changed.fixed) {
            failures.push(format!("the fixed {} does not parse", file.display()));
        }
        if bless {
            std::fs::write(&expected_path, &changed.fixed).expect("write the fixed file");
        } else {
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == changed.fixed => {}
                Ok(expected) => failures.push(format!(
                    "{} differs from the fix:\n{}",
                    expected_path.display(),
                    similar::TextDiff::from_lines(&expected, &changed.fixed)
                        .unified_diff()
                        .header("expected", "fixed")
                )),
                Err(_) => failures.push(format!(
                    "{} is missing (run with MCP_LINT_BLESS=1 to write it)",
                    expected_path.display()
                )),
            }
        }
        // Fixing the fixed text again changes nothing.
        let mut overlay = Overlay::new();
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
            failures.push(format!("a second fix run still changes {}", file.display()));
        }
    }
    failures
}

/// One fixture: its findings against its markers, what they show against its `.findings` file,
/// their fixes against the rules' declarations, and its fixed text against its `.fixed.rs`
/// files.
fn check_fixture(fixture: &Path, rule_dir: &str) -> Vec<String> {
    let bless = std::env::var_os("MCP_LINT_BLESS").is_some();
    let result = lint(fixture);
    let mut failures = check_markers(&result, fixture, rule_dir);
    failures.extend(check_shown(&result, fixture, rule_dir, bless));
    failures.extend(check_declared_fixes(&result));
    failures.extend(check_fixed(fixture, bless));
    failures
}

/// What holds across a rule's fixtures: there are some, and one expects a finding; each
/// directory fixture holds Rust files; no `.findings` or `.fixed.rs` file is left without its
/// fixture; and a rule that declares fixes shows one, and when any is safe, `--fix` applies it to
/// some fixture (a rule whose fixes are all suggestions changes no file). Read from the fixtures'
/// files, which the fixtures' own tests check.
fn check_rule(dir: &Path, rule_dir: &str) -> Vec<String> {
    let entries = fixtures(dir);
    if entries.is_empty() {
        return vec![format!("no fixtures under {}", dir.display())];
    }
    let mut failures = Vec::new();
    let markers: usize = entries
        .iter()
        .map(|f| expected(f, rule_dir).values().map(Vec::len).sum::<usize>())
        .sum();
    if markers == 0 {
        failures.push(format!(
            "the fixtures of {rule_dir} expect no finding at all"
        ));
    }
    for fixture in entries.iter().filter(|f| f.is_dir()) {
        if rust_files(fixture).is_empty() {
            failures.push(format!(
                "{} holds no Rust file: a fixture directory is a crate to lint",
                fixture.display()
            ));
        }
    }
    let mut shown = String::new();
    let mut fixed_files = 0;
    for entry in std::fs::read_dir(dir).expect("fixture directory exists") {
        let path = entry.expect("readable entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if let Some(stem) = name.strip_suffix(".findings") {
            let fixture_of = [dir.join(format!("{stem}.rs")), dir.join(stem)];
            if !fixture_of.iter().any(|f| f.exists()) {
                failures.push(format!("{} belongs to no fixture", path.display()));
            }
            shown += &std::fs::read_to_string(&path).unwrap_or_default();
        }
        if name.ends_with(".fixed.rs") {
            fixed_files += 1;
        }
        if path.is_dir() {
            fixed_files += walk_all(&path).iter().filter(|p| is_fixed_file(p)).count();
        }
    }
    if rules::find(rule_dir).is_some_and(|r| r.meta().fix != FixAvailability::None) {
        let own = format!("[{}]", rule_dir.to_ascii_uppercase());
        // The fixes of the rule's own findings (a finding's parts are indented under it).
        let mut in_own = false;
        let (mut any, mut safe) = (false, false);
        for line in shown.lines() {
            if !line.starts_with(' ') {
                in_own = line.contains(&own);
            } else if in_own && line.starts_with("    fix (") {
                any = true;
                safe |= line.starts_with("    fix (safe)");
            }
        }
        if !any {
            failures.push(format!(
                "{rule_dir} declares fixes but no fixture shows one"
            ));
        } else if safe && fixed_files == 0 {
            failures.push(format!(
                "{rule_dir} has safe fixes but no fixture exercises them"
            ));
        }
    }
    failures
}

/// Every file under a directory.
fn walk_all(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixture directory is readable") {
        let path = entry.expect("fixture entry is readable").path();
        if path.is_dir() {
            out.extend(walk_all(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Registered rules that no code can trigger, so they have no fixture directory, and why.
const WITHOUT_FIXTURES: &[(&str, &str)] = &[(
    "MCP999",
    "an internal error is the tool's failure, never the code's: tests/internal_error.rs covers it",
)];

/// What the harness runs under a fixtures root: each registered rule's directory with its
/// fixtures, and what is wrong with the root itself (a directory that names no rule, a rule that
/// can report from code without a directory).
#[derive(Debug, Default)]
struct Plan {
    /// (rule directory name, its path, its fixtures).
    rules: Vec<(String, PathBuf, Vec<PathBuf>)>,
    problems: Vec<String>,
}

fn plan(root: &Path) -> Plan {
    let mut plan = Plan::default();
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
            plan.problems.push(format!(
                "{}: a fixture directory that names no registered rule (directories are rule \
                 codes in lower case)",
                root.join(directory).display()
            ));
        }
    }
    for rule in &registry {
        let code = rule.meta().code;
        let directory = code.to_ascii_lowercase();
        let exempt = WITHOUT_FIXTURES.iter().any(|(c, _)| *c == code);
        match (directories.contains(&directory), exempt) {
            (true, _) => {
                let path = root.join(&directory);
                let cases = fixtures(&path);
                plan.rules.push((directory, path, cases));
            }
            (false, false) => plan.problems.push(format!(
                "{code} has no fixture directory {}: every rule that can report from code needs \
                 fixtures",
                root.join(&directory).display()
            )),
            (false, true) => {}
        }
    }
    plan
}

fn outcome(failures: Vec<String>) -> Result<(), Failed> {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

/// The tests of a fixtures root: one per fixture, one per rule, and one for the root.
fn trials(root: &Path) -> Vec<Trial> {
    let plan = plan(root);
    let mut trials = Vec::new();
    for (rule_dir, dir, cases) in plan.rules {
        for fixture in cases {
            let name = fixture
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let rule_dir = rule_dir.clone();
            trials.push(Trial::test(format!("{rule_dir}::{name}"), move || {
                outcome(check_fixture(&fixture, &rule_dir))
            }));
        }
        let name = format!("{rule_dir}::rule");
        trials.push(Trial::test(name, move || {
            outcome(check_rule(&dir, &rule_dir))
        }));
    }
    let problems = plan.problems;
    trials.push(Trial::test("fixtures_root", move || outcome(problems)));
    trials
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The harness runs fixtures it was never told about: a temporary fixtures root with a new
/// fixture (right and wrong markers), a directory that names no rule, a fixture directory
/// without a Rust file, and rules without directories; each is run or reported, with no edit to
/// this file.
fn the_harness_finds_fixtures_from_the_registry() -> Result<(), Failed> {
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
    write(
        "mcp001/miss_found.rs",
        &format!("{SEND} //~? MCP001\n    }}\n}}\n"),
    );
    write("mcp001/miss_silent.rs", "pub fn quiet() {} //~? MCP001\n");
    write("mcp001/target/mcp-lint/facts-v2.bin", "stale");
    write("mcp555/stray.rs", "fn f() {}\n");
    let plan = plan(root.path());
    let problems = plan.problems.join("\n");
    assert_eq!(plan.rules.len(), 1, "{:?}", plan.rules);
    let (rule_dir, dir, cases) = &plan.rules[0];
    assert_eq!(
        cases,
        &[
            root.path().join("mcp001/marked.rs"),
            root.path().join("mcp001/miss_found.rs"),
            root.path().join("mcp001/miss_silent.rs"),
            root.path().join("mcp001/target"),
            root.path().join("mcp001/unmarked.rs"),
        ]
    );
    // A known miss (`//~?`) that is found fails until its marker says so; one still silent
    // passes.
    let found = check_fixture(&cases[1], rule_dir).join("\n");
    assert!(found.contains("is found now"), "{found}");
    let silent = check_fixture(&cases[2], rule_dir).join("\n");
    assert!(
        !silent.contains("missing [") && !silent.contains("is found now"),
        "{silent}"
    );
    let unmarked = check_fixture(&cases[4], rule_dir).join("\n");
    assert!(unmarked.contains("unexpected"), "{unmarked}");
    // The marked finding matches; what it shows and its fix are wanted beside it.
    let marked = check_fixture(&cases[0], rule_dir).join("\n");
    assert!(
        !marked.contains("missing [") && !marked.contains("unexpected"),
        "{marked}"
    );
    assert!(marked.contains("marked.findings is missing"), "{marked}");
    assert!(marked.contains("error[MCP001]: "), "{marked}");
    assert!(marked.contains("marked.fixed.rs is missing"), "{marked}");
    // A directory without a Rust file is no fixture that can fail.
    let rule = check_rule(dir, rule_dir).join("\n");
    assert!(rule.contains("target holds no Rust file"), "{rule}");
    assert!(
        problems.contains("mcp555: a fixture directory that names no registered rule"),
        "{problems}"
    );
    for rule in rules::registry() {
        let code = rule.meta().code;
        let missing = format!("{code} has no fixture directory");
        let exempt = WITHOUT_FIXTURES.iter().any(|(c, _)| *c == code);
        assert_eq!(
            problems.contains(&missing),
            code != "MCP001" && !exempt,
            "{code}: {problems}"
        );
    }
    Ok(())
}

/// Every fixture on disk has its test, and there are many.
fn every_fixture_on_disk_is_a_test() -> Result<(), Failed> {
    let plan = plan(&fixtures_root());
    let planned: Vec<PathBuf> = plan.rules.iter().flat_map(|(_, _, c)| c.clone()).collect();
    let mut on_disk = Vec::new();
    for entry in std::fs::read_dir(fixtures_root()).expect("readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            on_disk.extend(fixtures(&path));
        }
    }
    on_disk.sort();
    let mut planned = planned;
    planned.sort();
    assert_eq!(planned, on_disk, "the fixtures run are those on disk");
    assert!(planned.len() > 100, "{} fixtures", planned.len());
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = trials(&fixtures_root());
    trials.push(Trial::test(
        "harness::finds_fixtures_from_the_registry",
        the_harness_finds_fixtures_from_the_registry,
    ));
    trials.push(Trial::test(
        "harness::every_fixture_on_disk_is_a_test",
        every_fixture_on_disk_is_a_test,
    ));
    libtest_mimic::run(&args, trials).exit();
}
